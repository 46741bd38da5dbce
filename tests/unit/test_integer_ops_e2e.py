"""Integer linear algebra and the integer and index pooling ops compiled end to end and run,
against ONNX Runtime: MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv, MaxPool on
8-bit integers and its Indices output, MaxUnpool, Pad's wrap mode and BitCast.

The requantizing ops are also held to the ONNX reference exactly: minitvm requantizes in f64
as the reference does, ONNX Runtime in f32, which now and then rounds a value near a half
the other way (one step apart, see docs/graph_ops.md).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import i8
from xdsl.ir import BlockArgument

import minitvm
from minitvm.compiler import llvm_ir
from minitvm.dialects import graph as g
from minitvm.dialects.graph.base import get_float
from minitvm.frontend import from_onnx

RNG = np.random.default_rng(2024)


def u8(*shape: int) -> np.ndarray:
    return RNG.integers(0, 256, shape).astype(np.uint8)


def s8(*shape: int) -> np.ndarray:
    return RNG.integers(-128, 128, shape).astype(np.int8)


def model_of(op_type: str, inputs: dict[str, np.ndarray], consts: dict[str, np.ndarray | None],
             outputs: int = 1, opset: int = 21, **attrs: object) -> onnx.ModelProto:  # fmt: skip
    """One `op_type` node on the graph inputs `inputs` then the initializers `consts` (None: an
    absent optional input), in that order."""
    names = [*inputs, *(name if value is not None else "" for name, value in consts.items())]
    node = helper.make_node(op_type, names, [f"y{i}" for i in range(outputs)], **attrs)
    graph = helper.make_graph(
        [node], op_type,
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
         for n, a in inputs.items()],
        [helper.make_empty_tensor_value_info(f"y{i}") for i in range(outputs)],
        [numpy_helper.from_array(a, n) for n, a in consts.items() if a is not None],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def run_ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])  # fmt: skip
    return session.run(None, feeds)


def compare(model: onnx.ModelProto, feeds: dict[str, np.ndarray], *, ort_steps: int | None = 0,
            reference: bool = False) -> list[np.ndarray]:  # fmt: skip
    """minitvm's outputs, equal to ONNX Runtime's (to `ort_steps` integer steps; None where
    ONNX Runtime rejects the model) and, with `reference`, exactly equal to the ONNX
    reference's."""
    got = minitvm.compile(model, num_threads=1).run(feeds)
    for h, w in zip(got, run_ort(model, feeds), strict=True) if ort_steps is not None else ():
        assert h.dtype == w.dtype and h.shape == w.shape
        if h.dtype.kind == "f":
            np.testing.assert_allclose(h, w, rtol=1e-6, atol=1e-6)
        else:
            assert np.abs(h.astype(np.int64) - w.astype(np.int64)).max(initial=0) <= ort_steps  # type: ignore[operator]
    if reference:
        for h, w in zip(got, ReferenceEvaluator(model).run(None, feeds), strict=True):
            np.testing.assert_array_equal(h, w)
    return got


# --------------------------------------------------------------------------------------------
# MatMulInteger, QLinearMatMul
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rows", [1, 5, 8])
@pytest.mark.parametrize("a_type, b_type", [(u8, s8), (u8, u8), (s8, s8)])
def test_matmul_integer_constant_weights(rows, a_type, b_type) -> None:
    """A GEMV (packed weights, one-row register blocks), a padded and a whole block of rows;
    the weights' zero point per column."""
    b = b_type(96, 80)
    zb = b_type(80)
    a = a_type(rows, 96)
    za = a_type(1)[0]
    model = model_of("MatMulInteger", {"a": a}, {"b": b, "za": np.array(za), "zb": zb})
    compare(model, {"a": a}, reference=True)


def test_matmul_integer_run_time_operands_and_per_row_zero_points() -> None:
    """ONNX Runtime takes zero points per tensor only, the ONNX reference does not broadcast
    a per-row one: the spec's formula is the oracle."""
    a, b, za, zb = u8(2, 3, 7, 20), u8(2, 3, 20, 6), u8(7), u8(6)
    inputs = {"a": a, "b": b, "za": za, "zb": zb}
    (y,) = compare(model_of("MatMulInteger", inputs, {}), inputs, ort_steps=None)
    want = (a.astype(np.int32) - za[:, None].astype(np.int32)) @ (b.astype(np.int32) - zb)
    np.testing.assert_array_equal(y, want)


