"""Measurement of tuning candidates that a bad candidate can neither fool nor kill.

The auto-tuner's study loop proposes schedules; each candidate is a te-level module (kernels
with their `schedule` attributes, and `@main`) that must be built and timed. A schedule may
crash the compiler or the generated code, loop forever, or compute the wrong thing, and the
tuner must shrug that off. So every candidate is built and run in a worker process:

    tuner study loop ──MeasureJob──▶ Measurer ──pipe──▶ worker process (spawned, kept warm)
                     ◀─MeasureResult─          ◀──────  builder(job) -> run(inputs) -> outputs

- The worker is started with multiprocessing's "spawn" method (never fork: the parent may
  already hold llvmlite state and thread-pool threads) and kept alive across jobs; a fresh one
  takes 0.6-0.7 s to start on an idle 2-core machine (1.5 s on a busy one), mostly importing
  xDSL and the compiler, which it does before it takes a job so no job's timeout pays for it.
- Each job has a wall-clock timeout covering build and runs. A worker that overruns it gets
  SIGTERM, then SIGKILL after a grace period (native code may ignore the first); a worker that
  dies is reaped. Either way the job becomes a failed `MeasureResult`, a new worker is started
  at once, and the next job goes to it. `Measurer.run` raises only for its own misuse or when
  no worker can start at all, never because of a candidate.
- Inputs are generated in the worker from a seed and the input specs (no big arrays through
  the pipe). Outputs are compared here, in the parent, against the job's reference outputs
  (what the untuned module computed, obtained with `return_outputs=True`), so a candidate that
  scribbles over the worker's memory cannot make the check pass.
- Warm-up runs, then timed repeats (at least `repeats`, and until `min_seconds` have been
  timed); the figure is the median. A job with `evict_bytes` reads that much of a buffer of
  its own before each timed run (not timed, but counted toward `min_seconds`), so that each
  run starts with cold caches (`eviction_bytes`).

tuner/ talks to the compiler only through schedules and the public build API
(`minitvm.compiler.build`): the default builder parses the module text and calls it. Tests
swap in other builders (any picklable top-level function) to make candidates that segfault,
hang or lie without crafting broken IR.
"""

from __future__ import annotations

import contextlib
import enum
import gc
import multiprocessing
import os
import signal
import statistics
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Self

import numpy as np
from xdsl.utils.exceptions import ParseError

from minitvm.compiler import build
from minitvm.errors import MinitvmError
from minitvm.ir import parse_module
from minitvm.runtime import TensorSpec, random_arrays
from minitvm.symbolic import evaluate

#: What a builder returns: runs the candidate once on named inputs, returns its outputs.
Runner = Callable[[Mapping[str, np.ndarray]], Sequence[np.ndarray]]


def build_module(job: MeasureJob) -> Runner:
    """The default builder: parse the te-level module text and build it for this CPU (a
    kernel of symbolic sizes takes them with each run: `MeasureJob.sizes`)."""
    module = parse_module(job.module_text, filename="<candidate>")
    exe = build(module, job.inputs, job.outputs, job.opt_level, job.num_threads,
                sizes_from_inputs=not job.sizes)  # fmt: skip
    return exe.run


@dataclass(frozen=True)
class MeasureJob:
    """One candidate: what to build, how to feed it, and what it must compute.

    The worker runs `builder(job)` (by default: parse `module_text`, a te-level module, and
    `minitvm.compiler.build` it with `opt_level` and `num_threads`) and feeds what it returns
    `seeded_inputs(inputs, seed)`. `builder` must be picklable by reference (a top-level
    function). `reference`, when given, holds the expected outputs; an output element passes when
    |out - ref| <= atol * scale + rtol * |ref|, where scale is the RMS of that reference output
    (at least 1), so that a long reduction's rounding, which grows with the size of its result,
    is not mistaken for a wrong schedule.

    `sizes`, for a kernel of symbolic sizes (one code for every size): the symbols' values it
    is measured at, each set a run of its own (inputs of those shapes; the runner gets them as
    `sizes=`). A timed repeat is then one round over every set, and counts as the geometric
    mean of the round's times, so that each size weighs alike; the outputs are every set's in
    turn. One config is chosen for all the sizes."""

    module_text: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    num_threads: int = 1
    opt_level: int = 3
    seed: int = 0
    reference: tuple[np.ndarray, ...] | None = field(default=None, compare=False, repr=False)
    rtol: float = 1e-3
    atol: float = 1e-4
    builder: Callable[[MeasureJob], Runner] = build_module
    sizes: tuple[tuple[tuple[str, int], ...], ...] = ()
    #: Bytes to read before each timed run (0: none): its data then comes from memory, as a
    #: layer's weights do in a model, where each is used once per inference and the other
    #: layers' data goes through the caches in between. Run back to back, a weight of about
    #: the last-level cache's size stays partly cached: Winograd F(4x4, 3x3) at 7 x 7 x 512
    #: (a 37.7 MB transformed weight) took 1.10 ms back to back and 1.65 ms after a 132 MiB
    #: read, F(2x2, 3x3) 1.29 and 1.45 (AMD EPYC Zen 4, AVX-512 masked, one thread): warm, the
    #: larger tile looked 15% faster; cold, and in ResNet-18, it is slower.
    evict_bytes: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "outputs", tuple(self.outputs))
        if self.reference is not None:
            object.__setattr__(self, "reference", tuple(np.asarray(r) for r in self.reference))


