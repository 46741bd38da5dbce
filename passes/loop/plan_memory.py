"""loop-plan-memory: give @main's intermediate buffers arena offsets, reusing dead ones' memory.

After convert-te-to-loop, @main is a straight line of kernel calls over `loop.alloc`ed
buffers, and convert-loop-to-llvm would place every alloc at its own arena offset: the arena
is the sum of all intermediates (and kernels' scratch buffers). This pass computes each
alloc's live range, from the first op of @main that uses it (a call writing it, as output or
scratch) to the last (a call reading it), and assigns offsets so that buffers whose ranges
overlap never share bytes, while the others may (the ops of a `loop.sections` count section
after section, and buffers live in two of its sections overlap: they may run at once):

    %a = loop.alloc : memref<256xf32>              %a = loop.alloc {offset = 0 : i64} : ...
    %b = loop.alloc : memref<256xf32>              %b = loop.alloc {offset = 1024 : i64} : ...
    %c = loop.alloc : memref<256xf32>     ==>      %c = loop.alloc {offset = 0 : i64} : ...
    func.call @f(%x, %a)                           (unchanged)
    func.call @f(%a, %b)
    func.call @f(%b, %c)                           // %a is dead here: %c takes its bytes

Ranges are closed, so two buffers passed to one call always get disjoint memory: kernels keep
their `noalias` contract (no kernel ever works in place). An op nested in a loop or if of
@main counts as a use at its top-level ancestor, and a use of a `loop.view` of a buffer
(a reshape, a piece of a split: the same bytes) as a use of the buffer. The offsets go on the allocs as a
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
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from minitvm.dialects import loop
from minitvm.runtime.abi import ALIGNMENT, ENTRY
from minitvm.symbolic import SymDim, ceildiv, product, sym_max


def _round_up(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


def buffer_bytes(type_: MemRefType) -> int | SymDim:
    """Bytes of a buffer (i1 takes a byte), as convert-loop-to-llvm stores it: an expression
    of the symbols for a buffer with symbolic dims."""
    return product(loop.dims_of(type_)) * loop.element_bytes(type_.element_type)


@dataclass(frozen=True)
class LiveRange:
    """An alloc, its arena footprint, and the positions (in @main's block) of its first and
    last use: it must own its bytes from `first` to `last`, both included."""

    alloc: loop.AllocOp
    size: int | SymDim
    first: int
    last: int
    #: (which `loop.sections`, which section) of the sections whose ops it is live across
    sections: frozenset[tuple[int, int]] = frozenset()

    def overlaps(self, other: LiveRange) -> bool:
        """Whether the two are live at the same time: their ranges overlap, or they are live
        in two sections of one `loop.sections` (which may run at the same time)."""
        if self.first <= other.last and other.first <= self.last:
            return True
        return any(r == q and k != j for r, k in self.sections for q, j in other.sections)


def _positions(block: Block) -> tuple[dict[Operation, int], list[tuple[int, int, int, int]]]:
    """A position per op of `block`, and per op of a `loop.sections`' section in its place,
    section after section; and (which sections, which section, first, last position) of
    each section."""
    position: dict[Operation, int] = {}
    spans: list[tuple[int, int, int, int]] = []
    for op in block.ops:
        if not isinstance(op, loop.SectionsOp):
            position[op] = len(position)
            continue
        for k, section in enumerate(op.sections):
            first = len(position)
            for inner in section.block.ops:
                position[inner] = len(position)
            spans.append((id(op), k, first, len(position) - 1))
    return position, spans


def live_ranges(
    block: Block, symbolic: bool = False, set_sizes: dict[str, int | SymDim] | None = None
) -> list[LiveRange]:
    """The live range of every `loop.alloc` directly in `block` of a static size (with
    `symbolic`: of a size known only at run time), in order of appearance. A size the
    function sets as it runs (`set_sizes`: `loop.set_size`'s, with their bounds) counts at
    its bound: the offsets are computed before it has a value."""
    position, spans = _positions(block)
    ranges = []
    for op in block.ops:
        if not isinstance(op, loop.AllocOp):
            continue
        n = position[op]
        if any(isinstance(d, SymDim) for d in loop.dims_of(op.result.type)) != symbolic:  # type: ignore[arg-type]
            continue
        uses = []
        for user in _users(op.result):
            while user is not None and user not in position:  # nested: its top-level op
                user = user.parent_op()
            if user is not None:
                uses.append(position[user])
        assert isinstance(op.result.type, MemRefType)
        size = loop.bounded_size(buffer_bytes(op.result.type), set_sizes or {})
        size = _round_up(size) if isinstance(size, int) else ceildiv(size, ALIGNMENT) * ALIGNMENT
        first, last = min(uses, default=n), max(uses, default=n)
        sections = frozenset((r, k) for r, k, lo, hi in spans if lo <= last and first <= hi)
        ranges.append(LiveRange(op, size, first, last, sections))  # type: ignore[arg-type]
    return ranges


def _users(buffer: SSAValue) -> list[Operation]:
    """The ops using `buffer`, directly or through views of it (a view's readers read the
    buffer's bytes, so they keep it live)."""
    users: list[Operation] = []
    for use in buffer.uses:
        users.append(use.operation)
        if isinstance(use.operation, loop.ViewOp):
            users += _users(use.operation.result)
    return users


def assign_slots(ranges: Sequence[LiveRange], base: int) -> tuple[list[int | SymDim], int | SymDim]:
    """Offsets for buffers of run-time size, from `base` up: each takes the first slot whose
    buffers' lives do not overlap its own (first come, first served), a slot is as big as
    its biggest buffer at run time (`max` of their sizes), slots lie back to back. The
    offsets, in `ranges` order, and the arena's end: expressions of the symbols."""
    slots: list[list[LiveRange]] = []
    slot_of: list[int] = []
    for current in ranges:
        for n, members in enumerate(slots):
            if not any(m.overlaps(current) for m in members):
                members.append(current)
                slot_of.append(n)
                break
        else:
            slots.append([current])
            slot_of.append(len(slots) - 1)
    starts: list[int | SymDim] = []
    end: int | SymDim = base
    for members in slots:
        starts.append(end)
        end = end + sym_max(*(m.size for m in members))
    return [starts[n] for n in slot_of], end


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
    symbolic = live_ranges(fn.body.block, symbolic=True, set_sizes=loop.set_size_bounds(fn))
    # Buffers of run-time size go above the static ones, at offsets the entry computes from
    # the sizes (the run time grows the arena to fit: CompiledModuleInfo.arena_size_expr).
    dynamic_offsets, _ = assign_slots(symbolic, arena)
    for live, offset in zip(symbolic, dynamic_offsets, strict=True):
        live.alloc.attributes[loop.OFFSET_ATTR] = (
            IntegerAttr(offset, i64) if isinstance(offset, int) else StringAttr(str(offset))
        )
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
