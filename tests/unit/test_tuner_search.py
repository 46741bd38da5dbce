"""tuner/search.py: studies per task, pruning without measuring, TPE and random search from
the default, and candidates that crash, hang or lie becoming failed trials while the study
goes on; several workers on one study.

Bad candidates come from the builders below, which the measurement worker runs instead of
the real one for some schedules (it imports this module to find them).
"""

from __future__ import annotations

import ctypes
import datetime
import os
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState
from tuner_models import conv_relu_chain, matmul_relu

from minitvm.errors import MinitvmError
from minitvm.records import open_storage, verified_standing
from minitvm.tuner import search
from minitvm.tuner.measure import MeasureJob, MeasureResult, MeasureStatus, Runner, build_module
from minitvm.tuner.search import (
    DEFAULT,
    STATUS,
    WORKER,
    MeasureOptions,
    fail_lost_trials,
    is_measured,
    run_study,
    study_name,
    tune,
    tuner_storage,
)
from minitvm.tuner.tasks import Task, extract_tasks

FAST = MeasureOptions(timeout=4.0, repeats=3, min_seconds=0.005)


def faulty(job: MeasureJob) -> Runner:
    """ow_block 1: segfault; 2: hang; the kernel's columns unrolled (unroll_kw 1): outputs
    off by 1%; anything else: the real build. (No default config of the conv on any register
    file is one of these.)"""
    if '#te.split<"i3", 1>' in job.module_text:
        ctypes.string_at(0)
    run = build_module(job)
    if '#te.split<"i3", 2>' in job.module_text:

        def hang(inputs: Mapping[str, np.ndarray]) -> Sequence[np.ndarray]:
            time.sleep(3600)
            return []

        return hang
    if '#te.unroll<"r2">' in job.module_text:
        return lambda inputs: [out * np.float32(1.01) for out in run(inputs)]
    return run


@pytest.fixture(scope="module")
def conv() -> Task:
    return next(
        t for t in extract_tasks(conv_relu_chain(), num_threads=1, winograd="never") if t.template == "conv_nchwc"
    )


@pytest.fixture(scope="module")
def gemm() -> Task:
    return next(
        t
        for t in extract_tasks(matmul_relu(m=16, k=64, n=128), num_threads=1)
        if t.template == "gemm"
    )


def url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'records.db'}"


def load(records: str, task: Task, sampler: str) -> optuna.Study:
    return optuna.load_study(
        study_name=study_name(task.key, sampler), storage=open_storage(records)
    )


def test_invalid_configs_are_pruned_without_measuring(gemm: Task) -> None:
    invalid = {
        "rows": 8, "cols": 128, "lanes": 16, "k_block": 0, "tile_order": "cols_first", "prefetch": 0,
    }  # fmt: skip
    valid = dict(gemm.default_config)
    measured: list[dict] = []

    def evaluate(config: dict) -> MeasureResult:
        measured.append(config)
        return MeasureResult(MeasureStatus.OK, median_seconds=1e-3 * len(measured))

    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.enqueue_trial(invalid)
    study.enqueue_trial(valid)
    study.enqueue_trial(valid)  # a duplicate: its outcome is reused, nothing measured
    run_study(study, gemm, evaluate, target=4)
    trials = study.get_trials()
    assert trials[0].state is TrialState.PRUNED and trials[0].user_attrs[STATUS] == "invalid"
    assert "accumulator" in trials[0].user_attrs["message"]
    assert invalid not in measured and measured[0] == valid
    assert trials[2].user_attrs["duplicate_of"] == 1 and trials[2].value == trials[1].value
    counted = [t for t in trials if t.state is TrialState.COMPLETE]
    assert len(counted) == 4 and len(measured) == 3  # pruned trials do not use the budget


def test_a_budget_is_required(gemm: Task) -> None:
    with pytest.raises(MinitvmError, match="budget"):
        run_study(optuna.create_study(), gemm, lambda config: None, target=None)  # type: ignore[arg-type, return-value]


@pytest.mark.parametrize("sampler", ["tpe", "random"])
def test_study_starts_from_the_default_and_never_ends_worse(
    tmp_path, conv: Task, sampler: str
) -> None:
    records = url(tmp_path)
    (result,) = tune(
        None, records, trials=6, sampler=sampler, tasks=[conv], measure=FAST, num_threads=1
    )
    study = load(records, conv, sampler)
    trials = study.get_trials()
    assert trials[0].user_attrs[DEFAULT] and trials[0].params == conv.default_config
    assert trials[0].value == pytest.approx(study.user_attrs["default_seconds"])
    assert sum(t.state is TrialState.COMPLETE for t in trials) == 6 == result.trials
    assert study.best_value <= trials[0].value
    # (the result is what the records apply: the verification's pick, timed beside the default)
    standing = verified_standing(study.user_attrs)
    assert standing is not None
    assert (result.default_seconds, result.best_seconds, result.best_config) == standing
    assert study.user_attrs["name"] == conv.name and study.user_attrs["count"] == 2
    # every trial measured, but configs whose block the registers cannot hold (AVX2's 16 make
    # some of the space's), which the template rejects before anything is built
    assert {t.user_attrs[STATUS] for t in trials} <= {"ok", "invalid"}
    assert all(t.state is TrialState.COMPLETE for t in trials if t.user_attrs[STATUS] == "ok")


