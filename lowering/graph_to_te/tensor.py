"""Lowering rules of the data-movement and reduction graph ops.

Data movement is pure index arithmetic: every result element reads one input element at an
index computed from the result index (reshape linearizes and delinearizes, transpose
permutes, slice scales and offsets, tile wraps, pad reflects or clamps, a layout transform
goes through the flat channel); the element gathers and ReverseSequence read at an index
they read from a tensor first. Reductions are te.computes with reduction axes; so are the
scatters (each result element reduces over the updates that hit it) and the running sums.

te bodies must read in bounds at EVERY point of the index space, since both sides of a select
are evaluated (and vectorized loads do not branch). So a read whose index is only meaningful
under a condition (concat's inputs, pad's interior, gather's indices) reads at a clamped
index and the select discards it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import IndexType, IntegerType, TensorType, i64
from xdsl.ir import Attribute

from minitvm.dialects import graph, te
from minitvm.dialects.graph.base import Dim, get_float, get_int, get_ints, get_str, shape_of
from minitvm.dialects.te_expr import (
    Expr,
    Tensor,
    abs_,
    cast,
    clamp,
    const,
    exp,
    is_float_type,
    is_unsigned,
    log,
    maximum,
    minimum,
    select,
    sqrt,
)
from minitvm.lowering.graph_to_te.elementwise import scalar_of
from minitvm.lowering.graph_to_te.kernel_builder import KernelBuilder, broadcast_read, lowering
from minitvm.symbolic import SymbolicError, mod

Index = Expr | int


def _result_shape(op: graph.GraphOp, n: int = 0) -> tuple[int, ...]:
    type_ = op.results[n].type
    assert isinstance(type_, TensorType)
    return shape_of(type_)


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


def _grows_first(count_in: Dim, count_out: Dim) -> bool:
    """Whether the input side of a reshape group takes its next dim: its count is the
    smaller, or (symbolic sizes, `batch` against `batch*seq`) divides the other."""
    try:
        return bool(count_in < count_out)
    except SymbolicError:
        if mod(count_out, count_in) == 0:
            return True
        if mod(count_in, count_out) == 0:
            return False
        raise


def reshape_index(src: Sequence[Dim], dst: Sequence[Dim], index: Sequence[Expr]) -> list[Index]:
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
            if _grows_first(count_in, count_out):
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


@lowering(graph.ReshapeToSizesOp)
def _reshape_to_sizes(kb: KernelBuilder, op: graph.ReshapeToSizesOp, x: Tensor, *sizes: Tensor) -> list[Tensor]:
    """The result's row-major position, taken apart along the input's shape: sizes known only
    at run time give no groups of dims to match, as reshape_index finds for graph.reshape."""
    shape = _result_shape(op)

    def body(*i: Expr) -> Expr:
        linear: Expr = i[0]
        for d in range(1, len(shape)):
            linear = linear * shape[d] + i[d]
        index: list[Index] = []
        for d in reversed(range(len(x.shape))):
            if d == 0:
                index.insert(0, linear)
            elif x.shape[d] == 1:
                index.insert(0, 0)
            else:
                index.insert(0, linear % x.shape[d])
                linear = linear // x.shape[d]
        return x[tuple(index)]

    return [kb.compute(shape, x.element_type, body)]


@lowering(graph.ExpandOp)
def _expand(kb: KernelBuilder, op: graph.ExpandOp, x: Tensor) -> list[Tensor]:
    return [kb.compute(_result_shape(op), x.element_type, lambda *i: broadcast_read(x, i))]


@lowering(graph.RangeOp)
def _range(kb: KernelBuilder, op: graph.RangeOp) -> list[Tensor]:
    element = op.result.type.element_type  # type: ignore[attr-defined]

    def body(i: Expr) -> Expr:
        return i.cast(element) * const(op.delta_value, element) + const(op.start_value, element)

    return [kb.compute(_result_shape(op), element, body)]


@lowering(graph.SizesOp)
def _sizes(kb: KernelBuilder, op: graph.SizesOp) -> list[Tensor]:
    """Each element its size (a `te.size` where it is known only at run time), picked by the
    row-major position of the index."""
    element = op.result.type.element_type  # type: ignore[attr-defined]
    shape, values = _result_shape(op), op.values.values

    def body(*i: Expr) -> Expr:
        position: Expr | int = 0
        for d, index in enumerate(i):
            position = index if d == 0 else position * shape[d] + index
        value = const(values[-1], element)
        for k in range(len(values) - 2, -1, -1):
            value = select(position.eq(k), const(values[k], element), value)  # type: ignore[union-attr]
        return value

    return [kb.compute(shape, element, body)]


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


def _index_read(indices: Tensor, at: Sequence[Index], size: int, *, clamp: bool = True) -> Expr:
    """indices[at] as an index into a dim of `size`: negative entries count from the end.
    Clamped into [0, size) for a read (an out-of-range index is invalid input: never read
    outside); unclamped for a scatter's comparison, where it then matches no position."""
    g = cast(indices[at], IndexType())
    g = select(g < 0, g + size, g)
    return _clamp_index(g, size) if clamp else g


