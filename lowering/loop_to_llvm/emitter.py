"""Building blocks of convert-loop-to-llvm: type mapping and an llvm-dialect op emitter.

`Emitter` appends llvm ops to the block being filled and owns the function's entry block,
which holds everything hoisted (constants, stack buffers, the entry ABI's pointer loads) and
ends in a branch to the first body block. Integer constants are tracked so that index
arithmetic with known operands folds while it is emitted (address linearization, split
indices): fewer ops to build, print and translate, whatever LLVM would have folded later.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    VectorType,
    f32,
    i1,
    i8,
    i16,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from minitvm.dialects.llvm_ext import ExtractElementOp
from minitvm.errors import MinitvmError

OpT = TypeVar("OpT", bound=Operation)


class LoweringError(MinitvmError):
    """Loop IR that convert-loop-to-llvm cannot lower (unsupported op, type or layout)."""


# --------------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------------


def llvm_type(type_: Attribute) -> Attribute:
    """The llvm-dialect type of a loop-level value: index -> i64, buffers -> !llvm.ptr, and
    integers signless (ui8 is i8: signedness lives in the ops, as in LLVM), and bf16 as its
    16 bits (i16): llvmlite has no bfloat type, and only conversions to and from f32 touch a
    bf16 value (graph-widen-bf16 leaves no other arithmetic on one)."""
    match type_:
        case IndexType():
            return i64
        case IntegerType():
            return IntegerType(type_.width.data)
        case MemRefType():
            return llvm.LLVMPointerType()
        case VectorType():
            return VectorType(llvm_type(type_.element_type), type_.get_shape())
        case BFloat16Type():
            return i16
        case Float16Type() | Float32Type() | Float64Type():
            return type_
        case _:
            raise LoweringError(f"convert-loop-to-llvm: unsupported type {type_}")


def storage_type(element: Attribute) -> Attribute:
    """How a buffer element is stored: as its llvm type, except i1 which takes a byte."""
    return i8 if element == i1 else llvm_type(element)


def byte_size(element: Attribute) -> int:
    storage = storage_type(element)
    if isinstance(storage, IntegerType):
        return (storage.width.data + 7) // 8
    assert isinstance(storage, AnyFloat)
    return storage.bitwidth // 8


def row_major_strides(buffer: MemRefType) -> list[int]:
    if not isinstance(buffer.layout, NoneAttr):
        raise LoweringError(
            f"convert-loop-to-llvm: buffer {buffer} has a layout; only row-major buffers "
            "are supported"
        )
    strides, stride = [], 1
    for extent in reversed(buffer.get_shape()):
        strides.append(stride)
        stride *= extent
    return strides[::-1]


def num_elements(buffer: MemRefType) -> int:
    return math.prod(buffer.get_shape())


def intrinsic_suffix(type_: Attribute) -> str:
    """LLVM's overload suffix: f32, i64, v16f32, ..."""
    match type_:
        case VectorType():
            return f"v{type_.get_shape()[0]}{intrinsic_suffix(type_.element_type)}"
        case IntegerType():
            return f"i{type_.width.data}"
        case BFloat16Type():
            return "bf16"
        case Float16Type() | Float32Type() | Float64Type():
            return f"f{type_.bitwidth}"
        case _:
            raise LoweringError(f"convert-loop-to-llvm: no intrinsic overload for {type_}")


def element_of(type_: Attribute) -> Attribute:
    return type_.element_type if isinstance(type_, VectorType) else type_


def lanes_of(type_: Attribute) -> int | None:
    return type_.get_shape()[0] if isinstance(type_, VectorType) else None


# --------------------------------------------------------------------------------------------
# Module-level symbols a function lowering may need
# --------------------------------------------------------------------------------------------


