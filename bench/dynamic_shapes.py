"""One dynamic compile against a static compile per shape and ONNX Runtime (issue 19).

A BERT-base encoder layer with symbolic batch and sequence (`bert_encoder_layer(dynamic=
True)`), run at sequence lengths 1, 7, 64, 128 and 384 (batch 1), and the onnx wheel's light
ResNet-50 (random weights) with a symbolic batch, run at batch 1, 3 and 8. For each shape:
the dynamic Executable's median latency, a static compile's at that shape, ONNX Runtime's,
the three timed in interleaved rounds as `minitvm bench` times its cases (`sampled`: each
sample enough back-to-back calls to last the suite's MIN_SAMPLE_S, so a 1 ms model is not one call woken from a pause; on several threads each after a pause,
since each runtime's threads spin on after a run and would slow the next), and the ratios,
each the median of the ratios taken round by round (the samples of a round see the same
machine), with the middle half of dynamic/static's; under the table, issue 19's targets as
MET/MISSED (dynamic <= 1.10x static; <= 1.0x ORT where the static compile is); the compile
seconds of the dynamic model (once) and of each static one. The light ResNet-50 flattens with a Reshape to
a constant [1, 2048]; it is given [-1, 2048], as an export with a dynamic batch writes it.

    python bench/dynamic_shapes.py [--threads 1,2] [--repeat 20] [--warmup 3] [bert] [resnet50]
    minitvm bench --dynamic [--threads 1,2] [--repeat 15] [--warmup 2] [bert] [resnet50]

A measurement: only a dynamic result that differs from ONNX Runtime's (rtol 1e-3, atol 1e-3
of the largest output) makes it fail.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
import onnx
from onnx import numpy_helper

import minitvm
from minitvm.bench import models
from minitvm.bench.options import thread_counts
from minitvm.bench.suite import MIN_SAMPLE_S, BenchError, quartiles
from minitvm.errors import MinitvmError
from minitvm.machine import cpu_model
from minitvm.runtime.ort import ort_session
from minitvm.runtime.timing import SETTLE_S, sampled


def bert(shape: Sequence[int] | None) -> onnx.ModelProto:
    if shape is None:
        return models.bert_encoder_layer(seq=128, dynamic=True)
    return models.bert_encoder_layer(seq=shape[1], batch=shape[0])


def resnet50(shape: Sequence[int] | None) -> onnx.ModelProto:
    model = models.with_random_weights(onnx.load(models.light_model_path("resnet50")))
    name = model.graph.input[0].name
    if shape is None:
        model = models.with_dynamic_dims(model, {name: ["batch", None, None, None]})
        flat = [n for n in model.graph.node if n.op_type == "Reshape"][-1]
        target = next(t for t in model.graph.initializer if t.name == flat.input[1])
        target.CopyFrom(numpy_helper.from_array(np.array([-1, 2048], np.int64), target.name))
        return model
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = shape[0]
    flat = [n for n in model.graph.node if n.op_type == "Reshape"][-1]
    target = next(t for t in model.graph.initializer if t.name == flat.input[1])
    target.CopyFrom(numpy_helper.from_array(np.array([shape[0], 2048], np.int64), target.name))
    del model.graph.value_info[:]
    for output in model.graph.output:
        output.type.tensor_type.ClearField("shape")
    return model


CASES: dict[str, tuple[Callable[[Sequence[int] | None], onnx.ModelProto], list[tuple[int, ...]]]] = {
    "bert": (bert, [(1, 1, 768), (1, 7, 768), (1, 64, 768), (1, 128, 768), (1, 384, 768)]),
    "resnet50": (resnet50, [(1, 3, 224, 224), (3, 3, 224, 224), (8, 3, 224, 224)]),
}


RTOL = 1e-3
#: Issue 19's targets: dynamic/static at most this, and dynamic/ORT at most 1.0 wherever
#: static/ORT is.
DYNAMIC_OVER_STATIC = 1.10


def per_round(samples: dict[str, list[float]], a: str, b: str) -> list[float]:
    """`a`'s seconds over `b`'s, round by round."""
    return [x / y for x, y in zip(samples[a], samples[b], strict=True)]


def verdicts(rows: Sequence[tuple[str, float, float, float]]) -> list[str]:
    """Issue 19's targets, one line per row (label, dynamic/static, dynamic/ORT, static/ORT)."""
    lines = []
    for label, over_static, over_ort, static_over_ort in rows:
        met = over_static <= DYNAMIC_OVER_STATIC and (static_over_ort > 1.0 or over_ort <= 1.0)
        held = "" if static_over_ort <= 1.0 else f" (static {static_over_ort:.2f}x: not held to 1.0)"
        ort_part = f", {over_ort:.2f}x ORT{held}"
        lines.append(f"{'MET   ' if met else 'MISSED'} {label}: {over_static:.2f}x static{ort_part}")
    return lines


