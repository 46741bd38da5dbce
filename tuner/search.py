"""The tuning driver: one Optuna study per task, candidates measured, budget split by weight.

What `minitvm tune` runs, first on the model's 3x3 convs' algorithm tasks (`tuner/choices.py`:
direct or a Winograd tile, each measured), then on the kernel tasks `tuner/tasks.py` finds in
the model compiled with the algorithms the records then hold:

    tasks ─▶ defaults measured (latency = weight; outputs = reference for the wrong-result check)
          ─▶ per task, heaviest first: study `<task key>:<sampler>` in the records
               loop: sampler proposes a config (one categorical per knob, `space.py`)
                     invalid for the template ─▶ PRUNED, nothing built
                     seen before in this study ─▶ the earlier outcome, nothing built
                     else Measurer (tuner/measure.py) ─▶ COMPLETE (median seconds) or FAIL
                     (crash, hang, wrong result, build error: status and message in the
                     trial's user attributes), and the loop goes on
               until the task's share of the trials and/or of the wall time is used.

- Samplers: `tpe` is Optuna's TPESampler (multivariate, seeded, constant liar: a config being
  measured by another worker counts as a bad one until it is done, so workers spread out);
  `random` is RandomSampler, the baseline. A new study's trial 0 is the default config with
  the default's measured latency, so the best is never worse than the default.
- Budget: `trials` is the total over the model's tasks *in the records* (trials of earlier
  runs count: rerunning the same command resumes and stops where the budget says, and a
  study verified with no trial since is not re-measured: `needs_verification`), split by
  weight = occurrences x default latency, with a floor per task and no task given more than
  its space has configs; a task given its whole space has every config queued, in order
  (`queue_space`). Duplicate proposals count (they cost nothing but the proposal); pruned
  ones do not. The convs' algorithm tasks are outside the budget: each is measured whole.
  `timeout` is wall time, shared the same way among the tasks still to go.
- Crash safety: Optuna's storage commits each trial when it finishes, so a SIGKILL loses at
  most the trials in flight. Those stay RUNNING in the storage; a new run marks them FAIL
  (status "lost") when their tuner process is gone from this host, and a storage heartbeat
  does the same for tuners on other hosts once they have been silent for a minute. Lost
  trials do not count toward the budget.
- Workers: `workers` processes (spawned, each with its own Measurer) tune the same studies
  together; tuners started by hand on the same records, on this machine or others, cooperate
  the same way. Before a trial starts, and again once it has its number, a worker checks the
  budget against the finished and running trials, so workers do not overshoot. On a 2-core
  machine two workers measuring at once disturb each other's timings (and a 2-thread kernel
  measured beside another worker has one core, not two): fine for trying the feature, not for
  final numbers.
"""

from __future__ import annotations

import datetime
import functools
import math
import os
import queue
import signal
import socket
import statistics
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import optuna
from optuna.trial import FrozenTrial, TrialState

from minitvm.errors import MinitvmError
from minitvm.host import target_key
from minitvm.passes.graph.winograd import ALGORITHM
from minitvm.records import (
    DEFAULT_RECORDS,
    FORMAT_ATTR,
    FORMAT_VERSION,
    VERIFIED_ATTR,
    load_schedules,
    open_storage,
    standing,
    storage_errors,
)
from minitvm.schedules.base import InvalidConfig
from minitvm.tuner.choices import choice_tasks
from minitvm.tuner.measure import MeasureJob, Measurer, MeasureResult, Runner, build_module
from minitvm.tuner.space import distributions, suggest_config
from minitvm.tuner.tasks import Task, extract_tasks

SAMPLERS = ("tpe", "random")
#: A task gets at least this many trials (the default included) when the budget allows.
MIN_TRIALS = 4
#: Invalid proposals in a row after which a task's search is given up (a sampler stuck
#: in an invalid corner of a space with few valid configs).
MAX_INVALID_IN_A_ROW = 200

# Trial user attributes.
STATUS = "status"  # "ok", a MeasureStatus value, "invalid", "lost", "over_budget"
MESSAGE = "message"
WORKER = "worker"  # "host:pid" of the tuner measuring it
DEFAULT = "default"  # trial 0: the default config
DUPLICATE_OF = "duplicate_of"

#: Progress, as plain tuples (they cross process boundaries):
#:   ("plan", Overview)
#:   ("start", task index, target trials or None, measured trials so far)
#:   ("trial", task index, TrialNote)
#:   ("done", task index)
Event = tuple


