"""ONNX converters for linear quantization: QuantizeLinear, DequantizeLinear and
DynamicQuantizeLinear, as elementwise compositions of graph ops; and the integer
contractions MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv, as graph.matmul and
graph.conv on integer operands with elementwise ops around them (see the section below).

    DequantizeLinear   y = (float(x) - float(zero_point)) * scale
    QuantizeLinear     y = cast(clip(round_half_even(x / scale) + zero_point, qmin, qmax))

The scale and zero point are per tensor (a scalar), per axis (1-D along `axis`) or blocked
(opset 21: x's rank, `axis` divided into blocks of `block_size`); they are reshaped, or for
blocks gathered, to broadcast against x, so every form is one fused elementwise kernel. Run
time scales and zero points are fine (the node tests feed them as inputs).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.constant import element_type_of, numpy_dtype_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter
from minitvm.frontend.onnx_ops import window_pads


def _broadcast_param(ctx: NodeContext, i: int, axis: int, block_size: int) -> SSAValue:
    """Input i (a scale or zero point) shaped to broadcast against input 0."""
    shape, param = ctx.shape(0), ctx.shape(i)
    value = ctx.tensor(i)
    if math.prod(param) == 1 and len(param) <= 1:
        return value if not param else ctx.make1(g.ReshapeOp, value, shape=[])
    rank = len(shape)
    axis = ctx.axis(axis, rank)
    if block_size > 0:
        blocks = -(-shape[axis] // block_size)
        want = [blocks if d == axis else s for d, s in enumerate(shape)]
        if list(param) != want:
            raise ctx.error(f"input {i} has shape {list(param)}; blocks of {block_size} on "
                            f"axis {axis} need {want}")  # fmt: skip
        index = np.arange(shape[axis], dtype=np.int64) // block_size
        positions = ctx.materialize(index, f"{ctx.node.output[0]}_blocks")
        return ctx.make1(g.GatherOp, value, positions, axis=axis)
    if list(param) != [shape[axis]]:
        raise ctx.error(f"input {i} has shape {list(param)}; per-axis parameters on axis {axis} "
                        f"need [{shape[axis]}]")  # fmt: skip
    return ctx.make1(g.ReshapeOp, value, shape=[shape[axis]] + [1] * (rank - axis - 1))


def _layout(ctx: NodeContext) -> tuple[int, int]:
    """axis (as given: it matters, and is checked, only for per-axis and blocked parameters)
    and block_size."""
    block_size = ctx.attr_int("block_size", 0)
    if block_size < 0:
        raise ctx.error(f"block_size must not be negative, got {block_size}")
    return ctx.attr_int("axis", 1), block_size


def _dtype_attr(ctx: NodeContext, name: str) -> np.dtype:
    """The numpy dtype an ONNX data-type attribute names."""
    return numpy_dtype_of(ctx.element_type(ctx.attr_int(name, 0), f"'{name}'"))


def _float_of(ctx: NodeContext, value: SSAValue, dtype: np.dtype) -> SSAValue:
    if value.type.element_type == element_type_of(dtype):  # type: ignore[attr-defined]
        return value
    return ctx.make1(g.CastOp, value, to=element_type_of(dtype))


@converter("DequantizeLinear")
def convert_dequantize(ctx: NodeContext) -> list[Value]:
    axis, block_size = _layout(ctx)
    out_dtype = ctx.dtype(1)
    if ctx.attr_int("output_dtype", 0):
        out_dtype = _dtype_attr(ctx, "output_dtype")
    x = _float_of(ctx, ctx.tensor(0), out_dtype)
    if ctx.has_input(2):
        zero_point = _float_of(ctx, _broadcast_param(ctx, 2, axis, block_size), out_dtype)
        x = ctx.make1(g.SubOp, x, zero_point)
    scale = _float_of(ctx, _broadcast_param(ctx, 1, axis, block_size), out_dtype)
    return [ctx.make1(g.MulOp, x, scale)]


def _quantized_dtype(ctx: NodeContext) -> np.dtype:
    """The zero point's type, else output_dtype, else uint8 (ONNX's default)."""
    if ctx.has_input(2):
        return ctx.dtype(2)
    if ctx.attr_int("output_dtype", 0):
        return _dtype_attr(ctx, "output_dtype")
    return np.dtype(np.uint8)


def quantize(
    ctx: NodeContext, x: SSAValue, scale: SSAValue, zero_point: SSAValue | None, dtype: np.dtype
) -> SSAValue:
    """cast(clip(round_half_even(x / scale) + zero_point, qmin, qmax)) in x's float type."""
    if not np.issubdtype(dtype, np.integer):
        raise ctx.error(f"quantizing to {dtype} is not supported; supported: 8, 16 and 32-bit ints")
    info = np.iinfo(dtype)
    q = ctx.make1(g.RoundOp, ctx.make1(g.DivOp, x, scale))
    if zero_point is not None:
        q = ctx.make1(g.AddOp, q, zero_point)
    q = ctx.make1(g.ClipOp, q, min=float(info.min), max=float(info.max))
    return ctx.make1(g.CastOp, q, to=element_type_of(dtype))