def timed_compile(model: onnx.ModelProto, threads: int) -> tuple[minitvm.Executable, float]:
    start = time.perf_counter()
    exe = minitvm.compile(model, num_threads=threads)
    return exe, time.perf_counter() - start


def run(names: Sequence[str], threads: Sequence[int], repeat: int, warmup: int) -> None:
    """Print the dynamic / static / ORT table for the cases `names` (all when empty) and the
    compile times; a BenchError (after the tables) if a dynamic result was wrong."""
    if unknown := [c for c in names if c not in CASES]:
        raise BenchError(f"unknown case(s) {', '.join(unknown)}; the cases: {', '.join(CASES)}")
    print(f"CPU: {cpu_model()}; median of {repeat} interleaved rounds after {warmup} runs")
    print("| case | shape | threads | dynamic ms | static ms | ORT ms | dynamic/static "
          "| rounds p25-p75 | dynamic/ORT | static/ORT |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    compile_rows, wrong, targets = [], [], []
    for name in names or CASES:
        build, shapes = CASES[name]
        for t in threads:
            dynamic, dynamic_seconds = timed_compile(build(None), t)
            compile_rows.append((name, "dynamic (all shapes)", t, dynamic_seconds))
            for shape in shapes:
                static_model = build(shape)
                static, static_seconds = timed_compile(static_model, t)
                compile_rows.append((name, "x".join(map(str, shape)), t, static_seconds))
                session = ort_session(static_model, num_threads=t)
                data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
                feeds = {dynamic.input_names[0]: data}
                ours, theirs = dynamic.run(feeds), session(feeds)
                if not all(np.allclose(a, b, rtol=RTOL, atol=RTOL * float(np.abs(b).max()))
                           for a, b in zip(ours, theirs, strict=True)):  # fmt: skip
                    error = max(float(np.abs(a - b).max()) for a, b in zip(ours, theirs, strict=True))
                    wrong.append(f"{name} {'x'.join(map(str, shape))} on {t} thread(s): max abs error {error:.3g}")
                runners = {
                    "dynamic": lambda d=dynamic, f=feeds: d.run(f),
                    "static": lambda s=static, f=feeds: s.run(f),
                    "ort": lambda s=session, f=feeds: s(f),
                }
                settle = SETTLE_S if t > 1 else 0.0
                times = sampled(runners, warmup, repeat, settle, min_sample_s=MIN_SAMPLE_S)
                ms = {k: 1e3 * statistics.median(v) for k, v in times.items()}
                over_static = per_round(times, "dynamic", "static")
                q1, q3 = quartiles(over_static)
                ratios = [statistics.median(per_round(times, a, b))
                          for a, b in (("dynamic", "static"), ("dynamic", "ort"), ("static", "ort"))]  # fmt: skip
                label = f"{name} {'x'.join(map(str, shape))} on {t} thread(s)"
                targets.append((label, *ratios))
                print(
                    f"| {name} | {'x'.join(map(str, shape))} | {t} | {ms['dynamic']:.2f} | "
                    f"{ms['static']:.2f} | {ms['ort']:.2f} | {ratios[0]:.2f}x | {q1:.2f}-{q3:.2f} | "
                    f"{ratios[1]:.2f}x | {ratios[2]:.2f}x |",
                    flush=True,
                )
    print("\n" + "\n".join(verdicts(targets)))
    print("\n| case | compile | threads | seconds |\n|---|---|---|---|")
    for name, what, t, seconds in compile_rows:
        print(f"| {name} | {what} | {t} | {seconds:.1f} |")
    if wrong:
        raise BenchError(f"wrong dynamic result(s): {'; '.join(wrong)}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help=f"of {', '.join(CASES)} (default: all)")
    parser.add_argument("--threads", type=thread_counts, default=[1, 2], metavar="1,2")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args(argv)
    try:
        run(args.cases, args.threads, args.repeat, args.warmup)
    except MinitvmError as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
