"""Side by side or in turn: a model compiled with its `loop.sections` (passes/loop/sections.py)
against the same model compiled without them, each kernel then on all the threads.

    python bench/sections.py [case ...] [--threads 2] [--rounds 30]

Cases are `minitvm bench`'s (default: lstm), or paths to .onnx files. Both builds run in this
process, their outputs checked equal, in interleaved rounds (each the mean of 10 runs after
3 warm-up runs, the order flipped every round: `bench/interleaved.py`) so that both see the
same machine. Prints per case how many sections the compile made, both medians, the ratio
of the medians and the p25-p75 of the rounds' paired ratios.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
import onnx
from xdsl.dialects import func
from xdsl.ir import Block

import minitvm
from minitvm.bench.interleaved import interleaved, model_of, ratio_line
from minitvm.compiler import random_inputs
from minitvm.dialects import loop
from minitvm.passes.loop import sections


def _compile_both(
    model: onnx.ModelProto | str, threads: int
) -> tuple[minitvm.Executable, minitvm.Executable, int]:
    """(with sections, without them, how many loop.sections the first compile made)."""
    made: list[int] = []
    wrap, balanced = sections.wrap_sections, sections.balanced_chains

    def counted(block: Block, chains: list[list[func.CallOp]]) -> loop.SectionsOp:
        made.append(len(chains))
        return wrap(block, chains)

    sections.wrap_sections = counted
    try:
        with_sections = minitvm.compile(model, num_threads=threads)
        sections.balanced_chains = lambda chains: []
        without = minitvm.compile(model, num_threads=threads)
    finally:
        sections.wrap_sections, sections.balanced_chains = wrap, balanced
    return with_sections, without, len(made)


def compare(case: str, threads: int, rounds: int) -> None:
    with_sections, without, made = _compile_both(model_of(case), threads)
    inputs = random_inputs(with_sections)
    for got, want in zip(with_sections.run(inputs), without.run(inputs), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    builds = {"sections": with_sections, "in turn": without}
    times = interleaved(builds, inputs, rounds, dict.fromkeys(builds, 10), warmup=3)
    print(
        f"{case}, {threads} threads, {made} loop.sections: sections against in turn "
        f"{ratio_line(times, 'sections', 'in turn')}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", default=["lstm"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args(argv)
    for case in args.cases:
        compare(case, args.threads, args.rounds)


if __name__ == "__main__":
    main()
