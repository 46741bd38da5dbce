"""tuner/choices.py and graph-winograd's tuned algorithms: a 3x3 conv's algorithm (direct,
f2x2, f4x4) as a tuning task, measured on the conv alone, filed in the records and applied
by graph-winograd in mode "auto"; `tune` measures every algorithm first and takes the kernel
tasks from the model compiled with the records' algorithms."""

from __future__ import annotations

import numpy as np
import onnx
import optuna
import pytest
from test_fusion import Net
from tuner_models import conv_relu_chain, matmul_relu
from xdsl.dialects import func

import minitvm
from minitvm.compiler import lower_to_te
from minitvm.dialects.graph import ConstantOp, ConvNchwcOp
from minitvm.dialects.graph.base import shape_of
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx
from minitvm.ir import parse_module
from minitvm.passes.graph import winograd
from minitvm.passes.graph.winograd import ALGORITHM, ALGORITHMS, WinogradPass
from minitvm.pipeline import CONV_BLOCK
from minitvm.records import load_schedules, open_storage
from minitvm.schedules.base import InvalidConfig
from minitvm.schedules.kernel import kernels
from minitvm.tuner.choices import ChoiceTask, bind_arguments, choice_tasks
from minitvm.tuner.measure import Measurer, eviction_bytes
from minitvm.tuner.search import MeasureOptions, queue_space, study_name, tune

FAST = MeasureOptions(timeout=60.0, repeats=3, min_seconds=0.005)


def conv_algorithms(model: onnx.ModelProto, **options: object) -> list[str]:
    """The algorithm each 3x3 conv of `model` took, lowered for one thread: "direct", or the
    Winograd tile its input transform's positions (16 or 36) tell."""
    module = from_onnx(model)
    lower_to_te(module, num_threads=1, **options)  # type: ignore[arg-type]
    taken = []
    for kernel in kernels(module):
        name = kernel.sym_name.data
        if "winograd_input" in name:
            (result,) = kernel.function_type.outputs.data
            positions = shape_of(result)[0]  # type: ignore[arg-type]
            taken.append({16: "f2x2", 36: "f4x4"}[positions])
        elif "conv_nchwc" in name:
            taken.append("direct")
    return taken


@pytest.fixture(scope="module")
def task() -> ChoiceTask:
    (only,) = choice_tasks(conv_relu_chain(channels=32, size=8, layers=2), num_threads=1)
    return only


