"""The loops of a graph.argsort, which convert-te-to-loop writes into @main: a stable
bottom-up merge sort of each row's positions, or, for the first k of them, a selection.

A sort has no tensor-expression form (each output depends on every input through data-
dependent choices), so like graph.flat_nonzero it is written as loops on buffers. Each row's
positions start as 0..n-1; pass w (1, 2, 4, ... < n) merges the sorted runs [lo, lo+w) and
[lo+w, lo+2w) into a scratch row, which is then copied back. The merge has no branch: each
step reads the heads of both runs (clamped into them once one is used up), takes the right
one only if it is still there and strictly better or the left is used up (so ties keep their
order: stable), and carries the two heads. O(n log n) per row; for a run-time n the passes
are a loop of log2(its bound) whose steps past n do nothing.

    for r: for t < n: out[r, t] = t
           for w in 1, 2, 4, ... < n:
             for lo in 0, 2w, 4w, ... < n: merge out[r, lo:mid], out[r, mid:hi] into scratch
             out[r, :] = scratch

The first k < n positions (TopK's) are selected in one pass over the row instead: the best k
so far are kept in order in out[r, :k]; an element enters if fewer than k are kept or it
beats the last kept (strictly: ties keep the earlier), and is inserted by shifting the kept
ones it beats down by one (no branch inside: a carried flag says whether the slots above
still move). Once k are kept an element rarely enters (about k ln(n/k) times on random
data), so the pass costs O(n + k^2 ln(n/k)); at worst (a row sorted the other way) O(nk).

    for r: for t < n:
             if t < k or x[r, t] beats x[r, out[r, k-1]]:
               for p = min(t, k-1) down to 0: out[r, p] = moving ? (beats x[r, out[r, p-1]]
                                                 ? out[r, p-1] : t) : out[r, p]
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i1, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue

from minitvm.dialects import loop
from minitvm.dialects.graph.base import is_float
from minitvm.symbolic import SymDim, bounds

#: Trip bounds of loops to a run-time size whose symbols have no bound.
UNBOUNDED = 2**40


@dataclass
class _Emit:
    """Appends ops to a block; each call returns the op's result."""

    block: Block

    def __call__(self, op: Operation) -> SSAValue:
        """Append `op`; its result."""
        self.block.add_op(op)
        return op.results[0]

    def add(self, op: Operation) -> None:
        """Append `op` (a store, a yield: no result)."""
        self.block.add_op(op)

    def index(self, value: int) -> SSAValue:
        return self(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def loop(self, upper: int, count: SSAValue | None = None, inits: tuple[SSAValue, ...] = ()) -> loop.ForOp:
        """A loop over [0, count) (at most `upper`; [0, upper) without a count), appended."""
        for_op = loop.ForOp(0, upper, 1, inits, upper_value=count)
        self.block.add_op(for_op)
        return for_op


def _extent(emit: _Emit, size: int | SymDim) -> tuple[SSAValue, int]:
    """A size as an index value, and the most it can be."""
    if isinstance(size, int):
        return emit.index(size), size
    high = bounds(size)[1]
    return emit(loop.SizeOp(size)), min(high, UNBOUNDED) if high is not None else UNBOUNDED


def write_argsort(
    block: Block, x: SSAValue, out: SSAValue, scratch: SSAValue,
    rows: int | SymDim, n: int | SymDim, descending: bool, element: Attribute,
) -> None:  # fmt: skip
    """Sort each of the `rows` rows of `x` ([rows, n]) into `out` (i64 positions), with
    `scratch` (n i64) for the merges, in loops appended to `block`."""
    emit = _Emit(block)
    row_count, most_rows = _extent(emit, rows)
    length, most = _extent(emit, n)
    row_loop = emit.loop(most_rows, None if isinstance(rows, int) else row_count)
    body = _Emit(row_loop.body.block)
    r = row_loop.body.block.args[0]
    fill = body.loop(most, None if isinstance(n, int) else length)
    inner = _Emit(fill.body.block)
    t = fill.body.block.args[0]
    inner.add(loop.StoreOp(inner(arith.IndexCastOp(t, i64)), out, [r, t]))
    inner.add(loop.YieldOp())
    merge = _Merge(x, out, scratch, r, length, most, isinstance(n, int), descending, element)
    if isinstance(n, int):
        width = 1
        while width < n:
            merge.write(body, body.index(width), -(-n // (2 * width)))
            width *= 2
    else:  # passes to log2 of the bound, each doing nothing once its width reaches n
        passes = body.loop(max(1, (most - 1).bit_length()))
        step = _Emit(passes.body.block)
        width = step(arith.ShLIOp(step.index(1), passes.body.block.args[0]))
        guard = loop.IfOp(step(arith.CmpiOp(width, length, "slt")))
        step.block.add_op(guard)
        merge.write(_Emit(guard.body.block), width)
        _Emit(guard.body.block).add(loop.YieldOp())
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

    def write(self, emit: _Emit, width: SSAValue, pair_count: int | None = None) -> None:
        """Merge the runs of `width` pairwise into the scratch row (`pair_count` pairs, if
        known now), then copy it back."""
        double = emit(arith.AddiOp(width, width))
        if pair_count is None:
            pairs = emit.loop(self.most, emit(arith.CeilDivSIOp(self.length, double)))
        else:
            pairs = emit.loop(pair_count)
        body = _Emit(pairs.body.block)
        lo = body(arith.MuliOp(pairs.body.block.args[0], double))
        mid = body(arith.MinSIOp(body(arith.AddiOp(lo, width)), self.length))
        hi = body(arith.MinSIOp(body(arith.AddiOp(lo, double)), self.length))
        self._merge(body, lo, mid, hi)
        body.add(loop.YieldOp())
        copy = emit.loop(self.most, None if self.static else self.length)
        step = _Emit(copy.body.block)
        t = copy.body.block.args[0]
        step.add(loop.StoreOp(step(loop.LoadOp(self.scratch, [t])), self.out, [self.r, t]))
        step.add(loop.YieldOp())

    def _merge(self, emit: _Emit, lo: SSAValue, mid: SSAValue, hi: SSAValue) -> None:
        one, zero = emit.index(1), emit.index(0)
        last_left, last_right = emit(arith.SubiOp(mid, one)), emit(arith.SubiOp(hi, one))
        steps = emit.loop(self.most, emit(arith.SubiOp(hi, lo)), (lo, mid))
        body = _Emit(steps.body.block)
        t, i, j = steps.body.block.args
        left = body(loop.LoadOp(self.out, [self.r, body(arith.MinSIOp(i, last_left))]))
        right = body(loop.LoadOp(self.out, [self.r, body(arith.MinSIOp(j, last_right))]))
        left_value, right_value = (
            body(loop.LoadOp(self.x, [self.r, body(arith.IndexCastOp(p, IndexType()))]))
            for p in (left, right)
        )
        better = body(self.beats(right_value, left_value))
        left_done = body(arith.CmpiOp(i, mid, "sge"))
        right_there = body(arith.CmpiOp(j, hi, "slt"))
        take_right = body(arith.AndIOp(right_there, body(arith.OrIOp(left_done, better))))
        body.add(loop.StoreOp(body(arith.SelectOp(take_right, right, left)), self.scratch,
                          [body(arith.AddiOp(lo, t))]))  # fmt: skip
        next_i = body(arith.AddiOp(i, body(arith.SelectOp(take_right, zero, one))))
        next_j = body(arith.AddiOp(j, body(arith.SelectOp(take_right, one, zero))))
        body.add(loop.YieldOp(next_i, next_j))

    def beats(self, a: SSAValue, b: SSAValue) -> Operation:
        """a sorts before b: greater (descending) or smaller (ascending); signless integers
        compare signed, as ONNX's int types are."""
        if is_float(self.element):
            return arith.CmpfOp(a, b, "ogt" if self.descending else "olt")
        return arith.CmpiOp(a, b, "sgt" if self.descending else "slt")


def write_top_k(
    block: Block, x: SSAValue, out: SSAValue, rows: int | SymDim, n: int | SymDim, k: int,
    descending: bool, element: Attribute,
) -> None:  # fmt: skip
    """Select the first `k` positions of each row's stable sort of `x` ([rows, n], n >= k)
    into `out` ([rows, k] i64), in loops appended to `block`."""
    emit = _Emit(block)
    row_count, most_rows = _extent(emit, rows)
    length, most = _extent(emit, n)
    keep, last = emit.index(k), emit.index(k - 1)
    zero, one = emit.index(0), emit.index(1)
    compare = _Merge(x, out, out, zero, length, most, isinstance(n, int), descending, element)
    row_loop = emit.loop(most_rows, None if isinstance(rows, int) else row_count)
    r = row_loop.body.block.args[0]
    scan = _Emit(row_loop.body.block).loop(most, None if isinstance(n, int) else length)
    row_loop.body.block.add_op(loop.YieldOp())
    body = _Emit(scan.body.block)
    t = scan.body.block.args[0]
    value = body(loop.LoadOp(x, [r, t]))
    full = body(arith.CmpiOp(t, keep, "sge"))
    kept = body(arith.IndexCastOp(body(loop.LoadOp(out, [r, last])), IndexType()))
    worst = body(loop.LoadOp(x, [r, body(arith.SelectOp(full, kept, t))]))  # (a valid read)
    enters = body(arith.OrIOp(body(arith.XOrIOp(full, body(arith.ConstantOp(IntegerAttr(1, i1))))),
                              body(compare.beats(value, worst))))  # fmt: skip
    guard = loop.IfOp(enters)
    body.add(guard)
    body.add(loop.YieldOp())
    insert = _Emit(guard.body.block)
    top = insert(arith.MinSIOp(t, last))
    position = insert(arith.IndexCastOp(t, i64))
    slots = insert.loop(k, insert(arith.AddiOp(top, one)), (insert(arith.ConstantOp(IntegerAttr(1, i1))),))
    insert.add(loop.YieldOp())
    step = _Emit(slots.body.block)
    s_, moving = slots.body.block.args
    p = step(arith.SubiOp(top, s_))
    has_above = step(arith.CmpiOp(p, zero, "sgt"))
    above = step(loop.LoadOp(out, [r, step(arith.MaxSIOp(step(arith.SubiOp(p, one)), zero))]))
    above_at = step(arith.SelectOp(has_above, step(arith.IndexCastOp(above, IndexType())), t))
    shift = step(arith.AndIOp(has_above, step(compare.beats(value, step(loop.LoadOp(x, [r, above_at]))))))
    current = step(loop.LoadOp(out, [r, p]))
    placed = step(arith.SelectOp(shift, above, position))
    step.add(loop.StoreOp(step(arith.SelectOp(moving, placed, current)), out, [r, p]))
    step.add(loop.YieldOp(step(arith.AndIOp(moving, shift))))
