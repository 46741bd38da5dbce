"""Translation to llvmlite of the llvm dialect as convert-loop-to-llvm emits it.

`convert_module` is xDSL's `xdsl.backend.llvm.convert.convert_module` plus the ops xDSL 0.75
lacks (defined in minitvm.dialects.llvm_ext: fptosi, fptoui, uitofp, extractelement, vector
fcmp and select); everything else is delegated to xDSL, except `llvm.intr.exp`/`sqrt`/`pow`/...
whose intrinsics xDSL declares without their type suffix (so f32 and vector uses of one
function in a module clash). It also marks every defined function `nounwind` (generated code
never throws, and it spares the unwind tables) and `alignstack(64)` (`STACK_ALIGNMENT`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

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
    ModuleOp,
)
from xdsl.ir import Block, Operation, SSAValue

from minitvm.dialects.llvm_ext import (
    ExtractElementOp,
    FCmpOp,
    FPToSIOp,
    FPToUIOp,
    SelectOp,
    UIToFPOp,
)
from minitvm.lowering.loop_to_llvm.emitter import LoweringError

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


#: Every defined function aligns its stack frame to this many bytes on entry: a cache line,
#: and the widest x86 vector register (zmm). LLVM decides where to spill vector registers
#: only while allocating registers, too late to realign the frame, so it spills them with
#: unaligned moves to wherever the caller's stack pointer (16-byte aligned, by the ABI) puts
#: them. A slot that straddles two cache lines makes every spill and reload of a register
#: block split in two: a conv kernel ran 2x slower on the thread pool's threads than on the
#: caller's, and a whole model's time depended on the stack depth its process called it at
#: (ResNet-50, 2 threads, AMD EPYC: 74 ms in one process, 51 ms aligned).
STACK_ALIGNMENT = 64


def _convert_func(op: llvm.FuncOp, module: ir.Module) -> None:
    """xDSL's `_convert_func`, dispatching our ops before delegating to `convert_op`."""
    function = module.get_global(op.sym_name.data)
    assert isinstance(function, ir.Function)
    function.attributes.add("nounwind")
    function.attributes.alignstack = STACK_ALIGNMENT
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
                raise LoweringError(f"cannot translate {op.name} to LLVM IR")
    for function in functions:
        _declare_func(function, result)
    calls = Counter(
        call.callee.string_value()
        for op in module.ops
        for call in op.walk()
        if isinstance(call, llvm.CallOp) and call.callee is not None
    )
    for function in functions:
        if function.body.blocks:
            _convert_func(function, result)
            if calls[function.sym_name.data] > 1:
                # A kernel called from several places (merged kernels: repeated layers, the
                # steps of an unrolled recurrence) stays one function: inlining copies of its
                # loop nests into @main makes LLVM's work grow with the call count.
                result.get_global(function.sym_name.data).attributes.add("noinline")
    return result
