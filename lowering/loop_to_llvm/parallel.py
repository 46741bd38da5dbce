"""`parallel` loops -> chunk functions run on all threads (part of convert-loop-to-llvm).

A `loop.for` marked `parallel` (without iter_args, of two or more iterations, not already
inside a parallel loop) is outlined:

    func.func @k(%a: memref<64x32xf32>, %b: memref<64x32xf32>) {
      loop.for %i = 0 to 64 step 1 { ...%a...%b... } {parallel}
    }

becomes

    llvm.func @k__par0(%a: !llvm.ptr {llvm.noalias}, %b: !llvm.ptr {llvm.noalias},
                       %lo: i64, %hi: i64) {
      // the loop body for %i = lo .. hi-1 (iteration numbers: %i = lower + n * step)
    }
    llvm.func @k__par0_chunk(%ctx: !llvm.ptr, %lo: i64, %hi: i64) {
      // load %a, %b from ctx, ctx + 8; llvm.call @k__par0(%a, %b, %lo, %hi)
    }
    llvm.func @k(%a: !llvm.ptr {llvm.noalias}, %b: !llvm.ptr {llvm.noalias}) {
      %ctx = llvm.alloca 2 x !llvm.ptr    // the captured values, in 8-byte aligned slots
      llvm.store %a, %ctx ; llvm.store %b, %ctx + 8
      llvm.call @__minitvm_parallel_for(@k__par0_chunk, %ctx, 64)
    }

`@..._chunk` has the chunk ABI `void body(void *ctx, int64_t lo, int64_t hi)` (`abi.CHUNK`):
run iterations [lo, hi). The values the body uses from outside (buffers, enclosing loops'
indices, scalars) travel in `ctx`, except constants (and indices known while lowering, such
as that of an enclosing one-iteration loop), which are re-created inside. The first function
takes them as arguments so that buffers stay `noalias` there, as in the kernel they come
from.

`__minitvm_parallel_for(body, ctx, trip)` is not generated here: the JIT links in `support_ir`,
which reads the thread count from the global `__minitvm_num_threads` (the runtime sets it
before each run; 1, the initial value, calls the body once over the whole range, on the
caller's thread), cuts the loop into chunks of `ceil(trip / (CHUNKS_PER_THREAD * threads))`
iterations, and hands them to the runtime's thread pool (runtime/thread_pool.py) through the
function pointer `__minitvm_thread_pool`, which the Executable sets. A module whose pointer
is not set runs its loops serially. These names and C types are runtime/abi.py's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, VectorType, i8, i64
from xdsl.ir import Attribute, Operation, SSAValue

from minitvm.dialects import loop
from minitvm.lowering.loop_to_llvm.emitter import Emitter, LoweringError, llvm_type, named_block
from minitvm.lowering.loop_to_llvm.function import FunctionLowering
from minitvm.lowering.loop_to_llvm.scalar import icmp_predicate
from minitvm.runtime.abi import (
    NUM_THREADS_GLOBAL,
    PARALLEL_FOR,
    THREAD_COUNT,
    THREAD_COUNT_GLOBAL,
    THREAD_POOL_GLOBAL,
)

#: Suffix of an outlined loop's chunk entry (`@k__par0_chunk`: the `abi.CHUNK` the pool
#: calls); the JIT keeps the body it calls out of line.
CHUNK_SUFFIX = "_chunk"

#: Parallel loops are cut into this many chunks per thread, which the threads take in turn:
#: a thread slowed down (by another process on its core) then takes fewer of them.
CHUNKS_PER_THREAD = 4

_ptr = llvm.LLVMPointerType()
_slt = icmp_predicate("slt")
#: Alignment of the captures buffer (and the most any slot in it needs: a 512-bit vector).
_CTX_ALIGNMENT = 64


class ParallelFunctionLowering(FunctionLowering):
    """A `FunctionLowering` that outlines `parallel` loops (what convert-loop-to-llvm uses).
    A parallel loop inside an outlined one runs serially on its thread: the outlined body is
    lowered by a plain `FunctionLowering` (`_ChunkLowering`)."""

    def lower_for(self, op: loop.ForOp) -> None:
        if not lower_parallel_for(self, op):
            super().lower_for(op)


def lower_parallel_for(parent: FunctionLowering, op: loop.ForOp) -> bool:
    """Outline `op` if it is a parallel loop (see the module docstring); False otherwise."""
    if loop.PARALLEL_HINT not in op.attributes or op.inits or op.trip_count < 2:
        return False
    captured = _captured_values(op)
    constants = [v for v in captured if isinstance(v.owner, arith.ConstantOp)]
    # Integers known while lowering the parent (e.g. the index of a one-iteration loop,
    # which is no loop) stay constants inside too, so that addresses keep folding.
    known = {
        v: parent.known_ints[parent.values[v]]
        for v in captured
        if v not in constants and parent.values[v] in parent.known_ints
    }
    passed = [v for v in captured if v not in constants and v not in known]
    passed += [arg for _, arg in parent.symbol_args if arg not in passed]  # (sizes, strides)
    name = f"{parent.name}__par{len(parent.symbols.functions) // 2}"

    chunk = _ChunkLowering(parent, name, op, passed, constants, known)
    parent.symbols.add_function(chunk.lower_chunk())
    types = [llvm_type(v.type) for v in passed]
    slots, size = _slots(types)
    parent.symbols.add_function(_ctx_entry(parent, name + CHUNK_SUFFIX, name, types, slots))

    # Allocated as pointers (8 bytes each): llvmlite keeps an alloca of i8 typed `i8*` and
    # then refuses to store anything but an i8 through it; a `ptr` alloca is opaque.
    count = parent.const(-(-size // 8), i64)
    ctx = parent.hoist(llvm.AllocaOp(count, _ptr, _CTX_ALIGNMENT))
    for value, (offset, align) in zip(passed, slots):
        slot = _slot(parent, ctx, offset)
        parent.emit(llvm.StoreOp(parent.values[value], slot, alignment=align))
    body = parent.hoist(llvm.AddressOfOp(name + CHUNK_SUFFIX, _ptr))
    parent.symbols.declare(PARALLEL_FOR, [_ptr, _ptr, i64], None)
    parent.call(PARALLEL_FOR, [body, ctx, _trip(parent, op)], None)
    return True


def _trip(parent: FunctionLowering, op: loop.ForOp) -> SSAValue:
    """The loop's trip count as an i64 value: a number, or from its run-time upper bound."""
    if op.upper_value is None:
        return parent.const(op.trip_count, i64)
    lower, _, step = op.bounds
    upper = parent.values[op.upper_value]
    span = parent.sub(upper, parent.const(lower, i64))
    if step != 1:
        span = parent.value(llvm.SDivOp(parent.add(span, parent.const(step - 1, i64)), parent.const(step, i64)))
    positive = parent.value(llvm.ICmpOp(span, parent.const(0, i64), icmp_predicate("sgt")))
    return parent.value(llvm.SelectOp(positive, span, parent.const(0, i64)))


