"""`minitvm bench`: minitvm vs ONNX Runtime vs numpy's BLAS, one table.

    minitvm bench [case ...] [--threads 1,2] [--repeat N] [--warmup W] [--records URL]
    python bench/suite.py ...          (the same arguments, bench/options.py's)

Cases (all by default): `gemm512` and `gemm1024` (C = A @ B of two fp32 runtime inputs;
`gemm<N>` runs any size), `mlp` (batch 64, 784-1024-1024-10), `resnet_block` (a ResNet basic
block on 1x64x56x56), `resnet18` (1x3x224x224), `resnet50` (the onnx wheel's light ResNet-50
with `with_random_weights`), `bert` (one encoder layer, seq 128, hidden 768), `lm_head`
(GPT-2's: 1x64x768 @ 768x50257), `unet_decoder` (a 2x2/2 ConvTranspose decoder block),
`vgg16` (1x3x224x224) and `yolo_neck` (YOLOv5's Conv+SiLU, Resize, Concat, C3).

Each runner lives in its own worker process, spawned once per run (minitvm, ONNX Runtime and,
for GEMM, numpy): in one process the runtimes' thread pools fight over the cores. Measured on
2 cores, 2 threads: minitvm's ResNet basic block took 5.2-8.8 ms interleaved with ORT in one
process, 2.8 ms in its own; numpy's GEMM 1024 ran at 117 GFLOP/s in-process, 155-200 alone.
The parent builds the models, makes the inputs, checks the outputs and tells the workers what
to set up and when to time; the timing itself happens in the workers.

For each case and thread count t: minitvm compiles the model for t threads (`compile_case`,
which a tuner's `--records` goes through; the compile seconds are measured in its worker),
ONNX Runtime gets a session with t intra-op threads (one inter-op thread, sequential
execution), and for GEMM numpy's BLAS is set to t threads. minitvm's outputs are checked
before anything is timed: against ONNX Runtime's (rtol 1e-3, atol 1e-4 scaled down for
outputs below 1), for GEMM against a float64 product. A wrong result is printed as WRONG, is
not timed, and makes the command fail once the table is out. Then `--warmup` untimed runs of
each, and `--repeat` interleaved rounds (minitvm, ONNX Runtime, numpy, minitvm, ...): a round
times each runner over enough back-to-back calls to last MIN_SAMPLE_S, so the millisecond
cases are not timer noise, and on more than one thread sleeps SETTLE_S before each
(runtime/timing.py's `sampled`, which `minitvm profile` times with too); the table gives the
median round, and in "rounds p25-p75" the middle half of the row's ratio taken
round by round (minitvm/ORT, or minitvm/numpy GFLOP/s for GEMM; `paired_ratio`): a wide one
says the machine was noisy while the row ran. Under the table, the targets of issue 17 as
MET/MISSED, and with `--records` the tuned targets too (informational: they do not change the
exit code). Progress goes to stderr, the table to stdout. A runner that fails (or whose
worker dies) stops the run with one line naming the case, the thread count and the runner.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import math
import multiprocessing
import os
import re
import signal
import statistics
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np
import onnx

import minitvm
from minitvm.bench.models import (
    bert_encoder_layer,
    light_model_path,
    lm_head,
    lstm_stack,
    matmul,
    mlp,
    mobilenet_v2,
    resnet18,
    resnet_basic_block,
    unet_decoder_block,
    vgg16,
    with_random_weights,
    yolo_neck_block,
)
from minitvm.bench.options import add_bench_arguments
from minitvm.errors import MinitvmError
from minitvm.machine import Machine, describe_machine
from minitvm.runtime import Executable, random_arrays
from minitvm.runtime.ort import ort_session
from minitvm.runtime.timing import SETTLE_S, Timer, medians, sampled, time_calls

RTOL, ATOL = 1e-3, 1e-4
#: Each timed sample lasts at least this long (calls back to back, their mean is the sample).
MIN_SAMPLE_S = 0.02
#: Targets (issue 17), untuned and tuned (`--records`), at every thread count: GEMM at >= 0.9x
#: and 1.0x numpy's GFLOP/s; models at <= 1.1x and 1.0x ORT's latency, the cases that issue
#: added at <= 1.0x untuned, ResNet-style models (3x3 convs, where Winograd applies) at <=
#: 0.85x tuned (`Case.targets`).
GEMM_TARGETS, MODEL_TARGETS = (0.9, 1.0), (1.1, 1.0)

Outputs = list[np.ndarray]
Feeds = Mapping[str, np.ndarray]
CompileFn = Callable[[onnx.ModelProto, int, str | None], Executable]


class BenchError(MinitvmError):
    """The benchmark cannot run as asked (an unknown case), or a result was wrong."""


@dataclass(frozen=True)
class Case:
    description: str
    build: Callable[[], onnx.ModelProto]
    #: n of an n x n x n GEMM (GFLOP/s columns, numpy, a float64 reference); 0 for a model.
    gemm: int = 0
    #: Weights too large to print as IR text (over 100 MB): tests that run the case through
    #: `minitvm import | minitvm-opt` leave it out.
    large_weights: bool = False
    #: (untuned, tuned) targets: minitvm/numpy GFLOP/s at least these for a GEMM,
    #: minitvm/ORT latency at most these for a model (None: the defaults above).
    targets: tuple[float, float] | None = None

    @property
    def goals(self) -> tuple[float, float]:
        return self.targets or (GEMM_TARGETS if self.gemm else MODEL_TARGETS)


def gemm_case(n: int) -> Case:
    return Case(f"MatMul {n}x{n} @ {n}x{n} fp32", lambda: matmul(n, n, n), gemm=n)


CASES: dict[str, Case] = {
    "gemm512": gemm_case(512),
    "gemm1024": gemm_case(1024),
    "mlp": Case("MLP 784-1024-1024-10, batch 64", lambda: mlp(64, (784, 1024, 1024, 10))),
    "resnet_block": Case("ResNet basic block, 1x64x56x56", resnet_basic_block, targets=(1.1, 0.85)),
    "resnet18": Case("ResNet-18, 1x3x224x224", resnet18, targets=(1.1, 0.85)),
    "mobilenet_v2": Case("MobileNetV2, 1x3x224x224", mobilenet_v2),
    "resnet50": Case(
        "light ResNet-50 (random weights), 1x3x224x224",
        lambda: with_random_weights(onnx.load(light_model_path("resnet50"))),
        targets=(1.1, 0.85),
    ),
    "bert": Case("BERT encoder layer, seq 128, hidden 768, 12 heads", bert_encoder_layer),
    "lm_head": Case(
        "GPT-2 LM head, 1x64x768 @ 768x50257", lm_head, large_weights=True, targets=(1.0, 1.0)
    ),
    "unet_decoder": Case(
        "U-Net decoder block: 2x2/2 ConvTranspose 128->64 at 28x28, Concat, 2 conv-BN-ReLU",
        unet_decoder_block,
        targets=(1.0, 1.0),
    ),
    "vgg16": Case("VGG-16, 1x3x224x224", vgg16, large_weights=True, targets=(1.0, 0.85)),
    "lstm": Case(
        "bidirectional 2-layer LSTM, hidden 256, 64 steps, batch 1", lstm_stack,
        targets=(1.0, 1.0),
    ),
    "yolo_neck": Case(
        "YOLOv5 neck step: Conv+SiLU, 2x nearest Resize, Concat, C3 at 40x40x256",
        yolo_neck_block,
        targets=(1.0, 1.0),
    ),
}


def find_case(name: str) -> Case:
    """A case of CASES by name, or `gemm<N>` for an N x N x N GEMM of any size."""
    if name in CASES:
        return CASES[name]
    match = re.fullmatch(r"gemm([1-9]\d*)", name)
    if match:
        return gemm_case(int(match.group(1)))
    raise BenchError(f"unknown case '{name}'; the cases are {', '.join(CASES)} (or gemm<N>)")


def compile_case(
    model: onnx.ModelProto, num_threads: int, records: str | None = None
) -> Executable:
    """The one place the benchmark compiles: tuning records are passed on only when given."""
    options = {} if records is None else {"records": records}
    return minitvm.compile(model, num_threads=num_threads, **options)


# ------------------------------------------------------------------------------ runners


class Blas:
    """numpy's BLAS, with its thread count set for real: OpenBLAS's `*_set_num_threads*`
    called through ctypes on the library numpy loaded (found in /proc/self/maps; an
    environment variable would be read once, at load). `library` is None where that fails
    (not OpenBLAS, not Linux): numpy then runs with its own thread count, and `describe`
    says so."""

    def __init__(self) -> None:
        self.library: ctypes.CDLL | None = None
        self._set: Callable[[int], None] | None = None
        self._get: Callable[[], int] | None = None
        self.config = ""
        try:
            with open("/proc/self/maps") as maps:
                paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
        except OSError:
            paths = []
        for path in paths:
            if not path.startswith("/") or ".so" not in path:
                continue
            library = ctypes.CDLL(path)
            for prefix in ("scipy_openblas", "openblas"):
                for suffix in ("64_", ""):
                    setter = getattr(library, f"{prefix}_set_num_threads{suffix}", None)
                    getter = getattr(library, f"{prefix}_get_num_threads{suffix}", None)
                    config = getattr(library, f"{prefix}_get_config{suffix}", None)
                    if setter is None or getter is None:
                        continue
                    setter.argtypes, getter.restype = [ctypes.c_int], ctypes.c_int
                    self.library, self._set, self._get = library, setter, getter
                    if config is not None:
                        config.restype = ctypes.c_char_p
                        self.config = config().decode(errors="replace")
                    self.config += f" ({os.path.basename(path)})"
                    return

    @property
    def num_threads(self) -> int | None:
        """The thread count numpy's BLAS now runs on (None: not known)."""
        return None if self._get is None else self._get()

    def describe(self) -> str:
        if self._get is not None:
            return f"{' '.join(self.config.split())}, thread count set per run"
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]  # type: ignore[index]
        return (
            f"{blas.get('name', '?')} {blas.get('version', '')}: thread count NOT controlled "
            "(numpy's own default)"
        )

    @contextmanager
    def threads(self, n: int) -> Iterator[None]:
        if self._set is None or self._get is None:
            yield
            return
        before = self._get()
        self._set(n)
        try:
            yield
        finally:
            self._set(before)


