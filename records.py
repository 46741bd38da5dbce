"""Tuning records: the Optuna storage `minitvm tune` writes and `minitvm.compile` reads.

Records are an Optuna storage URL, any SQLAlchemy URL: `sqlite:///minitvm_records.db` (the
default, one machine) or `postgresql://user:pass@host/db` (many tuners on many machines).
The tuner keeps one study per tuning task and sampler, named `<task key>:<sampler>`; the
task key (`kernel_task_key`) already names the target (CPU and thread count), so records of
several machines can share one database. Each study's user attributes describe its task:

    task_key, target, name, template, count, default_config, default_seconds, minitvm_records

`load_schedules` is what compiling with records does (te-apply-records): for each task key,
the config its studies found faster than their default (verified, else the best COMPLETE
trial), as a config to apply; a study that found nothing faster pins nothing, so the
template's default of the day applies. Optuna is imported only when records are read (it is
slow to import).
"""

from __future__ import annotations

import contextlib
import math
import os
import time
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

from minitvm.errors import MinitvmError, MinitvmWarning

DEFAULT_RECORDS = "sqlite:///minitvm_records.db"
#: Study user attribute that marks a study as one of ours (others may share the database).
FORMAT_ATTR = "minitvm_records"
#: Study attr the tuner sets when a task's search ends: the best few configs re-measured.
VERIFIED_ATTR = "verified_best"
#: Study attr `minitvm tune`'s model check sets on the config a study pins when that config,
#: applied alone, made the whole model slower than the default (`reject_config`): it pins
#: nothing from then on, until a new verification keeps another config.
REJECTED_ATTR = "slower_in_model"
FORMAT_VERSION = 1


def verified_standing(attrs: Mapping[str, Any]) -> tuple[float, float, dict[str, Any]] | None:
    """(the default's seconds, the kept config's seconds, the kept config) from a study's
    verification (both timed in the same interleaved rounds), or None where it had none.
    Records written before the verification timed the default give its first measurement
    (but a kept default is as fast as itself)."""
    verified = attrs.get(VERIFIED_ATTR)
    if verified is None:
        return None
    seconds, params = float(verified["seconds"]), dict(verified["params"])
    default = verified.get("default_seconds", attrs.get("default_seconds"))
    if params == default_config(attrs):  # (kept the default: the same schedule)
        default = seconds
    return float(default if default is not None else math.nan), seconds, params


