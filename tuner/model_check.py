"""The check that ends `minitvm tune`: the whole model compiled without and with the records,
timed side by side, and, where the tuned model is the slower, each pinned config applied alone
against the default, the ones that slow the model dropped from the records.

Why: the tuner measures a kernel alone, its operands hot in cache, and keeps a config that
beat the default there, re-measured side by side (`search.verify_best`). In the model a
kernel's operands come from its neighbours, and a 1% win of a kernel alone is within what
its neighbours' caches change; a verified win can also stop holding later (ResNet-50's 512
-> 512 3x3 conv at 7x7, Sapphire Rapids, one thread: 1% faster when verified, 35% slower the
next day, which made the tuned ResNet-50 0.95x the untuned one). The model's time is what a
user tunes for, so a config that costs the model time is taken back (`records.reject_config`).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Rounds (after two untimed ones) of each side-by-side timing.
MODEL_CHECK_ROUNDS = 10

#: Times runners side by side: name -> runner in, name -> seconds of each round out
#: (`runtime.timing.timed_runs`; tests give their own).
TimeRunners = Callable[[Mapping[str, Callable[[], object]]], Mapping[str, Sequence[float]]]


@dataclass
class ModelCheck:
    """Milliseconds of the model untuned and tuned, side by side. Where the tuned one was the
    slower (by the median of the rounds' ratios, or by the medians): how many pinned configs
    were timed alone, those dropped (task name, model time with it alone over the default's),
    and the two times after the last drop."""

    default_ms: float
    tuned_ms: float
    examined: int | None = None
    dropped: list[tuple[str, float]] = field(default_factory=list)
    retuned_ms: tuple[float, float] | None = None


def _timed_side_by_side(
    runners: Mapping[str, Callable[[], object]],
) -> Mapping[str, Sequence[float]]:
    from minitvm.runtime.timing import timed_runs

    return timed_runs(runners, 2, MODEL_CHECK_ROUNDS)[1]


def _ratio(times: Sequence[float], base: Sequence[float]) -> float:
    """The median over rounds of `times` / `base`: a round measured while another process
    took the core slows both alike."""
    return statistics.median(t / b for t, b in zip(times, base, strict=True))


def check_model(
    model: Any,
    records: str,
    tasks: Sequence[Any],
    options: Mapping[str, Any],
    time_runners: TimeRunners = _timed_side_by_side,
) -> ModelCheck | None:
    """Time `model` compiled with `options` and without and with `records`; while the records
    make it slower, time it with each config they pin for `tasks` (tuner Tasks) applied
    alone against the default, reject each that does not make the model faster
    (`records.reject_config`), and time the model with what is left (until it is not the
    slower, or no config is rejected). None for a model with sizes known only at run time
    (no one model to time)."""
    import minitvm
    from minitvm.compiler import random_inputs
    from minitvm.host import target_key
    from minitvm.records import load_schedules, reject_config

    default = minitvm.compile(model, **options)
    if not all(spec.is_static for spec in default.inputs):
        return None
    feeds = random_inputs(default)

    def side_by_side(tuned: Any) -> tuple[float, float, float]:
        runners = {"default": lambda: default.run(feeds), "tuned": lambda: tuned.run(feeds)}
        seconds = time_runners(runners)
        before, after = (statistics.median(seconds[k]) * 1e3 for k in ("default", "tuned"))
        return before, after, _ratio(seconds["tuned"], seconds["default"])

    before, after, ratio = side_by_side(minitvm.compile(model, records=records, **options))
    check = ModelCheck(before, after)
    target = target_key(default.num_threads)
    # (slower by the rounds' ratios or by the medians; each pass drops one config at least)
    while ratio > 1.0 or after > before:
        pinned = load_schedules(records, target)
        alone = {task.name: (task, pinned[task.key]) for task in tasks if task.key in pinned}
        compiled = {
            name: minitvm.compile(model, schedules={task.key: config}, **options)
            for name, (task, config) in alone.items()
        }
        runners: dict[str, Callable[[], object]] = {"default": lambda: default.run(feeds)}
        runners.update({name: (lambda exe=exe: exe.run(feeds)) for name, exe in compiled.items()})
        seconds = time_runners(runners)
        if check.examined is None:
            check.examined = len(alone)
        dropped = 0
        for name, (task, config) in alone.items():
            slower = _ratio(seconds[name], seconds["default"])
            if slower >= 1.0:
                reject_config(records, task.key, config, target)
                check.dropped.append((name, slower))
                dropped += 1
        if not dropped:
            break
        before, after, ratio = side_by_side(minitvm.compile(model, records=records, **options))
        check.retuned_ms = (before, after)
    return check
