"""fp32 GEMM on one thread: minitvm's default schedule vs register-blocked schedules vs numpy.

C = A @ B for square n x n matrices (n = 512 and 1024 by default). The schedules:

- default: te_to_loop's i-k-j order, left to LLVM's auto-vectorizer;
- blocked 4x64: split i by 4 and j by 64 (= 4 x 16 via a second split), order
  (i.o, j.o, k, i.i, j.i.o, j.i.i), unroll i.i and j.i.o, vectorize j.i.i: a 4 x 64 block of
  C in 16 <16 x float> accumulators, one broadcast of A and one vector of B per 4 FMAs
  (loop-unroll + loop-vectorize make it; LLVM's LICM keeps the accumulators in registers);
- blocked 4x64 k256: the same block, B's rows taken 256 at a time (k split by 256, order
  (j.o, k.o, i.o, k.i, ...)) so that the 256 x 64 slice of B stays in L2 while every block
  row of A streams past it;
- numpy: np.matmul (OpenBLAS on one thread when run as below).

Every variant is checked against a float64 product before timing; then each round times one
call of every variant in turn (interleaved, so machine noise hits all alike), and the table
gives GFLOP/s of the median round (2 n^3 flops per call) and of the best. It is a
measurement, not a test. Run it as

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        python bench/gemm.py [--sizes 512 1024] [--rounds 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, TensorType, f32
from xdsl.ir import Block, Region

from minitvm.compiler import build, lower_to_te
from minitvm.dialects import graph, te
from minitvm.runtime import Executable, TensorSpec
from minitvm.runtime.timing import timed_runs


def blocked(k_block: int | None = None) -> list:
    """The 4 x 64 register block; with `k_block`, k split so B's slice stays in cache."""
    schedule = [te.split("i0", 4), te.split("i1", 64), te.split("i1.i", 16)]
    inner = ["i0.i", "i1.i.o", "i1.i.i"]
    if k_block is None:
        schedule.append(te.reorder("i0.o", "i1.o", "r0", *inner))
    else:
        schedule.append(te.split("r0", k_block))
        schedule.append(te.reorder("i1.o", "r0.o", "i0.o", "r0.i", *inner))
    return [*schedule, te.unroll("i0.i"), te.unroll("i1.i.o"), te.vectorize("i1.i.i")]


SCHEDULES: dict[str, list | None] = {
    "default": None,
    "blocked 4x64": blocked(),
    "blocked 4x64 k256": blocked(256),
}


def gemm_executable(n: int, schedule: list | None) -> Executable:
    block = Block(arg_types=[TensorType(f32, [n, n])] * 2)
    product = graph.MatMulOp.make(block.args[0], block.args[1])
    block.add_ops([product, func.ReturnOp(product.results[0])])
    fn = func.FuncOp("main", (block.arg_types, [product.results[0].type]), Region(block))
    module = ModuleOp([fn])
    lower_to_te(module)
    if schedule is not None:
        (compute,) = [op for op in module.walk() if isinstance(op, te.ComputeOp)]
        compute.attributes[te.SCHEDULE_ATTR] = ArrayAttr(schedule)
    spec = TensorSpec("", (n, n), np.dtype(np.float32))
    inputs = [TensorSpec("a", spec.shape, spec.dtype), TensorSpec("b", spec.shape, spec.dtype)]
    return build(module, inputs, [TensorSpec("c", spec.shape, spec.dtype)], num_threads=1)


def blas_info() -> str:
    try:
        from threadpoolctl import threadpool_info  # type: ignore[import-not-found]
    except ImportError:
        config = np.show_config(mode="dicts")  # type: ignore[call-arg]
        blas = config["Build Dependencies"]["blas"]  # type: ignore[index]
        return f"{blas['name']} {blas['version']} ({blas.get('openblas configuration', '')})"
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    return "; ".join(
        f"{p['internal_api']} {p['version']} {p.get('architecture', '')}, "
        f"{p['num_threads']} thread(s)"
        for p in pools
    )


def bench(n: int, rounds: int) -> None:
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    reference = a.astype(np.float64) @ b.astype(np.float64)
    out = np.empty((n, n), np.float32)
    runs: dict[str, Callable[[], object]] = {}
    for name, schedule in SCHEDULES.items():
        start = time.perf_counter()
        exe = gemm_executable(n, schedule)
        compile_s = time.perf_counter() - start
        feeds = {"a": a, "b": b}
        result = exe.run(feeds)[0]
        error = float(np.abs(result - reference).max())
        assert error < 1e-3 * np.sqrt(n), f"{name}: max abs error {error}"
        print(f"  {name}: compiled in {compile_s:.2f} s, max abs error {error:.2e}")
        runs[name] = lambda exe=exe, feeds=feeds: exe.run(feeds)
    assert np.abs(np.matmul(a, b, out=out) - reference).max() < 1e-3 * np.sqrt(n)
    runs["numpy"] = lambda: np.matmul(a, b, out=out)

    # One warm-up run each (caches, page faults, lazy symbol binding), then interleaved rounds.
    _, seconds = timed_runs(runs, 1, rounds)
    flops = 2.0 * n**3
    numpy_median = statistics.median(seconds["numpy"])
    print(f"  {'variant':<20} {'median GFLOP/s':>15} {'best GFLOP/s':>13} {'vs numpy':>9}")
    for name, times in seconds.items():
        median = statistics.median(times)
        print(
            f"  {name:<20} {flops / median / 1e9:>15.1f} {flops / min(times) / 1e9:>13.1f} "
            f"{numpy_median / median:>8.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[512, 1024])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    print(f"BLAS: {blas_info()}")
    env = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
    print("env: " + ", ".join(f"{k}={os.environ.get(k, '(unset)')}" for k in env))
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for n in args.sizes:
        print(f"GEMM {n}x{n}x{n} fp32, one thread, {args.rounds} interleaved rounds:")
        bench(n, args.rounds)


if __name__ == "__main__":
    main()
