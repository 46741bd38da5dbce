"""graph-fold-weight-layout: lay constant weights out the way kernels read them fastest.

ONNX exporters write a fully connected layer as `Gemm(x, W, transB=1)` with W stored as
(out, in). Reading W transposed makes the innermost loop of the product walk W with a stride,
which is ~10x slower than the contiguous (in, out) layout. When W is a constant, transposing
it once at compile time is free:

    %y = graph.gemm %x, %w, %b {trans_b = 1 : i64} : (tensor<8x784xf32>, tensor<512x784xf32>, ...)
  becomes
    %wt = graph.constant ... : tensor<784x512xf32>        (W transposed, folded now)
    %y = graph.gemm %x, %wt, %b : (tensor<8x784xf32>, tensor<784x512xf32>, ...)

The same for a constant A under trans_a. MLIR counterpart: constant folding of
linalg.transpose into a weight (e.g. IREE's const-eval of weight layouts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.passes import ModulePass

from minitvm.dialects.graph import ConstantOp, GemmOp
from minitvm.dialects.graph.base import get_float, get_int


class GemmConstantTransposePattern(RewritePattern):
    """gemm(a, constant b, trans_b=1) -> gemm(a, constant b^T); likewise for a constant a."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GemmOp, rewriter: PatternRewriter) -> None:
        props = op.properties
        trans = {"trans_a": get_int(props, "trans_a", 0), "trans_b": get_int(props, "trans_b", 0)}
        operands = [op.lhs, op.rhs]
        changed = False
        for n, name in enumerate(("trans_a", "trans_b")):
            const = operands[n].owner
            if trans[name] and isinstance(const, ConstantOp):
                hint = f"{operands[n].name_hint or 'w'}_t"
                transposed = ConstantOp.from_array(np.ascontiguousarray(const.numpy().T), hint)
                transposed.result.name_hint = hint
                rewriter.insert(transposed)
                operands[n] = transposed.result
                trans[name] = 0
                changed = True
        if not changed:
            return
        new = GemmOp.make(
            *operands,
            op.bias,
            alpha=get_float(props, "alpha", 1.0),
            beta=get_float(props, "beta", 1.0),
            trans_a=trans["trans_a"],
            trans_b=trans["trans_b"],
        )
        rewriter.replace(op, new)


@dataclass(frozen=True)
class FoldWeightLayoutPass(ModulePass):
    name = "graph-fold-weight-layout"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GemmConstantTransposePattern()).rewrite_module(op)
