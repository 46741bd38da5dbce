"""bfloat16 end to end: storage as 16 bits, arithmetic in f32 (graph-widen-bf16), the
conversions as bit operations (lowering/loop_to_llvm/scalar.py).

ONNX Runtime's Python API cannot take bf16 arrays, so the oracle is numpy: the same ops on
the f32 values, each result rounded to bf16 (ml_dtypes, round to nearest even) as minitvm
and ONNX Runtime round each op's result.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import minitvm

BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(16)


def model(nodes, inputs: dict[str, np.ndarray], outputs: list[str], consts=None, opset=22):
    infos = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for n, a in inputs.items()
    ]
    graph = helper.make_graph(
        nodes, "bf16", infos, [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in (consts or {}).items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def bf16(shape) -> np.ndarray:
    return (RNG.standard_normal(shape) * 3).astype(BF16)


def rounded(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32).astype(BF16)


@pytest.mark.parametrize("opt_level", [0, 1, 3])
def test_elementwise_chain_rounds_each_op(opt_level: int) -> None:
    a, b = bf16((3, 37)), bf16((37,))
    nodes = [helper.make_node("Mul", ["a", "b"], ["m"]), helper.make_node("Tanh", ["m"], ["t"]),
             helper.make_node("Add", ["t", "a"], ["y"])]  # fmt: skip
    (got,) = minitvm.compile(model(nodes, {"a": a, "b": b}, ["y"]), opt_level=opt_level).run(
        {"a": a, "b": b}
    )
    f = np.float32
    m = rounded(a.astype(f) * b.astype(f))
    t = rounded(np.tanh(m.astype(f)))
    want = rounded(t.astype(f) + a.astype(f))
    assert got.dtype == BF16
    np.testing.assert_allclose(got.astype(f), want.astype(f), rtol=1e-2, atol=1e-2)


def test_casts_round_to_nearest_even_and_keep_nan_inf() -> None:
    x = np.array([1.0, 1.00390625, 1.01171875, -2.5e-3, 3.0e38, np.inf, -np.inf, np.nan,
                  65504.0, 1e-40], np.float32)  # fmt: skip
    x = np.concatenate([x, RNG.standard_normal(53).astype(np.float32)])  # a vector body too
    nodes = [helper.make_node("Cast", ["x"], ["h"], to=TensorProto.BFLOAT16),
             helper.make_node("Cast", ["h"], ["y"], to=TensorProto.FLOAT)]  # fmt: skip
    h, y = minitvm.compile(model(nodes, {"x": x}, ["h", "y"])).run({"x": x})
    want = x.astype(BF16)
    np.testing.assert_array_equal(
        h.view(np.uint16)[~np.isnan(x)], want.view(np.uint16)[~np.isnan(x)]
    )
    assert np.isnan(h.astype(np.float32)[np.isnan(x)]).all()
    np.testing.assert_array_equal(y, want.astype(np.float32))


@pytest.mark.parametrize("to", [TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.INT32,
                                TensorProto.UINT8, TensorProto.BOOL])  # fmt: skip
def test_casts_to_and_from_other_types(to: int) -> None:
    x = np.array([0.0, 1.5, -2.0, 7.0, 100.0, 0.25], BF16)
    nodes = [helper.make_node("Cast", ["x"], ["c"], to=to),
             helper.make_node("Cast", ["c"], ["y"], to=TensorProto.BFLOAT16)]  # fmt: skip
    if to == TensorProto.UINT8:
        x = np.abs(x)
    c, y = minitvm.compile(model(nodes, {"x": x}, ["c", "y"])).run({"x": x})
    target = helper.tensor_dtype_to_np_dtype(to)
    want = x.astype(np.float32).astype(target)
    np.testing.assert_array_equal(c, want)
    np.testing.assert_array_equal(
        y.astype(np.float32), want.astype(np.float32).astype(BF16).astype(np.float32)
    )


def test_matmul_softmax_and_reduction() -> None:
    x, w = bf16((4, 64)), bf16((64, 24))
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]),
             helper.make_node("Softmax", ["m"], ["s"], axis=-1),
             helper.make_node("ReduceSum", ["s", "axes"], ["y"], keepdims=0)]  # fmt: skip
    exe = minitvm.compile(model(nodes, {"x": x}, ["m", "y"], {"w": w, "axes": np.array([1])}))
    m, y = exe.run({"x": x})
    f = np.float32
    want_m = rounded(x.astype(f) @ w.astype(f))
    np.testing.assert_allclose(m.astype(f), want_m.astype(f), rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(y.astype(f), np.ones(4), rtol=2e-2)


def test_data_movement_keeps_bits() -> None:
    x = bf16((2, 3, 4))
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[2, 0, 1]),
             helper.make_node("Reshape", ["t", "s"], ["r"]),
             helper.make_node("Concat", ["r", "r"], ["y"], axis=0)]  # fmt: skip
    exe = minitvm.compile(model(nodes, {"x": x}, ["y"], {"s": np.array([4, 6])}))
    (y,) = exe.run({"x": x})
    want = np.concatenate([x.transpose(2, 0, 1).reshape(4, 6)] * 2)
    np.testing.assert_array_equal(y.view(np.uint16), want.view(np.uint16))
