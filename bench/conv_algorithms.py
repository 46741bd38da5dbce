"""Each 3x3 conv shape of a model: the algorithm graph-winograd's roofline model picks, each
algorithm timed as `minitvm tune` times it, and what each costs in the whole model.

    python bench/conv_algorithms.py [case ...] [--threads 1] [--rounds 5] [--model-rounds 15]

Cases are `minitvm bench`'s (default: resnet18), or paths to .onnx files. Per distinct conv
(its tuning task, `tuner/choices.py`):
  alone     every algorithm's median over `--rounds` interleaved measurements of the task's
            job (the conv alone, started cold where the model's weights outgrow the last-level
            cache), in a measurement worker as the tuner runs them;
  in model  the model with that conv's algorithm switched to each other one (every
            occurrence), timed side by side with the model as compiled (`bench/interleaved.py`,
            `--model-rounds` rounds): the ratio a tuned pick would give the model.
A line ends "model pick agrees" where the fastest alone and the fastest in the model are the
pick, else it names the two. This is how to check on a new CPU whether the roofline model's
picks, and the tuner's measurements of them, hold.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence

import numpy as np

import minitvm
from minitvm.bench.interleaved import checked_runs, interleaved, model_of
from minitvm.compiler import random_inputs
from minitvm.passes.graph.winograd import ALGORITHM, ALGORITHMS
from minitvm.tuner.choices import ChoiceTask, choice_tasks
from minitvm.tuner.measure import Measurer

#: Seconds each round times a build of the whole model over.
ROUND_S = 0.2


def alone_ms(tasks: Sequence[ChoiceTask], rounds: int) -> list[dict[str, float]]:
    """Per task, each algorithm's median milliseconds over `rounds` interleaved measurements."""
    medians = []
    with Measurer(timeout=600.0) as measurer:
        for task in tasks:
            times: dict[str, list[float]] = {a: [] for a in ALGORITHMS}
            for _ in range(rounds):
                for algorithm in ALGORITHMS:
                    result = measurer.run(task.job({ALGORITHM: algorithm}))
                    seconds = result.median_seconds if result.ok else None
                    times[algorithm].append(np.inf if seconds is None else seconds * 1e3)
            medians.append({a: statistics.median(t) for a, t in times.items()})
    return medians


def in_model_ratios(
    model: object, tasks: Sequence[ChoiceTask], threads: int, rounds: int
) -> list[dict[str, float]]:
    """Per task, the model's time with the conv switched to each algorithm against the model
    as compiled (the pick: 1.0), the median of the rounds' paired ratios."""
    builds = {"as compiled": minitvm.compile(model, num_threads=threads)}
    for n, task in enumerate(tasks):
        for algorithm in ALGORITHMS:
            if task.default_config != {ALGORITHM: algorithm}:
                builds[f"{n} {algorithm}"] = minitvm.compile(
                    model, num_threads=threads, schedules={task.key: {ALGORITHM: algorithm}}
                )
    inputs = random_inputs(builds["as compiled"])
    runs = checked_runs(builds, inputs, ROUND_S, atol=1e-3)
    times = interleaved(builds, inputs, rounds, runs)
    base = np.array(times["as compiled"])
    ratios = []
    for n, task in enumerate(tasks):
        ratio = {str(task.default_config[ALGORITHM]): 1.0}  # type: ignore[index]
        for algorithm in ALGORITHMS:
            if f"{n} {algorithm}" in times:
                paired = np.array(times[f"{n} {algorithm}"]) / base
                ratio[algorithm] = float(np.median(paired))
        ratios.append(ratio)
    return ratios


def compare(case: str, threads: int, rounds: int, model_rounds: int) -> None:
    model = model_of(case)
    tasks = choice_tasks(model, num_threads=threads)
    print(f"{case}, {threads} thread(s): {len(tasks)} conv shape(s)")
    if not tasks:
        return
    alone = alone_ms(tasks, rounds)
    in_model = in_model_ratios(model, tasks, threads, model_rounds)
    for task, ms, ratio in zip(tasks, alone, in_model, strict=True):
        pick = str(task.default_config[ALGORITHM])  # type: ignore[index]
        fastest_alone = min(ms, key=lambda a: ms[a])
        fastest_in_model = min(ratio, key=lambda a: ratio[a])
        verdict = (
            "model pick agrees"
            if pick == fastest_alone == fastest_in_model
            else f"fastest alone {fastest_alone}, in the model {fastest_in_model}"
        )
        cold = "cold" if task.evict_bytes else "warm"
        print(
            f"  {task.name.removesuffix(f' ({ALGORITHM})')} x{task.count}: pick {pick}; "
            f"alone ({cold}) "
            + ", ".join(f"{a} {ms[a]:.3f} ms" for a in ALGORITHMS)
            + "; in model "
            + ", ".join(f"{a} {ratio[a]:.3f}x" for a in ALGORITHMS)
            + f"; {verdict}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", default=["resnet18"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--model-rounds", type=int, default=15)
    args = parser.parse_args(argv)
    for case in args.cases:
        compare(case, args.threads, args.rounds, args.model_rounds)


if __name__ == "__main__":
    main()