@dataclass(frozen=True)
class Overview:
    """The tasks about to be tuned (heaviest first), as progress displays need them."""

    names: tuple[str, ...]
    counts: tuple[int, ...]
    default_seconds: tuple[float, ...]  # as the records hold them (trial 0's value)
    targets: tuple[int | None, ...]  # measured trials each study should end up with
    done: tuple[int, ...]  # measured trials each study had before this run
    best_seconds: tuple[float | None, ...]  # best each study had before this run
    timeout: float | None
    workers: int

    @classmethod
    def of(
        cls,
        results: Sequence[TaskResult],
        targets: Sequence[int | None],
        timeout: float | None,
        workers: int,
    ) -> Overview:
        return cls(
            names=tuple(r.task.name for r in results),
            counts=tuple(r.task.count for r in results),
            default_seconds=tuple(r.default_seconds for r in results),
            targets=tuple(targets),
            done=tuple(r.trials for r in results),
            best_seconds=tuple(r.best_seconds for r in results),
            timeout=timeout,
            workers=workers,
        )


@dataclass(frozen=True)
class TrialNote:
    """What progress displays need of a finished trial."""

    number: int
    state: str  # TrialState name
    value: float | None
    status: str | None  # the STATUS user attribute
    measured: bool

    @classmethod
    def of(cls, trial: FrozenTrial) -> TrialNote:
        value = trial.value if trial.state is TrialState.COMPLETE else None
        return cls(
            trial.number, trial.state.name, value, trial.user_attrs.get(STATUS), is_measured(trial)
        )


#: A RUNNING trial without a WORKER is lost once this old (tagging takes milliseconds).
UNCLAIMED_GRACE = datetime.timedelta(seconds=60)


class CandidateFailed(Exception):
    """The candidate was measured and failed (its trial becomes FAIL; tuning goes on)."""


def study_name(task_key: str, sampler: str) -> str:
    return f"{task_key}:{sampler}"


def make_sampler(name: str, seed: int, n_startup_trials: int = 10) -> optuna.samplers.BaseSampler:
    """`tpe` or `random`, seeded. TPE's constant liar is on even for one worker (then it
    changes nothing): tuners started by hand on the same records cannot know of each other."""
    if name == "tpe":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return optuna.samplers.TPESampler(
                multivariate=True, constant_liar=True, seed=seed, n_startup_trials=n_startup_trials
            )
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise MinitvmError(f"unknown sampler '{name}' (known: {', '.join(SAMPLERS)})")


def is_measured(trial: FrozenTrial) -> bool:
    """Counts toward the budget: a COMPLETE trial, or one that failed as a candidate."""
    if trial.state is TrialState.COMPLETE:
        return True
    return trial.state is TrialState.FAIL and trial.user_attrs.get(STATUS) not in (None, "lost")


def measured_trials(trials: Sequence[FrozenTrial]) -> list[FrozenTrial]:
    return [t for t in trials if is_measured(t)]


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # a zombie (killed, not yet reaped by its parent) is gone too
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return False


class TaggingStorage(optuna.storages.RDBStorage):
    """Optuna's RDB storage, except that each trial this process creates carries its
    `WORKER` id from the start (one transaction), so that a tuner killed at any moment
    leaves trials the next run can tell apart from those of tuners still alive."""

    # Optuna's cache layer calls the private method, and the public one calls it too.
    def _create_new_trial(
        self, study_id: int, template_trial: FrozenTrial | None = None
    ) -> FrozenTrial:
        if template_trial is None:
            template_trial = FrozenTrial(
                number=-1,
                state=TrialState.RUNNING,
                value=None,
                datetime_start=datetime.datetime.now(),
                datetime_complete=None,
                params={},
                distributions={},
                user_attrs={WORKER: worker_id()},
                system_attrs={},
                intermediate_values={},
                trial_id=-1,
            )
        return super()._create_new_trial(study_id, template_trial)

    def set_trial_state_values(
        self, trial_id: int, state: TrialState, values: Sequence[float] | None = None
    ) -> bool:
        taken = super().set_trial_state_values(trial_id, state, values)
        if taken and state is TrialState.RUNNING:  # an enqueued trial, taken by this tuner
            self.set_trial_user_attr(trial_id, WORKER, worker_id())
        return taken


def tuner_storage(url: str, *, create: bool = False) -> TaggingStorage:
    """The records at `url` as a tuner writes them: trials tagged, heartbeats on."""
    return open_storage(url, create=create, heartbeat=True, storage_class=TaggingStorage)


