"""tuner/measure.py: candidates are built and timed in a worker that bad ones cannot take down.

Real candidates are a 64 x 64 GEMM at the te level; bad ones are made by swapping the job's
builder for one of the top-level functions below (the worker imports this module to find
them), so no broken IR is needed. Worker crashes and timeouts restart the worker, which takes
about a second each: the Measurer is shared across the file.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, TensorType, f32
from xdsl.ir import Block, Region

from minitvm.compiler import lower_to_te
from minitvm.dialects import graph, te
from minitvm.errors import MinitvmError
from minitvm.ir import print_module
from minitvm.runtime import TensorSpec
from minitvm.tuner.measure import (
    MeasureJob,
    Measurer,
    MeasureStatus,
    Runner,
    build_module,
    measure,
    seeded_inputs,
)

N = 64
SPEC = TensorSpec("", (N, N), np.dtype(np.float32))


def gemm_text(schedule: list | None = None) -> str:
    """C = A @ B as te-level module text; `schedule` replaces the default one."""
    block = Block(arg_types=[TensorType(f32, [N, N])] * 2)
    product = graph.MatMulOp.make(block.args[0], block.args[1])
    block.add_ops([product, func.ReturnOp(product.results[0])])
    fn = func.FuncOp("main", (block.arg_types, [product.results[0].type]), Region(block))
    module = ModuleOp([fn])
    lower_to_te(module)
    if schedule is not None:  # (on the product: where B is packed at run time, AVX2's, the
        # packing is a compute of its own)
        (compute,) = [op for op in module.walk() if isinstance(op, te.ComputeOp) and op.extents]
        compute.attributes[te.SCHEDULE_ATTR] = ArrayAttr(schedule)
    return print_module(module)


def gemm_job(text: str | None = None, **fields) -> MeasureJob:
    return MeasureJob(
        text if text is not None else gemm_text(),
        (replace(SPEC, name="a"), replace(SPEC, name="b")),
        (replace(SPEC, name="c"),),
        **fields,
    )


# --- builders the worker runs instead of the real one --------------------------------------


def segfault_building(job: MeasureJob) -> Runner:
    ctypes.string_at(0)
    raise AssertionError("unreachable")


def segfault_running(job: MeasureJob) -> Runner:
    return lambda inputs: [ctypes.string_at(0)]


def hang_running(job: MeasureJob) -> Runner:
    def run(inputs: Mapping[str, np.ndarray]) -> Sequence[np.ndarray]:
        time.sleep(3600)
        return []

    return run


def hang_ignoring_sigterm(job: MeasureJob) -> Runner:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # as native code stuck in a syscall might
    return hang_running(job)


def raise_running(job: MeasureJob) -> Runner:
    def run(inputs: Mapping[str, np.ndarray]) -> Sequence[np.ndarray]:
        raise ValueError("kernel said no")

    return run


def off_by_a_little(job: MeasureJob) -> Runner:
    run = build_module(job)
    return lambda inputs: [out * np.float32(1.01) for out in run(inputs)]


def counting(job: MeasureJob) -> Runner:
    """Each run returns how many runs there have been, so the last output is the count."""
    calls = iter(range(1, 1_000_000))
    return lambda inputs: [np.array(next(calls))]


def sleeping(job: MeasureJob) -> Runner:
    def run(inputs: Mapping[str, np.ndarray]) -> Sequence[np.ndarray]:
        time.sleep(0.005)
        return []

    return run


# --- tests -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def measurer() -> Iterator[Measurer]:
    with Measurer(timeout=30.0, warmup=1, repeats=3, kill_grace=0.5) as m:
        yield m


@pytest.fixture(scope="module")
def reference(measurer: Measurer) -> tuple[np.ndarray, ...]:
    """The untuned GEMM's outputs, the way the tuner gets them."""
    result = measurer.run(gemm_job(), return_outputs=True)
    assert result.status is MeasureStatus.OK, result.message
    assert result.outputs is not None
    return result.outputs


