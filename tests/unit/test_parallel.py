"""Parallel loops: outlined chunk functions give the same results on any thread count, for
trip counts the thread count does not divide, stepped loops, captured indices/scalars/vectors
and per-thread scratch buffers; the runtime's thread pool runs every chunk once, on several
threads, from several callers at once and in a forked child; and the default schedule marks
the loops that have the work for it."""

from __future__ import annotations

import ctypes
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.compiler import lower_to_te
from minitvm.dialects import loop
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx
from minitvm.ir import make_context, parse_module
from minitvm.lowering.jit import compile_llvm
from minitvm.lowering.loop_to_llvm import lower_to_llvm
from minitvm.lowering.te_to_loop import ConvertTeToLoopPass
from minitvm.runtime import Executable, TensorSpec, thread_pool
from minitvm.runtime.abi import CHUNK, ENTRY, NUM_THREADS_GLOBAL, THREAD_POOL_GLOBAL
from minitvm.schedules.base import VECTOR_REGISTERS

KERNELS = """
// Rows of a 7x33 matrix (7: no thread count divides it), with a constant and a scalar
// computed outside the parallel loop.
func.func @rows(%a: memref<7x33xf32>, %out: memref<7x33xf32>) {
  %two = arith.constant 2.0 : f32
  %c0 = arith.constant 0 : index
  %first = loop.load %a[%c0, %c0] : memref<7x33xf32> -> f32
  loop.for %i = 0 to 7 step 1 {
    loop.for %j = 0 to 33 step 1 {
      %x = loop.load %a[%i, %j] : memref<7x33xf32> -> f32
      %y = arith.mulf %x, %two : f32
      %z = arith.addf %y, %first : f32
      loop.store %z, %out[%i, %j] : f32, memref<7x33xf32>
    }
  } {parallel}
  func.return
}

// out[i] = i for i = 1, 4, ..., 19 (a stepped loop of 7 iterations), 0 elsewhere.
func.func @stepped(%out: memref<20xf32>) {
  %zero = arith.constant 0.0 : f32
  loop.for %i = 0 to 20 step 1 {
    loop.store %zero, %out[%i] : f32, memref<20xf32>
  }
  loop.for %i = 1 to 20 step 3 {
    %n = arith.index_cast %i : index to i64
    %f = arith.sitofp %n : i64 to f32
    loop.store %f, %out[%i] : f32, memref<20xf32>
  } {parallel}
  func.return
}

// A parallel loop inside a serial one (capturing its index) and one inside a parallel one
// (which runs serially on its thread).
func.func @nested(%a: memref<7x33xf32>, %out: memref<3x5x4xf32>) {
  loop.for %k = 0 to 3 step 1 {
    loop.for %i = 0 to 5 step 1 {
      loop.for %j = 0 to 4 step 1 {
        %x = loop.load %a[%i, %j] : memref<7x33xf32> -> f32
        %kk = arith.index_cast %k : index to i64
        %kf = arith.sitofp %kk : i64 to f32
        %s = arith.addf %x, %kf : f32
        loop.store %s, %out[%k, %i, %j] : f32, memref<3x5x4xf32>
      } {parallel}
    } {parallel}
  }
  func.return
}

// A vector made outside the parallel loop, stored by every iteration.
func.func @splat(%a: memref<7x33xf32>, %out: memref<5x16xf32>) {
  %c1 = arith.constant 1 : index
  %x = loop.load %a[%c1, %c1] : memref<7x33xf32> -> f32
  %v = loop.broadcast %x : f32 -> vector<16xf32>
  loop.for %i = 0 to 5 step 1 {
    %c0 = arith.constant 0 : index
    loop.vstore %v, %out[%i, %c0] : vector<16xf32>, memref<5x16xf32>
  } {parallel}
  func.return
}

// A scratch buffer allocated inside the parallel loop: one per thread.
func.func @scratch(%a: memref<7x33xf32>, %out: memref<7xf32>) {
  loop.for %i = 0 to 7 step 1 {
    %t = loop.alloc : memref<33xf32>
    loop.for %j = 0 to 33 step 1 {
      %x = loop.load %a[%i, %j] : memref<7x33xf32> -> f32
      %y = arith.mulf %x, %x : f32
      loop.store %y, %t[%j] : f32, memref<33xf32>
    }
    %zero = arith.constant 0.0 : f32
    %sum = loop.for %j = 0 to 33 step 1 iter_args(%acc = %zero) -> (f32) {
      %y = loop.load %t[%j] : memref<33xf32> -> f32
      %s = arith.addf %acc, %y : f32
      loop.yield %s : f32
    }
    %c0 = arith.constant 0 : index
    loop.store %sum, %out[%i] : f32, memref<7xf32>
  } {parallel}
  func.return
}

func.func @main(%a: memref<7x33xf32>, %o1: memref<7x33xf32>, %o2: memref<20xf32>,
                %o3: memref<3x5x4xf32>, %o4: memref<5x16xf32>, %o5: memref<7xf32>) {
  func.call @rows(%a, %o1) : (memref<7x33xf32>, memref<7x33xf32>) -> ()
  func.call @stepped(%o2) : (memref<20xf32>) -> ()
  func.call @nested(%a, %o3) : (memref<7x33xf32>, memref<3x5x4xf32>) -> ()
  func.call @splat(%a, %o4) : (memref<7x33xf32>, memref<5x16xf32>) -> ()
  func.call @scratch(%a, %o5) : (memref<7x33xf32>, memref<7xf32>) -> ()
  func.return
}
"""

