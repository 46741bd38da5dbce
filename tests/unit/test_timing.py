"""runtime/timing.py, the harness every timed command and bench script goes through: how many
runs it makes, in which order, with which pauses. Nothing here asserts a speed."""

from __future__ import annotations

import numpy as np
import pytest

from minitvm.runtime import timing
from minitvm.runtime.timing import medians, sampled


def test_timed_runs_picks_its_repeat_count_from_one_round(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    calls = {"a": 0, "b": 0}

    def runner(name: str, seconds: float):
        def run() -> list[np.ndarray]:
            calls[name] += 1
            time.sleep(seconds)
            return [np.array(calls[name])]

        return run

    monkeypatch.setattr(timing, "AUTO_SECONDS", 0.3)
    runners = {"a": runner("a", 0.005), "b": runner("b", 0.005)}
    outputs, seconds = timing.timed_runs(runners, 2, None)
    # one round takes >= 10 ms: at most 30 runs in 0.3 s, and never fewer than AUTO_MIN_RUNS
    assert timing.AUTO_MIN_RUNS <= len(seconds["a"]) == len(seconds["b"]) <= 30
    assert calls["a"] == calls["b"] == 2 + 1 + len(seconds["a"])
    assert outputs["a"][0] == calls["a"]
    monkeypatch.setattr(timing, "AUTO_MAX_RUNS", 40)
    _, seconds = timing.timed_runs({"a": runner("a", 0)}, 0, None)
    assert len(seconds["a"]) == 40
    _, seconds = timing.timed_runs({"a": runner("a", 0.05)}, 0, 3)
    assert len(seconds["a"]) == 3


def test_timed_runs_take_turns_in_blocks_after_a_pause_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Several runtimes on several threads: each block of runs starts after `settle` seconds,
    once the other runtime's spinning threads have gone to sleep."""
    order: list[str] = []
    sleeps: list[float] = []
    monkeypatch.setattr(timing.time, "sleep", sleeps.append)
    runners = {name: (lambda name=name: order.append(name) or []) for name in ("a", "b")}
    _, seconds = timing.timed_runs(runners, 1, 25, settle=0.5)
    assert len(seconds["a"]) == len(seconds["b"]) == 25
    assert sleeps == [0.5] * 2 * timing.SETTLED_BLOCKS
    runs = order[2:]  # after the warm-up round: 5 blocks of 3 runs each, then 5 of 2
    assert runs[:12] == ["a"] * 3 + ["b"] * 3 + ["a"] * 3 + ["b"] * 3
    assert runs[-4:] == ["a", "a", "b", "b"]
    order.clear()
    sleeps.clear()
    timing.timed_runs(runners, 0, 3)  # no settle: run by run, no pauses
    assert order == ["a", "b"] * 3 and sleeps == []


def test_sampled_interleaves_timers_and_callables() -> None:
    events: list[str] = []

    class Fake:
        """A Timer as a Worker is one: 5 ms a call, whatever it is asked."""

        def time(self, calls: int) -> float:
            events.append(f"fake {calls}")
            return 0.005 * calls

    seconds = medians(sampled({"fake": Fake(), "plain": lambda: events.append("plain")}, 1, 2))
    assert seconds["fake"] == pytest.approx(0.005) and 0 < seconds["plain"] < 0.005
    # warm-up and sizing: one call each; then samples of min_sample_s (20 ms) / 5 ms = 4 calls
    fake = [i for i, event in enumerate(events) if event.startswith("fake")]
    assert [events[i] for i in fake] == ["fake 1", "fake 1", "fake 4", "fake 4"]
    assert events[fake[0] + 1] == events[fake[1] + 1] == "plain"
    assert "plain" in events[fake[2] + 1 : fake[3]] and events[-1] == "plain"  # interleaved
