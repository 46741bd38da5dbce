"""loop-sections: run @main's independent chains of kernel calls side by side, one per thread.

A parallel kernel shares its loop among the threads and joins them at its end. A kernel of
microseconds (an LSTM step's 1-row matvec, its cell) pays that join as much as it computes,
and a bidirectional LSTM runs 64 steps of such kernels per direction. Yet its two directions
never read each other's results: each could run on a thread of its own, its kernels serial,
with no join but one at the end. Running two one-direction LSTM layers (hidden 256, 64
steps) side by side on 1 thread each took 0.74-0.96x the time of running them one after the
other on 2 threads each (AMD EPYC Zen 4, `lowering/views.py`'s session, 4 runs).

This pass finds such chains in @main's block and wraps them in a `loop.sections`:

    func.call @gemm(%x, %wf, %pf)                  func.call @gemm(%x, %wf, %pf)
    func.call @gemm(%x, %wb, %pb)                  func.call @gemm(%x, %wb, %pb)
    func.call @step(%pf, %h0, %hf)       ==>       loop.sections {
    func.call @step(%pb, %h0, %hb)                   func.call @step(%pf, %h0, %hf)
    func.call @cat(%hf, %hb, %y)                   } {
                                                     func.call @step(%pb, %h0, %hb)
                                                   }
                                                   func.call @cat(%hf, %hb, %y)

(the gemms become sections too where the chains start with them: here they read only `%x`).

**Independence.** A call depends on an earlier one when both touch the same bytes of a
buffer (through `loop.view`s: the same root and overlapping byte ranges) and one of them
writes them. A callee may write every buffer its body does not only load from, or, declared
without a body (kernel_build.py compiles @main alone), every buffer after its first
`loop.inputs` (`INPUTS_ATTR`); without either, every buffer.

**Stages.** Walking the block in order, calls gather into a stage, each joining the chain
(component) of the calls it depends on, or starting one; a call that depends on several
chains merges them. A stage's chains are independent of each other. A call that would merge
two chains calling the same kernels (the concat of the two directions) ends the stage
instead, and is a stage of its own: the calls after it that read its result depend on no
call of their stage, and start chains of their own (the two directions of the next LSTM
layer). Merges of other chains are part of one chain's work (a GRU step's first matvec,
which reads only the initial state, meeting the projection of its inputs). Any op other
than a call, a view, an alloc, a constant or a size (a loop, a copy, a `loop.set_size`) ends
the stage too.

**Balance.** Side by side, the slowest chain sets the time. Chains that call the same
kernels (the same multiset of callees: kernels are merged when they are the same code, so
the same work on the same shapes) are balanced by construction: the largest such group of
a stage, two chains or more, becomes the sections; the stage's other chains stay where they
are in the block. Chains of different kernels are left alone: telling whether they
balance needs a cost model per kernel (not done).

Views move into the section that alone uses them; the others, and every alloc, stay in the
block (loop-plan-memory plans only its allocs, and knows that the sections' buffers live at
the same time). Whether the sections run side by side is decided as the code runs: where the
threads divide them (convert-loop-to-llvm, lowering/loop_to_llvm/sections.py).

MLIR counterpart: none upstream at this level (`omp.sections` is what it lowers to in spirit;
TVM's graph executor runs nodes in order, its inter-op parallelism lives in Relay's VM).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from minitvm.dialects import loop
from minitvm.runtime.abi import ENTRY

#: Integer attribute on a body-less kernel declaration: its first N buffer arguments are
#: only read (kernel_build.py sets it from the kernel's signature).
INPUTS_ATTR = "loop.inputs"

#: Ops that neither read nor write memory where they stand: a stage goes on past them (they
#: stay where they are, before the loop.sections that may use their values).
_TRANSPARENT = (loop.AllocOp, loop.ConstantOp, arith.ConstantOp, loop.SizeOp, loop.ThreadsOp)


@dataclass(frozen=True)
class Access:
    """Bytes [start, end) of the buffer `root` (an alloc, a constant, an argument of @main),
    read or written."""

    root: SSAValue
    start: int
    end: float
    writes: bool

    def conflicts(self, other: Access) -> bool:
        return (
            self.root is other.root
            and self.start < other.end
            and other.start < self.end
            and (self.writes or other.writes)
        )


def _root(buffer: SSAValue) -> tuple[SSAValue, int]:
    """The buffer `buffer` views (itself if it is not a view) and its byte offset there."""
    offset = 0
    while isinstance(view := buffer.owner, loop.ViewOp):
        assert isinstance(view.source.type, MemRefType)
        offset += view.start.value.data * loop.element_bytes(view.source.type.element_type)
        buffer = view.source
    return buffer, offset


def _bytes(type_: MemRefType) -> float:
    dims = loop.dims_of(type_)
    if not all(isinstance(d, int) for d in dims):
        return math.inf
    return math.prod(dims) * loop.element_bytes(type_.element_type)  # type: ignore[arg-type]


def written_arguments(callee: func.FuncOp) -> set[int] | None:
    """The arguments `callee` may write: all but those its body only loads from (directly or
    through views); for a declaration, those after its `loop.inputs`; None: any of them."""
    if not callee.body.blocks:
        inputs = callee.attributes.get(INPUTS_ATTR)
        if not isinstance(inputs, IntegerAttr):
            return None
        return set(range(inputs.value.data, len(callee.function_type.inputs.data)))
    return {n for n, arg in enumerate(callee.args) if not _only_read(arg)}


def _only_read(buffer: SSAValue) -> bool:
    """Whether every use of `buffer` reads it: a load or prefetch from it, a copy from it, a
    view only read.
    Any other use (a store, a copy, a call it is handed to, an op this pass does not know)
    may write it."""
    for use in buffer.uses:
        user = use.operation
        if isinstance(user, loop.ViewOp):
            if not _only_read(user.result):
                return False
        elif isinstance(user, loop.LoadOp | loop.VectorLoadOp | loop.PrefetchOp):
            if user.buffer is not buffer:
                return False
        elif not (isinstance(user, loop.CopyOp) and user.target is not buffer):
            return False
    return True


@dataclass
class _Stage:
    """Calls gathered so far (block order), the chain of each (union-find parents), the
    kernels each chain calls (at its root), and the accesses made so far per root buffer."""

    calls: list[func.CallOp] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    kernels: dict[int, Counter[str]] = field(default_factory=dict)
    accesses: dict[SSAValue, list[tuple[Access, int]]] = field(default_factory=dict)

    def chain(self, n: int) -> int:
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def chains_touched(self, accesses: list[Access]) -> set[int]:
        return {
            self.chain(n)
            for access in accesses
            for earlier, n in self.accesses.get(access.root, [])
            if access.conflicts(earlier)
        }

    def joins_twins(self, chains: set[int]) -> bool:
        """Whether two of `chains` call the same kernels."""
        kernels = [self.kernels[c] for c in chains]
        return any(a == b for n, a in enumerate(kernels) for b in kernels[n + 1 :])

    def add(self, call: func.CallOp, accesses: list[Access], joins: set[int]) -> None:
        n = len(self.calls)
        self.calls.append(call)
        self.parent.append(n)
        self.kernels[n] = Counter([call.callee.root_reference.data])
        for chain in joins:
            self.parent[chain] = n
            self.kernels[n] += self.kernels.pop(chain)
        for access in accesses:
            self.accesses.setdefault(access.root, []).append((access, n))

    def chains(self) -> list[list[func.CallOp]]:
        groups: dict[int, list[func.CallOp]] = {}
        for n, call in enumerate(self.calls):
            groups.setdefault(self.chain(n), []).append(call)
        return list(groups.values())


class _SectionFinder:
    def __init__(self, module: ModuleOp):
        self.written: dict[str, set[int] | None] = {
            f.sym_name.data: written_arguments(f) for f in module.ops if isinstance(f, func.FuncOp)
        }

    def accesses(self, call: func.CallOp) -> list[Access] | None:
        """What `call` reads and writes; None if it is not a call this pass may move (its
        callee unknown, or it has results)."""
        name = call.callee.root_reference.data
        if name not in self.written or call.results:
            return None
        written = self.written[name]
        accesses = []
        for n, arg in enumerate(call.arguments):
            if not isinstance(arg.type, MemRefType):
                continue
            root, offset = _root(arg)
            writes = written is None or n in written
            accesses.append(Access(root, offset, offset + _bytes(arg.type), writes))
        return accesses

    def stages(self, block: Block) -> Iterator[list[list[func.CallOp]]]:
        """Each stage's chains (see the module docstring), in block order."""
        stage = _Stage()
        for op in list(block.ops):
            if isinstance(op, (*_TRANSPARENT, loop.ViewOp)):
                continue
            accesses = self.accesses(op) if isinstance(op, func.CallOp) else None
            if accesses is None:  # a barrier
                yield stage.chains()
                stage = _Stage()
                continue
            joins = stage.chains_touched(accesses)
            if stage.joins_twins(joins):  # a stage of its own: the calls after it depend on it
                yield stage.chains()
                yield [[op]]  # type: ignore[list-item]
                stage = _Stage()
                continue
            stage.add(op, accesses, joins)  # type: ignore[arg-type]
        yield stage.chains()


