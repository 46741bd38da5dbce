"""ONNX converters for compute ops: elementwise math, contractions, normalization, pooling.

One small function per ONNX op (or per family sharing one rule), registered by op type in
`onnx_node.CONVERTERS`. Each resolves the op's opset-dependent attributes and defaults into
the explicit properties the graph dialect wants (docs/graph_ops.md). Data-movement and
shape ops live in `onnx_tensor_ops.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.base import GraphOp
from minitvm.frontend.onnx_node import NodeContext, Value, converter

# --------------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------------

_UNARY: dict[str, type[GraphOp]] = {
    "Relu": g.ReluOp, "Sigmoid": g.SigmoidOp, "Tanh": g.TanhOp, "Erf": g.ErfOp,
    "Exp": g.ExpOp, "Log": g.LogOp, "Sqrt": g.SqrtOp, "Reciprocal": g.ReciprocalOp,
    "Neg": g.NegOp, "Abs": g.AbsOp, "HardSwish": g.HardSwishOp,
}  # fmt: skip

_BINARY: dict[str, type[GraphOp]] = {
    "Add": g.AddOp, "Sub": g.SubOp, "Mul": g.MulOp, "Div": g.DivOp,
    "Equal": g.EqualOp, "Less": g.LessOp, "Greater": g.GreaterOp,
}  # fmt: skip

_VARIADIC: dict[str, type[GraphOp]] = {"Sum": g.AddOp, "Max": g.MaxOp, "Min": g.MinOp}


@converter(*_UNARY)
def convert_unary(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(_UNARY[ctx.op_type], ctx.tensor(0))]


@converter("Gelu")
def convert_gelu(ctx: NodeContext) -> list[Value]:
    approximate = ctx.attr_choice("approximate", "none", ("none", "tanh"))
    return [ctx.make1(g.GeluOp, ctx.tensor(0), approximate=approximate)]


@converter("LeakyRelu")
def convert_leaky_relu(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(g.LeakyReluOp, ctx.tensor(0), alpha=ctx.attr_float("alpha", 0.01))]


@converter("HardSigmoid")
def convert_hard_sigmoid(ctx: NodeContext) -> list[Value]:
    alpha, beta = ctx.attr_float("alpha", 0.2), ctx.attr_float("beta", 0.5)
    return [ctx.make1(g.HardSigmoidOp, ctx.tensor(0), alpha=alpha, beta=beta)]


@converter("Clip")
def convert_clip(ctx: NodeContext) -> list[Value]:
    """Bounds are attributes before opset 11 and optional scalar inputs from then on."""
    if ctx.opset < 11:
        low, high = ctx.attr("min"), ctx.attr("max")
    else:
        low, high = (_scalar(ctx, i, what) for i, what in ((1, "min"), (2, "max")))
    low = None if low is None else float(low)  # type: ignore[arg-type]
    high = None if high is None else float(high)  # type: ignore[arg-type]
    return [ctx.make1(g.ClipOp, ctx.tensor(0), min=low, max=high)]


def _scalar(ctx: NodeContext, i: int, what: str) -> float | None:
    value = ctx.optional_const(i, what)
    if value is None:
        return None
    if value.size != 1:
        raise ctx.error(f"input {i} ('{what}') must be a scalar, got shape {value.shape}")
    return float(value.reshape(()))


@converter("Cast")
def convert_cast(ctx: NodeContext) -> list[Value]:
    to = ctx.element_type(ctx.attr_int("to", 0), "'to'")
    x = ctx.tensor(0)
    if x.type.element_type == to:  # type: ignore[attr-defined]
        return [x]
    return [ctx.make1(g.CastOp, x, to=to)]


@converter(*_BINARY)
def convert_binary(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(_BINARY[ctx.op_type], ctx.tensor(0), ctx.tensor(1))]


@converter("Pow")
def convert_pow(ctx: NodeContext) -> list[Value]:
    """ONNX lets the exponent have its own element type; graph.pow wants the base's."""
    base, dtype = ctx.tensor(0), ctx.dtype(0)
    if ctx.dtype(1) == dtype:
        exponent = ctx.tensor(1)
    elif ctx.is_const(1):
        exponent = ctx.materialize(ctx.const(1, "Y").astype(dtype), ctx.input_name(1))
    else:
        exponent = ctx.make1(g.CastOp, ctx.tensor(1), to=base.type.element_type)  # type: ignore[attr-defined]
    return [ctx.make1(g.PowOp, base, exponent)]


