"""`graph.if`: ONNX's If on a condition known only at run time.

    %r = graph.if %cond : tensor<i1> -> (tensor<2x3xf32>) {
      %0 = graph.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      graph.yield %0 : tensor<2x3xf32>
    } else {
      %1 = graph.mul %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      graph.yield %1 : tensor<2x3xf32>
    }

One branch runs, chosen by the single boolean in `cond`; the results are what it yields. Both
branches yield the same types (shapes are static: branches of different shapes need dynamic
shapes). The branches read values of the enclosing function directly (they are not isolated
from above, unlike `graph.fused`), so the graph passes see a branch's weights as the
constants they are. convert-graph-to-te turns each branch's ops into kernel calls inside it;
convert-te-to-loop makes it two `loop.if`s around those calls, each copying its yields into
the results' buffers.

An If whose condition the frontend knows is inlined instead (frontend/onnx_control_flow.py).
MLIR counterpart: `scf.if` with results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    region_def,
    traits_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from minitvm.dialects.graph.fused import YieldOp


@irdl_op_definition
class IfOp(IRDLOperation):
    """Run `then` or `otherwise` as `cond` holds; see the module docstring for the syntax."""

    name = "graph.if"
    cond = operand_def(TensorType)
    outputs = var_result_def(TensorType)
    then = region_def("single_block")
    otherwise = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self, cond: SSAValue, result_types: Sequence[Attribute], then: Region, otherwise: Region
    ):
        super().__init__(
            operands=[cond], result_types=[list(result_types)], regions=[then, otherwise]
        )

    def branch(self, taken: bool) -> Block:
        return (self.then if taken else self.otherwise).block

    def yield_op(self, taken: bool) -> YieldOp:
        last = self.branch(taken).last_op
        assert isinstance(last, YieldOp), "verified graph.if branches end in graph.yield"
        return last

    def verify_(self) -> None:
        cond = self.cond.type
        assert isinstance(cond, TensorType)
        if cond.element_type != i1 or math.prod(cond.get_shape()) != 1:
            raise VerifyException(
                f"graph.if: the condition must hold one i1, got {cond}"
            )
        declared = [r.type for r in self.outputs]
        for taken, label in ((True, "then"), (False, "else")):
            last = self.branch(taken).last_op
            if not isinstance(last, YieldOp):
                found = "nothing" if last is None else last.name
                raise VerifyException(
                    f"graph.if: the {label} branch must end in graph.yield, found {found}"
                )
            yielded = [v.type for v in last.values]
            if yielded != declared:
                raise VerifyException(
                    f"graph.if: the {label} branch yields ({', '.join(map(str, yielded))}) but "
                    f"the op has results ({', '.join(map(str, declared))})"
                )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.cond)
        printer.print_string(" : ")
        printer.print_attribute(self.cond.type)
        printer.print_string(" -> (")
        printer.print_list([r.type for r in self.outputs], printer.print_attribute)
        printer.print_string(") ")
        printer.print_region(self.then)
        printer.print_string(" else ")
        printer.print_region(self.otherwise)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        cond_type = parser.parse_type()
        parser.parse_punctuation("->")
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        then = parser.parse_region()
        parser.parse_keyword("else")
        otherwise = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        op = cls(parser.resolve_operand(cond, cond_type), types, then, otherwise)
        op.attributes.update(attrs)
        return op