def _signature(chain: list[func.CallOp]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(Counter(c.callee.root_reference.data for c in chain).items()))


def balanced_chains(chains: list[list[func.CallOp]]) -> list[list[func.CallOp]]:
    """The largest group (by calls) of two chains or more that call the same kernels, in
    block order; [] if there is none."""
    groups: dict[tuple[tuple[str, int], ...], list[list[func.CallOp]]] = {}
    for chain in chains:
        groups.setdefault(_signature(chain), []).append(chain)
    candidates = [g for g in groups.values() if len(g) > 1]
    if not candidates:
        return []
    return max(candidates, key=lambda g: sum(len(c) for c in g))


def _section_of_views(block: Block, sections: list[list[func.CallOp]]) -> dict[loop.ViewOp, int]:
    """Views whose every user (through views) is a call of one section: that section's."""
    home: dict[Operation, int] = {call: k for k, chain in enumerate(sections) for call in chain}
    views = [op for op in block.ops if isinstance(op, loop.ViewOp)]
    for view in reversed(views):  # a view's users come after it
        owners = {home.get(use.operation, -1) for use in view.result.uses}
        if len(owners) == 1 and -1 not in owners:
            home[view] = owners.pop()
    return {op: k for op, k in home.items() if isinstance(op, loop.ViewOp)}


