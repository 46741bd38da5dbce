"""`Executable.run` keeps what it works out from the inputs' shapes alone, a plan per shape
(runtime/executable.py: `_RunPlan`): a shape seen before is neither checked nor planned
again, a new one is, errors read as they did, outputs come back at this run's shapes (sizes
the code finds included) and are the caller's, and the plans follow the capacities as they
grow. Small models whose sizes are known only at run time (issue 19).
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from onnx import TensorProto, helper
from test_data_dependent import make_model

import minitvm
from minitvm.errors import MinitvmError
from minitvm.runtime import executable

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def add_relu(inputs: dict[str, list[int | str]]) -> minitvm.Executable:
    """relu(sum of `inputs`), each of the shape given (symbolic dims by name)."""
    names = list(inputs)
    nodes = [helper.make_node("Sum", names, ["s"]), helper.make_node("Relu", ["s"], ["y"])]
    return minitvm.compile(make_model(nodes, {n: (F, s) for n, s in inputs.items()}, ["y"]), num_threads=1)


@pytest.fixture(scope="module")
def batch_by_4() -> minitvm.Executable:
    return add_relu({"x": ["batch", 4]})


@pytest.fixture(scope="module")
def nonzero() -> minitvm.Executable:
    model = make_model([helper.make_node("NonZero", ["x"], ["y"])], {"x": (F, ["n"])}, ["y"])
    return minitvm.compile(model, num_threads=1)


def rows(batch: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((batch, 4)).astype(np.float32)


def test_a_shape_seen_before_reuses_its_plan_and_a_new_shape_is_checked_and_planned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    exe = add_relu({"x": ["batch", 4]})
    binds = []
    real_bind = executable.bind_symbols
    monkeypatch.setattr(executable, "bind_symbols", lambda *a, **k: binds.append(1) or real_bind(*a, **k))
    for batch, seed in [(2, 0), (2, 1), (3, 2), (2, 3), (3, 4)]:
        x = rows(batch, seed)
        (y,) = exe.run({"x": x})
        np.testing.assert_array_equal(y, np.maximum(x, 0))
    assert len(binds) == 2 and set(exe._runs) == {((2, 4),), ((3, 4),)}
    plan = exe._runs[((2, 4),)]
    assert plan.values == (2,) and plan.bound == {"batch": 2}
    exe.run({"x": rows(2)})
    assert exe._runs[((2, 4),)] is plan and len(binds) == 2


def test_an_array_the_plan_cannot_take_as_it_is_is_checked_and_converted_at_a_shape_seen_before(
    batch_by_4: minitvm.Executable,
) -> None:
    """The plan skips the checks of the shape only: an array in the other byte order, a
    strided, Fortran-ordered or read-only one, still goes through `checked_inputs`."""
    x = rows(3, 5)
    batch_by_4.run({"x": x})
    read_only = x.copy()
    read_only.flags.writeable = False
    feeds = [x.astype(">f4"), np.asfortranarray(x), np.repeat(x, 2, axis=1)[:, ::2], read_only]
    for feed in feeds:
        (y,) = batch_by_4.run({"x": feed})
        np.testing.assert_array_equal(y, np.maximum(x, 0))


@pytest.mark.parametrize(
    ("feeds", "message"),
    [
        ({"x": np.ones((2, 4), np.float64)}, r"^input 'x' is float64\[2, 4\] but the model expects x: float32\[batch, 4\]$"),
        ({"x": np.ones((2, 4, 1), np.float32)}, r"^input 'x' is float32\[2, 4, 1\] but the model expects x: float32\[batch, 4\]$"),
        ({"x": np.ones((2, 5), np.float32)}, r"^input 'x' is float32\[2, 5\] but the model expects x: float32\[batch, 4\]$"),
        ({"x": np.ones((0, 4), np.float32)}, r"^input 'x' dimension 0 \('batch'\) is 0, outside the 1\.\.2147483647"),
        ({"y": np.ones((2, 4), np.float32)}, r"^missing input\(s\) x and unknown input\(s\) y; the model expects"),
        ({}, r"^missing input\(s\) x; the model expects x: float32\[batch, 4\]$"),
    ],
)  # fmt: skip
def test_errors_read_the_same_before_and_after_a_shape_is_planned(
    batch_by_4: minitvm.Executable, feeds: dict[str, np.ndarray], message: str
) -> None:
    fresh = add_relu({"x": ["batch", 4]})
    with pytest.raises(MinitvmError, match=message) as first:
        fresh.run(feeds)
    batch_by_4.run({"x": rows(2)})
    for _ in range(2):  # (a shape that failed is never kept)
        with pytest.raises(MinitvmError) as again:
            batch_by_4.run(feeds)
        assert str(again.value) == str(first.value)


def test_a_symbol_two_inputs_share_and_a_bound_are_checked_at_each_new_shape() -> None:
    exe = add_relu({"x": ["batch", 4], "z": ["batch", 4]})
    exe.run({"x": rows(2), "z": rows(2, 1)})
    told = r"^input 'z' dimension 0 is 3, but the model says batch = 2 there: batch = 2 \(from input 'x' dimension 0\)$"
    for _ in range(2):
        with pytest.raises(MinitvmError, match=told):
            exe.run({"x": rows(2), "z": rows(3)})
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], {"x": (F, ["batch", 4])}, ["y"]
    )
    bounded = minitvm.compile(model, input_shapes={"x": ("1..8", None)}, num_threads=1)
    bounded.run({"x": rows(8)})
    with pytest.raises(MinitvmError, match=r"^input 'x' dimension 0 \('batch'\) is 9, outside the 1\.\.8 the model"):
        bounded.run({"x": rows(9)})


def test_sizes_given_are_checked_against_the_shapes_once_per_pair(batch_by_4: minitvm.Executable) -> None:
    (y,) = batch_by_4.run({"x": rows(2)}, sizes={"batch": 2})
    np.testing.assert_array_equal(y, np.maximum(rows(2), 0))
    assert (((2, 4),), (("batch", 2),)) in batch_by_4._runs
    for _ in range(2):
        with pytest.raises(MinitvmError, match=r"^input 'x' dimension 0 is 2, but the model says batch = 3 there: batch = 3 \(from the sizes given\)$"):
            batch_by_4.run({"x": rows(2)}, sizes={"batch": 3})
    with pytest.raises(MinitvmError, match=r"^size 'seq' is none of the model's \(batch\)$"):
        batch_by_4.run({"x": rows(2)}, sizes={"seq": 2})


def test_num_threads_is_checked_at_a_shape_seen_before(batch_by_4: minitvm.Executable) -> None:
    batch_by_4.run({"x": rows(2)})
    batch_by_4.num_threads = 0
    try:
        with pytest.raises(MinitvmError, match="num_threads must be >= 1, got 0"):
            batch_by_4.run({"x": rows(2)})
    finally:
        batch_by_4.num_threads = 1


def test_outputs_are_the_callers_whether_kept_small_or_fresh(batch_by_4: minitvm.Executable) -> None:
    """A dynamic output that is small at a shape is written into a buffer the Executable
    keeps and copied out; at a shape where it is large, into a fresh array; the same slot
    takes turns. No output shares memory with another run's or changes after it."""
    small = executable.SMALL_OUTPUT_BYTES // 16  # rows of 16 bytes
    feeds = [rows(2, 0), rows(small + 1, 1), rows(2, 2), rows(small + 1, 3), rows(small, 4)]
    results = [batch_by_4.run({"x": x})[0] for x in feeds]
    for x, y in zip(feeds, results, strict=True):
        np.testing.assert_array_equal(y, np.maximum(x, 0))
        assert y.flags.c_contiguous and y.flags.writeable
    assert not any(np.shares_memory(a, b) for n, a in enumerate(results) for b in results[n + 1 :])
    assert batch_by_4._runs[((2, 4),)].buffers[0] is not None  # kept
    assert batch_by_4._runs[((small + 1, 4),)].fresh  # allocated each run
    results[0][...] = -1
    np.testing.assert_array_equal(batch_by_4.run({"x": feeds[0]})[0], np.maximum(feeds[0], 0))