# ------------------------------------------------------------------------------ workers


class Runner(ABC):
    """What a worker holds for one row: made from the row's request (`info` goes back to the
    parent), fed the inputs once (returning the outputs to check), then timed."""

    info: object = None
    call: Callable[[], object]

    @abstractmethod
    def feed(self, feeds: Feeds) -> Outputs:
        """Run once on `feeds` (what `time` then repeats); the outputs to check."""

    def time(self, calls: int) -> float:
        return time_calls(self.call, calls)


class MinitvmRunner(Runner):
    def __init__(
        self, compile: CompileFn, model: bytes, num_threads: int, records: str | None
    ) -> None:
        proto = onnx.load_from_string(model)
        start = time.perf_counter()
        self.exe = compile(proto, num_threads, records)
        self.info = (time.perf_counter() - start, self.exe.inputs)

    def feed(self, feeds: Feeds) -> Outputs:
        self.call = partial(self.exe.run, feeds)
        return self.exe.run(feeds)


class OrtRunner(Runner):
    def __init__(self, model: bytes, num_threads: int) -> None:
        self.session = ort_session(model, num_threads)

    def feed(self, feeds: Feeds) -> Outputs:
        self.call = partial(self.session, feeds)
        return self.session(feeds)


class NumpyRunner(Runner):
    """C = A @ B into a preallocated C; BLAS on the row's thread count while it is timed."""

    def __init__(self, num_threads: int) -> None:
        self.blas, self.num_threads = Blas(), num_threads

    def feed(self, feeds: Feeds) -> Outputs:
        a, b = feeds.values()
        self.call = partial(np.matmul, a, b, out=np.empty((a.shape[0], b.shape[1]), a.dtype))
        return []

    def time(self, calls: int) -> float:
        with self.blas.threads(self.num_threads):
            return super().time(calls)


