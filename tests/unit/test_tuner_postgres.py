"""Two `minitvm tune` processes share one set of studies through PostgreSQL, as tuners on
several machines would: together they run the budget once, no trial is lost or numbered
twice, and the records they leave apply to a compile.

The server comes from `MINITVM_TEST_POSTGRES_URL` (`.ci/run` starts Debian's PostgreSQL and
sets it, see `.ci/postgres`). Each run works in a database of its own, dropped at the end.
Without the variable the test is skipped, except under CI (`CI=true`), where a missing
server is a failure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import onnx
import optuna
import pytest
from test_tuner_cli import TUNE, minitvm
from tuner_models import conv_relu_chain

from minitvm.records import open_storage
from minitvm.tuner.search import DEFAULT, WORKER

SERVER = os.environ.get("MINITVM_TEST_POSTGRES_URL")

if SERVER is None and os.environ.get("CI") != "true":
    pytest.skip("MINITVM_TEST_POSTGRES_URL is not set (.ci/postgres starts a server)", allow_module_level=True)


@pytest.fixture
def database() -> Iterator[str]:
    """A fresh database on the server, as a SQLAlchemy URL; dropped afterwards."""
    assert SERVER is not None, "CI must set MINITVM_TEST_POSTGRES_URL (.ci/run does)"
    import psycopg2

    name = f"minitvm_test_{uuid.uuid4().hex[:12]}"
    admin = psycopg2.connect(SERVER.replace("postgresql+psycopg2://", "postgresql://"))
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {name}")
    try:
        yield re.sub(r"/[^/]*$", f"/{name}", SERVER)
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


#: Run by each tuner before `minitvm tune`: import what tuning needs, say so, then wait for the
#: word to go, so that neither tuner spends the whole budget while the other is still importing.
_AT_THE_LINE = """
import sys, time
from pathlib import Path
import minitvm.compiler, minitvm.tuner.search, minitvm.tools.cli as cli
ready, go, *argv = sys.argv[1:]
Path(ready).touch()
deadline = time.monotonic() + 120
while not Path(go).exists() and time.monotonic() < deadline:
    time.sleep(0.01)
sys.exit(cli.main(argv))
"""


def start_together(workdir: Path, *commands: tuple[str | Path, ...]) -> list[subprocess.Popen[str]]:
    """Start one `minitvm` process per command and release them at the same moment."""
    go = workdir / "go"
    processes, readies = [], []
    for i, command in enumerate(commands):
        ready = workdir / f"ready{i}"
        readies.append(ready)
        argv = [sys.executable, "-c", _AT_THE_LINE, str(ready), str(go), *map(str, command)]
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
        processes.append(subprocess.Popen(argv, **pipes))
    deadline = time.monotonic() + 120
    while not all(r.exists() for r in readies):
        assert time.monotonic() < deadline, "a tuner did not start"
        assert all(p.poll() is None for p in processes), "a tuner ended before the start"
        time.sleep(0.01)
    go.touch()
    return processes


def test_two_tuners_share_the_studies_through_postgresql(tmp_path: Path, database: str) -> None:
    model = tmp_path / "convs.onnx"
    onnx.save(conv_relu_chain(layers=2), str(model))
    budget = 10
    tuners = start_together(
        tmp_path,
        *(
            ("tune", model, "--trials", str(budget), "--records", database, "--seed", str(s), *TUNE)
            for s in (1, 2)
        ),
    )
    for tuner in tuners:
        _, stderr = tuner.communicate(timeout=600)
        assert tuner.returncode == 0, stderr

    storage = open_storage(database)
    studies = optuna.get_all_study_summaries(storage)
    assert studies, "the tuners wrote no study"
    counted = 0
    workers: set[str] = set()
    for summary in studies:
        trials = optuna.load_study(study_name=summary.study_name, storage=storage).get_trials(deepcopy=False)
        numbers = [t.number for t in trials]
        assert sorted(numbers) == list(range(len(trials))), f"{summary.study_name}: numbers {numbers}"
        assert all(t.state != optuna.trial.TrialState.RUNNING for t in trials)  # none lost mid-way
        assert sum(1 for t in trials if t.user_attrs.get(DEFAULT)) >= 1
        counted += sum(1 for t in trials if t.state != optuna.trial.TrialState.PRUNED)
        workers |= {t.user_attrs[WORKER] for t in trials if WORKER in t.user_attrs}
    # the budget was run once between the two, not once each (a default trial both tuners
    # add to a brand-new study at the same instant may count twice)
    assert budget <= counted <= budget + len(studies)
    assert len(workers) == 2, f"trials came from {workers}"

    compiled = minitvm("compile", model, "--records", database, "--num-threads", "1")
    assert compiled.returncode == 0, compiled.stderr
    tuned = re.search(r"tuned schedules from \S+: (\d+) kernels", compiled.stdout)
    assert tuned is not None and int(tuned[1]) >= 2
    run = minitvm("run", model, "--records", database, "--num-threads", "1", "--compare-ort")
    assert run.returncode == 0, run.stderr
    assert "PASS" in run.stdout