def test_matmul_integer_run_time_operands() -> None:
    inputs = {"a": s8(3, 2, 17), "b": s8(17, 5), "za": s8(1), "zb": s8(1)}
    compare(model_of("MatMulInteger", inputs, {}), inputs, reference=True)


def test_matmul_integer_without_zero_points() -> None:
    a, b = s8(4, 33), s8(33, 48)
    compare(model_of("MatMulInteger", {"a": a}, {"b": b}), {"a": a}, reference=True)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("scale_type", [np.float32, np.float16])
def test_qlinear_matmul(dtype, scale_type) -> None:
    low, high = np.iinfo(dtype).min, np.iinfo(dtype).max + 1
    a = RNG.integers(low, high, (3, 64)).astype(dtype)
    b = RNG.integers(low, high, (64, 32)).astype(dtype)
    scales = {n: np.array([s], scale_type) for n, s in (("sa", 0.02), ("sb", 0.004), ("sy", 0.3))}
    consts = {"sa": scales["sa"], "za": np.array([3], dtype), "b": b, "sb": scales["sb"],
              "zb": np.array([-1 if dtype == np.int8 else 130], dtype), "sy": scales["sy"],
              "zy": np.array([5], dtype)}  # fmt: skip
    model = model_of("QLinearMatMul", {"a": a}, consts)
    compare(model, {"a": a}, ort_steps=1, reference=True)


def test_qlinear_matmul_run_time_parameters_per_column() -> None:
    """Every input fed at run time (as ONNX's node tests do), b's scale and zero point per
    column."""
    inputs = {"a": u8(2, 5, 12), "sa": np.float32([0.05]), "za": np.uint8([120]),
              "b": u8(12, 7), "sb": RNG.uniform(0.001, 0.01, 7).astype(np.float32),
              "zb": u8(7), "sy": np.float32([0.2]), "zy": np.uint8([100])}  # fmt: skip
    compare(model_of("QLinearMatMul", inputs, {}), inputs, ort_steps=1, reference=True)


def test_constant_weights_keep_the_data_as_it_is() -> None:
    """With constant weights and zero points, the u8 data goes into the product unshifted
    (zero-extended in its kernel) and the zero point's term is subtracted after it; the
    weights less their zero point are folded to i8."""
    a, b = u8(2, 16), u8(16, 32)
    consts = {"b": b, "za": np.array(100, np.uint8), "zb": np.array(128, np.uint8)}
    module = from_onnx(model_of("MatMulInteger", {"a": a}, consts))
    (matmul,) = [op for op in module.walk() if isinstance(op, g.MatMulOp)]
    assert isinstance(matmul.lhs, BlockArgument)
    assert matmul.rhs.type.element_type == i8  # type: ignore[attr-defined]
    assert [use.operation.name for use in matmul.result.uses] == ["graph.sub"]
    x = u8(1, 4, 6, 6)
    conv = model_of("ConvInteger", {"x": x}, {"w": u8(8, 4, 3, 3), "zx": np.array(9, np.uint8)},
                    pads=[1, 1, 1, 1])  # fmt: skip
    ops = {op.name: op for op in from_onnx(conv).walk() if op.name.startswith("graph.")}
    assert get_float(ops["graph.pad"].properties, "value") == 9.0
    assert ops["graph.conv"].operands[2] is not None and "pads" not in ops["graph.conv"].properties


def test_integer_gemm_is_vectorized_in_i32() -> None:
    """The product runs on the GEMM template's register block, 16 i32 lanes a vector."""
    a, b = u8(1, 256), s8(256, 512)
    model = model_of("MatMulInteger", {"a": a}, {"b": b, "za": np.array(128, np.uint8)})
    text = llvm_ir(model, num_threads=1)
    assert "sext <16 x i8>" in text and "mul <16 x i32>" in text


# --------------------------------------------------------------------------------------------
# ConvInteger, QLinearConv
# --------------------------------------------------------------------------------------------

