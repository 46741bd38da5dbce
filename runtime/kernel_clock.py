"""The time each kernel call site of an instrumented compile spends, read from its counters
(lowering/kernel_clock.py writes them: time stamp counter ticks and calls, per site).

    clock = exe.kernel_clock          # None unless compiled with instrument=True
    clock.reset()
    exe.run(feeds)
    seconds, calls = clock.read()     # per site, in @main's order: clock.sites names its kernel

The counter runs at a fixed rate on x86 CPUs since Nehalem and Zen ("invariant TSC", the
`constant_tsc` flag), not the core's clock: `ticks_per_second` measures that rate once
against the wall clock over CALIBRATION_S.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from minitvm.runtime.abi import CLOCK

#: How long `ticks_per_second` watches the counter against `time.perf_counter`: its error is
#: the two clocks' read jitter (well under a microsecond) over this span.
CALIBRATION_S = 0.02


class KernelClock:
    """The counters of an instrumented compile: `sites` names the kernel each call site of
    @main calls (the te kernel's name, before equal kernels were merged), by site."""

    _rate: ClassVar[float | None] = None

    def __init__(
        self, sites: Sequence[str], ticks_address: int, calls_address: int, clock_address: int
    ) -> None:
        self.sites = tuple(sites)
        count = max(len(self.sites), 1)
        array = ctypes.c_uint64 * count
        self._ticks = np.ctypeslib.as_array(array.from_address(ticks_address))
        self._calls = np.ctypeslib.as_array(array.from_address(calls_address))
        self._clock = CLOCK(clock_address)

    def reset(self) -> None:
        """Zero every site's ticks and calls."""
        self._ticks[:] = 0
        self._calls[:] = 0

    def read(self) -> tuple[np.ndarray, np.ndarray]:
        """Seconds spent in each site's kernel and its calls since the last `reset`, by site."""
        seconds = self._ticks[: len(self.sites)] / self.ticks_per_second()
        return seconds, self._calls[: len(self.sites)].copy()

    def ticks_per_second(self) -> float:
        """The counter's rate, measured against `time.perf_counter` once per process (the
        counter is the CPU's, the same for every compile)."""
        if KernelClock._rate is None:
            start, ticks = time.perf_counter(), self._clock()
            time.sleep(CALIBRATION_S)
            elapsed, counted = time.perf_counter() - start, self._clock() - ticks
            KernelClock._rate = counted / elapsed
        return KernelClock._rate
