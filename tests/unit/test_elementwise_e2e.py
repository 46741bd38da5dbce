"""The elementwise ops of ONNX compiled end to end (LLVM, vectorized) against ONNX Runtime.

test_graph_to_te_elementwise.py checks each rule with the te interpreter; this checks what
the interpreter cannot: the generated code, at shapes whose innermost extent is not a
multiple of the vector width (so the vector body and its scalar tail both run), for every
element type the op's ONNX node tests use.
"""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import minitvm

RNG = np.random.default_rng(5)
SHAPE = (3, 5, 37)

FLOAT = TensorProto.FLOAT
ONNX_TYPES = {
    np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.float16: TensorProto.FLOAT16,
    np.int8: TensorProto.INT8, np.int16: TensorProto.INT16, np.int32: TensorProto.INT32,
    np.int64: TensorProto.INT64, np.uint8: TensorProto.UINT8, np.uint16: TensorProto.UINT16,
    np.uint32: TensorProto.UINT32, np.uint64: TensorProto.UINT64, np.bool_: TensorProto.BOOL,
}  # fmt: skip


def values(dtype: type, shape: tuple[int, ...], lo: float = -4.0, hi: float = 4.0) -> np.ndarray:
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    if np.dtype(dtype).kind == "f":
        return RNG.uniform(lo, hi, shape).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, int(lo) * 8), min(info.max, int(hi) * 8), shape).astype(dtype)


def compare(
    op_type: str,
    inputs: list[np.ndarray],
    out_type: int | None = None,
    opset: int = 18,
    **attrs: object,
) -> None:
    names = [f"x{i}" for i in range(len(inputs))]
    infos = [
        helper.make_tensor_value_info(n, ONNX_TYPES[a.dtype.type], a.shape)
        for n, a in zip(names, inputs)
    ]
    node = helper.make_node(op_type, names, ["y"], **attrs)
    out = helper.make_tensor_value_info("y", out_type or ONNX_TYPES[inputs[0].dtype.type], None)
    graph = helper.make_graph([node], op_type, infos, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    feeds = dict(zip(names, inputs))
    (want,) = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    (got,) = minitvm.compile(model, opt_level=3).run(feeds)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f":
        tol = 2e-3 if want.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(got, want, rtol=tol, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


FLOAT_UNARY = ["Sin", "Cos", "Tan", "Atan", "Sinh", "Cosh", "Asinh", "Ceil", "Floor", "Round",
               "Sign", "Softplus", "Softsign", "Mish", "Elu", "Selu", "Celu", "ThresholdedRelu",
               "Shrink", "IsNaN", "IsInf"]  # fmt: skip


@pytest.mark.parametrize("op_type", FLOAT_UNARY)
def test_float_unary(op_type: str) -> None:
    x = values(np.float32, SHAPE)
    x.flat[:4] = (
        [2.5, -0.5, np.nan, -np.inf] if op_type in ("IsNaN", "IsInf") else [2.5, -0.5, 0, 1]
    )
    out = TensorProto.BOOL if op_type.startswith("Is") else None
    compare(op_type, [x], out)


@pytest.mark.parametrize("op_type, lo, hi", [("Asin", -1, 1), ("Acos", -1, 1), ("Atanh", -0.99, 0.99),
                                             ("Acosh", 1, 8)])  # fmt: skip
def test_bounded_unary(op_type: str, lo: float, hi: float) -> None:
    compare(op_type, [values(np.float32, SHAPE, lo, hi)])


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_float_types(dtype: type) -> None:
    for op_type in ("Floor", "Round", "Sign", "Softplus", "Elu"):
        compare(op_type, [values(dtype, SHAPE)])


INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_integer_ops(dtype: type) -> None:
    a, b = values(dtype, SHAPE), values(dtype, SHAPE[-1:])
    b[b == 0] = 3
    for op_type in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "GreaterOrEqual", "LessOrEqual"):
        compare(op_type, [a, b], TensorProto.BOOL if op_type.endswith("OrEqual") else None)
    compare("BitwiseNot", [a])
    compare("Mod", [a, b], fmod=1)
    compare("Mod", [a, b])
    if np.dtype(dtype).kind == "u":  # ONNX's BitShift is defined on unsigned types
        amount = (values(dtype, SHAPE[-1:]) % (np.dtype(dtype).itemsize * 8)).astype(dtype)
        for direction in ("LEFT", "RIGHT"):
            compare("BitShift", [a, amount], direction=direction)


@pytest.mark.parametrize("fmod", [0, 1])
def test_float_mod(fmod: int) -> None:
    a = values(np.float32, SHAPE, -20, 20)
    b = values(np.float32, SHAPE[-1:], 0.5, 4) * np.where(RNG.random(SHAPE[-1]) < 0.5, -1, 1)
    compare("Mod", [a, b.astype(np.float32)], opset=28, fmod=fmod)  # float floor-mod: opset 28


def test_logical() -> None:
    a, b = values(np.bool_, SHAPE), values(np.bool_, SHAPE[-1:])
    for op_type in ("And", "Or", "Xor"):
        compare(op_type, [a, b])
    compare("Not", [a])


def test_pow_integer_base() -> None:
    base = RNG.integers(-5, 6, SHAPE).astype(np.int64)
    compare("Pow", [base, RNG.integers(0, 4, SHAPE[-1:]).astype(np.int64)])


def test_mean_and_castlike() -> None:
    xs = [values(np.float32, SHAPE) for _ in range(3)]
    compare("Mean", xs)
    compare("CastLike", [xs[0], np.zeros(1, np.int32)], TensorProto.INT32)
