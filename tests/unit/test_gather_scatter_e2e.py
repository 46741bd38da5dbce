"""Element gathers, scatters, running sums and sequence reversal end to end: `minitvm.compile`
at opt level 3 against ONNX Runtime.

GatherElements, GatherND, ScatterElements (and Scatter, its name in opsets 9-10), ScatterND,
CumSum, CumProd and ReverseSequence are each compiled at every opset where the op changed (and
28, the frontend's newest), with float32, int64 and int32 data (and the other element types
ONNX Runtime takes), int32 and int64 indices where ONNX allows both, negative and duplicate
indices, every scatter reduction from the opset that brought it, and sizes large enough for
the default schedules to tile and vectorize. Indices known at import time take another path
(the frontend resolves the scatter into a gather and a where); the op choices and the
frontend's errors are checked too.
"""

from __future__ import annotations

import collections

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

import minitvm
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx

RNG = np.random.default_rng(11)
DTYPES = [np.float32, np.int64, np.int32]
INDEX_DTYPES = [np.int64, np.int32]


def model(
    op_type: str,
    operands: list[tuple[str, np.ndarray, bool]],
    opset: int,
    **attrs: object,
) -> onnx.ModelProto:
    """One `op_type` node over `operands`: (name, value, known at import time) in input order;
    the known ones are initializers, the others graph inputs."""
    feeds = [(n, a) for n, a, const in operands if not const]
    inits = [numpy_helper.from_array(np.asarray(a), n) for n, a, const in operands if const]
    node = helper.make_node(op_type, [n for n, _, _ in operands], ["y"], **attrs)
    graph = helper.make_graph(
        [node], op_type,
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
         for n, a in feeds],
        [helper.make_empty_tensor_value_info("y")], inits,
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def compare(proto: onnx.ModelProto, operands: list[tuple[str, np.ndarray, bool]]) -> None:
    feeds = {n: a for n, a, const in operands if not const}
    got = minitvm.compile(proto, opt_level=3, num_threads=1).run(feeds)[0]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(proto.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])  # fmt: skip
    want = session.run(None, feeds)[0]
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, want)


def check(op_type: str, operands: list[tuple[str, np.ndarray, bool]], opset: int, **attrs: object):
    compare(model(op_type, operands, opset, **attrs), operands)


def values(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    if dtype == np.bool_:
        return RNG.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-20, 20, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def indices(shape: tuple[int, ...], size: int, dtype: type = np.int64) -> np.ndarray:
    """Indices into a dim of `size`, negative ones among them."""
    return RNG.integers(-size, size, shape).astype(dtype)


def graph_ops(proto: onnx.ModelProto) -> dict[str, int]:
    counts = collections.Counter(
        op.name.removeprefix("graph.") for op in from_onnx(proto).walk()
        if op.name.startswith("graph.") and op.name != "graph.constant"
    )  # fmt: skip
    return dict(counts)


# --------------------------------------------------------------------------------------------
# Gathers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset", [11, 13, 28])
def test_gather_elements(opset: int, dtype: type, index_dtype: type) -> None:
    data = values((4, 5, 3), dtype)
    check("GatherElements", [("x", data, False), ("i", indices((4, 7, 2), 5, index_dtype), False)],
          opset, axis=-2)  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.bool_, np.int8, np.uint8])
def test_gather_elements_other_types(dtype: type) -> None:
    check("GatherElements", [("x", values((3, 4), dtype), False), ("i", indices((3, 2), 4), False)],
          13, axis=1)  # fmt: skip


def test_gather_elements_large() -> None:
    check("GatherElements", [("x", values((16, 96), np.float32), False),
                             ("i", indices((16, 80), 96), False)], 13, axis=1)  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset", [11, 12, 13, 28])
def test_gather_nd(opset: int, dtype: type) -> None:
    data = values((3, 4, 5), dtype)
    tuples = np.stack([indices((6,), 3), indices((6,), 4)], axis=-1).reshape(2, 3, 2)
    check("GatherND", [("x", data, False), ("i", tuples, False)], opset)