def wrap_sections(block: Block, sections: list[list[func.CallOp]]) -> loop.SectionsOp:
    """Move each chain (with its own views) into a section of a new `loop.sections`, put
    where the last of their calls was."""
    views = _section_of_views(block, sections)
    members = [
        {*chain, *(v for v, k in views.items() if k == n)} for n, chain in enumerate(sections)
    ]
    position = {op: n for n, op in enumerate(block.ops)}
    last = max((op for chain in sections for op in chain), key=position.__getitem__)
    bodies = [Block() for _ in sections]
    sections_op = loop.SectionsOp(bodies)
    Rewriter.insert_op(sections_op, InsertPoint.after(last))
    for body, own in zip(bodies, members, strict=True):
        for op in [op for op in block.ops if op in own]:
            op.detach()
            body.add_op(op)
        body.add_op(loop.YieldOp())
    return sections_op


def form_sections(module: ModuleOp, entry: func.FuncOp) -> int:
    """Wrap every stage's balanced chains in `entry` in a `loop.sections`; how many."""
    finder = _SectionFinder(module)
    block = entry.body.block
    found = [group for chains in finder.stages(block) if (group := balanced_chains(chains))]
    for group in found:
        wrap_sections(block, group)
    return len(found)


@dataclass(frozen=True)
class SectionsPass(ModulePass):
    """Independent, balanced chains of @main's calls -> `loop.sections` (see module doc)."""

    name = "loop-sections"

    #: The function whose calls may run side by side.
    function: str = ENTRY

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and fn.sym_name.data == self.function and fn.body.blocks:
                form_sections(op, fn)