@lowering(graph.GatherElementsOp)
def _gather_elements(
    kb: KernelBuilder, op: graph.GatherElementsOp, data: Tensor, indices: Tensor
) -> list[Tensor]:
    axis = get_int(op.properties, "axis")

    def body(*i: Expr) -> Expr:
        return data[(*i[:axis], _index_read(indices, i, data.shape[axis]), *i[axis + 1 :])]

    return [kb.compute(_result_shape(op), data.element_type, body)]


@lowering(graph.GatherNDOp)
def _gather_nd(kb: KernelBuilder, op: graph.GatherNDOp, data: Tensor, indices: Tensor) -> list[Tensor]:
    """result[q, r] reads data[q[:b], t, r], the k entries of tuple t read from indices[q]."""
    b = get_int(op.properties, "batch_dims", 0)
    k, lead = indices.shape[-1], len(indices.shape) - 1

    def body(*i: Expr) -> Expr:
        q, r = i[:lead], i[lead:]
        tuple_ = [_index_read(indices, (*q, j), data.shape[b + j]) for j in range(k)]
        return data[(*q[:b], *tuple_, *r)]

    return [kb.compute(_result_shape(op), data.element_type, body)]


# --------------------------------------------------------------------------------------------
# Scatters: every result element reduces over the updates that hit it
# --------------------------------------------------------------------------------------------


def _identity(kind: str, element: Attribute) -> float | int:
    """The value a `kind` reduction starts from (te_to_loop's): what a missed update adds."""
    if is_float_type(element):
        return te.REDUCTIONS[kind]
    assert isinstance(element, IntegerType)
    width = element.width.data
    low, high = (0, (1 << width) - 1) if is_unsigned(element) else (
        -(1 << (width - 1)), (1 << (width - 1)) - 1)  # fmt: skip
    return {"sum": 0, "prod": 1, "max": low, "min": high}[kind]


@dataclass(frozen=True)
class _Hits:
    """How the updates of a scatter reach result position p, over the reduction axes r
    (one per update position, or one of extent 1 when there is a single one):
    `match(p, r)` says whether update r writes p, `value(p, r)` is the update it writes
    there (read in bounds at every (p, r)), `ordinal(r)` numbers r in row-major order and
    `position(w)` is the r of ordinal w."""

    extents: tuple[int, ...]
    match: Callable[[Sequence[Expr], Sequence[Expr]], Expr]
    value: Callable[[Sequence[Expr], Sequence[Index]], Expr]
    ordinal: Callable[[Sequence[Expr]], Expr]
    position: Callable[[Expr], Sequence[Index]]


def _element_hits(op: graph.ScatterElementsOp, indices: Tensor, updates: Tensor, data: Tensor) -> _Hits:
    """Update q (an indices position) writes p iff q agrees with p outside `axis` and
    indices[q] = p[axis]: for p only the q along axis can, a reduction of that extent."""
    axis = get_int(op.properties, "axis")
    shape = indices.shape
    short = [d for d in range(len(shape)) if d != axis and shape[d] < data.shape[d]]

    def at(p: Sequence[Expr], j: Index) -> list[Index]:
        return [j if d == axis else _clamp_index(p[d], shape[d], low=False) if d in short else p[d]
                for d in range(len(shape))]  # fmt: skip

    def match(p: Sequence[Expr], r: Sequence[Expr]) -> Expr:
        hit = _index_read(indices, at(p, r[0]), data.shape[axis], clamp=False).eq(p[axis])
        for d in short:
            hit = hit & (p[d] < shape[d])
        return hit

    return _Hits(
        (shape[axis],), match, lambda p, r: updates[at(p, r[0])], lambda r: r[0],
        lambda w: [w],
    )


