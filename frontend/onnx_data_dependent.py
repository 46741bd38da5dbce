"""Converters of ops whose output shape depends on their input's values, built on one graph op.

`graph.flat_nonzero` (the row-major positions of a mask's true elements, numpy's flatnonzero)
has a result size found as it runs, at most the mask's element count: a size of its own that
the ops after it take as a run-time size, as they take `batch` or `seq` (graph.iota, the other
such op, serves `onnx_run_time_shapes`). Everything else is ordinary tensor
ops on that result:

    NonZero(x)                 positions of x != 0, unravelled: (p // stride_d) % dim_d per axis
    Compress(x, c, axis)       Gather(x, flat_nonzero(c), axis) (x flattened without an axis)
    TopK(x, K) (K at run time) the k positions 0..k-1 = flat_nonzero(range(n) < K) of
                               each row's graph.argsort (a stable sort), the values
                               gathered there
    Unique(x, axis, sorted)    u = the starts of groups of equal elements (slices) in x's
                               stable sort (graph.argsort; slices: one sort per element);
                               first indices, groups, counts from them. Slices of more than
                               16 elements: how many have no equal one before them, each
                               one's place among the u from an n x n comparison
    NonMaxSuppression          graph.greedy_nms keeps boxes greedily in each class's score
                               order; the kept (batch, class, rank) triples are
                               flat_nonzero's
    Slice (starts, ends at     per axis, the positions start + k * step within the clamped
      run time)                bounds: flat_nonzero of a mask over the axis; a Gather of them

When the input that decides the size is a constant, the result is computed at import instead
(a constant, or a constant index operand) and nothing is data-dependent.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.base import Dim
from minitvm.dialects.graph.constant import element_type_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter
from minitvm.symbolic import SymDim, name_from, product, symbol


def count_name(ctx: NodeContext, which: str = "") -> str:
    """The name of the size a node's count gets: from its first output, which no other node
    of the graph writes (`nonzero_out_count`; `which` tells a node's counts apart)."""
    return f"{name_from(ctx.node.output[0])}_count{which}"


def flat_nonzero(ctx: NodeContext, mask: SSAValue, which: str = "") -> SSAValue:
    """The positions of `mask`'s true elements (a vector of i64, its size found at run time)."""
    return ctx.make1(g.FlatNonzeroOp, mask, size=count_name(ctx, which))


def index_scalar(ctx: NodeContext, value: Dim, name: str) -> SSAValue:
    """An i64 scalar holding a size: a constant, or a `graph.sizes` of a symbolic one."""
    if isinstance(value, SymDim):
        return ctx.make1(g.SizesOp, values=[value], shape=[], element_type=i64)
    return ctx.materialize(np.array(value, np.int64), name)


def _is_true(ctx: NodeContext, x: SSAValue) -> SSAValue:
    """A boolean mask of x != 0 (x itself if boolean)."""
    dtype = ctx.dtype(0)
    if dtype == np.bool_:
        return x
    zero = ctx.materialize(np.zeros((), dtype), f"{ctx.node.output[0]}_zero")
    return ctx.make1(g.NotOp, ctx.make1(g.EqualOp, x, zero))


@converter("NonZero")
def convert_non_zero(ctx: NodeContext) -> list[Value]:
    """The indices of x's non-zero elements, one column per element in row-major order: shape
    [rank, count]. A scalar counts as a vector of one (as numpy and ONNX Runtime do)."""
    value = ctx.value(0)
    if isinstance(value, np.ndarray):
        return [np.array(np.nonzero(np.atleast_1d(value)), dtype=np.int64)]
    shape = ctx.shape(0) or (1,)
    mask = _is_true(ctx, ctx.tensor(0))
    if not ctx.shape(0):
        mask = ctx.make1(g.ReshapeOp, mask, shape=[1])
    positions = flat_nonzero(ctx, mask)
    count = symbol(count_name(ctx))
    rows = []
    name = ctx.node.output[0]
    for axis, size in enumerate(shape):
        stride = product(shape[axis + 1 :])
        row = positions
        if stride != 1:
            row = ctx.make1(g.DivOp, row, index_scalar(ctx, stride, f"{name}_stride{axis}"))
        if axis > 0:
            row = ctx.make1(g.ModOp, row, index_scalar(ctx, size, f"{name}_size{axis}"))
        rows.append(ctx.make1(g.ReshapeOp, row, shape=[1, count]))
    return [rows[0] if len(rows) == 1 else ctx.make1(g.ConcatOp, rows, axis=0)]


@converter("Compress")
def convert_compress(ctx: NodeContext) -> list[Value]:
    """The slices of x along `axis` (of the flattened x without one) where `condition` is
    true; a condition shorter than the axis leaves the rest out, a longer one is cut."""
    shape = ctx.shape(0)
    x: Value = ctx.value(0)
    if ctx.has_attr("axis"):
        axis = ctx.axis(ctx.attr_int("axis", 0), len(shape))
    else:
        axis, shape = 0, (product(shape),)
        if not isinstance(x, np.ndarray):
            x = ctx.make1(g.ReshapeOp, x, shape=list(shape))
        else:
            x = x.reshape(-1)
    if len(ctx.shape(1)) != 1:
        raise ctx.error(f"condition must be a vector, got shape {list(ctx.shape(1))}")
    length = ctx.shape(1)[0]
    if isinstance(length, int) and isinstance(shape[axis], int) and length > shape[axis]:
        raise ctx.error(
            f"condition has {length} elements, more than the {shape[axis]} of axis {axis}"
        )
    condition = ctx.value(1)
    if isinstance(condition, np.ndarray):
        indices: Value = np.flatnonzero(condition).astype(np.int64)
        if isinstance(x, np.ndarray):
            return [np.take(x, indices, axis=axis)]
        indices = ctx.materialize(indices, f"{ctx.node.output[0]}_indices")
    else:
        if ctx.dtype(1) != np.bool_:
            condition = ctx.make1(g.CastOp, condition, to=element_type_of(np.dtype(np.bool_)))
        indices = flat_nonzero(ctx, condition)
    data = x if not isinstance(x, np.ndarray) else ctx.materialize(x, f"{ctx.node.output[0]}_data")
    return [ctx.make1(g.GatherOp, data, indices, axis=axis)]


def selects(k: int, n: Dim) -> bool:
    """Whether to select the first k of n positions with a heap of k (n log2 k steps at most,
    k log2 k to sort the heap) rather than merge-sort all n (n log2 n, each step lighter):
    where k is at most a quarter of n, or n is known only at run time."""
    return isinstance(n, SymDim) or 4 * k <= n


def _signed_keys(ctx: NodeContext, x: SSAValue, dtype: np.dtype) -> SSAValue:
    """`x` as numbers that sort in the same order and compare signed (graph.argsort's):
    unsigned and boolean values widened to i64; u64 bitcast to i64 with its top bit flipped
    (2^63 and above sort above the rest)."""
    if dtype == np.uint64:
        top = ctx.materialize(np.array(np.iinfo(np.int64).min, np.int64), f"{ctx.node.output[0]}_top_bit")
        return ctx.make1(g.BitwiseXorOp, ctx.make1(g.BitcastOp, x, to=i64), top)
    if dtype.kind == "u" or dtype == np.bool_:
        return ctx.make1(g.CastOp, x, to=i64)
    return x


def top_k_by_sort(ctx: NodeContext, axis: int, largest: bool, k: int | None) -> list[Value]:
    """TopK by `graph.argsort` of each row along `axis` (moved last), a stable sort (ties to
    the lower index): the first k positions selected in one pass with a heap where that is
    cheaper than sorting the row (`selects`), else the row sorted and its first k positions
    taken. A k known only at run time (None) is a size found as it runs, the count of the
    positions 0..k-1 (a graph.iota of K at most n, so k = min(max(K, 0), n)), and the heap
    takes that many. The values are gathered at the positions."""
    shape = ctx.shape(0)
    rank, n = len(shape), shape[axis]
    perm = [*(d for d in range(rank) if d != axis), axis]
    x = ctx.tensor(0)
    if axis != rank - 1:
        x = ctx.make1(g.TransposeOp, x, perm=perm)
    outer = [shape[d] for d in perm[:-1]]
    rows = ctx.make1(g.ReshapeOp, x, shape=[product(outer), n])
    keys = _signed_keys(ctx, rows, ctx.dtype(0))
    if k is not None and selects(k, n):
        first = ctx.make1(g.ArgSortOp, keys, k=k, descending=int(largest))
        taken: Dim = k
    elif k is not None:
        order = ctx.make1(g.ArgSortOp, keys, descending=int(largest))
        first = ctx.make1(g.SliceOp, order, starts=[0, 0], ends=[product(outer), k], steps=[1, 1])
        taken = k
    else:
        k_input = ctx.tensor(1)
        if ctx.dtype(1) != np.int64:
            k_input = ctx.make1(g.CastOp, k_input, to=i64)
        k_scalar = ctx.make1(g.ReshapeOp, k_input, shape=[])
        positions = ctx.make1(g.IotaOp, k_scalar, size=count_name(ctx), most=n)
        taken = symbol(count_name(ctx))
        selected = ctx.make1(g.ArgSortOp, keys, k=taken, descending=int(largest))
        # (the gather of positions 0..k-1 orders the selection after the count it is sized by)
        first = ctx.make1(g.GatherOp, selected, positions, axis=1)
    values = ctx.make1(g.GatherElementsOp, rows, first, axis=1)
    results = [ctx.make1(g.ReshapeOp, v, shape=[*outer, taken]) for v in (values, first)]
    if axis != rank - 1:
        inverse = [perm.index(d) for d in range(rank)]
        results = [ctx.make1(g.TransposeOp, v, perm=inverse) for v in results]
    return results  # type: ignore[return-value]


#: The most elements a slice of Unique's `axis` may have to be sorted (one stable sort per
#: element, last first); longer slices are compared pairwise.
MAX_SORTED_SLICE = 16


def unique_by_sort(ctx: NodeContext, axis: int | None) -> list[Value]:
    """Unique of x flattened (`axis` None), or of its slices along `axis`, from a stable sort:
    the slices' lexicographic order is one stable sort per element of a slice, the last one
    first. In sorted order a slice starts a group where it differs from the one before; the
    groups' starts are found at run time (u of them); the first index of each is the sorted
    position's source (the sorts are stable), every slice's group its running count of
    starts read through the inverse permutation of the sort (graph.invert_permutation), each
    group's count the distance to the next start. With sorted=0 the groups are reordered by
    their first index (a sort of u). O(n log n) per element of a slice; no scatter (a te
    scatter reads every update for each element it writes)."""
    shape = ctx.shape(0)
    name = ctx.node.output[0]
    x = ctx.tensor(0)
    if axis is None:
        n, width, front = product(shape), 1, x
    else:
        perm = [axis, *(d for d in range(len(shape)) if d != axis)]
        front = ctx.make1(g.TransposeOp, x, perm=perm) if axis else x
        n, width = shape[axis], product([d for i, d in enumerate(shape) if i != axis])
    slices = ctx.make1(g.ReshapeOp, front, shape=[n, width])

    def argsort(values: SSAValue, length: Dim, dtype: np.dtype) -> SSAValue:
        keys = _signed_keys(ctx, ctx.make1(g.ReshapeOp, values, shape=[1, length]), dtype)
        return ctx.make1(g.ReshapeOp, ctx.make1(g.ArgSortOp, keys), shape=[length])

    zero, one = (ctx.materialize(np.array(v, np.int64), f"{name}_{w}") for v, w in ((0, "zero"), (1, "one")))
    p = ctx.make1(g.RangeOp, start=0, delta=1, length=n, element_type=i64)
    order = p
    for column in reversed(range(width)):  # (width is a number: `convert_unique`)
        index = ctx.materialize(np.array([column], np.int64), f"{name}_column{column}")
        values = ctx.make1(g.ReshapeOp, ctx.make1(g.GatherOp, slices, index, axis=1), shape=[n])
        keyed = values if column == width - 1 else ctx.make1(g.GatherOp, values, order, axis=0)
        ranked = argsort(keyed, n, ctx.dtype(0))
        order = ranked if column == width - 1 else ctx.make1(g.GatherOp, order, ranked, axis=0)
    ordered = ctx.make1(g.GatherOp, slices, order, axis=0)  # [n, width]
    before = ctx.make1(g.GatherOp, ordered, ctx.make1(g.MaxOp, ctx.make1(g.SubOp, p, one), zero), axis=0)
    differ = ctx.make1(g.CastOp, ctx.make1(g.NotOp, ctx.make1(g.EqualOp, ordered, before)), to=i64)
    changed = ctx.make1(g.GreaterOp, ctx.make1(g.ReduceSumOp, differ, axes=[1], keepdims=0), zero)
    starts_group = ctx.make1(g.OrOp, ctx.make1(g.EqualOp, p, zero), changed)
    starts = flat_nonzero(ctx, starts_group)  # [u]
    group = ctx.make1(g.SubOp, ctx.make1(g.CumSumOp, ctx.make1(g.CastOp, starts_group, to=i64), axis=0), one)
    u = symbol(count_name(ctx))
    indices = ctx.make1(g.GatherOp, order, starts, axis=0)  # each group's first index
    # a group's count: where the next one starts (n after the last) less where it starts
    ends = ctx.make1(g.ConcatOp, [starts, ctx.make1(g.ReshapeOp, index_scalar(ctx, n, f"{name}_n"), shape=[1])], axis=0)
    places = ctx.make1(g.RangeOp, start=0, delta=1, length=u, element_type=i64)
    counts = ctx.make1(g.SubOp, ctx.make1(g.GatherOp, ends, ctx.make1(g.AddOp, places, one), axis=0), starts)
    # each slice's group: its sorted position's, read through the inverse permutation
    inverse = ctx.make1(g.GatherOp, group, ctx.make1(g.InvertPermutationOp, order), axis=0)
    if not ctx.attr_int("sorted", 1):  # the groups in order of their first index
        perm = argsort(indices, u, np.dtype(np.int64))
        indices = ctx.make1(g.GatherOp, indices, perm, axis=0)
        counts = ctx.make1(g.GatherOp, counts, perm, axis=0)
        inverse = ctx.make1(g.GatherOp, ctx.make1(g.InvertPermutationOp, perm), inverse, axis=0)
    if axis is None:
        y = ctx.make1(g.GatherOp, ctx.make1(g.ReshapeOp, x, shape=[n]), indices, axis=0)
    else:
        y = ctx.make1(g.GatherOp, x, indices, axis=axis)
    return [y, indices, inverse, counts]


@converter("Unique")
def convert_unique(ctx: NodeContext) -> list[Value]:
    """The distinct elements of x (without `axis`: of x flattened), or its distinct slices
    along `axis`; sorted ascending (slices lexicographically) or, with sorted=0, in order of
    first occurrence; with each one's first index, every element's index into them, and
    their counts. Sorted (`unique_by_sort`) but for slices longer than MAX_SORTED_SLICE,
    which come from an n x n comparison: slice i is a first
    occurrence when no j < i equals it; its place among the distinct ones (its inverse index)
    counts the first occurrences that come before it (a smaller value, or an earlier first
    occurrence); the count u of first occurrences is found at run time."""
    shape = ctx.shape(0)
    name = ctx.node.output[0]
    x = ctx.tensor(0)
    if not ctx.has_attr("axis"):
        return unique_by_sort(ctx, None)
    axis = ctx.axis(ctx.attr_int("axis", 0), len(shape))
    width = product([d for i, d in enumerate(shape) if i != axis])
    if isinstance(width, int) and width <= MAX_SORTED_SLICE:
        return unique_by_sort(ctx, axis)
    if ctx.has_attr("axis"):
        axis = ctx.axis(ctx.attr_int("axis", 0), len(shape))
        perm = [axis, *(d for d in range(len(shape)) if d != axis)]
        front = ctx.make1(g.TransposeOp, x, perm=perm) if axis else x
        n, rest = shape[axis], product([d for i, d in enumerate(shape) if i != axis])
    else:
        axis, front = None, x
        n, rest = product(shape), 1
    slices = ctx.make1(g.ReshapeOp, front, shape=[n, rest])
    a = ctx.make1(g.ReshapeOp, slices, shape=[n, 1, rest])  # slice i
    b = ctx.make1(g.ReshapeOp, slices, shape=[1, n, rest])  # slice j
    zero = ctx.materialize(np.zeros((), np.int64), f"{name}_zero")

    def count(mask: SSAValue, axes: list[int]) -> SSAValue:
        return ctx.make1(g.ReduceSumOp, ctx.make1(g.CastOp, mask, to=i64), axes=axes, keepdims=0)

    differ = ctx.make1(g.NotOp, ctx.make1(g.EqualOp, a, b))  # [i, j, k]
    equal = ctx.make1(g.EqualOp, count(differ, [2]), zero)  # [i, j]
    order = ctx.make1(g.RangeOp, start=0, delta=1, length=n, element_type=i64)
    i_index = ctx.make1(g.ReshapeOp, order, shape=[n, 1])
    j_index = ctx.make1(g.ReshapeOp, order, shape=[1, n])
    repeats = ctx.make1(g.AndOp, equal, ctx.make1(g.LessOp, j_index, i_index))
    first = ctx.make1(g.EqualOp, count(repeats, [1]), zero)  # [i]
    positions = flat_nonzero(ctx, first)
    if ctx.attr_int("sorted", 1):
        if rest == 1:
            smaller = ctx.make1(g.LessOp, b, a)
            before = ctx.make1(g.ReshapeOp, smaller, shape=[n, n])
        else:  # at the first element where slices j and i differ, j's is smaller
            where = ctx.make1(g.ArgMaxOp, ctx.make1(g.CastOp, differ, to=i64), axis=2, keepdims=1)
            smaller = ctx.make1(g.CastOp, ctx.make1(g.LessOp, b, a), to=i64)
            decided = ctx.make1(g.GatherElementsOp, smaller, where, axis=2)
            one = ctx.materialize(np.ones((), np.int64), f"{name}_one")
            before = ctx.make1(
                g.AndOp,
                ctx.make1(g.EqualOp, ctx.make1(g.ReshapeOp, decided, shape=[n, n]), one),
                ctx.make1(g.NotOp, equal),
            )
    else:  # j is a first occurrence before i's
        earliest = ctx.make1(g.ArgMaxOp, ctx.make1(g.CastOp, equal, to=i64), axis=1, keepdims=1)
        before = ctx.make1(g.LessOp, j_index, earliest)
    first_j = ctx.make1(g.ReshapeOp, first, shape=[1, n])
    inverse = count(ctx.make1(g.AndOp, first_j, before), [1])  # [i]
    u = symbol(count_name(ctx))
    places = ctx.make1(g.RangeOp, start=0, delta=1, length=u, element_type=i64)
    at = ctx.make1(g.EqualOp, ctx.make1(g.ReshapeOp, inverse, shape=[n, 1]), ctx.make1(g.ReshapeOp, places, shape=[1, u]))
    counts = count(at, [0])
    indices = positions  # the first occurrences, in order
    if ctx.attr_int("sorted", 1):  # the one whose place is p, for each p
        place = ctx.make1(g.GatherOp, inverse, positions, axis=0)
        picked = ctx.make1(
            g.EqualOp, ctx.make1(g.ReshapeOp, place, shape=[u, 1]), ctx.make1(g.ReshapeOp, places, shape=[1, u])
        )  # [q, p]
        column = ctx.make1(g.ReshapeOp, positions, shape=[u, 1])
        indices = ctx.make1(
            g.ReduceSumOp, ctx.make1(g.WhereOp, picked, column, zero), axes=[0], keepdims=0
        )
    data = x if axis is not None else ctx.make1(g.ReshapeOp, x, shape=[n])
    y = ctx.make1(g.GatherOp, data, indices, axis=axis or 0)
    return [y, indices, inverse, counts]


@converter("NonMaxSuppression")
def convert_non_max_suppression(ctx: NodeContext) -> list[Value]:
    """[batch, class, box] of the boxes each class keeps, per batch and class in order of
    decreasing score (ties to the lower index): greedily, a box is kept when its score is
    above score_threshold (if given), fewer than max_output_boxes_per_class are kept so far,
    and its IoU with none of those is above iou_threshold.

    `graph.greedy_nms` makes the greedy pass over the boxes as given (corners or centers:
    it works out each box's corners and area once), the candidates in a heap, popped best
    first, each compared with the boxes kept so far only, as far as the class's count allows. Its kept ranks, row-major in
    (batch, class, rank), are the output's rows: flat_nonzero of them, the box read from the
    pass's order at that position."""
    boxes_shape, scores_shape = ctx.shape(0), ctx.shape(1)
    if len(boxes_shape) != 3 or len(scores_shape) != 3 or boxes_shape[2] != 4:
        raise ctx.error(
            f"boxes must be [batch, boxes, 4] and scores [batch, classes, boxes], got "
            f"{list(boxes_shape)} and {list(scores_shape)}"
        )
    batch, n, _ = boxes_shape
    classes = scores_shape[1]
    name = ctx.node.output[0]
    f32 = element_type_of(np.dtype(np.float32))

    def scalar(i: int, dtype: type, default: float | None) -> SSAValue | None:
        if not ctx.has_input(i):
            return None if default is None else ctx.materialize(np.array(default, dtype), f"{name}_{i}")
        value = ctx.value(i)
        if isinstance(value, np.ndarray):
            return ctx.materialize(np.asarray(value, dtype).reshape(()), f"{name}_{i}")
        if ctx.dtype(i) != np.dtype(dtype):
            value = ctx.make1(g.CastOp, value, to=element_type_of(np.dtype(dtype)))
        return ctx.make1(g.ReshapeOp, value, shape=[])

    max_boxes = scalar(2, np.int64, 0)
    iou_threshold = scalar(3, np.float32, 0.0)
    score_threshold = scalar(4, np.float32, None)
    assert max_boxes is not None and iou_threshold is not None
    boxes, scores = ctx.tensor(0), ctx.tensor(1)
    if ctx.dtype(0) != np.float32:
        boxes = ctx.make1(g.CastOp, boxes, to=f32)
    if ctx.dtype(1) != np.float32:
        scores = ctx.make1(g.CastOp, scores, to=f32)

    threshold = score_threshold
    if threshold is None:  # (not read)
        threshold = ctx.materialize(np.zeros((), np.float32), f"{name}_no_threshold")
    nms = ctx.make(g.GreedyNmsOp, boxes, scores, max_boxes, iou_threshold, threshold,
                   thresholded=int(score_threshold is not None),
                   center_point_box=int(bool(ctx.attr_int("center_point_box", 0))))  # fmt: skip
    ranked_out, order = nms.keep, nms.order  # [batch, classes, n]: kept, and the box of each rank

    rows = flat_nonzero(ctx, ranked_out)  # (b * classes + c) * n + rank
    s = symbol(count_name(ctx))
    per_batch = index_scalar(ctx, classes * n, f"{name}_per_batch")
    per_class = index_scalar(ctx, n, f"{name}_per_class")
    classes_v = index_scalar(ctx, classes, f"{name}_classes")
    b_index = ctx.make1(g.DivOp, rows, per_batch)
    c_index = ctx.make1(g.ModOp, ctx.make1(g.DivOp, rows, per_class), classes_v)
    flat_order = ctx.make1(g.ReshapeOp, order, shape=[batch * classes * n])
    box_index = ctx.make1(g.GatherOp, flat_order, rows, axis=0)
    columns = [ctx.make1(g.ReshapeOp, v, shape=[s, 1]) for v in (b_index, c_index, box_index)]
    return [ctx.make1(g.ConcatOp, columns, axis=1)]


def slice_at_run_time(
    ctx: NodeContext, shape: Sequence[Dim], axes: Sequence[int], steps: Sequence[int]
) -> SSAValue:
    """Slice whose starts and ends come at run time (axes and steps known now): along each
    axis, ONNX's clamping on the run-time bounds, then the positions start + k * step in
    range as the true elements of a mask over the axis (increasing; read backwards for a
    negative step), and a Gather of them."""
    name = ctx.node.output[0]
    x = ctx.tensor(0)
    bounds = []
    for i in (1, 2):
        value = ctx.tensor(i)
        if ctx.dtype(i) != np.int64:
            value = ctx.make1(g.CastOp, value, to=i64)
        bounds.append(value)
    zero = ctx.materialize(np.zeros((), np.int64), f"{name}_zero")
    for k, (axis, step) in enumerate(zip(axes, steps, strict=True)):
        n = shape[axis]
        size = index_scalar(ctx, n, f"{name}_size{k}")
        at = ctx.materialize(np.array(k, np.int64), f"{name}_at{k}")
        start, end = (ctx.make1(g.GatherOp, b, at, axis=0) for b in bounds)

        def counted(v: SSAValue, size: SSAValue = size) -> SSAValue:  # negatives from the end
            return ctx.make1(g.WhereOp, ctx.make1(g.LessOp, v, zero), ctx.make1(g.AddOp, v, size), v)

        def clamped(v: SSAValue, lo: SSAValue, hi: SSAValue) -> SSAValue:
            return ctx.make1(g.MinOp, ctx.make1(g.MaxOp, v, lo), hi)

        start, end = counted(start), counted(end)
        last = index_scalar(ctx, n - 1, f"{name}_last{k}")
        if step > 0:
            start, end = clamped(start, zero, size), clamped(end, zero, size)
        else:
            minus_one = ctx.materialize(np.array(-1, np.int64), f"{name}_minus_one")
            start, end = clamped(start, zero, last), clamped(end, minus_one, last)
        order = ctx.make1(g.RangeOp, start=0, delta=1, length=n, element_type=i64)
        first, after = (start, end) if step > 0 else (end, start)
        # step > 0: start <= i < end; step < 0: end < i <= start
        inside = ctx.make1(
            g.AndOp,
            ctx.make1(g.GreaterEqualOp if step > 0 else g.GreaterOp, order, first),
            ctx.make1(g.LessOp if step > 0 else g.LessEqualOp, order, after),
        )
        if abs(step) > 1:
            offset = ctx.make1(g.SubOp, order, start) if step > 0 else ctx.make1(g.SubOp, start, order)
            stride = ctx.materialize(np.array(abs(step), np.int64), f"{name}_step{k}")
            on_step = ctx.make1(g.EqualOp, ctx.make1(g.ModOp, offset, stride), zero)
            inside = ctx.make1(g.AndOp, inside, on_step)
        positions = flat_nonzero(ctx, inside, str(k))
        if step < 0:  # the k-th from the end
            count = symbol(count_name(ctx, str(k)))
            back = ctx.make1(g.RangeOp, start=-1, delta=-1, length=count, element_type=i64)
            positions = ctx.make1(g.GatherOp, positions, back, axis=0)
        x = ctx.make1(g.GatherOp, x, positions, axis=axis)
    return x