RUNNERS: dict[str, Callable[..., Runner]] = {
    "minitvm": MinitvmRunner,
    "ORT": OrtRunner,
    "numpy": NumpyRunner,
}


#: What a worker imports before its first request (the compiler: xDSL, LLVM; 0.4 s).
PRELOAD = {"minitvm": "minitvm.compiler", "ORT": "onnxruntime"}


def serve(kind: str, connection: Connection) -> None:
    """A worker's loop. Requests are `(method, args)`: "new" makes this kind's Runner for a
    row and replies its `info`, anything else calls that method of the runner. Replies are
    ("ok", value) or ("error", text); None (or the parent gone) ends the loop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it ends the workers
    # Import now, while the parent builds the model: the first compile time is then the
    # compile's alone. An ImportError comes back when the import is made for real.
    if kind in PRELOAD:
        with suppress(ImportError):
            importlib.import_module(PRELOAD[kind])
    runner: Runner | None = None
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        method, args = request
        try:
            if method == "new":
                runner = None  # drop the last row's executable or session before the next
                runner = RUNNERS[kind](*args)
                value = runner.info
            else:
                value = getattr(runner, method)(*args)
        except Exception as error:  # noqa: BLE001  (the parent raises it as a BenchError)
            lines = [line.strip() for line in str(error).splitlines() if line.strip()]
            connection.send(("error", f"{type(error).__name__}: {lines[0] if lines else ''}"))
        else:
            connection.send(("ok", value))


class Worker:
    """The parent's end of one runner kind's process (spawned: nothing of this process,
    threads included, is inherited). A Timer of whatever the last "new" set up."""

    def __init__(self, kind: str) -> None:
        context = multiprocessing.get_context("spawn")
        self.kind = kind
        self.connection, theirs = context.Pipe()
        self.process = context.Process(
            target=serve, args=(kind, theirs), name=f"minitvm-bench-{kind}", daemon=True
        )
        self.process.start()
        theirs.close()  # so that recv sees EOF if the worker dies

    def call(self, method: str, *args: object) -> Any:  # whatever the method returns
        """The worker's reply to `method(*args)`; BenchError if it fails or dies."""
        try:
            self.connection.send((method, args))
        except OSError:
            raise self.died() from None
        wait([self.connection, self.process.sentinel])  # a reply, or the process's end
        if not self.connection.poll():
            raise self.died()
        try:
            status, value = self.connection.recv()
        except EOFError:
            raise self.died() from None
        if status == "error":
            raise BenchError(f"{self.kind} failed: {value}")
        return value

    def died(self) -> BenchError:
        self.process.join(1.0)
        code = self.process.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return BenchError(f"the {self.kind} worker died ({how})")

    def time(self, calls: int) -> float:
        return self.call("time", calls)

    def stop(self) -> None:
        """Ask the process to end (it does once it is done with the request it is on)."""
        with suppress(OSError):
            self.connection.send(None)

    def join(self) -> None:
        """Wait for the end `stop` asked for; terminate the process if it is still busy."""
        self.process.join(1.0)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(1.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


@contextmanager
def workers(kinds: Sequence[str]) -> Iterator[dict[str, Worker]]:
    """A Worker per kind, all ended on the way out, whatever happened."""
    started: dict[str, Worker] = {}
    try:
        for kind in kinds:
            started[kind] = Worker(kind)
        yield started
    finally:
        for worker in started.values():  # all asked first: they exit in parallel
            worker.stop()
        for worker in started.values():
            worker.join()


# ------------------------------------------------------------------------------ one row


@dataclass
class Row:
    case: str
    threads: int
    compile_s: float
    error: float  # max abs error of minitvm's outputs against the reference
    wrong: str  # why minitvm's result is wrong ("" if it is right)
    seconds: dict[str, float]  # runner -> median seconds per call
    flops: float  # per call; 0 for models
    #: 25th and 75th percentiles of the row's ratio (`paired_ratio`) taken round by round
    spread: tuple[float, float] | None = None


def paired_ratio(samples: Mapping[str, Sequence[float]], gemm: bool) -> list[float] | None:
    """Per round, the ratio the row's verdict is about, from that round's two samples:
    minitvm/ORT latency for a model, minitvm/numpy GFLOP/s for a GEMM (None without both).
    Rounds interleave the runners, so a burst of load on the machine hits both samples of a
    round: a spread of these ratios much wider than the table's digits says the run was
    noisy, whatever the medians say."""
    mine, theirs = samples.get("minitvm"), samples.get("numpy" if gemm else "ORT")
    if not mine or not theirs:
        return None
    if gemm:
        return [t / m for m, t in zip(mine, theirs, strict=True)]
    return [m / t for m, t in zip(mine, theirs, strict=True)]


def quartiles(values: Sequence[float]) -> tuple[float, float]:
    """(25th, 75th) percentile (`statistics.quantiles`' inclusive method; one value: itself)."""
    if len(values) == 1:
        return values[0], values[0]
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q3


def check(got: Outputs, want: Sequence[np.ndarray], atol: float) -> tuple[float, str]:
    """(max abs error, "" or what is wrong): allclose at RTOL and `atol`, the atol scaled
    down for outputs below 1 (so a softmax's 1e-3 values are checked to 10%, not all of it)."""
    worst, wrong = 0.0, []
    if len(got) != len(want):
        return math.inf, f"{len(got)} outputs, expected {len(want)}"
    for index, (ours, theirs) in enumerate(zip(got, want)):
        if ours.shape != theirs.shape:
            return math.inf, f"output {index} has shape {ours.shape}, expected {theirs.shape}"
        theirs64 = np.asarray(theirs, np.float64)
        error = np.abs(ours.astype(np.float64) - theirs64)
        worst = max(worst, float(np.nan_to_num(error, nan=np.inf).max(initial=0.0)))
        scaled = atol * min(1.0, float(np.abs(theirs64).max(initial=0.0)))
        if not np.allclose(ours, theirs64, rtol=RTOL, atol=scaled):
            wrong.append(f"output {index}")
    return worst, ", ".join(f"{w} differs" for w in wrong)


def bench_row(
    name: str,
    case: Case,
    model: bytes,
    threads: int,
    pool: Mapping[str, Worker],
    warmup: int,
    repeat: int,
    records: str | None,
) -> Row:
    """One row: set up every runner in its worker, check minitvm's outputs, time them."""
    try:
        mine, ort = pool["minitvm"], pool["ORT"]
        # compile_case is sent by reference, so the worker calls whatever this module has now
        compile_s, inputs = mine.call("new", compile_case, model, threads, records)
        feeds = random_arrays(inputs, seed=0)
        got: Outputs = mine.call("feed", feeds)
        ort.call("new", model, threads)
        want: Outputs = ort.call("feed", feeds)
        if case.gemm:
            a, b = (x.astype(np.float64) for x in feeds.values())
            error, wrong = check(got, [a @ b], ATOL * math.sqrt(case.gemm))
        else:
            error, wrong = check(got, want, ATOL)

        runners: dict[str, Timer] = {}
        if not wrong:
            runners["minitvm"] = mine
        runners["ORT"] = ort
        if case.gemm:
            pool["numpy"].call("new", threads)
            pool["numpy"].call("feed", feeds)
            runners["numpy"] = pool["numpy"]
        settle = SETTLE_S if threads > 1 else 0.0
        samples = sampled(runners, warmup, repeat, settle, min_sample_s=MIN_SAMPLE_S)
    except BenchError as e:
        raise BenchError(f"{name} on {threads} thread(s): {e}") from None
    seconds = medians(samples)
    ratios = paired_ratio(samples, gemm=bool(case.gemm))
    spread = quartiles(ratios) if ratios else None
    return Row(name, threads, compile_s, error, wrong, seconds, 2.0 * case.gemm**3, spread)


# ------------------------------------------------------------------------------ the table

COLUMNS = (
    "case", "threads", "minitvm ms", "minitvm GFLOP/s", "of peak", "ORT ms", "ORT GFLOP/s",
    "numpy GFLOP/s", "minitvm/ORT ms", "minitvm/numpy GFLOP/s", "rounds p25-p75",
    "max abs err", "compile s",
)  # fmt: skip


def cells(row: Row, peak_gflops: float | None = None) -> list[str]:
    """A row's cells; `peak_gflops` (one core's measured FMA peak) gives a GEMM's share of the
    peak of its threads."""

    def ms(runner: str) -> str:
        return f"{1e3 * row.seconds[runner]:.3f}" if runner in row.seconds else "-"

    def gflops(runner: str) -> str:
        if not row.flops or runner not in row.seconds:
            return "-"
        return f"{row.flops / row.seconds[runner] / 1e9:.1f}"

    def ratio(a: str, b: str, per_second: bool = False) -> str:
        if a not in row.seconds or b not in row.seconds:
            return "-"
        r = row.seconds[a] / row.seconds[b]
        return f"{1 / r if per_second else r:.2f}x"

    def of_peak() -> str:
        if not row.flops or "minitvm" not in row.seconds or not peak_gflops:
            return "-"
        gflops = row.flops / row.seconds["minitvm"] / 1e9
        return f"{100 * gflops / (peak_gflops * row.threads):.0f}%"

    return [
        row.case, str(row.threads), "WRONG" if row.wrong else ms("minitvm"), gflops("minitvm"),
        of_peak(), ms("ORT"), gflops("ORT"), gflops("numpy"), ratio("minitvm", "ORT"),
        ratio("minitvm", "numpy", per_second=True),
        f"{row.spread[0]:.2f}-{row.spread[1]:.2f}x" if row.spread else "-",
        f"{row.error:.2e}", f"{row.compile_s:.2f}",
    ]  # fmt: skip


def format_table(rows: Sequence[Row], peak_gflops: float | None = None) -> str:
    """The table; `of peak` is minitvm's GEMM GFLOP/s over `peak_gflops` (one core's
    measured FMA peak, `minitvm info`) times the row's threads."""
    table = [list(COLUMNS), *(cells(row, peak_gflops) for row in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))
        )
        for line in table
    ]
    return "\n".join(lines) + "\n"


