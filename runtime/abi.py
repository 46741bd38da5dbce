"""The ABI between generated code and the runtime: names, C signatures, alignment.

convert-loop-to-llvm and the JIT (lowering/) produce code to these terms; the Executable
and the thread pool (runtime/) call it and set it up by them. This module is the one place
they are written down; it imports nothing but ctypes (no xDSL, no llvmlite, nothing of
the compiler), and the runtime and the lowering both import it.

A compiled model is called through one entry function,

    void main(void **io, void **consts, char *arena);

(with a fourth argument, `const int64_t *sizes`, for a model compiled with sizes known only
at run time: the values of its symbols, `batch`, `seq`, ...)

`io` points at the input buffers, then the output buffers, in the graph's order; `consts`
at the weights, one per `loop.constant` of @main in order of appearance; `arena` at the
intermediates, each at an offset fixed at compile time (`CompiledModuleInfo` in
lowering/loop_to_llvm/convert_loop_to_llvm.py says which constant goes where and how big the
arena is). Every buffer the runtime allocates, and the arena and its offsets, are aligned
to `ALIGNMENT`.

Code with parallel loops also defines two globals the runtime sets before it runs the
entry: the thread count (`NUM_THREADS_GLOBAL`, an `int32_t`, initially 1) and the thread
pool (`THREAD_POOL_GLOBAL`, a `THREAD_POOL` function pointer, initially null: loops run
serially). Generated code calls `PARALLEL_FOR(body, ctx, trip)`, linked in by the JIT
(lowering/loop_to_llvm/parallel.py), which hands the loop to the pool; the pool runs
`body(ctx, lo, hi)`, a `CHUNK`, over chunks of [0, trip). Code that picks between two
ways to share a loop among the threads by their number asks `THREAD_COUNT()` (also linked
in): an exported library's runtime answers it through `THREAD_COUNT_GLOBAL` (its pools differ
per model), the JIT's from `NUM_THREADS_GLOBAL`.
"""

from __future__ import annotations

import ctypes

#: The name of the entry function (the model's @main keeps its name down to LLVM).
ENTRY = "main"
#: `void main(void **io, void **consts, char *arena)`: the entry function's C type.
ENTRY_SIGNATURE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
#: `void main(void **io, void **consts, char *arena, const int64_t *sizes)`: the entry of a
#: model compiled with symbolic sizes; `sizes` holds the symbols' values in the order the
#: compiler lists them (`CompiledModuleInfo.symbols`).
ENTRY_SIZES_SIGNATURE = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
)

#: Alignment in bytes of the buffers the runtime allocates (constants, outputs, the arena),
#: of the arena offsets the compiler assigns and of the scratch buffers generated code
#: allocates: a cache line, so that no 64-byte vector load or store straddles two lines.
#: numpy's own large arrays start 16 bytes into a page: with its weights 16 bytes off, a
#: BERT encoder layer ran 5% slower (20.75 vs 19.71 ms, one thread), the MLP 2%.
ALIGNMENT = 64

#: An output dimension that uses a size the code finds as it runs, in an exported library's
#: tables and `minitvm_output_info` (-1 is one the inputs' shapes give): known only after a
#: run, so such an output comes from `minitvm_run_alloc` (C API version 2).
FOUND_DIM = -2

#: `int32_t`: how many threads parallel loops use; the Executable sets it at each run.
NUM_THREADS_GLOBAL = "__minitvm_num_threads"
#: The C type of `NUM_THREADS_GLOBAL`.
NUM_THREADS_TYPE = ctypes.c_int32
#: `THREAD_POOL` pointer: the runtime's thread pool; the Executable sets it once.
THREAD_POOL_GLOBAL = "__minitvm_thread_pool"
#: `void pool(void *body, void *ctx, int64_t trip, int32_t threads, int64_t grain)`: run
#: `body` over [0, trip) in chunks of `grain` iterations on `threads` threads.
THREAD_POOL = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32, ctypes.c_int64
)
#: `void body(void *ctx, int64_t lo, int64_t hi)`: an outlined parallel loop's iterations
#: [lo, hi), its captured values in `ctx`.
CHUNK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
#: `void __minitvm_parallel_for(void *body, void *ctx, int64_t trip)`: what generated code
#: calls for a parallel loop (`body` a `CHUNK`); the JIT links in its definition.
PARALLEL_FOR = "__minitvm_parallel_for"

#: `int64_t __minitvm_threads(void)`: the threads the calling run's parallel loops get (1
#: without a pool); what `loop.threads` calls. The JIT links in its definition.
THREAD_COUNT = "__minitvm_threads"
#: `int32_t (*)(void)`, initially null: where an exported library's runtime answers
#: `THREAD_COUNT` (its thread count is its pool's, one per model, and `NUM_THREADS_GLOBAL`
#: says "as many as the pool likes"); null: `NUM_THREADS_GLOBAL` is the count.
THREAD_COUNT_GLOBAL = "__minitvm_thread_count"

#: A compile instrumented for `minitvm profile` (lowering/kernel_clock.py) counts, per kernel
#: call site of @main, the time stamp counter's ticks spent in the kernel and its calls, in two
#: `uint64_t` arrays (one slot per site, in @main's order) the runtime reads and zeroes;
#: `uint64_t __minitvm_clock(void)` reads the counter, for the runtime to calibrate it.
KERNEL_TICKS_GLOBAL = "__minitvm_kernel_ticks"
KERNEL_CALLS_GLOBAL = "__minitvm_kernel_calls"
CLOCK_FUNCTION = "__minitvm_clock"
CLOCK = ctypes.CFUNCTYPE(ctypes.c_uint64)

#: The element types of the exported C API (deploy/c/minitvm.h), by numpy dtype name: ONNX's
#: TensorProto.DataType codes, so that a C caller can use ONNX's own table.
DTYPE_CODES = {
    "float32": 1,
    "uint8": 2,
    "int8": 3,
    "uint16": 4,
    "int16": 5,
    "int32": 6,
    "int64": 7,
    "bool": 9,
    "float16": 10,
    "float64": 11,
    "uint32": 12,
    "uint64": 13,
    "bfloat16": 16,
}
