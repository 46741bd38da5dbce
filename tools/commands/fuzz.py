"""`minitvm fuzz`: differential fuzzing of minitvm against ONNX Runtime (minitvm/fuzz/).

    minitvm fuzz --count N --seed S [--ops Op1,Op2 ...] [-o DIR] [--timeout S] [--max-nodes K]

Random graphs of the op specs' types, each compiled at -O1 and -O3 on 1 and 2 threads (and
-O3 with Winograd forced) and run against ONNX Runtime in a child process; failures (crash,
hang, compile-error, run-error, mismatch) are reduced to minimal graphs and, with -o, saved
in DIR/<id>/ and DIR/index. Exit 1 when a graph failed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from minitvm.tools.options import CommandError

if TYPE_CHECKING:
    from minitvm.fuzz.campaign import Stats


def run_fuzz(args: argparse.Namespace) -> None:
    from tqdm import tqdm

    from minitvm.fuzz.campaign import run_campaign

    ops = [op for text in args.ops for op in text.split(",") if op] if args.ops else None
    if args.output is not None:
        try:
            args.output.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CommandError(f"-o {args.output}: {e.strerror}") from None
    bar = tqdm(total=args.count, unit="graph", disable=None, file=sys.stderr)

    def progress(stats: Stats) -> None:
        bar.update(stats.generated - bar.n)
        bar.set_postfix(failed=len(stats.failures), discarded=stats.discarded, refresh=False)

    try:
        stats = run_campaign(args.seed, args.count, ops=ops, max_nodes=args.max_nodes,
                             timeout=args.timeout, output=args.output, progress=progress)  # fmt: skip
    finally:
        bar.close()
    print(report(stats))
    if stats.failures:
        raise CommandError(f"{len(stats.failures)} of {stats.generated} graphs failed")


def report(stats: Stats) -> str:
    """The campaign's summary: counts, failures by class (each with its line), coverage."""
    lines = [
        f"graphs: {stats.generated} generated, {stats.checked} compiled, {stats.passed} passed, "
        f"{stats.discarded} discarded (ONNX Runtime rejects them)",
        f"ONNX Runtime departs from ONNX's reference implementation (minitvm matches it): "
        f"{stats.ort_departs}",
        f"failures: {len(stats.failures)}"
        + "".join(f", {kind} {n}" for kind, n in sorted(stats.by_class().items())),
        *(f"  {f.case_id}: {f.summary}" for f in stats.failures),
        f"speed: {stats.per_minute:.1f} graphs per minute ({stats.seconds:.0f} s)",
        f"coverage: {len(stats.ops)} op types, {len(stats.pairs)} (producer, consumer) op pairs",
    ]
    return "\n".join(lines)


def add_fuzz_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "fuzz",
        help="differential fuzzing against ONNX Runtime",
        description="Generate random well-typed ONNX graphs, compile each at -O1 and -O3 on 1 "
        "and 2 threads (and -O3 with Winograd forced), compare with ONNX Runtime, reduce each "
        "failure to a minimal graph "
        "(saved with -o). Exit 1 when a graph failed.",
    )
    p.add_argument("--count", type=int, default=100, help="graphs to generate (default 100)")
    p.add_argument("--seed", type=int, default=0, help="the campaign's seed (default 0)")
    p.add_argument("--ops", action="extend", nargs="+", metavar="OP[,OP...]",
                   help="only these op types (comma- or space-separated)")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, metavar="DIR",
                   help="save each failure in DIR/<id>/, one line each in DIR/index")  # fmt: skip
    p.add_argument("--timeout", type=float, default=180.0,
                   help="seconds per graph before it counts as a hang (default 180)")  # fmt: skip
    p.add_argument("--max-nodes", type=int, default=8,
                   help="nodes per graph at most (default 8)")  # fmt: skip
    p.set_defaults(run=run_fuzz)
