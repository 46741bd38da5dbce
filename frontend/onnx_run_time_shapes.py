"""Range, Tile, Expand and Reshape whose size operands are computed as the model runs.

A size operand that is neither a constant nor a shape the frontend knows symbolically (a
Range to the largest of a batch's lengths, a Reshape to a shape read from a tensor) gives
sizes found only at run time. Each such size becomes a `graph.iota` of a count computed in
graph ops: its positions 0..n-1, with a size of its own that the ops after it run over. The
ops themselves are then ordinary tensor ops on those positions:

    Range(s, l, d)      s + iota(max(ceil((l - s) / d), 0)) * d
    Tile(x, r)          per axis, Gather(x, iota(d * r) mod d)
    Expand(x, shape)    per axis of size 1 that grows, Gather(x, iota(v) * 0); an axis that
                        keeps its size is checked to be asked for 1 or that size
    Reshape(x, shape)   the shape resolved (0 copies, -1 infers) and checked, then
                        graph.reshape_to_sizes(x, iota(d_0), ..., iota(d_r-1))

What ONNX Runtime rejects (a delta of 0, an element count that differs, a shape that does
not broadcast, a negative repeat) is a `graph.check` that stops the run with a message
naming the node.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import f64, i64
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.base import Dim
from minitvm.dialects.graph.constant import element_type_of
from minitvm.frontend.onnx_data_dependent import index_scalar
from minitvm.frontend.onnx_node import NodeContext, Value
from minitvm.symbolic import SymDim, name_from, product, symbol


def _name(ctx: NodeContext, what: str) -> str:
    """A name of this node's own (`<first output>_<what>`): for sizes, checks, constants."""
    return f"{name_from(ctx.node.output[0])}_{what}"


def _text(shape: Sequence[Dim]) -> str:
    return f"[{', '.join(map(str, shape))}]"


def _int(ctx: NodeContext, value: int, what: str) -> SSAValue:
    return ctx.materialize(np.array(value, np.int64), _name(ctx, what))


def _scalar(ctx: NodeContext, i: int) -> SSAValue:
    """Input `i`, a scalar or a vector of one, as a rank-0 tensor."""
    value = ctx.tensor(i)
    if ctx.shape(i) != ():
        if product(ctx.shape(i)) != 1:
            raise ctx.error(f"input {i} must be a scalar, got shape {list(ctx.shape(i))}")
        value = ctx.make1(g.ReshapeOp, value, shape=[])
    return value


def _entry(ctx: NodeContext, vector: SSAValue, j: int) -> SSAValue:
    """Element `j` of a vector, as a rank-0 tensor."""
    return ctx.make1(g.GatherOp, vector, _int(ctx, j, f"at{j}"), axis=0)


def _sizes_vector(ctx: NodeContext, i: int) -> tuple[SSAValue, int]:
    """Input `i`, a vector of i64 sizes whose length is known now; with that length."""
    shape = ctx.shape(i)
    if len(shape) != 1 or isinstance(shape[0], SymDim):
        raise ctx.error(
            f"input {i} ('{ctx.input_name(i)}') must be a vector whose length is known at "
            f"import time, got shape {list(map(str, shape))}"
        )
    return ctx.tensor(i), int(shape[0])


def run_time_size(ctx: NodeContext, count: SSAValue, which: str, joint: bool = False) -> tuple[SSAValue, SymDim]:
    """The positions 0..count-1 of a count computed as the model runs (a rank-0 i64 tensor;
    none if it is negative), and the size they have. `joint`: one of several dims of the
    node's result found so (the iotas share the node's group, see graph.iota)."""
    name = _name(ctx, f"len{which}")
    group = _name(ctx, "dims") if joint else None
    return ctx.make1(g.IotaOp, count, size=name, group=group), symbol(name)


def check(ctx: NodeContext, ok: SSAValue, message: str, which: str = "") -> None:
    """Stop the run with `message` (naming the node) unless `ok` holds."""
    ctx.make(g.CheckOp, ok, check=_name(ctx, f"check{which}"), message=str(ctx.error(message)))


def _all(ctx: NodeContext, conditions: Sequence[SSAValue]) -> SSAValue:
    result = conditions[0]
    for condition in conditions[1:]:
        result = ctx.make1(g.AndOp, result, condition)
    return result


def range_at_run_time(ctx: NodeContext) -> Value:
    """start + i * delta for i < max(ceil((limit - start) / delta), 0), the count computed in
    f64 as ONNX Runtime does."""
    start, limit, delta = (_scalar(ctx, i) for i in range(3))
    dtype = ctx.dtype(0)
    zero = ctx.materialize(np.zeros((), dtype), _name(ctx, "zero"))
    check(ctx, ctx.make1(g.NotOp, ctx.make1(g.EqualOp, delta, zero)), "delta is 0")
    span = ctx.make1(g.CastOp, ctx.make1(g.SubOp, limit, start), to=f64)
    steps = ctx.make1(g.CeilOp, ctx.make1(g.DivOp, span, ctx.make1(g.CastOp, delta, to=f64)))
    positions, _ = run_time_size(ctx, ctx.make1(g.CastOp, steps, to=i64), "")
    element = element_type_of(dtype)
    offsets = ctx.make1(g.MulOp, ctx.make1(g.CastOp, positions, to=element), delta)
    return ctx.make1(g.AddOp, start, offsets)