def test_crashing_hanging_and_wrong_candidates_fail_and_the_study_goes_on(
    tmp_path, conv: Task
) -> None:
    records = url(tmp_path)
    study = optuna.create_study(
        study_name=study_name(conv.key, "tpe"), storage=open_storage(records, create=True)
    )
    failing = [
        {**conv.default_config, "ow_block": 1},  # crashes
        {**conv.default_config, "ow_block": 2},  # hangs
        {**conv.default_config, "unroll_kw": 1},  # computes the wrong thing
    ]  # type: ignore[dict-item]
    for config in failing:
        study.enqueue_trial(config)
    start = time.monotonic()
    (result,) = tune(
        None, records, trials=6, tasks=[conv], measure=FAST, num_threads=1, builder=faulty
    )
    assert time.monotonic() - start < 60
    crash, hang, wrong = sorted(load(records, conv, "tpe").get_trials(), key=lambda t: t.number)[:3]
    assert [t.params for t in (crash, hang, wrong)] == failing
    assert crash.state is TrialState.FAIL and crash.user_attrs[STATUS] == "crash"
    assert "SIGSEGV" in crash.user_attrs["message"]
    assert hang.state is TrialState.FAIL and hang.user_attrs[STATUS] == "timeout"
    assert wrong.state is TrialState.FAIL and wrong.user_attrs[STATUS] == "wrong_result"
    # The three failures used three trials of the six; the default and two more completed.
    assert result.trials == 6 and result.failed >= 3
    assert result.best_seconds is not None and result.best_config not in failing


def test_two_workers_share_the_studies(tmp_path, conv: Task, gemm: Task) -> None:
    records = url(tmp_path)
    roomy = MeasureOptions(timeout=20.0, repeats=3, min_seconds=0.005)  # two workers, two cores
    results = tune(
        None, records, trials=12, workers=2, tasks=[conv, gemm], measure=roomy, num_threads=1
    )
    assert sum(r.trials for r in results) == 12
    workers = set()
    for task in (conv, gemm):
        trials = load(records, task, "tpe").get_trials()
        numbers = [t.number for t in trials]
        assert len(set(numbers)) == len(numbers) == max(numbers) + 1
        assert not [t for t in trials if t.state in (TrialState.RUNNING, TrialState.WAITING)]
        assert not [t for t in trials if t.state is TrialState.FAIL]
        workers |= {t.user_attrs[WORKER] for t in trials if not t.user_attrs.get(DEFAULT)}
    assert len(workers) == 2


@pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")
def test_a_tuners_trials_carry_its_id_from_their_creation(tmp_path) -> None:
    storage = tuner_storage(url(tmp_path), create=True)
    study = optuna.create_study(storage=storage)
    study.enqueue_trial({"x": 1})
    enqueued, created = study.ask(), study.ask()
    for trial in (enqueued, created):
        frozen = storage.get_trial(trial._trial_id)  # from the database, not Optuna's cache
        assert frozen.user_attrs[WORKER] == f"{socket.gethostname()}:{os.getpid()}"


def test_trials_of_dead_tuners_on_this_host_are_marked_lost(tmp_path, monkeypatch) -> None:
    study = optuna.create_study(storage=open_storage(url(tmp_path), create=True))
    dead = subprocess.Popen(["true"])
    dead.wait()
    alive = study.ask()
    alive.set_user_attr(WORKER, f"{socket.gethostname()}:{os.getpid()}")
    lost = study.ask()
    lost.set_user_attr(WORKER, f"{socket.gethostname()}:{dead.pid}")
    elsewhere = study.ask()
    elsewhere.set_user_attr(WORKER, f"another-host:{dead.pid}")  # the heartbeat's business
    unclaimed = study.ask()  # a tuner killed before it tagged the trial: lost once old
    assert fail_lost_trials(study) == 1
    monkeypatch.setattr(search, "UNCLAIMED_GRACE", datetime.timedelta(0))
    assert fail_lost_trials(study) == 1
    assert study.get_trials()[unclaimed.number].user_attrs[STATUS] == "lost"
    states = {t.number: t for t in study.get_trials()}
    assert (
        states[lost.number].state is TrialState.FAIL
        and states[lost.number].user_attrs[STATUS] == "lost"
    )
    assert not is_measured(states[lost.number])
    assert states[alive.number].state is TrialState.RUNNING
    assert states[elsewhere.number].state is TrialState.RUNNING