def fail_lost_trials(study: optuna.Study) -> int:
    """Mark FAIL (status "lost") the RUNNING trials of tuners of this host that are gone,
    and those no tuner claimed (killed between creating and tagging it) for a minute."""
    host = socket.gethostname()
    lost = 0
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        worker = trial.user_attrs.get(WORKER)
        if worker is None:
            started = trial.datetime_start
            if started is None or datetime.datetime.now() - started < UNCLAIMED_GRACE:
                continue
        else:
            worker_host, _, pid = str(worker).rpartition(":")
            if worker_host != host or not pid.isdigit() or not _process_gone(int(pid)):
                continue
        try:
            study._storage.set_trial_user_attr(trial._trial_id, STATUS, "lost")
            study.tell(trial.number, state=TrialState.FAIL)
            lost += 1
        except (RuntimeError, ValueError):  # finished meanwhile (another tuner got there first)
            continue
    return lost


# ------------------------------------------------------------------------------ objective

Evaluate = Callable[[dict[str, int | str]], MeasureResult]


class Objective:
    """One trial: propose a config, prune it if invalid, reuse a duplicate's outcome, else
    measure it. Returns the median seconds or raises CandidateFailed / TrialPruned."""

    def __init__(self, task: Task, evaluate: Evaluate, target: int | None):
        self.task, self.evaluate, self.target = task, evaluate, target

    def __call__(self, trial: optuna.Trial) -> float:
        trials = trial.study.get_trials(deepcopy=False)
        if self.target is not None:
            # Another worker may have started a trial since this one checked the budget.
            ahead = [
                t for t in trials
                if t.number < trial.number and (t.state is TrialState.RUNNING or is_measured(t))
            ]  # fmt: skip
            if len(ahead) >= self.target:
                trial.set_user_attr(STATUS, "over_budget")
                raise optuna.TrialPruned("the task's trial budget is used")
        config = suggest_config(trial, self.task.knobs)
        try:
            self.task.check(config)
        except InvalidConfig as error:
            trial.set_user_attr(STATUS, "invalid")
            trial.set_user_attr(MESSAGE, str(error))
            raise optuna.TrialPruned(str(error)) from None
        for earlier in trials:
            if earlier.number != trial.number and earlier.params == config and is_measured(earlier):
                return self._repeat(trial, earlier)
        result = self.evaluate(config)
        trial.set_user_attr(STATUS, result.status.value)
        if result.build_seconds is not None:
            trial.set_user_attr("build_seconds", round(result.build_seconds, 4))
        if not result.ok:
            trial.set_user_attr(MESSAGE, result.message[:1000])
            raise CandidateFailed(f"{result.status.value}: {result.message}")
        assert result.median_seconds is not None
        return result.median_seconds

    def _repeat(self, trial: optuna.Trial, earlier: FrozenTrial) -> float:
        trial.set_user_attr(DUPLICATE_OF, earlier.number)
        trial.set_user_attr(STATUS, earlier.user_attrs.get(STATUS, "ok"))
        if earlier.state is TrialState.COMPLETE:
            assert earlier.value is not None
            return earlier.value
        trial.set_user_attr(MESSAGE, f"same config as trial {earlier.number}")
        raise CandidateFailed(f"same config as failed trial {earlier.number}")


def run_study(
    study: optuna.Study,
    task: Task,
    evaluate: Evaluate,
    target: int | None,
    deadline: float | None = None,
    on_trial: Callable[[FrozenTrial], None] | None = None,
) -> None:
    """Run trials on `study` until it has `target` measured trials (None: no limit) or
    `time.monotonic()` passes `deadline` (None: none). At least one must be given."""
    if target is None and deadline is None:
        raise MinitvmError("tuning needs a budget: a number of trials, a time limit or both")
    objective = Objective(task, evaluate, target)
    finished: list[FrozenTrial] = []

    def note(_study: optuna.Study, trial: FrozenTrial) -> None:
        finished.append(trial)
        if on_trial is not None:
            on_trial(trial)

    invalid_in_a_row = 0
    while deadline is None or time.monotonic() < deadline:
        fail_lost_trials(study)  # a fellow worker that died must not hold the budget forever
        trials = study.get_trials(deepcopy=False)
        busy = sum(1 for t in trials if t.state is TrialState.RUNNING or is_measured(t))
        if target is not None and busy >= target:
            return
        if invalid_in_a_row >= MAX_INVALID_IN_A_ROW:
            return
        study.optimize(objective, n_trials=1, catch=(CandidateFailed,), callbacks=[note])
        if finished and finished[-1].user_attrs.get(STATUS) == "invalid":
            invalid_in_a_row += 1
        else:
            invalid_in_a_row = 0


#: Configs re-measured side by side once a task's search ends (the best few and the default).
VERIFY_CANDIDATES = 3
#: Rounds of that re-measurement. With 2, a config 7% slower than the default was kept
#: (ResNet block's Winograd GEMM, AMD EPYC, one thread: 1.355 ms against 1.261, 15 rounds
#: interleaved), one round of each having been quieter than the default's.
VERIFY_ROUNDS = 5


