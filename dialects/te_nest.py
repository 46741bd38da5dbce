"""The loop nests a te kernel's schedule means, independent of emitting any IR.

A `te.compute`'s loops start in a default order (`default_nest`: loops i0..iN for the result's
dims, r0..rM for the reduction axes; spatial loops outermost, reductions next, and the last
spatial loop innermost when every read walks it contiguously) which its `schedule` then
rewrites (`scheduled_nest`): split, reorder and fuse change the loops; vectorize, unroll and
parallel mark them. `kernel_nests` does this for every compute of a kernel and applies
`#te.compute_at`, checking that each attachment can be emitted. A schedule that does not apply
is a `MinitvmError` ("schedule: ...").

This is kept apart from `lowering/te_to_loop.py`, which builds loop IR from these nests,
because the te passes (which check a new schedule before appending it) and the schedule
templates (which read the default order) need the same meaning without lowering anything.
Like `te_eval.py` it is an analysis of the te dialect, not a pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.ir import Attribute, Operation, SSAValue

from minitvm.dialects import loop, te
from minitvm.dialects.graph.base import surely_below
from minitvm.errors import MinitvmError
from minitvm.symbolic import SymDim, ceildiv, floordiv, mod, size_hints

# --------------------------------------------------------------------------------------------
# One compute: its default loops, rewritten by its schedule
# --------------------------------------------------------------------------------------------


@dataclass
class Loop:
    """One loop: its name (i0, r1, i1.o, i0.i1.fused), trip count, whether it runs a
    reduction axis, and its marks (vectorize, unroll, parallel)."""

    name: str
    extent: int | SymDim  # (a size known only at run time: no schedule splits such a loop yet)
    reduction: bool
    hints: set[str] = field(default_factory=set)


@dataclass
class LoopNest:
    """The loops of one compute, outermost first, and how original axes map onto them."""

    loops: list[Loop]
    #: split axis name -> (outer name, inner name, factor)
    splits: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    #: original extents of every axis that was ever split (for guards)
    extents: dict[str, int] = field(default_factory=dict)
    #: fused loop name -> (outer name, inner name, inner extent)
    fusions: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    #: #te.prefetch's (ahead, over) loops, if the schedule has one
    prefetch: tuple[str, str] | None = None

    def find(self, name: str) -> int:
        for n, lp in enumerate(self.loops):
            if lp.name == name:
                return n
        known = ", ".join(lp.name for lp in self.loops)
        raise MinitvmError(f"schedule: no loop named '{name}' (loops: {known})")

    def split(self, name: str, factor: int) -> None:
        n = self.find(name)
        lp = self.loops[n]
        if factor < 1:
            raise MinitvmError(f"schedule: split factor of '{name}' must be >= 1, got {factor}")
        outer = Loop(f"{name}.o", ceildiv(lp.extent, factor), lp.reduction)
        # (a symbolic extent: a whole `factor`, guarded, its full tiles peeled by te_to_loop)
        inner = Loop(f"{name}.i", factor if isinstance(lp.extent, SymDim) else min(factor, lp.extent), lp.reduction)
        self.loops[n : n + 1] = [outer, inner]
        self.splits[name] = (outer.name, inner.name, inner.extent)
        self.extents[name] = lp.extent

    def fuse(self, outer: str, inner: str) -> None:
        n = self.find(outer)
        if self.find(inner) != n + 1:
            known = ", ".join(lp.name for lp in self.loops)
            raise MinitvmError(
                f"schedule: cannot fuse '{outer}' and '{inner}': '{inner}' is not the loop right "
                f"inside '{outer}' (loops: {known}); reorder them first"
            )
        a, b = self.loops[n], self.loops[n + 1]
        if a.reduction != b.reduction:
            spatial, reduction = (a, b) if b.reduction else (b, a)
            raise MinitvmError(
                f"schedule: cannot fuse the spatial loop '{spatial.name}' with the reduction "
                f"loop '{reduction.name}'"
            )
        if a.hints or b.hints:
            raise MinitvmError(
                f"schedule: fuse '{outer}' and '{inner}' before marking them (vectorize, "
                "unroll, parallel), then mark the fused loop"
            )
        fused = Loop(te.fused_name(outer, inner), a.extent * b.extent, a.reduction)
        self.loops[n : n + 2] = [fused]
        self.fusions[fused.name] = (outer, inner, b.extent)

    def enclosing(self, name: str) -> str:
        """The loop that runs axis `name`: itself, or the loop it was fused into."""
        while (part := self.fused_part(name)) is not None:
            name = part[0]
        return name

    def fused_part(self, name: str) -> tuple[str, int, bool] | None:
        """(fused loop, inner extent, is the outer part) if loop `name` was fused away."""
        for fused, (outer, inner, extent) in self.fusions.items():
            if name in (outer, inner):
                return fused, extent, name == outer
        return None

    def reorder(self, names: Sequence[str]) -> None:
        """TVM semantics: the named loops take the positions they occupy, in the given order."""
        positions = sorted(self.find(n) for n in names)
        picked = [self.loops[self.find(n)] for n in names]
        before = [lp.name for lp in self.loops]
        for pos, lp in zip(positions, picked):
            self.loops[pos] = lp
        # A name given twice can overwrite another loop's place: no index could rebuild it.
        if lost := [n for n in before if all(lp.name != n for lp in self.loops)]:
            raise MinitvmError(
                f"schedule: reorder {', '.join(names)} drops loop '{lost[0]}' "
                f"(loops: {', '.join(before)}); name each loop once"
            )

    def mark(self, name: str, hint: str) -> None:
        self.loops[self.find(name)].hints.add(hint)

    def apply(self, primitive: Attribute) -> None:
        match primitive:
            case te.SplitAttr():
                self.split(primitive.axis.data, primitive.factor.data)
            case te.ReorderAttr():
                self.reorder([s.data for s in primitive.order])
            case te.VectorizeAttr():
                self.mark(primitive.axis.data, loop.VECTORIZE_HINT)
            case te.UnrollAttr():
                self.mark(primitive.axis.data, loop.UNROLL_HINT)
            case te.ParallelAttr():
                self.mark(primitive.axis.data, loop.PARALLEL_HINT)
            case te.FuseAttr():
                self.fuse(primitive.outer.data, primitive.inner.data)
            case te.PrefetchAttr():
                ahead, over = primitive.ahead.data, primitive.over.data
                self.find(ahead)
                self.find(over)  # (each must name a loop)
                self.prefetch = (ahead, over)
            case te.InlineAttr() | te.ComputeAtAttr():
                pass  # kernel-level: te-inline and `kernel_nests` apply them, not this nest
            case _:
                raise MinitvmError(f"schedule: unknown primitive {primitive}")

    def guarded_axes(self) -> list[str]:
        """Axes whose split does not divide them: their rebuilt index may overrun."""
        return [
            name for name, (outer, inner, factor) in self.splits.items()
            if mod(self.extents[name], factor) != 0
        ]  # fmt: skip

    def peeled_split(self, loop_name: str) -> tuple[str, int | SymDim, int] | None:
        """(axis, extent, factor) when loop `loop_name` is the outer part of a split that may
        not divide its extent (a symbolic one, or a static one it does not divide): its full
        tiles run without the axis's guard, the rest after them (a GEMM's register block of
        6 rows on 64 rows: 10 blocks of 6, then one of 4, none tested element by element)."""
        order = [lp.name for lp in self.loops]
        for name, (outer, inner, factor) in self.splits.items():
            extent = self.extents[name]
            if outer != loop_name or not (isinstance(extent, SymDim) or extent % factor):
                continue
            if inner in order and order.index(inner) < order.index(outer):
                return None  # the inner part runs outside the outer one: guarded instead
            return name, extent, factor
        return None

    def prefetch_site(self) -> str | None:
        """The loop whose every iteration issues #te.prefetch's prefetches: the innermost loop
        that is neither unrolled nor vectorized, which both of its loops must enclose (None
        without a prefetch)."""
        if self.prefetch is None:
            return None
        ahead, over = self.prefetch
        marked = {loop.UNROLL_HINT, loop.VECTORIZE_HINT}
        plain = [lp.name for lp in self.loops if not lp.hints & marked]
        site = plain[-1] if plain else None
        outermost = max(self.find(ahead), self.find(over))
        if ahead == over or site is None or self.find(site) <= outermost:
            order = ", ".join(lp.name for lp in self.loops)
            raise MinitvmError(
                f"schedule: prefetch<'{ahead}', '{over}'> needs two different loops, both "
                f"outside the innermost loop that is neither unrolled nor vectorized ({site}; "
                f"loops: {order})"
            )
        return site

    def root_axes(self, name: str) -> set[str]:
        """The original axes (i0, r1, ...) that loop `name` runs a part of."""
        for axis, (outer, inner, _) in self.splits.items():
            if name in (outer, inner):
                return self.root_axes(axis)
        if name in self.fusions:
            outer, inner, _ = self.fusions[name]
            return self.root_axes(outer) | self.root_axes(inner)
        return {name}

    @property
    def reductions_innermost(self) -> bool:
        """True when the reduction loops form the innermost suffix (register accumulation)."""
        seen_reduction = False
        for lp in self.loops:
            if lp.reduction:
                seen_reduction = True
            elif seen_reduction:
                return False
        return True


def index_dependencies(
    value: SSAValue, memo: dict[SSAValue, frozenset[SSAValue]] | None = None
) -> frozenset[SSAValue]:
    """The compute's block arguments that `value` is computed from (`memo` caches the
    answers for values met on the way)."""
    memo = {} if memo is None else memo
    if value in memo:
        return memo[value]
    owner = value.owner
    if isinstance(owner, Operation):
        deps = frozenset().union(*(index_dependencies(o, memo) for o in owner.operands))
    else:
        deps = frozenset([value])
    memo[value] = deps
    return deps


def _walks_contiguously(compute: te.ComputeOp, axis: SSAValue) -> bool:
    """Whether every read varies with `axis` only in its last index (unit stride or none)."""
    memo: dict[SSAValue, frozenset[SSAValue]] = {}
    for read in compute.body.walk():
        if isinstance(read, te.ReadOp):
            for index in read.indices[:-1]:
                if axis in index_dependencies(index, memo):
                    return False
    return True


def default_nest(compute: te.ComputeOp) -> LoopNest:
    """`compute`'s loops before its schedule: i0..iN, then r0..rM, with iN moved innermost
    when the compute reduces and every read walks iN contiguously (`C[i, j] += A[i, k] *
    B[k, j]` runs as i-k-j); otherwise the accumulator stays in registers."""
    spatial = [Loop(f"i{n}", e, False) for n, e in enumerate(compute.shape)]
    reduction = [Loop(f"r{n}", e, True) for n, e in enumerate(compute.extents)]
    if (
        reduction
        and spatial
        and not surely_below(spatial[-1].extent, 4)  # (a symbolic extent: taken as long)
        and _walks_contiguously(compute, compute.spatial_args[-1])
    ):
        return LoopNest([*spatial[:-1], *reduction, spatial[-1]])
    return LoopNest([*spatial, *reduction])


#: A compute doing at least this many scalar operations (iterations x body ops) runs its
#: outermost loop on all threads, unless its schedule says which loop does: below that, the
#: fork and join (a few microseconds) cost more than a second core saves.
PARALLEL_MIN_WORK = 16384


def mark_default_parallel(nest: LoopNest, compute: te.ComputeOp) -> None:
    """Mark the first loop of two or more iterations parallel if only spatial loops enclose
    it, it is spatial, the schedule marked none and the compute has the work for it.

    A loop of symbolic extent (`batch`) may run once at run time, which would leave every
    other thread idle. Then a spatial loop inside it of an extent known now (12 heads, 12
    column panels) takes the threads instead, as it is (its index arithmetic untouched: a
    packed operand's divisions stay foldable); without one, the symbolic loop is fused with
    the plain (unsplit) spatial loops inside it, up to a factor known now or the innermost
    loop (`batch` x `seq`, then 768 channels), so that the threads share them all."""
    if any(loop.PARALLEL_HINT in lp.hints for lp in nest.loops):
        return
    # (symbolic extents: decided at middling sizes, a heuristic; the loop then runs to its
    # run-time trip count on the threads, whatever that is)
    with size_hints():
        work = sum(1 for _ in compute.body.walk())
        for lp in nest.loops:
            work = work * lp.extent
        if work < PARALLEL_MIN_WORK:
            return
        for n, lp in enumerate(nest.loops):
            if lp.reduction:
                return
            if _parallel_iterations(nest, lp) >= 2:
                break
        else:
            return
    loops = nest.loops
    if _known_factor(loops[n].extent) < 2:
        for inner in loops[n + 1 : -1]:  # (not the innermost)
            if inner.reduction or inner.hints:
                break
            if isinstance(inner.extent, int) and inner.extent >= 2:
                inner.hints.add(loop.PARALLEL_HINT)
                return
    # (a compute run inside another's loop (#te.compute_at) takes that loop's fusions)
    attached = any(isinstance(p, te.ComputeAtAttr) for p in compute.schedule)
    split = {part for outer, inner, _ in nest.splits.values() for part in (outer, inner)}
    while not attached and _known_factor(loops[n].extent) < 2 and n + 2 < len(loops):
        inner = loops[n + 1]
        if inner.reduction or inner.hints or loops[n].hints or {loops[n].name, inner.name} & split:
            break
        nest.fuse(loops[n].name, inner.name)
    loops[n].hints.add(loop.PARALLEL_HINT)


def _parallel_iterations(nest: LoopNest, lp: Loop) -> int | SymDim:
    """The iterations loop `lp` would share among the threads: its extent, or for the outer
    loop of a peeled split its whole tiles only (te_to_loop runs the partial tile as a loop
    of its own): a GEMM's 41 columns in blocks of 32 are one whole tile, and its row blocks
    take the threads instead."""
    peel = nest.peeled_split(lp.name)
    if peel is None:
        return lp.extent
    _, extent, factor = peel
    return floordiv(extent, factor)


def _known_factor(extent: int | SymDim) -> int:
    """The factor of an extent known before run time: itself, or a symbolic product's
    coefficient (12 of `12*batch`; 1 of `batch`, of `floordiv(seq + 3, 4)` and of a sum)."""
    if isinstance(extent, int):
        return extent
    return extent.terms[0][1] if len(extent.terms) == 1 else 1


def scheduled_nest(compute: te.ComputeOp) -> LoopNest:
    """`compute`'s loops after its own schedule (kernel-level primitives aside)."""
    nest = default_nest(compute)
    for primitive in compute.schedule:
        nest.apply(primitive)
    nest.prefetch_site()  # (checks a prefetch's loops)
    mark_default_parallel(nest, compute)
    return nest


# --------------------------------------------------------------------------------------------
# Kernels: #te.compute_at runs a consumer's loops inside a loop of its producer
# --------------------------------------------------------------------------------------------


def _share_fusion(producer: LoopNest, consumer: LoopNest, name: str, where: str) -> None:
    """Fuse in `consumer` the loops that make `producer`'s fused loop `name`, so that an
    attached consumer finds its own axes in the loop it shares (its marks on them go: it does
    not emit the loops it shares)."""
    outer, inner, extent = producer.fusions[name]
    for part in (outer, inner):
        if part in producer.fusions:
            _share_fusion(producer, consumer, part, where)
    try:
        for part in (outer, inner):
            consumer.loops[consumer.find(part)].hints.clear()
        consumer.fuse(outer, inner)
    except MinitvmError as error:
        message = f"{where}: the consumer cannot share fused loop '{name}': {error}"
        raise MinitvmError(message) from None
    if consumer.fusions[name][2] != extent:
        raise MinitvmError(f"{where}: fused loop '{name}' fuses other extents in the consumer")


@dataclass
class KernelNests:
    """The loop nests of a kernel's computes, with every `#te.compute_at` applied."""

    #: Each compute's scheduled nest; an attached consumer's has the fusions it shares.
    nests: dict[te.ComputeOp, LoopNest]
    #: (consumer, producer, producer loop it runs in) per `#te.compute_at`, in kernel order.
    attachments: list[tuple[te.ComputeOp, te.ComputeOp, str]]


def kernel_nests(kernel: func.FuncOp) -> KernelNests:
    """The nests of `kernel`'s computes; raises `MinitvmError` if its schedule does not apply.

    A `#te.compute_at<"p", "a">` must name a compute `p` with a loop `a` (or an axis fused
    into loop `a`), and every loop of `p` up to `a` must be a spatial loop the consumer has
    too: an unsplit axis of the same extent that the consumer neither splits nor fuses, or a
    fused loop that the consumer fuses the same way. Computes marked `#te.inline` must have
    been inlined already (te-inline; convert-te-to-loop runs it first)."""
    computes = [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]
    nests = {c: scheduled_nest(c) for c in computes}
    by_name = {c.label: c for c in computes if c.label is not None}
    attachments: list[tuple[te.ComputeOp, te.ComputeOp, str]] = []
    for consumer in computes:
        own = nests[consumer]
        for primitive in consumer.schedule:
            if not isinstance(primitive, te.ComputeAtAttr):
                continue
            producer_name, axis = primitive.producer.data, primitive.axis.data
            producer = by_name.get(producer_name)
            if producer is None:
                raise MinitvmError(f"schedule: compute_at names no compute '{producer_name}'")
            nest = nests[producer]
            loops = nest.loops
            names = [lp.name for lp in loops]
            axis = nest.enclosing(axis)  # an axis fused away runs in its fused loop
            if axis not in names:
                raise MinitvmError(
                    f"schedule: '{producer_name}' has no loop '{axis}' ({', '.join(names)})"
                )
            shared = loops[: names.index(axis) + 1]
            for lp in shared:
                if lp.name in nest.fusions and not lp.reduction:
                    where = f"schedule: compute_at '{producer_name}' at '{axis}'"
                    _share_fusion(nest, own, lp.name, where)
                    if own.loops[own.find(lp.name)].extent != lp.extent:
                        raise MinitvmError(
                            f"{where}: '{lp.name}' has another extent in the consumer"
                        )
                    continue
                k = int(lp.name[1:]) if lp.name[0] == "i" and lp.name[1:].isdigit() else None
                if (
                    lp.reduction
                    or k is None
                    or k >= len(consumer.shape)
                    or consumer.shape[k] != lp.extent
                ):
                    raise MinitvmError(
                        f"schedule: compute_at '{producer_name}' at '{axis}': loop '{lp.name}' "
                        "is not an unsplit spatial axis the two computes share"
                    )
                if lp.name in own.splits:
                    raise MinitvmError(
                        f"schedule: a compute_at consumer cannot split shared axis '{lp.name}'"
                    )
                if own.fused_part(lp.name) is not None:
                    raise MinitvmError(
                        f"schedule: a compute_at consumer cannot fuse shared axis '{lp.name}'"
                    )
            attachments.append((consumer, producer, axis))
    return KernelNests(nests, attachments)
