"""Range, Tile, Expand and Reshape whose size operands are computed as the model runs (issue
19, part 4), built on `graph.iota`: each model is compiled once and run with operands that
give different output shapes, against ONNX Runtime; what ONNX Runtime rejects stops the run
with a message naming the node; a count beyond its capacity reruns with a larger one.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper
from test_data_dependent import make_model

import minitvm
from minitvm.backend import MinitvmBackend
from minitvm.errors import MinitvmError

F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
RNG = np.random.default_rng(4)


def check_against_ort(model: onnx.ModelProto, feeds: Iterable[dict[str, np.ndarray]]) -> minitvm.Executable:
    """Compile `model` once, run every feed through it and ONNX Runtime (shapes, element
    types, values); the Executable."""
    exe = minitvm.compile(model, num_threads=1)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for feed in feeds:
        got, want = exe.run(feed), session.run(None, feed)
        for a, b in zip(got, want, strict=True):
            assert a.shape == b.shape and a.dtype == b.dtype, (feed, a.shape, b.shape, a.dtype, b.dtype)
            np.testing.assert_allclose(a, b, rtol=1e-6)
    return exe


@pytest.mark.parametrize(("onnx_type", "dtype"), [(F, np.float32), (I32, np.int32), (I64, np.int64)])
def test_range_of_run_time_bounds_has_their_length(onnx_type: int, dtype: type) -> None:
    node = helper.make_node("Range", ["s", "l", "d"], ["y"], name="r")
    model = make_model([node], {n: (onnx_type, []) for n in "sld"}, ["y"])
    cases = [(0, 5, 1), (10, 0, -3), (3, 1, 1), (-7, 90, 2), (0, 1000, 1), (2, 2, 5)]
    if dtype == np.float32:
        cases += [(1, 10, 0.5), (0, 1, 0.1)]
    feeds = [dict(zip("sld", (np.array(v, dtype) for v in case), strict=True)) for case in cases]
    exe = check_against_ort(model, feeds)
    assert exe.capacities == {"y_len_cap": 1000}  # grown once (64 -> 1000), kept after
    with pytest.raises(MinitvmError, match=r"^node 'r' \(Range, opset 17\): delta is 0$"):
        exe.run({"s": np.array(0, dtype), "l": np.array(4, dtype), "d": np.array(0, dtype)})


def test_a_range_to_the_longest_length_makes_a_mask_the_ops_after_it_use() -> None:
    """The padding mask of a batch of sequences: positions 0..max(lengths)-1 < each length."""
    nodes = [
        helper.make_node("ReduceMax", ["lengths"], ["longest"], keepdims=0),
        helper.make_node("Range", ["zero", "longest", "one"], ["positions"], name="range"),
        helper.make_node("Unsqueeze", ["lengths", "axis1"], ["column"]),
        helper.make_node("Less", ["positions", "column"], ["mask"]),
        helper.make_node("Cast", ["mask"], ["y"], to=F),
    ]
    model = make_model(nodes, {"lengths": (I64, ["batch"])}, ["y"])
    model.graph.initializer.extend([
        onnx.numpy_helper.from_array(np.array(0, np.int64), "zero"),
        onnx.numpy_helper.from_array(np.array(1, np.int64), "one"),
        onnx.numpy_helper.from_array(np.array([1], np.int64), "axis1"),
    ])  # fmt: skip
    lengths = [[3, 1, 4], [7], [0, 0], [200, 5, 17, 90], [2, 9]]
    check_against_ort(model, [{"lengths": np.array(v, np.int64)} for v in lengths])


def test_tile_by_run_time_repeats() -> None:
    node = helper.make_node("Tile", ["x", "r"], ["y"], name="t")
    model = make_model([node], {"x": (F, ["n", 3]), "r": (I64, [2])}, ["y"])
    x = RNG.random((4, 3), np.float32)
    repeats = [(1, 1), (3, 2), (0, 5), (40, 50), (2, 1)]
    feeds = [{"x": x[: 1 + k % 4], "r": np.array(r, np.int64)} for k, r in enumerate(repeats)]
    check_against_ort(model, feeds)
    exe = minitvm.compile(model)
    with pytest.raises(MinitvmError, match=r"node 't' \(Tile, opset 17\): repeats must not be negative"):
        exe.run({"x": x, "r": np.array([2, -1], np.int64)})


def test_expand_to_a_run_time_shape() -> None:
    node = helper.make_node("Expand", ["x", "s"], ["y"], name="e")
    model = make_model([node], {"x": (F, [3, 1]), "s": (I64, [3])}, ["y"])
    x = RNG.random((3, 1), np.float32)
    shapes = [(2, 1, 6), (1, 3, 1), (4, 3, 100), (1, 1, 0), (1, 1, 1)]
    exe = check_against_ort(model, [{"x": x, "s": np.array(s, np.int64)} for s in shapes])
    with pytest.raises(MinitvmError, match=r"node 'e' \(Expand, opset 17\): the shape asked for does not broadcast with the input's \[3, 1\]"):
        exe.run({"x": x, "s": np.array([1, 2, 2], np.int64)})


@pytest.mark.parametrize("allowzero", [0, 1])
def test_reshape_to_a_run_time_shape(allowzero: int) -> None:
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="rs", allowzero=allowzero)
    model = make_model([node], {"x": (F, [2, 3, 4]), "s": (I64, [3])}, ["y"], opset=18)
    x = RNG.random((2, 3, 4), np.float32)
    shapes = [(4, 3, 2), (-1, 2, 2), (1, 24, 1), (2, -1, 1)] + ([(0, 0, -1), (0, 12, 1)] if not allowzero else [])
    exe = check_against_ort(model, [{"x": x, "s": np.array(s, np.int64)} for s in shapes])
    for wrong in [(5, 5, 1), (-1, -1, 24), (-2, -3, -4), (0, 7, -1)]:
        with pytest.raises(MinitvmError, match=r"node 'rs' \(Reshape, opset 18\): the shape asked for .* does not hold the input's 24 elements \(\[2, 3, 4\]\)"):
            exe.run({"x": x, "s": np.array(wrong, np.int64)})


def test_reshape_of_a_symbolic_input_keeps_its_capacities_at_one_runs_shape() -> None:
    """The dims of a Reshape's result are one group: a run that needs more gives them all
    its own sizes, so that (300, 1) then (1, 300) plan 300 elements, not 300 x 300."""
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")
    model = make_model([node], {"x": (F, ["b", 6]), "s": (I64, [2])}, ["y"])
    feeds = [
        {"x": RNG.random((b, 6), np.float32), "s": np.array(s, np.int64)}
        for b, s in [(2, (3, -1)), (50, (300, 1)), (5, (-1, 2)), (50, (1, 300))]
    ]
    exe = check_against_ort(model, feeds)
    assert exe.groups == {"y_len0": "y_dims", "y_len1": "y_dims"}
    assert exe.capacities == {"y_len0_cap": 1, "y_len1_cap": 300}
    exe.run(feeds[2])  # (15 x 2: more than 1 row, so the group takes 15 x 2)
    assert exe.capacities == {"y_len0_cap": 15, "y_len1_cap": 2}


def test_a_high_rank_reshape_to_run_time_shapes_plans_one_shapes_elements() -> None:
    """A 5-D Reshape to shapes fed in turn: each dim's capacity raised alone, the result was
    planned for 64^5 elements at the first run and for the product of every dim's largest
    (720^5) after these; the group keeps it at one run's 720. Each run matches ONNX Runtime
    and the executable's own outputs after it."""
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")
    model = make_model([node], {"x": (F, [720]), "s": (I64, [5])}, ["y"])
    x = RNG.random(720, np.float32)
    shapes = [(720, 1, 1, 1, 1), (1, 1, 1, 1, 720), (2, 3, 4, 5, 6), (6, 5, 4, 3, 2), (1, 720, 1, 1, 1), (2, 3, 4, 5, 6)]
    exe = minitvm.compile(model, num_threads=1)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in shapes:
        feed = {"x": x, "s": np.array(shape, np.int64)}
        (got,), (want,) = exe.run(feed), session.run(None, feed)
        np.testing.assert_array_equal(got, want)
        assert got.shape == shape
        assert np.prod(list(exe.capacities.values())) <= 720, exe.capacities