class MeasureStatus(enum.Enum):
    OK = "ok"
    BUILD_ERROR = "build_error"
    RUN_ERROR = "run_error"
    CRASH = "crash"
    TIMEOUT = "timeout"
    WRONG_RESULT = "wrong_result"


@dataclass(frozen=True, eq=False)
class MeasureResult:
    """The outcome of one job. `median_seconds` is set only when `status` is OK; `seconds`
    holds every timed repeat; `outputs` (those of the last run) only when asked for."""

    status: MeasureStatus
    median_seconds: float | None = None
    seconds: tuple[float, ...] = ()
    build_seconds: float | None = None
    message: str = ""
    outputs: tuple[np.ndarray, ...] | None = None

    @property
    def ok(self) -> bool:
        return self.status is MeasureStatus.OK


def seeded_inputs(specs: Sequence[TensorSpec], seed: int) -> dict[str, np.ndarray]:
    """The inputs a job with these specs and seed is run on (`runtime.random_arrays`, as
    `minitvm.compiler.random_inputs` makes them for a whole model)."""
    return random_arrays(specs, seed)


def compare_outputs(
    outputs: Sequence[np.ndarray], reference: Sequence[np.ndarray], rtol: float, atol: float
) -> str | None:
    """None when `outputs` match `reference` (see MeasureJob), else what is wrong, briefly."""
    if len(outputs) != len(reference):
        return f"{len(outputs)} outputs but the reference has {len(reference)}"
    for n, (out, ref) in enumerate(zip(outputs, reference, strict=True)):
        if out.shape != ref.shape or out.dtype != ref.dtype:
            return f"output {n} is {out.dtype}{list(out.shape)} but the reference is {ref.dtype}{list(ref.shape)}"
        out64, ref64 = out.astype(np.float64), ref.astype(np.float64)
        finite = np.isfinite(ref64)
        scale = max(1.0, float(np.sqrt(np.mean(np.square(ref64[finite]))))) if finite.any() else 1.0
        error = np.abs(out64 - ref64)
        tolerance = atol * scale + rtol * np.abs(ref64)
        # NaN/inf must be where the reference has the same value.
        bad = ~(error <= tolerance) & ~((out64 == ref64) | (np.isnan(out64) & np.isnan(ref64)))
        if bad.any():
            excess = np.where(bad, np.nan_to_num(error - tolerance, nan=np.inf), -np.inf)
            at = np.unravel_index(int(np.argmax(excess)), bad.shape)
            return (
                f"output {n}: {int(bad.sum())} of {bad.size} elements off; worst at "
                f"{list(map(int, at))}: got {out64[at]:.6g}, expected {ref64[at]:.6g}, "
                f"abs error {error[at]:.3g} vs tolerance {tolerance[at]:.3g}"
            )
    return None


