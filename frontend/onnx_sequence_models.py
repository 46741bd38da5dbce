"""ONNX converters for the building blocks of newer sequence models (opsets 23-28), each a
short chain of graph ops; none has a graph op of its own.

    RotaryEmbedding      gather of the cos/sin caches at position_ids, slices of the rotated
                         part (halves or even/odd lanes), x1·cos - x2·sin and x1·sin + x2·cos,
                         concat (and a reshape back to interleaved lanes)
    SwiGLU               a · sigmoid(alpha · a) · b
    CausalConvWithState  a depthwise graph.conv (group = channels) over the past state (or a
                         left zero pad) and the input, optional SiLU; the new state is the last
                         k - 1 steps, sliced
    TensorScatter        graph.where(written, graph.gather_elements(update, source), past):
                         cache position m receives update step m - write_index (mod the cache
                         length in circular mode) where that step exists

LinearAttention, the other newest-opset sequence op, is in `onnx_linear_attention.py`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.constant import element_type_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter


def _const(ctx: NodeContext, array: np.ndarray, tag: str) -> SSAValue:
    return ctx.materialize(array, f"{ctx.node.output[0]}_{tag}")


def _shape(x: SSAValue) -> tuple[int, ...]:
    assert isinstance(x.type, TensorType)
    return tuple(x.type.get_shape())


def _slice(
    ctx: NodeContext, x: SSAValue, axis: int, start: int, stop: int, step: int = 1
) -> SSAValue:
    """x[..., start:stop:step, ...] along `axis` (bounds within the dim)."""
    shape = _shape(x)
    if (start, stop, step) == (0, shape[axis], 1):
        return x
    starts, ends, steps = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], ends[axis], steps[axis] = start, stop, step
    return ctx.make1(g.SliceOp, x, starts=starts, ends=ends, steps=steps)


def _reshape(ctx: NodeContext, x: SSAValue, shape: list[int]) -> SSAValue:
    return x if list(_shape(x)) == shape else ctx.make1(g.ReshapeOp, x, shape=shape)


def _float_input(ctx: NodeContext, i: int, what: str) -> np.dtype:
    dtype = ctx.dtype(i)
    if dtype.kind != "f" and dtype.name != "bfloat16":
        raise ctx.error(f"{what} must be a float tensor, got {dtype}")
    return dtype


# --------------------------------------------------------------------------------------------
# RotaryEmbedding (opset 23)
# --------------------------------------------------------------------------------------------


@converter("RotaryEmbedding")
def convert_rotary_embedding(ctx: NodeContext) -> list[Value]:
    """Rotate the first rotary_embedding_dim (default: all) lanes of each head by the angles
    of its position: pairs (x1, x2) are the two halves of those lanes, or the even and odd
    lanes with interleaved=1. X is [B, heads, S, D], or [B, S, heads·D] with num_heads."""
    shape = ctx.shape(0)
    dtype = _float_input(ctx, 0, "X")
    x = ctx.tensor(0)
    if len(shape) == 4:
        batch, _, seq, head = shape
        work = list(shape)
    elif len(shape) == 3:
        heads = ctx.attr_int("num_heads", 0)
        batch, seq, hidden = shape
        if heads <= 0 or hidden % heads:
            raise ctx.error(f"a 3-D input needs num_heads dividing its hidden size {hidden}, "
                            f"got num_heads={heads}")  # fmt: skip
        head = hidden // heads
        work = [batch, seq, heads, head]
        x = _reshape(ctx, x, work)
    else:
        raise ctx.error(f"X must be 3-D or 4-D, got rank {len(shape)}")
    rotary = ctx.attr_int("rotary_embedding_dim", 0) or head
    if rotary % 2 or not 0 < rotary <= head:
        raise ctx.error(f"rotary_embedding_dim {rotary} must be even and at most the head size "
                        f"{head}")  # fmt: skip
    half = rotary // 2
    cos, sin = (_cache(ctx, i, batch, seq, half, dtype) for i in (1, 2))
    # [B, S, half] broadcasting against the working layout's [.., S, .., half]
    cache_shape = [batch, 1, seq, half] if len(shape) == 4 else [batch, seq, 1, half]
    cos, sin = (_reshape(ctx, c, cache_shape) for c in (cos, sin))

    last = 3
    rotated = _slice(ctx, x, last, 0, rotary)
    interleaved = bool(ctx.attr_int("interleaved", 0))
    if interleaved:
        x1, x2 = _slice(ctx, rotated, last, 0, rotary, 2), _slice(ctx, rotated, last, 1, rotary, 2)
    else:
        x1, x2 = _slice(ctx, rotated, last, 0, half), _slice(ctx, rotated, last, half, rotary)
    real = ctx.make1(g.SubOp, ctx.make1(g.MulOp, cos, x1), ctx.make1(g.MulOp, sin, x2))
    imag = ctx.make1(g.AddOp, ctx.make1(g.MulOp, sin, x1), ctx.make1(g.MulOp, cos, x2))
    if interleaved:  # lanes (real_0, imag_0, real_1, imag_1, ...)
        pair = [*work[:3], half, 1]
        lanes = ctx.make1(g.ConcatOp, [_reshape(ctx, p, pair) for p in (real, imag)], axis=4)
        parts = [_reshape(ctx, lanes, [*work[:3], rotary])]
    else:
        parts = [real, imag]
    if rotary < head:
        parts.append(_slice(ctx, x, last, rotary, head))
    y = parts[0] if len(parts) == 1 else ctx.make1(g.ConcatOp, parts, axis=last)
    return [_reshape(ctx, y, list(shape))]


def _cache(ctx: NodeContext, i: int, batch: int, seq: int, half: int, dtype: np.dtype) -> SSAValue:
    """cos_cache or sin_cache as [B, S, half]: gathered at position_ids when given."""
    what = ("cos_cache", "sin_cache")[i - 1]
    shape = ctx.shape(i)
    if ctx.dtype(i) != dtype:
        raise ctx.error(f"{what} has element type {ctx.dtype(i)}, X {dtype}")
    if ctx.has_input(3):
        if ctx.shape(3) != (batch, seq) or len(shape) != 2 or shape[1] != half:
            raise ctx.error(
                f"with position_ids {list(ctx.shape(3))} (must be [{batch}, {seq}]), {what} "
                f"must be [max_position + 1, {half}], got {list(shape)}"
            )
        return ctx.make1(g.GatherOp, ctx.tensor(i), ctx.tensor(3), axis=0)
    if shape != (batch, seq, half):
        raise ctx.error(f"without position_ids, {what} must be [{batch}, {seq}, {half}], got "
                        f"{list(shape)}")  # fmt: skip
    return ctx.tensor(i)


# --------------------------------------------------------------------------------------------
# SwiGLU (opset 28)
# --------------------------------------------------------------------------------------------


@converter("SwiGLU")
def convert_swiglu(ctx: NodeContext) -> list[Value]:
    """Swish_alpha(A) · B = A · sigmoid(alpha · A) · B; A and B of one shape (no
    broadcasting)."""
    _float_input(ctx, 0, "A")
    if ctx.shape(0) != ctx.shape(1) or ctx.dtype(0) != ctx.dtype(1):
        raise ctx.error(f"A ({list(ctx.shape(0))}, {ctx.dtype(0)}) and B ({list(ctx.shape(1))}, "
                        f"{ctx.dtype(1)}) must have one shape and element type")  # fmt: skip
    a = ctx.tensor(0)
    alpha = ctx.attr_float("alpha", 1.0)
    scaled = a
    if alpha != 1.0:
        scaled = ctx.make1(g.MulOp, a, _const(ctx, np.array(alpha, ctx.dtype(0)), "alpha"))
    gate = ctx.make1(g.MulOp, a, ctx.make1(g.SigmoidOp, scaled))
    return [ctx.make1(g.MulOp, gate, ctx.tensor(1))]


# --------------------------------------------------------------------------------------------
# CausalConvWithState (opset 27)
# --------------------------------------------------------------------------------------------


@converter("CausalConvWithState")
def convert_causal_conv_with_state(ctx: NodeContext) -> list[Value | None]:
    """output = act(depthwise conv1d(past_state ++ input, weight) + bias), 'valid', so step t
    sees steps t - k + 1 .. t; present_state = the last k - 1 steps of past_state ++ input. A
    missing past_state is zeros: then the conv pads k - 1 zeros on the left itself."""
    shape = ctx.shape(0)
    dtype = _float_input(ctx, 0, "input")
    if len(shape) != 3 or ctx.rank(1) != 3:
        raise ctx.error(f"input and weight must be rank 3, got {list(shape)} and "
                        f"{list(ctx.shape(1))}")  # fmt: skip
    batch, channels, length = shape
    k = ctx.shape(1)[2]
    if ctx.shape(1)[:2] != (channels, 1) or k < 1:
        raise ctx.error(f"weight must be [{channels}, 1, k] (depthwise), got {list(ctx.shape(1))}")
    activation = ctx.attr_choice("activation", "none", ("none", "silu", "swish"))
    x, weight = ctx.tensor(0), ctx.tensor(1)
    bias = ctx.tensor(2) if ctx.has_input(2) else None
    state_shape = [batch, channels, k - 1]
    if ctx.has_input(3):
        if list(ctx.shape(3)) != state_shape:
            raise ctx.error(f"past_state must be {state_shape}, got {list(ctx.shape(3))}")
        padded = ctx.make1(g.ConcatOp, [ctx.tensor(3), x], axis=2) if k > 1 else x
        pads = [0, 0]
    else:
        padded, pads = x, [k - 1, 0]
    y = ctx.make1(g.ConvOp, padded, weight, bias, strides=[1], pads=pads, dilations=[1],
                  group=channels)  # fmt: skip
    if activation != "none":  # in f32 (the reference's), whatever the element type
        wide = y if dtype == np.float32 else ctx.make1(g.CastOp, y, to=element_type_of(np.float32))
        wide = ctx.make1(g.MulOp, wide, ctx.make1(g.SigmoidOp, wide))
        y = wide if dtype == np.float32 else ctx.make1(g.CastOp, wide, to=element_type_of(dtype))
    if not ctx.output_used(1):
        return [y, None]
    if k == 1:
        return [y, np.zeros(state_shape, dtype)]
    if not ctx.has_input(3) and length < k - 1:  # the zeros of the pad reach into the state
        zeros = _const(ctx, np.zeros([batch, channels, k - 1 - length], dtype), "zeros")
        padded = ctx.make1(g.ConcatOp, [zeros, x], axis=2)
    total = _shape(padded)[2]
    return [y, _slice(ctx, padded, 2, total - (k - 1), total)]


# --------------------------------------------------------------------------------------------
# TensorScatter (opset 24)
# --------------------------------------------------------------------------------------------


@converter("TensorScatter")
def convert_tensor_scatter(ctx: NodeContext) -> list[Value]:
    """present = past_cache with update's steps 0..S-1 written at cache positions
    write_indices[b] + s along `axis` (modulo the cache length in circular mode). Cache
    position m reads update step m - write_indices[b] (mod the length) where that step is in
    0..S-1 and keeps the past value elsewhere: a gather and a select, O(cache)."""
    past, update = ctx.shape(0), ctx.shape(1)
    rank = len(past)
    axis = ctx.axis(ctx.attr_int("axis", -2), rank)
    mode = ctx.attr_choice("mode", "linear", ("linear", "circular"))
    if axis == 0:
        raise ctx.error("axis must not be 0 (the batch dimension)")
    outside = [d for d in range(rank) if d != axis]
    if (
        len(update) != rank
        or any(update[d] != past[d] for d in outside)
        or update[axis] > past[axis]
    ):
        raise ctx.error(
            f"update {list(update)} must match past_cache {list(past)} outside axis {axis} "
            "and be no longer along it"
        )
    if ctx.dtype(0) != ctx.dtype(1):
        raise ctx.error(f"past_cache ({ctx.dtype(0)}) and update ({ctx.dtype(1)}) differ in type")
    cache, steps = past[axis], update[axis]
    if steps == 0:
        return [ctx.tensor(0)]
    if not ctx.has_input(2):  # every batch entry writes at 0
        if steps == cache:
            return [ctx.tensor(1)]
        rest = _slice(ctx, ctx.tensor(0), axis, steps, cache)
        return [ctx.make1(g.ConcatOp, [ctx.tensor(1), rest], axis=axis)]
    if ctx.shape(2) != (past[0],) or ctx.dtype(2) != np.int64:
        raise ctx.error(f"write_indices must be int64 of shape [{past[0]}], got "
                        f"{ctx.dtype(2)} {list(ctx.shape(2))}")  # fmt: skip
    position_shape = [cache if d == axis else 1 for d in range(rank)]
    positions = np.arange(cache, dtype=np.int64).reshape(position_shape)
    start = _reshape(ctx, ctx.tensor(2), [past[0]] + [1] * (rank - 1))
    source = ctx.make1(g.SubOp, _const(ctx, positions, "positions"), start)
    if mode == "circular":
        source = ctx.make1(g.ModOp, source, _const(ctx, np.array(cache, np.int64), "length"))
    zero = _const(ctx, np.array(0, np.int64), "zero")
    written = ctx.make1(
        g.AndOp, ctx.make1(g.GreaterEqualOp, source, zero),
        ctx.make1(g.LessOp, source, _const(ctx, np.array(steps, np.int64), "steps")),
    )  # fmt: skip
    index = ctx.make1(g.WhereOp, written, source, zero)
    index = ctx.make1(g.ExpandOp, index, shape=list(past))
    taken = ctx.make1(g.GatherElementsOp, ctx.tensor(1), index, axis=axis)
    return [ctx.make1(g.WhereOp, written, taken, ctx.tensor(0))]
