"""ONNX Attention (opsets 23-25) as a composition of graph ops; no graph op of its own.

The converter resolves the node's shapes and attributes at import time and emits, for the
common case of 4-D float32 inputs:

    kt = graph.transpose K {perm = [0, 1, 3, 2]}       (after Concat with past_key, if any)
    s  = graph.matmul Q, kt ; graph.mul s, scale ; [softcap: tanh(s / c) * c] ; graph.add bias
    p  = graph.softmax s {axis = 3} ; [graph.where row_all_masked, 0, p]
    y  = graph.matmul p, V

which graph-fuse turns into four kernels: the transpose, the QK matmul with scale, softcap and
bias as its epilogue, the softmax with the fully-masked-row guard, the PV matmul. 3-D inputs
[B, S, heads * head_size] are reshaped and transposed to heads first and back at the end.

Grouped-query attention (q_num_heads = g * kv_num_heads) does not repeat K and V: query head
h uses kv head h // g (ONNX's interleaved repeat), so Q [B, Hq, Sq, D] reshapes for free to
[B, Hkv, g * Sq, D] and every matmul runs per kv head ("the grouped layout"); the bias is
tiled to match, and outputs reshape back to [B, Hq, Sq, ...].

The bias is additive, as in ONNX's reference (onnx/reference/ops/op_attention.py): a float
attn_mask as given, a bool one as where(mask, 0, -inf), padded with -inf up to the total
sequence length; the causal and sliding-window frontiers and nonpad_kv_seqlen's padding add
0 / -inf. Parts known at import time are folded here with the graph dialect's reference
semantics, so a causal mask is one constant. A query row whose bias is all -inf has no key
and gives zeros (Y and the mode-3 qk output), decided on the bias as the spec says.

float16 takes the reference's f16 steps: Q and K are each scaled by sqrt(scale) in f16 (f32
and f64 scale QK once, in the matmul's epilogue), and every later value is rounded to f16
where the reference rounds it. graph.matmul and graph.softmax on f16 accumulate in f32 and
round once (lowering/graph_to_te), which makes the node tests' f16 cases bit-exact.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import onnx
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import GraphOp
from minitvm.dialects.graph.constant import element_type_of, numpy_dtype_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter

_Q, _K, _V, _MASK, _PAST_KEY, _PAST_VALUE, _NONPAD = range(7)
_Y, _PRESENT_KEY, _PRESENT_VALUE, _QK = range(4)

#: softmax_precision values (ONNX data types) minitvm computes in.
_PRECISIONS = {1: np.dtype(np.float32), 10: np.dtype(np.float16), 11: np.dtype(np.float64)}


@dataclass(frozen=True)
class _Shapes:
    """The node's dimensions: batch, heads of Q and of K/V, sequence lengths (past_len keys
    from past_key before the kv_len new ones), head sizes of Q/K and of V."""

    rank: int
    batch: int
    q_heads: int
    kv_heads: int
    q_len: int
    kv_len: int
    past_len: int
    head: int
    v_head: int

    @property
    def group(self) -> int:
        return self.q_heads // self.kv_heads

    @property
    def total(self) -> int:
        return self.past_len + self.kv_len

    def grouped(self, last: int) -> list[int]:
        """The grouped layout [B, Hkv, g * Sq, last] of a [B, Hq, Sq, last] tensor."""
        return [self.batch, self.kv_heads, self.group * self.q_len, last]

    def per_head(self, last: int) -> list[int]:
        return [self.batch, self.q_heads, self.q_len, last]


class _Builder:
    """Appends the node's graph ops, folding an op whose operands are all known now (numpy
    arrays) with the dialect's reference semantics instead."""

    def __init__(self, ctx: NodeContext):
        self.ctx = ctx

    def op(self, cls: type[GraphOp], *operands: Value, **props: object) -> Value:
        variadic = cls is g.ConcatOp
        if all(isinstance(v, np.ndarray) for v in operands):
            arrays = [np.asarray(v) for v in operands]
            block = Block(arg_types=[_tensor_type(a) for a in arrays])
            args = block.args
            op = cls.make(*([list(args)] if variadic else args), **props)
            return reference.evaluate(op, arrays)[0]
        values = [self.tensor(v) for v in operands]
        return self.ctx.make1(cls, *([values] if variadic else values), **props)

    def tensor(self, value: Value) -> SSAValue:
        if isinstance(value, np.ndarray):
            return self.ctx.materialize(value, f"{self.ctx.node.output[0]}_attention")
        return value

    def cast(self, x: Value, dtype: np.dtype) -> Value:
        if _dtype(x) == dtype:
            return x
        return self.op(g.CastOp, x, to=element_type_of(dtype))

    def reshape(self, x: Value, shape: Sequence[int]) -> Value:
        return x if _shape(x) == tuple(shape) else self.op(g.ReshapeOp, x, shape=list(shape))

    def transpose(self, x: Value, perm: Sequence[int]) -> Value:
        return x if list(perm) == sorted(perm) else self.op(g.TransposeOp, x, perm=list(perm))


