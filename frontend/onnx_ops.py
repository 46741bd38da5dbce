"""ONNX converters for compute ops: elementwise math, contractions, normalization, pooling.

One small function per ONNX op (or per family sharing one rule), registered by op type in
`onnx_node.CONVERTERS`. Each resolves the op's opset-dependent attributes and defaults into
the explicit properties the graph dialect wants (docs/graph_ops.md). Data-movement and
shape ops live in `onnx_tensor_ops.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.base import GraphOp
from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter, element_type

# --------------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------------

_UNARY: dict[str, type[GraphOp]] = {
    "Relu": g.ReluOp, "Sigmoid": g.SigmoidOp, "Tanh": g.TanhOp, "Erf": g.ErfOp,
    "Exp": g.ExpOp, "Log": g.LogOp, "Sqrt": g.SqrtOp, "Reciprocal": g.ReciprocalOp,
    "Neg": g.NegOp, "Abs": g.AbsOp, "HardSwish": g.HardSwishOp,
    "Sin": g.SinOp, "Cos": g.CosOp, "Tan": g.TanOp, "Asin": g.AsinOp, "Acos": g.AcosOp,
    "Atan": g.AtanOp, "Sinh": g.SinhOp, "Cosh": g.CoshOp, "Asinh": g.AsinhOp,
    "Acosh": g.AcoshOp, "Atanh": g.AtanhOp, "Ceil": g.CeilOp, "Floor": g.FloorOp,
    "Round": g.RoundOp, "Sign": g.SignOp, "Softplus": g.SoftplusOp, "Softsign": g.SoftsignOp,
    "Mish": g.MishOp, "Not": g.NotOp, "BitwiseNot": g.BitwiseNotOp, "IsNaN": g.IsNaNOp,
}  # fmt: skip

#: Unary ops with float attributes: op type -> (graph op, {attribute: default}).
_UNARY_WITH_FLOATS: dict[str, tuple[type[GraphOp], dict[str, float]]] = {
    "LeakyRelu": (g.LeakyReluOp, {"alpha": 0.01}),
    "HardSigmoid": (g.HardSigmoidOp, {"alpha": 0.2, "beta": 0.5}),
    "Elu": (g.EluOp, {"alpha": 1.0}),
    "Selu": (g.SeluOp, {"alpha": 1.67326319217681884765625, "gamma": 1.05070102214813232421875}),
    "Celu": (g.CeluOp, {"alpha": 1.0}),
    "ThresholdedRelu": (g.ThresholdedReluOp, {"alpha": 1.0}),
    "Shrink": (g.ShrinkOp, {"bias": 0.0, "lambd": 0.5}),
}

_BINARY: dict[str, type[GraphOp]] = {
    "Add": g.AddOp, "Sub": g.SubOp, "Mul": g.MulOp, "Div": g.DivOp, "Pow": g.PowOp,
    "Equal": g.EqualOp, "Less": g.LessOp, "Greater": g.GreaterOp,
    "GreaterOrEqual": g.GreaterEqualOp, "LessOrEqual": g.LessEqualOp,
    "And": g.AndOp, "Or": g.OrOp, "Xor": g.XorOp,
    "BitwiseAnd": g.BitwiseAndOp, "BitwiseOr": g.BitwiseOrOp, "BitwiseXor": g.BitwiseXorOp,
}  # fmt: skip

_VARIADIC: dict[str, type[GraphOp]] = {"Sum": g.AddOp, "Max": g.MaxOp, "Min": g.MinOp}


@converter(*_UNARY)
def convert_unary(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(_UNARY[ctx.op_type], ctx.tensor(0))]


@converter("Gelu")
def convert_gelu(ctx: NodeContext) -> list[Value]:
    approximate = ctx.attr_choice("approximate", "none", ("none", "tanh"))
    return [ctx.make1(g.GeluOp, ctx.tensor(0), approximate=approximate)]


@converter(*_UNARY_WITH_FLOATS)
def convert_unary_with_floats(ctx: NodeContext) -> list[Value]:
    cls, defaults = _UNARY_WITH_FLOATS[ctx.op_type]
    attrs = {name: ctx.attr_float(name, default) for name, default in defaults.items()}
    return [ctx.make1(cls, ctx.tensor(0), **attrs)]


@converter("Swish")
def convert_swish(ctx: NodeContext) -> list[Value]:
    """x * sigmoid(alpha * x) (opset 24)."""
    x = ctx.tensor(0)
    alpha = ctx.attr_float("alpha", 1.0)
    scaled = x if alpha == 1.0 else ctx.make1(g.MulOp, x, _const_scalar(ctx, alpha, "alpha"))
    return [ctx.make1(g.MulOp, x, ctx.make1(g.SigmoidOp, scaled))]


@converter("IsInf")
def convert_is_inf(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(
        g.IsInfOp, ctx.tensor(0),
        detect_positive=ctx.attr_int("detect_positive", 1),
        detect_negative=ctx.attr_int("detect_negative", 1),
    )]  # fmt: skip


@converter("Mod")
def convert_mod(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(g.ModOp, ctx.tensor(0), ctx.tensor(1), fmod=ctx.attr_int("fmod", 0))]


@converter("BitShift")
def convert_bit_shift(ctx: NodeContext) -> list[Value]:
    direction = ctx.attr_choice("direction", "", ("LEFT", "RIGHT")).lower()
    return [ctx.make1(g.BitShiftOp, ctx.tensor(0), ctx.tensor(1), direction=direction)]


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


@converter("Cast", "CastLike")
def convert_cast(ctx: NodeContext) -> list[Value]:
    """Cast names the target type; CastLike takes the element type of its second input (only
    its type: a constant first input folds even if the second is computed at run time)."""
    if ctx.op_type == "CastLike":
        to = element_type(ctx.dtype(1), f"input 1 ('target_type') of {ctx.op_type}")
        if ctx.is_const(0):
            value = ctx.const(0, "input")
            dtype = numpy_dtype_of(to)
            return [value != 0 if dtype == np.bool_ else value.astype(dtype)]
    else:
        to = ctx.element_type(ctx.attr_int("to", 0), "'to'")
    x = ctx.tensor(0)
    if x.type.element_type == to:  # type: ignore[attr-defined]
        return [x]
    return [ctx.make1(g.CastOp, x, to=to)]


@converter("BitCast")
def convert_bitcast(ctx: NodeContext) -> list[Value]:
    """The bits of each element as type `to`, of the same width (a bool is a byte)."""
    to = ctx.element_type(ctx.attr_int("to", 0), "'to'")
    x = ctx.tensor(0)
    if x.type.element_type == to:  # type: ignore[attr-defined]
        return [x]
    return [ctx.make1(g.BitcastOp, x, to=to)]


@converter(*_BINARY)
def convert_binary(ctx: NodeContext) -> list[Value]:
    return [ctx.make1(_BINARY[ctx.op_type], ctx.tensor(0), ctx.tensor(1))]


@converter(*_VARIADIC, "Mean")
def convert_variadic(ctx: NodeContext) -> list[Value]:
    """Sum/Max/Min of 1..N operands: a left-to-right chain of the binary op; Mean: the Sum
    divided by N."""
    operands = [ctx.tensor(i) for i in range(len(ctx.inputs)) if ctx.has_input(i)]
    if not operands:
        raise ctx.error("needs at least one input")
    result = operands[0]
    for operand in operands[1:]:
        result = ctx.make1(_VARIADIC.get(ctx.op_type, g.AddOp), result, operand)
    if ctx.op_type == "Mean" and len(operands) > 1:
        count = ctx.materialize(np.array(len(operands), ctx.dtype(0)), f"{ctx.node.output[0]}_count")
        result = ctx.make1(g.DivOp, result, count)
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


def _const_scalar(ctx: NodeContext, value: float, name: str) -> SSAValue:
    """A rank-0 constant of input 0's element type (epsilons, ones)."""
    return ctx.materialize(np.array(value, ctx.dtype(0)), f"{ctx.node.output[0]}_{name}")