def test_real_gemm_is_measured_and_matches_numpy(
    measurer: Measurer, reference: tuple[np.ndarray, ...]
):
    inputs = seeded_inputs(gemm_job().inputs, seed=0)
    expected = inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)
    np.testing.assert_allclose(reference[0], expected, rtol=1e-4, atol=1e-4)

    # A candidate: another schedule, checked against the untuned module's outputs.
    schedule = [te.split("i1", 16), te.reorder("i0", "r0", "i1.o", "i1.i"), te.vectorize("i1.i")]
    result = measurer.run(gemm_job(gemm_text(schedule), reference=reference))
    assert result.status is MeasureStatus.OK, result.message
    assert result.median_seconds is not None and result.median_seconds > 0
    assert len(result.seconds) == 3
    assert result.build_seconds is not None and result.build_seconds > 0
    assert result.outputs is None  # not asked for
    assert measurer.worker_startup_seconds is not None


def test_crash_while_building_then_the_next_job_succeeds(measurer: Measurer):
    result = measurer.run(gemm_job(builder=segfault_building))
    assert result.status is MeasureStatus.CRASH
    assert result.message == "worker crashed with signal SIGSEGV while building"
    assert result.median_seconds is None and result.build_seconds is None
    assert measurer.run(gemm_job()).ok


def test_crash_while_running_keeps_the_build_time(measurer: Measurer):
    result = measurer.run(gemm_job(builder=segfault_running))
    assert result.status is MeasureStatus.CRASH
    assert result.message == "worker crashed with signal SIGSEGV while running"
    assert result.build_seconds is not None
    assert measurer.run(gemm_job()).ok


@pytest.mark.parametrize("builder", [hang_running, hang_ignoring_sigterm])
def test_hang_times_out_then_the_next_job_succeeds(measurer: Measurer, builder):
    start = time.monotonic()
    result = measurer.run(gemm_job(builder=builder), timeout=1.0)
    elapsed = time.monotonic() - start
    assert result.status is MeasureStatus.TIMEOUT
    assert result.message == "timed out after 1.0 s while running"
    # Timeout + SIGTERM grace (+ SIGKILL), with slack for a loaded machine.
    assert elapsed < 1.0 + measurer.kill_grace + 3.0
    assert measurer.run(gemm_job()).ok


def test_worker_killed_while_idle_is_replaced(measurer: Measurer):
    pid = measurer.worker_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    while _alive(pid):
        time.sleep(0.01)
    assert measurer.run(gemm_job(builder=counting)).ok


def test_wrong_result(measurer: Measurer, reference: tuple[np.ndarray, ...]):
    result = measurer.run(gemm_job(reference=reference, builder=off_by_a_little))
    assert result.status is MeasureStatus.WRONG_RESULT
    assert result.median_seconds is None
    assert result.message.startswith("output 0: ")
    assert "vs tolerance" in result.message
    # Within a loose enough tolerance the same outputs pass.
    assert measurer.run(gemm_job(reference=reference, builder=off_by_a_little, rtol=0.02)).ok


def test_wrong_shape_is_a_wrong_result(measurer: Measurer):
    result = measurer.run(gemm_job(reference=(np.zeros((2, 2), np.float32),)))
    assert result.status is MeasureStatus.WRONG_RESULT
    assert result.message == "output 0 is float32[64, 64] but the reference is float32[2, 2]"


def test_unparsable_module_is_a_build_error(measurer: Measurer):
    result = measurer.run(gemm_job("builtin.module { this is not IR }"))
    assert result.status is MeasureStatus.BUILD_ERROR
    assert result.message.startswith("<candidate>:1:")
    assert "\n" not in result.message


def test_exception_while_running_is_a_run_error(measurer: Measurer):
    result = measurer.run(gemm_job(builder=raise_running))
    assert result.status is MeasureStatus.RUN_ERROR
    assert result.message == "ValueError: kernel said no"
    assert result.build_seconds is not None