def verdicts(rows: Sequence[Row], tuned: bool = False) -> list[str]:
    """One line per target the rows measure: MET or MISSED, with the figures; with `tuned`,
    the tuned targets too (`Case.goals`)."""
    lines = []
    for row in rows:
        threads = f"{row.threads} thread{'s' if row.threads > 1 else ''}"
        if row.wrong or "minitvm" not in row.seconds:
            continue
        mine, (untuned, tuned_goal) = row.seconds["minitvm"], find_case(row.case).goals
        for target, label in [(untuned, ""), *([(tuned_goal, " (tuned target)")] if tuned else [])]:
            if row.flops:
                ratio = row.seconds["numpy"] / mine
                figures = (
                    f"{row.flops / mine / 1e9:.1f} vs {row.flops / row.seconds['numpy'] / 1e9:.1f}"
                )
                verdict = "MET" if ratio >= target else "MISSED"
                lines.append(
                    f"{verdict:<6} {row.case} >= {target}x numpy GFLOP/s{label}, {threads}: "
                    f"{ratio:.2f}x ({figures} GFLOP/s)"
                )
            else:
                ratio = mine / row.seconds["ORT"]
                verdict = "MET" if ratio <= target else "MISSED"
                lines.append(
                    f"{verdict:<6} {row.case} <= {target}x ORT latency{label}, {threads}: "
                    f"{ratio:.2f}x ({1e3 * mine:.3f} vs {1e3 * row.seconds['ORT']:.3f} ms)"
                )
    return lines


