"""`graph.if` and `graph.loop`: ONNX's If and Loop on conditions known only at run time.

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

from xdsl.dialects.builtin import TensorType, i1, i64
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    region_def,
    traits_def,
    var_operand_def,
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


@irdl_op_definition
class LoopOp(IRDLOperation):
    """ONNX's Loop on a trip count or condition known only at run time, without scan
    outputs (their length would be known only at run time too):

        %r = graph.loop %trip, %cond, %v0 : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>) {
        ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<4xf32>):
          ...
          graph.yield %c_next, %v_next : tensor<i1>, tensor<4xf32>
        }

    The body runs while `i < trip` and the condition holds (`i` counts from 0; the condition
    is `cond` before the first iteration and what the body yields first after each); the
    loop-carried values start as `inits`, each iteration's yields are the next, and the
    results are the last. The body may read values of the enclosing function directly.
    convert-te-to-loop keeps the state in buffers around a `loop.while`."""

    name = "graph.loop"
    trip = operand_def(TensorType)
    cond = operand_def(TensorType)
    inits = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self, trip: SSAValue, cond: SSAValue, inits: Sequence[SSAValue], body: Region
    ):
        super().__init__(
            operands=[trip, cond, list(inits)],
            result_types=[[v.type for v in inits]],
            regions=[body],
        )

    @property
    def yield_op(self) -> YieldOp:
        last = self.body.block.last_op
        assert isinstance(last, YieldOp), "verified graph.loop bodies end in graph.yield"
        return last

    def verify_(self) -> None:
        for what, value, element in (("trip count", self.trip, i64), ("condition", self.cond, i1)):
            type_ = value.type
            assert isinstance(type_, TensorType)
            if type_.element_type != element or math.prod(type_.get_shape()) != 1:
                raise VerifyException(f"graph.loop: the {what} must hold one {element}, got {type_}")
        carried = [v.type for v in self.inits]
        if [r.type for r in self.outputs] != carried:
            raise VerifyException("graph.loop: the results must have the types of the inits")
        args = [a.type for a in self.body.block.args]
        want = [TensorType(i64, []), TensorType(i1, []), *carried]
        if args != want:
            raise VerifyException(
                f"graph.loop: the body's arguments must be ({', '.join(map(str, want))}): the "
                f"iteration number, the condition and the loop-carried values; got "
                f"({', '.join(map(str, args))})"
            )
        last = self.body.block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("graph.loop: the body must end in graph.yield")
        yielded = [v.type for v in last.values]
        cond = yielded[0] if yielded else None
        if (
            not isinstance(cond, TensorType) or cond.element_type != i1
            or math.prod(cond.get_shape()) != 1 or yielded[1:] != carried
        ):  # fmt: skip
            raise VerifyException(
                f"graph.loop: the body yields ({', '.join(map(str, yielded))}); it must yield "
                f"the next condition (one i1) and the loop-carried values "
                f"({', '.join(map(str, carried))})"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.trip, self.cond, *self.inits], printer.print_ssa_value)
        printer.print_string(" : (")
        printer.print_list([o.type for o in self.operands], printer.print_attribute)
        printer.print_string(") -> (")
        printer.print_list([r.type for r in self.outputs], printer.print_attribute)
        printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        pos = parser.pos
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        parser.parse_punctuation("->")
        parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        if len(operands) < 2:
            parser.raise_error("graph.loop: expected a trip count and a condition", pos)
        trip, cond, *inits = parser.resolve_operands(operands, types, pos)
        op = cls(trip, cond, inits, body)
        op.attributes.update(attrs)
        return op
