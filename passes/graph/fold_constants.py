"""graph-fold-constants: evaluate ops whose operands are all constants at compile time.

An op whose every operand is a `graph.constant` is replaced by constants holding its
results, computed with the dialect's reference semantics (`graph.reference.evaluate`), so
the folder and the spec cannot disagree. The walker revisits the users of each new constant,
so whole constant subgraphs (a transposed weight, a shape computation, a
BatchNorm's scale arithmetic) collapse in one run. The constants the folded op read are left
in place; `graph-dce` removes those no longer used.

    %w = graph.constant #graph.weights<fc_w_...> : tensor<1000x2048xf32>
    %0 = graph.transpose %w {perm = array<i64: 1, 0>}
           : tensor<1000x2048xf32> -> tensor<2048x1000xf32>
  becomes
    %0 = graph.constant #graph.weights<fc_w_transpose_...> : tensor<2048x1000xf32>

MLIR counterpart: the constant folding done by `-canonicalize` / `-sccp` through each op's
`fold` hook; here one pattern serves every op because every op has a reference kernel.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import GraphOp, is_static
from minitvm.dialects.graph.constant import ConstantOp, WeightsAttr


def _numel(op: Operation) -> int:
    total = 0
    for value in op.results:
        assert isinstance(value.type, TensorType)
        total += math.prod(value.type.get_shape())
    return total


def _constant_operands(op: Operation) -> list[ConstantOp] | None:
    owners = [operand.owner for operand in op.operands]
    if all(isinstance(owner, ConstantOp) for owner in owners):
        return owners  # type: ignore[return-value]
    return None


def _name_hint(op: Operation, index: int, inputs: list[ConstantOp]) -> str:
    """A readable blob key stem: the result's SSA name if it has one, else the first weight
    operand's name followed by the op (`fc_w_transpose`), else the op's name."""
    kind = op.name.removeprefix("graph.")
    if hint := op.results[index].name_hint:
        return hint
    for const in inputs:
        if isinstance(const.value, WeightsAttr):
            stem = re.sub(r"_[0-9a-f]{12}$", "", const.value.key.data)
            return f"{stem}_{kind}"
    return kind


@dataclass
class FoldConstantPattern(RewritePattern):
    """Replace a graph op on constants by constants of its results."""

    max_elements: int

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, GraphOp) or (inputs := _constant_operands(op)) is None:
            return
        if not all(is_static(r.type) for r in op.results):
            return  # a constant has a static shape: it cannot stand for a run-time size
        size = _numel(op)
        # A big result is still folded when it is no bigger than its inputs (a transpose or
        # cast of a large weight): only ops that would grow the model (expand, tile, ...)
        # are held back.
        if size > self.max_elements and size > sum(_numel(c) for c in inputs):
            return
        try:
            values = reference.evaluate(op, [c.numpy() for c in inputs])
        except reference.EvaluationError:
            return  # no compile-time semantics for this configuration: leave it to run time
        folded = [
            ConstantOp.from_array(value, _name_hint(op, i, inputs))
            for i, value in enumerate(values)
        ]
        rewriter.replace(op, folded, [c.result for c in folded])


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Fold every graph op whose operands are all constants.

    `max-elements`: ops whose results together hold more elements than this (and more than
    their inputs) stay unfolded, so that e.g. an expand of a scalar does not turn into
    hundreds of megabytes of weights. 1 << 24 elements is 64 MB of f32.
    """

    name = "graph-fold-constants"

    max_elements: int = 1 << 24

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FoldConstantPattern(self.max_elements)).rewrite_module(op)
