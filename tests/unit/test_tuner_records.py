"""records.py: the best trial per task key is what `compile(..., records=URL)` applies;
explicit schedules win; bad URLs are one clean error."""

from __future__ import annotations

import numpy as np
import optuna
import pytest
from tuner_models import conv_relu_chain

import minitvm
from minitvm.compiler import random_inputs
from minitvm.records import RecordsError, load_schedules, open_storage
from minitvm.tuner.search import Baseline, prepare_study
from minitvm.tuner.space import distributions
from minitvm.tuner.tasks import Task, extract_tasks

MODEL = conv_relu_chain(layers=2)


@pytest.fixture(scope="module")
def conv() -> Task:
    return next(t for t in extract_tasks(MODEL, num_threads=1, winograd="never") if t.template == "conv_nchwc")


def records_with(
    path, task: Task, results: list[tuple[dict, float]], sampler: str = "tpe", default: float = 1.0
) -> str:
    """Records holding `task`'s study with the default (at `default` seconds) and these trials."""
    url = f"sqlite:///{path}"
    study = prepare_study(open_storage(url, create=True), task, sampler, Baseline(default, 0.0, ()))
    for config, seconds in results:
        study.add_trial(
            optuna.trial.create_trial(
                params=config, distributions=distributions(task.knobs), value=seconds
            )
        )
    return url


def test_best_trial_over_samplers_is_loaded(tmp_path, conv: Task) -> None:
    a = {**conv.default_config, "ow_block": 2}  # type: ignore[dict-item]
    b = {**conv.default_config, "ow_block": 1}  # type: ignore[dict-item]
    url = records_with(tmp_path / "r.db", conv, [(a, 0.5), (b, 0.7)])
    assert load_schedules(url) == {conv.key: a}
    records_with(tmp_path / "r.db", conv, [(b, 0.4)], sampler="random")
    assert load_schedules(url) == {conv.key: b}
    assert load_schedules(url, target=conv.target) == {conv.key: b}
    assert load_schedules(url, target="another-cpu-t1") == {}
    # Studies that are not minitvm's are left alone.
    optuna.create_study(study_name="someone else's", storage=url).add_trial(
        optuna.trial.create_trial(params={}, distributions={}, value=0.0)
    )
    assert load_schedules(url) == {conv.key: b}


def test_without_a_default_config_the_best_must_beat_the_default(tmp_path, conv: Task) -> None:
    from dataclasses import replace

    plain = replace(conv, default_config=None)
    slower = {**conv.default_config, "ow_block": 2}  # type: ignore[dict-item]
    url = records_with(tmp_path / "r.db", plain, [(slower, 2.0)], default=1.0)
    assert load_schedules(url) == {}


def test_compile_with_records_applies_them_and_computes_the_same(tmp_path, conv: Task) -> None:
    tuned = {"ow_block": 2, "oc_block": 2, "reduction_order": "kh_kw_c", "unroll_kw": 1,
             "c_block": 0}  # fmt: skip
    url = records_with(tmp_path / "r.db", conv, [(tuned, 0.1)])
    exe = minitvm.compile(MODEL, records=url, num_threads=1, winograd="never")
    default = minitvm.compile(MODEL, num_threads=1, winograd="never")
    assert exe.stats["report"].op_counts["tuned kernels"] == 2  # both convs of the task
    assert "apply records" in exe.stats["report"].seconds
    inputs = random_inputs(default)
    np.testing.assert_allclose(exe.run(inputs)[0], default.run(inputs)[0], rtol=1e-4, atol=1e-5)
    # Records are for one thread count: at two threads the keys differ and nothing applies.
    other = minitvm.compile(MODEL, records=url, num_threads=2, winograd="never")
    assert other.stats["report"].op_counts.get("tuned kernels", 0) == 0
    # Explicit schedules win over records.
    explicit_schedules = {conv.key: dict(conv.default_config or {})}
    explicit = minitvm.compile(MODEL, records=url, num_threads=1, winograd="never", schedules=explicit_schedules)
    assert explicit.stats["report"].op_counts["tuned kernels"] == 2


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("records.db", "not a database URL.*did you mean sqlite:///records.db"),
        ("sqlite:///{tmp}/missing.db", "no such file"),
        ("sqlite:///{tmp}/no/dir/r.db", "no such file"),
        ("nosuchdb://host/db", "not a usable database URL"),
        ("postgresql://user:pw@127.0.0.1:1/db", "cannot open the database.*refused"),
        ("sqlite:///{tmp}/junk.db", "cannot open the database|cannot read"),
    ],
)
def test_bad_urls_are_clean_errors(tmp_path, url: str, message: str) -> None:
    (tmp_path / "junk.db").write_bytes(b"this is not a database" * 100)
    with pytest.raises(RecordsError, match=message):
        load_schedules(url.format(tmp=tmp_path))
    with pytest.raises(RecordsError, match=message):
        minitvm.compile(MODEL, records=url.format(tmp=tmp_path), num_threads=1, winograd="never")


