"""`minitvm export`: compile a model and write it as a shared library with minitvm's C API.

    minitvm export model.onnx -o model.so [--weights embed|file] [--cpu NAME|native]
                   [--input-shape ...] [-O N] [--num-threads N] [--records URL]

Writes model.so, its header model.h and, with `--weights file`, model.weights beside it
(deploy/library.py). `--num-threads` is the thread count the schedules (and tuning records)
are chosen for; the library's caller picks the threads it runs on (minitvm_create).
`--cpu` compiles for another CPU than this one (host.TARGET_CPU_ENV): an older one, whose
instructions this machine also runs, or a newer one; the library checks at minitvm_create
that the CPU it runs on has them.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import TYPE_CHECKING

from minitvm.tools.inputs import compile_model, load_onnx
from minitvm.tools.options import CommandError, add_compile_options, tuned_line

if TYPE_CHECKING:
    from minitvm.deploy import ExportResult


def select_cpu(args: argparse.Namespace) -> None:
    """Make `--cpu` the target: before anything imports the compiler, whose schedules read
    the target's vector registers when their modules load (cli.main calls this first)."""
    if args.cpu != "native":
        from minitvm.host import TARGET_CPU_ENV, named_cpu

        named_cpu(args.cpu)  # an unknown name is an error before the compile
        os.environ[TARGET_CPU_ENV] = args.cpu


def run_export(args: argparse.Namespace) -> None:
    if not args.output.endswith(".so"):
        raise CommandError(f"-o {args.output}: the library's name must end in .so")
    directory = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(directory):
        raise CommandError(f"-o {args.output}: no directory {directory}")
    model = load_onnx(args.model)
    start = time.perf_counter()
    exe = compile_model(model, dict(args.input_shape), args)
    compiled = time.perf_counter() - start
    from minitvm.host import host_cpu

    print(f"compiled {args.model} in {compiled:.2f} s for {host_cpu()[0]} (-O{args.opt_level}, "
          f"schedules for {args.num_threads} thread{'s' if args.num_threads > 1 else ''})")  # fmt: skip
    print(tuned_line(args, exe.stats["report"]), end="")  # type: ignore[arg-type]
    result: ExportResult = exe.export(args.output, weights=args.weights)  # type: ignore[assignment]
    seconds = sum(result.seconds.values())
    print(f"exported {result.library} ({result.library_bytes / 1e6:.2f} MB) in {seconds:.2f} s")
    print(f"  header  {result.header}")
    if result.weights is not None:
        print(f"  weights {result.weights} ({os.path.getsize(result.weights) / 1e6:.2f} MB)")


def add_export_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "export",
        help="compile an ONNX model into a shared library with a C API",
        description="Compile an ONNX model for this CPU and write it as a self-contained "
        "shared library (no Python, no LLVM, no minitvm needed to run it) with the C API of "
        "the header written beside it.",
    )
    add_compile_options(p)
    p.add_argument("-o", "--output", required=True, metavar="MODEL.so",
                   help="the library to write (its header MODEL.h beside it)")  # fmt: skip
    p.add_argument(
        "--weights", choices=("embed", "file"), default="embed",
        help="keep the weights inside the library (embed, the default) or in MODEL.weights "
        "beside it, mapped at load (file)",
    )  # fmt: skip
    p.add_argument(
        "--cpu", default="native", metavar="NAME",
        help="the CPU to compile for: native (this one, the default) or a microarchitecture "
        "such as x86_64_v3, haswell, skylake_avx512, icelake, sapphirerapids, zen4",
    )  # fmt: skip
    p.set_defaults(run=run_export, prepare=select_cpu)