def _per_channel(ctx: NodeContext, i: int, shape: Sequence[int]) -> SSAValue:
    """Input `i` (a per-channel scale or bias) reshaped to broadcast against the channel
    dimension of a tensor whose trailing dims are `shape`."""
    return ctx.make1(g.ReshapeOp, ctx.tensor(i), shape=list(shape))


@converter("InstanceNormalization")
def convert_instance_norm(ctx: NodeContext) -> list[Value]:
    """y = layer_norm over the spatial dims (unit scale), then the per-channel scale and bias:
    graph.layer_norm normalizes dims [axis, rank), and its own scale would be per pixel."""
    shape = ctx.shape(0)
    if len(shape) < 3:
        raise ctx.error(f"input must have batch, channel and spatial dims; got rank {len(shape)}")
    one = _const_scalar(ctx, 1.0, "one")
    norm = ctx.make(g.LayerNormOp, ctx.tensor(0), one, None, axis=2,
                    epsilon=ctx.attr_float("epsilon", 1e-5)).results[0]  # fmt: skip
    channels = [shape[1]] + [1] * (len(shape) - 2)
    scaled = ctx.make1(g.MulOp, norm, _per_channel(ctx, 1, channels))
    return [ctx.make1(g.AddOp, scaled, _per_channel(ctx, 2, channels))]


