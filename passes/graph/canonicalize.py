"""graph-canonicalize: local simplifications that remove no-op and redundant graph ops.

The frontend translates ONNX node by node, so models arrive with reshape chains, transpose
pairs, `x * 1`, full slices, single-input concats and the like (often left over from
exporters or from folded shape computations). Each pattern below removes one such
redundancy; together they give later passes (fusion, layout) fewer ops to look through.

    %1 = graph.reshape %0 : tensor<2x3x4xf32> to tensor<6x4xf32>
    %2 = graph.reshape %1 : tensor<6x4xf32> to tensor<24xf32>
  becomes
    %2 = graph.reshape %0 : tensor<2x3x4xf32> to tensor<24xf32>

A pattern that replaces an op by its input fires only when the result type equals the input
type: `x + zeros` that broadcasts `x` to a bigger shape stays. The greedy driver also erases
graph ops left without uses, as MLIR's canonicalizer does.

A result without elements (a dim of size 0) is an empty constant whatever computes it, so no
kernel is built for it, and the empty operands of a concat are dropped:

    %1 = graph.conv %0, %w : (tensor<0x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<0x16x6x6xf32>
  becomes
    %1 = graph.constant dense<> : tensor<0x16x6x6xf32>

MLIR counterpart: `-canonicalize` with the ops' canonicalization patterns and folders
(e.g. tensor.reshape / linalg.transpose folding, `arith.addf %x, 0`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import AnyFloat, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from minitvm.dialects.graph import (
    AddOp,
    CastOp,
    ConcatOp,
    ConstantOp,
    DivOp,
    ExpandOp,
    MulOp,
    PadOp,
    PowOp,
    ReshapeOp,
    SliceOp,
    SubOp,
    TileOp,
    TransposeOp,
    WeightsAttr,
)
from minitvm.dialects.graph.base import GraphOp, get_int, get_ints, is_static, shape_of
from minitvm.dialects.graph.constant import numpy_dtype_of


def _splat_value(value: SSAValue) -> float | None:
    """The value of every element if `value` is a splat or a small inline constant whose
    elements are all equal, else None (blobs are never splats: `from_array` makes those)."""
    const = value.owner
    if not isinstance(const, ConstantOp) or isinstance(const.value, WeightsAttr):
        return None
    array = const.numpy()
    if array.size == 0 or not np.all(array == array.flat[0]):
        return None
    return float(array.flat[0])


def _replace_by(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> None:
    """Forward `value` to every user of `op`'s single result, if the types agree."""
    if op.results[0].type == value.type:
        rewriter.replace(op, [], [value])


class ReshapeOfReshapePattern(RewritePattern):
    """reshape(reshape(x)) -> reshape(x): only the last shape matters."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, ReshapeOp):
            return
        assert isinstance(op.result.type, TensorType)
        rewriter.replace(op, ReshapeOp.make(inner.input, shape=shape_of(op.result.type)))


class SameTypeIdentityPattern(RewritePattern):
    """reshape / expand / cast whose result type is its input type -> the input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: ReshapeOp | ExpandOp | CastOp, rewriter: PatternRewriter
    ) -> None:
        _replace_by(rewriter, op, op.input)


class TransposeOfTransposePattern(RewritePattern):
    """transpose(transpose(x, p), q) -> transpose(x, p[q]) (or x when p[q] is identity)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, TransposeOp):
            return
        # Result dim i is inner's dim q[i], which is x's dim p[q[i]].
        p, q = get_ints(inner.properties, "perm"), get_ints(op.properties, "perm")
        perm = [p[i] for i in q]
        if perm == sorted(perm):
            rewriter.replace(op, [], [inner.input])
        else:
            rewriter.replace(op, TransposeOp.make(inner.input, perm=perm))


class IdentityTransposePattern(RewritePattern):
    """transpose(x, [0, 1, ..., n-1]) -> x; a transpose that keeps the order of x's dims
    other than 1 (it moves only unit dims: [64, 2, 1, 256] by (0, 2, 1, 3)) -> a reshape
    to its result's shape: the same elements in the same order, which alone in @main is a
    view, not a copy (lowering/views.py)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        perm = list(get_ints(op.properties, "perm"))
        if perm == sorted(perm):
            rewriter.replace(op, [], [op.input])
            return
        assert isinstance(op.input.type, TensorType) and isinstance(op.result.type, TensorType)
        shape = shape_of(op.input.type)
        moved = [axis for axis in perm if shape[axis] != 1]
        if moved == sorted(moved):
            rewriter.replace(op, ReshapeOp.make(op.input, shape=shape_of(op.result.type)))


class AddZeroPattern(RewritePattern):
    """x + 0, 0 + x, x - 0 -> x (when the zeros do not broadcast x to a bigger shape)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp | SubOp, rewriter: PatternRewriter) -> None:
        if _splat_value(op.rhs) == 0:
            _replace_by(rewriter, op, op.lhs)
        elif isinstance(op, AddOp) and _splat_value(op.lhs) == 0:
            _replace_by(rewriter, op, op.rhs)


class MulOnePattern(RewritePattern):
    """x * 1, 1 * x, x / 1 -> x (when the ones do not broadcast x to a bigger shape)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp | DivOp, rewriter: PatternRewriter) -> None:
        if _splat_value(op.rhs) == 1:
            _replace_by(rewriter, op, op.lhs)
        elif isinstance(op, MulOp) and _splat_value(op.lhs) == 1:
            _replace_by(rewriter, op, op.rhs)