CONVS = {
    "3x3_pads": ((1, 16, 10, 10), (32, 16, 3, 3), {"pads": [1, 1, 1, 1]}),
    "strided_asym": ((2, 8, 9, 11), (16, 8, 3, 2), {"strides": [2, 1], "pads": [1, 0, 2, 1]}),
    "depthwise": ((1, 16, 8, 8), (16, 1, 3, 3), {"group": 16, "pads": [1, 1, 1, 1]}),
    "grouped_1x1": ((1, 12, 5, 5), (8, 6, 1, 1), {"group": 2}),
    "few_channels": ((1, 3, 12, 12), (16, 3, 3, 3), {"strides": [2, 2]}),
}


@pytest.mark.parametrize("name", CONVS)
def test_conv_integer(name: str) -> None:
    """u8 input and weights (the types ONNX Runtime's ConvInteger takes), zero points per
    tensor; minitvm's blocked conv schedule for the plain and depthwise ones."""
    x_shape, w_shape, attrs = CONVS[name]
    x, w = u8(*x_shape), u8(*w_shape)
    consts = {"w": w, "zx": np.array(200, np.uint8), "zw": np.array(7, np.uint8)}
    compare(model_of("ConvInteger", {"x": x}, consts, **attrs), {"x": x}, reference=True)


def test_conv_integer_per_channel_weight_zero_points() -> None:
    """ONNX Runtime rejects per-channel weight zero points: the reference is the oracle."""
    x, w = u8(1, 4, 6, 6), s8(6, 4, 3, 3)
    model = model_of("ConvInteger", {"x": x}, {"w": w, "zx": np.array(9, np.uint8),
                                                "zw": s8(6)}, pads=[1, 1, 1, 1])  # fmt: skip
    compare(model, {"x": x}, ort_steps=None, reference=True)


@pytest.mark.parametrize("name", ["3x3_pads", "depthwise", "strided_asym"])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_qlinear_conv(name: str, dtype) -> None:
    """Per-channel weight scales, an int32 bias, s8 weights."""
    x_shape, w_shape, attrs = CONVS[name]
    low, high = np.iinfo(dtype).min, np.iinfo(dtype).max + 1
    x = RNG.integers(low, high, x_shape).astype(dtype)
    channels = w_shape[0]
    consts = {
        "sx": np.array(0.03, np.float32), "zx": np.array(4, dtype), "w": s8(*w_shape),
        "sw": RNG.uniform(0.002, 0.02, channels).astype(np.float32),
        "zw": np.zeros(channels, np.int8), "sy": np.array(0.7, np.float32),
        "zy": np.array(-3 if dtype == np.int8 else 110, dtype),
        "bias": RNG.integers(-3000, 3000, channels).astype(np.int32),
    }  # fmt: skip
    model = model_of("QLinearConv", {"x": x}, consts, **attrs)
    compare(model, {"x": x}, ort_steps=1, reference=True)


def test_qlinear_conv_without_bias_run_time_parameters() -> None:
    inputs = {"x": u8(1, 2, 7, 7), "sx": np.array(0.1, np.float32), "zx": np.array(128, np.uint8),
              "w": u8(3, 2, 2, 2), "sw": np.float32([0.01]), "zw": np.uint8([3]),
              "sy": np.array(0.5, np.float32), "zy": np.array(50, np.uint8)}  # fmt: skip
    compare(model_of("QLinearConv", inputs, {}), inputs, ort_steps=1, reference=True)


# --------------------------------------------------------------------------------------------
# MaxPool on integers and its indices, MaxUnpool, Pad wrap, BitCast
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [u8, s8])
def test_max_pool_of_8_bit_integers(make) -> None:
    """Blocked after an integer conv or not, the padding never wins: it reads the type's
    least value, not 0 or -inf."""
    x = make(1, 16, 9, 9)
    model = model_of("MaxPool", {"x": x}, {}, kernel_shape=[3, 3], strides=[2, 2],
                     pads=[1, 1, 1, 1])  # fmt: skip
    compare(model, {"x": x})