OUTPUT_SHAPES = [(7, 33), (20,), (3, 5, 4), (5, 16), (7,)]


def expected(a: np.ndarray) -> list[np.ndarray]:
    stepped = np.zeros(20, np.float32)
    stepped[1::3] = np.arange(1, 20, 3)
    nested = np.stack([a[:5, :4] + k for k in range(3)])
    return [a * 2 + a[0, 0], stepped, nested, np.full((5, 16), a[1, 1]), (a * a).sum(axis=1)]


def executable(text: str, shapes: list[tuple[int, ...]], threads: int) -> Executable:
    """Hand-written loop IR -> Executable, wired as compiler.build does it."""
    module, info = lower_to_llvm(parse_module(text))
    jit = compile_llvm(module)
    assert jit.parallel_loops
    f32 = np.dtype(np.float32)
    specs = [TensorSpec(f"t{n}", s, f32) for n, s in enumerate(shapes)]
    return Executable(
        jit.address(ENTRY),
        jit,
        specs[:1],
        specs[1:],
        info.constant_arrays(),
        info.arena_size,
        num_threads=threads,
        threads_address=jit.global_address(NUM_THREADS_GLOBAL),
        pool_address=jit.global_address(THREAD_POOL_GLOBAL),
    )


def test_loops_give_the_same_results_on_any_thread_count() -> None:
    exe = executable(KERNELS, [(7, 33), *OUTPUT_SHAPES], threads=1)
    a = np.random.default_rng(0).standard_normal((7, 33)).astype(np.float32)
    runs = {}
    for threads in (1, 2, 3, 8, 1):
        exe.num_threads = threads
        runs[threads] = exe.run({"t0": a})
        for got, want in zip(runs[threads], expected(a), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    for threads in (2, 3, 8):
        for got, want in zip(runs[threads], runs[1], strict=True):
            np.testing.assert_array_equal(got, want)


def test_outlined_bodies_align_their_frames_to_a_cache_line() -> None:
    """Pool threads enter a chunk with whatever 16-byte-aligned stack pointer they have; a
    body that spills vector registers must not spill them across two cache lines (a conv
    ran 2x slower on a pool thread than on the caller's), so each frame is realigned."""
    module, _ = lower_to_llvm(parse_module(KERNELS))
    assembly = compile_llvm(module).assembly()
    bodies = re.findall(r"^(\w+__par\d+):\n(.*?)\.Lfunc_end", assembly, re.M | re.S)
    assert len(bodies) == 5
    for name, code in bodies:
        assert re.search(r"andq\s+\$-64, %rsp", code), name


def test_many_runs_in_a_row_give_the_same_results() -> None:
    """Thousands of parallel loops back to back, with pool threads spinning, sleeping and
    waking in between: a chunk run twice, skipped, or run after its loop ended shows here."""
    exe = executable(KERNELS, [(7, 33), *OUTPUT_SHAPES], threads=2)
    a = np.random.default_rng(3).standard_normal((7, 33)).astype(np.float32)
    want = exe.run({"t0": a})
    for n in range(600):
        exe.num_threads = 2 + n % 2
        if n % 100 == 0:
            time.sleep(0.002)  # longer than the pool threads spin: they sleep, then wake
        for got, w in zip(exe.run({"t0": a}), want, strict=True):
            np.testing.assert_array_equal(got, w)


def test_several_callers_at_once_give_the_same_results() -> None:
    """Executables run from several Python threads share the pool: one caller at a time uses
    it, the others run their loops on their own threads."""
    exes = [executable(KERNELS, [(7, 33), *OUTPUT_SHAPES], threads=2) for _ in range(3)]
    a = np.random.default_rng(4).standard_normal((7, 33)).astype(np.float32)
    want = exes[0].run({"t0": a})

    def runs(exe: Executable) -> bool:
        return all(
            all(np.array_equal(g, w) for g, w in zip(exe.run({"t0": a}), want, strict=True))
            for _ in range(200)
        )

    with ThreadPoolExecutor(len(exes)) as callers:
        assert all(callers.map(runs, exes))


def chunk_address(body: ctypes._CFuncPtr) -> int:
    return ctypes.cast(body, ctypes.c_void_p).value


def test_chunks_cover_every_iteration_once() -> None:
    seen = np.zeros(10, np.int64)
    calls = []

    @CHUNK
    def body(ctx: int | None, lo: int, hi: int) -> None:
        calls.append((lo, hi))
        seen[lo:hi] += 1

    thread_pool.parallel_for(chunk_address(body), 0, 10, 3, 2)
    assert seen.tolist() == [1] * 10
    assert sorted(calls) == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]