def test_a_time_budget_alone_stops_the_tuner(tmp_path, conv: Task) -> None:
    start = time.monotonic()
    (result,) = tune(None, url(tmp_path), timeout=3.0, tasks=[conv], measure=FAST, num_threads=1)
    elapsed = time.monotonic() - start
    assert result.trials >= 2
    assert elapsed < 3.0 + 10.0  # the budget, plus start-up and one candidate


class FakeMeasurer:
    """Latency as a fixed function of the config (ow_block 2 and kh_kw_c are best: a block
    that fits every register file)."""

    def __init__(self) -> None:
        self.jobs = 0

    def run(self, job: MeasureJob, timeout: float | None = None) -> MeasureResult:
        self.jobs += 1
        text = job.module_text
        kh_kw_c = '"r1", "r2", "r0' in text  # (r0 or, its channels split, r0.i)
        seconds = 1e-3 * (1 + ('"i3", 2>' not in text) + (not kh_kw_c))
        return MeasureResult(MeasureStatus.OK, median_seconds=seconds)


def test_compare_samplers_scores_trials_to_the_best(conv: Task) -> None:
    from minitvm.bench.compare_samplers import compare, format_comparison
    from minitvm.tuner.search import Baseline

    fake = FakeMeasurer()
    comparison = compare(conv, Baseline(2e-3, 0.1, ()), fake, trials=8, seeds=[0, 1])  # type: ignore[arg-type]
    assert [(r.sampler, r.seed) for r in comparison.runs] == [
        ("tpe", 0), ("tpe", 1), ("random", 0), ("random", 1),
    ]  # fmt: skip
    assert all(len(run.curve) == 8 for run in comparison.runs)
    assert comparison.best_seconds == 1e-3
    assert fake.jobs == comparison.measured <= len(conv.configs())  # each config measured once
    for run in comparison.runs:
        score = comparison.score(run)
        assert score is None or run.curve[score - 1] <= 1.05e-3
    table = format_comparison(comparison)
    assert "tpe" in table and "random" in table and "median" in table
    # every distinct config measured (and the default) counts once in the share near the best
    assert len(comparison.seconds) == comparison.measured + 1
    near, measured = comparison.share_within()
    assert measured == len(comparison.seconds)
    assert near == sum(s <= 1.05e-3 for s in comparison.seconds) >= 1
    assert f"{near} of the {measured} configs measured" in table


def test_verification_keeps_the_default_when_the_best_trial_was_a_lucky_measurement() -> None:
    from types import SimpleNamespace

    from minitvm.records import VERIFIED_ATTR
    from minitvm.tuner.measure import MeasureResult, MeasureStatus
    from minitvm.tuner.search import VERIFY_ROUNDS, verify_best

    space = {"x": optuna.distributions.CategoricalDistribution([1, 2, 3])}
    study = optuna.create_study()
    for x, value in [(1, 1.0), (2, 0.5), (3, 2.0)]:  # x=1 the default; x=2 measured once, luckily
        study.add_trial(optuna.trial.create_trial(params={"x": x}, distributions=space, value=value))
    truth = {1: 1.0, 2: 1.2, 3: 2.0}
    measured: list[int] = []

    def evaluate(config: dict) -> MeasureResult:
        measured.append(config["x"])
        return MeasureResult(MeasureStatus.OK, median_seconds=truth[config["x"]])

    verified = verify_best(study, SimpleNamespace(default_config={"x": 1}), evaluate)  # type: ignore[arg-type]
    assert verified == {"params": {"x": 1}, "seconds": 1.0, "default_seconds": 1.0,
                        "default_params": {"x": 1}}
    assert study.user_attrs[VERIFIED_ATTR] == verified
    assert sorted(set(measured)) == [1, 2, 3] and len(measured) == 3 * VERIFY_ROUNDS


def test_verification_compares_each_round_with_the_defaults_own() -> None:
    """A config slower than the default in the rounds they shared is not kept because more of
    the default's runs met a busy core (its median time is the higher one)."""
    from types import SimpleNamespace

    from minitvm.tuner.measure import MeasureResult, MeasureStatus
    from minitvm.tuner.search import VERIFY_ROUNDS, verify_best

    space = {"x": optuna.distributions.CategoricalDistribution([1, 2])}
    study = optuna.create_study()
    for x, value in [(1, 1.0), (2, 0.5)]:
        study.add_trial(optuna.trial.create_trial(params={"x": x}, distributions=space, value=value))
    busy = [False, True, True, False, True]  # the default's runs another process slowed
    rounds = {1: iter([1.3 if b else 1.0 for b in busy]), 2: iter([1.05, 1.05, 1.37, 1.05, 1.05])}
    assert VERIFY_ROUNDS == len(busy)

    def evaluate(config: dict) -> MeasureResult:
        return MeasureResult(MeasureStatus.OK, median_seconds=next(rounds[config["x"]]))

    verified = verify_best(study, SimpleNamespace(default_config={"x": 1}), evaluate)  # type: ignore[arg-type]
    assert verified == {"params": {"x": 1}, "seconds": 1.3, "default_seconds": 1.3,
                        "default_params": {"x": 1}}


