"""Builds of one model timed side by side in one process, for the A/B scripts of `bench/`
(`sections.py`, `winograd_tiles.py`, `conv_algorithms.py`): the same machine state for every
build, because each round times every build once, in an order that rotates from round to
round."""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping, Sequence

import numpy as np
import onnx

import minitvm
from minitvm.bench import suite


def model_of(case: str) -> onnx.ModelProto | str:
    """A `minitvm bench` case's model, or a path to an .onnx file as given."""
    return case if case.endswith(".onnx") else suite.find_case(case).build()


def round_ms(
    exe: minitvm.Executable, inputs: dict[str, np.ndarray], runs: int, warmup: int
) -> float:
    """The mean milliseconds of `runs` calls, after `warmup` untimed ones."""
    for _ in range(warmup):
        exe.run(inputs)
    start = time.perf_counter()
    for _ in range(runs):
        exe.run(inputs)
    return (time.perf_counter() - start) / runs * 1e3


def checked_runs(
    builds: Mapping[str, minitvm.Executable],
    inputs: dict[str, np.ndarray],
    round_s: float,
    atol: float = 1e-4,
) -> dict[str, int]:
    """Each build's outputs checked against the first build's (rtol 1e-3, `atol`), and how
    many runs of each last about `round_s` seconds (by the checked run's time): `interleaved`'s
    `runs`."""
    builds_list = list(builds.items())
    want = builds_list[0][1].run(inputs)
    runs = {}
    for name, exe in builds_list:
        start = time.perf_counter()
        got = exe.run(inputs)
        runs[name] = max(1, int(round_s / max(time.perf_counter() - start, 1e-6)))
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-3, atol=atol, err_msg=name)
    return runs


def interleaved(
    builds: Mapping[str, minitvm.Executable],
    inputs: dict[str, np.ndarray],
    rounds: int,
    runs: Mapping[str, int],
    warmup: int = 1,
) -> dict[str, list[float]]:
    """Per build, its milliseconds in each round (`round_ms` of its `runs`); round r starts
    with build r mod len(builds)."""
    names = list(builds)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            times[name].append(round_ms(builds[name], inputs, runs[name], warmup))
    return times


def ratio_line(times: Mapping[str, Sequence[float]], name: str, base: str) -> str:
    """`name`'s median against `base`'s, with the p25-p75 of the rounds' paired ratios (a
    wide range says the machine was noisy)."""
    a, b = statistics.median(times[name]), statistics.median(times[base])
    paired = np.array(times[name]) / np.array(times[base])
    return (
        f"{a:.3f} ms against {b:.3f}, {a / b:.3f}x (rounds p25-p75 "
        f"{np.percentile(paired, 25):.3f}-{np.percentile(paired, 75):.3f})"
    )
