"""`minitvm compile`: compile a model and show where the time went.

    minitvm compile model.onnx [--input-shape ...] [-O N] [--num-threads N] [--records URL]
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from minitvm.tools.inputs import compile_model, describe, load_onnx
from minitvm.tools.options import add_compile_options, tuned_line

if TYPE_CHECKING:
    from minitvm.compiler import CompileReport


def format_report(report: CompileReport) -> str:
    """Seconds per stage (with its share) and op counts per IR level, as two tables."""
    total = report.total_seconds
    w = max(len(name) for name in [*report.seconds, *report.op_counts, "IR level"]) + 2
    lines = [f"{'stage':<{w}}{'seconds':>10}{'share':>9}"]
    for stage, seconds in report.seconds.items():
        lines.append(f"{stage:<{w}}{seconds:>10.3f}{100 * seconds / (total or 1):>8.1f}%")
    lines.append(f"{'total':<{w}}{total:>10.3f}{100.0:>8.1f}%")
    lines += ["", f"{'IR level':<{w}}{'ops':>10}"]
    lines += [f"{level:<{w}}{count:>10}" for level, count in report.op_counts.items()]
    return "\n".join(lines) + "\n"


def run_compile(args: argparse.Namespace) -> None:
    model = load_onnx(args.model)
    exe = compile_model(model, dict(args.input_shape), args)
    report: CompileReport = exe.stats["report"]  # type: ignore[assignment]
    threads = f"{args.num_threads} thread{'s' if args.num_threads > 1 else ''}"
    print(f"compiled {args.model} in {report.total_seconds:.2f} s (-O{args.opt_level}, {threads})")
    sys.stdout.write(tuned_line(args, report))
    for kind, specs in (("input", exe.inputs), ("output", exe.outputs)):
        for spec in specs:
            print(f"  {kind} {spec.name}: {describe(spec.shape, spec.dtype)}")
    print()
    sys.stdout.write(format_report(report))


def add_compile_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "compile",
        help="compile an ONNX model and report where the time went",
        description="Compile an ONNX model for this CPU and print the seconds each stage took "
        "and the op count at each IR level (graph, te, loop, llvm).",
    )
    add_compile_options(p)
    p.set_defaults(run=run_compile)
