"""ONNX's reductions end to end: `minitvm.compile` at opt level 3 against ONNX Runtime.

Every reduction the frontend takes (ReduceSum .. ReduceLogSumExp, ArgMax, ArgMin) is compiled
alone and with an elementwise epilogue (which graph-fuse folds into the reduction's kernel),
along the last axis (the reduction template's vector accumulator) and along an inner axis
(accumulated in memory), for float32 and the other element types ONNX's node tests use, and
on inputs with ties, NaN and infinities where the ops' semantics decide what those give.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.compiler import lower_to_te
from minitvm.dialects import te
from minitvm.frontend import from_onnx

REDUCE_OPS = [
    "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
    "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp",
]  # fmt: skip
ARG_OPS = ["ArgMax", "ArgMin"]


def model(op_type: str, shape: tuple[int, ...], axis: int, *, elem: int = TensorProto.FLOAT,
          epilogue: bool = False, **attrs: object) -> onnx.ModelProto:  # fmt: skip
    """One reduction along `axis` (an input from opset 18 on, ArgMax's attribute), then a
    Relu if `epilogue`."""
    inits = []
    if op_type in ARG_OPS:
        nodes = [helper.make_node(op_type, ["x"], ["r"], axis=axis, **attrs)]
        out_elem = TensorProto.INT64
    else:
        inits.append(numpy_helper.from_array(np.array([axis], np.int64), "axes"))
        nodes = [helper.make_node(op_type, ["x", "axes"], ["r"], **attrs)]
        out_elem = elem
    if epilogue:
        nodes.append(helper.make_node("Relu", ["r"], ["y"]))
    else:
        nodes[-1].output[0] = "y"
    graph = helper.make_graph(
        nodes, op_type, [helper.make_tensor_value_info("x", elem, list(shape))],
        [helper.make_tensor_value_info("y", out_elem, None)], inits,
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def inputs(op_type: str, shape: tuple[int, ...], dtype: type = np.float32) -> np.ndarray:
    rng = np.random.default_rng(7)
    if np.issubdtype(dtype, np.integer) or op_type in ARG_OPS:  # ties
        return rng.integers(0, 5, shape).astype(dtype)
    if op_type == "ReduceProd":  # products of O(1) factors stay O(1)
        return (rng.uniform(0.6, 1.4, shape) * rng.choice([-1, 1], shape)).astype(dtype)
    if op_type == "ReduceLogSum":
        return rng.uniform(0.1, 2.0, shape).astype(dtype)
    return (rng.standard_normal(shape) * (20 if op_type == "ReduceLogSumExp" else 1)).astype(dtype)


def run_ort(proto: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(proto.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])  # fmt: skip
    return session.run(None, {"x": x})[0]


def compare(proto: onnx.ModelProto, x: np.ndarray) -> None:
    got = minitvm.compile(proto, opt_level=3, num_threads=1).run({"x": x})[0]
    want = run_ort(proto, x)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("keepdims", [1, 0])
@pytest.mark.parametrize("shape, axis", [((6, 64), 1), ((2, 48, 5), 1), ((3, 7, 33), 2)],
                         ids=["last-axis-vectors", "inner-axis", "last-axis-odd"])  # fmt: skip
@pytest.mark.parametrize("op_type", REDUCE_OPS + ARG_OPS)
def test_matches_onnxruntime(
    op_type: str, shape: tuple[int, ...], axis: int, keepdims: int
) -> None:
    proto = model(op_type, shape, axis, keepdims=keepdims)
    compare(proto, inputs(op_type, shape))


@pytest.mark.parametrize("op_type", REDUCE_OPS)
def test_an_epilogue_fuses_into_the_reduction(op_type: str) -> None:
    proto = model(op_type, (4, 32), 1, epilogue=True)
    module = from_onnx(proto)
    lower_to_te(module, 3, num_threads=1)
    kernels = [f.sym_name.data for f in module.ops if te.KERNEL_ATTR in f.attributes]
    assert len(kernels) == 1 and kernels[0].startswith("fused_reduce"), kernels
    compare(proto, inputs(op_type, (4, 32)))


@pytest.mark.parametrize("op_type", REDUCE_OPS + ARG_OPS)
def test_last_axis_reductions_carry_a_vector_accumulator(op_type: str) -> None:
    """The reduction template's default: a reduction loop of whole vectors is vectorized (for
    an ArgMax index pass too, which loop-vectorize leaves scalar: its index_cast)."""
    module = from_onnx(model(op_type, (6, 64), 1))
    lower_to_te(module, 3, num_threads=1)
    reductions = [c for c in module.walk() if isinstance(c, te.ComputeOp) and c.reduce_kind]
    assert reductions and all(te.vectorize("r0") in c.schedule for c in reductions)


@pytest.mark.parametrize("op_type, dtype", [
    ("ReduceMin", np.int8), ("ReduceMin", np.uint8), ("ReduceMax", np.uint8),
    ("ReduceMin", np.int32), ("ReduceProd", np.int64), ("ReduceProd", np.int32),
    ("ReduceL1", np.int64), ("ReduceSumSquare", np.int32), ("ReduceMin", np.float64),
    ("ReduceL2", np.float64), ("ReduceLogSumExp", np.float64), ("ArgMax", np.int32),
    ("ArgMin", np.int64), ("ArgMax", np.float64), ("ArgMin", np.uint8),
])  # fmt: skip
def test_other_element_types(op_type: str, dtype: type) -> None:
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    for shape, axis in [((5, 48), 1), ((3, 20, 4), 1)]:
        compare(model(op_type, shape, axis, elem=elem, keepdims=0), inputs(op_type, shape, dtype))


@pytest.mark.parametrize("op_type", ["ReduceMin", "ReduceMax"])
def test_boolean_min_and_max(op_type: str) -> None:
    x = np.random.default_rng(3).random((4, 40)) > 0.1
    proto = model(op_type, x.shape, 1, elem=TensorProto.BOOL)
    proto.opset_import[0].version = 20  # booleans from opset 20 on
    compare(proto, x)


@pytest.mark.parametrize("select_last_index", [0, 1])
@pytest.mark.parametrize("op_type", ARG_OPS)
def test_arg_extreme_ties_and_nans(op_type: str, select_last_index: int) -> None:
    """The first or last of tied extremes; a NaN at index 0 gives 0, other NaNs are never
    chosen, as ONNX Runtime's scan does (here through the vectorized max pass)."""
    x = np.random.default_rng(5).integers(0, 3, (8, 48)).astype(np.float32)
    x[1, 0] = x[2, 5] = x[3, 47] = np.nan
    x[4] = np.nan
    x[5, :3] = [-np.inf, np.nan, -np.inf]
    x[6] = np.inf
    for shape_x, axis in [(x, 1), (x.T.copy(), 0)]:
        proto = model(op_type, shape_x.shape, axis, keepdims=0, select_last_index=select_last_index)
        compare(proto, shape_x)


def test_reduce_log_sum_exp_is_stable_on_large_and_infinite_inputs() -> None:
    x = np.random.default_rng(2).standard_normal((6, 32)).astype(np.float32) * 30
    x[0] += 1000.0  # exp overflows unless shifted
    x[1] = -np.inf
    x[2, 4] = np.inf
    x[3, 9] = np.nan
    compare(model("ReduceLogSumExp", x.shape, 1), x)
