"""Building loops on buffers by hand, for the ops convert-te-to-loop writes straight into @main
(sort_to_loop.py's sorts and selections, scan_to_loop.py's running sums): what has no tensor-
expression form, or none as fast."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
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
