"""Compile once, run any size (issue 19): a model with symbolic dimensions compiles to ONE
Executable whose kernels loop to run-time bounds, and `run` takes the symbols' values from
the inputs' shapes; checked against ONNX Runtime at every size, with the number of builds
counted. Inputs that contradict the model's symbols or bounds are clear errors."""

from __future__ import annotations

import os
from pathlib import Path

import models
import numpy as np
import onnx
import pytest

import minitvm
import minitvm.compiler
from minitvm.errors import MinitvmError
from minitvm.runtime.ort import ort_session

ONNX_DIR = models.ONNX_DIR
BERT_INPUTS = models.BERT_INPUTS


CASES = models.SYMBOLIC_CASES


@pytest.mark.parametrize("name", CASES)
def test_one_compile_runs_every_size(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    build, shapes_list, bounds = CASES[name]
    model = build()
    builds = []
    real_build = minitvm.compiler.build
    monkeypatch.setattr(minitvm.compiler, "build", lambda *a, **k: builds.append(1) or real_build(*a, **k))
    exe = minitvm.compile(model, input_shapes=bounds, num_threads=1)
    session = ort_session(model, num_threads=1)
    for seed, shapes in enumerate(shapes_list):
        feeds = models.random_feeds(model, shapes, seed)
        got, want = exe.run(feeds), session(feeds)
        for ours, theirs, output in zip(got, want, exe.output_names, strict=True):
            assert ours.shape == theirs.shape, (output, shapes)
            np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * float(np.abs(theirs).max()))
    assert len(builds) == 1  # every size ran the one build
    assert exe.symbols  # and it is the symbolic one


def test_the_inputs_must_agree_with_the_symbols() -> None:
    model = onnx.load(os.path.join(ONNX_DIR, "gpt2_dynamic.onnx"))
    exe = minitvm.compile(model, num_threads=1)
    assert [str(d) for d in exe.input_shapes["input_ids"]] == ["batch", "sequence"]
    ids = np.zeros((2, 9), np.int64)
    with pytest.raises(MinitvmError) as info:
        exe.run({"input_ids": ids, "attention_mask": np.ones((2, 7), np.int64)})
    assert str(info.value) == (
        "input 'attention_mask' dimension 1 is 7, but the model says sequence = 9 there: "
        "sequence = 9 (from input 'input_ids' dimension 1)"
    )
    with pytest.raises(MinitvmError, match=r"input 'input_ids' is int64\[2\] but the model expects input_ids: int64\[batch, sequence\]"):
        exe.run({"input_ids": np.zeros(2, np.int64), "attention_mask": np.ones((2, 9), np.int64)})
    with pytest.raises(MinitvmError, match=r"dimension 0 \('batch'\) is 0, outside the 1\.\.2147483647 .*a size of 0 needs a compile with input_shapes"):
        exe.run({"input_ids": np.zeros((0, 9), np.int64), "attention_mask": np.ones((0, 9), np.int64)})