def default_config(attrs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The default config a study's last verification measured (`default_params`: a study
    resumed after the template's default changed is verified against the new one), else the
    one its task had when the study was made."""
    verified = attrs.get(VERIFIED_ATTR) or {}
    return verified.get("default_params", attrs.get("default_config"))


def standing(attrs: Mapping[str, Any], best_trial: Any) -> tuple[float, float | None, dict[str, Any] | None]:
    """A study's (default seconds, best seconds, best config): its verification's (what the
    records apply, timed beside the default) where it has one, else its first default
    measurement and its best trial (an optuna FrozenTrial, or None: nothing measured)."""
    verified = verified_standing(attrs)
    if verified is not None:
        return verified
    best = (None, None) if best_trial is None else (best_trial.value, dict(best_trial.params))
    return float(attrs["default_seconds"]), *best


class RecordsError(MinitvmError):
    """The records URL is malformed, names a missing database, or cannot be reached."""


class RecordsWarning(MinitvmWarning):
    """Records a compile ignores: studies written by another version of minitvm's format."""


def busy_timeout() -> float:
    """Seconds a sqlite connection waits for another process's lock on the records before it
    gives up (MINITVM_RECORDS_BUSY_TIMEOUT, default 60): tuners sharing a file take turns,
    and a lock held longer than that (a stuck process) is an error, not a hang."""
    value = os.environ.get("MINITVM_RECORDS_BUSY_TIMEOUT", "60")
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise RecordsError(f"MINITVM_RECORDS_BUSY_TIMEOUT={value!r} is not a number of seconds")
    return seconds


@contextlib.contextmanager
def storage_errors(url: str, doing: str = "cannot use the database") -> Iterator[None]:
    """Database errors raised inside as one RecordsError naming `url`: a corrupt file, a lock
    held past `busy_timeout()`, tables of another Optuna version (Optuna raises RuntimeError
    for those), an unreachable server. Anything else passes through."""
    import optuna
    import sqlalchemy.exc

    try:
        yield
    except sqlalchemy.exc.ArgumentError:  # a malformed URL: open_storage says so
        raise
    except (sqlalchemy.exc.SQLAlchemyError, optuna.exceptions.StorageInternalError) as error:
        cause = error.__cause__ if isinstance(error, optuna.exceptions.StorageInternalError) else error
        text = str(cause or error).strip()
        first = text.splitlines()[0] if text else type(error).__name__
        if "database is locked" in text:
            first = (
                f"another process has held its lock for more than {busy_timeout():g} s "
                "(MINITVM_RECORDS_BUSY_TIMEOUT)"
            )
        raise RecordsError(f"records {url}: {doing} ({first})") from None
    except RuntimeError as error:
        if "optuna" not in str(error).lower() or "compatible" not in str(error):
            raise
        raise RecordsError(
            f"records {url}: written by another version of Optuna, whose tables this one "
            f"(optuna {optuna.__version__}) cannot read ({str(error).splitlines()[0]})"
        ) from None


def sqlite_path(url: str) -> str | None:
    """The file a `sqlite:///path` URL names (None for other URLs and in-memory sqlite)."""
    scheme, sep, rest = url.partition(":///")
    if not sep or scheme.split("+")[0] != "sqlite":
        return None
    path = rest.split("?")[0]
    return None if path in ("", ":memory:") else path


def _normalized(url: str) -> str:
    """SQLAlchemy 2.1 maps a bare `postgresql://` to the psycopg 3 driver; we ship psycopg2."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme in ("postgresql", "postgres"):
        try:
            import psycopg  # noqa: F401  # pyright: ignore[reportMissingImports]
        except ImportError:
            return f"postgresql+psycopg2://{rest}"
    return url


def open_storage(
    url: str, *, create: bool = False, heartbeat: bool = False, storage_class: Any = None
) -> Any:
    """An `optuna.storages.RDBStorage` (or `storage_class`, a subclass) on `url`, or a
    RecordsError a user can act on.

    A sqlite file must exist unless `create` (compiling with records that are not there is
    a mistake, not an empty set). With `heartbeat`, running trials record a heartbeat, and a
    trial whose tuner died (killed, machine lost) is marked FAIL once it has been silent for
    a minute, so that it does not count as in flight forever."""
    if "://" not in url:
        hint = f"; did you mean sqlite:///{url}?" if url else ""
        raise RecordsError(f"records '{url}' is not a database URL (e.g. {DEFAULT_RECORDS}){hint}")
    path = sqlite_path(url)
    if path is not None:
        if not create and not os.path.isfile(path):
            raise RecordsError(f"records {url}: no such file {path}")
        directory = os.path.dirname(os.path.abspath(path))
        if create and not os.path.isdir(directory):
            raise RecordsError(f"records {url}: no such directory {directory}")
    import optuna
    import sqlalchemy.exc

    # sqlite: many tuner processes write one file; wait for its lock rather than fail.
    engine_kwargs: dict[str, Any] = (
        {"connect_args": {"timeout": busy_timeout()}} if path is not None else {"pool_pre_ping": True}
    )
    options: dict[str, Any] = {}
    if heartbeat:
        options = {"heartbeat_interval": 10, "grace_period": 60}
    try:
        with storage_errors(url, "cannot open the database"):
            for attempt in range(5):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                        return (storage_class or optuna.storages.RDBStorage)(
                            _normalized(url), engine_kwargs=engine_kwargs, **options
                        )
                except sqlalchemy.exc.SQLAlchemyError as error:
                    # Tuners started together on a new database all create its tables: the
                    # losers of that race see "already exists" or a duplicate key, and the
                    # tables are there when they look again.
                    text = str(error).lower()
                    racing = "already exists" in text or "duplicate" in text
                    if attempt == 4 or not (
                        racing or isinstance(error, sqlalchemy.exc.IntegrityError)
                    ):
                        raise
                    time.sleep(0.1 * (attempt + 1))
            raise AssertionError("unreachable")
    except ImportError as error:
        raise RecordsError(f"records {url}: no database driver for it ({error})") from None
    except sqlalchemy.exc.ArgumentError as error:  # malformed URL, unknown dialect
        raise RecordsError(f"records {url}: not a usable database URL ({error})") from None


def of_this_format(summary: Any, url: str) -> bool:
    """Whether a study is minitvm's, in the records format this minitvm reads. A study of
    another format version (another minitvm wrote it) is skipped with a RecordsWarning:
    its configs may not mean what they say to this version's templates."""
    version = summary.user_attrs.get(FORMAT_ATTR)
    if version is None:
        return False  # not minitvm's: others may share the database
    if version != FORMAT_VERSION:
        warnings.warn(
            f"records {url}: ignoring study '{summary.study_name}', written in minitvm's "
            f"records format {version} (this minitvm reads format {FORMAT_VERSION})",
            RecordsWarning,
            stacklevel=2,
        )
        return False
    return True


def _best_configs(storage: Any, target: str | None, url: str) -> dict[str, dict[str, int | str]]:
    """task key -> the config to apply, over that key's minitvm studies: a study's verified
    best (its best few re-measured side by side with the default at the end of tuning) where
    it has one, else its best COMPLETE trial, if it is faster than the study's default.

    A study whose best is its default pins nothing: it says only that the search found no
    better schedule than the default of its day, and applying that config would keep a
    template's older default over a better one made since (ResNet-18's 1x1 stride-2 conv
    kept a split reduction that a later default dropped: 3.5% slower). Over several studies
    of a key (one per sampler) the one whose config beat its own default by the largest
    factor wins: their seconds were measured at different times, and on a shared machine
    the fastest time says more about the moment than about the config."""
    import optuna

    best: dict[str, tuple[float, dict[str, int | str]]] = {}
    for summary in optuna.get_all_study_summaries(storage, include_best_trial=True):
        attrs = summary.user_attrs
        if not of_this_format(summary, url) or (target is not None and attrs.get("target") != target):
            continue
        default_seconds, seconds, params = standing(attrs, summary.best_trial)
        if params is None or seconds is None or not math.isfinite(seconds):
            continue
        if params == default_config(attrs) or not seconds < default_seconds:
            continue  # (nan: a default never timed; such a study pins nothing either)
        if params == attrs.get(REJECTED_ATTR):
            continue  # (it slowed the model it was tuned in)
        key, ratio = attrs["task_key"], seconds / default_seconds
        if key not in best or ratio < best[key][0]:
            best[key] = (ratio, params)
    return {key: params for key, (_, params) in best.items()}


def reject_config(url: str, key: str, config: Mapping[str, Any], target: str) -> int:
    """Mark `config` as slower in the model (REJECTED_ATTR) on every study of task `key`
    tuned for `target` whose standing config it is, so that the records pin it no more: a
    verified win of a kernel alone can lose in the model (its operands cold, its neighbours'
    caches), or stop holding later (ResNet-50's 3x3 conv at 7x7: 1% faster when verified,
    35% slower the next day). Returns how many studies were marked."""
    import optuna

    storage = open_storage(url)
    marked = 0
    try:
        with storage_errors(url, "cannot update tuning records"):
            for summary in optuna.get_all_study_summaries(storage, include_best_trial=True):
                attrs = summary.user_attrs
                if not of_this_format(summary, url) or attrs.get("task_key") != key:
                    continue
                if attrs.get("target") != target:
                    continue
                if standing(attrs, summary.best_trial)[2] != dict(config):
                    continue
                study_id = storage.get_study_id_from_name(summary.study_name)
                storage.set_study_user_attr(study_id, REJECTED_ATTR, dict(config))
                marked += 1
    finally:
        storage.engine.dispose()
    return marked


def load_schedules(url: str, target: str | None = None) -> dict[str, dict[str, int | str]]:
    """Best config per task key in the records at `url` (only tasks tuned for `target`, a
    `minitvm.host.target_key`, when given). Raises RecordsError for a bad URL."""
    storage = open_storage(url)
    try:
        with storage_errors(url, "cannot read tuning records"):
            return _best_configs(storage, target, url)
    finally:
        storage.engine.dispose()
