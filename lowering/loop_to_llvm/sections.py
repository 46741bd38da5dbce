"""`loop.sections` -> a parallel loop over the sections (part of convert-loop-to-llvm).

Sections run side by side when the run's threads divide them (2 sections on 2 threads, 4 on
2): each thread then runs whole sections, and a kernel called inside runs its own parallel
loops alone, on that thread (the pool takes one region at a time; a parallel loop opened
inside one runs serially: runtime/thread_pool.py, deploy/c/runtime.c). Otherwise (1 thread,
3 sections on 2 threads, 2 on 4) they run one after the other, and each kernel takes all the
threads, as if there were no sections. One loop does both, its trip count picked as it runs:

    loop.sections {A} {B}

becomes

    %t = loop.threads
    %side = (%t >= 2) and (2 % %t == 0)
    %groups = select %side, 2, 1                   // 2: a section per thread; 1: all in one
    %per = 2 / %groups
    loop.for %g = 0 to %groups (at most 2) step 1 {
      loop.for %j = 0 to %per (at most 2) step 1 {
        %s = %g * %per + %j
        loop.if (%s == 0) {A}
        loop.if (%s == 1) {B}
      }
    } {parallel}

and parallel.py outlines the outer loop: one iteration, and `__minitvm_parallel_for` calls
its body on the calling thread with the pool free for the kernels inside.
"""

from __future__ import annotations

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Block, Operation, Region
from xdsl.rewriter import Rewriter

from minitvm.dialects import loop
from minitvm.lowering.main_loops import Emit


def expand_sections(fn: func.FuncOp) -> None:
    """Rewrite every `loop.sections` of `fn` into its parallel loop (module docstring)."""
    for op in [op for op in fn.walk() if isinstance(op, loop.SectionsOp)]:
        Rewriter.replace_op(op, side_by_side(op), [])


def side_by_side(op: loop.SectionsOp) -> list[Operation]:
    """The ops that run `op`'s sections (its regions are moved into them), detached."""
    emit = Emit(Block())
    count = len(op.sections)
    threads = emit(loop.ThreadsOp())
    total, one = emit.index(count), emit.index(1)
    several = emit(arith.CmpiOp(threads, emit.index(2), "sge"))
    divides = emit(arith.CmpiOp(emit(arith.RemUIOp(total, threads)), emit.index(0), "eq"))
    groups = emit(arith.SelectOp(emit(arith.AndIOp(several, divides)), total, one))
    per = emit(arith.DivUIOp(total, groups))

    outer = emit.loop(count, groups)
    outer.attributes[loop.PARALLEL_HINT] = UnitAttr()
    body = Emit(outer.body.block)
    base = body(arith.MuliOp(outer.body.block.args[0], per))
    inner = body.loop(count, per)
    body.add(loop.YieldOp())
    run = Emit(inner.body.block)
    which = run(arith.AddiOp(base, inner.body.block.args[0]))
    for n, section in enumerate(op.sections):
        is_this = run(arith.CmpiOp(which, run.index(n), "eq"))
        run.add(loop.IfOp(is_this, Region(section.detach_block(0))))
    run.add(loop.YieldOp())
    ops = list(emit.block.ops)
    for new in ops:
        new.detach()
    return ops
