"""The machine, described: what this CPU has and what it measurably does.

Schedules and the tuner are to be derived from this description, never from constants tuned on
one CPU. It has two parts:

- read from the system, every time (cheap): the CPU's model name (/proc/cpuinfo), LLVM's name
  for it and its feature list (`host.py`), the vector register file that follows from the
  features (`host.register_file`: 32 x 512-bit with AVX-512, 16 x 256-bit with AVX2), the
  caches per level (sysfs: size, line, how many CPUs share each), and the cores this process
  may use;
- measured, once per machine (a few milliseconds, then cached on disk): the fp32 FMA
  throughput of one core, from independent chains of vector FMAs on the widest vectors
  (enough chains to cover the FMA latency times the FMA pipes of any x86 core), the memory
  read bandwidth of one core, streaming a buffer several times the size of the last-level
  cache, and its L2 read bandwidth, streaming a buffer half the L2's size over and over (what
  a GEMM gets that streams its B panel from L2 rather than L1). The cache file is keyed by
  everything read above, so a different CPU (or the same one with different features
  visible) is measured anew.

`minitvm info` prints it. The cache lives in `$MINITVM_CACHE_DIR` (default
`~/.cache/minitvm`), one JSON file per machine, written atomically.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import math
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from minitvm.host import (
    default_num_threads,
    enabled_features,
    host_cpu,
    register_file,
    target_machine,
)

#: Bump when what is measured, or how, changes: older cache files are then measured anew.
MEASUREMENT_VERSION = 2

_SYSFS_CPU = Path("/sys/devices/system/cpu")


@dataclass(frozen=True)
class Cache:
    """One cache of the first CPU: level 1-3, kind "data", "instruction" or "unified"."""

    level: int
    kind: str
    size: int  # bytes
    line: int  # bytes
    shared_by: int  # how many CPUs share it


@dataclass(frozen=True)
class Measured:
    """What the machine does, measured on one core."""

    fma_gflops: float  # fp32 FMA throughput (2 flops per lane per FMA)
    fma_chains: int  # independent accumulator chains the measurement ran
    bandwidth_gbs: float  # memory read bandwidth
    bandwidth_bytes: int  # the buffer streamed
    when: str  # ISO time of the measurement
    l2_bandwidth_gbs: float | None = None  # L2 read bandwidth (None where sysfs lists no L2)
    version: int = MEASUREMENT_VERSION


@dataclass(frozen=True)
class Machine:
    model: str  # the CPU's own name (/proc/cpuinfo "model name")
    llvm_cpu: str  # LLVM's name for it (host.host_cpu, corrected where it is masked)
    features: tuple[str, ...]  # the LLVM features it has, sorted
    cores: int  # CPUs this process may run on
    caches: tuple[Cache, ...]
    measured: Measured | None = field(default=None, compare=False)

    @property
    def vector_bits(self) -> int:
        """The width of the widest vector registers."""
        return register_file(self.features)[1]

    @property
    def vector_registers(self) -> int:
        """How many of them: 32 zmm with AVX-512, else 16."""
        return register_file(self.features)[0]

    @property
    def f32_lanes(self) -> int:
        return self.vector_bits // 32

    def cache(self, level: int, kind: str = "data") -> Cache | None:
        """The level-`level` cache holding data (a unified one does), or None."""
        return find_cache(self.caches, level, kind)

    @property
    def key(self) -> str:
        """A digest of everything read from the system: what measurements are cached under."""
        text = json.dumps([self.model, self.llvm_cpu, self.features, self.cores,
                           [asdict(c) for c in self.caches]])  # fmt: skip
        return hashlib.sha256(text.encode()).hexdigest()[:16]


# ------------------------------------------------------------------------ read from the system


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The first "model name" of /proc/cpuinfo, or "unknown CPU"."""
    try:
        for line in cpuinfo.read_text().splitlines():
            name, _, value = line.partition(":")
            if name.strip() == "model name":
                return value.strip()
    except OSError:
        pass
    return "unknown CPU"


def _size(text: str) -> int:
    """sysfs sizes: `32K`, `1024K`, `32M`, or bytes."""
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * scale


def _cpu_count(cpu_list: str) -> int:
    """How many CPUs a sysfs list (`0-3,8`) names."""
    count = 0
    for part in cpu_list.strip().split(","):
        if part:
            first, _, last = part.partition("-")
            count += int(last or first) - int(first) + 1
    return count


def find_cache(caches: Sequence[Cache], level: int, kind: str = "data") -> Cache | None:
    """The level-`level` cache of `caches` holding `kind` (a unified one does), or None."""
    return next((c for c in caches if c.level == level and c.kind in (kind, "unified")), None)