@converter("QuantizeLinear")
def convert_quantize(ctx: NodeContext) -> list[Value]:
    axis, block_size = _layout(ctx)
    x_dtype = ctx.dtype(0)
    precision = ctx.attr_int("precision", 0)
    if precision:
        x_dtype = _dtype_attr(ctx, "precision")
    x = _float_of(ctx, ctx.tensor(0), x_dtype)
    scale = _float_of(ctx, _broadcast_param(ctx, 1, axis, block_size), x_dtype)
    zero_point = None
    if ctx.has_input(2):
        zero_point = _float_of(ctx, _broadcast_param(ctx, 2, axis, block_size), x_dtype)
    return [quantize(ctx, x, scale, zero_point, _quantized_dtype(ctx))]


@converter("DynamicQuantizeLinear")
def convert_dynamic_quantize(ctx: NodeContext) -> list[Value]:
    """uint8 quantization with the scale and zero point computed from x's range (extended to
    include 0): scale = (max - min) / 255, or 1 if the range is empty (as ONNX Runtime; the
    ONNX reference gives 1 / 255 there), zero point = clip(round(-min / scale), 0, 255).
    Outputs y, y_scale, y_zero_point."""
    x = ctx.tensor(0)
    rank = ctx.rank(0)
    dtype = ctx.dtype(0)
    name = ctx.node.output[0]

    def const(value: float, what: str) -> SSAValue:
        return ctx.materialize(np.array(value, dtype), f"{name}_{what}")

    axes = list(range(rank))
    high = ctx.make1(g.ReduceMaxOp, x, axes=axes, keepdims=0) if rank else x
    low = ctx.make1(g.ReduceMinOp, x, axes=axes, keepdims=0) if rank else x
    high = ctx.make1(g.MaxOp, high, const(0.0, "zero"))
    low = ctx.make1(g.MinOp, low, const(0.0, "zero"))
    span = ctx.make1(g.SubOp, high, low)
    empty = ctx.make1(g.EqualOp, span, const(0.0, "zero"))
    scale = ctx.make1(g.DivOp, span, const(255.0, "levels"))
    scale = ctx.make1(g.WhereOp, empty, const(1.0, "one"), scale)
    initial = ctx.make1(g.SubOp, const(0.0, "zero"), ctx.make1(g.DivOp, low, scale))
    zero_point = ctx.make1(g.RoundOp, ctx.make1(g.ClipOp, initial, min=0.0, max=255.0))
    y = quantize(ctx, x, scale, zero_point, np.dtype(np.uint8))
    zero_point_u8 = ctx.make1(g.CastOp, zero_point, to=element_type_of(np.dtype(np.uint8)))
    return [y, scale, zero_point_u8]


# --------------------------------------------------------------------------------------------
# Integer contractions: MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv
# --------------------------------------------------------------------------------------------
#
# Each is graph.matmul or graph.conv on integer operands (accumulated in i32, see
# docs/graph_ops.md) of ONNX's (x - x_zero_point) and (w - w_zero_point):
#
#     MatMulInteger  y = (a - za) @ (b - zb)                                  i32
#     QLinearMatMul  y = saturate(round(((a - za) @ (b - zb)) * (sa * sb / sy)) + zy)
#
# and the same for the convs. With constant weights and zero points (a model's), the weights
# less their zero point are folded now (to i8 where the values fit, else i16) and the data
# stays as it is: y = a @ b' - za * (column sums of b'), the correction a constant that the
# product's kernel subtracts (a conv's goes into its bias; its padding holds za, an explicit
# graph.pad, so that padded taps contribute 0 as ONNX's do). An unsigned data operand is
# then zero-extended, which lets LLVM multiply-add 16-bit halves (vpmaddwd; AVX-512 VNNI's
# vpdpwssd) instead of multiplying 32-bit lanes: a 3x3 conv at 56x56 3.3 -> 2.4 ms, one
# thread. Otherwise both operands are shifted: a run-time one to i16 by graph.cast and
# graph.sub. Requantization runs in f64 from a multiplier computed in the scales' type: what
# the ONNX reference computes, exactly (int32 * float32 is float64 in numpy); graph-fuse
# folds it into the contraction's kernel.