class Measurer:
    """Measures jobs one at a time in a warm worker process; use it as a context manager.

        with Measurer(timeout=10.0) as measurer:
            reference = measurer.run(untuned_job, return_outputs=True).outputs
            result = measurer.run(replace(candidate_job, reference=reference))

    Each job gets `warmup` untimed runs, then timed runs until at least `repeats` are done and
    they add up to `min_seconds` (but never more than `max_repeats`). A job that has not
    finished `timeout` seconds after it was sent (build and runs together) is a TIMEOUT; the
    worker then gets SIGTERM and, `kill_grace` seconds later, SIGKILL. The worker is also
    replaced after every `jobs_per_worker` jobs. Calls from several threads take turns."""

    def __init__(
        self,
        timeout: float = 10.0,
        warmup: int = 1,
        repeats: int = 5,
        min_seconds: float = 0.0,
        max_repeats: int = 1000,
        kill_grace: float = 1.0,
        start_timeout: float = 120.0,
        jobs_per_worker: int = 200,
    ):
        if timeout <= 0 or kill_grace < 0 or start_timeout <= 0 or jobs_per_worker < 1:
            raise MinitvmError("Measurer: timeouts and jobs_per_worker must be positive")
        if warmup < 0 or repeats < 1 or max_repeats < repeats or min_seconds < 0:
            raise MinitvmError(
                f"Measurer: need warmup >= 0, 1 <= repeats <= max_repeats and min_seconds >= 0; "
                f"got warmup={warmup}, repeats={repeats}, max_repeats={max_repeats}, "
                f"min_seconds={min_seconds}"
            )
        self.timeout = timeout
        self.warmup, self.repeats, self.min_seconds, self.max_repeats = (
            warmup,
            repeats,
            min_seconds,
            max_repeats,
        )
        self.kill_grace = kill_grace
        self.start_timeout = start_timeout
        # Each 64x64 GEMM build left ~70-100 kB behind in the worker (measured over 60 jobs):
        # a fresh one now and then keeps a long study's worker small.
        self.jobs_per_worker = jobs_per_worker
        self._jobs_done = 0
        #: Seconds the last worker took from start to ready (None before the first is ready).
        self.worker_startup_seconds: float | None = None
        self._context = multiprocessing.get_context("spawn")
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._ready = False
        self._started_at = 0.0
        self._lock = threading.Lock()

    def __enter__(self) -> Self:
        with self._lock:
            self._wait_ready()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker (politely, then not). The Measurer may be used again afterwards."""
        with self._lock:
            self._stop(polite=True)

    @property
    def worker_pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def run(
        self, job: MeasureJob, *, timeout: float | None = None, return_outputs: bool = False
    ) -> MeasureResult:
        """Build and time `job` in the worker; any failure of the candidate is a result."""
        timeout = self.timeout if timeout is None else timeout
        want_outputs = return_outputs or job.reference is not None
        # The reference stays here: the worker has no use for it and it may be large.
        request = (
            replace(job, reference=None),
            (self.warmup, self.repeats, self.min_seconds, self.max_repeats),
            want_outputs,
        )
        with self._lock:
            try:
                # A worker that dies before taking the job (killed while idle: from outside,
                # out of memory, ...) says nothing about the job: give it a second worker.
                result = self._exchange(request, timeout) or self._exchange(request, timeout)
                if result is None:
                    result = MeasureResult(
                        MeasureStatus.CRASH, message="two workers died before taking the job"
                    )
                self._jobs_done += 1
                if self._jobs_done >= self.jobs_per_worker:
                    self._stop(polite=True)
                    self._start()
            except BaseException:
                # Interrupted (Ctrl-C, ...) with a job in flight: its answer must never be
                # taken for the next job's.
                self._stop(polite=False)
                raise
        if result.ok and job.reference is not None:
            assert result.outputs is not None
            problem = compare_outputs(result.outputs, job.reference, job.rtol, job.atol)
            if problem is not None:
                result = replace(
                    result, status=MeasureStatus.WRONG_RESULT, median_seconds=None, message=problem
                )
        return result if return_outputs else replace(result, outputs=None)

    def _exchange(self, request: tuple, timeout: float) -> MeasureResult | None:
        """Send the job and wait for the worker's answer; on a crash or timeout, restart it.
        None when the worker died before it took the job."""
        self._wait_ready()
        assert self._conn is not None and self._process is not None
        with contextlib.suppress(OSError):  # if it has died, its sentinel tells the loop below
            self._conn.send(request)
        deadline = time.monotonic() + timeout
        phase, build_seconds = "taking the job", None
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not wait([self._conn, self._process.sentinel], left):
                self._restart()
                message = f"timed out after {timeout:.1f} s while {phase}"
                return MeasureResult(
                    MeasureStatus.TIMEOUT, build_seconds=build_seconds, message=message
                )
            message = self._receive_message()
            if message is None:
                self._process.join(self.kill_grace)
                code = self._process.exitcode
                self._restart()
                if phase == "taking the job":
                    return None
                message = f"worker {_describe_exit(code)} while {phase}"
                return MeasureResult(
                    MeasureStatus.CRASH, build_seconds=build_seconds, message=message
                )
            if message == "taken":
                phase = "building"
            elif message[0] == "built":
                phase, build_seconds = "running", message[1]
            else:
                _, status, seconds, outputs, text = message
                return MeasureResult(
                    status,
                    median_seconds=statistics.median(seconds)
                    if status is MeasureStatus.OK
                    else None,
                    seconds=tuple(seconds),
                    build_seconds=build_seconds,
                    message=text,
                    outputs=None if outputs is None else tuple(outputs),
                )

    def _start(self) -> None:
        if self._process is not None:
            return
        parent_end, child_end = self._context.Pipe()
        # daemon: multiprocessing kills it when this process exits normally.
        process = self._context.Process(
            target=_worker_main, args=(child_end, os.getpid()), daemon=True, name="minitvm-measure"
        )
        process.start()
        child_end.close()
        self._process, self._conn, self._ready = process, parent_end, False
        self._jobs_done = 0
        self._started_at = time.perf_counter()

    def _wait_ready(self) -> None:
        self._start()
        if self._ready:
            return
        assert self._conn is not None and self._process is not None
        if not wait([self._conn, self._process.sentinel], self.start_timeout):
            self._stop(polite=False)
            raise MinitvmError(
                f"the measurement worker did not start within {self.start_timeout} s"
            )
        message = self._receive_message()
        if message != "ready":
            code = self._process.exitcode
            self._stop(polite=False)
            raise MinitvmError(
                f"the measurement worker failed to start ({_describe_exit(code)}; see its traceback "
                "above: a script using a Measurer must guard its top level with "
                "`if __name__ == '__main__':`, since the worker imports it)"
            )
        self.worker_startup_seconds = time.perf_counter() - self._started_at
        self._ready = True

    def _receive_message(self) -> tuple | str | None:
        """The next message, or None if the worker died or closed its end of the pipe (the
        caller has seen the pipe or the process sentinel become ready)."""
        assert self._conn is not None
        try:
            # A dead worker whose pipe lives on in a child of its own must not block us here.
            return self._conn.recv() if self._conn.poll() else None
        except (EOFError, OSError):
            return None

    def _restart(self) -> None:
        self._stop(polite=False)
        self._start()  # it boots while the caller gets on with its own work

    def _stop(self, polite: bool) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        self._ready = False
        if process is None or conn is None:
            return
        if polite and process.is_alive():
            with contextlib.suppress(OSError):  # it may have died since
                conn.send(None)
            process.join(self.kill_grace)
        if process.is_alive():
            process.terminate()
            process.join(self.kill_grace)
        if process.is_alive():
            process.kill()
        process.join()  # reaped: no zombie
        conn.close()
        process.close()


def measure(
    job: MeasureJob,
    *,
    timeout: float = 10.0,
    return_outputs: bool = False,
    warmup: int = 1,
    repeats: int = 5,
    min_seconds: float = 0.0,
) -> MeasureResult:
    """Measure one job in a fresh worker (about a second of start-up: use a Measurer for many)."""
    with Measurer(
        timeout=timeout, warmup=warmup, repeats=repeats, min_seconds=min_seconds
    ) as measurer:
        return measurer.run(job, return_outputs=return_outputs)


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            return f"crashed with signal {signal.Signals(-code).name}"
        except ValueError:
            return f"crashed with signal {-code}"
    return f"exited with code {code}"


def _short(error: BaseException) -> str:
    """One line a user can read: a parse error's location and complaint, else its first line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if isinstance(error, ParseError) and len(lines) > 1:
        text = f"{lines[0]}: {lines[-1]}"
    else:
        text = f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    return text if len(text) <= 300 else text[:297] + "..."