def _tensor_type(array: np.ndarray) -> TensorType:
    return TensorType(element_type_of(array.dtype), list(array.shape))


def _shape(x: Value) -> tuple[int, ...]:
    if isinstance(x, np.ndarray):
        return tuple(x.shape)
    assert isinstance(x.type, TensorType)
    return tuple(x.type.get_shape())


def _dtype(x: Value) -> np.dtype:
    if isinstance(x, np.ndarray):
        return x.dtype
    assert isinstance(x.type, TensorType)
    return numpy_dtype_of(x.type.element_type)


# --------------------------------------------------------------------------------------------
# Shapes and attributes
# --------------------------------------------------------------------------------------------


def _shapes(ctx: NodeContext) -> _Shapes:
    ranks = [ctx.rank(i) for i in (_Q, _K, _V)]
    if ranks not in ([3] * 3, [4] * 3):
        raise ctx.error(f"Q, K and V must all be 3-D or all 4-D, got ranks {ranks}")
    q, k, v = (ctx.shape(i) for i in (_Q, _K, _V))
    given = {"q_num_heads": ctx.attr("q_num_heads"), "kv_num_heads": ctx.attr("kv_num_heads")}
    if ranks[0] == 3:
        if None in given.values():
            raise ctx.error("3-D Q, K and V need the q_num_heads and kv_num_heads attributes")
        q_heads, kv_heads = (int(n) for n in given.values())  # type: ignore[call-overload]
        for name, hidden, attr in (("Q", q[2], "q_num_heads"), ("K", k[2], "kv_num_heads"),
                                   ("V", v[2], "kv_num_heads")):  # fmt: skip
            n = q_heads if name == "Q" else kv_heads
            if n <= 0 or hidden % n:
                raise ctx.error(f"{attr}={n} does not divide {name}'s hidden size {hidden}")
        head, k_head, v_head = q[2] // q_heads, k[2] // kv_heads, v[2] // kv_heads
        q_len, kv_len, v_len = q[1], k[1], v[1]
        v_heads = kv_heads
    else:
        q_heads, kv_heads, v_heads = q[1], k[1], v[1]
        q_len, kv_len, v_len = q[2], k[2], v[2]
        head, k_head, v_head = q[3], k[3], v[3]
        for (attr, n), actual in zip(given.items(), (q_heads, kv_heads)):
            if n is not None and ctx.opset >= 25:
                raise ctx.error(f"{attr} must not be given for 4-D inputs (from opset 25)")
            if n is not None and int(n) != actual:  # type: ignore[call-overload]
                raise ctx.error(f"{attr}={n} disagrees with the {actual} heads of the 4-D inputs")
    if not q[0] == k[0] == v[0]:
        raise ctx.error(f"Q, K and V have different batch sizes {q[0]}, {k[0]}, {v[0]}")
    if k_head != head:
        raise ctx.error(f"K's head size {k_head} differs from Q's {head}")
    if v_len != kv_len or v_heads != kv_heads:
        raise ctx.error(f"V has {v_heads} heads of {v_len} keys but K {kv_heads} of {kv_len}")
    if q_heads % kv_heads:
        raise ctx.error(f"Q's {q_heads} heads are not a multiple of K and V's {kv_heads} heads")
    past_len = _past_len(ctx, q[0], kv_heads, head, v_head)
    return _Shapes(ranks[0], q[0], q_heads, kv_heads, q_len, kv_len, past_len, head, v_head)


