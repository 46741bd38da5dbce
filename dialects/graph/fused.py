"""`graph.fused`: a group of graph ops that will become ONE kernel, and its `graph.yield`.

`graph-fuse` wraps an anchor op (a conv, matmul, pool, reduction, ...) together with its
elementwise epilogue, or a chain of injective ops, into a region op; `convert-graph-to-te`
then lowers the whole body into a single te kernel (see lowering/graph_to_te):

    %r = graph.fused "conv_add_relu" (%x, %w, %b, %skip)
           : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>, tensor<1x8x8x8xf32>)
           -> tensor<1x8x8x8xf32> {
    ^bb0(%a: tensor<1x8x8x8xf32>, %c: tensor<8x8x3x3xf32>, %d: tensor<8xf32>, %e: tensor<1x8x8x8xf32>):
      %0 = graph.conv %a, %c, %d {pads = array<i64: 1, 1, 1, 1>} : (...) -> tensor<1x8x8x8xf32>
      %1 = graph.add %0, %e : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
      %2 = graph.relu %1 : tensor<1x8x8x8xf32>
      graph.yield %2 : tensor<1x8x8x8xf32>
    }

The operands are the group's external inputs (weights included: constants stay outside, as
they do for unfused ops, and reach the kernel as arguments); the body's block arguments
mirror them one to one, and the body is isolated from above, so it reads nothing else. The
results are the group's values used outside it, in `graph.yield` order. The name is a label
for readers (the ops of the group); kernel names are chosen by the lowering.

MLIR counterpart: a region op in the spirit of IREE's `flow.dispatch.region` or TVM's
`Primitive` functions; XLA calls the same thing a fusion computation.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import FunctionType, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException

from minitvm.dialects.graph import nn, tensor, winograd
from minitvm.dialects.graph.base import GraphOp


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


class _IsolatedBody(IsolatedFromAbove):
    """IsolatedFromAbove, with a message that says what to do about a violation."""

    def verify(self, op: Operation) -> None:
        for inner in op.walk():
            if inner is op:
                continue
            for operand in inner.operands:
                if not op.is_ancestor(operand.owner) or operand.owner is op:
                    raise VerifyException(
                        f"graph.fused: {inner.name} in the body uses a value defined outside "
                        "the fused op; pass it in as an operand and use the block argument"
                    )


@irdl_op_definition
class FusedOp(IRDLOperation):
    """A group of graph ops lowered as one kernel; see the module docstring for the syntax."""

    name = "graph.fused"

    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    fused_name = prop_def(StringAttr, prop_name="name")
    body = region_def("single_block")

    traits = traits_def(_IsolatedBody(), RecursiveMemoryEffect())

    def __init__(
        self,
        label: str,
        inputs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        body: Region,
    ):
        super().__init__(
            operands=[list(inputs)],
            result_types=[list(result_types)],
            properties={"name": StringAttr(label)},
            regions=[body],
        )

    @property
    def label(self) -> str:
        return self.fused_name.data

    @property
    def yield_op(self) -> YieldOp:
        last = self.body.block.last_op
        assert isinstance(last, YieldOp), "verified graph.fused ends in graph.yield"
        return last

    @property
    def body_ops(self) -> list[Operation]:
        """The graph ops of the body, in order, without the terminator."""
        return [op for op in self.body.block.ops if not isinstance(op, YieldOp)]

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != len(self.inputs):
            raise VerifyException(
                f"graph.fused: {_count(len(self.inputs), 'operand')} but the body's block has "
                f"{_count(len(block.args), 'argument')}; they must correspond one to one"
            )
        for n, (operand, arg) in enumerate(zip(self.inputs, block.args)):
            if operand.type != arg.type:
                raise VerifyException(
                    f"graph.fused: operand #{n} is {operand.type} but block argument #{n} is "
                    f"{arg.type}"
                )
        for op in block.ops:
            if isinstance(op, FusedOp):
                raise VerifyException(
                    f"graph.fused: \"{op.label}\" is nested inside \"{self.label}\"; fused ops "
                    "do not nest, merge their bodies instead"
                )
            if not isinstance(op, GraphOp | YieldOp):
                raise VerifyException(
                    f"graph.fused: the body may hold only graph compute ops, found {op.name}"
                    + (" (keep constants outside and pass them in as operands)"
                       if op.name == "graph.constant" else "")
                )
        last = block.last_op
        if not isinstance(last, YieldOp):
            found = "nothing" if last is None else last.name
            raise VerifyException(f"graph.fused: the body must end in graph.yield, found {found}")
        yielded = [v.type for v in last.values]
        declared = [r.type for r in self.outputs]
        if len(yielded) != len(declared):
            raise VerifyException(
                f"graph.fused: the body yields {_count(len(yielded), 'value')} but the op has "
                f"{_count(len(declared), 'result')}"
            )
        for n, (got, want) in enumerate(zip(yielded, declared)):
            if got != want:
                raise VerifyException(
                    f"graph.fused: result #{n} is declared {want} but the body yields {got}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> FusedOp:
        label = parser.parse_str_literal("graph.fused: expected the group's name as a string")
        pos = parser.pos
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_function_type()
        if len(type_.inputs) != len(operands):
            parser.raise_error(
                f"graph.fused: {len(operands)} operands but {len(type_.inputs)} operand types", pos
            )
        inputs = parser.resolve_operands(operands, type_.inputs.data, pos)
        body = parser.parse_region()
        op = cls(label, inputs, type_.outputs.data, body)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.label)
        printer.print_string(" (")
        printer.print_list(self.inputs, printer.print_ssa_value)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(
            FunctionType.from_lists([o.type for o in self.inputs], [r.type for r in self.outputs])
        )
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)


class _InFusedOrIf(HasParent):
    """HasParent for `graph.fused`, `graph.if` and `graph.loop` (the last two defined after
    this module, in control.py), with a message naming them."""

    def verify(self, op: Operation) -> None:
        parent = op.parent_op()
        if parent is None or parent.name not in ("graph.fused", "graph.if", "graph.loop"):
            raise VerifyException(
                "graph.yield must be in the body of a graph.fused, graph.if or graph.loop"
            )


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The values a `graph.fused` body or a `graph.if` branch gives back, one per result of
    the op."""

    name = "graph.yield"

    values = var_operand_def(TensorType)

    traits = traits_def(IsTerminator(), _InFusedOrIf(FusedOp), Pure())

    assembly_format = "$values attr-dict `:` type($values)"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


