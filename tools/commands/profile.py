"""`minitvm profile`: where a compiled model's time goes, kernel by kernel.

    minitvm profile model.onnx [--num-threads N] [--records URL] [--repeat N] [--warmup W]
                    [--top K] [--input-shape ...] [-O N]

The model is lowered to te kernels as `minitvm.compile` lowers it (tuning records applied
when given); each kernel is then built on its own, as the tuner builds a task (a module whose
`@main` calls the kernel on its own inputs, weights included, fed seeded random data), and
timed: `warmup` calls, then `repeat` samples of back-to-back calls lasting at least
MIN_SAMPLE_S each, the median sample per call (runtime/timing.py's `sampled`, the harness
`minitvm bench` times with). Kernels with the same text (a ResNet's equal blocks) are built
and timed once. The whole model is compiled and timed the same way, so the
table ends with the sum of the kernels next to the model's own latency: a kernel timed alone
finds its inputs in cache, and the model also pays for the calls between kernels, so the two
differ by a few percent.

This answers "which kernel should I look at" (the per-kernel figures behind the changes of
the NCHW16c epilogue and the transpose template came from this measurement); `minitvm tune
--report` answers "what did tuning gain".
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from minitvm.bench.options import add_timing_options, positive_int
from minitvm.runtime import random_arrays
from minitvm.runtime.timing import sampled
from minitvm.tools.inputs import compile_model, load_onnx
from minitvm.tools.options import add_compile_options

if TYPE_CHECKING:  # onnx and the compiler are slow to import: the command loads them
    import onnx

    from minitvm.runtime import Executable

#: Each timed sample lasts at least this long (calls back to back; their mean is the sample).
MIN_SAMPLE_S = 0.005


@dataclass(frozen=True)
class KernelTime:
    """One kernel of the model: its name, the template that scheduled it ("-" for none), its
    first input and its output shapes, and its median seconds per call."""

    name: str
    template: str
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    seconds: float


@dataclass(frozen=True)
class Profile:
    kernels: list[KernelTime]
    #: The whole compiled model's median seconds per run.
    model_seconds: float
    num_threads: int

    @property
    def kernel_seconds(self) -> float:
        return sum(k.seconds for k in self.kernels)


def median_seconds(call: Callable[[], object], repeat: int, warmup: int) -> float:
    """Median seconds per call over `repeat` samples (see the module docstring)."""
    return statistics.median(sampled({"": call}, warmup, repeat, min_sample_s=MIN_SAMPLE_S)[""])


def profile(
    model: str | onnx.ModelProto,
    exe: Executable,
    opt_level: int = 3,
    records: str | None = None,
    repeat: int = 20,
    warmup: int = 2,
) -> Profile:
    """Time each kernel of `model` alone, and `exe`, the model compiled with the same
    `opt_level` and `records` (its input shapes and thread count are the profile's):

        exe = minitvm.compile(model, num_threads=1)
        print(format_profile(profile(model, exe)))
    """
    from minitvm.compiler import build, load_model, lower_to_te
    from minitvm.frontend import from_onnx
    from minitvm.ir import print_module
    from minitvm.schedules.kernel import kernel_template, kernels
    from minitvm.tuner.tasks import standalone_module

    proto = load_model(model)
    num_threads = exe.num_threads
    feeds = random_arrays(exe.inputs, seed=0)
    model_seconds = median_seconds(lambda: exe.run(feeds), repeat, warmup)

    module = from_onnx(proto, {s.name: s.shape for s in exe.inputs})
    lower_to_te(module, opt_level, records=records, num_threads=num_threads)
    timed: dict[str, float] = {}
    result = []
    for kernel in kernels(module):
        standalone, inputs, outputs = standalone_module(kernel)
        text = print_module(standalone).replace(f"@{kernel.sym_name.data}", "@kernel")
        if text not in timed:
            runnable = build(standalone, inputs, outputs, opt_level, num_threads)
            arrays = random_arrays(inputs, seed=0)
            timed[text] = median_seconds(lambda r=runnable, a=arrays: r.run(a), repeat, warmup)
        found = kernel_template(kernel)
        result.append(
            KernelTime(
                kernel.sym_name.data,
                "-" if found is None else found[1].name,
                inputs[0].shape if inputs else (),
                outputs[0].shape if outputs else (),
                timed[text],
            )
        )
    return Profile(result, model_seconds, num_threads)


def _dims(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape)) or "scalar"


def format_profile(report: Profile, top: int | None = None) -> str:
    """The kernels slowest first (the first `top`), with their share of the kernels' sum,
    then the sum and the whole model's latency."""
    total = report.kernel_seconds
    rows = sorted(report.kernels, key=lambda k: k.seconds, reverse=True)
    shown = rows if top is None else rows[:top]
    table = [("ms", "share", "kernel", "template", "input -> output")]
    for k in shown:
        share = f"{100 * k.seconds / total:.1f}%" if total else "-"
        shapes = f"{_dims(k.input_shape)} -> {_dims(k.output_shape)}"
        table.append((f"{1e3 * k.seconds:.3f}", share, k.name, k.template, shapes))
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    lines = [
        "  ".join(
            c.rjust(w) if i < 2 else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))
        ).rstrip()
        for row in table
    ]
    if len(shown) < len(rows):
        rest = sum(k.seconds for k in rows[len(shown) :])
        more = len(rows) - len(shown)
        lines.append(f"... {more} more kernel{'s' if more > 1 else ''}, {1e3 * rest:.3f} ms")
    threads = f"{report.num_threads} thread{'s' if report.num_threads > 1 else ''}"
    lines.append(
        f"{len(rows)} kernels, each timed alone: {1e3 * total:.3f} ms in all; the whole model: "
        f"{1e3 * report.model_seconds:.3f} ms ({threads})"
    )
    return "\n".join(lines) + "\n"


def run_profile(args: argparse.Namespace) -> None:
    model = load_onnx(args.model)
    exe = compile_model(model, dict(args.input_shape), args)
    report = profile(model, exe, args.opt_level, args.records, args.repeat, args.warmup)
    sys.stdout.write(format_profile(report, args.top))


def add_profile_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "profile",
        help="time each kernel of a compiled model alone: where the time goes",
        description="Compile an ONNX model, then build and time each of its kernels alone "
        "(seeded random inputs, weights included; equal kernels once) and the whole model; "
        "print the kernels slowest first with their share, and the sum next to the model's "
        "latency.",
    )
    add_compile_options(p)
    add_timing_options(
        p, 20, "timed samples per kernel; the median counts", 2, "untimed calls of each kernel first"
    )
    p.add_argument("--top", type=positive_int, default=None, metavar="K",
                   help="show only the K slowest kernels (default: all)")  # fmt: skip
    p.set_defaults(run=run_profile)