def _nd_hits(indices: Tensor, updates: Tensor, data: Tensor) -> _Hits:
    """Update tuple q writes p iff indices[q, j] = p[j] for its k entries j; its value at p
    is updates[q, p[k:]]: a reduction over the update tuples, indices.shape[:-1]."""
    k, batch = indices.shape[-1], indices.shape[:-1]

    def match(p: Sequence[Expr], r: Sequence[Expr]) -> Expr:
        q = r[: len(batch)]
        hit: Expr | None = None
        for j in range(k):
            term = _index_read(indices, (*q, j), data.shape[j], clamp=False).eq(p[j])
            hit = term if hit is None else hit & term
        assert hit is not None
        return hit

    def ordinal(r: Sequence[Expr]) -> Expr:
        linear = r[0]
        for d in range(1, len(batch)):
            linear = linear * batch[d] + r[d]
        return linear

    def position(w: Expr) -> list[Index]:
        return reshape_index(batch, (math.prod(batch),), [w]) if batch else []

    return _Hits(
        batch or (1,), match, lambda p, r: updates[(*r[: len(batch)], *p[k:])], ordinal,
        position,
    )


_SCATTER_REDUCE: dict[str, tuple[str, Callable[[Expr, Expr], Expr]]] = {
    "add": ("sum", lambda a, b: a + b), "mul": ("prod", lambda a, b: a * b),
    "max": ("max", maximum), "min": ("min", minimum),
}  # fmt: skip


@lowering(graph.ScatterElementsOp, graph.ScatterNDOp)
def _scatter(
    kb: KernelBuilder, op: graph.ScatterOp, data: Tensor, indices: Tensor, updates: Tensor
) -> list[Tensor]:
    """A compute over the data reducing over the update positions, each a select on
    "this update hits me": O(data x updates) for ScatterND, O(data x indices.shape[axis])
    for ScatterElements. Fine for the sizes models scatter at run time; the frontend
    resolves constant indices at import time into a gather and a where instead.

    add, mul, max, min: reduce the hitting updates (missed ones give the identity), then
    combine with the data. none: the last hitting update wins (as in ONNX Runtime's in-order
    loop): a max reduction finds its ordinal w (-1 if none), then the result reads it."""
    shape, element = data.shape, data.element_type
    if not math.prod(updates.shape):  # nothing to scatter (and no update to read)
        return [kb.compute(shape, element, lambda *p: data[p])]
    hits = _element_hits(op, indices, updates, data) if isinstance(op, graph.ScatterElementsOp) \
        else _nd_hits(indices, updates, data)  # fmt: skip
    rank = len(shape)
    reduction = get_str(op.properties, "reduction", "none")
    if reduction != "none":
        kind, combine = _SCATTER_REDUCE[reduction]
        missed = _identity(kind, element)

        def term(*a: Expr) -> Expr:
            p, r = a[:rank], a[rank:]
            return select(hits.match(p, r), hits.value(p, r), missed)

        total = kb.compute(shape, element, term, reduce=(kind, hits.extents))
        return [kb.compute(shape, element, lambda *p: combine(data[p], total[p]))]

    def last(*a: Expr) -> Expr:
        p, r = a[:rank], a[rank:]
        return select(hits.match(p, r), cast(hits.ordinal(r), i64), -1)

    writer = kb.compute(shape, i64, last, reduce=("max", hits.extents))

    def body(*p: Expr) -> Expr:
        w = cast(writer[p], IndexType())
        return select(w >= 0, hits.value(p, hits.position(maximum(w, 0))), data[p])

    return [kb.compute(shape, element, body)]


# --------------------------------------------------------------------------------------------
# Running sums and products, sequence reversal
# --------------------------------------------------------------------------------------------