def _past_len(ctx: NodeContext, batch: int, kv_heads: int, head: int, v_head: int) -> int:
    has_key, has_value = ctx.has_input(_PAST_KEY), ctx.has_input(_PAST_VALUE)
    if has_key != has_value:
        raise ctx.error("past_key and past_value must be given together")
    if not has_key:
        return 0
    if ctx.has_input(_NONPAD):
        raise ctx.error("nonpad_kv_seqlen cannot be combined with past_key and past_value")
    key, value = ctx.shape(_PAST_KEY), ctx.shape(_PAST_VALUE)
    if len(key) != 4 or len(value) != 4 or key[:2] != (batch, kv_heads) or value[:3] != key[:3] \
            or key[3] != head or value[3] != v_head:  # fmt: skip
        raise ctx.error(
            f"past_key {list(key)} and past_value {list(value)} must be [{batch}, {kv_heads}, "
            f"past, {head}] and [{batch}, {kv_heads}, past, {v_head}]"
        )
    return key[2]


def _softmax_dtype(ctx: NodeContext, dtype: np.dtype) -> np.dtype:
    if not ctx.has_attr("softmax_precision"):
        return dtype
    precision = ctx.attr_int("softmax_precision", 0)
    if precision not in _PRECISIONS:
        known = precision in onnx.TensorProto.DataType.values()
        name = onnx.TensorProto.DataType.Name(precision) if known else "unknown"
        supported = ", ".join(f"{p} ({onnx.TensorProto.DataType.Name(p)})" for p in _PRECISIONS)
        raise ctx.error(f"unsupported softmax_precision {precision} ({name}); supported: "
                        f"{supported}")  # fmt: skip
    return _PRECISIONS[precision]


def _window(ctx: NodeContext, name: str) -> int:
    size = ctx.attr_int(name, -1)
    if size < -1:
        raise ctx.error(f"{name} must be -1 (unbounded) or non-negative, got {size}")
    return size


# --------------------------------------------------------------------------------------------
# The converter
# --------------------------------------------------------------------------------------------


@converter("Attention")
def convert_attention(ctx: NodeContext) -> list[Value | None]:
    s = _shapes(ctx)
    b = _Builder(ctx)
    dtype = ctx.dtype(_Q)
    floating = dtype.kind == "f" or dtype.name == "bfloat16"  # ml_dtypes' kind is "V"
    if not floating or ctx.dtype(_K) != dtype or ctx.dtype(_V) != dtype:
        raise ctx.error(
            f"Q, K and V must have one float element type, got {ctx.dtype(_Q)}, "
            f"{ctx.dtype(_K)}, {ctx.dtype(_V)}"
        )
    mode = ctx.attr_int("qk_matmul_output_mode", 0)
    if mode not in range(4):
        raise ctx.error(f"unsupported qk_matmul_output_mode {mode}; supported: 0, 1, 2, 3")
    softmax_dtype = _softmax_dtype(ctx, dtype)
    q, key, value = _heads_first(ctx, b, s)
    # 1/sqrt(head) in IEEE arithmetic: +inf for a head size of 0
    scale = ctx.attr_float("scale", 1 / math.sqrt(s.head) if s.head else math.inf)
    kt = b.transpose(key, [0, 1, 3, 2])
    if dtype == np.float16 or not s.head:
        # The reference scales both operands by sqrt(scale) in f16; the rounding shows. With a
        # head size of 0 the scores are empty sums, 0, not 0 * inf: that way too.
        root = np.array(np.sqrt(scale), dtype)
        qk = b.op(g.MatMulOp, b.op(g.MulOp, q, root), b.op(g.MulOp, kt, root))
    else:
        qk = b.op(g.MulOp, b.op(g.MatMulOp, q, kt), np.array(scale, dtype))
    capped = qk
    softcap = ctx.attr_float("softcap", 0.0)
    if softcap > 0:
        cap = np.array(softcap, dtype)
        capped = b.op(g.MulOp, b.op(g.TanhOp, b.op(g.DivOp, qk, cap)), cap)
    bias = _bias(ctx, b, s, dtype)
    scores = capped if bias is None else b.op(g.AddOp, capped, bias)

    x = b.cast(scores, softmax_dtype)
    probs = b.op(g.SoftmaxOp, x, axis=3)
    if bias is not None:
        probs = _guard(b, bias, probs)
    probs = b.cast(probs, dtype)
    y = b.op(g.MatMulOp, probs, value)

    if s.rank == 3:
        y = b.reshape(b.transpose(b.reshape(y, s.per_head(s.v_head)), [0, 2, 1, 3]),
                      [s.batch, s.q_len, s.q_heads * s.v_head])  # fmt: skip
    else:
        y = b.reshape(y, s.per_head(s.v_head))
    qk_out = None
    if ctx.output_used(_QK):
        qk_out = b.reshape((qk, capped, scores, probs)[mode], s.per_head(s.total))
    return [y, key if ctx.output_used(_PRESENT_KEY) else None,
            value if ctx.output_used(_PRESENT_VALUE) else None, qk_out]  # fmt: skip


