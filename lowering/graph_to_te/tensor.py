"""Lowering rules of the data-movement and reduction graph ops.

Data movement is pure index arithmetic: every result element reads one input element at an
index computed from the result index (reshape linearizes and delinearizes, transpose
permutes, slice scales and offsets, tile wraps, pad reflects or clamps, a layout transform
goes through the flat channel). Reductions are te.computes with reduction axes.

te bodies must read in bounds at EVERY point of the index space, since both sides of a select
are evaluated (and vectorized loads do not branch). So a read whose index is only meaningful
under a condition (concat's inputs, pad's interior, gather's indices) reads at a clamped
index and the select discards it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType, TensorType

from minitvm.dialects import graph
from minitvm.dialects.graph.base import get_float, get_int, get_ints, get_str
from minitvm.dialects.te_expr import Expr, Tensor, cast, const, maximum, minimum, select
from minitvm.lowering.graph_to_te.elementwise import scalar_of
from minitvm.lowering.graph_to_te.kernel_builder import KernelBuilder, broadcast_read, lowering

Index = Expr | int


def _result_shape(op: graph.GraphOp, n: int = 0) -> tuple[int, ...]:
    type_ = op.results[n].type
    assert isinstance(type_, TensorType)
    return tuple(type_.get_shape())


def _clamp_index(i: Expr, size: int, *, low: bool = True, high: bool = True) -> Expr:
    """i kept inside [0, size): `low`/`high` say which side can actually be crossed."""
    if low:
        i = maximum(i, 0)
    if high:
        i = minimum(i, size - 1)
    return i


# --------------------------------------------------------------------------------------------
# Reshape, expand, transpose
# --------------------------------------------------------------------------------------------


def reshape_index(src: Sequence[int], dst: Sequence[int], index: Sequence[Expr]) -> list[Index]:
    """The index into a `src`-shaped tensor of the element at `index` of its `dst`-shaped
    reshape (row-major).

    Dims of size 1 read index 0. The rest are cut into the smallest groups with equal element
    counts on both sides; a group of one dim on each side maps directly (what squeeze,
    unsqueeze and most reshapes need); only true merges and splits linearize and delinearize.
    """
    result: list[Index] = [0] * len(src)
    if math.prod(src) == 0:
        return result  # an empty tensor: no element is ever read
    ins = [d for d, s in enumerate(src) if s != 1]
    outs = [d for d, s in enumerate(dst) if s != 1]
    pi = po = 0
    while pi < len(ins):
        group_in, group_out = [ins[pi]], [outs[po]]
        count_in, count_out = src[ins[pi]], dst[outs[po]]
        pi, po = pi + 1, po + 1
        while count_in != count_out:
            if count_in < count_out:
                group_in.append(ins[pi])
                count_in *= src[ins[pi]]
                pi += 1
            else:
                group_out.append(outs[po])
                count_out *= dst[outs[po]]
                po += 1
        if len(group_in) == 1 and len(group_out) == 1:
            result[group_in[0]] = index[group_out[0]]
            continue
        linear = index[group_out[0]]
        for d in group_out[1:]:
            linear = linear * dst[d] + index[d]
        stride = count_in
        for n, d in enumerate(group_in):
            stride //= src[d]
            value = linear if stride == 1 else linear // stride
            result[d] = value if n == 0 else value % src[d]
    return result


@lowering(graph.ReshapeOp)
def _reshape(kb: KernelBuilder, op: graph.ReshapeOp, x: Tensor) -> list[Tensor]:
    shape = _result_shape(op)
    return [kb.compute(shape, x.element_type, lambda *i: x[reshape_index(x.shape, shape, i)])]


@lowering(graph.ExpandOp)
def _expand(kb: KernelBuilder, op: graph.ExpandOp, x: Tensor) -> list[Tensor]:
    return [kb.compute(_result_shape(op), x.element_type, lambda *i: broadcast_read(x, i))]


@lowering(graph.TransposeOp)
def _transpose(kb: KernelBuilder, op: graph.TransposeOp, x: Tensor) -> list[Tensor]:
    perm = get_ints(op.properties, "perm")

    def body(*i: Expr) -> Expr:
        index: list[Index] = [0] * len(perm)
        for out_dim, in_dim in enumerate(perm):
            index[in_dim] = i[out_dim]
        return x[index]

    return [kb.compute(_result_shape(op), x.element_type, body)]


# --------------------------------------------------------------------------------------------
# Concat, split, slice, gather
# --------------------------------------------------------------------------------------------


@lowering(graph.ConcatOp)
def _concat(kb: KernelBuilder, op: graph.ConcatOp, *xs: Tensor) -> list[Tensor]:
    axis = get_int(op.properties, "axis")
    parts: list[tuple[Tensor, int]] = []  # (input, offset) of the non-empty inputs
    offset = 0
    for x in xs:
        if x.shape[axis]:
            parts.append((x, offset))
        offset += x.shape[axis]

    def body(*i: Expr) -> Expr:
        a = i[axis]

        def read(n: int) -> Expr:
            x, start = parts[n]
            local = _clamp_index(a - start if start else a, x.shape[axis], low=n > 0,
                                 high=n < len(parts) - 1)  # fmt: skip
            return x[(*i[:axis], local, *i[axis + 1 :])]

        # The last input's read, then back to the first: select(a < end_n, x_n, rest).
        value = read(len(parts) - 1)
        for n in range(len(parts) - 2, -1, -1):
            x, start = parts[n]
            value = select(a < start + x.shape[axis], read(n), value)
        return value

    shape = _result_shape(op)
    if not parts:  # every input is empty along axis, so is the result
        return [kb.compute(shape, xs[0].element_type, lambda *i: const(0, xs[0].element_type))]
    return [kb.compute(shape, xs[0].element_type, body)]


@lowering(graph.SplitOp)
def _split(kb: KernelBuilder, op: graph.SplitOp, x: Tensor) -> list[Tensor]:
    axis = get_int(op.properties, "axis")
    outputs: list[Tensor] = []
    start = 0
    for n, size in enumerate(get_ints(op.properties, "sizes")):

        def body(*i: Expr, start: int = start) -> Expr:
            return x[(*i[:axis], i[axis] + start if start else i[axis], *i[axis + 1 :])]

        outputs.append(kb.compute(_result_shape(op, n), x.element_type, body))
        start += size
    return outputs


@lowering(graph.SliceOp)
def _slice(kb: KernelBuilder, op: graph.SliceOp, x: Tensor) -> list[Tensor]:
    props = op.properties
    starts, steps = get_ints(props, "starts"), get_ints(props, "steps")
    shape = _result_shape(op)

    def body(*i: Expr) -> Expr:
        index: list[Index] = []
        for d, (start, step) in enumerate(zip(starts, steps)):
            if shape[d] == 1:
                index.append(start)  # a single element: no index arithmetic
                continue
            term = i[d] if step == 1 else i[d] * step
            index.append(term + start if start else term)
        return x[index]

    return [kb.compute(shape, x.element_type, body)]


@lowering(graph.GatherOp)
def _gather(kb: KernelBuilder, op: graph.GatherOp, data: Tensor, indices: Tensor) -> list[Tensor]:
    axis = get_int(op.properties, "axis")
    size = data.shape[axis]
    rank = len(indices.shape)

    def body(*i: Expr) -> Expr:
        g = cast(indices[i[axis : axis + rank]], IndexType())
        g = select(g < 0, g + size, g)  # negative indices count from the end
        g = _clamp_index(g, size)  # indices out of range are invalid input: never read outside
        return data[(*i[:axis], g, *i[axis + rank :])]

    return [kb.compute(_result_shape(op), data.element_type, body)]


# --------------------------------------------------------------------------------------------
# Pad, tile
# --------------------------------------------------------------------------------------------


def _reflect(src: Expr, size: int) -> Expr:
    """Mirror an index in [-(size-1), 2(size-1)] into [0, size) without repeating the edge:
    (size-1) - |(size-1) - |src||."""
    last = size - 1
    mirrored = maximum(src, 0 - src)
    inner = last - mirrored
    return last - maximum(inner, 0 - inner)


@lowering(graph.PadOp)
def _pad(kb: KernelBuilder, op: graph.PadOp, x: Tensor) -> list[Tensor]:
    props = op.properties
    pads = get_ints(props, "pads")
    mode = get_str(props, "mode", "constant")
    rank = len(x.shape)
    begins, ends = pads[:rank], pads[rank:]
    element = x.element_type
    fill = scalar_of(get_float(props, "value", 0.0), element)
    shape = _result_shape(op)
    if mode == "constant" and math.prod(x.shape) == 0:
        return [kb.compute(shape, element, lambda *i: const(fill, element))]

    def body(*i: Expr) -> Expr:
        index: list[Index] = []
        inside: Expr | None = None
        for d, (size, lo, hi) in enumerate(zip(x.shape, begins, ends)):
            if size == 1 and mode != "constant":
                index.append(0)  # reflect cannot pad a size-1 dim; edge repeats its element
                continue
            if lo == 0 and hi == 0:
                index.append(i[d])
                continue
            src = i[d] - lo if lo else i[d]
            if mode == "reflect":
                index.append(_reflect(src, size))
                continue
            index.append(_clamp_index(src, size, low=lo > 0, high=hi > 0))
            if mode == "constant":
                conds = ([src >= 0] if lo else []) + ([src < size] if hi else [])
                for c in conds:
                    inside = c if inside is None else inside & c
        value = x[index]
        return value if inside is None else select(inside, value, fill)

    return [kb.compute(shape, element, body)]


@lowering(graph.TileOp)
def _tile(kb: KernelBuilder, op: graph.TileOp, x: Tensor) -> list[Tensor]:
    repeats = get_ints(op.properties, "repeats")

    def body(*i: Expr) -> Expr:
        return x[[0 if s == 1 else i[d] if r == 1 else i[d] % s
                  for d, (s, r) in enumerate(zip(x.shape, repeats))]]  # fmt: skip

    return [kb.compute(_result_shape(op), x.element_type, body)]


# --------------------------------------------------------------------------------------------
# Layout transforms
# --------------------------------------------------------------------------------------------


@lowering(graph.LayoutTransformOp)
def _layout_transform(kb: KernelBuilder, op: graph.LayoutTransformOp, x: Tensor) -> list[Tensor]:
    """Through the flat channel c: to NCHW{b}c, y[n, co, h, w, ci] reads channel co * b + ci;
    from NCHW{a}c, channel c is at x[n, c // a, h, w, c % a]."""
    src = graph.parse_layout(op.src_layout.data)
    dst = graph.parse_layout(op.dst_layout.data)

    def body(*i: Expr) -> Expr:
        n, c, h, w = i[:4]
        if dst is not None and dst > 1:
            c = c * dst + i[4]
        if src is None:
            return x[n, c, h, w]
        if src == 1:
            return x[n, c, h, w, 0]
        outer = c // src
        return x[n, outer, h, w, c - outer * src]

    return [kb.compute(_result_shape(op), x.element_type, body)]


# --------------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------------


def _reduce(kb: KernelBuilder, op: graph.ReduceOp, x: Tensor, kind: str) -> Tensor:
    axes = get_ints(op.properties, "axes")
    keepdims = bool(get_int(op.properties, "keepdims", 1))
    kept = [d for d in range(len(x.shape)) if d not in axes]

    def body(*args: Expr) -> Expr:
        spatial, reduced = args[: len(args) - len(axes)], args[len(args) - len(axes) :]
        index: list[Expr] = [reduced[axes.index(d)] if d in axes else
                             spatial[d if keepdims else kept.index(d)]
                             for d in range(len(x.shape))]  # fmt: skip
        return x[index]

    extents = [x.shape[a] for a in axes]
    return kb.compute(_result_shape(op), x.element_type, body, reduce=(kind, extents))


@lowering(graph.ReduceSumOp)
def _reduce_sum(kb: KernelBuilder, op: graph.ReduceSumOp, x: Tensor) -> list[Tensor]:
    return [_reduce(kb, op, x, "sum")]


@lowering(graph.ReduceMaxOp)
def _reduce_max(kb: KernelBuilder, op: graph.ReduceMaxOp, x: Tensor) -> list[Tensor]:
    return [_reduce(kb, op, x, "max")]


@lowering(graph.ReduceMeanOp)
def _reduce_mean(kb: KernelBuilder, op: graph.ReduceMeanOp, x: Tensor) -> list[Tensor]:
    total = _reduce(kb, op, x, "sum")
    count = math.prod(x.shape[a] for a in get_ints(op.properties, "axes"))
    # Integer means truncate toward zero (numpy's mean, then astype); divsi does exactly that.
    return [kb.compute(total.shape, total.element_type, lambda *i: total[i] / count)]
