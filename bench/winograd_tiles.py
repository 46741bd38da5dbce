"""A model's 3x3 convs direct, as Winograd F(2x2, 3x3), as F(4x4, 3x3) and as graph-winograd's
cost model picks them (`--winograd` never, f2x2, f4x4, auto), side by side in one process.

    python bench/winograd_tiles.py [case ...] [--threads 1] [--rounds 15] [--modes ...]

Cases are `minitvm bench`'s (default: resnet_block), or paths to .onnx files. Each mode's build
is checked against the first's (rtol 1e-3, atol 1e-4), then timed in interleaved rounds
(`bench/interleaved.py`: each the mean of enough runs to last 0.2 s after one warm-up run,
the order rotated every round) so that all see the same machine. Prints per mode its median
round against the first mode's, their ratio and the p25-p75 of the rounds' paired ratios.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import minitvm
from minitvm.bench.interleaved import checked_runs, interleaved, model_of, ratio_line
from minitvm.compiler import random_inputs
from minitvm.passes.graph.winograd import MODES

#: Seconds each round times a build over.
ROUND_S = 0.2


def compare(case: str, modes: Sequence[str], threads: int, rounds: int) -> None:
    model = model_of(case)
    builds = {mode: minitvm.compile(model, num_threads=threads, winograd=mode) for mode in modes}
    inputs = random_inputs(builds[modes[0]])
    times = interleaved(builds, inputs, rounds, checked_runs(builds, inputs, ROUND_S))
    print(f"{case}, {threads} thread(s), {rounds} rounds, against {modes[0]}:")
    for mode in modes:
        print(f"  {mode:>6}: {ratio_line(times, mode, modes[0])}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", default=["resnet_block"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument(
        "--modes", nargs="+", choices=MODES, default=["f2x2", "f4x4", "auto", "never"]
    )
    args = parser.parse_args(argv)
    for case in args.cases:
        compare(case, args.modes, args.threads, args.rounds)


if __name__ == "__main__":
    main()