_I16 = np.dtype(np.int16)


def _zero_point(ctx: NodeContext, i: int, shape: Sequence[int]) -> Value | None:
    """Input i (a zero point) shaped to broadcast against an operand, `shape` giving its
    shape for a per-row or per-channel vector (a scalar and one-element tensor become
    rank 0); None where it is absent or a constant zero."""
    if not ctx.has_input(i):
        return None
    value = ctx.value(i)
    if isinstance(value, np.ndarray) and not value.any():
        return None
    return _shaped(ctx, i, shape)


def _shaped(ctx: NodeContext, i: int, shape: Sequence[int]) -> Value:
    """Input i (a scale or zero point): a one-element one as rank 0, else reshaped to
    `shape`, which must hold as many elements."""
    value, size = ctx.value(i), math.prod(ctx.shape(i))
    target = [] if size == 1 else list(shape)
    if math.prod(target) != size:
        raise ctx.error(
            f"input {i} has shape {list(ctx.shape(i))}; expected one element (per tensor) or "
            f"{math.prod(shape)} (shaped {list(shape)})"
        )
    if isinstance(value, np.ndarray):
        return value.reshape(target)
    if list(ctx.shape(i)) == target:
        return value
    return ctx.make1(g.ReshapeOp, value, shape=target)


def _constant_shifted(ctx: NodeContext, i: int, zero_point: Value | None) -> np.ndarray | None:
    """Input i less `zero_point` in i32, if both are known now."""
    value = ctx.value(i)
    if not isinstance(value, np.ndarray) or isinstance(zero_point, SSAValue):
        return None
    return value.astype(np.int32) - (0 if zero_point is None else zero_point.astype(np.int32))


def _narrowest(ctx: NodeContext, values: np.ndarray, name: str) -> SSAValue:
    """A constant of `values` (in [-255, 255]) as i8 where they fit, else i16."""
    fits = values.size == 0 or -128 <= values.min() and values.max() <= 127
    return ctx.materialize(values.astype(np.int8 if fits else np.int16), name)


def _shifted(ctx: NodeContext, i: int, zero_point: Value | None) -> SSAValue:
    """Input i minus `zero_point`: a constant folded now (`_narrowest`), a run-time operand as
    i16 by a graph.cast and a graph.sub."""
    if zero_point is None:
        return ctx.tensor(i)
    name = f"{ctx.input_name(i)}_shifted"
    folded = _constant_shifted(ctx, i, zero_point)
    if folded is not None:
        return _narrowest(ctx, folded, name)
    wide = ctx.make1(g.CastOp, ctx.tensor(i), to=element_type_of(_I16))
    if isinstance(zero_point, np.ndarray):
        offset = ctx.materialize(zero_point.astype(_I16), f"{ctx.input_name(i)}_zero_point")
    else:
        offset = ctx.make1(g.CastOp, zero_point, to=element_type_of(_I16))
    return ctx.make1(g.SubOp, wide, offset)


def _check_8bit(ctx: NodeContext, *inputs: int) -> None:
    for i in inputs:
        if ctx.dtype(i) not in (np.dtype(np.uint8), np.dtype(np.int8)):
            raise ctx.error(f"input {i} must be uint8 or int8, got {ctx.dtype(i)}")


def _wrapped(values: np.ndarray) -> np.ndarray:
    """int64 values as i32, wrapping as the i32 accumulation does."""
    return values.astype(np.int64).astype(np.int32)