def is_outlined(symbol: str) -> bool:
    """Whether `symbol` names a function this module outlined (`@k__par3`, `@k__par3_chunk`)."""
    return re.search(rf"__par\d+({CHUNK_SUFFIX})?$", symbol) is not None


def _captured_values(op: Operation) -> list[SSAValue]:
    """Values `op`'s regions use but do not define, in order of first use."""
    defined = loop.defined_within(op)
    captured: dict[SSAValue, None] = {}
    for inner in op.walk():
        if inner is op:
            continue
        for operand in inner.operands:
            if operand not in defined:
                captured[operand] = None
    return list(captured)


def _byte_size(type_: Attribute) -> int:
    if isinstance(type_, llvm.LLVMPointerType):
        return 8
    if isinstance(type_, IntegerType):
        return (type_.width.data + 7) // 8
    if isinstance(type_, AnyFloat):
        return type_.bitwidth // 8
    if isinstance(type_, VectorType):
        return type_.get_shape()[0] * _byte_size(type_.element_type)
    raise LoweringError(f"convert-loop-to-llvm: cannot pass a {type_} to a parallel loop")


def _slots(types: Sequence[Attribute]) -> tuple[list[tuple[int, int]], int]:
    """(byte offset, alignment) of a slot per value of `types` in the captures buffer (its
    base is 64-byte aligned), and the buffer's size."""
    slots, size = [], 0
    for type_ in types:
        bytes_ = _byte_size(type_)
        align = min(_CTX_ALIGNMENT, max(8, 1 << (bytes_ - 1).bit_length()))
        offset = -(-size // align) * align
        slots.append((offset, align))
        size = offset + -(-bytes_ // 8) * 8
    return slots, max(size, 8)


def _slot(em: Emitter, ctx: SSAValue, offset: int) -> SSAValue:
    return em.hoist(llvm.GEPOp(ctx, [offset], i8, inbounds=True)) if offset else ctx


def _ctx_entry(
    parent: FunctionLowering,
    name: str,
    callee: str,
    types: list[Attribute],
    slots: list[tuple[int, int]],
) -> llvm.FuncOp:
    """`void name(ptr ctx, i64 lo, i64 hi)`: unpack the captured values, call `callee`."""
    em = Emitter(parent.symbols, [_ptr, i64, i64])
    ctx, lo, hi = em.entry.args
    values = [
        em.value(llvm.LoadOp(_slot(em, ctx, offset), type_, alignment=align))
        for type_, (offset, align) in zip(types, slots)
    ]
    em.call(callee, [*values, lo, hi], None)
    em.emit(llvm.ReturnOp())
    function_type = llvm.LLVMFunctionType([_ptr, i64, i64], None)
    return llvm.FuncOp(
        name, function_type, linkage=llvm.LinkageAttr("external"), body=em.finish()
    )


class _ChunkLowering(FunctionLowering):
    """Lowers a parallel loop's iterations [lo, hi) as `@name(captured..., i64 lo, i64 hi)`
    (a parallel loop inside runs serially on its thread)."""

    def __init__(
        self,
        parent: FunctionLowering,
        name: str,
        op: loop.ForOp,
        passed: Sequence[SSAValue],
        constants: Sequence[SSAValue],
        known: dict[SSAValue, int],
    ):
        types: list[Attribute] = [v.type for v in passed]
        signature = func.FuncOp(name, ([*types, IndexType(), IndexType()], []))
        # noalias holds as it does in the parent kernel (not in @main, whose planned arena
        # buffers may share bytes when their lifetimes do not overlap).
        super().__init__(signature, parent.symbols, None, parent.noalias and parent.layout is None)
        self.loop = op
        self.parent_symbols = list(parent.symbol_args)
        self.passed = list(passed)
        self.constants = list(constants)
        self.known = known

    def lower_chunk(self) -> llvm.FuncOp:
        body = self.loop.body.block
        *args, lo, hi = self.entry.args
        self.values.update(zip(self.passed, args))
        self.symbol_args = self.parent_symbols
        self.symbol_values = {name: self.values[arg] for name, arg in self.symbol_args}
        for value in self.constants:
            assert isinstance(value.owner, Operation)
            self.lower_op(value.owner)
        for value, number in self.known.items():
            self.values[value] = self.const(number, llvm_type(value.type))
        self._prepare_buffers(body)  # scratch inside the loop: one per thread

        lower, _, step = self.loop.bounds
        first = self.add(self.const(lower, i64), self.mul(lo, self.const(step, i64)))
        end = self.add(self.const(lower, i64), self.mul(hi, self.const(step, i64)))
        header = named_block("loop", [i64])
        header.args[0].name_hint = body.args[0].name_hint
        inner, exit_ = named_block("body"), named_block("done")
        self.emit(llvm.BrOp(header, first))
        self.start(header)
        iv = header.args[0]
        self.emit(llvm.CondBrOp(self.value(llvm.ICmpOp(iv, end, _slt)), inner, [], exit_, []))
        self.start(inner)
        self.values[self.loop.induction_var] = iv
        with self.scope():
            self._lower_body(body, [])
            self.emit(llvm.BrOp(header, self.add(iv, self.const(step, i64))))
        self.start(exit_)
        self._return(func.ReturnOp())
        return llvm.FuncOp(
            self.name,
            self.type,
            linkage=llvm.LinkageAttr("external"),
            body=self.finish(),
            other_props={"arg_attrs": self._arg_attrs()},
        )


# --------------------------------------------------------------------------------------------
# The implementation of __minitvm_parallel_for, linked in by the JIT
# --------------------------------------------------------------------------------------------

_SUPPORT = f"""
@{NUM_THREADS_GLOBAL} = global i32 1, align 4
@{THREAD_POOL_GLOBAL} = global ptr null, align 8
@{THREAD_COUNT_GLOBAL} = global ptr null, align 8

; the threads this run's parallel loops get: the runtime's answer, else the thread count
; where there is a pool, else 1
define i64 @{THREAD_COUNT}() {{
entry:
  %ask = load ptr, ptr @{THREAD_COUNT_GLOBAL}, align 8
  %asks = icmp ne ptr %ask, null
  br i1 %asks, label %runtime, label %own
runtime:
  %told = call i32 %ask()
  %told64 = sext i32 %told to i64
  ret i64 %told64
own:
  %pool = load ptr, ptr @{THREAD_POOL_GLOBAL}, align 8
  %has_pool = icmp ne ptr %pool, null
  %want = load i32, ptr @{NUM_THREADS_GLOBAL}, align 4
  %want64 = sext i32 %want to i64
  %count = select i1 %has_pool, i64 %want64, i64 1
  %positive = icmp sgt i64 %count, 1
  %threads = select i1 %positive, i64 %count, i64 1
  ret i64 %threads
}}

define void @{PARALLEL_FOR}(ptr %body, ptr %ctx, i64 %trip) {{
entry:
  ; min(threads, trip): never more threads than iterations
  %want = load i32, ptr @{NUM_THREADS_GLOBAL}, align 4
  %want64 = sext i32 %want to i64
  %fewer = icmp slt i64 %trip, %want64
  %n64 = select i1 %fewer, i64 %trip, i64 %want64
  %n = trunc i64 %n64 to i32
  %pool = load ptr, ptr @{THREAD_POOL_GLOBAL}, align 8
  %several = icmp sgt i32 %n, 1
  %has_pool = icmp ne ptr %pool, null
  %fork = and i1 %several, %has_pool
  br i1 %fork, label %team, label %serial
serial:
  call void %body(ptr %ctx, i64 0, i64 %trip)
  ret void
team:
  ; iterations per chunk: ceil(trip / (CHUNKS_PER_THREAD * threads))
  %chunks = mul nsw i64 %n64, {CHUNKS_PER_THREAD}
  %up = add nsw i64 %trip, %chunks
  %up1 = sub nsw i64 %up, 1
  %grain = sdiv i64 %up1, %chunks
  call void %pool(ptr %body, ptr %ctx, i64 %trip, i32 %n, i64 %grain)
  ret void
}}
"""


def support_ir() -> str:
    """LLVM IR defining `__minitvm_parallel_for`, `__minitvm_threads` and the globals the
    runtime sets."""
    return _SUPPORT