def test_warmup_and_repeats_are_honoured(measurer: Measurer, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(measurer, "warmup", 2)
    monkeypatch.setattr(measurer, "repeats", 4)
    result = measurer.run(gemm_job(builder=counting), return_outputs=True)
    assert result.ok, result.message
    assert len(result.seconds) == 4
    assert result.outputs is not None and int(result.outputs[0]) == 2 + 4  # the last run's
    assert result.median_seconds == statistics.median(result.seconds)

    # min_seconds: more repeats until that much has been timed, but at most max_repeats.
    monkeypatch.setattr(measurer, "repeats", 2)
    monkeypatch.setattr(measurer, "min_seconds", 0.05)
    result = measurer.run(gemm_job(builder=sleeping))
    assert result.ok, result.message
    assert len(result.seconds) > 2 and sum(result.seconds) >= 0.05
    monkeypatch.setattr(measurer, "max_repeats", 3)
    assert len(measurer.run(gemm_job(builder=sleeping)).seconds) == 3


def test_eviction_before_each_run_counts_toward_min_seconds(
    measurer: Measurer, monkeypatch: pytest.MonkeyPatch
):
    """A job that reads 64 MiB before each run (cold caches) stops once the runs and the reads
    add up to min_seconds: instant runs alone would go on to max_repeats."""
    monkeypatch.setattr(measurer, "repeats", 2)
    monkeypatch.setattr(measurer, "min_seconds", 0.05)
    result = measurer.run(gemm_job(builder=counting, evict_bytes=64 << 20), return_outputs=True)
    assert result.ok, result.message
    assert 2 <= len(result.seconds) < 200  # (reading 64 MiB takes well over 0.25 ms)
    assert result.outputs is not None and int(result.outputs[0]) == 1 + len(result.seconds)


def test_eviction_reads_a_margin_over_the_caches(monkeypatch: pytest.MonkeyPatch):
    from minitvm import machine
    from minitvm.tuner.measure import eviction_bytes

    caches = (
        machine.Cache(1, "data", 48 << 10, 64, 2),
        machine.Cache(1, "instruction", 32 << 10, 64, 2),
        machine.Cache(2, "unified", 2 << 20, 64, 2),
        machine.Cache(3, "unified", 105 << 20, 64, 112),
    )
    described = machine.Machine("cpu", "sapphirerapids", ("avx512f",), 2, caches)
    monkeypatch.setattr(machine, "describe_machine", lambda: described)
    assert eviction_bytes() == 4 * ((48 << 10) + (2 << 20) + (105 << 20))
    assert eviction_bytes(margin=2) == 2 * ((48 << 10) + (2 << 20) + (105 << 20))


def test_measure_one_shot_leaves_no_process():
    before = set(multiprocessing.active_children())
    result = measure(gemm_job(builder=raise_running), timeout=5.0)
    assert result.status is MeasureStatus.RUN_ERROR
    assert set(multiprocessing.active_children()) <= before


def test_workers_are_replaced_after_jobs_per_worker_and_reaped_on_close():
    with Measurer(jobs_per_worker=1) as m:
        first = m.worker_pid
        assert first is not None and _alive(first)
        assert m.run(gemm_job(builder=counting)).ok
        second = m.worker_pid
        assert second is not None and second != first
    assert m.worker_pid is None
    for pid in (first, second):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # reaped, not a zombie


def test_worker_dies_with_its_parent(tmp_path):
    """A tuner killed with SIGKILL (no atexit, no close) must not leave its worker behind."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import os, signal\n"
        "from minitvm.tuner.measure import Measurer\n"
        "if __name__ == '__main__':\n"
        "    with Measurer() as m:\n"
        "        print(m.worker_pid, flush=True)\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    parent = subprocess.run(
        [sys.executable, str(script)], check=False, capture_output=True, text=True, timeout=60
    )
    assert parent.returncode == -signal.SIGKILL, parent.stderr
    worker = int(parent.stdout)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.1)
    assert not _alive(worker)


def _alive(pid: int) -> bool:
    # Orphans are re-parented to init (or a subreaper), which reaps them: gone means gone.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_bad_policy_is_refused():
    with pytest.raises(MinitvmError, match="repeats"):
        Measurer(repeats=0)
    with pytest.raises(MinitvmError, match="timeouts"):
        Measurer(timeout=0)