def test_a_3x3_conv_shape_is_one_task_of_three_algorithms(task: ChoiceTask) -> None:
    assert task.count == 2  # the two layers are the same conv (their weights differ)
    assert task.template == "graph-winograd"
    assert [k.name for k in task.knobs] == [ALGORITHM]
    assert task.configs() == [{ALGORITHM: a} for a in ALGORITHMS]
    assert task.default_config is not None and task.default_config[ALGORITHM] in ALGORITHMS
    nchwc = (1, 32 // CONV_BLOCK, 8, 8, CONV_BLOCK)  # 32 channels in NCHW16c (AVX2: 8c)
    assert [spec.shape for spec in task.inputs] == [nchwc]  # the image alone
    assert [spec.shape for spec in task.outputs] == [nchwc]
    with pytest.raises(InvalidConfig, match="algorithm must be one of"):
        task.check({ALGORITHM: "f6x6"})
    with pytest.raises(InvalidConfig, match="no knob named"):
        task.check({"tile": 4})


def test_runs_start_cold_where_the_weights_outgrow_the_last_level_cache(
    task: ChoiceTask, monkeypatch
) -> None:
    from minitvm.tuner import choices

    assert task.evict_bytes == 0  # (its 74 KB of weights stay cached in its model)
    assert task.job().evict_bytes == 0
    monkeypatch.setattr(choices, "last_level_cache", lambda: 16 << 10)
    (cold,) = choice_tasks(conv_relu_chain(channels=32, size=8, layers=2), num_threads=1)
    assert cold.evict_bytes == eviction_bytes() > 0
    assert cold.job({ALGORITHM: "f2x2"}).evict_bytes == cold.evict_bytes
    assert cold.key == task.key  # (how it is timed is not what it is)


def test_keys_name_the_shape_and_the_target_not_the_weights() -> None:
    def key(**options: int) -> str:
        threads = options.pop("threads", 1)
        (only,) = choice_tasks(conv_relu_chain(**options), num_threads=threads)
        return only.key

    assert key() == key()
    assert len({key(), key(threads=2), key(size=16), key(channels=16)}) == 4


def test_only_convs_winograd_computes_are_tasks() -> None:
    assert choice_tasks(matmul_relu(), num_threads=1) == []
    assert choice_tasks(conv_relu_chain(), num_threads=1, opt_level=1) == []  # no graph-winograd
    net = Net(5)
    x = net.input("x", [1, 32, 16, 16])
    y = net.op("Conv", [x, net.weight("w0", [32, 32, 3, 3])], pads=[1, 1, 1, 1], strides=[2, 2])
    y = net.op("Conv", [y, net.weight("w1", [32, 32, 3, 3])], pads=[1, 1, 1, 1], group=1)
    y = net.op("Conv", [y, net.weight("w2", [32, 8, 3, 3])], pads=[1, 1, 1, 1], group=4)
    (one,) = choice_tasks(net.model([y]), num_threads=1)  # the stride-1, one-group conv alone
    assert one.count == 1


def test_the_weights_are_bound_to_seeded_constants(task: ChoiceTask) -> None:
    module = task.module()
    main = next(op for op in module.ops if isinstance(op, func.FuncOp))
    assert len(main.body.block.args) == 2  # image, weight (no bias in the chain)
    bind_arguments(main, 1, seed=7)
    assert [a.name_hint for a in main.body.block.args] == ["in0"]
    assert len(main.function_type.inputs.data) == 1
    (conv,) = [op for op in main.walk() if isinstance(op, ConvNchwcOp)]
    weight = conv.weight.owner
    assert isinstance(weight, ConstantOp)
    again = parse_module(task.module_text)
    bind_arguments(next(op for op in again.ops if isinstance(op, func.FuncOp)), 1, seed=7)
    same = next(op for op in again.walk() if isinstance(op, ConstantOp))
    np.testing.assert_array_equal(weight.numpy(), same.numpy())
    assert np.std(weight.numpy()) > 0.5


def test_every_algorithm_computes_what_the_default_does(task: ChoiceTask) -> None:
    with Measurer(timeout=120.0, repeats=1, min_seconds=0.0) as measurer:
        default = measurer.run(task.job(seed=3), return_outputs=True)
        assert default.ok, default.message
        for config in task.configs():
            result = measurer.run(task.job(config, seed=3, reference=default.outputs))
            assert result.ok, (config, result.message)


def test_graph_winograd_takes_the_algorithm_chosen_in_mode_auto(task: ChoiceTask) -> None:
    model = conv_relu_chain(channels=32, size=8, layers=2)
    for algorithm in ALGORITHMS:
        chosen = conv_algorithms(model, schedules={task.key: {ALGORITHM: algorithm}})
        assert chosen == [algorithm, algorithm]
    # A mode other than "auto" is the user's word: choices do not apply.
    never = conv_algorithms(model, winograd="never", schedules={task.key: {ALGORITHM: "f4x4"}})
    assert never == ["direct", "direct"]
    # Another CPU's or thread count's key reaches no conv.
    other = conv_algorithms(model, schedules={"0" * 24: {ALGORITHM: "direct"}})
    assert other == conv_algorithms(model)


def test_a_malformed_choice_is_an_error() -> None:
    module = from_onnx(conv_relu_chain())
    with pytest.raises(MinitvmError, match="is not 'key:algorithm'"):
        WinogradPass(choices=("abc:winograd",)).apply(minitvm.ir.make_context(), module)


def test_a_space_within_the_budget_is_queued_whole(tmp_path, task: ChoiceTask) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    study = optuna.create_study(study_name="s", storage=open_storage(url, create=True))
    study.enqueue_trial({ALGORITHM: "f2x2"})
    queue_space(study, task.configs())
    queue_space(study, task.configs())  # (again: nothing more)
    waiting = [t.system_attrs["fixed_params"] for t in study.get_trials(deepcopy=False)]
    assert sorted(p[ALGORITHM] for p in waiting) == sorted(ALGORITHMS)


def test_tuning_finds_winograd_where_the_model_says_direct(tmp_path, monkeypatch) -> None:
    """The cost model made wrong on purpose (it says the direct conv wins everywhere): tuning
    times every algorithm, the records pin the fastest (a Winograd tile, 1.5-2x faster than
    the direct conv at 64 channels), and compiling with the records takes it, where the
    untuned compile keeps the model's direct conv. The kernel tasks are those of the
    Winograd conv."""
    monkeypatch.setattr(winograd, "best_tile", lambda conv, direct=True, roofline=None: None)
    model = conv_relu_chain(channels=64, size=28, layers=1)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    results = tune(model, url, trials=1, num_threads=1, measure=FAST)
    choice, *kernel_results = results
    assert isinstance(choice.task, ChoiceTask)
    assert choice.task.default_config == {ALGORITHM: "direct"}
    assert choice.trials == 3  # every algorithm, outside the budget of one trial
    pinned = load_schedules(url)[choice.task.key]
    assert pinned[ALGORITHM] in ("f2x2", "f4x4"), (pinned, choice)
    assert any(r.task.template == "gemm" for r in kernel_results)  # the Winograd GEMM's
    assert conv_algorithms(model) == ["direct"]
    assert conv_algorithms(model, records=url) == [pinned[ALGORITHM]]
    trials = optuna.load_study(
        study_name=study_name(choice.task.key, "tpe"), storage=open_storage(url)
    )
    assert sorted(t.params[ALGORITHM] for t in trials.trials if t.value is not None) == sorted(
        ALGORITHMS
    )
    # What the tuned model computes is the conv's.
    inputs = minitvm.compiler.random_inputs(minitvm.compile(model, num_threads=1))
    tuned = minitvm.compile(model, records=url, num_threads=1).run(inputs)
    direct = minitvm.compile(model, num_threads=1, winograd="never").run(inputs)
    np.testing.assert_allclose(tuned[0], direct[0], rtol=1e-3, atol=1e-3)


def test_the_conv_algorithms_script_times_each_alone_and_in_the_model(tmp_path, capsys) -> None:
    """bench/conv_algorithms.py: per conv shape, the pick, each algorithm alone and in the model."""
    from minitvm.bench import conv_algorithms

    path = tmp_path / "chain.onnx"
    onnx.save(conv_relu_chain(channels=16, size=8, layers=2), path)
    conv_algorithms.main([str(path), "--rounds", "1", "--model-rounds", "2"])
    header, line = capsys.readouterr().out.splitlines()
    assert header == f"{path}, 1 thread(s): 1 conv shape(s)"
    assert line.startswith("  conv3x3 16->16 at 8x8 x1 x2: pick ")
    assert "alone (warm) direct " in line and "; in model direct " in line
    pick = line.split("pick ")[1].split(";")[0]
    assert f"{pick} 1.000x" in line
