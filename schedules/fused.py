"""The default schedule of a fused kernel: inline the intermediates, run the epilogue inside
the anchor's loop nest.

A fused kernel (`te.fused`) as convert-graph-to-te builds it is a list of computes, each
materialized in a buffer, the anchor op's main compute (its last reduction, else its last
compute) named "anchor":

    conv + bias + relu:   pad -> acc "anchor" (sum over c, ky, kx) -> bias -> relu

`schedule_fused_kernel` (run by te-default-schedule, after each compute got its own default)
attaches the schedule that makes it one pass over the data:

  - an intermediate compute that is no kernel result and no reduction is `#te.inline`d into
    its readers when that costs no repeated work: its body is cheap (index arithmetic,
    selects, reads, add/sub/mul/min/max), or each reader reads it once, at no more points than
    it has elements. Nothing is inlined into a reduction (`INLINE_INTO_REDUCTIONS`): a conv's
    zero padding stays a compute of its own, but for a depthwise conv's, which is bound by
    its reads (`_bound_by_its_reads`);
  - computes after the anchor that do not read it (a batch norm's per-channel factor) move
    before it;
  - the computes left after the anchor (the epilogue, now one compute per kernel result) get
    `#te.compute_at<"anchor", axis>`, axis being the innermost loop of the anchor's default
    nest that is spatial and outside every reduction loop, and along which the epilogue's
    reads of the anchor (and of computes attached before it) stay at the iteration's own
    index. Each row (conv: each output row y of each channel) is then finished right after
    the anchor computes it, and te_to_loop lets a pointwise epilogue update the anchor's
    buffer in place. A conv whose register block spans several channel blocks fuses their
    split axis (i1.o) with the rows; where an image leaves the L2, the epilogue splits i1
    the same way and runs in that loop (`_shared_splits`), else after each image.

    %acc = te.compute "anchor" (...) sum (...) : tensor<1x8x8x8xf32> {...}
    %y = te.compute (...) {schedule = [#te.compute_at<"anchor", "i2">]} : tensor<1x8x8x8xf32> {
      (reads %acc[n, f, y, x], adds the bias, the residual, max with 0)
    }

A kernel without an anchor (an injective chain) gets only the inlining, which leaves the last
compute reading the kernel's inputs directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from minitvm.dialects import te
from minitvm.dialects.te import ANCHOR
from minitvm.dialects.te_inline import inline_computes
from minitvm.dialects.te_nest import LoopNest, default_nest, scheduled_nest
from minitvm.schedules.base import L2_BYTES, vector_block
from minitvm.schedules.conv import reads_input_vectors
from minitvm.symbolic import SymDim, hinted

#: Inline cheap computes (a conv's zero padding) into the reductions that read them, instead
#: of materializing them? No: the bounds checks and selects then run once per multiply-add
#: and keep LLVM from vectorizing the inner loop. Measured on a fused 3x3 conv + bias + relu,
#: one thread, default loop order: 1x64x56x56 -> 64 channels 34.9 ms inlined vs 8.0 ms with
#: the padded copy; 1x32x28x28 -> 32: 4.7 ms vs 0.41 ms. Except into a depthwise conv
#: (`_bound_by_its_reads`).
INLINE_INTO_REDUCTIONS = False


def _bound_by_its_reads(reduction: te.ComputeOp) -> bool:
    """Whether `reduction` is a blocked depthwise conv: it does one vector FMA per input
    vector it loads, so its time is its reads, and a padded copy of its input (written, then
    read back) costs more than a clamped index and a vector select per load. Sapphire Rapids
    class, one thread, 3x3 depthwise + Clip, NCHW in and out, medians of 200 interleaved
    runs, copy against inlined: 96 channels 112x112 stride 2 1.008 -> 0.711 ms; 144 at
    56x56 0.573 -> 0.498; 192 at 28x28 stride 2 0.151 -> 0.112; 960 at 7x7 0.083 -> 0.064;
    MobileNetV2 9.32 -> 8.37 ms (2 threads 5.32 -> 4.66)."""
    return reads_input_vectors(reduction)

#: Scalar ops whose cost is a cycle or so: computes made of these alone may be recomputed.
_CHEAP = (
    arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.FloorDivSIOp,
    arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.CmpiOp, arith.CmpfOp, arith.SelectOp,
    arith.MaxSIOp, arith.MinSIOp, arith.AndIOp, arith.OrIOp, arith.IndexCastOp,
    arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.NegfOp, arith.MaximumfOp, arith.MinimumfOp,
    te.ReadOp, te.YieldOp,
)  # fmt: skip


def _numel(compute: te.ComputeOp) -> int:
    return math.prod(compute.shape)


def _is_cheap(compute: te.ComputeOp) -> bool:
    return all(isinstance(op, _CHEAP) for op in compute.body.block.ops)


def _readers(compute: te.ComputeOp) -> list[tuple[te.ComputeOp, int]] | None:
    """Each compute reading `compute`, with how many reads of it its body has; None if
    something else (a kernel return) uses it."""
    counts: dict[te.ComputeOp, int] = {}
    for use in compute.result.uses:
        reader = use.operation.parent_op()
        if not isinstance(use.operation, te.ReadOp) or not isinstance(reader, te.ComputeOp):
            return None
        counts[reader] = counts.get(reader, 0) + 1
    return list(counts.items())


def _should_inline(compute: te.ComputeOp, anchor: te.ComputeOp | None) -> bool:
    if compute is anchor or compute.reduce_kind is not None:
        return False
    readers = _readers(compute)
    if not readers:  # a kernel result, or unused
        return False
    cheap = _is_cheap(compute)
    for reader, reads in readers:
        if reader.reduce_kind is not None:
            if not (cheap and (INLINE_INTO_REDUCTIONS or _bound_by_its_reads(reader))):
                return False
        elif not cheap and (reads > 1 or _numel(reader) > _numel(compute)):
            return False
    return True


def _schedule(compute: te.ComputeOp, primitive: Attribute) -> None:
    compute.attributes[te.SCHEDULE_ATTR] = ArrayAttr([*compute.schedule, primitive])


def _reads_stay_in_iteration(
    consumer: te.ComputeOp, inside: Sequence[te.ComputeOp], depth: int
) -> bool:
    """Whether every read `consumer` makes of a compute in `inside` uses, along result dims
    0..depth, the consumer's own index (or a size-1 dim): what one iteration of the shared
    loops has computed is then all it reads."""
    values = {c.result for c in inside}
    for read in consumer.body.walk():
        if not isinstance(read, te.ReadOp) or read.tensor not in values:
            continue
        producer = read.tensor.owner
        assert isinstance(producer, te.ComputeOp)
        for k in range(depth + 1):
            if producer.shape[k] != 1 and read.indices[k] is not consumer.spatial_args[k]:
                return False
    return True


def _attach_depth(
    consumer: te.ComputeOp, shared: Sequence[tuple[int, int, bool]], inside: Sequence[te.ComputeOp]
) -> int:
    """How many of the anchor's outer axes (dim, extent, whether it ends its loop)
    `consumer` can share (0: none). Axes fused into one loop are shared all or none."""
    depth = 0
    for k, (dim, extent, ends_loop) in enumerate(shared):
        if dim != k or dim >= len(consumer.shape) or consumer.shape[dim] != extent:
            break
        if not _reads_stay_in_iteration(consumer, inside, k):
            break
        if ends_loop:
            depth = k + 1
    return depth


def _outer_spatial_loops(
    anchor: te.ComputeOp, splits: dict[int, int] | None = None
) -> list[tuple[int, int, bool]]:
    """(dim, extent, whether it ends its loop) of the axes that the anchor's loops outside
    its first reduction or split loop run (after its own schedule, e.g. a GEMM's register
    blocking); a fused loop's axes in order (a conv fuses its channel blocks and rows to
    give the threads more, smaller chunks), a split axis whose outer part it fuses at its
    whole extent (`splits`, `_shared_splits`'s answer, worked out here if not given)."""
    nest = scheduled_nest(anchor)
    splits = _shared_splits(anchor) if splits is None else splits
    axes: list[tuple[int, int, bool]] = []
    for lp in nest.loops:
        parts = None if lp.reduction else _fused_axes(nest, lp.name, lp.extent, splits)
        if parts is None:
            break
        last = len(parts) - 1
        axes += [(int(name[1:]), extent, n == last) for n, (name, extent) in enumerate(parts)]
    return axes


def _shared_splits(anchor: te.ComputeOp) -> dict[int, int]:
    """dim -> factor of the axes whose outer part of a split the anchor fuses into an outer
    loop: a conv's block of `oc_block` channel blocks, fused with the rows. A consumer
    that splits the axis the same way shares that loop.

    Only where what the anchor computes inside the loops outside that split (a conv's
    image) leaves the L2 (more than half of it): otherwise the epilogue that runs after the
    image finds it there, and in the rows' loop it costs more than it saves. Sapphire Rapids,
    one thread, conv + relu (+ a residual add), interleaved: 64 -> 256 channels 1x1 at 56x56
    (3.2 MB an image) 1.84 -> 1.73 ms, the 7x7/2 stem 2.13 -> 2.05; but 3x3 512 -> 512 at
    7x7 (100 KB) 2.36 -> 2.56, and 400-800 KB images (256 -> 1024 at 14x14, 512 -> 2048 at
    7x7) unchanged."""
    nest = scheduled_nest(anchor)
    candidates = {
        int(axis[1:]): factor
        for axis, (outer, _, factor) in nest.splits.items()
        if nest.fused_part(outer) is not None and _split_outer_axis(nest, outer) == axis
    }
    if not candidates or not L2_BYTES:
        return {}
    element = anchor.result.type.element_type
    inside = anchor.shape[min(candidates) :]  # (a conv's image)
    if math.prod(hinted(d) for d in inside) * getattr(element, "bitwidth", 32) // 8 <= L2_BYTES // 2:
        return {}
    return candidates


def _split_outer_axis(nest: LoopNest, name: str) -> str | None:
    """The axis (i1) whose split by a factor dividing it has `name` (i1.o) as its outer
    loop, None if there is none."""
    for axis, (outer, _, _) in nest.splits.items():
        if outer == name and axis[0] == "i" and "." not in axis and nest.peeled_split(name) is None:
            return axis
    return None


def _fused_axes(
    nest: LoopNest, name: str, extent: int, splits: dict[int, int], in_fusion: bool = False
) -> list[tuple[str, int]] | None:
    """The axes loop `name` runs, outermost first, with their extents: unsplit axes, and
    inside a fused loop the outer part of a split in `splits` (`_shared_splits`), at the
    axis's whole extent; None if it runs another split axis."""
    if name not in nest.fusions:
        if "." not in name:
            return [(name, extent)]
        axis = _split_outer_axis(nest, name) if in_fusion else None
        if axis is None or int(axis[1:]) not in splits:
            return None
        return [(axis, extent * splits[int(axis[1:])])]
    outer, inner, inner_extent = nest.fusions[name]
    parts = (
        _fused_axes(nest, outer, extent // inner_extent, splits, True),
        _fused_axes(nest, inner, inner_extent, splits, True),
    )
    return None if parts[0] is None or parts[1] is None else [*parts[0], *parts[1]]


def _attachments(
    computes: Sequence[te.ComputeOp], anchor: te.ComputeOp, splits: dict[int, int]
) -> tuple[list[int], str]:
    """Which of `computes` (a kernel's, inlining applied) run inside the anchor's nest, and
    at which loop: attached in order while possible, since a compute left outside runs after
    the anchor's whole nest and no later compute may run inside it (it might read the one
    left outside)."""
    shared = _outer_spatial_loops(anchor, splits)
    inside = [anchor]
    attached: list[int] = []
    depth = len(shared)
    for n in range(computes.index(anchor) + 1, len(computes)):
        compute = computes[n]
        if compute.reduce_kind is not None:
            break
        depth = min(depth, _attach_depth(compute, shared, inside))
        if depth == 0:
            break
        attached.append(n)
        inside.append(compute)
    return attached, f"i{shared[depth - 1][0]}" if attached else ""


def _hoist_independent(computes: Sequence[te.ComputeOp], anchor: te.ComputeOp) -> None:
    """Move the computes after the anchor that do not read it (say a batch norm's per-channel
    factor) before it: they are then done when an epilogue attached to the anchor reads
    them, and they no longer stand between the anchor and the computes that can attach."""
    dependent = {anchor.result}
    for compute in computes[computes.index(anchor) + 1 :]:
        reads = {op.tensor for op in compute.body.walk() if isinstance(op, te.ReadOp)}
        if reads & dependent:
            dependent.add(compute.result)
        else:
            compute.detach()
            Rewriter.insert_op(compute, InsertPoint.before(anchor))


_ZERO = IntegerAttr(0, IndexType())


def _own_index_on_unit_dims(computes: Sequence[te.ComputeOp]) -> None:
    """Read a size-1 dim of a compute's own shape at its own index rather than at a constant
    0 (the same value, as `broadcast_read` writes it): a read of the anchor then looks
    pointwise, and te_to_loop lets the epilogue update the anchor's buffer in place."""
    for compute in computes:
        for read in list(compute.body.walk()):
            if not isinstance(read, te.ReadOp) or not isinstance(read.tensor.owner, te.ComputeOp):
                continue
            if read.tensor.type != compute.result.type:
                continue
            indices = [
                compute.spatial_args[k] if compute.shape[k] == 1 and _is_zero(index) else index
                for k, index in enumerate(read.indices)
            ]
            if indices != list(read.indices):
                Rewriter.replace_op(read, te.ReadOp(read.tensor, indices))


def _is_zero(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, arith.ConstantOp) and owner.value == _ZERO


def schedule_fused_kernel(kernel: func.FuncOp, anchor: te.ComputeOp | None) -> None:
    """Attach the default fused schedule to `kernel` (see the module docstring); `anchor` is
    the compute named ANCHOR (None: no anchor), its own schedule already attached."""
    computes = [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]
    _own_index_on_unit_dims(computes)
    inlined = {c for c in computes if _should_inline(c, anchor)}
    for compute in computes:
        if compute in inlined:
            _schedule(compute, te.inline())
    if anchor is None:
        return
    _hoist_independent(computes, anchor)
    computes = [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]
    # Where the epilogue can attach depends on the reads left once inlining is done: decide
    # on an inlined copy, whose computes are the survivors here, in the same order.
    survivors = [c for c in computes if c not in inlined]
    copy = kernel.clone()
    inline_computes(copy)
    twins = [op for op in copy.body.block.ops if isinstance(op, te.ComputeOp)]
    assert len(twins) == len(survivors)
    splits = _shared_splits(anchor)
    attached, axis = _attachments(twins, twins[survivors.index(anchor)], splits)
    for n in attached:
        _split_as_anchor(survivors[n], splits, int(axis[1:]))
        _schedule(survivors[n], te.compute_at(ANCHOR, axis))
        _vectorize_innermost(survivors[n], axis)


def _split_as_anchor(compute: te.ComputeOp, splits: dict[int, int], depth: int) -> None:
    """Split the axes up to `depth` that the anchor's shared loops run split (`splits`) by
    the same factors, their outer parts in the axes' places and their inner parts right
    inside the shared loops: the epilogue of a conv whose register block spans several
    channel blocks then runs in the loop over (block of channel blocks, row) that the
    threads share, each row's outputs finished while they are in cache, on the thread that
    computed them, rather than after the whole image in a parallel loop of its own."""
    shared = [d for d in sorted(splits) if d <= depth]
    if not shared:
        return
    for dim in shared:
        _schedule(compute, te.split(f"i{dim}", splits[dim]))
    outer = [f"i{d}.o" if d in splits else f"i{d}" for d in range(depth + 1)]
    rest = [f"i{d}" for d in range(depth + 1, len(compute.shape))]
    _schedule(compute, te.reorder(*outer, *(f"i{d}.i" for d in shared), *rest))


def _vectorize_innermost(compute: te.ComputeOp, attached_at: str) -> None:
    """Vectorize an attached epilogue's innermost loop when it is a whole number of vectors
    (or one 8-lane vector: NCHW8c) and runs inside the attachment. Left to LLVM, an NCHW16c
    epilogue's 16-lane channel loop is unrolled and the pixel loop around it vectorized
    instead, with gathers and scatters:
    a fused 3x3 conv 64->64 at 56x56 + bias + relu took 2.21 ms that way, 2.06 vectorized
    (the conv alone: 2.02)."""
    innermost = default_nest(compute).loops[-1]
    whole = isinstance(innermost.extent, SymDim) or vector_block(innermost.extent)  # (run-time:
    if whole and int(innermost.name[1:]) > int(attached_at[1:]):  # vector strips, scalar rest)
        _schedule(compute, te.vectorize(innermost.name))
