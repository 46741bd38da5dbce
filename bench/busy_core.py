"""How much a busy core slows minitvm and ONNX Runtime down: each case at N threads, first on
an idle machine, then while another process spins on one core.

    python bench/busy_core.py [case ...] [--threads 2] [--repeat 20] [--records URL]

Cases are `minitvm bench`'s (default: mlp and resnet_block), and so are the rows: each
runtime in its own worker process, outputs checked, interleaved rounds with the bench's
pause before each (`suite.bench_row`; a GEMM case times numpy too, not shown here). The busy process is a Python loop that never sleeps,
as a neighbour's job would be on a shared machine. Prints per case the median ms of both
runtimes, idle and busy, their ratios, and how many times slower the busy run was.

A parallel loop that ends only when every team thread has checked in (libgomp's barrier)
waits a scheduler time slice for the thread that has no core, at every loop: that is what
this shows, and what the runtime's thread pool (runtime/thread_pool.py) avoids.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from minitvm.bench import suite
from minitvm.errors import MinitvmError

DEFAULT_CASES = ("mlp", "resnet_block")


def _spin() -> None:
    while True:
        pass


@contextmanager
def busy_core() -> Iterator[multiprocessing.process.BaseProcess]:
    """Another process spinning on a core for as long as the block runs."""
    spinner = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
    spinner.start()
    try:
        yield spinner
    finally:
        spinner.kill()
        spinner.join()


def measure(
    names: Sequence[str], threads: int, repeat: int, warmup: int, records: str | None
) -> list[tuple[str, suite.Row, suite.Row]]:
    """(case, idle row, busy row) per case."""
    results = []
    cases = {name: suite.find_case(name) for name in names}
    kinds = ["minitvm", "ORT"] + (["numpy"] if any(c.gemm for c in cases.values()) else [])
    with suite.workers(kinds) as pool:
        for name, case in cases.items():
            model = case.build().SerializeToString()
            print(f"{name}: idle ...", file=sys.stderr, flush=True)
            idle = suite.bench_row(name, case, model, threads, pool, warmup, repeat, records)
            print(f"{name}: one core busy ...", file=sys.stderr, flush=True)
            with busy_core():
                busy = suite.bench_row(name, case, model, threads, pool, warmup, repeat, records)
            for row in (idle, busy):
                if row.wrong:
                    raise MinitvmError(f"{name}: minitvm's result is wrong ({row.wrong})")
            results.append((name, idle, busy))
    return results


def format_results(results: Sequence[tuple[str, suite.Row, suite.Row]], threads: int) -> str:
    lines = [
        f"{threads} threads; ms are medians; 'busy' = another process spinning on one core",
        (
            f"{'case':14s} {'minitvm idle':>12s} {'ORT idle':>9s} {'ratio':>6s}   "
            f"{'minitvm busy':>12s} {'ORT busy':>9s} {'ratio':>6s}   "
            f"{'minitvm busy/idle':>17s} {'ORT busy/idle':>13s}"
        ),
    ]
    for name, idle, busy in results:
        mi, oi = idle.seconds["minitvm"] * 1e3, idle.seconds["ORT"] * 1e3
        mb, ob = busy.seconds["minitvm"] * 1e3, busy.seconds["ORT"] * 1e3
        lines.append(
            f"{name:14s} {mi:12.3f} {oi:9.3f} {mi / oi:5.2f}x   {mb:12.3f} {ob:9.3f} "
            f"{mb / ob:5.2f}x   {mb / mi:16.2f}x {ob / oi:12.2f}x"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=list(DEFAULT_CASES))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--records", default=None, help="tuning records to compile with")
    args = parser.parse_args(argv)
    try:
        results = measure(args.cases, args.threads, args.repeat, args.warmup, args.records)
    except MinitvmError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(format_results(results, args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
