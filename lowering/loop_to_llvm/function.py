"""One func.func of loop IR -> one llvm.func: structured control flow becomes a CFG.

    loop.for %i = 0 to 64 step 16 iter_args(%acc = %init) -> (f32) { ... loop.yield %next }

becomes

      llvm.br ^loop(%c0, %init : i64, f32)
    ^loop(%i: i64, %acc: f32):                   // block arguments = phis
      %more = llvm.icmp "slt" %i, %c64 : i64
      llvm.cond_br %more, ^body, ^done
    ^body:
      ...
      %i2 = llvm.add %i, %c16 overflow<nsw> : i64
      llvm.br ^loop(%i2, %next : i64, f32)
    ^done:                                       // the loop's results are ^loop's arguments

A loop of one iteration is just its body (with a constant induction variable), one of none
is nothing.
`loop.if` is a `llvm.cond_br` around its body. Buffers are pointers: an access is a
`getelementptr inbounds` of the element type at the row-major linearized i64 index, then a
load or store aligned to the element (vector accesses load `vector<N x T>` from the first
element's address); i1 elements are stored as bytes. Everything that must dominate all uses
(constants, stack buffers, the entry ABI's pointer loads) goes into the entry block.

The function is built afresh, op by op, into new blocks rather than by splitting blocks in
place: splitting is quadratic in block size (xDSL's scf-to-cf on 20k ops took 35 s).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
    VectorType,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from minitvm.dialects import loop
from minitvm.dialects.graph.constant import elements_array
from minitvm.lowering.loop_to_llvm import vector as _vector  # noqa: F401  (its LOWERINGS)
from minitvm.lowering.loop_to_llvm.emitter import (
    Emitter,
    LoweringError,
    ModuleSymbols,
    byte_size,
    llvm_type,
    named_block,
    num_elements,
    row_major_strides,
    storage_type,
    with_element,
)
from minitvm.lowering.loop_to_llvm.scalar import LOWERINGS, icmp_predicate
from minitvm.runtime.abi import ALIGNMENT, ENTRY, THREAD_COUNT
from minitvm.symbolic import Call, SymDim, ceildiv, parse_dim, product, sym_max, symbols_of

#: Scratch buffers of a non-entry function up to this size live on the stack.
MAX_STACK_BYTES = 64 * 1024

#: `llvm.prefetch`'s flags for loop.prefetch: a read (0), locality 2 (x86 `prefetcht1`: into
#: L2; 3 would fill L1 with lines needed later, 0 is non-temporal), the data cache (1).
PREFETCH_READ_L2_DATA = (0, 2, 1)

_ptr = llvm.LLVMPointerType()
_slt = icmp_predicate("slt")
_ne = icmp_predicate("ne")


def _round_up(n: int, multiple: int = ALIGNMENT) -> int:
    return -(-n // multiple) * multiple


@dataclass
class EntryLayout:
    """Where the entry function finds its buffers: filled while it is lowered."""

    io: list[MemRefType] = field(default_factory=list)
    constants: list[tuple[Attribute, MemRefType]] = field(default_factory=list)
    allocs: list[tuple[int, int]] = field(default_factory=list)  # (offset, bytes) per alloc
    arena_size: int = 0
    #: The symbols whose values the entry's fourth argument points to, in order (none: the
    #: entry takes three arguments).
    symbols: list[str] = field(default_factory=list)
    #: The arena's end with the buffers of run-time size (above `arena_size`), an expression
    #: of the symbols (0: there are none).
    arena_size_expr: int | SymDim = 0
    #: The sizes the entry sets as it runs (`loop.set_size`), each with its bound (text).
    set_sizes: dict[str, str] = field(default_factory=dict)
    #: Those of them that are checks, with their messages (`loop.set_size_messages`).
    checks: dict[str, str] = field(default_factory=dict)
    #: Those of them that are dims of one shape, with their group (`loop.set_size_groups`).
    groups: dict[str, str] = field(default_factory=dict)


class FunctionLowering(Emitter):
    """Lowers one func.func; `lower()` returns the llvm.func."""

    def __init__(
        self,
        fn: func.FuncOp,
        symbols: ModuleSymbols,
        entry: EntryLayout | None,
        noalias: bool = False,
    ):
        self.fn = fn
        self.layout = entry
        self.noalias = noalias
        self.name = fn.sym_name.data
        inputs = fn.function_type.inputs.data
        outputs = fn.function_type.outputs.data
        if len(outputs) > 1:
            raise LoweringError(f"convert-loop-to-llvm: @{self.name} returns several values")
        if entry is not None:
            if outputs or not all(isinstance(t, MemRefType) for t in inputs):
                raise LoweringError(
                    f"convert-loop-to-llvm: @{ENTRY} must take only buffers and return nothing"
                )
            arg_types: list[Attribute] = [_ptr, _ptr, _ptr, *([_ptr] if _symbols_of(fn) else [])]
        else:
            arg_types = [llvm_type(t) for t in inputs]
        self.type = llvm.LLVMFunctionType(arg_types, llvm_type(outputs[0]) if outputs else None)
        super().__init__(symbols, arg_types)
        self.values: dict[SSAValue, SSAValue] = {}
        self.heap: list[SSAValue] = []  # buffers to free before returning
        #: symbol name -> its value (i64), bound by `_bind_symbols`; sizes emitted from them
        self.symbol_values: dict[str, SSAValue] = {}
        #: a kernel's symbols and the loop-level arguments holding them (an outlined
        #: parallel loop receives them with its other captured values)
        self.symbol_args: list[tuple[str, SSAValue]] = []
        self._sizes: dict[str, SSAValue] = {}
        #: the sizes the entry sets as it runs (`loop.set_size`), with their bounds: read
        #: from the sizes array where they are used, buffers planned for the bounds
        self.set_sizes = loop.set_size_bounds(fn) if entry is not None else {}
        self._size_slots: dict[str, SSAValue] = {}

    # ---------------------------------------------------------------- driver

    def lower(self) -> llvm.FuncOp:
        if not self.fn.body.blocks:  # a declaration (e.g. of an external function)
            return llvm.FuncOp(self.name, self.type, linkage=llvm.LinkageAttr("external"))
        if len(self.fn.body.blocks) != 1:
            raise LoweringError(f"convert-loop-to-llvm: @{self.name} must have a single block")
        body = self.fn.body.block
        if self.layout is not None:
            self._bind_entry_abi(body)
        else:
            self.values.update(zip(body.args, self.entry.args))
        self._bind_symbols(body)
        self._prepare_buffers(body)
        self.lower_block(body)
        return llvm.FuncOp(
            self.name,
            self.type,
            linkage=llvm.LinkageAttr("external"),
            body=self.finish(),
            other_props={"arg_attrs": self._arg_attrs()},
        )

    def _arg_attrs(self) -> ArrayAttr[DictionaryAttr] | None:
        """`noalias` on buffer arguments (if asked): LLVM then neither versions loops with
        run-time overlap checks nor assumes a store may change what another buffer holds."""
        inputs = self.fn.function_type.inputs.data
        if (
            not self.noalias
            or self.layout is not None
            or not any(isinstance(t, MemRefType) for t in inputs)
        ):
            return None
        return ArrayAttr(
            [
                DictionaryAttr({"llvm.noalias": UnitAttr()} if isinstance(t, MemRefType) else {})
                for t in inputs
            ]
        )

    def lower_block(self, block: Block) -> None:
        for op in block.ops:
            self.lower_op(op)

    def lower_op(self, op: Operation) -> None:
        match op:
            case loop.ForOp():
                self.lower_for(op)
            case loop.IfOp():
                self._lower_if(op)
            case loop.WhileOp():
                self._lower_while(op)
            case loop.LoadOp() | loop.VectorLoadOp():
                self.values[op.result] = self._load(op.buffer, op.indices, op.result.type)
            case loop.StoreOp() | loop.VectorStoreOp():
                self._store(self.values[op.value], op.buffer, op.indices)
            case loop.PrefetchOp():
                self._prefetch(op.buffer, op.indices)
            case loop.BroadcastOp():
                self.values[op.result] = self._broadcast(self.values[op.value], op.result.type)
            case loop.AllocOp() | loop.ConstantOp():
                pass  # bound up front by _prepare_buffers
            case loop.ViewOp():
                start = op.start.value.data * loop.element_bytes(op.source.type.element_type)  # type: ignore[attr-defined]
                self.values[op.result] = self._gep(self.values[op.source], i8, None, start, True)
            case loop.SizeOp():
                self.values[op.result] = self.size_value(op.value)
            case loop.ThreadsOp():
                self.symbols.declare(THREAD_COUNT, [], i64)
                self.values[op.result] = self.call(THREAD_COUNT, [], i64)  # type: ignore[assignment]
            case loop.SetSizeOp():
                self._set_size(op)
            case loop.CopyOp():
                self._copy(op)
            case func.CallOp():
                self._call(op)
            case func.ReturnOp():
                self._return(op)
            case loop.YieldOp():
                raise AssertionError("loop.yield is consumed by its parent")
            case _:
                lowering = LOWERINGS.get(type(op))
                if lowering is None:
                    raise LoweringError(
                        f"convert-loop-to-llvm: cannot lower {op.name} (in @{self.name})"
                    )
                args = [self.values[o] for o in op.operands]
                self.values[op.results[0]] = lowering(self, op, args)

    # ---------------------------------------------------------------- control flow

    def lower_for(self, op: loop.ForOp) -> None:
        """`op` as a loop on this thread, whatever its hints (parallel.py's
        `ParallelFunctionLowering` outlines `parallel` loops before it gets here)."""
        lower, upper, step = op.bounds
        inits = [self.values[v] for v in op.inits]
        bound = self.values[op.upper_value] if op.upper_value is not None else self.const(upper, i64)
        if not op.is_dynamic and op.trip_count <= 1:  # no loop: the body once (or never)
            results = inits
            if op.trip_count == 1:
                self.values[op.induction_var] = self.const(lower, i64)
                results = self._lower_body(op.body.block, inits)
            self.values.update(zip(op.results, results))
            return
        header = named_block("loop", [i64, *(v.type for v in inits)])
        body, exit_ = named_block("body"), named_block("done")
        for new, old in zip(header.args, op.body.block.args):
            new.name_hint = old.name_hint
        self.emit(llvm.BrOp(header, self.const(lower, i64), *inits))
        self.start(header)
        iv, *carried = header.args
        more = self.value(llvm.ICmpOp(iv, bound, _slt))
        self.emit(llvm.CondBrOp(more, body, [], exit_, []))
        self.start(body)
        self.values[op.induction_var] = iv
        with self.scope():
            yielded = self._lower_body(op.body.block, carried)
            next_ = self.add(iv, self.const(step, i64))
            self.emit(llvm.BrOp(header, next_, *yielded))
        self.start(exit_)
        self.values.update(zip(op.results, carried))

    def _lower_body(self, block: Block, carried: Sequence[SSAValue]) -> list[SSAValue]:
        """Lower a loop body given its iter_args' values; the values it yields."""
        self.values.update(zip(block.args[1:], carried))
        for inner in block.ops:
            if isinstance(inner, loop.YieldOp):
                return [self.values[v] for v in inner.values]
            self.lower_op(inner)
        raise AssertionError("loop.for body without loop.yield")

    def _lower_if(self, op: loop.IfOp) -> None:
        then, merge = named_block("then"), named_block("endif")
        self.emit(llvm.CondBrOp(self.values[op.condition], then, [], merge, []))
        self.start(then)
        self._lower_guarded(op.body.block)
        self.emit(llvm.BrOp(merge))
        self.start(merge)

    def _lower_while(self, op: loop.WhileOp) -> None:
        """A header that reads the flag and branches to the body or past it; the body
        branches back to the header."""
        header, body, exit_ = named_block("while"), named_block("do"), named_block("wend")
        self.emit(llvm.BrOp(header))
        self.start(header)
        flag = self._load(op.flag, [], i1)
        self.emit(llvm.CondBrOp(flag, body, [], exit_, []))
        self.start(body)
        self._lower_guarded(op.body.block)
        self.emit(llvm.BrOp(header))
        self.start(exit_)

    def _lower_guarded(self, block: Block) -> None:
        """The ops of a loop.if or loop.while body (its empty loop.yield aside), in a scope
        of their own: what they compute is not available after the branch."""
        with self.scope():
            for inner in block.ops:
                if not isinstance(inner, loop.YieldOp):
                    self.lower_op(inner)

    def _call(self, op: func.CallOp) -> None:
        callee = op.callee.root_reference.data
        if callee == ENTRY:
            raise LoweringError(f"convert-loop-to-llvm: @{self.name} calls @{ENTRY}")
        if len(op.results) > 1:
            raise LoweringError(f"convert-loop-to-llvm: call to @{callee} has several results")
        result_type = llvm_type(op.results[0].type) if op.results else None
        result = self.call(callee, [self.values[a] for a in op.arguments], result_type)
        if op.results:
            assert result is not None
            self.values[op.results[0]] = result

    def _return(self, op: func.ReturnOp) -> None:
        self._free_heap()
        self.emit(llvm.ReturnOp(self.values[op.arguments[0]] if op.arguments else None))

    def _free_heap(self) -> None:
        if self.heap:
            self.symbols.declare("free", [_ptr], None)
            for buffer in self.heap:
                self.call("free", [buffer], None)

    def _set_size(self, op: loop.SetSizeOp) -> None:
        """The size into its slot of the sizes array; a value beyond its bound stops the run
        there (the entry returns: the runtime finds the size over its bound and raises the
        capacity or reports the check)."""
        if op.size.data not in self._size_slots:
            raise LoweringError(f"convert-loop-to-llvm: loop.set_size outside @{ENTRY}")
        value = self.values[op.value]
        self.emit(llvm.StoreOp(value, self._size_slots[op.size.data], alignment=8))
        over = self.value(llvm.ICmpOp(value, self.size_value(op.bound_value), icmp_predicate("sgt")))
        stop, go = named_block("stop"), named_block("go")
        self.emit(llvm.CondBrOp(over, stop, [], go, []))
        self.start(stop)
        self._free_heap()
        self.emit(llvm.ReturnOp(None))
        self.start(go)

    # ---------------------------------------------------------------- memory

    def _address(
        self,
        buffer: SSAValue,
        indices: tuple[SSAValue, ...] | list[SSAValue],
        inbounds: bool = True,
    ) -> SSAValue:
        """`getelementptr inbounds` to buffer[indices], row-major; strides are numbers, or
        sizes computed once from the symbols for a buffer with symbolic dims. Without
        `inbounds` for an address that may lie outside the buffer (a prefetch's): an inbounds
        one there would be poison."""
        type_ = buffer.type
        assert isinstance(type_, MemRefType)
        offset: SSAValue | None = None
        constant = 0
        for index, stride in zip(indices, _strides(type_)):
            value = self.values[index]
            if value in self.known_ints and isinstance(stride, int):
                constant += self.known_ints[value] * stride
                continue
            term = self.mul(value, self.size_value(stride))
            offset = term if offset is None else self.add(offset, term)
        base = self.values[buffer]
        element = storage_type(type_.element_type)
        return self.reuse(
            ("gep", base, offset, constant, inbounds),
            lambda: self._gep(base, element, offset, constant, inbounds),
        )

    def _gep(
        self,
        base: SSAValue,
        element: Attribute,
        offset: SSAValue | None,
        constant: int,
        inbounds: bool,
    ) -> SSAValue:
        if offset is None:
            if not constant:
                return base
            return self.value(self._constant_gep(base, element, constant, inbounds))
        if constant:
            offset = self.add(offset, self.const(constant, i64))
        return self.value(llvm.GEPOp.from_mixed_indices(base, [offset], element, inbounds=inbounds))

    def _constant_gep(
        self, base: SSAValue, element: Attribute, n: int, inbounds: bool = True
    ) -> llvm.GEPOp:
        """`&base[n]`; the index is an attribute when it fits GEP's i32 constant indices."""
        if -(2**31) < n < 2**31:
            return llvm.GEPOp(base, [n], element, inbounds=inbounds)
        return llvm.GEPOp.from_mixed_indices(base, [self.const(n, i64)], element, inbounds=inbounds)

    def _load(self, buffer: SSAValue, indices, result_type: Attribute) -> SSAValue:
        type_ = buffer.type
        assert isinstance(type_, MemRefType)
        address = self._address(buffer, indices)
        align = byte_size(type_.element_type)
        if type_.element_type != i1:
            return self.value(llvm.LoadOp(address, llvm_type(result_type), alignment=align))
        stored = self.value(llvm.LoadOp(address, with_element(result_type, i8), alignment=1))
        return self.value(llvm.ICmpOp(stored, self.const(0, stored.type), _ne))

    def _store(self, value: SSAValue, buffer: SSAValue, indices) -> None:
        type_ = buffer.type
        assert isinstance(type_, MemRefType)
        address = self._address(buffer, indices)
        if type_.element_type == i1:
            value = self.value(llvm.ZExtOp(value, with_element(value.type, i8)))
        self.emit(llvm.StoreOp(value, address, alignment=byte_size(type_.element_type)))

    def _prefetch(self, buffer: SSAValue, indices) -> None:
        """`llvm.prefetch(address, read, locality 2, data)`: x86's `prefetcht1`, into L2."""
        address = self._address(buffer, indices, inbounds=False)
        flags = [self.const(n, i32) for n in PREFETCH_READ_L2_DATA]
        self.intrinsic("prefetch.p0", [address, *flags], None, [])

    def _broadcast(self, scalar: SSAValue, type_: Attribute) -> SSAValue:
        vector_type = llvm_type(type_)
        assert isinstance(vector_type, VectorType)
        lanes = vector_type.get_shape()[0]
        undef = self.value(llvm.UndefOp(vector_type))
        first = self.value(llvm.InsertElementOp(undef, scalar, self.const(0, i64)))
        return self.value(
            llvm.ShuffleVectorOp.build(
                operands=[first, undef],
                properties={"mask": DenseArrayBase.from_list(i32, [0] * lanes)},
                result_types=[vector_type],
            )
        )

    def _copy(self, op: loop.CopyOp) -> None:
        type_ = op.source.type
        assert isinstance(type_, MemRefType)
        size = product(loop.dims_of(type_)) * byte_size(type_.element_type)  # (run-time sizes too)
        args = [self.values[op.target], self.values[op.source], self.size_value(size)]
        self.intrinsic("memcpy.p0.p0.i64", [*args, self.const(0, i1)], None, [])

    # ---------------------------------------------------------------- buffers and the ABI

    def _bind_entry_abi(self, body: Block) -> None:
        """`main(io, consts, arena)`: the original buffer arguments are io[0], io[1], ..."""
        assert self.layout is not None
        io = self.entry.args[0]
        for n, arg in enumerate(body.args):
            assert isinstance(arg.type, MemRefType)
            self.layout.io.append(arg.type)
            self.values[arg] = self._load_pointer(io, n)

    def _load_pointer(self, table: SSAValue, n: int) -> SSAValue:
        slot = self.hoist(self._constant_gep(table, _ptr, n)) if n else table
        return self.hoist(llvm.LoadOp(slot, _ptr, alignment=8))

    def _prepare_buffers(self, body: Block) -> None:
        """Bind every loop.alloc and loop.constant, in order of appearance, in the entry block."""
        if self.layout is not None:  # unplanned allocs go above the planned ones
            self.layout.arena_size = _planned_arena_end(body)
        for op in body.walk():
            if isinstance(op, loop.AllocOp):
                self.values[op.result] = self._alloc(op.result.type, _planned_offset(op))
            elif isinstance(op, loop.ConstantOp):
                self.values[op.result] = self._constant_buffer(op)

    def _alloc(self, type_: MemRefType, planned_offset: int | SymDim | None = None) -> SSAValue:
        if any(isinstance(d, SymDim) for d in loop.dims_of(type_)):
            if self.layout is not None and planned_offset is not None:
                return self._arena_slice(type_, planned_offset)
            return self._alloc_per_run(type_)
        size = num_elements(type_) * byte_size(type_.element_type)
        if self.layout is not None:  # the entry function: a slice of the arena
            offset = self.layout.arena_size if planned_offset is None else planned_offset
            self.layout.allocs.append((offset, size))
            end = offset + _round_up(size)
            self.layout.arena_size = max(self.layout.arena_size, end)
            arena = self.entry.args[2]
            return self.hoist(self._constant_gep(arena, i8, offset)) if offset else arena
        if size <= MAX_STACK_BYTES:
            count = self.const(num_elements(type_), i64)
            return self.hoist(llvm.AllocaOp(count, storage_type(type_.element_type), ALIGNMENT))
        self.symbols.declare("aligned_alloc", [i64, i64], _ptr)
        op = llvm.CallOp(
            "aligned_alloc",
            self.const(ALIGNMENT, i64),
            self.const(_round_up(size), i64),
            return_type=_ptr,
        )
        buffer = self.hoist(op)
        self.heap.append(buffer)
        return buffer

    def _arena_slice(self, type_: MemRefType, offset: int | SymDim) -> SSAValue:
        """A buffer of run-time size at its planned offset (an expression of the symbols):
        the run time makes the arena as big as `arena_size_expr` says."""
        assert self.layout is not None
        size = loop.bounded_size(product(loop.dims_of(type_)) * byte_size(type_.element_type), self.set_sizes)
        end = offset + ceildiv(size, ALIGNMENT) * ALIGNMENT
        self.layout.arena_size_expr = sym_max(self.layout.arena_size_expr, end)
        arena = self.entry.args[2]
        return self.hoist(llvm.GEPOp.from_mixed_indices(arena, [self.size_value(offset)], i8, inbounds=True))

    def _alloc_per_run(self, type_: MemRefType) -> SSAValue:
        """A buffer whose size is known only at run time: allocated at the function's entry
        and freed before it returns (planning such buffers into the arena is to come)."""
        size = loop.bounded_size(product(loop.dims_of(type_)) * byte_size(type_.element_type), self.set_sizes)
        bytes_ = self.size_value(size + (ALIGNMENT - 1))
        rounded = self.hoist(llvm.AndOp(bytes_, self.const(-ALIGNMENT, i64)))
        self.symbols.declare("aligned_alloc", [i64, i64], _ptr)
        op = llvm.CallOp("aligned_alloc", self.const(ALIGNMENT, i64), rounded, return_type=_ptr)
        buffer = self.hoist(op)
        self.heap.append(buffer)
        return buffer

    # ---------------------------------------------------------------- sizes known at run time

    def _bind_symbols(self, body: Block) -> None:
        """The symbols' values: a kernel's trailing index arguments; the entry's sizes array
        (its fourth argument, in `loop.SYMBOLS_ATTR` order)."""
        names = _symbols_of(self.fn)
        if not names:
            return
        if self.layout is not None:
            self.layout.symbols = names
            self.layout.set_sizes = {name: str(bound) for name, bound in self.set_sizes.items()}
            self.layout.checks = loop.set_size_messages(self.fn)
            self.layout.groups = loop.set_size_groups(self.fn)
            sizes = self.entry.args[3]
            for n, name in enumerate(names):
                slot = self.hoist(self._constant_gep(sizes, i64, n)) if n else sizes
                self._size_slots[name] = slot
                if name not in self.set_sizes:  # (those set as the entry runs: see size_value)
                    self.symbol_values[name] = self.hoist(llvm.LoadOp(slot, i64, alignment=8))
            return
        args = body.args[len(body.args) - len(names) :]
        self.symbol_args = list(zip(names, args))
        self.symbol_values = {name: self.values[arg] for name, arg in self.symbol_args}

    def size_value(self, size: int | SymDim) -> SSAValue:
        """A size as an i64 value, computed once in the entry block from the symbols; one
        that involves a size the entry sets as it runs, where it is used (after the set)."""
        if isinstance(size, int):
            return self.const(size, i64)
        if self.set_sizes and symbols_of(size) & self.set_sizes.keys():
            return self._size_expression(size, self.value)
        key = str(size)
        if key not in self._sizes:
            self._sizes[key] = self._size_expression(size, self.hoist)
        return self._sizes[key]

    def _size_expression(self, size: SymDim, place: Callable[[Operation], SSAValue]) -> SSAValue:
        total: SSAValue | None = None
        for monomial, coefficient in size.terms:
            term = self.const(coefficient, i64) if coefficient != 1 or not monomial else None
            for atom in monomial:
                factor = self._atom_value(atom, place)
                term = factor if term is None else place(llvm.MulOp(term, factor))
            assert term is not None
            total = term if total is None else place(llvm.AddOp(total, term))
        assert total is not None
        return total

    def _atom_value(self, atom: object, place: Callable[[Operation], SSAValue]) -> SSAValue:
        if isinstance(atom, str):
            if atom in self.set_sizes:
                return place(llvm.LoadOp(self._size_slots[atom], i64, alignment=8))
            if atom not in self.symbol_values:
                raise LoweringError(
                    f"convert-loop-to-llvm: @{self.name} uses size '{atom}' but has no such "
                    f"symbol (loop.symbols = {sorted(self.symbol_values)})"
                )
            return self.symbol_values[atom]
        assert isinstance(atom, Call)
        a, b = (self.size_value(arg) for arg in atom.args[:2])
        if atom.fn in ("max", "min"):
            result = a
            for arg in atom.args[1:]:
                other = self.size_value(arg)
                bigger = place(llvm.ICmpOp(result, other, icmp_predicate("sgt")))
                pick = (result, other) if atom.fn == "max" else (other, result)
                result = place(llvm.SelectOp(bigger, *pick))
            return result
        # floor division and modulo (the sizes are mostly non-negative, but not always:
        # floordiv(h - 3, 2) of a small h): truncating ones, corrected toward -inf
        quotient = place(llvm.SDivOp(a, b))
        remainder = place(llvm.SRemOp(a, b))
        zero = self.const(0, i64)
        inexact = place(llvm.ICmpOp(remainder, zero, _ne))
        signs = place(llvm.XOrOp(remainder, b))
        opposite = place(llvm.ICmpOp(signs, zero, _slt))
        fix = place(llvm.AndOp(inexact, opposite))
        if atom.fn == "floordiv":
            return place(llvm.SubOp(quotient, place(llvm.ZExtOp(fix, i64))))
        return place(llvm.SelectOp(fix, place(llvm.AddOp(remainder, b)), remainder))

    def _constant_buffer(self, op: loop.ConstantOp) -> SSAValue:
        type_ = op.result.type
        assert isinstance(type_, MemRefType)
        if self.layout is not None:  # the entry function: consts[n], supplied at run time
            self.layout.constants.append((op.value, type_))
            return self._load_pointer(self.entry.args[1], len(self.layout.constants) - 1)
        # Any other function: a private global holding the data.
        array = elements_array(op.value, type_).reshape(-1)
        element = storage_type(type_.element_type)
        if type_.element_type == i1:
            array = array.astype(np.int8)
        data = DenseIntOrFPElementsAttr.from_list(TensorType(element, [array.size]), array.tolist())
        name = f"__const_{self.name}_{len(self.symbols.globals)}"
        self.symbols.add_global(
            llvm.GlobalOp(
                llvm.LLVMArrayType(array.size, element),
                name,
                "internal",
                constant=True,
                value=data,
                alignment=ALIGNMENT,
            )
        )
        return self.hoist(llvm.AddressOfOp(name, _ptr))