@lowering(graph.CumSumOp, graph.CumProdOp)
def _cumulative(kb: KernelBuilder, op: graph.CumulativeOp, x: Tensor) -> list[Tensor]:
    """result[.., i, ..] reduces x[.., k, ..] over all k of the axis, each term selected by
    k <= i (k < i exclusive; k >= i, k > i reversed) or else the identity: O(n^2) along an
    axis of n, against a scan's O(n). Only for the element types convert-te-to-loop's scan
    does not take (f16, bf16, unsigned: `scan_to_loop.scans`), which convert-graph-to-te
    leaves in @main otherwise."""
    props = op.properties
    axis = get_int(props, "axis")
    exclusive, reverse = get_int(props, "exclusive", 0), get_int(props, "reverse", 0)
    kind = "sum" if isinstance(op, graph.CumSumOp) else "prod"

    def term(*a: Expr) -> Expr:
        i, k = a[:-1], a[-1]
        t = i[axis]
        taken = (k > t if exclusive else k >= t) if reverse else (k < t if exclusive else k <= t)
        return select(taken, x[(*i[:axis], k, *i[axis + 1 :])], 1 if kind == "prod" else 0)

    return [kb.compute(x.shape, x.element_type, term, reduce=(kind, [x.shape[axis]]))]


@lowering(graph.ReverseSequenceOp)
def _reverse_sequence(
    kb: KernelBuilder, op: graph.ReverseSequenceOp, x: Tensor, lens: Tensor
) -> list[Tensor]:
    """A gather along time_axis: t reads L - 1 - t below L = sequence_lens[b], else t (L
    clamped into [0, steps], so every read is in bounds)."""
    batch, time = get_int(op.properties, "batch_axis"), get_int(op.properties, "time_axis")
    steps = x.shape[time]

    def body(*i: Expr) -> Expr:
        length = clamp(cast(lens[i[batch]], IndexType()), 0, steps)
        t = i[time]
        index: list[Index] = list(i)
        index[time] = select(t < length, length - 1 - t, t)
        return x[index]

    return [kb.compute(_result_shape(op), x.element_type, body)]


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
                index.append(0)  # reflect cannot pad a size-1 dim; edge and wrap repeat it
                continue
            if lo == 0 and hi == 0:
                index.append(i[d])
                continue
            src = i[d] - lo if lo else i[d]
            if mode == "reflect":
                index.append(_reflect(src, size))
                continue
            if mode == "wrap":
                index.append(src % size)  # floored: -1 is the last element
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


def _reduce(
    kb: KernelBuilder,
    op: graph.ReduceOp,
    x: Tensor,
    kind: str,
    term: Callable[[Expr, Sequence[Expr]], Expr] = lambda v, i: v,
) -> Tensor:
    """The `kind` reduction over op's axes of `term(x element, result index)` (the pre-map:
    |x|, x * x, exp(x - max))."""
    axes = get_ints(op.properties, "axes")
    keepdims = bool(get_int(op.properties, "keepdims", 1))
    kept = [d for d in range(len(x.shape)) if d not in axes]

    def body(*args: Expr) -> Expr:
        spatial, reduced = args[: len(args) - len(axes)], args[len(args) - len(axes) :]
        index: list[Expr] = [reduced[axes.index(d)] if d in axes else
                             spatial[d if keepdims else kept.index(d)]
                             for d in range(len(x.shape))]  # fmt: skip
        return term(x[index], spatial)

    extents = [x.shape[a] for a in axes]
    return kb.compute(_result_shape(op), x.element_type, body, reduce=(kind, extents))


def _post(kb: KernelBuilder, t: Tensor, fn: Callable[[Expr, Sequence[Expr]], Expr]) -> Tensor:
    """`fn(t element, index)` at every index of `t`: a reduction's post-map (sqrt, log),
    which the fused schedule runs in the reduction's loop nest."""
    return kb.compute(t.shape, t.element_type, lambda *i: fn(t[i], i))


_PLAIN: dict[type[graph.ReduceOp], str] = {
    graph.ReduceSumOp: "sum", graph.ReduceMaxOp: "max", graph.ReduceMinOp: "min",
    graph.ReduceProdOp: "prod",
}  # fmt: skip


@lowering(*_PLAIN)
def _reduce_plain(kb: KernelBuilder, op: graph.ReduceOp, x: Tensor) -> list[Tensor]:
    return [_reduce(kb, op, x, _PLAIN[type(op)])]


@lowering(graph.ReduceMeanOp)
def _reduce_mean(kb: KernelBuilder, op: graph.ReduceMeanOp, x: Tensor) -> list[Tensor]:
    total = _reduce(kb, op, x, "sum")
    count = math.prod(x.shape[a] for a in get_ints(op.properties, "axes"))
    if count == 0 and not is_float_type(x.element_type):
        # Over no elements the spec leaves the mean undefined: a float's is 0/0 = NaN (ONNX's
        # reference), an integer's the empty sum, 0 (ONNX Runtime), not a division by zero.
        return [total]
    # Integer means truncate toward zero (numpy's mean, then astype); divsi does exactly that.
    return [_post(kb, total, lambda s, i: s / count)]