def _integer_matmul(ctx: NodeContext, a: int, za: int, b: int, zb: int) -> SSAValue:
    """(a - za) @ (b - zb) in i32. za is per tensor, or per row of a ([M] or a's batch
    dims with [M, 1]); zb per tensor, or per column of b ([N] or [..., 1, N])."""
    _check_8bit(ctx, a, b)
    za_shape: list[int] = []
    if ctx.has_input(za):
        za_shape = [*ctx.shape(a)[-2:-1], 1] if ctx.rank(za) == 1 else list(ctx.shape(za))
    zb_shape = list(ctx.shape(zb)) if ctx.has_input(zb) else []
    a_zero, b_zero = _zero_point(ctx, za, za_shape), _zero_point(ctx, zb, zb_shape)
    weights = _constant_shifted(ctx, b, b_zero)
    if weights is None or isinstance(a_zero, SSAValue):
        return ctx.make1(g.MatMulOp, _shifted(ctx, a, a_zero), _shifted(ctx, b, b_zero))
    rhs = _narrowest(ctx, weights, f"{ctx.input_name(b)}_shifted")
    product = ctx.make1(g.MatMulOp, ctx.tensor(a), rhs)
    if a_zero is None:
        return product
    # za @ b' over the dims along which za varies (a row of za per row of a, or just one)
    a_shape = ctx.shape(a)
    rows = [s if d >= len(a_shape) - a_zero.ndim and a_zero.shape[d - len(a_shape)] > 1 else 1
            for d, s in enumerate(a_shape[:-1])]  # fmt: skip
    zeros = np.broadcast_to(a_zero.astype(np.int64), [*rows, a_shape[-1]] if rows else a_shape)
    correction = _wrapped(np.matmul(zeros, weights.astype(np.int64)))
    name = f"{ctx.node.output[0]}_zero_point_term"
    return ctx.make1(g.SubOp, product, ctx.materialize(correction, name))


def _conv_window(ctx: NodeContext, x: int, w: int) -> dict[str, object]:
    """strides, pads, dilations and group of a conv node with input x and weight w."""
    kernel = list(ctx.shape(w)[2:])
    given = ctx.attr_ints("kernel_shape")
    if given is not None and given != kernel:
        raise ctx.error(f"kernel_shape {given} disagrees with the weight's spatial shape {kernel}")
    n = len(kernel)
    strides = ctx.attr_ints("strides", [1] * n)
    dilations = ctx.attr_ints("dilations", [1] * n)
    assert strides is not None and dilations is not None
    if len(strides) != n or len(dilations) != n:
        raise ctx.error(f"strides and dilations need {n} entries (one per spatial dimension)")
    pads = window_pads(ctx, ctx.shape(x)[2:], kernel, strides, dilations)
    return {"strides": strides, "pads": pads, "dilations": dilations,
            "group": ctx.attr_int("group", 1)}  # fmt: skip


def _integer_conv(
    ctx: NodeContext, x: int, zx: int, w: int, zw: int, bias: int | None = None
) -> SSAValue:
    """conv(x - zx, w - zw) + bias in i32; zx per tensor, zw per tensor or per output
    channel ([M])."""
    _check_8bit(ctx, x, w)
    if ctx.has_input(zx) and math.prod(ctx.shape(zx)) != 1:
        raise ctx.error(f"input {zx} (x's zero point) must be a scalar, got shape {list(ctx.shape(zx))}")
    has_bias = bias is not None and ctx.has_input(bias)
    if has_bias and ctx.dtype(bias) != np.dtype(np.int32):  # type: ignore[arg-type]
        raise ctx.error(f"the bias must be int32, got {ctx.dtype(bias)}")  # type: ignore[arg-type]
    channels, spatial = ctx.shape(w)[0], ctx.rank(w) - 2
    x_zero = _zero_point(ctx, zx, [1])
    w_zero = _zero_point(ctx, zw, [channels, *[1] * (spatial + 1)])
    window = _conv_window(ctx, x, w)
    weights = _constant_shifted(ctx, w, w_zero)
    b = ctx.value(bias) if has_bias else None  # type: ignore[arg-type]
    if weights is None or isinstance(x_zero, SSAValue) or isinstance(b, SSAValue):
        b = ctx.tensor(bias) if has_bias else None  # type: ignore[arg-type]
        lhs, rhs = _shifted(ctx, x, x_zero), _shifted(ctx, w, w_zero)
        return ctx.make1(g.ConvOp, lhs, rhs, b, **window)
    data = ctx.tensor(x)
    if x_zero is not None:
        pads = list(window["pads"])  # type: ignore[call-overload]
        if any(pads):
            full = [0, 0, *pads[:spatial], 0, 0, *pads[spatial:]]
            data = ctx.make1(g.PadOp, data, pads=full, value=float(x_zero))
            window["pads"] = None
        taps = weights.reshape(channels, -1).astype(np.int64).sum(axis=1)
        b = _wrapped((0 if b is None else b.astype(np.int64)) - int(x_zero) * taps)
    rhs = _narrowest(ctx, weights, f"{ctx.input_name(w)}_shifted")
    folded = None if b is None else ctx.materialize(b, f"{ctx.node.output[0]}_bias")
    return ctx.make1(g.ConvOp, data, rhs, folded, **window)


