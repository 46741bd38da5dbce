"""Command-line argument types, the `--repeat`/`--warmup` options and `minitvm bench`'s
arguments, shared by the `minitvm` commands (tools/) and the bench scripts that parse as they
do (`python bench/suite.py` is `minitvm bench`): they live here, below tools/, so that bench/
never imports tools/."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from minitvm.runtime.timing import AUTO_MIN_RUNS, AUTO_SECONDS


def number_in(
    convert: Callable[[str], float], accepts: Callable[[float], bool], what: str
) -> Callable[[str], Any]:
    """An argparse `type` converting with `convert` and accepting what `accepts` does."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not accepts(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'")
        return value

    return parse


positive_int = number_in(int, lambda v: v >= 1, "a positive integer")
non_negative_int = number_in(int, lambda v: v >= 0, "an integer >= 0")
positive_float = number_in(float, lambda v: v > 0, "a positive number")


def thread_counts(text: str) -> list[int]:
    """Parse `1,2` (argparse type of `--threads`)."""
    try:
        counts = [int(t) for t in text.split(",")]
    except ValueError:
        counts = []
    if not counts or any(t < 1 for t in counts):
        raise argparse.ArgumentTypeError(
            f"expected thread counts separated by commas (1,2), got '{text}'"
        )
    return counts


def add_timing_options(
    p: argparse.ArgumentParser, repeat: int | None, repeat_help: str, warmup: int, warmup_help: str
) -> None:
    """`--repeat N` and `--warmup W` (run, bench, profile): their defaults and meanings (a
    `repeat` of None: as many runs as `runtime.timing.timed_runs` picks)."""
    default = (
        f"default: at least {AUTO_MIN_RUNS}, and as many as take about {AUTO_SECONDS:g} s"
        if repeat is None
        else f"default {repeat}"
    )
    p.add_argument("--repeat", type=positive_int, default=repeat, metavar="N",
                   help=f"{repeat_help} ({default})")  # fmt: skip
    p.add_argument("--warmup", type=non_negative_int, default=warmup, metavar="W",
                   help=f"{warmup_help} (default {warmup})")  # fmt: skip


def add_bench_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `minitvm bench` (bench/suite.py's `run`)."""
    p.add_argument("cases", nargs="*", metavar="case", help="cases to run (default: all)")
    p.add_argument("--threads", type=thread_counts, default=[1, 2], metavar="1,2",
                   help="thread counts, each case runs at every one (default 1,2)")  # fmt: skip
    add_timing_options(
        p, 15, "timed rounds, interleaved; the table gives medians",
        2, "untimed runs of each runner before them",
    )  # fmt: skip
    p.add_argument("--records", metavar="URL",
                   help="compile with the tuned schedules of these tuning records")  # fmt: skip
    p.add_argument("--dynamic", action="store_true",
                   help="one compile with symbolic batch or sequence against a static compile "
                   "per shape and ONNX Runtime (cases: bert, resnet50)")  # fmt: skip
