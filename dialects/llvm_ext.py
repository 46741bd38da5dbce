"""The llvm dialect as minitvm uses it: xDSL's, plus the ops xDSL 0.75 lacks.

xDSL 0.75's llvm dialect has no `fptosi`, `fptoui`, `uitofp` or `extractelement`, and its
`llvm.fcmp` and `llvm.select` accept scalars only (MLIR's take vectors too). This module
defines those ops under their MLIR names and syntax:

    %i = llvm.fptosi %x : f32 to i64
    %e = llvm.extractelement %v[%c3 : i64] : vector<16xf32>
    %m = llvm.fcmp "olt" %a, %b : vector<16xf32>
    %s = llvm.select %m, %a, %b : vector<16xi1>, vector<16xf32>

`LLVM_DIALECT` is xDSL's dialect with these in (ours replacing xDSL's `llvm.fcmp` and
`llvm.select`, which they extend), so that IR printed after convert-loop-to-llvm parses back.
Their translation to llvmlite lives with the lowering (lowering/loop_to_llvm/llvm_ext.py).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    I1,
    I64,
    AnyFloatConstr,
    IntegerAttr,
    SignlessIntegerConstraint,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect, Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class FPToSIOp(llvm.GenericCastOp):
    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(llvm.GenericCastOp):
    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(llvm.GenericCastOp):
    name = "llvm.uitofp"


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """`%e = llvm.extractelement %v[%i : i64] : vector<4xf32>`: one lane of a vector."""

    name = "llvm.extractelement"

    ELEMENT: ClassVar = VarConstraint("ELEMENT", AnyAttr())

    vector = operand_def(VectorType.constr(ELEMENT))
    position = operand_def(SignlessIntegerConstraint)
    res = result_def(ELEMENT)

    traits = traits_def(NoMemoryEffect())

    assembly_format = "$vector `[` $position `:` type($position) `]` attr-dict `:` type($vector)"

    def __init__(self, vector: SSAValue, position: SSAValue):
        assert isinstance(vector.type, VectorType)
        super().__init__(operands=[vector, position], result_types=[vector.type.element_type])


def _mask_type(type_: Attribute) -> Attribute:
    """i1, or vector<N x i1> for a vector<N x T> operand."""
    return VectorType(i1, type_.get_shape()) if isinstance(type_, VectorType) else i1


@irdl_op_definition
class FCmpOp(IRDLOperation):
    """MLIR's `llvm.fcmp`: like xDSL's, but also on vectors (one i1 per lane)."""

    name = "llvm.fcmp"

    T: ClassVar = VarConstraint("T", AnyFloatConstr | VectorType.constr(AnyFloatConstr))

    lhs = operand_def(T)
    rhs = operand_def(T)
    res = result_def(I1 | VectorType.constr(I1))
    predicate = prop_def(IntegerAttr[I64])
    fastmathFlags = prop_def(llvm.FastMathAttr, default_value=llvm.FastMathAttr(None))

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)

    def __init__(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        predicate: str | IntegerAttr,
        attributes: dict[str, Attribute] | None = None,
    ):
        if isinstance(predicate, str):
            predicate = IntegerAttr(llvm.FCmpPredicateFlag(predicate).to_int(), i64)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[_mask_type(lhs.type)],
            attributes=attributes or {},
            properties={"predicate": predicate},
        )

    def verify_(self) -> None:
        if self.res.type != _mask_type(self.lhs.type):
            raise VerifyException(f"llvm.fcmp: result must be {_mask_type(self.lhs.type)}")

    @classmethod
    def parse(cls, parser: Parser) -> FCmpOp:
        predicate = parser.parse_str_literal()
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        lhs_v, rhs_v = parser.resolve_operands([lhs, rhs], [type_, type_], parser.pos)
        return cls(lhs_v, rhs_v, predicate, attributes)

    def print(self, printer: Printer) -> None:
        flag = llvm.FCmpPredicateFlag.from_int(self.predicate.value.data)
        printer.print_string(f' "{flag}" ')
        printer.print_ssa_value(self.lhs)
        printer.print_string(", ")
        printer.print_ssa_value(self.rhs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)


@irdl_op_definition
class SelectOp(IRDLOperation):
    """MLIR's `llvm.select`: like xDSL's, but also lane-wise with a vector<N x i1> condition."""

    name = "llvm.select"

    T: ClassVar = VarConstraint("T", AnyAttr())

    cond = operand_def(I1 | VectorType.constr(I1))
    lhs = operand_def(T)
    rhs = operand_def(T)
    res = result_def(T)
    fastmathFlags = prop_def(llvm.FastMathAttr, default_value=llvm.FastMathAttr(None))

    traits = traits_def(Pure())

    assembly_format = "$cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($res)"

    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[cond, lhs, rhs], result_types=[lhs.type])

    def verify_(self) -> None:
        if isinstance(self.cond.type, VectorType) and self.cond.type != _mask_type(self.lhs.type):
            raise VerifyException(
                f"llvm.select: a vector condition must be {_mask_type(self.lhs.type)}"
            )


EXTRA_OPS: list[type[Operation]] = [
    FPToSIOp, FPToUIOp, UIToFPOp, ExtractElementOp, FCmpOp, SelectOp,
]  # fmt: skip

#: xDSL's llvm dialect with the ops above (ours replace its scalar-only fcmp and select).
LLVM_DIALECT = Dialect(
    "llvm",
    [
        *(op for op in llvm.LLVM.operations if op not in (llvm.FCmpOp, llvm.SelectOp)),
        *EXTRA_OPS,
    ],
    list(llvm.LLVM.attributes),
)
