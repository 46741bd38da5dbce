"""The timing harness: how `minitvm run`, `minitvm bench`, `minitvm profile` and the bench
scripts time whatever they run (a compiled model, an ONNX Runtime session, numpy, a worker
process), so that every figure they print is measured the same way. It imports nothing of
the compiler: a runner is any callable.

Two ways to time, both interleaved (each round runs every runner in turn, so that all see the
same machine: clock speed, other processes):

- `timed_runs`: every run timed alone, the outputs of each runner's last run kept; `minitvm
  run` (latency of a whole model, its median and min) and the bench scripts.
- `sampled`: each sample the mean of back-to-back calls lasting at least `min_sample_s`, so a
  millisecond kernel is not timer noise; `minitvm bench` (its runners are `Timer`s, worker
  processes that time themselves), `minitvm bench --dynamic` and `minitvm profile`.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

T = TypeVar("T")

#: `timed_runs` without a repeat count: at least AUTO_MIN_RUNS timed runs, more when they
#: take under AUTO_SECONDS in all (up to AUTO_MAX_RUNS). The median of ten runs of a 20 us
#: model moves by a fifth from one command to the next; a thousand runs still take 0.05 s.
AUTO_MIN_RUNS = 10
AUTO_SECONDS = 0.5
AUTO_MAX_RUNS = 10000

#: Runtimes that take turns on several threads take them in this many blocks of runs each
#: (see `timed_runs`).
SETTLED_BLOCKS = 10

#: Pause before each timed block or sample when runners have worker threads: after a call,
#: ORT's workers spin for ~50 ms and OpenBLAS's for ~0.1 s (THREAD_TIMEOUT, 2^28 cycles), in
#: their own process too, and on a 2-core machine a spinning pool halves the speed of
#: whichever runner comes next (measured, one process per runner: minitvm's ResNet basic
#: block on 2 threads at 6.5 ms right after ORT's, 2.76-2.88 ms after 0.15 s).
SETTLE_S = 0.15


def timed_runs(
    runners: Mapping[str, Callable[[], T]],
    warmup: int,
    repeat: int | None,
    settle: float = 0.0,
) -> tuple[dict[str, T], dict[str, list[float]]]:
    """Run each runner `warmup` times, then `repeat` timed times, interleaved so that all see
    the same machine (clock speed, other processes); the outputs of each one's last run.
    With `repeat` None, one more untimed round sets it (see AUTO_SECONDS).

    With `settle`, the runners take turns in SETTLED_BLOCKS blocks of runs, each block after
    `settle` seconds of sleep: a runtime's worker threads spin on after its run (ONNX
    Runtime's for about 50 ms), and on a machine with few cores the runtime timed next, one
    run at a time, would share its cores with them (minitvm's ShuffleNet at 2 threads: 7.4
    ms interleaved run by run with ONNX Runtime, 4.7 ms alone; SETTLE_S)."""
    for _ in range(warmup):
        for runner in runners.values():
            runner()
    if repeat is None:
        start = time.perf_counter()
        for runner in runners.values():
            runner()
        round_seconds = max(time.perf_counter() - start, 1e-9)
        repeat = min(max(AUTO_MIN_RUNS, int(AUTO_SECONDS / round_seconds)), AUTO_MAX_RUNS)
    blocks = min(repeat, SETTLED_BLOCKS) if settle else repeat
    outputs: dict[str, T] = {}
    seconds: dict[str, list[float]] = {name: [] for name in runners}
    for block in range(blocks):
        runs = repeat // blocks + (block < repeat % blocks)
        for name, runner in runners.items():
            if settle:
                time.sleep(settle)
            for _ in range(runs):
                start = time.perf_counter()
                outputs[name] = runner()
                seconds[name].append(time.perf_counter() - start)
    return outputs, seconds


@runtime_checkable
class Timer(Protocol):
    def time(self, calls: int) -> float:
        """Seconds that `calls` back-to-back calls take."""
        ...


def time_calls(call: Callable[[], object], calls: int) -> float:
    """Seconds that `calls` back-to-back calls of `call` take."""
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return time.perf_counter() - start


@dataclass(frozen=True)
class InProcess:
    """A callable timed in this process (what `sampled` makes of a plain callable)."""

    call: Callable[[], object]

    def time(self, calls: int) -> float:
        return time_calls(self.call, calls)


def sampled(
    runners: Mapping[str, Timer | Callable[[], object]],
    warmup: int,
    repeat: int,
    settle: float = 0.0,
    min_sample_s: float = 0.02,
) -> dict[str, list[float]]:
    """Seconds per call of each runner (a Timer, such as a bench worker, or a plain callable
    timed here), one sample per round: `warmup` untimed calls each, then one call each that
    sizes a sample (enough back-to-back calls to last `min_sample_s`, at most 1000), then
    `repeat` rounds, every runner once per round in turn, each sample after `settle` seconds
    of sleep."""
    timers = {name: r if isinstance(r, Timer) else InProcess(r) for name, r in runners.items()}
    for _ in range(warmup):
        for timer in timers.values():
            timer.time(1)
    calls = {
        name: max(1, min(1000, math.ceil(min_sample_s / max(timer.time(1), 1e-9))))
        for name, timer in timers.items()
    }
    samples: dict[str, list[float]] = {name: [] for name in timers}
    for _ in range(repeat):
        for name, timer in timers.items():
            time.sleep(settle)
            samples[name].append(timer.time(calls[name]) / calls[name])
    return samples


def medians(samples: Mapping[str, Sequence[float]]) -> dict[str, float]:
    return {name: statistics.median(times) for name, times in samples.items()}