def read_caches(cpu_dir: Path = _SYSFS_CPU / "cpu0") -> tuple[Cache, ...]:
    """The caches sysfs lists for one CPU (empty where it lists none)."""
    caches = []
    for index in sorted((cpu_dir / "cache").glob("index*")):
        try:
            caches.append(
                Cache(
                    level=int((index / "level").read_text()),
                    kind=(index / "type").read_text().strip().lower(),
                    size=_size((index / "size").read_text()),
                    line=int((index / "coherency_line_size").read_text()),
                    shared_by=_cpu_count((index / "shared_cpu_list").read_text()),
                )
            )
        except (OSError, ValueError):
            continue  # a cache sysfs half-describes is left out
    return tuple(sorted(caches, key=lambda c: (c.level, c.kind)))


def read_machine() -> Machine:
    """This machine as the system describes it (nothing measured)."""
    name, flattened = host_cpu()
    return Machine(cpu_model(), name, enabled_features(flattened), default_num_threads(),
                   read_caches())  # fmt: skip


# ------------------------------------------------------------------------ measured


def _fma_ir(lanes: int, chains: int) -> str:
    """`float fma_loop(i64 n)`: `chains` independent vector FMA chains, n steps each
    (a = a * 0.75 + 0.25: constants LLVM can spell exactly, values that stay finite)."""
    vec = f"<{lanes} x float>"
    splat = lambda x: f"<{', '.join([f'float {x}'] * lanes)}>"  # noqa: E731
    intrinsic = f"@llvm.fma.v{lanes}f32"
    phis = "\n".join(
        f"  %a{c} = phi {vec} [ {splat(f'{1.0 + c / 64:e}')}, %entry ], [ %n{c}, %loop ]"
        for c in range(chains)
    )
    steps = "\n".join(
        f"  %n{c} = call {vec} {intrinsic}({vec} %a{c}, {vec} {splat('7.500000e-01')}, "
        f"{vec} {splat('2.500000e-01')})"
        for c in range(chains)
    )
    sums = [f"  %s0 = fadd {vec} %n0, zeroinitializer"]
    sums += [f"  %s{c} = fadd {vec} %s{c - 1}, %n{c}" for c in range(1, chains)]
    return f"""
declare {vec} {intrinsic}({vec}, {vec}, {vec})

define float @fma_loop(i64 %steps) {{
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
{phis}
{steps}
  %i.next = add i64 %i, 1
  %more = icmp ult i64 %i.next, %steps
  br i1 %more, label %loop, label %exit
exit:
{chr(10).join(sums)}
  %r = extractelement {vec} %s{chains - 1}, i32 0
  ret float %r
}}
"""


def _stream_ir(lanes: int) -> str:
    """`float stream(ptr p, i64 n, i64 reps)`: the sum of n floats, four vectors a step (n a
    multiple of 4 * lanes), read `reps` times over: a read of the whole buffer at the speed
    the level of memory that holds it delivers it."""
    vec = f"<{lanes} x float>"
    step = 4 * lanes
    phis = "\n".join(
        f"  %a{k} = phi {vec} [ %c{k}, %pass ], [ %n{k}, %loop ]" for k in range(4)
    )
    carried = "\n".join(
        f"  %c{k} = phi {vec} [ zeroinitializer, %entry ], [ %n{k}, %next ]" for k in range(4)
    )
    body = "\n".join(
        f"  %o{k} = add i64 %i, {k * lanes}\n"
        f"  %p{k} = getelementptr inbounds float, ptr %base, i64 %o{k}\n"
        f"  %v{k} = load {vec}, ptr %p{k}, align 64\n"
        f"  %n{k} = fadd {vec} %a{k}, %v{k}"
        for k in range(4)
    )
    return f"""
define float @stream(ptr noalias %base, i64 %n, i64 %reps) {{
entry:
  br label %pass
pass:
  %r = phi i64 [ 0, %entry ], [ %r.next, %next ]
{carried}
  br label %loop
loop:
  %i = phi i64 [ 0, %pass ], [ %i.next, %loop ]
{phis}
{body}
  %i.next = add i64 %i, {step}
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %next
next:
  %r.next = add i64 %r, 1
  %again = icmp ult i64 %r.next, %reps
  br i1 %again, label %pass, label %exit
exit:
  %s01 = fadd {vec} %n0, %n1
  %s23 = fadd {vec} %n2, %n3
  %s = fadd {vec} %s01, %s23
  %x = extractelement {vec} %s, i32 0
  ret float %x
}}
"""


class _Jit:
    """One LLVM module of measurement kernels, compiled for this CPU."""

    def __init__(self, ir: str) -> None:
        import llvmlite.binding as llvm

        tm = target_machine(native=True)  # measured here, whatever we compile for
        module = llvm.parse_assembly(ir)
        module.triple = tm.triple
        module.verify()
        self.engine = llvm.create_mcjit_compiler(module, tm)
        self.engine.finalize_object()

    def function(self, name: str, restype: object, *argtypes: object) -> Callable[..., float]:
        """A ctypes callable for `name`; it keeps this module's code alive."""
        fn = ctypes.CFUNCTYPE(restype, *argtypes)(self.engine.get_function_address(name))
        fn._jit = self  # type: ignore[attr-defined]
        return fn