def _symbols_of(fn: func.FuncOp) -> list[str]:
    attr = fn.attributes.get(loop.SYMBOLS_ATTR)
    return [s.data for s in attr.data] if isinstance(attr, ArrayAttr) else []  # type: ignore[attr-defined]


def _strides(type_: MemRefType) -> list[int | SymDim]:
    """Row-major strides of a buffer (symbolic where its dims are)."""
    dims = loop.dims_of(type_)
    if not any(isinstance(d, SymDim) for d in dims):
        return list(row_major_strides(type_))
    return [product(dims[k + 1 :]) for k in range(len(dims))]


# ---------------------------------------------------------------- planned arena offsets


def _planned_offset(op: loop.AllocOp) -> int | SymDim | None:
    """The arena offset loop-plan-memory gave `op` (an `offset` attribute), if any: an
    expression of the symbols for a buffer of run-time size."""
    attr = op.attributes.get(loop.OFFSET_ATTR)
    if attr is None:
        return None
    if isinstance(attr, StringAttr):
        return parse_dim(attr.data)
    if not isinstance(attr, IntegerAttr) or attr.value.data < 0 or attr.value.data % ALIGNMENT:
        raise LoweringError(
            f"convert-loop-to-llvm: loop.alloc offset must be a non-negative multiple of "
            f"{ALIGNMENT}, got {attr}"
        )
    return attr.value.data


def _planned_arena_end(body: Block) -> int:
    """Bytes the planned allocs of the entry function take (0 when none is planned)."""
    end = 0
    for op in body.walk():
        if isinstance(op, loop.AllocOp) and isinstance(offset := _planned_offset(op), int):
            type_ = op.result.type
            assert isinstance(type_, MemRefType)
            if any(isinstance(d, SymDim) for d in loop.dims_of(type_)):
                continue  # above the static arena (EntryLayout.arena_size_expr)
            size = num_elements(type_) * byte_size(type_.element_type)
            end = max(end, offset + _round_up(size))
    return end
