"""loop-unroll: fully unroll every `loop.for` marked `unroll`.

The `unroll` hint comes from a `#te.unroll<"axis">` schedule primitive (convert-te-to-loop
turns it into a unit attribute). Each iteration becomes a copy of the body with the induction
variable replaced by an index constant; loop-carried values are chained from one copy's
`loop.yield` into the next, and the loop's results are the last copy's yields:

    %r = loop.for %i = 0 to 2 step 1 iter_args(%acc = %zero) -> (f32) {
      %x = loop.load %A[%i] : memref<2xf32> -> f32
      %s = arith.addf %acc, %x : f32
      loop.yield %s : f32
    } {unroll}
    loop.store %r, %out[] : f32, memref<f32>

becomes

    %i = arith.constant 0 : index
    %x = loop.load %A[%i] : memref<2xf32> -> f32
    %s = arith.addf %zero, %x : f32
    %i_1 = arith.constant 1 : index
    %x_1 = loop.load %A[%i_1] : memref<2xf32> -> f32
    %s_1 = arith.addf %s, %x_1 : f32
    loop.store %s_1, %out[] : f32, memref<f32>

Loops nested inside an unrolled loop are unrolled first (inner-first), so `unroll` on two
nested loops yields their product of copies. A loop with more than `max-trip-count`
iterations keeps its structure and loses the hint. A loop also marked `vectorize` is left to
loop-vectorize (which turns it into straight-line vector code, a better use of its lanes).
convert-loop-to-llvm folds the index constants into addresses, so an unrolled register block
costs no index arithmetic at run time. Each copy's arithmetic on constants is folded right away
(`arith_values.fold_constants`: selects on a constant condition, comparisons, index and float
arithmetic) and what it no longer uses erased: LLVM would fold it too, but every op left costs
the loop passes and the conversion to the llvm dialect. The input transform of a Winograd conv
(16 positions unrolled, each a select chain of the position) has 3350 ops unfolded, 2470 folded.

MLIR counterpart: `affine-loop-unroll{unroll-full}` / xDSL's `scf-for-loop-unroll`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from minitvm.dialects import loop
from minitvm.dialects.arith_values import fold_constants


@dataclass
class UnrollLoopPattern(RewritePattern):
    """Unroll one `loop.for {unroll}` whose nested unroll loops are already unrolled."""

    max_trip_count: int

    def unrollable(self, op: loop.ForOp) -> bool:
        return loop.UNROLL_HINT in op.attributes and loop.VECTORIZE_HINT not in op.attributes

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: loop.ForOp, rewriter: PatternRewriter) -> None:
        if not self.unrollable(op):
            return
        if op.is_dynamic or op.trip_count > self.max_trip_count:  # (a run-time trip count)
            del op.attributes[loop.UNROLL_HINT]
            rewriter.notify_op_modified(op)
            return
        nested = (inner for inner in op.body.walk() if isinstance(inner, loop.ForOp))
        if any(self.unrollable(inner) for inner in nested):
            return  # inner-first: the walker comes back to this loop once they are done
        lower, upper, step = op.bounds
        block = op.body.block
        carried: list[SSAValue] = list(op.inits)
        for value in range(lower, upper, step):
            index = rewriter.insert(arith.ConstantOp(IntegerAttr(value, IndexType())))
            index.result.name_hint = op.induction_var.name_hint
            mapping: dict[SSAValue, SSAValue] = {op.induction_var: index.result}
            mapping.update(zip(op.carried, carried))
            copies = []
            for inner in block.ops:
                if isinstance(inner, loop.YieldOp):
                    carried = [mapping.get(v, v) for v in inner.values]
                else:
                    copies.append(rewriter.insert(inner.clone(mapping)))
            replaced = fold_constants(copies, rewriter.replace, rewriter.erase, keep=carried)
            carried = [replaced.get(v, v) for v in carried]
        rewriter.replace(op, (), carried)


@dataclass(frozen=True)
class UnrollPass(ModulePass):
    """Fully unroll loops marked `unroll` with at most `max_trip_count` iterations."""

    name = "loop-unroll"

    max_trip_count: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            UnrollLoopPattern(self.max_trip_count), walk_regions_first=True
        ).rewrite_module(op)
