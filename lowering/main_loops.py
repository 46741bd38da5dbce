"""Building loops on buffers by hand, for the ops convert-te-to-loop writes straight into @main
(sort_to_loop.py's sorts and selections, scan_to_loop.py's running sums): what has no tensor-
expression form, or none as fast."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i1
from xdsl.ir import Block, Operation, SSAValue

from minitvm.dialects import loop
from minitvm.symbolic import SymDim, bounds

#: Trip bounds of loops to a run-time size whose symbols have no bound.
UNBOUNDED = 2**40


@dataclass
class Emit:
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


def extent(emit: Emit, size: int | SymDim) -> tuple[SSAValue, int]:
    """A size as an index value, and the most it can be."""
    if isinstance(size, int):
        return emit.index(size), size
    high = bounds(size)[1]
    return emit(loop.SizeOp(size)), min(high, UNBOUNDED) if high is not None else UNBOUNDED


def floor_log2(emit: Emit, value: SSAValue, bits: int) -> SSAValue:
    """floor(log2(value)) of an index value 1 <= value < 2^bits (0 for value 0): how many
    k in 1..bits have 2^k <= value, counted in a loop appended (a heap of `value` slots is
    that many levels deep below its root)."""
    count = emit.loop(bits, None, (emit.index(0),))
    step = Emit(count.body.block)
    k, depth = count.body.block.args
    power = step(arith.ShLIOp(step.index(1), step(arith.AddiOp(k, step.index(1)))))
    fits = step(arith.CmpiOp(power, value, "sle"))
    step.add(loop.YieldOp(step(arith.AddiOp(depth, step(arith.SelectOp(fits, step.index(1), step.index(0)))))))
    return count.res[0]


#: A heap slot's entry and the key it is ordered by (what `SiftDown.at` gives).
Entry = tuple[SSAValue, SSAValue]


@dataclass
class SiftDown:
    """Sifting down a binary heap held in a buffer's slots 0..size-1, branch-free: sort_to_loop's
    TopK heap (the worst of the best k at the root) and nms_to_loop's candidates (the best at
    the root) differ only in where the slots are and which entry goes above which.

    `at(emit, slot)` loads a slot's entry and key, `store(emit, entry, slot)` writes one,
    `above(emit, a, b)` says whether entry a (with its key) belongs above b; `levels` bounds
    the steps a sift takes."""

    at: Callable[[Emit, SSAValue], Entry]
    store: Callable[[Emit, SSAValue, SSAValue], None]
    above: Callable[[Emit, Entry, Entry], SSAValue]
    levels: int

    def write(self, emit: Emit, start: SSAValue, size: SSAValue, steps: SSAValue | None = None) -> None:
        """Move the entry in slot `start` down the heap of `size` slots (size >= 1 where a
        step runs), one level a step (`steps` of them, `levels` without), while a child
        belongs above it: the children's slots clamped into the heap, a flag saying whether
        it still moves. The moving entry is read once and carried: each step writes the child
        that moves up into the slot it leaves (or, once it stops, the entry itself), and the
        entry lands in its last slot after the loop: one store a step, not two, and no
        re-reading of the entry and its key from the slot just written (AMD EPYC Zen 4, one
        thread, medians of 200 runs, two runs each: TopK k = 256 of 50257 0.219 -> 0.196 ms,
        k = 50 fed at run time 0.110-0.136 -> 0.092-0.123, NMS of 4 classes x 8400 boxes
        0.127-0.132 -> 0.085-0.118)."""
        one = emit.index(1)
        moving = emit(arith.ConstantOp(IntegerAttr(1, i1)))
        here = self.at(emit, start)
        levels = emit.loop(self.levels, steps, (start, moving))
        step = Emit(levels.body.block)
        _, slot, going = levels.body.block.args
        left = step(arith.AddiOp(step(arith.AddiOp(slot, slot)), one))
        right = step(arith.AddiOp(left, one))
        bottom = step(arith.SubiOp(size, one))
        has_left = step(arith.CmpiOp(left, size, "slt"))
        has_right = step(arith.CmpiOp(right, size, "slt"))
        left_slot, right_slot = step(arith.MinSIOp(left, bottom)), step(arith.MinSIOp(right, bottom))
        left_entry, right_entry = self.at(step, left_slot), self.at(step, right_slot)
        right_first = step(arith.AndIOp(has_right, self.above(step, right_entry, left_entry)))
        child = step(arith.SelectOp(right_first, right_slot, left_slot))
        child_entry = (
            step(arith.SelectOp(right_first, right_entry[0], left_entry[0])),
            step(arith.SelectOp(right_first, right_entry[1], left_entry[1])),
        )
        swap = step(arith.AndIOp(step(arith.AndIOp(going, has_left)), self.above(step, child_entry, here)))
        self.store(step, step(arith.SelectOp(swap, child_entry[0], here[0])), slot)
        step.add(loop.YieldOp(step(arith.SelectOp(swap, child, slot)), swap))
        self.store(emit, here[0], levels.res[0])