def test_a_shape_seen_before_skips_the_checks_it_passed_and_a_bad_one_still_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`run` keeps the symbols' values it checked for each shape (and the sizes worked out
    from them): a small dynamic model spent more of its run in that Python than in its code.
    A shape that fails the checks is never kept, so it fails every time."""
    import minitvm.runtime.executable as executable

    exe = minitvm.compile(models.bert_encoder_layer(seq=16, hidden=64, heads=4, ffn=128, dynamic=True))
    binds = []
    real_bind = executable.bind_symbols
    monkeypatch.setattr(executable, "bind_symbols", lambda *a, **k: binds.append(1) or real_bind(*a, **k))
    x = {s: np.random.default_rng(s).standard_normal((1, s, 64)).astype(np.float32) for s in (4, 8)}
    first = exe.run({"hidden_states": x[4]})[0]
    other = exe.run({"hidden_states": x[8]})[0]
    again = exe.run({"hidden_states": x[4]})[0]
    assert len(binds) == 2 and first.shape == again.shape == (1, 4, 64) and other.shape == (1, 8, 64)
    np.testing.assert_array_equal(first, again)
    for _ in range(2):
        with pytest.raises(MinitvmError, match="outside the 1..2147483647"):
            exe.run({"hidden_states": np.ones((1, 0, 64), np.float32)})
    assert len(binds) == 4


def test_a_bound_the_models_shapes_need_is_taken_and_checked_at_run_time() -> None:
    """torch.onnx's BERT runs up to its 64 positions: compiled without input_shapes, it runs
    every length up to 64 (one build, as ONNX Runtime does) and refuses 65 with the bound."""
    model = onnx.load(os.path.join(ONNX_DIR, "bert_dynamic.onnx"))
    exe = minitvm.compile(model, num_threads=1)
    assert exe.bounds == {"sequence": (1, 64)}
    session = ort_session(model, num_threads=1)
    for seed, (batch, seq) in enumerate([(1, 1), (2, 7), (1, 64)]):
        feeds = models.random_feeds(model, dict.fromkeys(BERT_INPUTS, (batch, seq)), seed)
        for ours, theirs in zip(exe.run(feeds), session(feeds), strict=True):
            np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * float(np.abs(theirs).max()))
    feeds = models.random_feeds(model, dict.fromkeys(BERT_INPUTS, (1, 65)), 0)
    with pytest.raises(MinitvmError, match=r"input 'input_ids' dimension 1 \('sequence'\) is 65, outside the 1\.\.64 that node '/model/embeddings/Add_1' \(Add, opset 14\) needs$"):
        exe.run(feeds)


def test_the_refusal_of_a_taken_bound_names_the_node_that_needs_it(tmp_path: Path) -> None:
    """The bound the import took is the model's, not the user's: the Executable and the
    exported library name the node whose shapes hold only within it. A bound input_shapes
    narrows is the user's again."""
    model = onnx.load(os.path.join(ONNX_DIR, "bert_dynamic.onnx"))
    feeds = models.random_feeds(model, dict.fromkeys(BERT_INPUTS, (1, 65)), 0)
    exe = minitvm.compile(model, num_threads=1)
    assert exe.bound_sources == {"sequence": "node '/model/embeddings/Add_1' (Add, opset 14)"}
    exe.export(str(tmp_path / "bert.so"))
    lib = minitvm.load(tmp_path / "bert.so", num_threads=1)
    for runner in (exe, lib):
        with pytest.raises(MinitvmError, match=r"is 65, outside the 1\.\.64 that node '/model/embeddings/Add_1' \(Add, opset 14\) needs$"):
            runner.run(feeds)
    narrowed = minitvm.compile(model, input_shapes=dict.fromkeys(BERT_INPUTS, (None, "2..100")), num_threads=1)
    assert narrowed.bounds == {"sequence": (2, 64)} and narrowed.bound_sources == {}
    with pytest.raises(MinitvmError, match=r"is 65, outside the 2\.\.64 the model was compiled for"):
        narrowed.run(feeds)


def test_a_bound_is_checked_at_run_time() -> None:
    model = onnx.load(os.path.join(ONNX_DIR, "bert_dynamic.onnx"))
    exe = minitvm.compile(model, input_shapes=dict.fromkeys(BERT_INPUTS, (None, "1..64")), num_threads=1)
    assert exe.bounds == {"sequence": (1, 64)}
    feeds = models.random_feeds(model, dict.fromkeys(BERT_INPUTS, (1, 65)), 0)
    with pytest.raises(MinitvmError, match=r"input 'input_ids' dimension 1 \('sequence'\) is 65, outside the 1\.\.64 the model was compiled for"):
        exe.run(feeds)


def test_intermediates_live_in_one_arena_that_grows_to_the_largest_run() -> None:
    """Buffers of run-time size are planned into the arena (offsets computed from the sizes,
    slots shared by buffers that do not live at once): a run at a size seen before, or a
    smaller one, allocates nothing for them."""
    exe = minitvm.compile(models.bert_encoder_layer(seq=16, hidden=64, heads=4, ffn=128, dynamic=True))
    x = {s: np.ones((1, s, 64), np.float32) for s in (4, 32, 8)}
    exe.run({"hidden_states": x[4]})
    small = exe._arena_storage
    exe.run({"hidden_states": x[4]})
    assert exe._arena_storage is small
    exe.run({"hidden_states": x[32]})
    large = exe._arena_storage
    assert large is not small and large.size > small.size
    exe.run({"hidden_states": x[8]})
    assert exe._arena_storage is large