class PowByConstantPattern(RewritePattern):
    """x ** 1 -> x, x ** 2 -> x * x, x ** 3 -> x * x * x, for a float x and a constant
    exponent whose elements are all that number (and do not broadcast x to a bigger shape):
    exporters write LayerNorm's variance and GPT-2's GELU (`0.044715 * x **
    3`) as Pow, which the loops would otherwise run as one libm `pow` call per element (GPT-2
    at 8 x 32 tokens, one thread: 0.23 ms for each LayerNorm's 16K squares). ONNX Runtime
    special-cases the same exponents; MLIR's counterpart is math-algebraic-simplification.
    (Not x ** 0.5 -> sqrt(x): they differ at -0 and -inf.)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PowOp, rewriter: PatternRewriter) -> None:
        x = op.lhs
        exponent = _splat_value(op.rhs)
        if op.result.type != x.type or exponent not in (1.0, 2.0, 3.0):
            return
        assert isinstance(x.type, TensorType)
        if not isinstance(x.type.element_type, AnyFloat):
            return  # (an integer base is raised in f64 and truncated: left as it is)
        if exponent == 1.0:
            rewriter.replace(op, [], [x])
        else:
            square = MulOp.make(x, x)
            if exponent == 2.0:
                rewriter.replace(op, square)
            else:
                rewriter.insert(square, InsertPoint.before(op))
                rewriter.replace(op, MulOp.make(square.results[0], x))


class FullSlicePattern(RewritePattern):
    """A slice that takes every element in order -> its input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SliceOp, rewriter: PatternRewriter) -> None:
        assert isinstance(op.input.type, TensorType)
        bounds = zip(*(get_ints(op.properties, n) for n in ("starts", "ends", "steps")))
        # range equality compares the index sequences: range(0, -1, -1) == range(1).
        if all(all(isinstance(v, int) for v in (lo, hi, size)) and range(lo, hi, step) == range(size)
               for (lo, hi, step), size in zip(bounds, shape_of(op.input.type))):
            _replace_by(rewriter, op, op.input)


class SingleConcatPattern(RewritePattern):
    """concat(x) -> x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConcatOp, rewriter: PatternRewriter) -> None:
        if len(op.inputs) == 1:
            _replace_by(rewriter, op, op.inputs[0])


class ZeroPadPattern(RewritePattern):
    """pad(x, all zeros) -> x, whatever the mode."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PadOp, rewriter: PatternRewriter) -> None:
        if not any(get_ints(op.properties, "pads")):
            _replace_by(rewriter, op, op.input)


class UnitTilePattern(RewritePattern):
    """tile(x, all ones) -> x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TileOp, rewriter: PatternRewriter) -> None:
        if all(r == 1 for r in get_ints(op.properties, "repeats")):
            _replace_by(rewriter, op, op.input)


def _is_empty(value: SSAValue) -> bool:
    """Whether `value` is a tensor without elements (a dim of size 0; with every other
    dimension a number, so that it can be a constant)."""
    if not isinstance(value.type, TensorType) or not is_static(value.type):
        return False
    return math.prod(value.type.get_shape()) == 0


class EmptyResultPattern(RewritePattern):
    """A graph op's result without elements -> an empty constant: there is nothing to compute,
    and no schedule template need consider a nest that runs no iteration."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, GraphOp) or op.regions:
            return
        for result in op.results:
            if result.uses and _is_empty(result):
                assert isinstance(result.type, TensorType)
                dtype = numpy_dtype_of(result.type.element_type)
                empty = ConstantOp.from_array(np.zeros(result.type.get_shape(), dtype))
                rewriter.insert(empty, InsertPoint.before(op))
                rewriter.replace_all_uses_with(result, empty.result)


class EmptyConcatOperandPattern(RewritePattern):
    """concat(x, empty, y) -> concat(x, y): an operand without elements adds nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConcatOp, rewriter: PatternRewriter) -> None:
        kept = [v for v in op.inputs if not _is_empty(v)]
        if kept and len(kept) < len(op.inputs):
            rewriter.replace(op, ConcatOp.make(kept, axis=get_int(op.properties, "axis")))


@dataclass(frozen=True)
class CanonicalizePass(ModulePass):
    """Apply the graph dialect's simplification patterns until none fires."""

    name = "graph-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([
                ReshapeOfReshapePattern(),
                SameTypeIdentityPattern(),
                TransposeOfTransposePattern(),
                IdentityTransposePattern(),
                AddZeroPattern(),
                MulOnePattern(),
                PowByConstantPattern(),
                FullSlicePattern(),
                SingleConcatPattern(),
                ZeroPadPattern(),
                UnitTilePattern(),
                EmptyResultPattern(),
                EmptyConcatOperandPattern(),
            ])
        ).rewrite_module(op)
