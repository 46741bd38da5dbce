"""graph-widen-bf16: ops that compute on bfloat16 compute on f32 between casts.

bfloat16 is a storage format here: x86 has no bf16 arithmetic short of AVX512-BF16's dot
products, and LLVM as llvmlite drives it has no `bfloat` type, so the generated code keeps
bf16 values as 16-bit integers and converts them to and from f32 with bit operations
(`lowering/loop_to_llvm`). Every graph op that does arithmetic on bf16 operands or results
therefore becomes the same op on f32, with casts around it:

    %y = graph.add %a, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
->
    %0 = graph.cast %a : tensor<4xbf16> to tensor<4xf32>
    %1 = graph.cast %b : tensor<4xbf16> to tensor<4xf32>
    %2 = graph.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %y = graph.cast %2 : tensor<4xf32> to tensor<4xbf16>

Ops that only move values (reshape, transpose, slice, concat, gather, ...) keep their bf16
types, and so do casts and constants. The pass runs first at every opt level (codegen needs
it); at -O2 and up, fusion then puts each cast in the kernel of the op it serves, and a
cast back to bf16 followed by a cast to f32 is what graph-canonicalize would otherwise see.
This is what ONNX Runtime does for bf16 on CPUs without bf16 arithmetic: compute in f32, round
each op's result once.

MLIR counterpart: the `arith-emulate-unsupported-floats` pass (`--arith-emulate-unsupported-
floats="source-types=bf16 target-type=f32"`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import BFloat16Type, ModuleOp, TensorType, f32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from minitvm.dialects import graph
from minitvm.dialects.graph.base import GraphOp, shape_of, tensor_type

#: Graph ops that move bf16 values without arithmetic: their lowering reads and writes
#: elements and never computes with one, so they keep bf16.
VALUE_MOVES: tuple[type[Operation], ...] = (
    graph.CastOp, graph.BitcastOp, graph.ReshapeOp, graph.ExpandOp, graph.TransposeOp,
    graph.ConcatOp, graph.SplitOp, graph.SliceOp, graph.GatherOp, graph.TileOp, graph.WhereOp,
    graph.ReshapeToSizesOp,
)  # fmt: skip


def is_bf16(type_: Attribute) -> bool:
    return isinstance(type_, TensorType) and isinstance(type_.element_type, BFloat16Type)


def widened(type_: Attribute) -> Attribute:
    assert isinstance(type_, TensorType)
    return tensor_type(shape_of(type_), f32) if is_bf16(type_) else type_


class WidenBf16Pattern(RewritePattern):
    """One graph op with bf16 operands or results -> the op on f32, between casts. Each bf16
    value is widened once (the walk goes forward, so the first cast dominates later uses)."""

    def __init__(self) -> None:
        self.widened: dict[SSAValue, SSAValue] = {}

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GraphOp, rewriter: PatternRewriter) -> None:
        if isinstance(op, VALUE_MOVES):
            return
        if not any(is_bf16(v.type) for v in (*op.operands, *op.results)):
            return
        operands: list[SSAValue] = []
        for operand in op.operands:
            if is_bf16(operand.type):
                if operand not in self.widened:
                    cast = graph.CastOp.make(operand, to=f32)
                    rewriter.insert(cast, InsertPoint.before(op))
                    self.widened[operand] = cast.result
                operand = self.widened[operand]
            operands.append(operand)
        wide = type(op).create(
            operands=operands,
            result_types=[widened(r.type) for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        rewriter.insert(wide, InsertPoint.before(op))
        results: list[SSAValue] = []
        for old, new in zip(op.results, wide.results, strict=True):
            new.name_hint = old.name_hint
            if is_bf16(old.type):
                back = graph.CastOp.make(new, to=old.type.element_type)  # type: ignore[attr-defined]
                rewriter.insert(back, InsertPoint.before(op))
                new = back.result
            results.append(new)
        rewriter.replace(op, [], results)


@dataclass(frozen=True)
class WidenBf16Pass(ModulePass):
    """Compute bf16 ops in f32 (see the module docstring)."""

    name = "graph-widen-bf16"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(WidenBf16Pattern(), apply_recursively=False).rewrite_module(op)