def test_a_verified_best_wins_over_the_best_trial(tmp_path, conv: Task) -> None:
    from minitvm.records import VERIFIED_ATTR

    lucky = {**conv.default_config, "ow_block": 2}  # type: ignore[dict-item]
    steady = {**conv.default_config, "ow_block": 1}  # type: ignore[dict-item]
    url = records_with(tmp_path / "r.db", conv, [(lucky, 0.5)])
    assert load_schedules(url) == {conv.key: lucky}
    study = optuna.load_study(study_name=f"{conv.key}:tpe", storage=url)
    study.set_user_attr(VERIFIED_ATTR, {"params": steady, "seconds": 0.9, "default_seconds": 1.0})
    assert load_schedules(url) == {conv.key: steady}
    # Verification kept the default: nothing is pinned, the template's default applies.
    study.set_user_attr(VERIFIED_ATTR, {"params": dict(conv.default_config), "seconds": 0.9})  # type: ignore[arg-type]
    assert load_schedules(url) == {}


def test_a_study_that_kept_its_default_pins_nothing(tmp_path, conv: Task) -> None:
    """A study made when the template's default was another config, whose search found
    nothing faster, must not keep that old default over today's."""
    from dataclasses import replace

    from minitvm.records import VERIFIED_ATTR

    order = next(k for k in conv.knobs if k.name == "reduction_order")
    other = next(c for c in order.choices if c != conv.default_config["reduction_order"])  # type: ignore[index]
    old_default = {**conv.default_config, "reduction_order": other}  # type: ignore[dict-item]
    then = replace(conv, default_config=old_default)
    slower = {**conv.default_config, "ow_block": 2}  # type: ignore[dict-item]
    url = records_with(tmp_path / "r.db", then, [(slower, 1.5)])  # its best trial: the default
    assert load_schedules(url) == {}
    exe = minitvm.compile(MODEL, records=url, num_threads=1, winograd="never")
    assert exe.stats["report"].op_counts.get("tuned kernels", 0) == 0
    # Resumed and verified against today's default, which it kept: still nothing pinned.
    study = optuna.load_study(study_name=f"{conv.key}:tpe", storage=url)
    today = {"params": dict(conv.default_config), "seconds": 0.9, "default_seconds": 0.9,
             "default_params": dict(conv.default_config)}  # type: ignore[arg-type]  # fmt: skip
    study.set_user_attr(VERIFIED_ATTR, today)
    assert load_schedules(url) == {}
    # ... and one that beat today's default is applied.
    study.set_user_attr(VERIFIED_ATTR, {**today, "params": old_default, "seconds": 0.8})
    assert load_schedules(url) == {conv.key: old_default}


def test_over_samplers_the_largest_gain_over_the_default_wins(tmp_path, conv: Task) -> None:
    """Studies timed at different moments of a shared machine: the one whose config beat its
    own default by more wins, not the one that happened to run at a quiet moment."""
    a = {**conv.default_config, "ow_block": 2}  # type: ignore[dict-item]
    b = {**conv.default_config, "ow_block": 1}  # type: ignore[dict-item]
    url = records_with(tmp_path / "r.db", conv, [(a, 1.6)], default=2.0)  # 0.8x, a slow moment
    records_with(tmp_path / "r.db", conv, [(b, 0.95)], sampler="random", default=1.0)  # 0.95x
    assert load_schedules(url) == {conv.key: a}