def test_degenerate_ranges_and_grains_run_every_iteration_once() -> None:
    """What generated code never asks for but the C entry point accepts: no iterations, a
    grain below one (one iteration per chunk), more chunks than the region word can count
    (the caller runs them serially, in one call)."""
    calls: list[tuple[int, int]] = []

    @CHUNK
    def body(ctx: int | None, lo: int, hi: int) -> None:
        calls.append((lo, hi))

    thread_pool.parallel_for(chunk_address(body), 0, 0, 2, 1)
    assert sum(hi - lo for lo, hi in calls) == 0
    calls.clear()
    thread_pool.parallel_for(chunk_address(body), 0, 5, 2, 0)
    assert sorted(calls) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    calls.clear()
    thread_pool.parallel_for(chunk_address(body), 0, 2**33, 2, 1)
    assert calls == [(0, 2**33)]


def test_pool_threads_take_chunks_alongside_the_caller() -> None:
    """The first chunk waits until a chunk runs on another thread than its own: a pool that
    left every chunk to the caller would fail here (after 20 s), not hang."""
    started: list[int] = []
    other_thread = threading.Event()

    @CHUNK
    def body(ctx: int | None, lo: int, hi: int) -> None:
        started.append(threading.get_ident())
        if len(set(started)) > 1:
            other_thread.set()
        if lo == 0:
            other_thread.wait(timeout=20)

    thread_pool.parallel_for(chunk_address(body), 0, 8, 2, 1)
    assert len(started) == 8 and len(set(started)) == 2


def test_a_loop_inside_a_chunk_runs_on_its_callers_thread() -> None:
    """The pool serves one loop at a time: a parallel loop started inside a chunk (nested)
    runs serially there instead of waiting for the pool it is part of."""
    inner_calls = []

    @CHUNK
    def inner(ctx: int | None, lo: int, hi: int) -> None:
        inner_calls.append((threading.get_ident(), lo, hi))

    @CHUNK
    def outer(ctx: int | None, lo: int, hi: int) -> None:
        thread_pool.parallel_for(chunk_address(inner), 0, 5, 2, 1)
        inner_calls.append((threading.get_ident(), "outer", lo))

    thread_pool.parallel_for(chunk_address(outer), 0, 2, 2, 1)
    by_thread: dict[int, list] = {}
    for ident, *call in inner_calls:
        by_thread.setdefault(ident, []).append(tuple(call))
    assert sorted(c for calls in by_thread.values() for c in calls if c[0] == "outer") == [
        ("outer", 0),
        ("outer", 1),
    ]
    for calls in by_thread.values():  # each outer chunk's inner loop: whole, on its thread
        ranges = [c for c in calls if c[0] != "outer"]
        assert ranges == [(0, 5)] * (len(calls) - len(ranges))


