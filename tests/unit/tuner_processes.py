"""Several `minitvm tune` processes on one set of records, as the sharing tests run them:
started at the same moment, then the records checked for a budget run once and nothing lost
(tests/unit/test_tuner_postgres.py: PostgreSQL; tests/unit/test_concurrency.py: SQLite)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import onnx
import optuna
from test_tuner_cli import TUNE
from tuner_models import conv_relu_chain

from minitvm.records import open_storage
from minitvm.tuner.search import DEFAULT, WORKER

#: Run by each tuner before `minitvm tune`: import what tuning needs, say so, then wait for the
#: word to go, so that neither tuner spends the whole budget while the other is still importing.
#: A second line is drawn where the trials begin (`run_plan`, after the tasks are extracted and
#: their defaults measured, which takes each tuner a different time on a loaded machine): a
#: tuner waits there until every tuner has arrived, so that both measure trials.
_AT_THE_LINE = """
import sys, time
from pathlib import Path
import minitvm.compiler, minitvm.tuner.search as search, minitvm.tools.cli as cli
ready, go, tuners, *argv = sys.argv[1:]

def wait_for(paths):
    deadline = time.monotonic() + 300
    while not all(p.exists() for p in paths) and time.monotonic() < deadline:
        time.sleep(0.01)

run_plan = search.run_plan
def run_plan_together(*args, **kwargs):
    Path(ready + ".trials").touch()
    wait_for([Path(ready).with_name(f"ready{i}.trials") for i in range(int(tuners))])
    return run_plan(*args, **kwargs)
search.run_plan = run_plan_together

Path(ready).touch()
wait_for([Path(go)])
sys.exit(cli.main(argv))
"""


def start_together(workdir: Path, *commands: tuple[str | Path, ...]) -> list[subprocess.Popen[str]]:
    """Start one `minitvm` process per command and release them at the same moment."""
    go = workdir / "go"
    processes, readies = [], []
    for i, command in enumerate(commands):
        ready = workdir / f"ready{i}"
        readies.append(ready)
        argv = [sys.executable, "-c", _AT_THE_LINE, str(ready), str(go), str(len(commands))]
        argv += map(str, command)
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
        processes.append(subprocess.Popen(argv, **pipes))
    deadline = time.monotonic() + 120
    while not all(r.exists() for r in readies):
        assert time.monotonic() < deadline, "a tuner did not start"
        assert all(p.poll() is None for p in processes), "a tuner ended before the start"
        time.sleep(0.01)
    go.touch()
    return processes


def tune_together(workdir: Path, records: str, budget: int) -> Path:
    """Two tuners (seeds 1 and 2) released at once on a small conv model into `records`,
    both finished cleanly; the model's path."""
    model = workdir / "convs.onnx"
    onnx.save(conv_relu_chain(layers=2), str(model))
    tuners = start_together(
        workdir,
        *(
            ("tune", model, "--trials", str(budget), "--records", records, "--seed", str(s), *TUNE)
            for s in (1, 2)
        ),
    )
    for tuner in tuners:
        _, stderr = tuner.communicate(timeout=600)
        assert tuner.returncode == 0, stderr
        assert "Traceback" not in stderr, stderr
    return model


def assert_budget_shared(url: str, budget: int, tuners: int = 2) -> None:
    """The records at `url` hold the `budget` of trials once between `tuners` tuners, every
    trial finished and numbered without a gap (none lost mid-way, none written twice)."""
    storage = open_storage(url)
    try:
        studies = optuna.get_all_study_summaries(storage)
        assert studies, "the tuners wrote no study"
        counted = 0
        workers: set[str] = set()
        for summary in studies:
            study = optuna.load_study(study_name=summary.study_name, storage=storage)
            trials = study.get_trials(deepcopy=False)
            numbers = [t.number for t in trials]
            assert sorted(numbers) == list(range(len(trials))), (
                f"{summary.study_name}: numbers {numbers}"
            )
            assert all(t.state != optuna.trial.TrialState.RUNNING for t in trials)  # none lost
            complete = [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]
            assert all(t.value is not None for t in complete)
            assert sum(1 for t in trials if t.user_attrs.get(DEFAULT)) >= 1
            counted += sum(1 for t in trials if t.state != optuna.trial.TrialState.PRUNED)
            workers |= {t.user_attrs[WORKER] for t in trials if WORKER in t.user_attrs}
    finally:
        storage.engine.dispose()
    # the budget was run once between the tuners, not once each (a default trial both tuners
    # add to a brand-new study at the same instant may count twice)
    assert budget <= counted <= budget + (tuners - 1) * len(studies)
    assert len(workers) == tuners, f"trials came from {workers}"