def test_reports_give_the_verified_times_of_the_config_the_records_apply(tmp_path, conv: Task) -> None:
    from minitvm.records import VERIFIED_ATTR, verified_standing
    from minitvm.tuner.report import read_rows

    lucky = {**conv.default_config, "ow_block": 2}  # type: ignore[dict-item]
    url = records_with(tmp_path / "r.db", conv, [(lucky, 0.5)])
    study = optuna.load_study(study_name=f"{conv.key}:tpe", storage=url)
    assert verified_standing(study.user_attrs) is None
    kept_default = {"params": dict(conv.default_config), "seconds": 0.9}  # type: ignore[arg-type]
    study.set_user_attr(VERIFIED_ATTR, kept_default)  # (as written before it timed the default)
    assert verified_standing(study.user_attrs) == (0.9, 0.9, conv.default_config)
    study.set_user_attr(VERIFIED_ATTR, {"params": lucky, "seconds": 0.8, "default_seconds": 1.0})
    assert verified_standing(study.user_attrs) == (1.0, 0.8, lucky)
    (row,) = read_rows(url)
    assert (row.default_seconds, row.best_seconds, row.best_config) == (1.0, 0.8, lucky)


def test_a_config_rejected_in_the_model_pins_nothing_until_another_is_verified(
    tmp_path, conv: Task
) -> None:
    from minitvm.records import VERIFIED_ATTR, reject_config

    a = {**conv.default_config, "ow_block": 2}  # type: ignore[dict-item]
    b = {**conv.default_config, "ow_block": 1}  # type: ignore[dict-item]
    url = records_with(tmp_path / "r.db", conv, [(a, 0.5)])
    assert reject_config(url, conv.key, b, conv.target) == 0  # (not what it pins)
    assert reject_config(url, conv.key, a, "another-cpu-t1") == 0
    assert load_schedules(url) == {conv.key: a}
    assert reject_config(url, conv.key, a, conv.target) == 1
    assert load_schedules(url) == {}
    # A later verification that keeps another config pins it.
    study = optuna.load_study(study_name=f"{conv.key}:tpe", storage=url)
    study.set_user_attr(VERIFIED_ATTR, {"params": b, "seconds": 0.9, "default_seconds": 1.0})
    assert load_schedules(url) == {conv.key: b}


def test_the_model_check_drops_the_configs_that_slow_the_model(tmp_path) -> None:
    """`minitvm tune`'s model check, its timings given: the tuned model is the slower, so each
    pinned config is timed alone in the model against the default, and the one that slows it
    is rejected in the records while the one that speeds it up stays; a tuned model that is
    not the slower leaves the records as they are."""
    from minitvm.tuner.model_check import check_model

    model = conv_relu_chain(layers=3)
    tasks = [t for t in extract_tasks(model, num_threads=1, winograd="never") if t.default_config]
    conv_task = next(t for t in tasks if t.template == "conv_nchwc")
    shuffle = next(t for t in tasks if t.template == "transpose")
    hurts = {**conv_task.default_config, "ow_block": 2}  # type: ignore[dict-item]
    helps = {**shuffle.default_config, "registers": 0}  # type: ignore[dict-item]
    url = records_with(tmp_path / "r.db", conv_task, [(hurts, 0.5)])
    records_with(tmp_path / "r.db", shuffle, [(helps, 0.5)])
    assert load_schedules(url) == {conv_task.key: hurts, shuffle.key: helps}
    options = {"num_threads": 1, "winograd": "never"}

    def timings(*rounds: dict[str, float]):
        """A stand-in for timing the runners side by side: each call's seconds, in turn."""
        calls = iter(rounds)

        def time_runners(runners):
            seconds = next(calls)
            assert set(runners) == set(seconds)
            return {name: [s, s * 1.01, s * 0.99] for name, s in seconds.items()}

        return time_runners

    faster = check_model(model, url, tasks, options, timings({"default": 1.0, "tuned": 0.9}))
    assert faster is not None and faster.examined is None and faster.dropped == []
    slower = check_model(model, url, tasks, options, timings(
        {"default": 1.0, "tuned": 1.2},
        {"default": 1.0, conv_task.name: 1.1, shuffle.name: 0.95},
        {"default": 1.0, "tuned": 0.97},
    ))  # fmt: skip
    assert slower is not None and slower.examined == 2
    assert [name for name, _ in slower.dropped] == [conv_task.name]
    assert slower.retuned_ms == (1000.0, 970.0)
    assert load_schedules(url) == {shuffle.key: helps}