@converter(*_VARIADIC)
def convert_variadic(ctx: NodeContext) -> list[Value]:
    """Sum/Max/Min of 1..N operands: a left-to-right chain of the binary op."""
    operands = [ctx.tensor(i) for i in range(len(ctx.inputs)) if ctx.has_input(i)]
    if not operands:
        raise ctx.error("needs at least one input")
    result = operands[0]
    for operand in operands[1:]:
        result = ctx.make1(_VARIADIC[ctx.op_type], result, operand)
    return [result]


@converter("PRelu")
def convert_prelu(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(g.PReluOp, ctx.tensor(0), ctx.tensor(1))]


@converter("Where")
def convert_where(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(g.WhereOp, ctx.tensor(0), ctx.tensor(1), ctx.tensor(2))]


# --------------------------------------------------------------------------------------------
# Contractions
# --------------------------------------------------------------------------------------------


@converter("MatMul")
def convert_matmul(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(g.MatMulOp, ctx.tensor(0), ctx.tensor(1))]


@converter("Gemm")
def convert_gemm(ctx: NodeContext) -> list[Value]:
    """C is optional from opset 11 on."""
    return [ctx.make1(
        g.GemmOp, *_operands(ctx, 2, 1),
        alpha=ctx.attr_float("alpha", 1.0), beta=ctx.attr_float("beta", 1.0),
        trans_a=ctx.attr_int("transA", 0), trans_b=ctx.attr_int("transB", 0),
    )]  # fmt: skip


def _operands(ctx: NodeContext, required: int, optional: int) -> list[SSAValue | None]:
    """The node's inputs as operands in order (constants materialized in that order), None
    for an omitted optional one."""
    operands: list[SSAValue | None] = [ctx.tensor(i) for i in range(required)]
    operands += [
        ctx.tensor(i) if ctx.has_input(i) else None for i in range(required, required + optional)
    ]
    return operands


_AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def window_pads(
    ctx: NodeContext,
    spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> list[int]:
    """Explicit pads (begins then ends) for a sliding window, resolving `auto_pad`.

    SAME_* pads so that out = ceil(in / stride); the odd pixel goes to the end (UPPER) or
    the beginning (LOWER), as ONNX specifies."""
    auto_pad = ctx.attr_choice("auto_pad", "NOTSET", _AUTO_PADS)
    n = len(spatial)
    if auto_pad == "VALID":
        return [0] * (2 * n)
    if auto_pad == "NOTSET":
        pads = ctx.attr_ints("pads", [0] * (2 * n))
        assert pads is not None
        if len(pads) != 2 * n:
            raise ctx.error(f"pads has {len(pads)} entries; expected {2 * n}")
        return pads
    begins, ends = [], []
    for size, k, s, d in zip(spatial, kernel, strides, dilations):
        out = -(-size // s)
        total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
        small, large = total // 2, total - total // 2
        begins.append(small if auto_pad == "SAME_UPPER" else large)
        ends.append(large if auto_pad == "SAME_UPPER" else small)
    return begins + ends


def _window(ctx: NodeContext, kernel: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """strides, dilations and pads of a conv or pool node with the given kernel."""
    n = len(kernel)
    strides = ctx.attr_ints("strides", [1] * n)
    dilations = ctx.attr_ints("dilations", [1] * n)
    assert strides is not None and dilations is not None
    if len(strides) != n or len(dilations) != n:
        raise ctx.error(f"strides and dilations need {n} entries (one per spatial dimension)")
    pads = window_pads(ctx, ctx.shape(0)[2:], kernel, strides, dilations)
    return strides, dilations, pads


def _kernel_of_weight(ctx: NodeContext) -> list[int]:
    kernel = list(ctx.shape(1)[2:])
    given = ctx.attr_ints("kernel_shape")
    if given is not None and given != kernel:
        raise ctx.error(f"kernel_shape {given} disagrees with the weight's spatial shape {kernel}")
    return kernel


@converter("Conv")
def convert_conv(ctx: NodeContext) -> list[Value]:
    strides, dilations, pads = _window(ctx, _kernel_of_weight(ctx))
    return [
        ctx.make1(
            g.ConvOp,
            *_operands(ctx, 2, 1),
            strides=strides,
            pads=pads,
            dilations=dilations,
            group=ctx.attr_int("group", 1),
        )
    ]


@converter("ConvTranspose")
def convert_conv_transpose(ctx: NodeContext) -> list[Value]:
    kernel = _kernel_of_weight(ctx)
    n = len(kernel)
    strides = ctx.attr_ints("strides", [1] * n)
    dilations = ctx.attr_ints("dilations", [1] * n)
    output_padding = ctx.attr_ints("output_padding", [0] * n)
    assert strides is not None and dilations is not None and output_padding is not None
    pads = _conv_transpose_pads(ctx, kernel, strides, dilations, output_padding)
    return [
        ctx.make1(
            g.ConvTransposeOp,
            *_operands(ctx, 2, 1),
            strides=strides,
            pads=pads,
            dilations=dilations,
            output_padding=output_padding,
            group=ctx.attr_int("group", 1),
        )
    ]


def _conv_transpose_pads(
    ctx: NodeContext,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    output_padding: list[int],
) -> list[int]:
    """Pads for ConvTranspose; an `output_shape` attribute or SAME_* auto_pad fixes the output
    size and the pads follow from it (ONNX's formula; a negative total becomes extra
    output_padding, so the output still has the requested size). Updates output_padding."""
    auto_pad = ctx.attr_choice("auto_pad", "NOTSET", _AUTO_PADS)
    spatial = ctx.shape(0)[2:]
    n = len(spatial)
    output_shape = ctx.attr_ints("output_shape")
    if output_shape is None and auto_pad in ("NOTSET", "VALID"):
        pads = ctx.attr_ints("pads", [0] * (2 * n)) if auto_pad == "NOTSET" else [0] * (2 * n)
        assert pads is not None
        return pads
    if output_shape is None:
        output_shape = [size * s for size, s in zip(spatial, strides)]
    output_shape = output_shape[-n:]
    begins, ends = [], []
    for i in range(n):
        span = (kernel[i] - 1) * dilations[i] + 1
        total = strides[i] * (spatial[i] - 1) + output_padding[i] + span - output_shape[i]
        if total < 0:
            output_padding[i] -= total
            total = 0
        small, large = total // 2, total - total // 2
        begins.append(small if auto_pad == "SAME_UPPER" else large)
        ends.append(large if auto_pad == "SAME_UPPER" else small)
    return begins + ends


# --------------------------------------------------------------------------------------------
# Normalization
# --------------------------------------------------------------------------------------------


@converter("BatchNormalization")
def convert_batch_norm(ctx: NodeContext) -> list[Value]:
    """Inference only: training_mode=1 (opset 14+), spatial=0 (opset 7-8) or a consumed
    running-statistics output is an error."""
    if ctx.attr_int("training_mode", 0):
        raise ctx.error("training_mode=1 is not supported; export the model for inference")
    if ctx.opset < 9 and not ctx.attr_int("spatial", 1):
        raise ctx.error("spatial=0 is not supported; supported: spatial=1")
    for i in range(1, len(ctx.node.output)):
        if ctx.output_used(i):
            raise ctx.error(
                f"output {i} ('{ctx.node.output[i]}') is a training statistic; only output 0 "
                "(inference) is supported"
            )
    y = ctx.make1(
        g.BatchNormOp, *(ctx.tensor(i) for i in range(5)), epsilon=ctx.attr_float("epsilon", 1e-5)
    )
    return [y]


@converter("LayerNormalization")
def convert_layer_norm(ctx: NodeContext) -> list[Value]:
    axis = ctx.axis(ctx.attr_int("axis", -1), ctx.rank(0))
    op = ctx.make(
        g.LayerNormOp, *_operands(ctx, 2, 1), axis=axis, epsilon=ctx.attr_float("epsilon", 1e-5)
    )
    return list(op.results)


@converter("LRN")
def convert_lrn(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(
        g.LRNOp, ctx.tensor(0), size=ctx.attr_int("size", 0),
        alpha=ctx.attr_float("alpha", 1e-4), beta=ctx.attr_float("beta", 0.75),
        bias=ctx.attr_float("bias", 1.0),
    )]  # fmt: skip


@converter("Softmax", "LogSoftmax")
def convert_softmax(ctx: NodeContext) -> list[Value]:
    """From opset 13 the op works on one axis (default -1). Before, it flattens the input to
    2-D at `axis` (default 1) and normalizes each row: a reshape pair around a last-axis op,
    unless `axis` is the last axis already."""
    cls = g.SoftmaxOp if ctx.op_type == "Softmax" else g.LogSoftmaxOp
    shape = ctx.shape(0)
    if ctx.opset >= 13:
        return [ctx.make1(cls, ctx.tensor(0), axis=ctx.axis(ctx.attr_int("axis", -1), len(shape)))]
    axis = ctx.axis(ctx.attr_int("axis", 1), len(shape)) if shape else 0
    if axis >= len(shape) - 1:
        return [ctx.make1(cls, ctx.tensor(0), axis=max(len(shape) - 1, 0))]
    rows, cols = math.prod(shape[:axis]), math.prod(shape[axis:])
    flat = ctx.make1(g.ReshapeOp, ctx.tensor(0), shape=[rows, cols])
    normalized = ctx.make1(cls, flat, axis=1)
    return [ctx.make1(g.ReshapeOp, normalized, shape=list(shape))]


# --------------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------------


def _pool_common(ctx: NodeContext) -> dict[str, object]:
    kernel = ctx.attr_ints("kernel_shape")
    if kernel is None:
        raise ctx.error("missing required attribute kernel_shape")
    if len(kernel) != ctx.rank(0) - 2:
        raise ctx.error(f"kernel_shape {kernel} does not fit an input of rank {ctx.rank(0)}")
    strides, dilations, pads = _window(ctx, kernel)
    return {
        "kernel_shape": kernel,
        "strides": strides,
        "pads": pads,
        "dilations": dilations,
        "ceil_mode": ctx.attr_int("ceil_mode", 0),
    }


@converter("MaxPool")
def convert_max_pool(ctx: NodeContext) -> list[Value]:
    """The Indices output (and with it storage_order) is not supported when consumed."""
    if ctx.output_used(1):
        raise ctx.error("the Indices output is not supported; supported: output 0 only")
    return [ctx.make1(g.MaxPoolOp, ctx.tensor(0), **_pool_common(ctx))]


@converter("AveragePool")
def convert_avg_pool(ctx: NodeContext) -> list[Value]:
    return [
        ctx.make1(
            g.AvgPoolOp,
            ctx.tensor(0),
            **_pool_common(ctx),
            count_include_pad=ctx.attr_int("count_include_pad", 0),
        )
    ]


@converter("GlobalAveragePool")
def convert_global_avg_pool(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(g.GlobalAvgPoolOp, ctx.tensor(0))]


@converter("GlobalMaxPool")
def convert_global_max_pool(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(g.GlobalMaxPoolOp, ctx.tensor(0))]


# --------------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------------

_REDUCE: dict[str, tuple[type[GraphOp], int]] = {
    # op type -> (graph op, first opset taking axes as an input rather than an attribute)
    "ReduceSum": (g.ReduceSumOp, 13),
    "ReduceMean": (g.ReduceMeanOp, 18),
    "ReduceMax": (g.ReduceMaxOp, 18),
}


@converter(*_REDUCE)
def convert_reduce(ctx: NodeContext) -> list[Value]:
    """No axes means all axes, unless noop_with_empty_axes=1 makes the node an identity."""
    cls, axes_input_from = _REDUCE[ctx.op_type]
    rank = ctx.rank(0)
    if ctx.opset >= axes_input_from:
        given = ctx.optional_const(1, "axes")
        axes = None if given is None else [int(a) for a in given.reshape(-1)]
    else:
        axes = ctx.attr_ints("axes")
    if not axes:
        if ctx.attr_int("noop_with_empty_axes", 0):
            return [ctx.tensor(0)]
        axes = list(range(rank))
    keepdims = ctx.attr_int("keepdims", 1)
    return [ctx.make1(cls, ctx.tensor(0), axes=ctx.axes(axes, rank), keepdims=keepdims)]
