"""Progress of `minitvm tune` on the terminal: an overall bar, a bar for the task being tuned
(best latency so far and its speed-up over the default schedule), a line per finished task.

It consumes the events `search.tune` emits (`search.Event`), from one worker or many, and
draws with tqdm on stderr; where stderr is not a terminal the bars are off and only the
per-task lines are printed.
"""

from __future__ import annotations

import sys
from typing import IO, Any, Self

from tqdm import tqdm

from minitvm.tuner.search import Event, Overview, TrialNote, format_seconds


class TuneProgress:
    """Call it with each event; `close()` at the end (it is also a context manager)."""

    def __init__(self, stream: IO[str] | None = None, bars: bool | None = None):
        self.stream = stream or sys.stderr
        self.bars = self.stream.isatty() if bars is None else bars
        self.overview: Overview | None = None
        self.overall: Any = None
        self.bar: Any = None
        self.current: int | None = None
        self.best: list[float | None] = []
        self.measured: list[int] = []
        self.failed: list[int] = []
        self.finished: dict[int, int] = {}  # task -> workers done with it
        self.reported: set[int] = set()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __call__(self, event: Event) -> None:
        kind = event[0]
        if kind == "plan":
            self._plan(event[1])
        elif kind == "start":
            self._start(event[1])
        elif kind == "trial":
            self._trial(event[1], event[2])
        elif kind == "done":
            self.finished[event[1]] = self.finished.get(event[1], 0) + 1
            assert self.overview is not None
            if self.finished[event[1]] >= self.overview.workers:
                self._report(event[1])

    def _plan(self, overview: Overview) -> None:
        """A plan of tasks to tune; a later one (the kernels, after the convs' algorithms)
        starts afresh: the last plan's lines are all printed by then."""
        self.close()
        self.current = None
        self.finished, self.reported = {}, set()
        self.overview = overview
        self.best = list(overview.best_seconds)
        self.measured = list(overview.done)
        self.failed = [0] * len(overview.names)
        total = None
        if all(t is not None for t in overview.targets):
            total = sum(
                max(0, t - d) for t, d in zip(overview.targets, overview.done) if t is not None
            )
        if self.bars:
            self.overall = tqdm(
                total=total,
                desc="tuning" if overview.timeout is None else f"tuning ({overview.timeout:g} s)",
                unit="trial",
                position=0,
                file=self.stream,
                dynamic_ncols=True,
            )

    def _start(self, n: int) -> None:
        if n == self.current:
            return
        if self.current is not None and self.current not in self.reported:
            self._report(self.current)  # another worker went on: the last task is as good as done
        self.current = n
        if not self.bars:
            return
        assert self.overview is not None
        if self.bar is not None:
            self.bar.close()
        tasks = len(self.overview.names)
        self.bar = tqdm(
            total=self.overview.targets[n],
            initial=self.measured[n],
            desc=f"[{n + 1}/{tasks}] {self.overview.names[n]}",
            unit="trial",
            position=1,
            leave=False,
            file=self.stream,
            dynamic_ncols=True,
        )
        self.bar.set_postfix_str(self._best(n))

    def _trial(self, n: int, note: TrialNote) -> None:
        if not note.measured:
            return
        self.measured[n] += 1
        if note.state == "FAIL":
            self.failed[n] += 1
        if note.value is not None and (self.best[n] is None or note.value < self.best[n]):  # type: ignore[operator]
            self.best[n] = note.value
        if self.overall is not None:
            self.overall.update(1)
            self.overall.set_postfix_str(f"{sum(self.failed)} failed")
        if self.bar is not None and n == self.current:
            self.bar.update(1)
            self.bar.set_postfix_str(self._best(n))

    def _best(self, n: int) -> str:
        assert self.overview is not None
        best, default = self.best[n], self.overview.default_seconds[n]
        if best is None:
            return f"default {format_seconds(default)}"
        return f"best {format_seconds(best)} ({default / best:.2f}x)"

    def _report(self, n: int) -> None:
        if n in self.reported:
            return
        self.reported.add(n)
        assert self.overview is not None
        names, counts = self.overview.names, self.overview.counts
        failed = f", {self.failed[n]} failed" if self.failed[n] else ""
        default = format_seconds(self.overview.default_seconds[n])
        outcome = f"none completed, default {default}"
        if self.best[n] is not None:
            outcome = f"{self._best(n)} vs default {default}"
        line = (
            f"[{n + 1}/{len(names)}] {names[n]} (x{counts[n]}): "
            f"{self.measured[n]} trial{'s' if self.measured[n] != 1 else ''}{failed}, {outcome}"
        )
        if self.bars:
            tqdm.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        if self.current is not None and self.current not in self.reported:
            self._report(self.current)
        for bar in (self.bar, self.overall):
            if bar is not None:
                bar.close()
        self.bar = self.overall = None
