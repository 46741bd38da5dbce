"""The llvm dialect as convert-loop-to-llvm emits it: xDSL's, plus the ops xDSL 0.75 lacks.

xDSL 0.75's llvm dialect has no `fptosi`, `fptoui`, `uitofp` or `extractelement`, and its
`llvm.fcmp` and `llvm.select` accept scalars only (MLIR's take vectors too). This module
defines those ops under their MLIR names and syntax:

    %i = llvm.fptosi %x : f32 to i64
    %e = llvm.extractelement %v[%c3 : i64] : vector<16xf32>
    %m = llvm.fcmp "olt" %a, %b : vector<16xf32>
    %s = llvm.select %m, %a, %b : vector<16xi1>, vector<16xf32>

`LLVM_DIALECT` is xDSL's dialect with these in (ours replacing xDSL's `llvm.fcmp` and
`llvm.select`, which they extend), so the printed IR parses back. `convert_module` is xDSL's
`xdsl.backend.llvm.convert.convert_module` with these ops added to its per-op translation;
everything else is delegated to xDSL, except `llvm.intr.exp`/`sqrt`/`pow`/... whose
intrinsics xDSL declares without their type suffix (so f32 and vector uses of one function in
a module clash). It also marks every defined function `nounwind` (generated code never
throws, and it spares the unwind tables).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from llvmlite import ir
from llvmlite.ir.values import Block as LLVMBlock
from xdsl.backend.llvm.convert import (  # pyright: ignore[reportPrivateUsage]
    _convert_global,
    _declare_func,
)
from xdsl.backend.llvm.convert_op import (  # pyright: ignore[reportPrivateUsage]
    _BINARY_INTRINSIC_MAP,
    _UNARY_INTRINSIC_MAP,
    convert_op,
    declare_intrinsic,
)
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    I1,
    I64,
    AnyFloatConstr,
    IntegerAttr,
    ModuleOp,
    SignlessIntegerConstraint,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, SSAValue
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


# --------------------------------------------------------------------------------------------
# Translation to llvmlite
# --------------------------------------------------------------------------------------------

ValueMap = dict[SSAValue, ir.Value]

_CASTS: dict[type[Operation], str] = {FPToSIOp: "fptosi", FPToUIOp: "fptoui", UIToFPOp: "uitofp"}


def _convert_cast(op: Operation, builder: ir.IRBuilder, values: ValueMap) -> None:
    convert = getattr(builder, _CASTS[type(op)])
    values[op.results[0]] = convert(values[op.operands[0]], convert_type(op.results[0].type))


def _convert_extractelement(op: ExtractElementOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    values[op.res] = builder.extract_element(values[op.vector], values[op.position])


def _convert_fcmp(op: FCmpOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    # llvmlite takes LLVM's predicate names ("olt", "uno", "true") as they are.
    predicate = llvm.FCmpPredicateFlag.from_int(op.predicate.value.data).value.lstrip("_")
    values[op.res] = builder.fcmp_ordered(predicate, values[op.lhs], values[op.rhs])


def _convert_select(op: SelectOp, builder: ir.IRBuilder, values: ValueMap) -> None:
    values[op.res] = builder.select(values[op.cond], values[op.lhs], values[op.rhs])


_OVERLOADED_INTRINSICS: dict[type[Operation], str] = {
    **_UNARY_INTRINSIC_MAP,
    **_BINARY_INTRINSIC_MAP,
}


def _convert_overloaded_intrinsic(op: Operation, builder: ir.IRBuilder, values: ValueMap) -> None:
    # xDSL declares these unmangled (`llvm.exp`): a module using exp on f32 and on vectors then
    # calls one declaration with the other's type. Declare them mangled (`llvm.exp.v16f32`).
    args = [values[o] for o in op.operands]
    type_ = args[0].type
    signature = ir.FunctionType(type_, [a.type for a in args])
    callee = declare_intrinsic(builder.module, _OVERLOADED_INTRINSICS[type(op)], type_, signature)
    values[op.results[0]] = builder.call(callee, args)


_EXTRA_CONVERTERS: dict[type[Operation], Callable[..., None]] = {
    FPToSIOp: _convert_cast,
    FPToUIOp: _convert_cast,
    UIToFPOp: _convert_cast,
    ExtractElementOp: _convert_extractelement,
    FCmpOp: _convert_fcmp,
    SelectOp: _convert_select,
    **{op: _convert_overloaded_intrinsic for op in _OVERLOADED_INTRINSICS},
}


def _convert_func(op: llvm.FuncOp, module: ir.Module) -> None:
    """xDSL's `_convert_func`, dispatching our ops before delegating to `convert_op`."""
    function = module.get_global(op.sym_name.data)
    assert isinstance(function, ir.Function)
    function.attributes.add("nounwind")
    blocks: dict[Block, LLVMBlock] = {}
    values: ValueMap = {}
    for n, block in enumerate(op.body.blocks):
        blocks[block] = function.append_basic_block(name=block.name_hint or "")
        if n == 0:
            values.update(zip(block.args, function.args))
    for block in list(op.body.blocks)[1:]:  # block arguments are phis
        builder = ir.IRBuilder(blocks[block])
        for arg in block.args:
            values[arg] = builder.phi(convert_type(arg.type))
    for block in op.body.blocks:
        builder = ir.IRBuilder(blocks[block])
        if blocks[block].instructions:
            builder.position_after(blocks[block].instructions[-1])
        for inner in block.ops:
            converter = _EXTRA_CONVERTERS.get(type(inner))
            if converter is not None:
                converter(inner, builder, values)
            else:
                convert_op(inner, builder, values, blocks)


def convert_module(
    module: ModuleOp, *, triple: str | None = None, data_layout: str = ""
) -> ir.Module:
    """The llvm-dialect `module` as an llvmlite module (for the host triple by default)."""
    result = ir.Module()
    if triple is None:
        from llvmlite import binding

        triple = binding.get_default_triple()
    result.triple = triple
    if data_layout:
        result.data_layout = data_layout
    functions: list[llvm.FuncOp] = []
    for op in module.ops:
        match op:
            case llvm.GlobalOp():
                _convert_global(op, result)
            case llvm.FuncOp():
                functions.append(op)
            case _:
                raise NotImplementedError(f"cannot translate {op.name} to LLVM IR")
    for function in functions:
        _declare_func(function, result)
    for function in functions:
        if function.body.blocks:
            _convert_func(function, result)
    return result