@pytest.mark.parametrize("opset", [12, 13, 28])
def test_gather_nd_batch_dims(opset: int) -> None:
    data = values((2, 3, 4, 5), np.float32)
    check("GatherND", [("x", data, False), ("i", indices((2, 3, 6, 1), 4), False)], opset,
          batch_dims=2)  # fmt: skip


def test_gather_nd_large() -> None:
    data = values((8, 64, 32), np.float32)
    tuples = np.stack([indices((40,), 8), indices((40,), 64)], axis=-1)
    check("GatherND", [("x", data, False), ("i", tuples, False)], 13)


# --------------------------------------------------------------------------------------------
# Scatters
# --------------------------------------------------------------------------------------------

#: The opsets where ScatterElements / ScatterND changed, with the reductions each allows.
SCATTER_OPSETS = {11: ["none"], 13: ["none"], 16: ["none", "add", "mul"],
                  18: ["none", "add", "mul", "max", "min"], 28: ["none", "add", "max"]}  # fmt: skip
SCATTER_CASES = [(opset, r) for opset, rs in SCATTER_OPSETS.items() for r in rs]


def _reduction(reduction: str) -> dict[str, str]:
    return {} if reduction == "none" else {"reduction": reduction}


def _small(dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    """Values whose products stay exact (mul reductions of integers)."""
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-3, 4, shape).astype(dtype)
    return values(shape, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset, reduction", SCATTER_CASES)
def test_scatter_elements(opset: int, reduction: str, dtype: type) -> None:
    """Row 0 writes column 1 twice (duplicates: the last wins, or both are combined)."""
    index = np.array([[1, -4, 1], [0, 2, -1]], np.int64)
    operands = [("x", _small(dtype, (3, 4)), False), ("i", index, False),
                ("u", _small(dtype, (2, 3)), False)]  # fmt: skip
    check("ScatterElements", operands, opset, axis=1, **_reduction(reduction))


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("opset", [9, 10])
def test_scatter(opset: int, index_dtype: type) -> None:
    """Scatter, ScatterElements' name before opset 11: axis 0 here."""
    operands = [("x", values((4, 3), np.float32), False),
                ("i", indices((2, 3), 4, index_dtype), False),
                ("u", values((2, 3), np.float32), False)]  # fmt: skip
    check("Scatter", operands, opset)


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mul", "min"])
def test_scatter_elements_int32_indices(index_dtype: type, reduction: str) -> None:
    operands = [("x", values((5, 4, 3), np.float32), False),
                ("i", indices((3, 4, 2), 5, index_dtype), False),
                ("u", values((3, 4, 2), np.float32), False)]  # fmt: skip
    check("ScatterElements", operands, 18, axis=0, **_reduction(reduction))


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.bool_, np.int8, np.uint8])
def test_scatter_elements_other_types(dtype: type) -> None:
    operands = [("x", values((3, 4), dtype), False), ("i", indices((3, 2), 4), False),
                ("u", values((3, 2), dtype), False)]  # fmt: skip
    check("ScatterElements", operands, 18, axis=1)


@pytest.mark.parametrize("reduction", ["none", "add"])
def test_scatter_elements_large(reduction: str) -> None:
    operands = [("x", values((32, 96), np.float32), False), ("i", indices((24, 20), 96), False),
                ("u", values((24, 20), np.float32), False)]  # fmt: skip
    check("ScatterElements", operands, 18, axis=1, **_reduction(reduction))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset, reduction", SCATTER_CASES)
def test_scatter_nd(opset: int, reduction: str, dtype: type) -> None:
    """Slices at (row, column) tuples, (1, 2) twice."""
    tuples = np.array([[1, 2], [0, -1], [-2, 2], [2, 0]], np.int64)
    operands = [("x", _small(dtype, (3, 4, 5)), False), ("i", tuples, False),
                ("u", _small(dtype, (4, 5)), False)]  # fmt: skip
    check("ScatterND", operands, opset, **_reduction(reduction))


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.bool_, np.int8, np.uint8])
def test_scatter_nd_other_types(dtype: type) -> None:
    operands = [("x", values((4, 3), dtype), False), ("i", np.array([[3], [-4]]), False),
                ("u", values((2, 3), dtype), False)]  # fmt: skip
    check("ScatterND", operands, 18)