def test_the_backend_compiles_a_model_with_run_time_size_operands_once() -> None:
    node = helper.make_node("Reshape", ["x", "s"], ["y"])
    model = make_model([node], {"x": (F, [2, 3, 4]), "s": (I64, [2])}, ["y"])
    rep = MinitvmBackend.prepare(model)
    x = RNG.random((2, 3, 4), np.float32)
    for shape in [(4, 6), (-1, 2), (24, 1), (3, 8)]:
        (y,) = rep.run([x, np.array(shape, np.int64)])
        np.testing.assert_array_equal(y, x.reshape(shape))
    assert rep.compile_count == 1 and rep.constant_inputs == ()


def test_the_backend_freezes_a_size_operand_the_ops_after_it_need_known() -> None:
    """A Conv needs its input's channels known: a Reshape to a run-time shape before it
    leaves them to run time, so the backend compiles with the shape frozen instead."""
    nodes = [helper.make_node("Reshape", ["x", "s"], ["r"]), helper.make_node("Conv", ["r", "w"], ["y"])]
    model = make_model(nodes, {"x": (F, [1, 16, 4]), "s": (I64, [4])}, ["y"])
    w = RNG.random((2, 4, 1, 1), np.float32)
    model.graph.initializer.append(onnx.numpy_helper.from_array(w, "w"))
    rep = MinitvmBackend.prepare(model)
    x = RNG.random((1, 16, 4), np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in [(1, 4, 4, 4), (1, 4, 2, 8)]:
        feed = {"x": x, "s": np.array(shape, np.int64)}
        np.testing.assert_allclose(rep.run(feed)[0], session.run(None, feed)[0], rtol=1e-5)
    assert rep.constant_inputs == ("s",) and rep.compile_count == 2