def fused_op(label: str, inputs: Sequence[SSAValue], ops: Sequence[Operation],
             outputs: Sequence[SSAValue]) -> FusedOp:
    """A `graph.fused` holding clones of `ops` (in order): uses of `inputs` become block
    arguments, and the clones of `outputs` are yielded. The originals are left untouched."""
    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for arg, value in zip(block.args, inputs):
        arg.name_hint = value.name_hint
    for op in ops:
        block.add_op(op.clone(mapping))
    block.add_op(YieldOp(*(mapping[v] for v in outputs)))
    return FusedOp(label, inputs, [v.type for v in outputs], Region(block))


#: Ops that do the heavy work of a kernel, into which elementwise consumers fold (graph-fuse)
#: and around whose main compute a kernel's schedule is built (convert-graph-to-te names it
#: the anchor).
ANCHOR_OPS: tuple[type[Operation], ...] = (
    nn.ConvOp, nn.ConvNchwcOp, nn.ConvTransposeOp, nn.MatMulOp, nn.MatMulPackedOp, nn.GemmOp,
    nn.MaxPoolOp, nn.AvgPoolOp, nn.GlobalAvgPoolOp, nn.GlobalMaxPoolOp,
    tensor.ReduceSumOp, tensor.ReduceMeanOp, tensor.ReduceMaxOp, tensor.ReduceMinOp,
    tensor.ReduceProdOp, tensor.ReduceL1Op, tensor.ReduceL2Op, tensor.ReduceSumSquareOp,
    tensor.ReduceLogSumOp, tensor.ReduceLogSumExpOp, tensor.ArgMaxOp, tensor.ArgMinOp,
    nn.SoftmaxOp, nn.LogSoftmaxOp, nn.LayerNormOp, nn.LRNOp, winograd.WinogradOutputOp,
)  # fmt: skip