def verify_best(study: optuna.Study, task: Task, evaluate: Evaluate) -> dict[str, Any] | None:
    """Re-measure the study's best few configs and the default, interleaved, and keep the
    winner as the study's `VERIFIED_ATTR` attr ({"params": config, "seconds": median, and
    the default's config and median as "default_params" and "default_seconds"}), which
    records and reports prefer over the best trial (a study that kept its default pins
    nothing: `records.py`): each trial is one noisy measurement, so the minimum over many
    trials is biased towards a config that was merely measured at a quiet moment (on a
    shared 2-core machine, enough to pick a config slower than the default).

    A config wins over the default by its time relative to the default's in the same round
    (the median of those ratios, below 1): a round measured while another process took the
    core slows both alike, where comparing medians of the raw times lets one slow round of
    the default decide. It must also not be slower by those medians: the two measures can
    disagree when the rounds are noisy, and a config is kept only when both say it is
    faster (the records would otherwise apply one the summary itself shows slower). Without
    a default, the lowest median time wins."""
    trials = sorted(
        (
            t
            for t in study.get_trials(deepcopy=False)
            if t.state is TrialState.COMPLETE and t.value is not None
        ),
        key=lambda t: t.value,  # type: ignore[arg-type, return-value]
    )
    configs: list[dict[str, int | str]] = []
    for trial in trials:
        if trial.params not in configs:
            configs.append(dict(trial.params))
        if len(configs) == VERIFY_CANDIDATES:
            break
    default = None
    if task.default_config is not None:
        if task.default_config not in configs:
            configs.append(dict(task.default_config))
        default = configs.index(dict(task.default_config))
    if len(configs) < 2:
        return None
    seconds: list[list[float]] = [[] for _ in configs]
    for _ in range(VERIFY_ROUNDS):
        for n, config in enumerate(configs):
            result = evaluate(config)
            seconds[n].append(
                result.median_seconds if result.ok and result.median_seconds else math.inf
            )
    medians = [statistics.median(times) for times in seconds]
    best = min(range(len(configs)), key=lambda n: medians[n])
    if default is not None and math.isfinite(medians[default]):
        relative = [_relative(times, seconds[default]) for times in seconds]
        faster = [
            n
            for n in range(len(configs))
            if n == default or (relative[n] < 1.0 and medians[n] <= medians[default])
        ]
        best = min(faster, key=lambda n: (relative[n], n != default))
    if not math.isfinite(medians[best]):
        return None
    verified: dict[str, Any] = {"params": configs[best], "seconds": medians[best]}
    if default is not None:
        verified["default_seconds"] = medians[default]
        verified["default_params"] = configs[default]
    study.set_user_attr(VERIFIED_ATTR, verified)
    return verified


def needs_verification(study: optuna.Study, task: Task, measured_before: int) -> bool:
    """Whether the study's best few are to be re-measured (`verify_best`): it has trials
    measured since `measured_before`, no verification yet, or one made against another
    default than the task's (the template's default changed since). A resumed run whose
    budget was already spent then costs no new measurements."""
    verified = study.user_attrs.get(VERIFIED_ATTR)
    if verified is None:
        return True
    if "default_params" in verified and verified["default_params"] != task.default_config:
        return True
    return len(measured_trials(study.get_trials(deepcopy=False))) > measured_before


def _relative(times: Sequence[float], base: Sequence[float]) -> float:
    """The median over rounds of `times` / `base` (inf where a run failed: a config that
    failed in a round the default ran does not win it)."""
    ratios = [t / b if math.isfinite(b) else math.inf for t, b in zip(times, base, strict=True)]
    return statistics.median(ratios)


# ------------------------------------------------------------------------------ plan


@dataclass(frozen=True)
class MeasureOptions:
    """How candidates are measured (see `Measurer`). `timeout` None: from the default's
    build time and latency, at least 10 s. `seed`: of the random inputs."""

    timeout: float | None = None
    warmup: int = 1
    repeats: int = 5
    min_seconds: float = 0.05
    seed: int = 0

    def measurer(self) -> Measurer:
        return Measurer(
            timeout=self.timeout or 60.0,
            warmup=self.warmup,
            repeats=self.repeats,
            min_seconds=self.min_seconds,
        )