class ModuleSymbols:
    """External functions (libm, the allocator), globals and functions a lowering outlines
    (parallel loop bodies) added next to the functions."""

    def __init__(self) -> None:
        self.declarations: dict[str, llvm.FuncOp] = {}
        self.globals: list[llvm.GlobalOp] = []
        self.functions: list[llvm.FuncOp] = []

    def declare(self, name: str, inputs: Sequence[Attribute], output: Attribute | None) -> str:
        if name not in self.declarations:
            self.declarations[name] = llvm.FuncOp(
                name, llvm.LLVMFunctionType(inputs, output), linkage=llvm.LinkageAttr("external")
            )
        return name

    def add_global(self, op: llvm.GlobalOp) -> str:
        self.globals.append(op)
        return op.sym_name.data

    def add_function(self, op: llvm.FuncOp) -> str:
        self.functions.append(op)
        return op.sym_name.data


# --------------------------------------------------------------------------------------------
# The emitter
# --------------------------------------------------------------------------------------------


class Emitter:
    """Appends llvm ops to `block` (the block being filled) of `region`."""

    def __init__(self, symbols: ModuleSymbols, arg_types: Sequence[Attribute]):
        self.symbols = symbols
        self.entry = named_block("entry", arg_types)
        self.region = Region(self.entry)
        self.block = self.entry
        self.known_ints: dict[SSAValue, int] = {}
        self._constants: dict[tuple[str, str], SSAValue] = {}
        # Index arithmetic and addresses already emitted, per structured scope (function body,
        # loop body, if body): what a scope emitted dominates the rest of it and its
        # sub-scopes, whatever blocks lie in between.
        self._scopes: list[dict[tuple[object, ...], SSAValue]] = [{}]
        self.start(named_block("begin"))

    # ---------------------------------------------------------------- blocks and ops

    def start(self, block: Block) -> None:
        """Append `block` to the function and continue emitting into it."""
        self.region.add_block(block)
        self.block = block

    def emit(self, op: OpT) -> OpT:
        self.block.add_op(op)
        return op

    def value(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    @contextmanager
    def scope(self) -> Iterator[None]:
        """Emission of a nested region (a loop or if body): its values stay inside it."""
        self._scopes.append({})
        try:
            yield
        finally:
            self._scopes.pop()

    def reuse(self, key: tuple[object, ...], make: Callable[[], SSAValue]) -> SSAValue:
        """The value emitted for `key` in an enclosing scope, else `make()`'s (remembered)."""
        for scope in reversed(self._scopes):
            if key in scope:
                return scope[key]
        value = self._scopes[-1][key] = make()
        return value

    def hoist(self, op: Operation) -> SSAValue:
        """Emit `op` into the entry block (it must depend only on arguments and constants)."""
        self.entry.add_op(op)
        return op.results[0]

    def finish(self) -> Region:
        """Close the entry block with a branch to the body; the function's region."""
        self.entry.add_op(llvm.BrOp(self.region.blocks[1]))
        return self.region

    # ---------------------------------------------------------------- constants

    def const(self, value: float | bool, type_: Attribute) -> SSAValue:
        """A scalar constant of llvm type `type_`, or a splat if `type_` is a vector."""
        element = element_of(type_)
        if isinstance(element, IntegerType):
            width = element.width.data
            value = int(value)
            if width == 1:
                value = -1 if value & 1 else 0
            attr: Attribute = IntegerAttr(value, element)
        else:
            assert isinstance(element, AnyFloat)
            attr = FloatAttr(float(value), element)
        if isinstance(type_, VectorType):
            attr = DenseIntOrFPElementsAttr.from_list(type_, [attr.value.data])
        return self.const_attr(attr, type_)

    def const_attr(self, attr: Attribute, type_: Attribute) -> SSAValue:
        """`llvm.mlir.constant` of `attr`, emitted once per function, in the entry block."""
        if isinstance(attr, DenseIntOrFPElementsAttr):
            key = (str(type_), repr(attr.get_values()))
        else:
            assert isinstance(attr, IntegerAttr | FloatAttr)
            key = (str(type_), repr(attr.value.data))
        if key not in self._constants:
            result = self.hoist(llvm.ConstantOp(attr, type_))
            self._constants[key] = result
            if isinstance(attr, IntegerAttr):
                self.known_ints[result] = attr.value.data
        return self._constants[key]

    # ---------------------------------------------------------------- integer arithmetic

    def add(self, a: SSAValue, b: SSAValue, nsw: bool = True) -> SSAValue:
        ka, kb = self.known_ints.get(a), self.known_ints.get(b)
        if ka is not None and kb is not None and a.type == i64:
            return self.const(ka + kb, i64)
        if ka == 0:
            return b
        if kb == 0:
            return a
        return self.reuse(
            ("add", a, b, nsw), lambda: self.value(llvm.AddOp(a, b, overflow=_nsw(nsw)))
        )

    def sub(self, a: SSAValue, b: SSAValue, nsw: bool = True) -> SSAValue:
        ka, kb = self.known_ints.get(a), self.known_ints.get(b)
        if ka is not None and kb is not None and a.type == i64:
            return self.const(ka - kb, i64)
        if kb == 0:
            return a
        return self.value(llvm.SubOp(a, b, overflow=_nsw(nsw)))

    def mul(self, a: SSAValue, b: SSAValue, nsw: bool = True) -> SSAValue:
        ka, kb = self.known_ints.get(a), self.known_ints.get(b)
        if ka is not None and kb is not None and a.type == i64:
            return self.const(ka * kb, i64)
        if ka == 1:
            return b
        if kb == 1:
            return a
        if 0 in (ka, kb) and not isinstance(a.type, VectorType):
            return self.const(0, a.type)
        return self.reuse(
            ("mul", a, b, nsw), lambda: self.value(llvm.MulOp(a, b, overflow=_nsw(nsw)))
        )

    # ---------------------------------------------------------------- calls

    def intrinsic(
        self,
        name: str,
        args: Sequence[SSAValue],
        result_type: Attribute | None,
        overloads: Sequence[Attribute] = (),
    ) -> SSAValue | None:
        """`llvm.call_intrinsic` of `llvm.<name>` mangled with `overloads` (default: the
        result type), e.g. intrinsic("smax", [a, b], i64) calls llvm.smax.i64."""
        if not overloads and result_type is not None:
            overloads = [result_type]
        full = ".".join(["llvm." + name, *(intrinsic_suffix(t) for t in overloads)])
        op = self.emit(
            llvm.CallIntrinsicOp(full, list(args), [] if result_type is None else [result_type])
        )
        return op.results[0] if op.results else None

    def call(
        self, name: str, args: Sequence[SSAValue], result_type: Attribute | None
    ) -> SSAValue | None:
        op = self.emit(llvm.CallOp(name, *args, return_type=result_type))
        return op.returned

    def libm(self, name: str, args: Sequence[SSAValue]) -> SSAValue:
        """A call to libm's `name` (`namef` for f32) on each lane; f16 goes through f32."""
        type_ = args[0].type
        element = element_of(type_)
        if isinstance(element, Float16Type | BFloat16Type):
            wide = [self.value(llvm.FPExtOp(a, with_element(a.type, f32))) for a in args]
            return self.value(llvm.FPTruncOp(self.libm(name, wide), type_))
        assert isinstance(element, Float32Type | Float64Type), element
        symbol = name + ("f" if isinstance(element, Float32Type) else "")
        self.symbols.declare(symbol, [element] * len(args), element)
        lanes = lanes_of(type_)
        if lanes is None:
            result = self.call(symbol, args, element)
            assert result is not None
            return result
        vector = self.value(llvm.UndefOp(type_))
        for lane in range(lanes):
            position = self.const(lane, i64)
            scalars = [self.value(ExtractElementOp(a, position)) for a in args]
            result = self.call(symbol, scalars, element)
            assert result is not None
            vector = self.value(llvm.InsertElementOp(vector, result, position))
        return vector


def named_block(name: str, arg_types: Sequence[Attribute] = ()) -> Block:
    """A block printed as ^name (and named so in the LLVM IR)."""
    block = Block(arg_types=arg_types)
    block.name_hint = name
    return block


def with_element(type_: Attribute, element: Attribute) -> Attribute:
    """`type_` with its (lane) element type replaced: f32 -> i1, vector<8xf32> -> vector<8xi1>."""
    return VectorType(element, type_.get_shape()) if isinstance(type_, VectorType) else element


def _nsw(on: bool) -> llvm.OverflowAttr:
    return llvm.OverflowAttr((llvm.OverflowFlag.NO_SIGNED_WRAP,) if on else None)