def test_every_tail_of_a_register_block_is_right() -> None:
    """Splits of a symbolic extent run their full tiles, then what is left (a register
    block's last whole tile and its rest as two even blocks): every sequence length from 1 to
    17 (every remainder of blocks of up to 8 rows, two blocks deep) against ONNX Runtime, with batch 1 and 2 (batch*seq rows in the GEMMs:
    odd counts too)."""
    model = models.bert_encoder_layer(seq=16, hidden=64, heads=4, ffn=128, dynamic=True)
    exe = minitvm.compile(model, num_threads=1)
    session = ort_session(model, num_threads=1)
    for batch in (1, 2):
        for seq in range(1, 18):
            feeds = models.random_feeds(model, {"hidden_states": (batch, seq, 64)}, seq)
            np.testing.assert_allclose(
                exe.run(feeds)[0], session(feeds)[0], rtol=1e-4, atol=1e-4, err_msg=f"{batch} x {seq}"
            )


def test_reductions_along_a_run_time_axis_run_as_vector_strips_and_a_scalar_rest() -> None:
    """A softmax along a symbolic axis: its max, sum and normalization vectorized as 16-lane
    strips plus a scalar loop over what is left (a static compile vectorizes them at a
    multiple of 16: at seq 384, BERT's dynamic attention softmax took 9.6 ms scalar against
    the static one's 2.2); every length from 1 to 40, and 1000, against numpy."""
    from onnx import TensorProto, helper

    from minitvm.compiler import lower_to_te
    from minitvm.dialects import te
    from minitvm.frontend import from_onnx
    from minitvm.schedules.kernel import kernels

    graph = helper.make_graph(
        [helper.make_node("Softmax", ["x"], ["y"], axis=-1)], "softmax",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, "n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, "n"])],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module = from_onnx(model)
    lower_to_te(module, 3, num_threads=1)
    (kernel,) = kernels(module)
    vectorized = [
        c for c in kernel.walk()
        if isinstance(c, te.ComputeOp) and "vectorize" in str(c.attributes.get(te.SCHEDULE_ATTR))
    ]  # fmt: skip
    assert len(vectorized) == 3, str(kernel)  # the max, the sum and the normalization
    exe = minitvm.compile(model, num_threads=1)
    for n in (*range(1, 41), 1000):
        x = np.random.default_rng(n).standard_normal((3, n)).astype(np.float32)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(exe.run({"x": x})[0], e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6, err_msg=str(n))


@pytest.mark.parametrize("name", ["bert_layer", "resnet18_batch"])
def test_symbolic_kernels_keep_their_templates_schedules(name: str) -> None:
    """A symbolic kernel whose schedule fails under the size hints falls back to plain
    loops, silently and 10x slower: every kernel a static compile of the model schedules is
    scheduled in the dynamic compile too (a regression once made the attention, softmax and
    layer norms of the BERT layer plain loops)."""
    from minitvm.compiler import lower_to_te
    from minitvm.dialects import te
    from minitvm.frontend import from_onnx
    from minitvm.schedules.kernel import kernels

    build, shapes, input_shapes = CASES[name]

    def unscheduled(module: object) -> set[str]:
        lower_to_te(module, 3, num_threads=2)  # type: ignore[arg-type]
        return {
            k.sym_name.data.rsplit("_", 1)[0]
            for k in kernels(module)  # type: ignore[arg-type]
            if not any(te.SCHEDULE_ATTR in c.attributes for c in k.walk() if isinstance(c, te.ComputeOp))
        }

    static = unscheduled(from_onnx(build(), shapes[0]))
    assert unscheduled(from_onnx(build(), input_shapes)) <= static


def test_a_batch_runs_image_by_image_on_the_threads_where_it_fills_them() -> None:
    """A ResNet block with a run-time batch: its kernels run each image's rows on the threads,
    or whole images per thread where the batch fills the threads (lowering/batch_threads.py),
    picked as they run by the run's thread count. Both ways match ONNX Runtime at every
    batch (1 to 8) and thread count (1 to 3), on the same Executable."""
    model = models.with_dynamic_dims(
        models.resnet_basic_block(channels=32, size=14), {"x": ["batch", None, None, None]}
    )
    assert "__minitvm_threads" in minitvm.compiler.llvm_ir(model, None, 3, None, 2, "auto")
    exe = minitvm.compile(model, num_threads=2)
    session = ort_session(model, num_threads=1)
    for threads in (2, 3, 1):
        exe.num_threads = threads
        for batch in (1, 2, 3, 5, 8):
            feeds = models.random_feeds(model, {"x": (batch, 32, 14, 14)}, batch)
            np.testing.assert_allclose(
                exe.run(feeds)[0], session(feeds)[0], rtol=1e-4, atol=1e-4,
                err_msg=f"batch {batch}, {threads} threads",
            )  # fmt: skip