@lowering(graph.ReduceL1Op)
def _reduce_l1(kb: KernelBuilder, op: graph.ReduceL1Op, x: Tensor) -> list[Tensor]:
    return [_reduce(kb, op, x, "sum", lambda v, i: abs_(v))]


@lowering(graph.ReduceSumSquareOp)
def _reduce_sum_square(kb: KernelBuilder, op: graph.ReduceSumSquareOp, x: Tensor) -> list[Tensor]:
    return [_reduce(kb, op, x, "sum", lambda v, i: v * v)]


@lowering(graph.ReduceL2Op)
def _reduce_l2(kb: KernelBuilder, op: graph.ReduceL2Op, x: Tensor) -> list[Tensor]:
    square_sum = _reduce(kb, op, x, "sum", lambda v, i: v * v)
    return [_post(kb, square_sum, lambda s, i: sqrt(s))]


@lowering(graph.ReduceLogSumOp)
def _reduce_log_sum(kb: KernelBuilder, op: graph.ReduceLogSumOp, x: Tensor) -> list[Tensor]:
    return [_post(kb, _reduce(kb, op, x, "sum"), lambda s, i: log(s))]


@lowering(graph.ReduceLogSumExpOp)
def _reduce_log_sum_exp(kb: KernelBuilder, op: graph.ReduceLogSumExpOp, x: Tensor) -> list[Tensor]:
    """m + log(sum(exp(x - m))) with m = max(x), as ONNX Runtime computes it: no exp
    overflows, and an infinite m counts as 0 (all -inf gives log(0) = -inf, not -inf - -inf
    = NaN; a +inf gives +inf). Over an empty set m is -inf, so the result is log(0) = -inf."""
    peak = _reduce(kb, op, x, "max")

    def shift(i: Sequence[Expr]) -> Expr:  # loop-invariant in the sum: LLVM hoists it
        m = peak[i]
        return select(abs_(m).eq(math.inf), 0.0, m)

    total = _reduce(kb, op, x, "sum", lambda v, i: exp(v - shift(i)))
    return [_post(kb, total, lambda s, i: log(s) + shift(i))]


@lowering(graph.ArgMaxOp, graph.ArgMinOp)
def _arg_extreme(kb: KernelBuilder, op: graph.ArgReduceOp, x: Tensor) -> list[Tensor]:
    """Two reductions along `axis`: the extreme value m (NaNs left out), then the first
    (min) or last (max) index whose element equals m. As ONNX Runtime's scan, a NaN at
    index 0 gives index 0 (every comparison with it fails); other NaNs are never chosen."""
    props = op.properties
    axis = get_int(props, "axis")
    keepdims = bool(get_int(props, "keepdims", 1))
    last = bool(get_int(props, "select_last_index", 0))
    largest = isinstance(op, graph.ArgMaxOp)
    size = x.shape[axis]
    floats = is_float_type(x.element_type)
    shape = _result_shape(op)

    def element(spatial: Sequence[Expr], r: Index) -> Expr:
        index: list[Index] = list(spatial)
        if keepdims:
            index[axis] = r
        else:
            index.insert(axis, r)
        return x[index]

    def value(*args: Expr) -> Expr:
        v = element(args[:-1], args[-1])
        return select(v.ne(v), -math.inf if largest else math.inf, v) if floats else v

    best = kb.compute(shape, x.element_type, value, reduce=("max" if largest else "min", [size]))

    def index_of_best(*args: Expr) -> Expr:
        spatial, r = args[:-1], args[-1]
        v = element(spatial, r)
        hit = select(v.eq(best[spatial]), cast(r, i64), -1 if last else size)
        if not floats:
            return hit
        first = element(spatial, 0)  # loop-invariant along r
        return select(first.ne(first), 0, hit)

    # Along a contiguous axis loop-vectorize leaves this pass scalar (the index_cast of its
    # induction variable); LLVM's vectorizer takes it: 64 x 4096, 0.1 ms for both passes.
    return [kb.compute(shape, i64, index_of_best, reduce=("max" if last else "min", [size]))]
