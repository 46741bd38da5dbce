"""loop-plan-memory: give @main's intermediate buffers arena offsets, reusing dead ones' memory.

After convert-te-to-loop, @main is a straight line of kernel calls over `loop.alloc`ed
buffers, and convert-loop-to-llvm would place every alloc at its own arena offset: the arena
is the sum of all intermediates (and kernels' scratch buffers). This pass computes each
alloc's live range, from the first op of @main that uses it (a call writing it, as output or
scratch) to the last (a call reading it), and assigns offsets so that buffers whose ranges
overlap never share bytes, while the others may:

    %a = loop.alloc : memref<256xf32>              %a = loop.alloc {offset = 0 : i64} : ...
    %b = loop.alloc : memref<256xf32>              %b = loop.alloc {offset = 1024 : i64} : ...
    %c = loop.alloc : memref<256xf32>     ==>      %c = loop.alloc {offset = 0 : i64} : ...
    func.call @f(%x, %a)                           (unchanged)
    func.call @f(%a, %b)
    func.call @f(%b, %c)                           // %a is dead here: %c takes its bytes

Ranges are closed, so two buffers passed to one call always get disjoint memory: kernels keep
their `noalias` contract (no kernel ever works in place). An op nested in a loop or if of
@main counts as a use at its top-level ancestor. The offsets go on the allocs as a
discardable `offset` attribute (bytes, 64-aligned) that convert-loop-to-llvm's entry layout
follows; without it, allocs are laid out one after another. A buffer without elements (a dim
of size 0) takes no bytes: it gets offset 0 and nothing reads or writes through it.

Offsets come from the greedy-by-size heuristic of TensorFlow Lite's arena planner (TVM's
"hybrid" workspace planner is a cousin): biggest buffer first, each put in the smallest gap
between the buffers it interferes with that fits it (best fit), else above them all. MLIR
has no direct counterpart (its buffer-deallocation and -hoisting passes work on memref
allocs); this is the graph-executor-level planning of TVM's `GraphPlanMemory`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    i64,
)
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from minitvm.dialects import loop
from minitvm.runtime.abi import ALIGNMENT, ENTRY
from minitvm.symbolic import SymDim


def _round_up(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


def buffer_bytes(type_: MemRefType) -> int:
    """Bytes of a buffer (i1 takes a byte), as convert-loop-to-llvm stores it."""
    element = type_.element_type
    if isinstance(element, IntegerType):
        width = (element.width.data + 7) // 8
    elif isinstance(element, IndexType):
        width = 8
    else:
        assert isinstance(element, AnyFloat), element
        width = element.bitwidth // 8
    count = 1
    for extent in type_.get_shape():
        count *= extent
    return count * width


@dataclass(frozen=True)
class LiveRange:
    """An alloc, its arena footprint, and the positions (in @main's block) of its first and
    last use: it must own its bytes from `first` to `last`, both included."""

    alloc: loop.AllocOp
    size: int
    first: int
    last: int

    def overlaps(self, other: LiveRange) -> bool:
        return self.first <= other.last and other.first <= self.last


def live_ranges(block: Block) -> list[LiveRange]:
    """The live range of every `loop.alloc` directly in `block`, in order of appearance."""
    position: dict[Operation, int] = {op: n for n, op in enumerate(block.ops)}
    ranges = []
    for n, op in enumerate(block.ops):
        if not isinstance(op, loop.AllocOp):
            continue
        if any(isinstance(d, SymDim) for d in loop.dims_of(op.result.type)):  # type: ignore[arg-type]
            continue  # a size known at run time: allocated per run (convert-loop-to-llvm)
        uses = []
        for use in op.result.uses:
            user: Operation | None = use.operation
            while user is not None and user not in position:  # nested: its top-level op
                user = user.parent_op()
            if user is not None:
                uses.append(position[user])
        assert isinstance(op.result.type, MemRefType)
        size = _round_up(buffer_bytes(op.result.type))
        ranges.append(LiveRange(op, size, min(uses, default=n), max(uses, default=n)))
    return ranges


def assign_offsets(ranges: Sequence[LiveRange]) -> tuple[list[int], int]:
    """Greedy by size, best fit: offsets (in `ranges` order) and the arena size they need."""
    order = sorted(range(len(ranges)), key=lambda n: (-ranges[n].size, ranges[n].first, n))
    offsets: list[int | None] = [None] * len(ranges)
    placed: list[int] = []
    arena = 0
    for n in order:
        current = ranges[n]
        if not current.size:  # no bytes to place
            offsets[n] = 0
            continue
        busy = sorted(
            (offsets[m], offsets[m] + ranges[m].size)  # type: ignore[operator]
            for m in placed
            if ranges[m].overlaps(current)
        )
        best: int | None = None
        best_gap = 0
        top = 0  # end of the busy intervals seen so far
        for start, end in busy:
            gap = start - top
            if gap >= current.size and (best is None or gap < best_gap):
                best, best_gap = top, gap
            top = max(top, end)
        offset = top if best is None else best
        offsets[n] = offset
        placed.append(n)
        arena = max(arena, offset + current.size)
    return [o for o in offsets if o is not None], arena


@dataclass(frozen=True)
class MemoryPlan:
    """What planning one function did: arena bytes without reuse (allocs back to back) and
    with it."""

    unplanned_bytes: int
    planned_bytes: int


def plan_function(fn: func.FuncOp) -> MemoryPlan:
    """Set the `offset` of every top-level alloc of `fn`'s body (a single block)."""
    if not fn.body.blocks:
        return MemoryPlan(0, 0)
    ranges = live_ranges(fn.body.block)
    offsets, arena = assign_offsets(ranges)
    for live, offset in zip(ranges, offsets, strict=True):
        live.alloc.attributes[loop.OFFSET_ATTR] = IntegerAttr(offset, i64)
    return MemoryPlan(sum(r.size for r in ranges), arena)


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Liveness-based arena offsets for the allocs of the entry function (see module doc)."""

    name = "loop-plan-memory"

    #: The function whose allocs become arena slices (convert-loop-to-llvm's entry).
    function: str = ENTRY

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and fn.sym_name.data == self.function:
                plan_function(fn)
