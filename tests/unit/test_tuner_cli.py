"""`minitvm tune` as a user meets it: tuning, resuming after SIGKILL without losing a trial,
the report and its plot, compiling with the records, and clean errors.

The commands run as subprocesses (`python -m minitvm.tools.cli`), as from a shell.
"""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from tuner_models import conv_relu_chain

from minitvm.records import load_schedules
from minitvm.tuner.tasks import extract_tasks

# Direct convs: the conv_nchwc task these tests look for (a Winograd conv is three kernels).
TUNE = ("--num-threads", "1", "--measure-timeout", "20", "--winograd", "never")


def minitvm(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "minitvm.tools.cli", *map(str, args)],
        check=False, capture_output=True, text=True, cwd=cwd, timeout=300,
    )  # fmt: skip


def pinned_kernels(model: Path, url: str) -> int:
    """How many kernels of `model` (one thread, no Winograd) the records pin a config for:
    what `minitvm compile --records` must say it tuned. A task whose search found nothing
    faster than its default pins none, so this hangs on what the measurements found."""
    pinned = load_schedules(url)
    tasks = extract_tasks(onnx.load(model), num_threads=1, winograd="never")
    return sum(task.count for task in tasks if task.key in pinned)


def tuned_kernels(stdout: str) -> int:
    """The count in `minitvm compile --records`'s "tuned schedules from URL: N kernels"."""
    found = re.search(r"tuned schedules from \S+: (\d+) kernels?\n", stdout)
    assert found is not None, stdout
    return int(found[1])


def start(*args: str | Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "minitvm.tools.cli", *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tune") / "convs.onnx"
    onnx.save(conv_relu_chain(layers=2), str(path))
    return path


def trials(db: Path) -> list[tuple]:
    """(study, number, state, value) of every trial, straight from Optuna's sqlite tables."""
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT s.study_name, t.number, t.state, v.value FROM trials t "
            "JOIN studies s ON s.study_id = t.study_id "
            "LEFT JOIN trial_values v ON v.trial_id = t.trial_id ORDER BY s.study_name, t.number"
        ).fetchall()


def complete(db: Path) -> list[tuple]:
    try:
        return [t for t in trials(db) if t[2] == "COMPLETE"]
    except sqlite3.OperationalError:  # not there yet, or its tables are being made
        return []


