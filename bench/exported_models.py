"""The real exported models of tests/models/onnx/ (torch.onnx exports of small transformers
and torch.nn models; tests/models/export_models.py), side by side with ONNX Runtime.

For each model: whether minitvm compiles it, the max abs error of its outputs against ONNX
Runtime's on the saved sample input (<name>.npz), and the median latency of minitvm
(`num_threads=1`) and of ONNX Runtime (`intra_op_num_threads=1`) over `--repeat` runs after
`--warmup` warm-up runs, the two interleaved run by run. A model minitvm cannot compile gets
its error instead of numbers. It is a measurement, not a test: nothing fails.

    python bench/exported_models.py [--repeat 50] [--warmup 5] [models...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from dataclasses import dataclass

import numpy as np
import onnx

import minitvm
from minitvm.errors import MinitvmError
from minitvm.machine import cpu_model
from minitvm.runtime.ort import ort_session
from minitvm.runtime.timing import timed_runs

ONNX_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "models", "onnx")


@dataclass
class Row:
    name: str
    opset: int
    kilobytes: float
    error: str = ""  # why minitvm did not compile it
    max_abs_error: float = float("nan")
    minitvm_ms: float = float("nan")
    ort_ms: float = float("nan")


def measure(name: str, repeat: int, warmup: int) -> Row:
    path = os.path.join(ONNX_DIR, f"{name}.onnx")
    model = onnx.load(path)
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    row = Row(name, opset, os.path.getsize(path) / 1024)
    with np.load(os.path.join(ONNX_DIR, f"{name}.npz")) as saved:
        feeds = dict(saved)
    try:
        shapes = {k: v.shape for k, v in feeds.items()} if name.endswith("_dynamic") else None
        exe = minitvm.compile(path, input_shapes=shapes, num_threads=1)
    except MinitvmError as error:
        row.error = f"{type(error).__name__}: {error}"
        return row
    session = ort_session(model, num_threads=1)
    ours, theirs = exe.run(feeds), session(feeds)
    row.max_abs_error = max(
        float(np.max(np.abs(a.astype(np.float64) - b), initial=0.0))
        for a, b in zip(ours, theirs, strict=True)
    )
    runners = {"minitvm": lambda: exe.run(feeds), "ort": lambda: session(feeds)}
    _, times = timed_runs(runners, warmup, repeat)
    row.minitvm_ms = 1e3 * statistics.median(times["minitvm"])
    row.ort_ms = 1e3 * statistics.median(times["ort"])
    return row


def table(rows: list[Row], repeat: int, warmup: int) -> str:
    header = ["model", "opset", "KB", "import ok", "max abs err", "minitvm ms", "ORT ms",
              "minitvm/ORT"]  # fmt: skip
    cells = [header]
    for r in rows:
        if r.error:
            cells.append([r.name, str(r.opset), f"{r.kilobytes:.0f}", "no", "", "", "", ""])
            continue
        cells.append([
            r.name, str(r.opset), f"{r.kilobytes:.0f}", "yes", f"{r.max_abs_error:.2e}",
            f"{r.minitvm_ms:.3f}", f"{r.ort_ms:.3f}", f"{r.minitvm_ms / r.ort_ms:.2f}x",
        ])  # fmt: skip
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [
        (
            f"cpu: {cpu_model()}; median of {repeat} interleaved runs after {warmup} warm-up, "
            "1 thread each"
        ),
        *("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                    enumerate(zip(row, widths, strict=True))) for row in cells),
    ]  # fmt: skip
    lines += [f"{r.name}: {r.error}" for r in rows if r.error]
    return "\n".join(lines)


def main() -> None:
    names = sorted(f.removesuffix(".onnx") for f in os.listdir(ONNX_DIR) if f.endswith(".onnx"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help=f"any of {', '.join(names)} (default: all)")
    parser.add_argument("--repeat", type=int, default=50, help="timed runs per model (median)")
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    unknown = sorted(set(args.models) - set(names))
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(names)}")
    rows = []
    for name in args.models or names:
        print(f"{name} ...", file=sys.stderr, flush=True)
        rows.append(measure(name, args.repeat, args.warmup))
    print(table(rows, args.repeat, args.warmup))


if __name__ == "__main__":
    main()