def test_a_found_size_at_a_shape_seen_before_is_this_runs(nonzero: minitvm.Executable) -> None:
    """NonZero's count is found as the code runs: a plan of the input's shape does not keep it."""
    feeds = [[0, 1, 0, 2], [1, 1, 1, 1], [0, 0, 0, 0], [3, 0, 0, 0], [0, 1, 0, 2, 5, 0]]
    results = []
    for values in feeds:
        x = np.float32(values)
        (y,) = nonzero.run({"x": x})
        np.testing.assert_array_equal(y, np.array(np.nonzero(x)))
        assert y.dtype == np.int64
        results.append(y)
    assert [r.shape for r in results] == [(1, 2), (1, 4), (1, 0), (1, 1), (1, 3)]
    assert set(nonzero._runs) == {((4,),), ((6,),)}
    assert not any(np.shares_memory(a, b) for n, a in enumerate(results) for b in results[n + 1 :])


def test_each_call_gets_the_planned_sizes_not_those_the_last_run_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The code writes the counts it finds into the sizes array it is called with: a plan's
    array is set back to the planned sizes (a count at its bound) before each call."""
    model = make_model([helper.make_node("NonZero", ["x"], ["y"])], {"x": (F, ["n"])}, ["y"])
    exe = minitvm.compile(model, num_threads=1)
    called_with = []
    entry = exe._entry

    def recording_entry(io: int, consts: int, arena: int, sizes: int) -> None:
        called_with.append(tuple((ctypes.c_int64 * len(exe.symbols)).from_address(sizes)))
        entry(io, consts, arena, sizes)

    monkeypatch.setattr(exe, "_entry", recording_entry)
    for values in ([0, 1, 0, 0], [1, 1, 1, 1]):
        exe.run({"x": np.float32(values)})
    planned = dict(zip(exe.symbols, exe._runs[((4,),)].values, strict=True))
    assert planned == {"n": 4, "y_count": 4}  # (the count at its bound, the input's size)
    assert called_with == [exe._runs[((4,),)].values] * 2


def test_a_capacity_raised_by_a_run_replans_the_shapes_planned_before() -> None:
    """Range of a length fed at run time: its output is planned for a capacity (64) that a
    longer run raises; the plan of the (scalar) inputs' shapes is then made again with it."""
    model = make_model(
        [helper.make_node("Range", ["s", "l", "d"], ["y"])], {n: (I64, []) for n in "sld"}, ["y"]
    )
    exe = minitvm.compile(model, num_threads=1)

    def run(length: int) -> np.ndarray:
        (y,) = exe.run({"s": np.array(0), "l": np.array(length), "d": np.array(1)})
        np.testing.assert_array_equal(y, np.arange(length))
        return y

    run(10)
    before = exe._runs[((), (), ())]
    run(5)  # (the code writes the count it finds over the size it was called with: 5 < 10)
    run(10)
    assert exe.capacities == {"y_len_cap": 64} and exe._runs[((), (), ())] is before
    run(1000)
    assert exe.capacities == {"y_len_cap": 1000}
    after = exe._runs[((), (), ())]
    assert after is not before and after.version == exe._version > before.version
    assert after.key == before.key and after.bound == before.bound
    run(5)
    run(1000)
    assert exe._runs[((), (), ())] is after and len(exe._runs) == 1
