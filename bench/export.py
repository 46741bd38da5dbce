"""Exported libraries against the JIT and ONNX Runtime: what `minitvm export` costs and how
fast its library runs (issue "Deployment").

For each case of `minitvm bench` asked for (default: mlp, resnet18, resnet50, bert): the
export's seconds and the library's size (weights embedded), `minitvm_create`'s seconds
(`minitvm.load`, cold: the first load of that file), and the median latency of the JIT
Executable, of the library through `minitvm.load` and of ONNX Runtime, interleaved run by
run on the same inputs (runtime/timing.py), plus that of the C example (examples/c/run_model,
its own process, `--repeat` runs after a warm-up) when `make` builds it, next to the JIT's
run back to back in this process as the C example runs (interleaved with ONNX Runtime, whose
weights evict minitvm's from the caches, the JIT is slower: ResNet-18 at one thread 31 ms
interleaved, 23 ms alone). Every library's outputs are checked against the JIT's. A
measurement, not a test: nothing fails.

    python bench/export.py [--threads 1] [--repeat 50] [--warmup 5] [case ...]
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import minitvm
from minitvm.bench.suite import compile_case, find_case
from minitvm.machine import cpu_model
from minitvm.runtime import random_arrays
from minitvm.runtime.ort import ort_session
from minitvm.runtime.timing import SETTLE_S, timed_runs

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "c"
DEFAULT_CASES = ("mlp", "resnet18", "resnet50", "bert")


def c_example(library: Path, build: Path) -> Path | None:
    """examples/c/run_model built against `library` in `build`, or None without make/cc."""
    if shutil.which("make") is None:
        return None
    done = subprocess.run(
        ["make", "-C", str(EXAMPLES), f"MODEL={library}", f"BUILD={build}", f"{build}/run_model"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    binary = build / "run_model"
    if done.returncode != 0 or not binary.exists():
        print(f"  (C example not built: {done.stderr.strip()[-300:]})", file=sys.stderr)
        return None
    return binary


def c_latency_ms(binary: Path, inputs: list[Path], threads: int, repeat: int) -> float:
    """The C example's median latency (it prints `median X ms`)."""
    done = subprocess.run(
        [str(binary), "--threads", str(threads), "--repeat", str(repeat), *map(str, inputs)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    match = re.search(r"median\s*[:=]?\s*([0-9.]+)\s*ms", done.stdout)
    if match is None:
        raise RuntimeError(f"run_model printed no median:\n{done.stdout}")
    return float(match[1])


def measure(name: str, threads: int, repeat: int, warmup: int, scratch: Path) -> list[str]:
    model = find_case(name).build()
    exe = compile_case(model, threads)
    library = scratch / f"{name}.so"
    start = time.perf_counter()
    exe.export(str(library))
    export_s = time.perf_counter() - start
    start = time.perf_counter()
    lib = minitvm.load(library, num_threads=threads)
    create_s = time.perf_counter() - start
    feeds = random_arrays(exe.inputs)
    for got, want in zip(lib.run(feeds), exe.run(feeds)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    session = ort_session(model, threads)
    runners = {"jit": lambda: exe.run(feeds), "load": lambda: lib.run(feeds), "ort": lambda: session(feeds)}
    _, seconds = timed_runs(runners, warmup, repeat, SETTLE_S if threads > 1 else 0.0)
    ms = {k: 1e3 * statistics.median(v) for k, v in seconds.items()}
    _, alone = timed_runs({"jit": lambda: exe.run(feeds)}, warmup, repeat)
    alone_ms = 1e3 * statistics.median(alone["jit"])
    c_ms = float("nan")
    binary = c_example(library, scratch / f"build-{name}")
    if binary is not None:
        paths = []
        for spec in exe.inputs:
            path = scratch / f"{name}-{len(paths)}.npy"
            np.save(path, feeds[spec.name])
            paths.append(path)
        c_latency_ms(binary, paths, threads, warmup)  # warm the page cache and the CPU
        c_ms = c_latency_ms(binary, paths, threads, repeat)
    return [
        name, f"{library.stat().st_size / 1e6:.1f}", f"{export_s:.2f}", f"{1e3 * create_s:.1f}",
        f"{ms['jit']:.3f}", f"{ms['load']:.3f} ({ms['load'] / ms['jit']:.3f}x)",
        f"{ms['ort']:.3f}", f"{alone_ms:.3f}", f"{c_ms:.3f} ({c_ms / alone_ms:.3f}x)",
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", default=list(DEFAULT_CASES))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args(argv)
    header = [
        "case", "MB", "export s", "create ms", "JIT ms", "load ms (/JIT)", "ORT ms",
        "JIT alone ms", "C ms (/alone)",
    ]  # fmt: skip
    rows = [header]
    with tempfile.TemporaryDirectory(prefix="minitvm-bench-export-") as scratch:
        for name in args.cases:
            print(f"{name} ...", file=sys.stderr, flush=True)
            rows.append(measure(name, args.threads, args.repeat, args.warmup, Path(scratch)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    print(f"CPU: {cpu_model()}; {args.threads} thread(s); median of {args.repeat} runs")
    for row in rows:
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