def _best_seconds(run: Callable[[], object], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def measure_fma(machine: Machine, seconds: float = 0.004) -> tuple[float, int]:
    """(GFLOP/s, chains): one core's fp32 FMA throughput on its widest vectors. The chains
    (all but 4 of the vector registers, at most 24) cover 4-cycle latency x 2 pipes thrice."""
    lanes = machine.f32_lanes
    chains = min(24, machine.vector_registers - 4)
    fma = _Jit(_fma_ir(lanes, chains)).function("fma_loop", ctypes.c_float, ctypes.c_int64)
    steps = 1000
    while (elapsed := _best_seconds(lambda: fma(steps), 2)) < seconds / 4:
        steps *= 4  # until one run takes a good share of `seconds`
    steps = max(steps, int(steps * seconds / elapsed))
    best = _best_seconds(lambda: fma(steps), 5)
    return steps * chains * lanes * 2 / best / 1e9, chains


def _streamer(machine: Machine) -> Callable[[np.ndarray, int], float]:
    """stream(view, reps): seconds of the best of a few reads of `view` (float32, 64-byte
    aligned, a multiple of 4 vectors long), `reps` times over each."""
    stream = _Jit(_stream_ir(machine.f32_lanes)).function(
        "stream", ctypes.c_float, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64
    )
    return lambda view, reps: _best_seconds(lambda: stream(view.ctypes.data, view.size, reps), 4)


def _aligned_floats(size: int, lanes: int) -> np.ndarray:
    """About `size` bytes of float32 ones, 64-byte aligned, a whole number of 4-vector steps."""
    count = max(size // 4 // (4 * lanes), 1) * (4 * lanes)
    data = np.ones(count + 16, dtype=np.float32)
    offset = (-data.ctypes.data % 64) // 4
    return data[offset : offset + count]


def measure_bandwidth(
    machine: Machine, stream: Callable[[np.ndarray, int], float] | None = None
) -> tuple[float, int]:
    """(GB/s, bytes): one core streaming a buffer 4x the last-level cache (64 MiB at least),
    with `stream` (`_streamer(machine)`, compiled here if not given)."""
    last = max((c.size for c in machine.caches), default=0)
    view = _aligned_floats(max(64 << 20, 4 * last), machine.f32_lanes)
    return view.nbytes / (stream or _streamer(machine))(view, 1) / 1e9, view.nbytes


def measure_l2_bandwidth(
    machine: Machine, seconds: float = 0.002, stream: Callable[[np.ndarray, int], float] | None = None
) -> float | None:
    """GB/s one core reads from its L2: a buffer half the L2's size (more than the L1 holds,
    room to spare in the L2) streamed over and over; None where sysfs lists no L2."""
    l2 = machine.cache(2)
    if l2 is None:
        return None
    view = _aligned_floats(l2.size // 2, machine.f32_lanes)
    reps = max(1, int(seconds * 100e9 / view.nbytes))  # about `seconds` at 100 GB/s
    return view.nbytes * reps / (stream or _streamer(machine))(view, reps) / 1e9


def measure(machine: Machine) -> Measured:
    gflops, chains = measure_fma(machine)
    stream = _streamer(machine)  # (one compile of the streaming kernel for both)
    gbs, size = measure_bandwidth(machine, stream)
    l2 = measure_l2_bandwidth(machine, stream=stream)
    when = time.strftime("%Y-%m-%dT%H:%M:%S")
    return Measured(gflops, chains, gbs, size, when, l2_bandwidth_gbs=l2)


# ------------------------------------------------------------------------ cached on disk


def cache_dir() -> Path:
    return Path(os.environ.get("MINITVM_CACHE_DIR") or Path.home() / ".cache" / "minitvm")


def cache_path(machine: Machine) -> Path:
    return cache_dir() / f"machine-{machine.key}.json"


def _load(path: Path) -> Measured | None:
    try:
        data = json.loads(path.read_text())
        measured = Measured(**data["measured"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing, unreadable or from another minitvm: measure anew
    return measured if measured.version == MEASUREMENT_VERSION else None


def _save(path: Path, machine: Machine) -> None:
    """Write the description atomically; a cache we cannot write is no error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(asdict(machine), f, indent=1)
        os.replace(tmp, path)
    except OSError:
        pass


def describe_machine(remeasure: bool = False) -> Machine:
    """This machine: read from the system, with its measurements from the cache (measured and
    cached first if there are none for it, or if `remeasure`)."""
    machine = read_machine()
    path = cache_path(machine)
    measured = None if remeasure else _load(path)
    if measured is not None:
        return replace(machine, measured=measured)
    machine = replace(machine, measured=measure(machine))
    _save(path, machine)
    return machine


@functools.cache
def measured_here() -> Measured | None:
    """This machine's measurements, read from the cache (or measured) once per process: what
    the schedules' defaults are derived from."""
    return describe_machine().measured