# --- worker side -------------------------------------------------------------------------


def _watch_parent(parent_pid: int) -> None:
    # A killed tuner must not leave its worker running (stuck or not): once the parent is
    # gone this process has been re-parented, so getppid changes.
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(1)


def _worker_main(conn: Connection, parent_pid: int) -> None:
    # Ctrl-C in a terminal reaches the whole process group: the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    conn.send("ready")  # this module's imports (xDSL, the compiler, llvmlite) are done
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        except Exception as error:  # noqa: BLE001  (e.g. a builder module this process lacks)
            conn.send(
                (
                    "result",
                    MeasureStatus.BUILD_ERROR,
                    [],
                    None,
                    f"cannot load the job: {_short(error)}",
                )
            )
            continue
        if request is None:
            return
        conn.send("taken")
        result = _measure_here(conn, *request)
        try:
            conn.send(("result", *result))
        except Exception as error:  # noqa: BLE001  (outputs that do not pickle: nothing sent yet)
            conn.send(
                (
                    "result",
                    MeasureStatus.RUN_ERROR,
                    result[1],
                    None,
                    f"bad outputs: {_short(error)}",
                )
            )


def _measure_here(
    conn: Connection, job: MeasureJob, policy: tuple[int, int, float, int], want_outputs: bool
) -> tuple[MeasureStatus, list[float], list[np.ndarray] | None, str]:
    warmup, repeats, min_seconds, max_repeats = policy
    start = time.perf_counter()
    try:
        run = job.builder(job)
    except Exception as error:  # noqa: BLE001  (any failure of a candidate is a result)
        return MeasureStatus.BUILD_ERROR, [], None, _short(error)
    conn.send(("built", time.perf_counter() - start))
    seconds: list[float] = []
    outputs: list[np.ndarray] = []
    try:
        rounds = _rounds(run, job)
        for _ in range(warmup):
            for call in rounds:
                call()
        # As timeit does: a collection in the middle of a timed run is noise, not the kernel.
        gc.collect()
        gc.disable()
        try:
            total = 0.0
            evict = _evictor(job.evict_bytes)
            while len(seconds) < repeats or (total < min_seconds and len(seconds) < max_repeats):
                outputs, times = [], []
                for call in rounds:
                    total += evict()
                    start = time.perf_counter()
                    outputs.extend(call())
                    times.append(time.perf_counter() - start)
                seconds.append(
                    float(np.exp(np.mean(np.log(times)))) if len(times) > 1 else times[0]
                )
                total += sum(times)
        finally:
            gc.enable()
        arrays = [np.asarray(out) for out in outputs] if want_outputs else None
    except Exception as error:  # noqa: BLE001  (any failure of a candidate is a result)
        return MeasureStatus.RUN_ERROR, seconds, None, _short(error)
    return MeasureStatus.OK, seconds, arrays, ""


