"""Whole models end to end, side by side with ONNX Runtime: where compile time goes, and
how fast the result runs.

For ResNet-50 and DenseNet-121 (the onnx wheel's light models, with `with_random_weights`,
so the numbers flowing through are realistic), an MLP and a BERT-base encoder layer:

- compile seconds per stage (each the median of `--compiles` compiles) and the stage that
  dominates;
- op counts per IR level (graph, te, loop, llvm);
- latency: median of `--repeat` runs of minitvm and of ONNX Runtime, both on `--threads`
  threads (default 1), measured interleaved in one process after `--warmup` runs of each,
  on the same seeded inputs; and the max abs error between their outputs.

It prints one table, a column per model. It is a measurement, not a test: nothing fails.

    python bench/models_e2e.py [--compiles 3] [--repeat 10] [--warmup 2] [--threads 1] [models...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnx

import minitvm
from minitvm.compiler import CompileReport, random_inputs
from minitvm.runtime.ort import ort_session
from minitvm.runtime.timing import timed_runs

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from models import bert_encoder_layer, light_model_path, mlp, with_random_weights  # noqa: E402

MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "resnet50": lambda: with_random_weights(onnx.load(light_model_path("resnet50"))),
    "densenet121": lambda: with_random_weights(onnx.load(light_model_path("densenet121"))),
    "mlp": lambda: mlp(batch=8, sizes=(784, 512, 256, 10)),
    "bert_layer": lambda: bert_encoder_layer(seq=128, hidden=768, heads=12, ffn=3072),
}
DESCRIPTIONS = {
    "resnet50": "light_resnet50, random weights, 1x3x224x224",
    "densenet121": "light_densenet121, random weights, 1x3x224x224",
    "mlp": "MLP 784-512-256-10, batch 8",
    "bert_layer": "BERT-base encoder layer, seq 128, hidden 768, 12 heads, FFN 3072",
}


@dataclass
class Result:
    seconds: dict[str, float]  # stage -> median seconds
    total: float
    op_counts: dict[str, int]
    minitvm_ms: float
    ort_ms: float
    error: float


def measure(name: str, args: argparse.Namespace) -> Result:
    model = MODELS[name]()
    reports: list[CompileReport] = []
    exe = None
    for _ in range(args.compiles):
        exe = None  # free the previous compile's code and buffers first
        exe = minitvm.compile(model, num_threads=args.threads)
        reports.append(exe.stats["report"])  # type: ignore[arg-type]
    assert exe is not None
    stages = list(reports[-1].seconds)

    session = ort_session(model, args.threads)
    feeds = random_inputs(exe, seed=1)
    ours, theirs = exe.run(feeds), session(feeds)
    error = max(float(np.max(np.abs(a - b))) for a, b in zip(ours, theirs, strict=True))
    # interleaved: both see the same clock and neighbours
    runners = {"minitvm": lambda: exe.run(feeds), "ort": lambda: session(feeds)}
    _, times = timed_runs(runners, args.warmup, args.repeat)
    return Result(
        seconds={s: statistics.median(r.seconds.get(s, 0.0) for r in reports) for s in stages},
        total=statistics.median(r.total_seconds for r in reports),
        op_counts=dict(reports[-1].op_counts),
        minitvm_ms=1e3 * statistics.median(times["minitvm"]),
        ort_ms=1e3 * statistics.median(times["ort"]),
        error=error,
    )


def table(results: dict[str, Result], args: argparse.Namespace) -> str:
    """One column per model, one row per measurement."""
    runs = list(results.values())
    stages = list(dict.fromkeys(s for r in runs for s in r.seconds))
    levels = list(dict.fromkeys(level for r in runs for level in r.op_counts))
    rows = [(f"compile: {s} (s)", [f"{r.seconds.get(s, 0.0):.2f}" for r in runs]) for s in stages]
    rows.append(("compile: total (s)", [f"{r.total:.2f}" for r in runs]))
    dominant = [max(r.seconds.items(), key=lambda item: item[1]) for r in runs]
    rows.append(
        (
            "compile: dominant stage",
            [f"{s} {100 * t / r.total:.0f}%" for (s, t), r in zip(dominant, runs)],
        )
    )
    rows += [(f"ops: {lvl}", [str(r.op_counts.get(lvl, "")) for r in runs]) for lvl in levels]
    rows.append(("latency: minitvm (ms)", [f"{r.minitvm_ms:.3f}" for r in runs]))
    rows.append(("latency: onnxruntime (ms)", [f"{r.ort_ms:.3f}" for r in runs]))
    rows.append(("minitvm / onnxruntime", [f"{r.minitvm_ms / r.ort_ms:.2f}x" for r in runs]))
    rows.append(("max abs error vs onnxruntime", [f"{r.error:.2e}" for r in runs]))
    width = max(len(label) for label, _ in rows) + 2
    cols = [max(len(n), *(len(v[i]) for _, v in rows)) + 2 for i, n in enumerate(results)]
    lines = [
        (
            f"compile: median of {args.compiles}; latency: median of {args.repeat} interleaved "
            f"runs after {args.warmup} warm-up, {args.threads} thread(s) each"
        ),
        " " * width + "".join(n.rjust(c) for n, c in zip(results, cols)),
    ]
    for label, values in rows:
        lines.append(label.ljust(width) + "".join(v.rjust(c) for v, c in zip(values, cols)))
    lines += ["", *(f"{n}: {DESCRIPTIONS[n]}" for n in results)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help=f"any of {', '.join(MODELS)} (default: all)")
    parser.add_argument("--compiles", type=int, default=3, help="compiles per model (median)")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per model (median)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    unknown = sorted(set(args.models) - set(MODELS))
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(MODELS)}")
    results: dict[str, Result] = {}
    for name in args.models or list(MODELS):
        print(f"{name} ...", file=sys.stderr, flush=True)
        results[name] = measure(name, args)
    print(table(results, args))


if __name__ == "__main__":
    main()