@dataclass(frozen=True)
class Baseline:
    """What the default schedule of a task measured in this run."""

    seconds: float
    build_seconds: float
    outputs: tuple[np.ndarray, ...] = field(repr=False)


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs (picklable: it is sent to spawned workers)."""

    records: str
    sampler: str
    seed: int
    tasks: tuple[Task, ...]
    baselines: tuple[Baseline, ...]
    weights: tuple[float, ...]
    targets: tuple[int | None, ...]
    timeout: float | None
    measure: MeasureOptions
    builder: Callable[[MeasureJob], Runner] = build_module

    def candidate_timeout(self, n: int) -> float:
        if self.measure.timeout is not None:
            return self.measure.timeout
        base = self.baselines[n]
        runs = self.measure.warmup + max(self.measure.repeats, 1)
        return max(
            10.0, 5.0 * (base.build_seconds + base.seconds * runs) + 5.0 * self.measure.min_seconds
        )


def split_trials(
    total: int, weights: Sequence[float], caps: Sequence[int], floor: int = MIN_TRIALS
) -> list[int]:
    """Split `total` trials among tasks: each gets min(floor, total // tasks, its cap), the
    rest goes by weight (largest remainders first), never above a task's cap."""
    n = len(weights)
    if n == 0:
        return []
    base = min(floor, total // n)
    targets = [min(base, cap) for cap in caps]
    left = total - sum(targets)
    open_ = [i for i in range(n) if targets[i] < caps[i]]
    while left > 0 and open_:
        weight = sum(weights[i] for i in open_) or float(len(open_))
        shares = {i: left * (weights[i] if weight else 1.0) / weight for i in open_}
        given = 0
        for i in open_:
            add = min(int(shares[i]), caps[i] - targets[i])
            targets[i] += add
            given += add
        left -= given
        if left > 0 and given == 0:  # hand out the remainders one by one, biggest first
            for i in sorted(open_, key=lambda i: shares[i] - int(shares[i]), reverse=True)[:left]:
                targets[i] += 1
                left -= 1
        open_ = [i for i in range(n) if targets[i] < caps[i]]
    return targets


def sampler_seed(seed: int, worker: int, trials_before: int) -> int:
    """Worker 0 of a fresh study uses `seed` itself; other workers, and resumed studies, get
    other seeds (a resumed RandomSampler with the old seed would repeat the old proposals)."""
    return (seed + 7919 * worker + 104729 * trials_before) % (2**32)


def startup_trials(target: int | None) -> int:
    """TPE's random start: 5 trials (Optuna's default of 10 is meant for continuous spaces;
    ours are a few categorical knobs with budgets of tens of trials per task), fewer when
    the task has fewer than 20 trials to spend."""
    return 5 if target is None else max(3, min(5, target // 4))


def run_plan(
    plan: Plan, worker: int, measurer: Measurer, emit: Callable[[Event], None] = lambda e: None
) -> None:
    """Tune every task of the plan in turn (heaviest first) on this worker's Measurer."""
    storage = tuner_storage(plan.records)
    start = time.monotonic()
    end = None if plan.timeout is None else start + plan.timeout
    try:
        for n, task in enumerate(plan.tasks):
            deadline = None
            if end is not None:
                now = time.monotonic()
                if now >= end:
                    break
                rest = sum(plan.weights[n:]) or 1.0
                deadline = now + (end - now) * plan.weights[n] / rest
            name = study_name(task.key, plan.sampler)
            before = len(
                optuna.load_study(study_name=name, storage=storage).get_trials(deepcopy=False)
            )
            sampler = make_sampler(
                plan.sampler,
                sampler_seed(plan.seed, worker, before),
                startup_trials(plan.targets[n]),
            )
            study = optuna.load_study(study_name=name, storage=storage, sampler=sampler)
            done = len(measured_trials(study.get_trials(deepcopy=False)))
            emit(("start", n, plan.targets[n], done))
            job_fields = {
                "seed": plan.measure.seed,
                "reference": plan.baselines[n].outputs,
                "builder": plan.builder,
            }
            timeout = plan.candidate_timeout(n)

            def evaluate(
                config: dict[str, int | str], task: Task = task, fields=job_fields, timeout=timeout
            ) -> MeasureResult:
                return measurer.run(task.job(config, **fields), timeout=timeout)

            note = lambda trial, n=n: emit(("trial", n, TrialNote.of(trial)))
            run_study(study, task, evaluate, plan.targets[n], deadline, note)
            if needs_verification(study, task, done):
                verify_best(study, task, evaluate)
            emit(("done", n))
    finally:
        storage.engine.dispose()


# ------------------------------------------------------------------------------ tune


@dataclass(frozen=True)
class TaskResult:
    """A task's standing in the records after tuning (one sampler's study)."""

    task: Task
    sampler: str
    default_seconds: float
    best_seconds: float | None
    best_config: dict[str, int | str] | None
    trials: int  # measured (COMPLETE or failed as candidates)
    failed: int
    pruned: int  # invalid configs, never measured

    @property
    def speedup(self) -> float | None:
        return None if self.best_seconds is None else self.default_seconds / self.best_seconds


def measure_baselines(
    tasks: Sequence[Task], measurer: Measurer, options: MeasureOptions
) -> list[Baseline | MeasureResult]:
    """Each task's default schedule, measured with its outputs (the wrong-result reference);
    a task whose default fails gets the failed result instead."""
    baselines: list[Baseline | MeasureResult] = []
    for task in tasks:
        result = measurer.run(
            task.job(seed=options.seed), return_outputs=True, timeout=options.timeout or 120.0
        )
        if not result.ok:
            baselines.append(result)
            continue
        assert result.median_seconds is not None and result.outputs is not None
        baselines.append(
            Baseline(result.median_seconds, result.build_seconds or 0.0, result.outputs)
        )
    return baselines


def prepare_study(storage: Any, task: Task, sampler: str, baseline: Baseline) -> optuna.Study:
    """Create or load the task's study; describe the task in it; add the default as trial
    0 of a new study; mark trials of dead tuners on this host lost."""
    study = optuna.create_study(
        study_name=study_name(task.key, sampler),
        storage=storage,
        direction="minimize",
        load_if_exists=True,
    )
    knobs = {knob.name: list(knob.choices) for knob in task.knobs}
    version = study.user_attrs.get(FORMAT_ATTR, FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise MinitvmError(
            f"the records' study of {task.name} is in minitvm's records format {version}, "
            f"another minitvm's (this one writes format {FORMAT_VERSION}): tune into new records"
        )
    if FORMAT_ATTR in study.user_attrs and study.user_attrs.get("knobs") != knobs:
        raise MinitvmError(
            f"the records' study of {task.name} was made with another search space "
            f"({study.user_attrs.get('knobs')}; now {knobs}): the schedule templates have "
            "changed since, tune into new records"
        )
    if FORMAT_ATTR not in study.user_attrs:
        attrs = {
            "task_key": task.key,
            "target": task.target,
            "sampler": sampler,
            "name": task.name,
            "template": task.template,
            "count": task.count,
            "knobs": knobs,
            "default_config": task.default_config,
            "default_seconds": baseline.seconds,
        }
        for key, value in attrs.items():
            study.set_user_attr(key, value)
        study.set_user_attr(FORMAT_ATTR, FORMAT_VERSION)
    fail_lost_trials(study)
    trials = study.get_trials(deepcopy=False)
    if task.default_config is not None and not any(t.user_attrs.get(DEFAULT) for t in trials):
        study.add_trial(
            optuna.trial.create_trial(
                params=dict(task.default_config),
                distributions=distributions(task.knobs),
                value=baseline.seconds,
                user_attrs={DEFAULT: True, STATUS: "ok", WORKER: worker_id()},
            )
        )
    return study


def task_result(study: optuna.Study, task: Task, sampler: str) -> TaskResult:
    trials = study.get_trials(deepcopy=False)
    complete = [t for t in trials if t.state is TrialState.COMPLETE and t.value is not None]
    best = min(complete, key=lambda t: t.value) if complete else None  # type: ignore[arg-type, return-value]
    default_seconds, best_seconds, best_config = standing(study.user_attrs, best)
    return TaskResult(
        task=task,
        sampler=sampler,
        default_seconds=default_seconds,
        best_seconds=best_seconds,
        best_config=best_config,
        trials=len(measured_trials(trials)),
        failed=sum(1 for t in trials if t.state is TrialState.FAIL and is_measured(t)),
        pruned=sum(1 for t in trials if t.user_attrs.get(STATUS) == "invalid"),
    )


class Quiet:
    """Optuna's per-trial log lines and experimental-feature warnings off, for a block."""

    def __enter__(self) -> None:
        self.level = optuna.logging.get_verbosity()
        optuna.logging.set_verbosity(optuna.logging.ERROR)
        self.warnings = warnings.catch_warnings()
        self.warnings.__enter__()
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)

    def __exit__(self, *exc_info: object) -> None:
        self.warnings.__exit__(*exc_info)
        optuna.logging.set_verbosity(self.level)


def tune(
    model: str | os.PathLike[str] | onnx.ModelProto | None,
    records: str = DEFAULT_RECORDS,
    *,
    trials: int | None = None,
    timeout: float | None = None,
    sampler: str = "tpe",
    workers: int = 1,
    seed: int = 0,
    num_threads: int | None = None,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    sizes: Sequence[Mapping[str, int]] = (),
    opt_level: int = 3,
    winograd: str = "auto",
    measure: MeasureOptions = MeasureOptions(),
    tasks: Sequence[Task] | None = None,
    builder: Callable[[MeasureJob], Runner] = build_module,
    on_event: Callable[[Event], None] | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> list[TaskResult]:
    """Tune a model's kernels and keep the trials in `records` (see the module docstring);
    the tasks' standing afterwards, heaviest first (the convs' algorithm tasks, then the
    kernels'). In mode `winograd` "auto", every algorithm of each 3x3 conv
    (`tuner/choices.py`) is timed first, outside the `trials` budget (three each), and the
    kernel tasks are those of the model compiled with the algorithms the records then hold.
    `tasks` skips extraction, the convs' algorithms with it (the model may then be None); `builder` replaces the measurement builder (tests inject bad
    candidates with it); `on_event` sees progress events, `log` gets lines for the user;
    `winograd` is graph-winograd's mode, as in `minitvm.compile` (compile the model with the
    same mode for the records to apply). `input_shapes` may leave dimensions dynamic (None):
    the kernels of symbolic sizes are then tuned at `sizes` (the symbols' values, one dict
    per shape; `tasks.shapes_and_sizes` makes both from several shapes), one config for all,
    which a compile with those dimensions dynamic applies."""
    from minitvm.compiler import default_num_threads

    if trials is None and timeout is None:
        raise MinitvmError("tuning needs a budget: --trials N, --timeout SECONDS or both")
    if trials is not None and trials < 1 or timeout is not None and timeout <= 0:
        raise MinitvmError("the trial budget and the time limit must be positive")
    if workers < 1:
        raise MinitvmError(f"workers must be >= 1, got {workers}")
    make_sampler(sampler, seed)  # an unknown sampler fails here, before any work
    threads = default_num_threads() if num_threads is None else num_threads
    emit = on_event or (lambda event: None)
    start = time.monotonic()
    with Quiet(), storage_errors(records, "cannot tune into the database"):
        storage = tuner_storage(records, create=True)
        try:
            run = functools.partial(
                _tune_tasks, storage, records, sampler=sampler, seed=seed, workers=workers,
                measure=measure, builder=builder, emit=emit, log=log,
            )  # fmt: skip
            results: list[TaskResult] = []
            if tasks is None:
                if model is None:
                    raise MinitvmError("tune: no model and no tasks to tune")
                choices = []
                if winograd == "auto":
                    choices = choice_tasks(model, input_shapes, threads, opt_level)
                if choices:
                    log(f"{_count(choices, 'conv algorithm task')}: timing every algorithm")
                    results += run(choices, None, timeout, whole=True)
                chosen = {
                    key: config
                    for key, config in load_schedules(records, target_key(threads)).items()
                    if ALGORITHM in config
                } if choices else {}  # fmt: skip
                tasks = extract_tasks(
                    model, input_shapes, threads, opt_level, winograd=winograd, sizes=sizes,
                    schedules=chosen,
                )  # fmt: skip
            left = None if timeout is None else timeout - (time.monotonic() - start)
            if left is not None and left <= 0:
                log("not tuned: the kernels (the time limit was spent on the convs' algorithms)")
                return results
            return results + run(tasks, trials, left)
        finally:
            storage.engine.dispose()


def _count(items: Sequence[object], noun: str) -> str:
    return f"{len(items)} {noun}{'s' if len(items) != 1 else ''}"


def _tune_tasks(
    storage: Any,
    records: str,
    tasks: Sequence[Task],
    trials: int | None,
    timeout: float | None,
    *,
    whole: bool = False,
    sampler: str,
    seed: int,
    workers: int,
    measure: MeasureOptions,
    builder: Callable[[MeasureJob], Runner],
    emit: Callable[[Event], None],
    log: Callable[[str], None],
) -> list[TaskResult]:
    """Tune `tasks` into the records (see `tune`) with `trials` split among them, or, `whole`,
    every config of each (how the convs' algorithms are tuned), within `timeout`; their
    standing afterwards, heaviest first."""
    kept = tunable(tasks, measure, log)
    studies = [prepare_study(storage, task, sampler, base) for task, base in kept]
    # The first run's default latency sets the weights, so a resumed run splits alike.
    weights = [
        task.count * float(study.user_attrs["default_seconds"])
        for (task, _), study in zip(kept, studies, strict=True)
    ]
    order = sorted(range(len(kept)), key=lambda i: -weights[i])
    kept = [kept[i] for i in order]
    studies = [studies[i] for i in order]
    weights = [weights[i] for i in order]
    spaces = [task.configs() for task, _ in kept]
    targets: list[int | None] = [None] * len(kept)
    if whole:
        targets = [len(space) for space in spaces]
    elif trials is not None:
        targets = list(split_trials(trials, weights, [len(space) for space in spaces]))
    for study, space, target in zip(studies, spaces, targets, strict=True):
        if target is not None and target >= len(space):
            queue_space(study, space)
    plan = Plan(
        records=records,
        sampler=sampler,
        seed=seed,
        tasks=tuple(task for task, _ in kept),
        baselines=tuple(base for _, base in kept),
        weights=tuple(weights),
        targets=tuple(targets),
        timeout=timeout,
        measure=measure,
        builder=builder,
    )
    before = [task_result(s, t, sampler) for s, t in zip(studies, plan.tasks, strict=True)]
    emit(("plan", Overview.of(before, plan.targets, timeout, workers)))
    if workers == 1:
        with measure.measurer() as measurer:
            run_plan(plan, 0, measurer, emit)
    else:
        run_workers(plan, workers, emit)
    return [task_result(s, t, sampler) for s, t in zip(studies, plan.tasks, strict=True)]


def queue_space(study: optuna.Study, space: Sequence[Mapping[str, int | str]]) -> None:
    """Queue every config of `space` the study has not tried: a task whose budget covers its
    whole space is measured whole, in order, where the sampler would propose duplicates
    (which count toward the budget) and might miss a config. Lost and pruned trials do not
    count as tried."""
    tried = [
        t.params or t.system_attrs.get("fixed_params")  # (a queued trial's, until it starts)
        for t in study.get_trials(deepcopy=False)
        if t.state in (TrialState.WAITING, TrialState.RUNNING) or is_measured(t)
    ]
    for config in space:
        if dict(config) not in tried:
            study.enqueue_trial(dict(config))


def tunable(
    tasks: Sequence[Task], measure: MeasureOptions, log: Callable[[str], None]
) -> list[tuple[Task, Baseline]]:
    """The tasks with a choice to make, each with its default measured; tasks whose default
    schedule fails to build or run are left out (and said so)."""
    choices = [len(task.configs()) for task in tasks]
    single = sum(1 for n in choices if n < 2)
    if single:
        log(f"not tuned: {single} task{'s' if single != 1 else ''} with a single valid config")
    tasks = [task for task, n in zip(tasks, choices, strict=True) if n >= 2]
    if not tasks:
        raise MinitvmError("the model has no tunable kernels (none has a schedule with a choice)")
    log(f"{len(tasks)} task{'s' if len(tasks) != 1 else ''}; measuring their default schedules")
    with measure.measurer() as measurer:
        measured = measure_baselines(tasks, measurer, measure)
    kept = []
    for task, baseline in zip(tasks, measured, strict=True):
        if isinstance(baseline, Baseline):
            kept.append((task, baseline))
        else:
            log(f"not tuned: {task.name}: its default schedule failed ({baseline.message})")
    if not kept:
        raise MinitvmError("no task's default schedule could be measured")
    return kept


# ------------------------------------------------------------------------------ workers


def _exit_with_parent(parent_pid: int) -> None:
    # A SIGKILLed tuner must not leave its workers tuning on their own.
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(1)


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # the trial in flight becomes FAIL (not counted), then we exit


def _worker_main(plan: Plan, worker: int, events: Any, parent_pid: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the parent decides
    signal.signal(signal.SIGTERM, _terminate)
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), daemon=True).start()
    try:
        with Quiet(), plan.measure.measurer() as measurer:
            run_plan(plan, worker, measurer, events.put)
    except KeyboardInterrupt:
        pass


def run_workers(plan: Plan, workers: int, emit: Callable[[Event], None]) -> None:
    """Run the plan in `workers` spawned processes; relay their events to `emit`."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    events = context.Queue()
    processes = [
        context.Process(
            target=_worker_main, args=(plan, w, events, os.getpid()), name=f"minitvm-tune-{w}"
        )
        for w in range(workers)
    ]
    for process in processes:
        process.start()
    try:
        while any(p.is_alive() for p in processes) or not events.empty():
            try:
                event = events.get(timeout=0.2)
            except queue.Empty:
                continue
            emit(event)
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(10)
            if process.is_alive():
                process.kill()
                process.join()
    failed = [
        f"{p.name} (exit code {p.exitcode})" for p in processes if p.exitcode not in (0, None)
    ]
    if failed:
        raise MinitvmError(
            f"tuning worker{'s' if len(failed) > 1 else ''} failed: {', '.join(failed)}"
        )


def format_seconds(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    return f"{seconds * 1e3:.3f} ms" if seconds >= 1e-4 else f"{seconds * 1e6:.1f} us"
