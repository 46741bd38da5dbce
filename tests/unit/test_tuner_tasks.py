"""tuner/tasks.py: a model's distinct tunable kernels become tasks with standalone modules
that compute what the model's kernel computes, under any config of their space."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from tuner_models import conv_relu_chain, matmul_relu

from minitvm.compiler import build, lower_to_te
from minitvm.dialects.te_eval import run_kernel
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx
from minitvm.host import target_key
from minitvm.pipeline import CONV_BLOCK
from minitvm.schedules.base import VECTOR_REGISTERS, InvalidConfig
from minitvm.schedules.kernel import kernel_task_key, kernels
from minitvm.symbolic import size_hints
from minitvm.tuner.measure import seeded_inputs
from minitvm.tuner.search import split_trials
from minitvm.tuner.tasks import Task, extract_tasks, shapes_and_sizes


def conv_task(tasks: list[Task]) -> Task:
    (task,) = [t for t in tasks if t.template == "conv_nchwc"]
    return task


def test_identical_convs_are_one_task_with_their_count() -> None:
    tasks = extract_tasks(conv_relu_chain(layers=2), num_threads=1, winograd="never")
    task = conv_task(tasks)
    assert task.count == 2 and len(task.kernel_names) == 2
    b = CONV_BLOCK  # 32 channels in NCHW16c (AVX2: 8c)
    image = f"1x{32 // b}x8x8x{b}"
    assert task.name == f"{task.kernel_names[0]} {image} -> {image}"
    weight = (32 // b, 32 // b, 3, 3, b, b)
    assert [spec.shape for spec in task.inputs] == [(1, 32 // b, 8, 8, b), weight]
    assert task.target == target_key(1)
    assert {knob.name for knob in task.knobs} == {
        "ow_block",
        "oc_block",
        "reduction_order",
        "unroll_kw",
        "c_block",
    }
    # the template's default (schedules/conv.py): 8 pixels x 2 channel blocks with AVX-512's
    # 32 registers, 4 x 2 with AVX2's 16
    assert task.default_config is not None
    assert task.default_config["ow_block"] == (8 if VECTOR_REGISTERS == 32 else 4)
    assert len({t.key for t in tasks}) == len(tasks)  # one task per key


def test_keys_are_stable_and_name_the_target() -> None:
    first = [t.key for t in extract_tasks(conv_relu_chain(), num_threads=1, winograd="never")]
    again = [t.key for t in extract_tasks(conv_relu_chain(), num_threads=1, winograd="never")]
    assert first == again
    two_threads = [t.key for t in extract_tasks(conv_relu_chain(), num_threads=2, winograd="never")]
    assert not set(first) & set(two_threads)
    # A larger conv computes something else: another task.
    wider = [t.key for t in extract_tasks(conv_relu_chain(size=16), num_threads=1, winograd="never")]
    assert not set(first) & set(wider)


@pytest.mark.parametrize("make", [conv_relu_chain, matmul_relu], ids=["conv", "gemm"])
def test_standalone_module_computes_the_model_kernel(make) -> None:
    model = make()
    module = from_onnx(model)
    lower_to_te(module, num_threads=1, winograd="never")
    task = next(
        t for t in extract_tasks(model, num_threads=1, winograd="never") if t.template in ("conv_nchwc", "gemm")
    )
    kernel = next(k for k in kernels(module) if kernel_task_key(k, task.target) == task.key)
    inputs = seeded_inputs(task.inputs, 7)
    expected = run_kernel(kernel, list(inputs.values()))
    valid = task.configs()
    for config in (None, valid[0], valid[-1]):
        exe = build(task.module(config), task.inputs, task.outputs, num_threads=1)
        (out,) = exe.run(inputs)
        np.testing.assert_allclose(out, expected[0], rtol=1e-4, atol=1e-4, err_msg=str(config))


def test_jobs_carry_the_config_and_invalid_ones_are_refused() -> None:
    task = conv_task(extract_tasks(conv_relu_chain(), num_threads=1, winograd="never"))
    assert task.job().module_text == task.module_text
    job = task.job({**task.default_config, "ow_block": 2}, seed=3)  # type: ignore[dict-item]
    assert '#te.split<"i3", 2>' in job.module_text and job.seed == 3 and job.num_threads == 1
    with pytest.raises(InvalidConfig):
        task.job({**task.default_config, "ow_block": 3})  # type: ignore[dict-item]  # not a choice
    with pytest.raises(InvalidConfig):
        task.check({**task.default_config, "tiles": 4})  # type: ignore[dict-item]  # no such knob
    sizes = [len(k.choices) for k in task.knobs]
    assert 0 < len(task.configs()) <= np.prod(sizes)
    copy = pickle.loads(pickle.dumps(task))
    assert copy == task and copy.job({**task.default_config}).module_text  # type: ignore[dict-item]


def test_gemm_register_limit_is_invalid() -> None:
    task = next(
        t
        for t in extract_tasks(matmul_relu(m=16, k=64, n=128), num_threads=1)
        if t.template == "gemm"
    )
    with pytest.raises(InvalidConfig, match="accumulator"):
        task.check({
            "rows": 8, "cols": 128, "lanes": 16, "k_block": 0, "tile_order": "cols_first",
            "prefetch": 0,
        })  # fmt: skip


def test_split_trials_by_weight() -> None:
    assert split_trials(20, [1.0, 1.0], [100, 100]) == [10, 10]
    heavy = split_trials(40, [9.0, 1.0], [100, 100])
    assert sum(heavy) == 40 and heavy[0] > heavy[1] >= 4
    assert split_trials(40, [9.0, 1.0], [10, 100]) == [10, 30]  # a small space gives back
    assert split_trials(3, [1.0, 1.0, 1.0, 1.0], [9] * 4) == [1, 1, 1, 0]  # fewer than tasks
    assert sum(split_trials(1000, [1.0, 2.0], [5, 7])) == 12  # never past the caps


def test_several_shapes_make_a_dynamic_compile_measured_at_each() -> None:
    """x given as 3x64 and 40x64: its first dimension stays symbolic ("x_0", the frontend's
    name for an unnamed one), the GEMM kernel's task is measured at both sizes and its jobs
    carry them; its key is what a dynamic compile's te-apply-records looks up."""
    model = matmul_relu()
    shapes, sizes = shapes_and_sizes(model, {"x": [(3, 64), (40, 64)]})
    assert shapes == {"x": (None, 64)} and sizes == [{"x_0": 3}, {"x_0": 40}]
    (task,) = extract_tasks(model, shapes, num_threads=1, sizes=sizes)
    assert task.template == "gemm" and task.sizes == ((("x_0", 3),), (("x_0", 40),))
    assert task.job(task.default_config).sizes == task.sizes
    assert len(task.configs()) > 1
    module = from_onnx(model, shapes)
    lower_to_te(module, 3, num_threads=1)
    (kernel,) = [k for k in kernels(module) if k.sym_name.data == task.kernel_names[0]]
    with size_hints():
        assert kernel_task_key(kernel, target_key(1)) == task.key
    assert extract_tasks(model, shapes, num_threads=1) == []  # no sizes: no symbolic task
    assert shapes_and_sizes(model, {"x": [(3, 64)]}) == ({"x": (3, 64)}, [])
    with pytest.raises(MinitvmError, match="as many each"):
        shapes_and_sizes(model, {"x": [(3, 64), (4, 64)], "y": [(1,), (2,), (3,)]})