def test_verification_keeps_the_default_when_its_median_time_is_the_lower() -> None:
    """Faster than the default in most rounds, but slower by the medians of the raw times
    (the rounds were noisy): the two measures disagree, and the default is kept."""
    from types import SimpleNamespace

    from minitvm.tuner.measure import MeasureResult, MeasureStatus
    from minitvm.tuner.search import _relative, verify_best

    space = {"x": optuna.distributions.CategoricalDistribution([1, 2])}
    study = optuna.create_study()
    for x, value in [(1, 1.0), (2, 0.5)]:
        study.add_trial(optuna.trial.create_trial(params={"x": x}, distributions=space, value=value))
    default_rounds, other_rounds = [1.0, 1.0, 1.0, 3.0, 3.0], [0.9, 0.9, 2.9, 2.9, 2.9]
    assert _relative(other_rounds, default_rounds) < 1.0  # faster round by round ...
    rounds = {1: iter(default_rounds), 2: iter(other_rounds)}  # ... slower by medians (2.9 > 1)

    def evaluate(config: dict) -> MeasureResult:
        return MeasureResult(MeasureStatus.OK, median_seconds=next(rounds[config["x"]]))

    verified = verify_best(study, SimpleNamespace(default_config={"x": 1}), evaluate)  # type: ignore[arg-type]
    assert verified == {"params": {"x": 1}, "seconds": 1.0, "default_seconds": 1.0,
                        "default_params": {"x": 1}}


def test_verification_keeps_a_config_that_beats_the_default_in_most_rounds() -> None:
    from types import SimpleNamespace

    from minitvm.tuner.measure import MeasureResult, MeasureStatus
    from minitvm.tuner.search import task_result, verify_best

    space = {"x": optuna.distributions.CategoricalDistribution([1, 2])}
    study = optuna.create_study()
    study.set_user_attr("default_seconds", 1.2)  # (its first measurement, in another round)
    for x, value in [(1, 1.0), (2, 0.9)]:
        study.add_trial(optuna.trial.create_trial(params={"x": x}, distributions=space, value=value))
    failed = MeasureResult(MeasureStatus.RUN_ERROR)
    default = iter([1.0, 1.0, 1.0, 1.0, 1.0])
    faster = iter([0.9, 0.9, None, 0.9, 0.9])  # one round failed: inf, which wins nothing

    def evaluate(config: dict) -> MeasureResult:
        seconds = next(default if config["x"] == 1 else faster)
        return failed if seconds is None else MeasureResult(MeasureStatus.OK, median_seconds=seconds)

    verified = verify_best(study, SimpleNamespace(default_config={"x": 1}), evaluate)  # type: ignore[arg-type]
    assert verified == {"params": {"x": 2}, "seconds": 0.9, "default_seconds": 1.0,
                        "default_params": {"x": 1}}
    result = task_result(study, SimpleNamespace(default_config={"x": 1}), "tpe")  # type: ignore[arg-type]
    assert (result.default_seconds, result.best_seconds, result.best_config) == (1.0, 0.9, {"x": 2})


def test_a_resumed_study_is_verified_again_only_when_something_changed() -> None:
    """Rerunning a finished tune measures nothing new: a study verified against the task's
    default, with no trial since, is not re-measured."""
    from types import SimpleNamespace

    from minitvm.records import VERIFIED_ATTR
    from minitvm.tuner.search import needs_verification

    space = {"x": optuna.distributions.CategoricalDistribution([1, 2, 3])}
    study = optuna.create_study()
    for x, value in [(1, 1.0), (2, 0.9)]:
        study.add_trial(optuna.trial.create_trial(params={"x": x}, distributions=space, value=value))
    task = SimpleNamespace(default_config={"x": 1})
    assert needs_verification(study, task, 2)  # (never verified)
    verified = {"params": {"x": 2}, "seconds": 0.9, "default_params": {"x": 1}, "default_seconds": 1.0}
    study.set_user_attr(VERIFIED_ATTR, verified)
    assert not needs_verification(study, task, 2)
    assert needs_verification(study, task, 1)  # a trial measured since it was verified
    assert needs_verification(study, SimpleNamespace(default_config={"x": 3}), 2)  # a new default
