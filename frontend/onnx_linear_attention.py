"""ONNX LinearAttention (opset 27) as graph ops; no graph op of its own.

The op runs a recurrence over the T tokens on a state S [B, Hkv, dk, dv] (per kv head):

    linear       S_t = S_{t-1} + k_t v_tᵀ
    gated        S_t = e^{g_t} ⊙ S_{t-1} + k_t v_tᵀ             (g_t per head or per key dim)
    delta        S_t = S_{t-1} + β_t k_t (v_t - S_{t-1}ᵀ k_t)ᵀ
    gated_delta  S_t = e^{g_t} ⊙ S_{t-1} + β_t k_t (v_t - (e^{g_t} ⊙ S_{t-1})ᵀ k_t)ᵀ
    o_t = scale · q_tᵀ S_t                               (query head h reads kv head h // g)

The first two are linear in the tokens' contributions, so they have a closed form, built
here as causal (decayed) attention with G = graph.cum_sum(g) along T:

    o   = scale · [ (q ⊙ e^{G}) S_0  +  (mask ⊙ W) v ]
    W[t, i] = Σ_d q_t[d] k_i[d] e^{G_t[d] - G_i[d]}         (i <= t; the exponent <= 0 for decays)
    S_T = e^{G_T} ⊙ S_0 + (k ⊙ e^{G_T - G})ᵀ v

(with per-head decay, W = (q kᵀ) ⊙ e^{G_t - G_i}: one matmul; with per-key-dim decay, a
product summed over dk). The delta rules correct each write by what the state already
holds, a true recurrence: minitvm has no loop construct, so it is unrolled over the static T,
one step per token, in the reference's order (at most `MAX_DELTA_STEPS` tokens; decoding
is T = 1). Everything is computed in f32, as the reference does, and cast back; query heads
share their kv head's state without copying it (the grouped layout [B, Hkv, g, T, d]).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.base import GraphOp
from minitvm.dialects.graph.constant import element_type_of, numpy_dtype_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter

_QUERY, _KEY, _VALUE, _PAST, _DECAY, _BETA = range(6)

#: The most tokens a delta or gated_delta node may process at once: each is ~12 graph ops
#: (a few kernels after fusion), unrolled, and compile time grows with them (~10 s at 64
#: tokens, ~45 s at 256). Decoding is one token; a longer prompt can be prefilled in chunks.
MAX_DELTA_STEPS = 128

F32 = np.dtype(np.float32)


def _shape(x: SSAValue) -> tuple[int, ...]:
    assert isinstance(x.type, TensorType)
    return tuple(x.type.get_shape())


class _Ops:
    """Appends the node's graph ops; shorthand for the chain below."""

    def __init__(self, ctx: NodeContext):
        self.ctx = ctx

    def __call__(
        self, cls: type[GraphOp], *operands: SSAValue | Sequence[SSAValue] | None, **props: object
    ) -> SSAValue:
        return self.ctx.make1(cls, *operands, **props)

    def const(self, array: np.ndarray, tag: str) -> SSAValue:
        return self.ctx.materialize(array, f"{self.ctx.node.output[0]}_{tag}")

    def reshape(self, x: SSAValue, shape: list[int]) -> SSAValue:
        return x if list(_shape(x)) == shape else self(g.ReshapeOp, x, shape=shape)

    def transpose(self, x: SSAValue, perm: list[int]) -> SSAValue:
        return x if perm == sorted(perm) else self(g.TransposeOp, x, perm=perm)

    def cast(self, x: SSAValue, dtype: np.dtype) -> SSAValue:
        assert isinstance(x.type, TensorType)
        same = numpy_dtype_of(x.type.element_type) == dtype
        return x if same else self(g.CastOp, x, to=element_type_of(dtype))

    def f32(self, x: SSAValue) -> SSAValue:
        return self.cast(x, F32)

    def heads(self, x: SSAValue, heads: int) -> SSAValue:
        """[B, T, heads·d] -> [B, heads, T, d], in f32."""
        b, t, hd = _shape(x)
        x = self.reshape(self.f32(x), [b, t, heads, hd // heads])
        return self.transpose(x, [0, 2, 1, 3])


@converter("LinearAttention")
def convert_linear_attention(ctx: NodeContext) -> list[Value | None]:
    rule = ctx.attr_choice("update_rule", "gated_delta", ("linear", "gated", "delta",
                                                          "gated_delta"))  # fmt: skip
    gating, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    for i, name, needed in ((_DECAY, "decay", gating), (_BETA, "beta", delta)):
        if ctx.has_input(i) != needed:
            raise ctx.error(f"update_rule '{rule}' {'requires' if needed else 'forbids'} {name}")
    q_heads, kv_heads = ctx.attr_int("q_num_heads", 0), ctx.attr_int("kv_num_heads", 0)
    if kv_heads <= 0 or q_heads <= 0 or q_heads % kv_heads:
        raise ctx.error(f"q_num_heads ({q_heads}) must be a positive multiple of kv_num_heads "
                        f"({kv_heads})")  # fmt: skip
    shapes = [ctx.shape(i) for i in (_QUERY, _KEY, _VALUE)]
    if any(len(s) != 3 for s in shapes):
        raise ctx.error(f"query, key and value must be [B, T, heads·d], got {shapes}")
    (batch, steps, q_hidden), k_shape, v_shape = shapes
    d_k, d_v = q_hidden // q_heads, v_shape[2] // kv_heads
    fits = k_shape == (batch, steps, kv_heads * d_k) and v_shape[:2] == (batch, steps)
    if q_hidden % q_heads or v_shape[2] % kv_heads or not fits:
        raise ctx.error(
            f"query {list(shapes[0])}, key {list(k_shape)} and value {list(v_shape)} do not fit "
            f"{q_heads} query and {kv_heads} kv heads: key must be [{batch}, {steps}, "
            f"{kv_heads}·d_k] with d_k = {q_hidden}/{q_heads}"
        )
    dtype = ctx.dtype(_QUERY)
    if dtype not in (np.float16, np.float32) and dtype.name != "bfloat16":
        raise ctx.error(f"query must be f16, bf16 or f32, got {dtype}")
    state_shape = [batch, kv_heads, d_k, d_v]
    if ctx.has_input(_PAST) and list(ctx.shape(_PAST)) != state_shape:
        raise ctx.error(f"past_state must be {state_shape}, got {list(ctx.shape(_PAST))}")
    if delta and steps > MAX_DELTA_STEPS:
        raise ctx.error(
            f"update_rule '{rule}' is a sequential recurrence, unrolled over the {steps} tokens; "
            f"at most {MAX_DELTA_STEPS} are supported (minitvm has no loop construct)"
        )
    # 1/sqrt(d_k) in IEEE arithmetic: +inf for d_k = 0, whose 0 * inf outputs are NaN, as in
    # ONNX's reference and ONNX Runtime
    scale = ctx.attr_float("scale", 0.0) or (1 / math.sqrt(d_k) if d_k else math.inf)

    ops = _Ops(ctx)
    group = q_heads // kv_heads
    q = ops.reshape(ops.heads(ctx.tensor(_QUERY), q_heads), [batch, kv_heads, group, steps, d_k])
    k, v = ops.heads(ctx.tensor(_KEY), kv_heads), ops.heads(ctx.tensor(_VALUE), kv_heads)
    past = ops.f32(ctx.tensor(_PAST)) if ctx.has_input(_PAST) else None
    decay = _decay(ctx, ops, batch, steps, kv_heads, d_k) if gating else None
    if delta:
        beta = _beta(ctx, ops, batch, steps, kv_heads)
        out, state = _recurrence(ops, q, k, v, past, decay, beta, state_shape)
    else:
        out, state = _closed_form(ops, q, k, v, past, decay, state_shape)

    out = ops(g.MulOp, out, ops.const(np.array(scale, F32), "scale"))  # [B, Hkv, g, T, dv]
    out = ops.reshape(out, [batch, q_heads, steps, d_v])
    out = ops.reshape(ops.transpose(out, [0, 2, 1, 3]), [batch, steps, q_heads * d_v])
    state_dtype = ctx.dtype(_PAST) if ctx.has_input(_PAST) else dtype
    return [ops.cast(out, dtype), ops.cast(state, state_dtype) if ctx.output_used(1) else None]


def _decay(
    ctx: NodeContext, ops: _Ops, batch: int, steps: int, kv_heads: int, d_k: int
) -> SSAValue:
    """decay [B, T, Hkv] or [B, T, Hkv·d_k] as [B, Hkv, T, 1 or d_k], f32."""
    last = ctx.shape(_DECAY)[-1] if ctx.rank(_DECAY) == 3 else -1
    if ctx.shape(_DECAY)[:2] != (batch, steps) or last not in (kv_heads, kv_heads * d_k):
        raise ctx.error(f"decay must be [{batch}, {steps}, {kv_heads}] or [{batch}, {steps}, "
                        f"{kv_heads * d_k}], got {list(ctx.shape(_DECAY))}")  # fmt: skip
    return ops.heads(ctx.tensor(_DECAY), kv_heads)


def _beta(ctx: NodeContext, ops: _Ops, batch: int, steps: int, kv_heads: int) -> SSAValue:
    """beta [B, T, Hkv or 1] as [B, Hkv or 1, T, 1], f32."""
    last = ctx.shape(_BETA)[-1] if ctx.rank(_BETA) == 3 else -1
    if ctx.shape(_BETA)[:2] != (batch, steps) or last not in (kv_heads, 1):
        raise ctx.error(f"beta must be [{batch}, {steps}, {kv_heads}] or [{batch}, {steps}, 1], "
                        f"got {list(ctx.shape(_BETA))}")  # fmt: skip
    return ops.heads(ctx.tensor(_BETA), last)


def _closed_form(
    ops: _Ops,
    q: SSAValue,
    k: SSAValue,
    v: SSAValue,
    past: SSAValue | None,
    decay: SSAValue | None,
    state_shape: list[int],
) -> tuple[SSAValue, SSAValue]:
    """linear and gated: the unscaled output [B, Hkv, g, T, dv] and the final state."""
    batch, kv_heads, _, steps, d_k = _shape(q)
    causal = np.tril(np.ones((steps, steps), np.bool_))
    k5, v5 = (ops.reshape(x, [batch, kv_heads, 1, *_shape(x)[2:]]) for x in (k, v))
    # weights [B, Hkv, g, T, T]; keys: k_i · e^{G_T - G_i}; reads: q_t · e^{G_t}; final: e^{G_T}
    final: SSAValue | None = None
    if decay is None:
        scores = ops(g.MatMulOp, q, ops.transpose(k5, [0, 1, 2, 4, 3]))
        zero = ops.const(np.array(0, F32), "zero")
        weights = ops(g.WhereOp, ops.const(causal, "causal"), scores, zero)
        keys, reads = k, q
    else:
        per_dim = _shape(decay)[3]  # 1 (per head) or d_k
        cum = ops(g.CumSumOp, decay, axis=2)  # G [B, Hkv, T, per_dim]
        neg_inf = ops.const(np.array(-np.inf, F32), "neg_inf")
        if per_dim == 1:
            diff = ops(g.SubOp, cum, ops.transpose(cum, [0, 1, 3, 2]))  # G_t - G_i
            gains = ops(g.ExpOp, ops(g.WhereOp, ops.const(causal, "causal"), diff, neg_inf))
            scores = ops(g.MatMulOp, q, ops.transpose(k5, [0, 1, 2, 4, 3]))
            weights = ops(g.MulOp, scores, ops.reshape(gains, [batch, kv_heads, 1, steps, steps]))
        else:  # [B, Hkv, g, t, i, d]: q_t[d] k_i[d] e^{G_t[d] - G_i[d]}, summed over d
            rows = ops.reshape(cum, [batch, kv_heads, steps, 1, d_k])
            cols = ops.reshape(cum, [batch, kv_heads, 1, steps, d_k])
            diff = ops(g.SubOp, rows, cols)
            mask = ops.const(causal[:, :, None], "causal")
            gains = ops(g.ExpOp, ops(g.WhereOp, mask, diff, neg_inf))
            terms = ops(g.MulOp, ops.reshape(q, [*_shape(q)[:4], 1, d_k]),
                        ops.reshape(k, [batch, kv_heads, 1, 1, steps, d_k]))  # fmt: skip
            gains = ops.reshape(gains, [batch, kv_heads, 1, steps, steps, d_k])
            weights = ops(g.ReduceSumOp, ops(g.MulOp, terms, gains), axes=[5], keepdims=0)
        last = ops(g.SliceOp, cum, starts=[0, 0, steps - 1, 0],
                   ends=[batch, kv_heads, steps, per_dim], steps=[1, 1, 1, 1])  # fmt: skip
        keys = ops(g.MulOp, k, ops(g.ExpOp, ops(g.SubOp, last, cum)))
        start_gains = ops.reshape(ops(g.ExpOp, cum), [batch, kv_heads, 1, steps, per_dim])
        reads = ops(g.MulOp, q, start_gains)
        final = ops.reshape(ops(g.ExpOp, last), [batch, kv_heads, per_dim, 1])
    out = ops(g.MatMulOp, weights, v5)
    state = ops(g.MatMulOp, ops.transpose(keys, [0, 1, 3, 2]), v)
    if past is not None:
        past5 = ops.reshape(past, [*state_shape[:2], 1, *state_shape[2:]])
        out = ops(g.AddOp, out, ops(g.MatMulOp, reads, past5))
        state = ops(g.AddOp, state, past if final is None else ops(g.MulOp, past, final))
    return out, state


def _recurrence(
    ops: _Ops,
    q: SSAValue,
    k: SSAValue,
    v: SSAValue,
    past: SSAValue | None,
    decay: SSAValue | None,
    beta: SSAValue,
    state_shape: list[int],
) -> tuple[SSAValue, SSAValue]:
    """delta and gated_delta, one token at a time: the unscaled output [B, Hkv, g, T, dv]
    and the final state."""
    batch, kv_heads, group, steps, d_k = _shape(q)
    d_v = state_shape[3]

    def tokens(x: SSAValue, axis: int) -> list[SSAValue]:
        if steps == 1:
            return [x]
        return list(ops.ctx.make(g.SplitOp, x, axis=axis, sizes=[1] * steps).results)

    qs, ks, vs, betas = tokens(q, 3), tokens(k, 2), tokens(v, 2), tokens(beta, 2)
    gains = [ops(g.ExpOp, d) for d in tokens(decay, 2)] if decay is not None else None
    state = past if past is not None else ops.const(np.zeros(state_shape, F32), "state")
    outs = []
    for t in range(steps):
        if gains is not None:  # [B, Hkv, 1, 1 or d_k] scales the state's rows
            gain = gains[t]
            state = ops(g.MulOp, state, ops.reshape(gain, [batch, kv_heads, _shape(gain)[3], 1]))
        key = ks[t]  # [B, Hkv, 1, d_k]
        held = ops(g.MatMulOp, key, state)  # Sᵀ k [B, Hkv, 1, d_v]
        write = ops(g.MulOp, betas[t], ops(g.SubOp, vs[t], held))
        outer = ops(g.MulOp, ops.reshape(key, [batch, kv_heads, d_k, 1]), write)
        state = ops(g.AddOp, state, outer)
        query = ops.reshape(qs[t], [batch, kv_heads, group, d_k])
        out = ops(g.MatMulOp, query, state)  # [B, Hkv, g, d_v]
        outs.append(ops.reshape(out, [batch, kv_heads, group, 1, d_v]))
    out = outs[0] if steps == 1 else ops(g.ConcatOp, outs, axis=3)
    return out, state
