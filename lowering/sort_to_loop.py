"""The loops of a graph.argsort, which convert-te-to-loop writes into @main: a stable
bottom-up merge sort of each row's positions, or, for the first k of them, a selection.

A sort has no tensor-expression form (each output depends on every input through data-
dependent choices), so like graph.flat_nonzero it is written as loops on buffers. Each row's
positions start as 0..n-1, their keys copied into a row beside them (a merge compares keys
read in order, not x read at each position: 8.7 -> 5.1 ms for a 50257 row); pass w (1, 2,
4, ... < n) merges the sorted runs [lo, lo+w) and [lo+w, lo+2w) of both into scratch rows,
which are then copied back. The merge has no branch: each
step reads the heads of both runs (clamped into them once one is used up), takes the right
one only if it is still there and strictly better or the left is used up (so ties keep their
order: stable), and carries the two heads. O(n log n) per row; for a run-time n the passes
are a loop of log2(its bound) whose steps past n do nothing.

    for r: for t < n: out[r, t] = t; keys[t] = x[r, t]
           for w in 1, 2, 4, ... < n:
             for lo in 0, 2w, 4w, ... < n: merge out[r, lo:mid], out[r, mid:hi] into scratch
             out[r, :] = scratch

The first k < n positions (TopK's) are selected in one pass over the row instead, with a
heap of the best k so far in out[r, :k] whose root is the worst of them (heap order: the
sort's, a later index losing a tie): the first k positions are made a heap, each later
element that beats the root replaces it and sifts down, and the heap is then sorted in place
(the worst swapped to the end). Each sift is log2(k) branch-free steps, so the pass costs
O(n + (m + k) log k) for the m elements that enter (about k ln(n/k) on unordered data, all
of them at worst).

    for r: out[r, :k] = 0..k-1; heapify
           for t in k..n-1: if x[r, t] beats x[r, out[r, 0]]: out[r, 0] = t; sift down
           for e = k-1 .. 1: swap out[r, 0], out[r, e]; sift down within e

Once the heap holds good values few elements beat its root, so the scan tests a cache line
of the row at once (SCAN_BLOCK_BYTES: 16 f32) with one vector compare against the root's
value and goes through its elements one by one only where one of them beats it (a block's
elements that do not beat the root then cannot beat a later one, which is no worse). On a
1x50257 row (AMD EPYC, one thread) TopK k=50 took 53 -> 34 us, k=1 18 -> 7 us.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i1, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue

from minitvm.dialects import loop
from minitvm.dialects.graph.base import is_float
from minitvm.lowering.main_loops import Emit, Entry, SiftDown, extent, floor_log2
from minitvm.symbolic import SymDim


def _each_row(emit: Emit, rows: int | SymDim) -> tuple[Emit, SSAValue]:
    """A loop over the rows, appended: its body (the caller ends it with a yield) and row."""
    count, most = extent(emit, rows)
    row_loop = emit.loop(most, None if isinstance(rows, int) else count)
    return Emit(row_loop.body.block), row_loop.body.block.args[0]


def _positions(emit: Emit, out: SSAValue, r: SSAValue, most: int, count: SSAValue | None = None) -> None:
    """out[r, t] = t for t < count (`most`, without a count), in a loop appended."""
    fill = emit.loop(most, count)
    step = Emit(fill.body.block)
    t = fill.body.block.args[0]
    step.add(loop.StoreOp(step(arith.IndexCastOp(t, i64)), out, [r, t]))
    step.add(loop.YieldOp())


@dataclass(frozen=True)
class SortScratch:
    """The rows a merge sort works in: the merged positions (n i64), and the keys of the
    positions in `out`'s row and in the merged row (n of x's element type each), which the
    merges compare instead of reading x at each position."""

    positions: SSAValue
    keys: SSAValue
    merged_keys: SSAValue


def write_argsort(
    block: Block, x: SSAValue, out: SSAValue, scratch: SortScratch,
    rows: int | SymDim, n: int | SymDim, descending: bool, element: Attribute,
) -> None:  # fmt: skip
    """Sort each of the `rows` rows of `x` ([rows, n]) into `out` (i64 positions), in
    `scratch`'s rows, in loops appended to `block`."""
    emit = Emit(block)
    length, most = extent(emit, n)
    body, r = _each_row(emit, rows)
    fill = body.loop(most, None if isinstance(n, int) else length)
    step = Emit(fill.body.block)
    t = fill.body.block.args[0]
    step.add(loop.StoreOp(step(arith.IndexCastOp(t, i64)), out, [r, t]))
    step.add(loop.StoreOp(step(loop.LoadOp(x, [r, t])), scratch.keys, [t]))
    step.add(loop.YieldOp())
    merge = _Merge(x, out, scratch.positions, r, length, most, isinstance(n, int), descending, element,
                   scratch.keys, scratch.merged_keys)  # fmt: skip
    if isinstance(n, int):
        width = 1
        while width < n:
            merge.write(body, body.index(width), -(-n // (2 * width)))
            width *= 2
    else:  # passes to log2 of the bound, each doing nothing once its width reaches n
        passes = body.loop(max(1, (most - 1).bit_length()))
        step = Emit(passes.body.block)
        width = step(arith.ShLIOp(step.index(1), passes.body.block.args[0]))
        guard = loop.IfOp(step(arith.CmpiOp(width, length, "slt")))
        step.block.add_op(guard)
        merge.write(Emit(guard.body.block), width)
        Emit(guard.body.block).add(loop.YieldOp())
        step.add(loop.YieldOp())
    body.add(loop.YieldOp())


@dataclass
class _Merge:
    """One pass of the merge sort of row `r`."""

    x: SSAValue
    out: SSAValue
    scratch: SSAValue
    r: SSAValue
    length: SSAValue
    most: int
    static: bool  # (n is a number: `length` is a constant)
    descending: bool
    element: Attribute
    #: The keys of the positions in `out`'s row and in the scratch row (None: `beats` alone).
    keys: SSAValue | None = None
    merged_keys: SSAValue | None = None

    def write(self, emit: Emit, width: SSAValue, pair_count: int | None = None) -> None:
        """Merge the runs of `width` pairwise into the scratch row (`pair_count` pairs, if
        known now), then copy it back."""
        double = emit(arith.AddiOp(width, width))
        if pair_count is None:
            pairs = emit.loop(self.most, emit(arith.CeilDivSIOp(self.length, double)))
        else:
            pairs = emit.loop(pair_count)
        body = Emit(pairs.body.block)
        lo = body(arith.MuliOp(pairs.body.block.args[0], double))
        mid = body(arith.MinSIOp(body(arith.AddiOp(lo, width)), self.length))
        hi = body(arith.MinSIOp(body(arith.AddiOp(lo, double)), self.length))
        self._merge(body, lo, mid, hi)
        body.add(loop.YieldOp())
        copy = emit.loop(self.most, None if self.static else self.length)
        step = Emit(copy.body.block)
        t = copy.body.block.args[0]
        step.add(loop.StoreOp(step(loop.LoadOp(self.scratch, [t])), self.out, [self.r, t]))
        assert self.keys is not None and self.merged_keys is not None
        step.add(loop.StoreOp(step(loop.LoadOp(self.merged_keys, [t])), self.keys, [t]))
        step.add(loop.YieldOp())

    def _merge(self, emit: Emit, lo: SSAValue, mid: SSAValue, hi: SSAValue) -> None:
        one, zero = emit.index(1), emit.index(0)
        last_left, last_right = emit(arith.SubiOp(mid, one)), emit(arith.SubiOp(hi, one))
        steps = emit.loop(self.most, emit(arith.SubiOp(hi, lo)), (lo, mid))
        body = Emit(steps.body.block)
        t, i, j = steps.body.block.args
        assert self.keys is not None and self.merged_keys is not None
        left_at, right_at = body(arith.MinSIOp(i, last_left)), body(arith.MinSIOp(j, last_right))
        left = body(loop.LoadOp(self.out, [self.r, left_at]))
        right = body(loop.LoadOp(self.out, [self.r, right_at]))
        left_value = body(loop.LoadOp(self.keys, [left_at]))
        right_value = body(loop.LoadOp(self.keys, [right_at]))
        better = body(self.beats(right_value, left_value))
        left_done = body(arith.CmpiOp(i, mid, "sge"))
        right_there = body(arith.CmpiOp(j, hi, "slt"))
        take_right = body(arith.AndIOp(right_there, body(arith.OrIOp(left_done, better))))
        to = body(arith.AddiOp(lo, t))
        body.add(loop.StoreOp(body(arith.SelectOp(take_right, right, left)), self.scratch, [to]))
        body.add(loop.StoreOp(body(arith.SelectOp(take_right, right_value, left_value)), self.merged_keys, [to]))
        next_i = body(arith.AddiOp(i, body(arith.SelectOp(take_right, zero, one))))
        next_j = body(arith.AddiOp(j, body(arith.SelectOp(take_right, one, zero))))
        body.add(loop.YieldOp(next_i, next_j))

    @property
    def predicate(self) -> str:
        """The comparison `beats` makes: greater (descending) or smaller (ascending);
        signless integers compare signed, as ONNX's int types are."""
        if is_float(self.element):
            return "ogt" if self.descending else "olt"
        return "sgt" if self.descending else "slt"

    def beats(self, a: SSAValue, b: SSAValue) -> Operation:
        """a sorts before b (`predicate`)."""
        if is_float(self.element):
            return arith.CmpfOp(a, b, self.predicate)
        return arith.CmpiOp(a, b, self.predicate)


def write_top_k(
    block: Block, x: SSAValue, out: SSAValue, rows: int | SymDim, n: int | SymDim, k: int | SymDim,
    descending: bool, element: Attribute,
) -> None:  # fmt: skip
    """Select the first `k` positions of each row's stable sort of `x` ([rows, n], n >= k)
    into `out` ([rows, k] i64), in loops appended to `block`; k a number or a size known at
    run time (a TopK's k fed as an input)."""
    emit = Emit(block)
    length, most = extent(emit, n)
    size, k_most = extent(emit, k)
    k_most = min(k_most, most)  # (k <= n)
    known = isinstance(k, int)
    body, r = _each_row(emit, rows)
    bits = max(1, k_most.bit_length())
    heap = _Heap(x, out, r, bits, _Merge(x, out, out, r, length, most, True, descending, element))
    _positions(body, out, r, k_most, None if known else size)
    if not known:  # (sifts as deep as this run's heap, not as the bound's)
        heap.depth = floor_log2(body, size, bits)
    one, zero = body.index(1), body.index(0)
    parents = body(arith.DivUIOp(size, body.index(2)))
    heapify = body.loop(k_most // 2, None if known else parents)
    step = Emit(heapify.body.block)
    last_parent = step(arith.SubiOp(parents, one))
    heap.sift_down(step, step(arith.SubiOp(last_parent, heapify.body.block.args[0])), size)
    step.add(loop.YieldOp())
    # (none of the rest enters a heap of no slots)
    others = body(arith.SelectOp(body(arith.CmpiOp(size, zero, "sgt")), body(arith.SubiOp(length, size)), zero))
    rest_most = max(most - k, 0) if known else most
    lanes = _block_lanes(element)
    if lanes is None or rest_most < lanes:
        _offer_each(body, heap, size, size, others, rest_most)
    else:  # a cache line at a time, skipped where no lane beats the root
        blocks = body(arith.DivUIOp(others, body.index(lanes)))
        each = body.loop(rest_most // lanes, blocks)
        step = Emit(each.body.block)
        start = step(arith.AddiOp(size, step(arith.MuliOp(each.body.block.args[0], step.index(lanes)))))
        values = step(loop.VectorLoadOp(x, [r, start], lanes))
        bar = step(loop.BroadcastOp(heap.root_value(step), lanes))
        compare = loop.VectorCmpfOp if is_float(element) else loop.VectorCmpiOp
        beaten = step(compare(heap.order.predicate, values, bar))
        some = step(loop.VectorReduceOp("ori", step(arith.ConstantOp(IntegerAttr(0, i1))), beaten))
        guard = loop.IfOp(some)
        step.add(guard)
        step.add(loop.YieldOp())
        _offer_each(Emit(guard.body.block), heap, size, start, None, lanes)
        guard.body.block.add_op(loop.YieldOp())
        done = body(arith.MuliOp(blocks, body.index(lanes)))
        tail = body(arith.SubiOp(others, done))
        _offer_each(body, heap, size, body(arith.AddiOp(size, done)), tail, min(lanes - 1, rest_most))
    last = body(arith.MaxSIOp(body(arith.SubiOp(size, one)), zero))
    extract = body.loop(max(k_most - 1, 0), None if known else last)
    step = Emit(extract.body.block)
    end = step(arith.SubiOp(last, extract.body.block.args[0]))
    zero = step.index(0)
    first, final = step(loop.LoadOp(out, [r, zero])), step(loop.LoadOp(out, [r, end]))
    step.add(loop.StoreOp(final, out, [r, zero]))
    step.add(loop.StoreOp(first, out, [r, end]))
    heap.sift_down(step, zero, end)
    step.add(loop.YieldOp())
    body.add(loop.YieldOp())


#: The bytes of x the scan of a selection tests at once (a cache line): where no element of
#: them beats the heap's root, which after the first few thousand elements is nearly
#: everywhere, one vector compare passes them all.
SCAN_BLOCK_BYTES = 64


def _block_lanes(element: Attribute) -> int | None:
    """How many elements of `element` the scan tests at once (None: one at a time, for
    types narrower than 32 bits)."""
    width = getattr(element, "bitwidth", None)
    if width not in (32, 64):
        return None
    return SCAN_BLOCK_BYTES * 8 // width


def _offer_each(emit: Emit, heap: _Heap, size: SSAValue, start: SSAValue, count: SSAValue | None, most: int) -> None:
    """For positions t = start, ..., start + count - 1 (count at most `most`; `most` of them
    without a count), in a loop appended: x[r, t] replaces the heap's root and sifts down
    where it beats the root's."""
    each = emit.loop(most, count)
    step = Emit(each.body.block)
    t = step(arith.AddiOp(each.body.block.args[0], start))
    value = step(loop.LoadOp(heap.x, [heap.r, t]))
    guard = loop.IfOp(step(heap.order.beats(value, heap.root_value(step))))
    step.add(guard)
    step.add(loop.YieldOp())
    replace = Emit(guard.body.block)
    replace.add(loop.StoreOp(replace(arith.IndexCastOp(t, i64)), heap.out, [heap.r, replace.index(0)]))
    heap.sift_down(replace, replace.index(0), size)
    replace.add(loop.YieldOp())


def write_inverse_permutation(emit: Emit, perm: SSAValue, out: SSAValue, n: int | SymDim) -> None:
    """out[perm[i]] = i for i < n (graph.invert_permutation: a sort's order read back), one
    loop appended: O(n), where a sort of the permutation is O(n log n)."""
    length, most = extent(emit, n)
    each = emit.loop(most, None if isinstance(n, int) else length)
    step = Emit(each.body.block)
    i = each.body.block.args[0]
    target = step(arith.IndexCastOp(step(loop.LoadOp(perm, [i])), IndexType()))
    step.add(loop.StoreOp(step(arith.IndexCastOp(i, i64)), out, [target]))
    step.add(loop.YieldOp())


def write_first_k(
    block: Block, x: SSAValue, out: SSAValue, full: SSAValue, scratch: SortScratch,
    rows: int | SymDim, n: int | SymDim, k: SymDim, descending: bool, element: Attribute,
) -> None:  # fmt: skip
    """The first `k` (known only at run time) positions of each row's stable sort into `out`,
    chosen as the run goes: the heap selection where k <= n / 4 (as `selects` chooses for a
    k known now), else the whole row merge-sorted into `full` ([rows, n], with `scratch`)
    and its first k columns copied."""
    emit = Emit(block)
    length, most = extent(emit, n)
    size, k_most = extent(emit, k)
    k_most = min(k_most, most)  # (k <= n)
    few = emit(arith.CmpiOp(emit(arith.MuliOp(size, emit.index(4))), length, "sle"))
    select = loop.IfOp(few)
    emit.add(select)
    write_top_k(select.body.block, x, out, rows, n, k, descending, element)
    select.body.block.add_op(loop.YieldOp())
    sort = loop.IfOp(emit(arith.XOrIOp(few, emit(arith.ConstantOp(IntegerAttr(1, i1))))))
    emit.add(sort)
    write_argsort(sort.body.block, x, full, scratch, rows, n, descending, element)
    inside = Emit(sort.body.block)
    body, r = _each_row(inside, rows)
    columns = body.loop(k_most, body(loop.SizeOp(k)))
    step = Emit(columns.body.block)
    t = columns.body.block.args[0]
    step.add(loop.StoreOp(step(loop.LoadOp(full, [r, t])), out, [r, t]))
    step.add(loop.YieldOp())
    body.add(loop.YieldOp())
    inside.add(loop.YieldOp())


@dataclass
class _Heap:
    """A heap of the positions kept of row `r`, in out[r, :size]: the worst kept at the root,
    each parent worse than its children. "Worse" is the stable sort's order with the index
    breaking ties (a later one is worse), so that equal values come out in index order."""

    x: SSAValue
    out: SSAValue
    r: SSAValue
    levels: int  # the most levels a heap of k has below its root (and then some)
    order: _Merge  # (its `beats`)
    depth: SSAValue | None = None  # the levels this run's heap has, if known only now

    def _worse(self, emit: Emit, a: Entry, b: Entry) -> SSAValue:
        """Position a (with its value) sorts after b."""
        (a_at, a_value), (b_at, b_value) = a, b
        equal = emit(arith.CmpfOp(a_value, b_value, "oeq") if is_float(self.order.element)
                     else arith.CmpiOp(a_value, b_value, "eq"))  # fmt: skip
        later = emit(arith.CmpiOp(a_at, b_at, "sgt"))
        return emit(arith.OrIOp(emit(self.order.beats(b_value, a_value)), emit(arith.AndIOp(equal, later))))

    def _at(self, emit: Emit, slot: SSAValue) -> Entry:
        """The position kept in `slot` and its value."""
        position = emit(loop.LoadOp(self.out, [self.r, slot]))
        return position, emit(loop.LoadOp(self.x, [self.r, emit(arith.IndexCastOp(position, IndexType()))]))

    def root_value(self, emit: Emit) -> SSAValue:
        """The value of the position at the root: the one to beat."""
        return self._at(emit, emit.index(0))[1]

    def _store(self, emit: Emit, position: SSAValue, slot: SSAValue) -> None:
        emit.add(loop.StoreOp(position, self.out, [self.r, slot]))

    def sift_down(self, emit: Emit, start: SSAValue, size: SSAValue) -> None:
        """Move the position in slot `start` down the heap of `size` slots (size >= 1) until
        its children are no worse (as many levels as the heap of k has)."""
        SiftDown(self._at, self._store, self._worse, self.levels).write(emit, start, size, self.depth)