def _evictor(size: int) -> Callable[[], float]:
    """A function that reads `size` bytes of a buffer of its own (through every cache level,
    evicting what was there) and returns the seconds it took; with `size` 0, nothing."""
    if size <= 0:
        return lambda: 0.0
    buffer = np.ones(size // 4, np.float32)

    def evict() -> float:
        start = time.perf_counter()
        np.add.reduce(buffer)
        return time.perf_counter() - start

    return evict


def eviction_bytes(margin: int = 4) -> int:
    """What a job reads to start a run with cold caches on this machine: `margin` times its
    caches' capacity (`machine.describe_machine`: every level's, data or unified). Twice it
    is not enough on the AMD EPYC Zen 4 hosts: after a 66 MiB read the 37.7 MB weight above
    took 1.32 ms, after 132 MiB 1.65 (caches not strictly LRU, a process moving between
    cores that do not share their last level)."""
    from minitvm.machine import describe_machine

    caches = describe_machine().caches
    total = sum(c.size for c in caches if c.kind != "instruction")
    return margin * (total or 64 << 20)


def _rounds(run: Runner, job: MeasureJob) -> list[Callable[[], Sequence[np.ndarray]]]:
    """The runs of one timed repeat: one on the job's inputs, or one per set of sizes (inputs
    of the shapes they give, the sizes passed along)."""
    if not job.sizes:
        inputs = seeded_inputs(job.inputs, job.seed)
        return [lambda: run(inputs)]
    calls = []
    for pairs in job.sizes:
        sizes = dict(pairs)
        specs = [
            TensorSpec(s.name, tuple(evaluate(d, sizes) for d in s.shape), s.dtype)
            for s in job.inputs
        ]
        inputs = seeded_inputs(specs, job.seed)
        calls.append(lambda inputs=inputs, sizes=sizes: run(inputs, sizes=sizes))  # type: ignore[call-arg]
    return calls
