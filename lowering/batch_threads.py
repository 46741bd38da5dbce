"""Which loop of a kernel takes the threads when its outer loop is a batch known only at run
time: the images, or the rows (channel blocks, heads) of each image, picked as it runs.

A loop of symbolic extent (`batch`) may run once, so `mark_default_parallel` hands the
threads to a loop of known extent inside it (a conv's fused channel-block x row loop), and a
kernel then runs a parallel region per image and per stage (padding, conv, epilogue), each
stage's rows shared out afresh, so that a thread reads rows another one wrote. A static
compile at batch 8 shares out whole images instead: each thread pads, convolves and
finishes its own images in its own cache, one region per kernel. At batch 8 on 2 threads
(Sapphire Rapids) ResNet-50 ran 1.10x slower the first way than the second; at batch 1 the
second way runs on one thread (1.6x slower).

So such a kernel gets both: its nests as scheduled, and a copy whose outer loop takes the
threads (`batch_parallel_nests`), each under a `loop.if` on `images_take_threads`, which asks
how many threads the run has (`loop.threads`). Whole images go to the threads where that
idles them at most 1/IDLE_SHARE of the time: batch 2, 4, 8 on 2 threads, not batch 1 or 3.
The price is code: 28 of dynamic ResNet-50's 37 kernels come in two versions, and its
compile took 18.4 s instead of 12.6 (no object cache, 2 cores).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, SSAValue

from minitvm.dialects import loop, te
from minitvm.dialects.te_expr import Expr, const, emit_into
from minitvm.dialects.te_nest import KernelNests, LoopNest, kernel_nests
from minitvm.symbolic import SymDim

#: Images go to the threads where rounding them up to a multiple of the threads adds at most
#: 1/IDLE_SHARE to the work: then each thread's own images cost less than a thread idling
#: that long (sharing each image's rows cost ResNet-50 10% at batch 8 on 2 threads).
IDLE_SHARE = 8


def shares_images_rows(nest: LoopNest) -> bool:
    """Whether `nest`'s outer loop is a spatial loop of run-time extent that runs on one
    thread while a loop inside it takes the threads."""
    if not nest.loops:
        return False
    outer = nest.loops[0]
    return (
        isinstance(outer.extent, SymDim)
        and not outer.reduction
        and loop.PARALLEL_HINT not in outer.hints
        and any(loop.PARALLEL_HINT in lp.hints for lp in nest.loops[1:])
    )


def batch_parallel_nests(
    kernel: func.FuncOp, nests: KernelNests
) -> tuple[KernelNests, set[te.ComputeOp]] | None:
    """The kernel's nests again, where each top-level nest that `shares_images_rows` runs
    its outer loop on the threads instead, and every compute attached inside it (at any
    depth) runs serially in that loop; with those top-level computes. None if no nest
    shares its images' rows."""
    host = {consumer: producer for consumer, producer, _ in nests.attachments}
    shared = {c for c, nest in nests.nests.items() if c not in host and shares_images_rows(nest)}
    if not shared:
        return None
    other = kernel_nests(kernel)  # (fresh loops: the hints below leave `nests` as it is)
    for compute, nest in other.nests.items():
        root = compute
        while root in host:
            root = host[root]
        if root not in shared:
            continue
        for lp in nest.loops:
            lp.hints.discard(loop.PARALLEL_HINT)
        if compute in shared:
            nest.loops[0].hints.add(loop.PARALLEL_HINT)
    return other, shared


def images_take_threads(block: Block, images: int | SymDim) -> SSAValue:
    """An i1 appended to `block`: whether `images` iterations, spread over this run's
    threads, idle them at most 1/IDLE_SHARE of the time."""
    threads_op = loop.ThreadsOp()
    block.add_op(threads_op)
    with emit_into(block):
        count = const(images, IndexType())
        threads = Expr(threads_op.result)
        rounded = (count + threads - 1) // threads * threads
        return ((rounded - count) * IDLE_SHARE <= count).value
