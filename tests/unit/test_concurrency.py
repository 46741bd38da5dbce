"""Concurrency (issue 21): one Executable (or loaded library) run from 8 Python threads at once
gives every thread its own right answer, and two `minitvm tune` processes tuning into one
SQLite file at the same moment lose no trial."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from test_tuner_cli import minitvm, pinned_kernels, tuned_kernels
from tuner_processes import assert_budget_shared, tune_together

import minitvm as mt
from minitvm.tuner.report import read_rows

THREADS, RUNS = 8, 40


def two_output_model() -> onnx.ModelProto:
    """A small MLP with a small output (kept in the Executable's own buffer between runs) and
    a large one (a fresh array per run), so both ways outputs come back are exercised."""
    rng = np.random.default_rng(0)
    w1 = numpy_helper.from_array(rng.standard_normal((64, 128)).astype(np.float32) * 0.1, "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((128, 8)).astype(np.float32) * 0.1, "w2")
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
        helper.make_node("Relu", ["h"], ["big"], name="relu"),
        helper.make_node("MatMul", ["big", "w2"], ["small"], name="fc2"),
    ]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 64])],
        [helper.make_empty_tensor_value_info("small"), helper.make_empty_tensor_value_info("big")],
        [w1, w2],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


Run = Callable[[dict[str, np.ndarray]], list[np.ndarray]]


def hammer(*runs: Run) -> None:
    """THREADS threads each run RUNS times on inputs of their own (thread t on `runs[t %
    len(runs)]`); every output must be that run's single-threaded output for that input."""
    inputs = [
        {"x": np.random.default_rng(seed).standard_normal((64, 64)).astype(np.float32)}
        for seed in range(THREADS * 2)
    ]
    reference = [[[o.copy() for o in run(feed)] for feed in inputs] for run in runs]
    start = threading.Barrier(THREADS)
    failures: list[str] = []

    def worker(thread: int) -> None:
        run, want = runs[thread % len(runs)], reference[thread % len(runs)]
        try:
            start.wait()
            for n in range(RUNS):
                which = 2 * thread + n % 2  # two inputs per thread, none shared
                for got, expected in zip(run(inputs[which]), want[which], strict=True):
                    if not np.array_equal(got, expected):
                        failures.append(f"thread {thread}, run {n}: wrong output")
                        return
        except Exception as e:  # noqa: BLE001  (reported below, with the thread)
            failures.append(f"thread {thread}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert failures == []


@pytest.mark.parametrize("num_threads", [1, 2])
def test_executable_run_from_8_threads(num_threads: int) -> None:
    exe = mt.compile(two_output_model(), num_threads=num_threads)
    hammer(exe.run)


def test_loaded_library_run_from_8_threads(tmp_path: Path) -> None:
    path = tmp_path / "mlp.so"
    mt.compile(two_output_model(), num_threads=2).export(str(path))
    hammer(mt.load(str(path)).run)


def test_two_executables_run_side_by_side() -> None:
    """Two models on 2 and 1 threads, each run from 4 threads at once: they share the
    process's thread pool, and nothing of a run."""
    hammer(mt.compile(two_output_model(), num_threads=2).run, mt.compile(two_output_model()).run)


@pytest.mark.slow
def test_two_tuners_share_one_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/records.db"
    budget = 8
    model = tune_together(tmp_path, url, budget)
    assert_budget_shared(url, budget)
    assert all(row.best_config for row in read_rows(url))  # each task's best is readable
    compiled = minitvm("compile", model, "--records", url, "--num-threads", "1", "--winograd", "never")
    assert compiled.returncode == 0, compiled.stderr
    assert tuned_kernels(compiled.stdout) == pinned_kernels(model, url)
