"""Compile time, cold and warm (issue "Deployment", part 5: the kernel cache).

For each case of `minitvm bench` asked for (default: resnet50, the light ResNet-50 with
random weights), or ONNX file (`light_resnet50.onnx` of the onnx wheel: weights made by
ConstantOfShape), and each
process count (`--jobs`, MINITVM_COMPILE_JOBS): `--repeat` rounds of a cold compile (a fresh
process and an empty kernel cache) then a warm one (a fresh process, the cache the cold one
filled), each timed around `minitvm.compile` alone (the model is built and minitvm imported
first). With `--no-cache`, the cold compile again with the cache off (what a compile costs
without one). Prints the medians, the kernels compiled and found, and the compile report's
stages of the last warm and cold runs. A measurement, not a test: nothing fails.

    python bench/compile_time.py [--jobs 1,2] [--repeat 3] [case ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from minitvm.bench.options import thread_counts
from minitvm.bench.suite import find_case
from minitvm.machine import cpu_model

DEFAULT_CASES = ("resnet50",)

#: Run in a fresh process: build the case, compile it, print the report as JSON.
_CHILD = """
import json, sys, time
import minitvm
from minitvm.bench.suite import find_case
import minitvm.compiler
import onnx
name = sys.argv[1]
model = onnx.load(name) if name.endswith(".onnx") else find_case(name).build()
start = time.perf_counter()
exe = minitvm.compile(model)
seconds = time.perf_counter() - start
report = exe.stats["report"]
print(json.dumps({"seconds": seconds, "stages": report.seconds, "counts": report.op_counts}))
"""


def compile_once(case: str, cache: str, jobs: int, cache_on: bool = True) -> dict:
    env = {**os.environ, "MINITVM_CACHE_DIR": cache, "MINITVM_COMPILE_JOBS": str(jobs)}
    if not cache_on:
        env["MINITVM_CACHE"] = "off"
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, case], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"compiling {case} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", default=list(DEFAULT_CASES))
    parser.add_argument(
        "--jobs", type=thread_counts, default=None, help="e.g. 1,2 (default: all cores)"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--no-cache", action="store_true", help="also time a compile without the cache"
    )
    args = parser.parse_args()
    jobs_list = args.jobs or [len(os.sched_getaffinity(0))]
    print(f"CPU: {cpu_model()}, {len(os.sched_getaffinity(0))} cores")
    print(
        f"{'case':<14}{'jobs':>5}{'cold s':>9}{'warm s':>9}{'no cache s':>12}{'kernels':>9}{'cached':>8}"
    )
    for case in args.cases:
        if not case.endswith(".onnx"):
            find_case(case)  # an unknown case fails here, before any process starts
        for jobs in jobs_list:
            cold, warm, bare = [], [], []
            for _ in range(args.repeat):
                with tempfile.TemporaryDirectory(prefix="minitvm-compile-time-") as cache:
                    first = compile_once(case, cache, jobs)
                    second = compile_once(case, cache, jobs)
                    cold.append(first["seconds"])
                    warm.append(second["seconds"])
                    if args.no_cache:
                        bare.append(compile_once(case, cache, jobs, cache_on=False)["seconds"])
            counts = second["counts"]
            no_cache = f"{statistics.median(bare):>12.2f}" if bare else f"{'-':>12}"
            print(
                f"{Path(case).stem[:13]:<14}{jobs:>5}{statistics.median(cold):>9.2f}{statistics.median(warm):>9.2f}"
                f"{no_cache}{counts['kernels']:>9}{counts['kernels from cache']:>8}",
                flush=True,
            )
            for label, run in (("cold", first), ("warm", second)):
                stages = ", ".join(f"{k} {v:.2f}" for k, v in run["stages"].items())
                print(f"    {label}: {stages}")


if __name__ == "__main__":
    main()