def test_tune_report_plot_and_compile_with_records(tmp_path, model: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    result = minitvm("tune", model, "--trials", "8", "--records", url, *TUNE)
    assert result.returncode == 0, result.stderr
    assert "measuring their default schedules" in result.stderr
    assert "fused_conv_nchwc" in result.stdout and "speedup" in result.stdout
    assert "tpe:" in result.stdout and "Trial" not in result.stderr  # Optuna's log is quiet
    check = re.search(r"the model, timed side by side \(10 rounds\): ([\d.]+) ms default -> ([\d.]+) ms tuned", result.stdout)
    assert check is not None and float(check[1]) > 0 and float(check[2]) > 0, result.stdout

    png = tmp_path / "plot.png"
    report = minitvm("tune", "--report", "--records", url, "--plot", png)
    assert report.returncode == 0, report.stderr
    lines = report.stdout.splitlines()
    assert lines[0].split() == [
        "task",
        "sampler",
        "count",
        "trials",
        "failed",
        "invalid",
        "default",
        "best",
        "speedup",
    ]
    conv = next(line for line in lines if "[conv_nchwc]" in line)
    assert conv.split("]", 1)[1].split()[:2] == ["tpe", "2"]  # sampler, count
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert not list(tmp_path.glob(".plot.png.*"))  # no temporary file left behind

    compiled = minitvm("compile", model, "--records", url, "--num-threads", "1", "--winograd", "never")
    assert compiled.returncode == 0, compiled.stderr
    assert tuned_kernels(compiled.stdout) == pinned_kernels(model, url)
    run = minitvm(
        "run", model, "--records", url, "--num-threads", "1", "--compare-ort", "--winograd", "never"
    )
    assert run.returncode == 0, run.stderr
    assert "PASS" in run.stdout


def dense_model(path: Path) -> Path:
    """y = relu(x @ W) with x: [rows, 96] (rows dynamic), W constant: one GEMM kernel."""
    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array(rng.standard_normal((96, 80)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Relu", ["xw"], ["y"])],
        "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", 96])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", 80])],
        [weight],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_tune_a_dynamic_model_at_several_shapes(tmp_path) -> None:
    """Two shapes of one input: a dimension that differs stays symbolic, the kernel of
    symbolic size is measured at both, and a dynamic compile applies the config found."""
    model = dense_model(tmp_path / "dense.onnx")
    url = f"sqlite:///{tmp_path / 'r.db'}"
    shapes = ("--input-shape", "x=3x96", "--input-shape", "x=50x96")
    result = minitvm("tune", model, "--trials", "6", "--records", url, *shapes, *TUNE)
    assert result.returncode == 0, result.stderr
    assert "tuning the kernels of symbolic sizes at rows = 3; rows = 50" in result.stdout
    assert "rowsx96 -> rowsx80" in result.stdout
    compiled = minitvm("compile", model, "--records", url, "--num-threads", "1", "--winograd", "never")
    assert compiled.returncode == 0, compiled.stderr
    assert "input x: float32[rows, 96]" in compiled.stdout
    assert tuned_kernels(compiled.stdout) == len(load_schedules(url))  # its one kernel, if pinned
    run = minitvm("run", model, "--records", url, "--num-threads", "1", "--compare-ort",
                  "--input-shape", "x=1..64x96", "--winograd", "never")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "PASS" in run.stdout
    mismatched = minitvm("tune", model, "--trials", "2", "--records", url, *shapes,
                         "--input-shape", "x=7x96", "--input-shape", "z=1x2", *TUNE)  # fmt: skip
    assert mismatched.returncode == 1 and "Traceback" not in mismatched.stderr


def test_sigkill_loses_no_trial_and_the_rerun_resumes(tmp_path, model: Path) -> None:
    db = tmp_path / "r.db"
    args = ("tune", model, "--trials", "12", "--records", f"sqlite:///{db}", *TUNE)
    tuner = start(*args)
    deadline = time.monotonic() + 120
    try:
        # Trial 0 of a study is the default; wait for two measured candidates as well.
        while len(complete(db)) < 4:
            assert tuner.poll() is None, tuner.communicate()
            assert time.monotonic() < deadline, "the tuner made no progress"
            time.sleep(0.05)
    finally:
        tuner.send_signal(signal.SIGKILL)
        tuner.communicate()
    assert tuner.returncode == -signal.SIGKILL
    before = complete(db)
    assert len(before) >= 4

    result = minitvm(*args)
    assert result.returncode == 0, result.stderr
    after = trials(db)
    assert set(before) <= set(after)  # every completed trial is still there, unchanged
    assert len({t[0] for t in after}) == len({t[0] for t in before} | {t[0] for t in after})
    assert len(complete(db)) > len(before)
    assert not [t for t in after if t[2] == "RUNNING"]  # the one in flight was marked lost
    assert (
        sum(1 for t in after if t[2] == "COMPLETE") + sum(1 for t in after if t[2] == "FAIL") >= 12
    )
    # Run again: the budget is used, nothing new is measured.
    again = minitvm(*args)
    assert again.returncode == 0, again.stderr
    assert trials(db) == after


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("tune", "{model}", "--trials", "2", "--records", "nope.db"), "not a database URL"),
        (
            ("tune", "{model}", "--trials", "2", "--records", "sqlite:///{tmp}/no/such/dir/r.db"),
            "no such directory",
        ),
        (("tune", "--report", "--records", "sqlite:///{tmp}/missing.db"), "no such file"),
        (("tune", "{model}"), "give a budget"),
        (("tune", "--trials", "3"), "give the model"),
        (
            ("compile", "{model}", "--records", "postgresql://u:p@127.0.0.1:1/db"),
            "cannot open the database",
        ),
    ],
)
def test_errors_are_one_clean_line(
    tmp_path, model: Path, args: tuple[str, ...], message: str
) -> None:
    result = minitvm(*(a.format(model=model, tmp=tmp_path) for a in args))
    assert result.returncode == 1
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.startswith("minitvm: error: ")


def test_progress_shows_overall_and_task_bars_with_the_best_so_far() -> None:
    import io

    from minitvm.tuner.progress import TuneProgress
    from minitvm.tuner.search import Overview, TrialNote

    stream = io.StringIO()
    overview = Overview(
        ("conv a", "gemm b"), (2, 1), (2e-3, 1e-3), (4, 3), (1, 0), (2e-3, None), None, 1
    )
    with TuneProgress(stream, bars=True) as progress:
        progress(("plan", overview))
        progress(("start", 0, 4, 1))
        progress(("trial", 0, TrialNote(1, "COMPLETE", 1e-3, "ok", True)))
        progress(("trial", 0, TrialNote(2, "FAIL", None, "crash", True)))
        progress(("trial", 0, TrialNote(3, "PRUNED", None, "invalid", False)))
        progress(("done", 0))
        progress(("start", 1, 3, 0))
    text = stream.getvalue()
    assert "[1/2] conv a" in text and "best 1.000 ms (2.00x)" in text
    assert (
        "[1/2] conv a (x2): 3 trials, 1 failed, best 1.000 ms (2.00x) vs default 2.000 ms" in text
    )
    assert "tuning" in text and "2/6" in text  # overall: 6 trials to go, 2 measured
    assert "[2/2] gemm b (x1): 0 trials, none completed, default 1.000 ms" in text