@pytest.mark.parametrize("reduction", ["none", "max"])
def test_scatter_nd_large(reduction: str) -> None:
    """A KV-cache style update: 16 rows of 64 x 32 written."""
    rows = RNG.permutation(64)[:16].reshape(16, 1).astype(np.int64)
    operands = [("x", values((64, 32), np.float32), False), ("i", rows, False),
                ("u", values((16, 32), np.float32), False)]  # fmt: skip
    check("ScatterND", operands, 18, **_reduction(reduction))


# --------------------------------------------------------------------------------------------
# Scatters with indices known at import time: a gather and a where
# --------------------------------------------------------------------------------------------


def test_constant_indices_become_a_gather_and_a_where() -> None:
    index = np.array([[1, -4, 1], [0, 2, -1]], np.int64)  # (0, 1) written twice: the last wins
    operands = [("x", values((3, 4), np.float32), False), ("i", index, True),
                ("u", values((2, 3), np.float32), False)]  # fmt: skip
    proto = model("ScatterElements", operands, 18, axis=1)
    assert graph_ops(proto) == {"reshape": 1, "gather": 1, "where": 1}
    compare(proto, operands)


@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
def test_constant_indices_with_a_reduction_combine_with_the_data(reduction: str) -> None:
    tuples = np.array([[2, 0], [0, -1], [1, 3]], np.int64)
    operands = [("x", values((3, 4, 5), np.int32), False), ("i", tuples, True),
                ("u", values((3, 5), np.int32), False)]  # fmt: skip
    proto = model("ScatterND", operands, 18, reduction=reduction)
    combine = {"add": "add", "mul": "mul", "max": "max", "min": "min"}[reduction]
    assert graph_ops(proto) == {"reshape": 1, "gather": 1, combine: 1, "where": 1}
    compare(proto, operands)


def test_constant_duplicate_indices_with_a_reduction_stay_a_scatter() -> None:
    tuples = np.array([[1], [0], [1]], np.int64)
    operands = [("x", values((3, 4), np.float32), False), ("i", tuples, True),
                ("u", values((3, 4), np.float32), False)]  # fmt: skip
    proto = model("ScatterND", operands, 18, reduction="add")
    assert graph_ops(proto) == {"scatter_nd": 1}
    compare(proto, operands)


def test_constant_indices_and_updates_need_no_gather() -> None:
    """Every row overwritten, from constant updates: the result is a constant, the data unread
    (the where and the gather both fold)."""
    operands = [("x", values((2, 3), np.float32), False), ("i", np.array([[1], [0]]), True),
                ("u", values((2, 3), np.float32), True)]  # fmt: skip
    proto = model("ScatterND", operands, 18)
    assert graph_ops(proto) == {}
    compare(proto, operands)
    proto_partial = model("ScatterND", [operands[0], ("i", np.array([[1]]), True),
                                        ("u", values((1, 3), np.float32), True)], 18)  # fmt: skip
    assert graph_ops(proto_partial) == {"where": 1}
    compare(proto_partial, [operands[0]])


# --------------------------------------------------------------------------------------------
# Running sums and products
# --------------------------------------------------------------------------------------------

FLAGS = [(0, 0), (1, 0), (0, 1), (1, 1)]