@converter("MatMulInteger")
def convert_matmul_integer(ctx: NodeContext) -> list[Value]:
    return [_integer_matmul(ctx, 0, 2, 1, 3)]


@converter("ConvInteger")
def convert_conv_integer(ctx: NodeContext) -> list[Value]:
    return [_integer_conv(ctx, 0, 2, 1, 3)]


def _requantize(
    ctx: NodeContext, acc: SSAValue, scales: tuple[Value, Value, Value], zero_point: int,
    dtype: np.dtype,
) -> SSAValue:
    """saturate(round(f64(acc) * f64(s0 * s1 / s2) + zy)) as `dtype`, the multiplier in the
    scales' type (each of s0, s1, s2 a rank-0 value or one shaped to broadcast)."""
    s0, s1, s2 = scales
    name = ctx.node.output[0]
    f64 = element_type_of(np.dtype(np.float64))
    if all(isinstance(s, np.ndarray) for s in scales):
        multiplier: Value = np.asarray(s0 * s1 / s2).astype(np.float64)  # type: ignore[operator]
    else:
        product = ctx.make1(g.MulOp, *(_as_tensor(ctx, s, f"{name}_scale") for s in (s0, s1)))
        ratio = ctx.make1(g.DivOp, product, _as_tensor(ctx, s2, f"{name}_y_scale"))
        multiplier = ctx.make1(g.CastOp, ratio, to=f64)
    y = ctx.make1(g.CastOp, acc, to=f64)
    y = ctx.make1(g.MulOp, y, _as_tensor(ctx, multiplier, f"{name}_multiplier"))
    if ctx.has_input(zero_point):
        zy = _shaped(ctx, zero_point, [1])
        if isinstance(zy, np.ndarray):
            if zy.any():
                y = ctx.make1(g.AddOp, y, ctx.materialize(zy.astype(np.float64), f"{name}_zero_point"))
        else:
            y = ctx.make1(g.AddOp, y, ctx.make1(g.CastOp, zy, to=f64))
    info = np.iinfo(dtype)
    y = ctx.make1(g.ClipOp, ctx.make1(g.RoundOp, y), min=float(info.min), max=float(info.max))
    return ctx.make1(g.CastOp, y, to=element_type_of(dtype))


def _as_tensor(ctx: NodeContext, value: Value, name: str) -> SSAValue:
    return ctx.materialize(value, name) if isinstance(value, np.ndarray) else value


def _output_dtype(ctx: NodeContext, zero_point: int, data: int) -> np.dtype:
    """The quantized result's type: its zero point's, else the quantized input's."""
    return ctx.dtype(zero_point) if ctx.has_input(zero_point) else ctx.dtype(data)


@converter("QLinearMatMul")
def convert_qlinear_matmul(ctx: NodeContext) -> list[Value]:
    """Inputs a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point;
    b's scale and zero point per tensor or per column."""
    acc = _integer_matmul(ctx, 0, 2, 3, 5)
    columns = ctx.shape(3)[-1:]
    scales = (_shaped(ctx, 1, [1]), _shaped(ctx, 4, columns), _shaped(ctx, 6, [1]))
    return [_requantize(ctx, acc, scales, 7, _output_dtype(ctx, 7, 0))]


@converter("QLinearConv")
def convert_qlinear_conv(ctx: NodeContext) -> list[Value]:
    """Inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point and
    an optional int32 bias; w's scale and zero point per tensor or per output channel."""
    acc = _integer_conv(ctx, 0, 2, 3, 5, bias=8)
    channels = [ctx.shape(3)[0], *[1] * (ctx.rank(3) - 2)]
    scales = (_shaped(ctx, 1, [1]), _shaped(ctx, 4, channels), _shaped(ctx, 6, [1]))
    return [_requantize(ctx, acc, scales, 7, _output_dtype(ctx, 7, 0))]