def test_num_threads_must_be_positive() -> None:
    exe = executable(KERNELS, [(7, 33), *OUTPUT_SHAPES], threads=1)
    exe.num_threads = 0
    with pytest.raises(MinitvmError, match="num_threads"):
        exe.run({"t0": np.ones((7, 33), np.float32)})


# ------------------------------------------------------------------------------ from ONNX


def matmul_relu(m: int, k: int, n: int) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((k, n)).astype(np.float32), "w")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"]), helper.make_node("Relu", ["mm"], ["y"])]
    graph = helper.make_graph(
        nodes,
        "matmul_relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
        [w],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_default_schedule_marks_the_outer_spatial_loop_of_big_computes() -> None:
    module = from_onnx(matmul_relu(37, 29, 41))
    lower_to_te(module)
    ConvertTeToLoopPass().apply(make_context(), module)
    marked = [
        op
        for op in module.walk()
        if isinstance(op, loop.ForOp) and loop.PARALLEL_HINT in op.attributes
    ]
    # MatMul (37*29*41 multiply-adds) and Relu (37*41 elements, 3 ops each: under the bar).
    # The MatMul's 41 columns (packed in 3 panels, kept to 41) run as one whole block of 32
    # and a shorter one: too few for the threads, so in each the row blocks take them (2
    # whole blocks of 13 rows, then the tile of the 11 rows left, marked too). With AVX2's
    # 16 registers, blocks of 16 columns: two whole ones take the threads.
    assert [op.trip_count for op in marked] == ([2, 1, 2, 1] if VECTOR_REGISTERS >= 32 else [2, 1])
    for op in marked:
        assert not op.inits  # never a reduction loop

    small = from_onnx(matmul_relu(3, 4, 5))
    lower_to_te(small)
    ConvertTeToLoopPass().apply(make_context(), small)
    assert not any(
        loop.PARALLEL_HINT in op.attributes for op in small.walk() if isinstance(op, loop.ForOp)
    )


def test_compiled_model_is_thread_count_invariant() -> None:
    model = matmul_relu(37, 29, 41)
    exe = minitvm.compile(model, num_threads=2)
    assert exe.num_threads == 2 and exe.stats["parallel_loops"]
    x = np.random.default_rng(1).standard_normal((37, 29)).astype(np.float32)
    w = numpy_helper.to_array(model.graph.initializer[0])
    results = []
    for threads in (1, 2, 3):
        exe.num_threads = threads
        results.append(exe.run({"x": x})[0])
    np.testing.assert_allclose(results[0], np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)
    for other in results[1:]:
        np.testing.assert_array_equal(other, results[0])


def test_default_thread_count_is_every_usable_core() -> None:
    exe = minitvm.compile(matmul_relu(3, 4, 5))
    assert exe.num_threads >= 1
    assert not exe.stats["parallel_loops"]  # nothing was worth parallelizing


def test_a_forked_child_runs_parallel_code() -> None:
    """The pool's threads do not survive fork(): a child of a process that ran them must
    start its own and finish instead of waiting for them forever."""
    import os
    import signal

    exe = executable(KERNELS, [(7, 33), *OUTPUT_SHAPES], threads=2)
    a = np.random.default_rng(2).standard_normal((7, 33)).astype(np.float32)
    want = exe.run({"t0": a})
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if the results match
        status = 1
        try:
            signal.alarm(60)
            got = exe.run({"t0": a})
            status = 0 if all(np.array_equal(g, w) for g, w in zip(got, want)) else 2
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_pool_spin_time_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(thread_pool.SPIN_ENV, raising=False)
    assert thread_pool._spin_ns() == thread_pool.DEFAULT_SPIN_NS
    monkeypatch.setenv(thread_pool.SPIN_ENV, "50")
    assert thread_pool._spin_ns() == 50_000
    for bad in ("fast", "-1", "nan"):
        monkeypatch.setenv(thread_pool.SPIN_ENV, bad)
        with pytest.raises(MinitvmError, match=f"{thread_pool.SPIN_ENV} must be a number"):
            thread_pool._spin_ns()
