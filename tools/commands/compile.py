"""`minitvm compile`: compile a model and show where the time went; or print the pipeline it
runs, or the LLVM IR it builds.

    minitvm compile model.onnx [--input-shape ...] [-O N] [--num-threads N] [--records URL]
    minitvm compile model.onnx --print-pipeline [-O N] [--num-threads N] [--records URL]
    minitvm compile model.onnx --emit-llvm [-o model.ll] [...]

`--print-pipeline` prints the passes as a `minitvm-opt -p` string: run on `minitvm import`'s
output it builds the LLVM IR that `--emit-llvm` prints (pipeline.py).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from minitvm.tools.atomic import write_text
from minitvm.tools.inputs import compile_model, compile_shapes, describe, load_onnx
from minitvm.tools.options import CommandError, add_compile_options, tuned_line

if TYPE_CHECKING:
    from minitvm.compiler import CompileReport


def format_report(report: CompileReport) -> str:
    """Seconds per stage (with its share) and op counts per IR level, as two tables; then
    the seconds the stages of the kernels compiled took, in all processes together."""
    total = report.total_seconds
    names = [*report.seconds, *report.op_counts, *report.kernel_seconds, "IR level"]
    w = max(len(name) for name in names) + 2
    lines = [f"{'stage':<{w}}{'seconds':>10}{'share':>9}"]
    for stage, seconds in report.seconds.items():
        lines.append(f"{stage:<{w}}{seconds:>10.3f}{100 * seconds / (total or 1):>8.1f}%")
    lines.append(f"{'total':<{w}}{total:>10.3f}{100.0:>8.1f}%")
    lines += ["", f"{'IR level':<{w}}{'ops':>10}"]
    lines += [f"{level:<{w}}{count:>10}" for level, count in report.op_counts.items()]
    if report.kernel_seconds:
        lines += ["", f"{'kernel stage':<{w}}{'CPU s':>10}   (the kernels compiled, all processes)"]
        lines += [f"{stage:<{w}}{seconds:>10.3f}" for stage, seconds in report.kernel_seconds.items()]
    return "\n".join(lines) + "\n"


def run_compile(args: argparse.Namespace) -> None:
    model = load_onnx(args.model)
    if args.print_pipeline:
        from minitvm.pipeline import compile_stages, pipeline_spec

        stages = compile_stages(
            args.opt_level, records=args.records, num_threads=args.num_threads,
            winograd=args.winograd,
        )  # fmt: skip
        write_text(pipeline_spec(stages) + "\n", args.output)
        return
    if args.emit_llvm:
        from minitvm.compiler import llvm_ir

        shapes = compile_shapes(model, dict(args.input_shape))
        text = llvm_ir(model, shapes, args.opt_level, args.records, args.num_threads, args.winograd)
        write_text(text, args.output)
        return
    if args.output is not None:
        raise CommandError("-o is for --print-pipeline or --emit-llvm output")
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
    what = p.add_mutually_exclusive_group()
    what.add_argument(
        "--print-pipeline", action="store_true",
        help="print the passes this compile runs, as a minitvm-opt -p string, and stop",
    )  # fmt: skip
    what.add_argument(
        "--emit-llvm", action="store_true",
        help="print the LLVM IR this compile hands to LLVM (before LLVM's optimizations)",
    )  # fmt: skip
    p.add_argument(
        "-o", "--output", metavar="FILE",
        help="write --print-pipeline's or --emit-llvm's output here (atomically)",
    )  # fmt: skip
    p.set_defaults(run=run_compile)
