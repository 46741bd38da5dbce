"""graph-dce: erase graph ops and constants whose results are never used.

Folding and canonicalization leave dead producers behind (the constants a folded op read,
the inner reshape of a reshape pair); this pass removes them. Graph ops are pure, so an op
is dead exactly when its results have no uses; the walk goes backwards and revisits
operands, so whole dead chains disappear in one run. Ops of other dialects are left alone
(xDSL's own `dce` pass covers those).

MLIR counterpart: the dead-op erasure inside `-canonicalize` (and xDSL's `dce`), whose
`RemoveUnusedOperations` pattern this pass reuses, restricted to the graph dialect.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker
from xdsl.transforms.dead_code_elimination import RemoveUnusedOperations

from minitvm.dialects.graph.base import GraphOp
from minitvm.dialects.graph.constant import ConstantOp
from minitvm.dialects.graph.control import IfOp, LoopOp


class RemoveDeadGraphOpPattern(RemoveUnusedOperations):
    """xDSL's dead-op pattern, applied to graph ops and constants only."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, GraphOp | ConstantOp | IfOp | LoopOp):  # (control flow of pure ops)
            super().match_and_rewrite(op, rewriter)


@dataclass(frozen=True)
class DeadCodeEliminationPass(ModulePass):
    """Remove unused graph ops and constants."""

    name = "graph-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            RemoveDeadGraphOpPattern(), apply_recursively=True, walk_reverse=True
        ).rewrite_module(op)