@pytest.mark.parametrize("exclusive, reverse", FLAGS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset", [11, 14, 28])
def test_cum_sum(opset: int, dtype: type, exclusive: int, reverse: int) -> None:
    # The axis is an int32 or int64 scalar, negative or not.
    axis = np.array(-1 if dtype == np.int32 else 1, np.int32 if dtype == np.int64 else np.int64)
    operands = [("x", values((2, 6, 3), dtype), False), ("axis", axis, True)]
    check("CumSum", operands, opset, exclusive=exclusive, reverse=reverse)


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_cum_sum_other_types(dtype: type) -> None:
    operands = [("x", values((3, 5), dtype), False), ("axis", np.array(0), True)]
    check("CumSum", operands, 14)


@pytest.mark.parametrize("exclusive, reverse", FLAGS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset", [26, 28])
def test_cum_prod(opset: int, dtype: type, exclusive: int, reverse: int) -> None:
    x = (RNG.uniform(0.5, 1.5, (3, 7)) * RNG.choice([-1, 1], (3, 7))).astype(dtype) \
        if dtype == np.float32 else RNG.integers(-3, 4, (3, 7)).astype(dtype)  # fmt: skip
    check("CumProd", [("x", x, False), ("axis", np.array(1), True)], opset,
          exclusive=exclusive, reverse=reverse)  # fmt: skip


@pytest.mark.parametrize("axis", [1, 2])
def test_cum_sum_large(axis: int) -> None:
    operands = [("x", values((3, 100, 40), np.float32), False), ("axis", np.array(axis), True)]
    check("CumSum", operands, 14)


# --------------------------------------------------------------------------------------------
# ReverseSequence
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [*DTYPES, np.bool_, np.float16])
@pytest.mark.parametrize("batch_axis", [0, 1])
@pytest.mark.parametrize("opset", [10, 28])
def test_reverse_sequence(opset: int, batch_axis: int, dtype: type) -> None:
    shape = (4, 6, 2) if batch_axis == 0 else (6, 4, 2)
    lens = np.array([1, 6, 0, 3], np.int64)
    operands = [("x", values(shape, dtype), False), ("lens", lens, False)]
    check("ReverseSequence", operands, opset, batch_axis=batch_axis, time_axis=1 - batch_axis)


def test_reverse_sequence_constant_lengths() -> None:
    operands = [("x", values((5, 3), np.float32), False), ("lens", np.array([5, 2, 1]), True)]
    check("ReverseSequence", operands, 10)  # batch_axis 1, time_axis 0: ONNX's defaults


# --------------------------------------------------------------------------------------------
# What the frontend refuses
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op_type, operands, opset, attrs, message", [
    ("Scatter", [("x", np.zeros((2, 2), np.float32), False), ("i", np.zeros((1, 2), np.int64), False),
                 ("u", np.zeros((1, 2), np.float32), False)], 11, {},
     "Scatter was removed in opset 11: use ScatterElements"),
    ("ScatterElements", [("x", np.zeros((2, 2), np.float32), False),
                         ("i", np.zeros((1, 2), np.int64), False),
                         ("u", np.zeros((1, 2), np.float32), False)], 16, {"reduction": "max"},
     "unsupported reduction 'max'; supported: 'none', 'add', 'mul'"),
    ("ScatterND", [("x", np.zeros((2, 2), np.float32), False), ("i", np.array([[2]]), True),
                   ("u", np.zeros((1, 2), np.float32), False)], 18, {},
     r"graph.scatter_nd: index 2 at position \[0, 0\] is outside \[-2, 2\)"),
    ("ScatterND", [("x", np.zeros((2, 2), np.float32), False), ("i", np.array([[1]]), True),
                   ("u", np.zeros((1, 3), np.float32), False)], 18, {},
     "graph.scatter_nd: updates must have shape 1x2"),
    ("CumSum", [("x", np.zeros((2, 2), np.float32), False), ("axis", np.array(1), False)], 14, {},
     "input 1 \\('axis', value 'axis'\\) must be a constant known at import time"),
    ("ReverseSequence", [("x", np.zeros((2, 3), np.float32), False),
                         ("lens", np.zeros(2, np.int64), False)], 10, {"batch_axis": 0, "time_axis": 0},
     "batch_axis 0 and time_axis 0 must be 0 and 1, one each"),
])  # fmt: skip
def test_frontend_errors(op_type, operands, opset, attrs, message) -> None:
    with pytest.raises(FrontendError, match=message):
        from_onnx(model(op_type, operands, opset, **attrs))
