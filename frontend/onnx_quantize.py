"""ONNX converters for linear quantization: QuantizeLinear, DequantizeLinear and
DynamicQuantizeLinear, as elementwise compositions of graph ops.

    DequantizeLinear   y = (float(x) - float(zero_point)) * scale
    QuantizeLinear     y = cast(clip(round_half_even(x / scale) + zero_point, qmin, qmax))

The scale and zero point are per tensor (a scalar), per axis (1-D along `axis`) or blocked
(opset 21: x's rank, `axis` divided into blocks of `block_size`); they are reshaped, or for
blocks gathered, to broadcast against x, so every form is one fused elementwise kernel. Run
time scales and zero points are fine (the node tests feed them as inputs).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.constant import element_type_of, numpy_dtype_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter


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