def tile_at_run_time(ctx: NodeContext) -> Value:
    """Each axis `j` of size d repeated r_j times: the positions of d * r_j elements, mod d."""
    shape = ctx.shape(0)
    repeats, length = _sizes_vector(ctx, 1)
    if length != len(shape):
        raise ctx.error(f"repeats has {length} entries, but the input has rank {len(shape)}")
    counts = [_entry(ctx, repeats, j) for j in range(length)]
    if counts:
        zero = _int(ctx, 0, "zero")
        check(ctx, _all(ctx, [ctx.make1(g.GreaterEqualOp, r, zero) for r in counts]),
              "repeats must not be negative")  # fmt: skip
    x = ctx.tensor(0)
    for j, (size, count) in enumerate(zip(shape, counts)):
        extent = index_scalar(ctx, size, _name(ctx, f"size{j}"))
        positions, _ = run_time_size(ctx, ctx.make1(g.MulOp, extent, count), str(j), joint=len(shape) > 1)
        x = ctx.make1(g.GatherOp, x, ctx.make1(g.ModOp, positions, extent), axis=j)
    return x


def expand_at_run_time(ctx: NodeContext) -> Value:
    """Broadcast to a shape read as the model runs: an axis of size 1 takes the size asked
    for (a gather of its one element at positions 0..v-1); any other keeps its size, which
    the shape must ask for or leave at 1 (checked)."""
    shape = ctx.shape(0)
    target, length = _sizes_vector(ctx, 1)
    rank = max(length, len(shape))
    x = ctx.tensor(0)
    if len(shape) < rank:  # leading axes of size 1
        shape = (1,) * (rank - len(shape)) + tuple(shape)
        x = ctx.make1(g.ReshapeOp, x, shape=list(shape))
    one = _int(ctx, 1, "one")
    kept: list[SSAValue] = []
    grown = sum(shape[j] == 1 for j in range(rank - length, rank))
    for j in range(rank - length, rank):
        asked = _entry(ctx, target, j - (rank - length))
        if shape[j] == 1:
            positions, _ = run_time_size(ctx, asked, str(j), joint=grown > 1)
            zeros = ctx.make1(g.MulOp, positions, _int(ctx, 0, "zero"))
            x = ctx.make1(g.GatherOp, x, zeros, axis=j)
        else:
            size = index_scalar(ctx, shape[j], _name(ctx, f"size{j}"))
            kept.append(ctx.make1(g.OrOp, ctx.make1(g.EqualOp, asked, one), ctx.make1(g.EqualOp, asked, size)))
    if kept:
        check(ctx, _all(ctx, kept),
              f"the shape asked for does not broadcast with the input's {_text(ctx.shape(0))} "
              "(where the input's dimension is not 1, the shape must give 1 or that size)")  # fmt: skip
    return x


def reshape_at_run_time(ctx: NodeContext, allowzero: int) -> Value:
    """The target shape resolved as ONNX says (0 copies the input's dimension unless
    allowzero, one -1 takes what is left) and checked; the result a graph.reshape_to_sizes
    of the input to the sizes of iotas of the dims."""
    source = ctx.shape(0)
    target, length = _sizes_vector(ctx, 1)
    total: Dim = product(source)
    elements = index_scalar(ctx, total, _name(ctx, "elements"))
    zero, one, minus_one = (_int(ctx, v, w) for v, w in ((0, "zero"), (1, "one"), (-1, "minus_one")))
    dims = target
    if not allowzero:  # 0 copies the input's dimension (none past its rank: left at 0)
        copies = [source[j] if j < len(source) else 0 for j in range(length)]
        copied = ctx.make1(g.SizesOp, values=copies, shape=[length], element_type=i64)
        dims = ctx.make1(g.WhereOp, ctx.make1(g.EqualOp, target, zero), copied, dims)
    inferred = ctx.make1(g.EqualOp, dims, minus_one)
    rest = ctx.make1(g.WhereOp, inferred, one, dims)
    known = ctx.make1(g.ReduceProdOp, rest, axes=[0], keepdims=0) if length else one
    left = ctx.make1(g.DivOp, elements, ctx.make1(g.MaxOp, known, one))
    dims = ctx.make1(g.WhereOp, inferred, left, dims)
    entries = [_entry(ctx, dims, j) for j in range(length)]
    ok = [ctx.make1(g.GreaterEqualOp, d, zero) for d in entries]
    count = ctx.make1(g.ReduceProdOp, dims, axes=[0], keepdims=0) if length else one
    ok.append(ctx.make1(g.EqualOp, count, elements))
    if length:
        several = ctx.make1(g.ReduceSumOp, ctx.make1(g.CastOp, inferred, to=i64), axes=[0], keepdims=0)
        ok.append(ctx.make1(g.LessEqualOp, several, one))
    check(ctx, _all(ctx, ok),
          f"the shape asked for (at most one -1, no other negative size) does not hold the "
          f"input's {total} elements ({_text(source)})")  # fmt: skip
    if not length:  # a scalar: the one element
        return ctx.make1(g.ReshapeOp, ctx.tensor(0), shape=[])
    # The copy divides its row-major position by the input's dims after the first: by
    # numbers, LLVM folds the index back to the position, but by sizes known only at run
    # time each element would take divisions, so such an input is first copied flat.
    flat = ctx.tensor(0)
    if any(isinstance(d, SymDim) for d in source[1:]):
        flat = ctx.make1(g.ReshapeOp, flat, shape=[total])
    sizes = [run_time_size(ctx, entries[j], str(j), joint=length > 1)[0] for j in range(length)]
    return ctx.make1(g.ReshapeToSizesOp, flat, sizes)