def machine_lines(described: Machine) -> list[str]:
    """The header's description of the machine and of the runtimes measured on it."""
    import onnxruntime as ort

    usable = described.cores
    measured = described.measured
    peak = (
        f"; measured FMA peak {measured.fma_gflops:.1f} GFLOP/s and {measured.bandwidth_gbs:.1f} "
        "GB/s per core (minitvm info)" if measured else ""
    )  # fmt: skip
    return [
        f"cpu: {described.model} (LLVM: {described.llvm_cpu}), {os.cpu_count()} cores ({usable} "
        f"usable by this process), {described.vector_registers} x {described.vector_bits}-bit "
        f"vectors{peak}",
        f"onnxruntime {ort.__version__} (CPU), numpy {np.__version__}, minitvm {minitvm_version()}",
    ]


def minitvm_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("minitvm")
    except PackageNotFoundError:
        return "(not installed)"


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(
    names: Sequence[str],
    threads: Sequence[int],
    repeat: int,
    warmup: int,
    records: str | None = None,
) -> list[Row]:
    """Run the cases (all when `names` is empty), print the table and the verdicts, and
    return the rows; raise BenchError after printing if a result was wrong."""
    cases = {name: find_case(name) for name in names or CASES}
    try:
        import onnxruntime  # noqa: F401  (what minitvm is measured against)
    except ImportError:
        raise BenchError("minitvm bench needs ONNX Runtime: pip install onnxruntime") from None
    blas = Blas()
    described = describe_machine()
    header = [*machine_lines(described), f"BLAS (numpy): {blas.describe()}",
              f"load average: {load_average()}"]  # fmt: skip
    if records is not None:
        header.append(f"minitvm compiles with the tuned schedules of {records}")
    if os.getloadavg()[0] >= (os.cpu_count() or 1) / 2:
        header.append(
            "note: other processes are using this machine: timings, on 2+ threads most, "
            "are not to be trusted"
        )
    print("\n".join(header), flush=True)

    rows = []
    started = time.perf_counter()
    kinds = ["minitvm", "ORT", *(["numpy"] if any(c.gemm for c in cases.values()) else [])]
    with workers(kinds) as pool:
        for name, case in cases.items():
            progress(f"{name}: {case.description}: building the model")
            model = case.build().SerializeToString()
            for t in threads:
                progress(f"{name}: {t} thread{'s' if t > 1 else ''}: compile, check, time")
                rows.append(bench_row(name, case, model, t, pool, warmup, repeat, records))
    elapsed = time.perf_counter() - started

    rounds = f"{repeat} interleaved round{'s' if repeat > 1 else ''}"
    print(f"\nmedian of {rounds} after {warmup} warm-up run(s) each; ORT: intra-op threads = "
          "threads, inter-op 1, sequential; numpy: BLAS threads = threads\n")  # fmt: skip
    peak = described.measured.fma_gflops if described.measured else None
    sys.stdout.write(format_table(rows, peak))
    print("\ntargets (informational):")
    print(
        "\n".join(f"  {line}" for line in verdicts(rows, tuned=records is not None))
        or "  (none measured)"
    )
    print(f"\nload average at the end: {load_average()}; {elapsed:.0f} s", flush=True)
    wrong = [r for r in rows if r.wrong]
    if wrong:
        raise BenchError(
            f"{len(wrong)} wrong result{'s' if len(wrong) > 1 else ''}: "
            + "; ".join(
                f"{r.case} on {r.threads} thread(s): {r.wrong} (max abs error {r.error:.3g})"
                for r in wrong
            )
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """`python bench/suite.py`: `minitvm bench` without the rest of the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_bench_arguments(parser)
    args = parser.parse_args(argv)
    try:
        run(args.cases, args.threads, args.repeat, args.warmup, args.records)
    except MinitvmError as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