@converter("GroupNormalization")
def convert_group_norm(ctx: NodeContext) -> list[Value]:
    """Each group of C/G channels is normalized over its channels and pixels: a reshape to
    [N, G, C/G * pixels] and a layer_norm on the last axis. The scale and bias are per group
    (shape [G], opset 18) or per channel ([C], opset 21), applied on [N, G, C/G, pixels]."""
    shape = ctx.shape(0)
    groups = ctx.attr_int("num_groups", 0)
    if len(shape) < 2:
        raise ctx.error(f"input must have batch and channel dims; got rank {len(shape)}")
    if groups <= 0 or shape[1] % groups:
        raise ctx.error(f"num_groups {groups} must be positive and divide the {shape[1]} channels")
    n, c, pixels = shape[0], shape[1], math.prod(shape[2:])
    grouped = ctx.make1(g.ReshapeOp, ctx.tensor(0), shape=[n, groups, c // groups * pixels])
    norm = ctx.make(g.LayerNormOp, grouped, _const_scalar(ctx, 1.0, "one"), None, axis=2,
                    epsilon=ctx.attr_float("epsilon", 1e-5)).results[0]  # fmt: skip
    norm = ctx.make1(g.ReshapeOp, norm, shape=[n, groups, c // groups, pixels])
    params = []
    for i in (1, 2):
        size = ctx.shape(i)
        if size not in ((c,), (groups,)):
            raise ctx.error(
                f"input {i} must have shape [{c}] (or [{groups}] before opset 21), got {list(size)}"
            )
        params.append(_per_channel(ctx, i, [groups, c // groups if size == (c,) else 1, 1]))
    y = ctx.make1(g.AddOp, ctx.make1(g.MulOp, norm, params[0]), params[1])
    return [ctx.make1(g.ReshapeOp, y, shape=list(shape))]


def _mean_over(ctx: NodeContext, x: SSAValue, axes: Sequence[int]) -> SSAValue:
    return ctx.make1(g.ReduceMeanOp, x, axes=list(axes), keepdims=1)


@converter("RMSNormalization")
def convert_rms_norm(ctx: NodeContext) -> list[Value]:
    """y = x / sqrt(mean(x^2 over dims [axis, rank)) + epsilon) * scale."""
    rank = ctx.rank(0)
    axis = ctx.axis(ctx.attr_int("axis", -1), rank)
    x = ctx.tensor(0)
    mean_square = _mean_over(ctx, ctx.make1(g.MulOp, x, x), range(axis, rank))
    eps = _const_scalar(ctx, ctx.attr_float("epsilon", 1e-5), "epsilon")
    rms = ctx.make1(g.SqrtOp, ctx.make1(g.AddOp, mean_square, eps))
    return [ctx.make1(g.MulOp, ctx.make1(g.DivOp, x, rms), ctx.tensor(1))]


@converter("MeanVarianceNormalization")
def convert_mean_variance_norm(ctx: NodeContext) -> list[Value]:
    """y = (x - mean) / (sqrt(variance) + 1e-9) over `axes` (default [0, 2, 3]), as ONNX's
    function body; the variance is the mean of squared deviations (no cancellation)."""
    rank = ctx.rank(0)
    axes = ctx.axes(ctx.attr_ints("axes", [0, 2, 3]) or [], rank)
    x = ctx.tensor(0)
    centered = ctx.make1(g.SubOp, x, _mean_over(ctx, x, axes))
    variance = _mean_over(ctx, ctx.make1(g.MulOp, centered, centered), axes)
    std = ctx.make1(g.AddOp, ctx.make1(g.SqrtOp, variance), _const_scalar(ctx, 1e-9, "epsilon"))
    return [ctx.make1(g.DivOp, centered, std)]


@converter("LpNormalization")
def convert_lp_norm(ctx: NodeContext) -> list[Value]:
    """y = x / ||x||_p along `axis` (p = 1 or 2); a zero vector stays zero (ONNX's reference
    and ONNX Runtime give 0, not 0/0)."""
    p = ctx.attr_int("p", 2)
    if p not in (1, 2):
        raise ctx.error(f"p must be 1 or 2, got {p}")
    axis = ctx.axis(ctx.attr_int("axis", -1), ctx.rank(0))
    x = ctx.tensor(0)
    if p == 1:
        norm = ctx.make1(g.ReduceSumOp, ctx.make1(g.AbsOp, x), axes=[axis], keepdims=1)
    else:
        squares = ctx.make1(g.ReduceSumOp, ctx.make1(g.MulOp, x, x), axes=[axis], keepdims=1)
        norm = ctx.make1(g.SqrtOp, squares)
    zero = ctx.make1(g.EqualOp, norm, _const_scalar(ctx, 0.0, "zero"))
    norm = ctx.make1(g.WhereOp, zero, _const_scalar(ctx, 1.0, "one"), norm)
    return [ctx.make1(g.DivOp, x, norm)]


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
    """The Indices output, when used, is graph.max_pool_indices beside graph.max_pool."""
    window = _pool_common(ctx)
    y = ctx.make1(g.MaxPoolOp, ctx.tensor(0), **window)
    if not ctx.output_used(1):
        return [y]
    order = ctx.attr_int("storage_order", 0)
    if order not in (0, 1):
        raise ctx.error(f"storage_order must be 0 or 1, got {order}")
    return [y, ctx.make1(g.MaxPoolIndicesOp, ctx.tensor(0), **window, storage_order=order)]


@converter("MaxUnpool")
def convert_max_unpool(ctx: NodeContext) -> list[Value]:
    """output_shape (input 2, the whole result shape) must be known at import time."""
    kernel = ctx.attr_ints("kernel_shape")
    if kernel is None:
        raise ctx.error("missing required attribute kernel_shape")
    n = len(kernel)
    props: dict[str, object] = {
        "kernel_shape": kernel,
        "strides": ctx.attr_ints("strides", [1] * n),
        "pads": ctx.attr_ints("pads", [0] * (2 * n)),
    }
    if ctx.dtype(1) != np.dtype(np.int64):
        raise ctx.error(f"indices must be int64, got {ctx.dtype(1)}")
    if ctx.has_input(2):
        shape = [int(v) for v in ctx.const(2, "output_shape").reshape(-1)]
        if shape[:2] != list(ctx.shape(0)[:2]):
            raise ctx.error(f"output_shape {shape} must keep the input's N and C {list(ctx.shape(0)[:2])}")
        props["output"] = shape[2:]
    return [ctx.make1(g.MaxUnpoolOp, ctx.tensor(0), ctx.tensor(1), **props)]


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


def _abs_power(ctx: NodeContext, p: int) -> SSAValue:
    """|x|^p of input 0 (x * x for p = 2)."""
    x = ctx.tensor(0)
    if p == 2:
        return ctx.make1(g.MulOp, x, x)
    magnitude = ctx.make1(g.AbsOp, x)
    return magnitude if p == 1 else ctx.make1(g.PowOp, magnitude, _const_scalar(ctx, p, "p"))


def _root(ctx: NodeContext, total: SSAValue, p: int) -> SSAValue:
    if p == 1:
        return total
    if p == 2:
        return ctx.make1(g.SqrtOp, total)
    return ctx.make1(g.PowOp, total, _const_scalar(ctx, 1.0 / p, "inv_p"))


def _lp_order(ctx: NodeContext) -> int:
    p = ctx.attr_int("p", 2)
    if p <= 0:
        raise ctx.error(f"p must be positive, got {p}")
    return p


@converter("LpPool")
def convert_lp_pool(ctx: NodeContext) -> list[Value]:
    """(sum of |x|^p over each window)^(1/p), padding counting as zeros: an average pool of
    |x|^p that counts the padding, times the window size."""
    p = _lp_order(ctx)
    window = _pool_common(ctx)
    mean = ctx.make1(g.AvgPoolOp, _abs_power(ctx, p), **window, count_include_pad=1)
    size = _const_scalar(ctx, math.prod(window["kernel_shape"]), "window")  # type: ignore[arg-type]
    return [_root(ctx, ctx.make1(g.MulOp, mean, size), p)]


@converter("GlobalLpPool")
def convert_global_lp_pool(ctx: NodeContext) -> list[Value]:
    p = _lp_order(ctx)
    spatial = list(range(2, ctx.rank(0)))
    total = ctx.make1(g.ReduceSumOp, _abs_power(ctx, p), axes=spatial, keepdims=1)
    return [_root(ctx, total, p)]


# --------------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------------

_REDUCE: dict[str, tuple[type[GraphOp], int]] = {
    # op type -> (graph op, first opset taking axes as an input rather than an attribute)
    "ReduceSum": (g.ReduceSumOp, 13),
    "ReduceMean": (g.ReduceMeanOp, 18),
    "ReduceMax": (g.ReduceMaxOp, 18),
    "ReduceMin": (g.ReduceMinOp, 18),
    "ReduceProd": (g.ReduceProdOp, 18),
    "ReduceL1": (g.ReduceL1Op, 18),
    "ReduceL2": (g.ReduceL2Op, 18),
    "ReduceSumSquare": (g.ReduceSumSquareOp, 18),
    "ReduceLogSum": (g.ReduceLogSumOp, 18),
    "ReduceLogSumExp": (g.ReduceLogSumExpOp, 18),
}


def _reduce_nothing(ctx: NodeContext) -> Value:
    """A reduction over no axes (noop_with_empty_axes=1) or of a scalar: its elementwise
    part alone, as ONNX Runtime and the ONNX reference compute it: |x| for ReduceL1 and
    ReduceL2, x * x for ReduceSumSquare, log(x) for ReduceLogSum; x itself for the others."""
    x = ctx.tensor(0)
    if ctx.op_type in ("ReduceL1", "ReduceL2"):
        return ctx.make1(g.AbsOp, x)
    if ctx.op_type == "ReduceSumSquare":
        return ctx.make1(g.MulOp, x, x)
    if ctx.op_type == "ReduceLogSum":
        return ctx.make1(g.LogOp, x)
    return x


@converter(*_REDUCE)
def convert_reduce(ctx: NodeContext) -> list[Value]:
    """No axes means all axes, unless noop_with_empty_axes=1 makes the node reduce nothing."""
    cls, axes_input_from = _REDUCE[ctx.op_type]
    rank = ctx.rank(0)
    if ctx.opset >= axes_input_from:
        given = ctx.optional_const(1, "axes")
        axes = None if given is None else [int(a) for a in given.reshape(-1)]
    else:
        axes = ctx.attr_ints("axes")
    if not axes:
        if ctx.attr_int("noop_with_empty_axes", 0) or rank == 0:
            return [_reduce_nothing(ctx)]
        axes = list(range(rank))
    keepdims = ctx.attr_int("keepdims", 1)
    return [ctx.make1(cls, ctx.tensor(0), axes=ctx.axes(axes, rank), keepdims=keepdims)]


@converter("ArgMax", "ArgMin")
def convert_arg_extreme(ctx: NodeContext) -> list[Value]:
    """`axis` defaults to 0; select_last_index (opset 12+) to 0, the first index."""
    cls = g.ArgMaxOp if ctx.op_type == "ArgMax" else g.ArgMinOp
    axis = ctx.axis(ctx.attr_int("axis", 0), ctx.rank(0))
    last = ctx.attr_int("select_last_index", 0) if ctx.opset >= 12 else 0
    return [ctx.make1(cls, ctx.tensor(0), axis=axis, keepdims=ctx.attr_int("keepdims", 1),
                      select_last_index=last)]  # fmt: skip