def _heads_first(ctx: NodeContext, b: _Builder, s: _Shapes) -> tuple[Value, Value, Value]:
    """Q in the grouped layout [B, Hkv, g * Sq, D]; K and V as [B, Hkv, total, D], past
    keys and values first (they are the present_key and present_value outputs)."""
    q, key, value = (ctx.value(i) for i in (_Q, _K, _V))
    if s.rank == 3:
        q = b.reshape(q, [s.batch, s.q_len, s.q_heads, s.head])
        key = b.reshape(key, [s.batch, s.kv_len, s.kv_heads, s.head])
        value = b.reshape(value, [s.batch, s.kv_len, s.kv_heads, s.v_head])
        q, key, value = (b.transpose(x, [0, 2, 1, 3]) for x in (q, key, value))
    if s.past_len:
        key = b.op(g.ConcatOp, ctx.value(_PAST_KEY), key, axis=2)
        value = b.op(g.ConcatOp, ctx.value(_PAST_VALUE), value, axis=2)
    return b.reshape(q, s.grouped(s.head)), key, value


# --------------------------------------------------------------------------------------------
# The bias
# --------------------------------------------------------------------------------------------


def _bias(ctx: NodeContext, b: _Builder, s: _Shapes, dtype: np.dtype) -> Value | None:
    """The additive bias in the grouped layout (broadcasting against [B, Hkv, g * Sq,
    total]), or None if no key is masked."""
    zero, neg_inf = np.array(0, dtype), np.array(-np.inf, dtype)
    parts: list[Value] = []
    if ctx.has_input(_MASK):
        parts.append(_mask_bias(ctx, b, s, dtype))
    causal = bool(ctx.attr_int("is_causal", 0))
    left, right = _window(ctx, "left_window_size"), _window(ctx, "right_window_size")
    nonpad = ctx.has_input(_NONPAD)
    lo, hi = _frontier(s.q_len, s.total, causal, left, right, padding=nonpad)
    if lo is not None or hi is not None:
        # Key j is visible to query i iff lo[i, j] <= n <= hi[i, j], n = offset + Sq.
        if nonpad:
            if ctx.dtype(_NONPAD) != np.int64 or ctx.shape(_NONPAD) != (s.batch,):
                raise ctx.error(f"nonpad_kv_seqlen must be int64 of shape [{s.batch}]")
            n = b.reshape(ctx.value(_NONPAD), [s.batch, 1, 1, 1])
        else:
            n = np.array(s.past_len + s.q_len, np.int64)
        visible: Value | None = None
        for cond in (
            None if lo is None else b.op(g.LessEqualOp, lo, n),
            None if hi is None else b.op(g.LessEqualOp, n, hi),
        ):
            if cond is not None:
                visible = cond if visible is None else b.op(g.AndOp, visible, cond)
        assert visible is not None
        parts.append(b.op(g.WhereOp, visible, zero, neg_inf))
    if not parts:
        return None
    bias = parts[0]
    for part in parts[1:]:
        bias = b.op(g.AddOp, bias, part)
    return _group(b, s, bias)


