"""Multi-core speed-up and planned arena size: 1 thread vs N on the same compiled code.

    python bench/parallel.py [case ...] [--threads N] [--runs R] [--reps K]

Cases: `elementwise` (y = tanh(x) * x + x on 2048x2048), `matmul` (512x512 @ 512x512),
and any light model of the onnx wheel by name (`resnet50`, `densenet121`, ...; random
weights). Each case is compiled once; `exe.num_threads` then switches between 1 and N
threads, alternating every round (R rounds, each the median of K runs) so that both see the
same machine load. Prints medians, every round's median, the ratio, the parallel backend,
and the arena with and without memory planning.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import minitvm  # noqa: E402
from minitvm.compiler import random_inputs  # noqa: E402
from minitvm.runtime.timing import timed_runs  # noqa: E402
from models import LIGHT_MODELS, light_model_path, with_random_weights  # noqa: E402


def elementwise(n: int = 2048) -> onnx.ModelProto:
    nodes = [
        helper.make_node("Tanh", ["x"], ["t"]),
        helper.make_node("Mul", ["t", "x"], ["m"]),
        helper.make_node("Add", ["m", "x"], ["y"]),
    ]
    return _model(nodes, [n, n], [n, n], [])


def matmul(n: int = 512) -> onnx.ModelProto:
    w = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    return _model(nodes, [n, n], [n, n], [numpy_helper.from_array(w, "w")])


def _model(nodes, in_shape, out_shape, initializers) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "bench",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def model_of(case: str) -> onnx.ModelProto:
    if case == "elementwise":
        return elementwise()
    if case == "matmul":
        return matmul()
    if case in LIGHT_MODELS:
        return with_random_weights(onnx.load(light_model_path(case)), seed=0)
    raise SystemExit(f"unknown case '{case}': elementwise, matmul or one of {', '.join(LIGHT_MODELS)}")


def median_run(exe, feeds, reps: int) -> float:
    _, seconds = timed_runs({"run": lambda: exe.run(feeds)}, 0, reps)
    return statistics.median(seconds["run"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["elementwise", "matmul", "resnet50"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=7, help="rounds (each 1 then N threads)")
    parser.add_argument("--reps", type=int, default=10, help="runs per round")
    args = parser.parse_args()
    for case in args.cases:
        exe = minitvm.compile(model_of(case), num_threads=args.threads)
        feeds = random_inputs(exe, seed=1)
        exe.num_threads = 1
        serial = exe.run(feeds)
        exe.num_threads = args.threads
        same = all(np.array_equal(a, b) for a, b in zip(serial, exe.run(feeds)))
        times: dict[int, list[float]] = {1: [], args.threads: []}
        for _ in range(args.runs):
            for threads in times:
                exe.num_threads = threads
                times[threads].append(median_run(exe, feeds, args.reps))
        one, many = (statistics.median(samples) for samples in times.values())
        rounds = "  ".join(f"{a * 1e3:.2f}/{b * 1e3:.2f}" for a, b in zip(*times.values()))
        stats = exe.stats
        print(
            f"{case}: 1 thread {one * 1e3:.2f} ms, {args.threads} threads {many * 1e3:.2f} ms, "
            f"speed-up {one / many:.2f}x (results identical: {same})"
        )
        print(f"  rounds (ms, 1/{args.threads} threads): {rounds}")
        print(
            f"  arena {stats['arena_bytes'] / 2**20:.2f} MiB planned, "
            f"{stats['arena_bytes_unplanned'] / 2**20:.2f} MiB without reuse"
        )


if __name__ == "__main__":
    main()
