"""TPE vs random search on one tuning task: how many trials each needs to get close to the best.

    python -m minitvm.bench.compare_samplers gemm1024 --seeds 5 --trials 60
    python -m minitvm.bench.compare_samplers resnet_block --task conv --seeds 5 --trials 40
    python -m minitvm.bench.compare_samplers model.onnx --task 2 --seeds 3 --trials 30
    python bench/compare_samplers.py gemm1024          (the same)

For each sampler and seed, a fresh in-memory study of the task runs `--trials` measured
trials (the default config first, as `minitvm tune` does). The best latency either sampler
found in any run is the reference; each run scores the number of measured trials (the
default included) after which its best so far is within `--within` (5%) of it. The table
gives that per seed and the median per sampler (">N": never within that many trials).

Every distinct config is measured once and the figure reused by every run that proposes it
(`--no-cache` measures each proposal afresh): the samplers are compared on the same
latencies, so the comparison is of search, not of timing noise, and it costs one
measurement per distinct config rather than per trial. The model is an .onnx path or one of
`gemm<N>` (C = A @ B, N x N fp32) and `resnet_block` (ResNet-18's 64-channel 56x56 basic
block), both from `minitvm.bench.models`. The task is the heaviest (occurrences x default
latency) unless `--task` gives its position in that order (1 = heaviest) or part of its name.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import onnx
import optuna

from minitvm.bench import models
from minitvm.errors import MinitvmError
from minitvm.tuner.measure import Measurer, MeasureResult, MeasureStatus
from minitvm.tuner.search import (
    DEFAULT,
    STATUS,
    Baseline,
    MeasureOptions,
    Quiet,
    format_seconds,
    make_sampler,
    measure_baselines,
    measured_trials,
    run_study,
    startup_trials,
)
from minitvm.tuner.space import distributions
from minitvm.tuner.tasks import Task, extract_tasks


@dataclass
class Run:
    sampler: str
    seed: int
    curve: list[float] = field(default_factory=list)  # best so far after each measured trial

    def trials_to(self, threshold: float) -> int | None:
        """Measured trials (1-based) until the best so far is <= threshold; None: never."""
        return next((n + 1 for n, best in enumerate(self.curve) if best <= threshold), None)


@dataclass
class Comparison:
    task: Task
    configs: int  # valid configs in the space
    default_seconds: float
    trials: int
    within: float
    runs: list[Run]
    measured: int  # distinct measurements made
    from_default: bool = True  # every run started from the default config
    #: Seconds of every distinct config measured (the default's included): how much of the
    #: space is near the best, i.e. how likely a random draw is to land there.
    seconds: tuple[float, ...] = ()

    def share_within(self) -> tuple[int, int]:
        """(configs within `within` of the best, configs) among those measured."""
        bound = self.best_seconds * (1.0 + self.within)
        return sum(s <= bound for s in self.seconds), len(self.seconds)

    @property
    def best_seconds(self) -> float:
        return min(run.curve[-1] for run in self.runs if run.curve)

    def score(self, run: Run) -> int | None:
        return run.trials_to(self.best_seconds * (1.0 + self.within))


def model_of(name: str) -> onnx.ModelProto | str:
    """An .onnx path, or `gemm<N>` / `resnet_block` built by minitvm.bench.models."""
    if name.startswith("gemm") and name[4:].isdigit() or name == "resnet_block":
        if name == "resnet_block":
            return models.resnet_basic_block()
        n = int(name[4:])
        return models.matmul(n, n, n)
    return name


def pick_task(tasks: Sequence[Task], weights: Sequence[float], which: str | None) -> int:
    order = sorted(range(len(tasks)), key=lambda i: -weights[i])
    if which is None:
        return order[0]
    if which.isdigit() and 1 <= int(which) <= len(order):
        return order[int(which) - 1]
    matches = [i for i in order if which in tasks[i].name]
    if not matches:
        names = "; ".join(f"{n + 1}: {tasks[i].name}" for n, i in enumerate(order))
        raise MinitvmError(f"no task '{which}' (the tasks, heaviest first: {names})")
    return matches[0]


def compare(
    task: Task,
    baseline: Baseline,
    measurer: Measurer,
    trials: int,
    seeds: Sequence[int],
    samplers: Sequence[str] = ("tpe", "random"),
    measure: MeasureOptions | None = None,
    cache: bool = True,
    within: float = 0.05,
    log: Callable[[str], None] = lambda line: None,
    from_default: bool = True,
) -> Comparison:
    """Run every sampler with every seed on `task` for `trials` measured trials each."""
    measure = measure or MeasureOptions()
    results: dict[tuple, MeasureResult] = {}
    fields = {"seed": measure.seed, "reference": baseline.outputs}
    timeout = max(
        10.0, 5.0 * (baseline.build_seconds + baseline.seconds * (measure.warmup + measure.repeats))
    )
    made = 0

    def evaluate(config: dict[str, int | str]) -> MeasureResult:
        nonlocal made
        key = tuple(sorted(config.items()))
        if cache and key in results:
            return results[key]
        made += 1
        result = measurer.run(task.job(config, **fields), timeout=timeout)
        results[key] = result
        return result

    if task.default_config is not None:
        default = MeasureResult(MeasureStatus.OK, median_seconds=baseline.seconds)
        results[tuple(sorted(task.default_config.items()))] = default
    runs = []
    for sampler in samplers:
        for seed in seeds:
            with Quiet():
                study = optuna.create_study(
                    direction="minimize",
                    sampler=make_sampler(sampler, seed, startup_trials(trials)),
                )
            if from_default and task.default_config is not None:
                study.add_trial(
                    optuna.trial.create_trial(
                        params=dict(task.default_config),
                        distributions=distributions(task.knobs),
                        value=baseline.seconds,
                        user_attrs={DEFAULT: True, STATUS: "ok"},
                    )
                )
            with Quiet():
                run_study(study, task, evaluate, trials)
            run = Run(sampler, seed)
            best = math.inf
            for trial in measured_trials(
                sorted(study.get_trials(deepcopy=False), key=lambda t: t.number)
            ):
                if trial.value is not None:
                    best = min(best, trial.value)
                run.curve.append(best)
            runs.append(run)
            log(f"{sampler} seed {seed}: {len(run.curve)} trials, best {format_seconds(best)}")
    seconds = tuple(
        r.median_seconds for r in results.values() if r.ok and r.median_seconds is not None
    )
    return Comparison(
        task,
        len(task.configs()),
        baseline.seconds,
        trials,
        within,
        runs,
        made,
        from_default,
        seconds,
    )


def _share_line(comparison: Comparison) -> list[str]:
    near, measured = comparison.share_within()
    if not measured:
        return []
    line = (
        f"{near} of the {measured} configs measured ({100 * near / measured:.0f}%) are within "
        f"{100 * comparison.within:g}% of the best: about the chance that a random draw lands "
        "there (TPE's first trials are random draws too)"
    )
    return [line]


def format_comparison(comparison: Comparison) -> str:
    best = comparison.best_seconds
    lines = [
        (
            f"task {comparison.task.name} [{comparison.task.template}]: {comparison.configs} "
            f"valid configs, default {format_seconds(comparison.default_seconds)}, best found "
            f"{format_seconds(best)} ({comparison.default_seconds / best:.2f}x); "
            f"{comparison.measured} distinct configs measured"
        ),
        *_share_line(comparison),
        (
            f"measured trials ({'default included' if comparison.from_default else 'from scratch, no default'}) "
            f"until within {100 * comparison.within:g}% "
            f"of the best, {comparison.trials} at most:"
        ),
    ]
    samplers = list(dict.fromkeys(run.sampler for run in comparison.runs))
    seeds = list(dict.fromkeys(run.seed for run in comparison.runs))
    header = ["sampler", *[f"seed {s}" for s in seeds], "median", "median final best"]
    rows = [header]
    for sampler in samplers:
        mine = [run for run in comparison.runs if run.sampler == sampler]
        scores = [comparison.score(run) for run in mine]
        cells = [f">{comparison.trials}" if s is None else str(s) for s in scores]
        median = statistics.median([math.inf if s is None else s for s in scores])
        finals = statistics.median(run.curve[-1] for run in mine)
        rows.append(
            [
                sampler,
                *cells,
                f">{comparison.trials}" if math.isinf(median) else f"{median:g}",
                format_seconds(finals),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        lines.append(
            "  ".join([row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:]))])
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m minitvm.bench.compare_samplers",
        description="TPE vs random search on one tuning task (see the module docstring).",
    )
    parser.add_argument("model", help="an .onnx path, gemm<N> or resnet_block")
    parser.add_argument(
        "--task", help="position among the tasks, heaviest first (1), or part of its name"
    )
    parser.add_argument(
        "--trials", type=int, default=50, help="measured trials per run (default 50)"
    )
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 per sampler (default 5)")
    parser.add_argument("--samplers", default="tpe,random", help="default tpe,random")
    parser.add_argument(
        "--num-threads", type=int, default=1, help="threads the kernel runs on (default 1)"
    )
    parser.add_argument(
        "--within", type=float, default=0.05, help="closeness to the best (default 0.05)"
    )
    parser.add_argument("--no-cache", action="store_true", help="measure every proposal afresh")
    parser.add_argument(
        "--no-default", action="store_true",
        help="start the searches from nothing, not from the default config (a default that is "
        "already near the best makes every run score 1)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    log = lambda line: print(line, file=sys.stderr, flush=True)
    try:
        with Quiet():
            tasks = extract_tasks(model_of(args.model), num_threads=args.num_threads)
            if not tasks:
                raise MinitvmError(f"{args.model}: no tunable kernels")
            measure = MeasureOptions()
            with measure.measurer() as measurer:
                log(f"{len(tasks)} tasks; measuring their default schedules")
                baselines = measure_baselines(tasks, measurer, measure)
                weights = [
                    t.count * b.seconds if isinstance(b, Baseline) else -1.0
                    for t, b in zip(tasks, baselines)
                ]
                n = pick_task(tasks, weights, args.task)
                baseline = baselines[n]
                if not isinstance(baseline, Baseline):
                    raise MinitvmError(
                        f"{tasks[n].name}: the default schedule failed: {baseline.message}"
                    )
                log(f"comparing on {tasks[n].name}")
                comparison = compare(
                    tasks[n], baseline, measurer, args.trials, range(args.seeds),
                    args.samplers.split(","), measure, not args.no_cache, args.within, log,
                    from_default=not args.no_default,
                )  # fmt: skip
    except MinitvmError as error:
        print(f"compare_samplers: error: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(format_comparison(comparison))
    return 0


if __name__ == "__main__":
    sys.exit(main())