def _frontier(
    q_len: int, total: int, causal: bool, left: int, right: int, padding: bool
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Bounds lo, hi on n = offset + q_len (offset: the valid keys before the query block)
    such that key j is visible to query i iff lo[i, j] <= n <= hi[i, j]. With e = j - i +
    q_len and p = i + offset the query's position: causal j <= p is e <= n; the left window
    p - j <= left is n <= e + left; the right window j - p <= right is e - right <= n;
    nonpad_kv_seqlen's padding j < n is j + 1 <= n. None for a side without a bound."""
    i, j = np.arange(q_len)[:, None], np.arange(total)[None, :]
    e = np.broadcast_to(j - i + q_len, (q_len, total)).astype(np.int64)
    lows = [bound for bound, on in ((j + 1, padding), (e, causal), (e - right, right >= 0)) if on]
    lo = np.broadcast_to(functools.reduce(np.maximum, lows), e.shape) if lows else None
    return lo, (e + left if left >= 0 else None)


def _mask_bias(ctx: NodeContext, b: _Builder, s: _Shapes, dtype: np.dtype) -> Value:
    """attn_mask as an additive bias of rank 4, padded with -inf to the total length."""
    shape, mask_dtype = ctx.shape(_MASK), ctx.dtype(_MASK)
    if mask_dtype not in (np.bool_, dtype):
        raise ctx.error(f"attn_mask must be bool or {dtype} (Q's element type), got {mask_dtype}")
    target = s.per_head(s.total)
    inner = zip(shape[-2::-1], target[-2::-1])  # the dims before the last, right-aligned
    if not 1 <= len(shape) <= 4 or shape[-1] > s.total or any(d not in (1, t) for d, t in inner):
        raise ctx.error(
            f"attn_mask of shape {list(shape)} does not broadcast to {target} (its last "
            f"dimension may be shorter than the total sequence length {s.total})"
        )
    mask = b.reshape(ctx.value(_MASK), (1,) * (4 - len(shape)) + shape)
    if mask_dtype == np.bool_:
        mask = b.op(g.WhereOp, mask, np.array(0, dtype), np.array(-np.inf, dtype))
    if shape[-1] < s.total:
        pad = np.full(_shape(mask)[:-1] + (s.total - shape[-1],), -np.inf, dtype)
        mask = b.op(g.ConcatOp, mask, pad, axis=3)
    return mask


def _group(b: _Builder, s: _Shapes, x: Value) -> Value:
    """A tensor that broadcasts against [B, Hq, Sq, total] (rank <= 4), rearranged to
    broadcast against the grouped layout [B, Hkv, g * Sq, total]."""
    shape = (1,) * (4 - len(_shape(x))) + _shape(x)
    x = b.reshape(x, shape)
    if s.group == 1:
        return x
    batch, heads, _, last = shape
    if heads == 1:  # the same rows for every head: tile them g times
        x = b.op(g.ExpandOp, x, shape=[batch, 1, s.q_len, last]) if shape[2] == 1 else x
        return b.op(g.TileOp, x, repeats=[1, 1, s.group, 1])
    x = b.op(g.ExpandOp, x, shape=[batch, heads, s.q_len, last]) if shape[2] == 1 else x
    return b.reshape(x, [batch, s.kv_heads, s.group * s.q_len, last])


def _guard(b: _Builder, bias: Value, probs: Value) -> Value:
    """Zero the rows of `probs` whose bias is -inf everywhere (no key is visible; the
    softmax of such a row is NaN)."""
    dtype = _dtype(probs)
    row_max = b.op(g.ReduceMaxOp, bias, axes=[3], keepdims=1)
    empty = b.op(g.EqualOp, row_max, np.array(-np.inf, _dtype(bias)))
    if isinstance(empty, np.ndarray) and not empty.any():
        return probs
    return b.op(g.WhereOp, empty, np.array(0, dtype), probs)
