"""`minitvm debug`: where a compiled model first departs from ONNX Runtime (issue 21).

    minitvm debug model.onnx [--input NAME=FILE.npy ...] [--input-shape ...] [--records URL]
                  [-O N] [--num-threads N] [--rtol R --atol A] [--seed S] [-o DIR]

Prints one row per ONNX node output (graph order) with its max abs and rel error, ULPs and
cosine similarity against ONNX Runtime, names the first divergent node with its local and
carried error and its kernels, and writes DIR/repro.onnx with its inputs beside it. Exits 0
when every output matches, 1 otherwise (and when the model does not compile: the node and
pass are named). The work is `minitvm.debug` (debugger.py); this module is the command line.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from minitvm.bench.options import positive_int
from minitvm.tools.commands.run import input_file, save_outputs
from minitvm.tools.inputs import load_onnx, model_inputs, read_inputs
from minitvm.tools.options import CommandError, add_compile_options

if TYPE_CHECKING:
    from minitvm.debug import DebugReport

REPRO = "repro.onnx"


def run_debug(args: argparse.Namespace) -> None:
    from minitvm.debug import DebugOptions, debug, format_report

    model = load_onnx(args.model)
    shapes: dict[str, tuple[int, ...]] = dict(args.input_shape)
    feeds = read_inputs(args.input, model_inputs(model), shapes)
    options = DebugOptions(
        input_shapes=shapes or None, opt_level=args.opt_level, records=args.records,
        num_threads=args.num_threads, winograd=args.winograd, rtol=args.rtol, atol=args.atol,
        seed=args.seed, max_local=args.max_local,
    )  # fmt: skip
    report = debug(model, feeds, options)
    for name in report.random_inputs:
        print(f"input  {name}: random (not given with --input; seed {args.seed})")
    print(format_report(report, options))
    if report.repro is not None:
        _write_repro(report, args.output_dir)
    if not report.ok:
        failed = sum(not row.metrics.within for row in report.rows)
        failed += sum(not m.within for _, m in report.final) if failed == 0 else 0
        first = report.first
        where = f"; first: '{first.output.label}' ({first.output.node.op_type})" if first else ""
        raise CommandError(
            f"{failed} output{'s' if failed != 1 else ''} differ from ONNX Runtime's "
            f"(rtol {args.rtol:g}, atol {args.atol:g}){where}"
        )


def _write_repro(report: DebugReport, directory: str) -> None:
    """repro.onnx and its inputs (`<name>.npy`, ORT's values) in `directory`, each file
    written whole or not at all."""
    from minitvm.tools.atomic import write_bytes

    repro = report.repro
    assert repro is not None
    if not repro.diverges:
        print(
            f"no subgraph of up to {repro.node_count} nodes diverges on ONNX Runtime's inputs "
            "alone; no repro written"
        )
        return
    try:
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, REPRO)
        write_bytes(repro.model.SerializeToString(), path)
    except OSError as e:
        raise CommandError(f"-o {directory}: {e.strerror or e}") from None
    files = save_outputs(directory, list(repro.feeds), list(repro.feeds.values()))
    size = os.path.getsize(path)
    print(
        f"wrote {path}: {repro.node_count} of {report.node_count} nodes, {size} bytes; "
        f"its inputs: {', '.join(files) or 'none'} (ONNX Runtime's values), max abs error "
        f"{repro.metrics.max_abs:.3g} there"
    )


def add_debug_command(
    subparsers: argparse._SubParsersAction,  # pyright: ignore[reportPrivateUsage]
) -> None:
    p = subparsers.add_parser(
        "debug",
        help="compare every node output with ONNX Runtime and explain the first divergence",
        description="Run the compiled model and ONNX Runtime on the same inputs, compare every "
        "ONNX node output, name the first node that exceeds the tolerance (its local and "
        "carried error, its kernels) and write the smallest subgraph that still diverges as "
        "DIR/repro.onnx. Exit 1 if any output differs or the model does not compile.",
    )
    add_compile_options(p)
    p.add_argument(
        "--input", type=input_file, action="append", default=[], metavar="NAME=FILE.npy",
        help="an input's value from a .npy file; repeatable (others: seeded random values)",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--rtol", type=float, default=1e-3, help="relative tolerance (default 1e-3)")
    p.add_argument("--atol", type=float, default=1e-5, help="absolute tolerance (default 1e-5)")
    p.add_argument(
        "--max-local", type=positive_int, default=16, metavar="N",
        help="divergent nodes after the first whose local error is measured (default 16)",
    )  # fmt: skip
    p.add_argument(
        "-o", "--output-dir", default=".", metavar="DIR",
        help="where repro.onnx and its inputs go (default: the current directory)",
    )  # fmt: skip
    p.set_defaults(run=run_debug)