@pytest.mark.parametrize("attrs, reference", [
    ({"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, True),
    ({"kernel_shape": [2, 3], "strides": [2, 2], "storage_order": 1}, True),
    # Unstrided, the ONNX reference takes another path, which gives row-major indices
    # whatever the storage order: ONNX Runtime is the oracle.
    ({"kernel_shape": [2, 2], "storage_order": 1}, False),
    ({"kernel_shape": [2, 3], "strides": [1, 2], "ceil_mode": 1, "dilations": [2, 1]}, True),
])  # fmt: skip
def test_max_pool_indices(attrs, reference) -> None:
    x = RNG.standard_normal((2, 3, 9, 8)).astype(np.float32)
    model = model_of("MaxPool", {"x": x}, {}, outputs=2, **attrs)
    compare(model, {"x": x}, reference=reference)


@pytest.mark.parametrize("attrs", [
    {"kernel_shape": [2, 2], "strides": [2, 2]},
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},  # windows overlap
])  # fmt: skip
def test_max_unpool_inverts_max_pool(attrs) -> None:
    """MaxPool's values and indices back to a tensor of the pool's input size (9 x 9 unpools
    to 9 x 9 with the overlapping windows, 8 x 8 with the others)."""
    size = 9 if "pads" in attrs else 8
    x = RNG.standard_normal((1, 4, size, size)).astype(np.float32)
    pooled, indices = ReferenceEvaluator(model_of("MaxPool", {"x": x}, {}, outputs=2, **attrs)).run(
        None, {"x": x})  # fmt: skip
    inputs = {"p": pooled, "i": indices}
    (y,) = compare(model_of("MaxUnpool", inputs, {}, **attrs), inputs, reference=True)
    assert y.shape == x.shape and set(np.unique(y)) <= set(np.unique(x)) | {0.0}


def test_max_unpool_output_shape_follows_the_onnx_reference() -> None:
    """A larger output_shape: the reference's layout (docs/graph_ops.md), not ORT's."""
    pooled = RNG.standard_normal((1, 1, 2, 2)).astype(np.float32)
    indices = np.array([[[[5, 7], [13, 15]]]], np.int64)
    model = model_of("MaxUnpool", {"p": pooled, "i": indices},
                     {"shape": np.array([1, 1, 5, 5], np.int64)}, kernel_shape=[2, 2],
                     strides=[2, 2])  # fmt: skip
    feeds = {"p": pooled, "i": indices}
    (y,) = compare(model, feeds, ort_steps=None, reference=True)
    np.testing.assert_array_equal(y[0, 0, 1:4:2, 1:4:2], pooled[0, 0])


def test_pad_wrap() -> None:
    x = RNG.standard_normal((1, 3, 4, 5)).astype(np.float32)
    model = model_of("Pad", {"x": x}, {"pads": np.array([0, 0, 2, 7, 0, 0, 5, 1], np.int64)},
                     mode="wrap")  # fmt: skip
    compare(model, {"x": x}, reference=True)


@pytest.mark.parametrize("source, to", [
    (np.array([[1.0, -0.0, np.inf], [3.5e-42, -7.25, 1e30]], np.float32), TensorProto.INT32),
    (np.arange(-40, 40, 3, dtype=np.int32) * 123457, TensorProto.FLOAT),
    (np.array([1.0, -2.0, 1e-300], np.float64), TensorProto.UINT64),
    (np.array([0, 200, 255, 127], np.uint8), TensorProto.INT8),
    (np.array([-1.5, 65504.0], np.float16), TensorProto.INT16),
])  # fmt: skip
def test_bitcast(source: np.ndarray, to: int) -> None:
    """Vectorized and scalar (the 3-element ones) bitcasts, floats to integers and back."""
    tiled = np.tile(source, 40)
    compare(model_of("BitCast", {"x": tiled}, {}, opset=26, to=to), {"x": tiled})


@pytest.mark.parametrize("to", [TensorProto.INT16, TensorProto.UINT16])
def test_bitcast_of_bfloat16(to: int) -> None:
    """bf16 moves as its 16 bits (graph-widen-bf16 leaves bitcasts alone): the same bits."""
    x = (np.linspace(-3, 3, 40, dtype=np.float32) * 1.37).astype(ml_dtypes.bfloat16)
    (y,) = minitvm.compile(model_of("BitCast", {"x": x}, {}, opset=26, to=to), num_threads=1).run(
        {"x": x})  # fmt: skip
    assert y.dtype == helper.tensor_dtype_to_np_dtype(to)
    np.testing.assert_array_equal(y.view(np.uint16), x.view(np.uint16))
