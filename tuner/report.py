"""What tuning records hold, for people: a table per task and a convergence plot.

`minitvm tune --report --records URL` and the summary at the end of `minitvm tune` read the
records (not the tuner's memory), so they show the same thing after a crash or a resume, and
for studies filled by many tuners. One row per study (task x sampler): default vs best
latency, the speed-up, and how many trials were measured, failed as candidates, or were
pruned as invalid. The plot draws best-so-far latency against the measured trial number,
one panel per task, one line per sampler (TPE vs random where both were run).
"""

from __future__ import annotations

import io
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from minitvm.errors import MinitvmError
from minitvm.records import of_this_format, open_storage, standing, storage_errors
from minitvm.tuner.choices import TEMPLATE as CHOICE_TEMPLATE
from minitvm.tuner.search import STATUS, format_seconds, measured_trials


@dataclass(frozen=True)
class StudyRow:
    """One study of the records: a task as tuned by one sampler."""

    key: str
    sampler: str
    name: str
    template: str
    count: int
    target: str
    default_seconds: float
    best_seconds: float | None
    best_config: dict[str, Any] | None
    trials: int  # measured: COMPLETE, or FAIL as a candidate
    failed: int
    pruned: int  # invalid configs, never built
    #: best-so-far seconds after each measured trial, in trial order (nan before the first
    #: that completed)
    curve: tuple[float, ...] = field(repr=False, default=())

    @property
    def speedup(self) -> float | None:
        return None if not self.best_seconds else self.default_seconds / self.best_seconds

    @property
    def weight(self) -> float:
        return self.count * self.default_seconds


def read_rows(
    records: str, keys: Collection[str] | None = None, sampler: str | None = None
) -> list[StudyRow]:
    """The minitvm studies in `records` (those of task `keys` / `sampler` only, when given),
    heaviest task first."""
    import optuna
    from optuna.trial import TrialState

    storage = open_storage(records)
    rows = []
    try:
        with storage_errors(records, "cannot read tuning records"):
            for summary in optuna.get_all_study_summaries(storage, include_best_trial=False):
                attrs = summary.user_attrs
                if not of_this_format(summary, records):
                    continue
                if keys is not None and attrs["task_key"] not in keys:
                    continue
                if sampler is not None and attrs["sampler"] != sampler:
                    continue
                study = optuna.load_study(study_name=summary.study_name, storage=storage)
                trials = sorted(study.get_trials(deepcopy=False), key=lambda t: t.number)
                measured = measured_trials(trials)
                curve, best, best_trial = [], math.nan, None
                for trial in measured:
                    if (
                        trial.state is TrialState.COMPLETE
                        and trial.value is not None
                        and not trial.value >= best
                    ):
                        best, best_trial = trial.value, trial
                    curve.append(best)
                default_seconds, best_seconds, best_config = standing(attrs, best_trial)
                rows.append(
                    StudyRow(
                        key=attrs["task_key"],
                        sampler=attrs["sampler"],
                        name=attrs["name"],
                        template=attrs["template"],
                        count=int(attrs["count"]),
                        target=attrs["target"],
                        default_seconds=default_seconds,
                        best_seconds=best_seconds,
                        best_config=best_config,
                        trials=len(measured),
                        failed=sum(1 for t in measured if t.state is TrialState.FAIL),
                        pruned=sum(1 for t in trials if t.user_attrs.get(STATUS) == "invalid"),
                        curve=tuple(curve),
                    )
                )
    finally:
        storage.engine.dispose()
    by_key: dict[str, float] = {}
    for row in rows:
        by_key[row.key] = max(by_key.get(row.key, 0.0), row.weight)
    return sorted(rows, key=lambda r: (-by_key[r.key], r.key, r.sampler))


def format_table(rows: Sequence[StudyRow]) -> str:
    """One line per study, then the model-weighted kernel time of each sampler."""
    if not rows:
        return "no tuning records of minitvm tasks\n"
    header = (
        "task",
        "sampler",
        "count",
        "trials",
        "failed",
        "invalid",
        "default",
        "best",
        "speedup",
    )
    lines = [header]
    for row in rows:
        speedup = "-" if row.speedup is None else f"{row.speedup:.2f}x"
        lines.append(
            (
                f"{row.name} [{row.template}]",
                row.sampler,
                str(row.count),
                str(row.trials),
                str(row.failed),
                str(row.pruned),
                format_seconds(row.default_seconds),
                format_seconds(row.best_seconds),
                speedup,
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = []
    for line in lines:
        cells = [line[0].ljust(widths[0]), line[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(line[2:], widths[2:], strict=True)]
        text.append("  ".join(cells).rstrip())
    text.insert(1, "-" * len(text[0]))
    text.append("")
    for sampler in sorted({row.sampler for row in rows}):
        mine = [row for row in rows if row.sampler == sampler]
        # (a conv's algorithm task times the kernels it becomes: counted apart, not twice)
        convs = [row for row in mine if row.template == CHOICE_TEMPLATE]
        kernels = [row for row in mine if row.template != CHOICE_TEMPLATE]
        for group, noun, of in (
            (kernels, "task", "kernels"),
            (convs, "conv algorithm task", "convs"),
        ):
            if group:
                text.append(f"{sampler}: {_total(group, noun, of)}")
    return "\n".join(text) + "\n"


def _total(rows: Sequence[StudyRow], noun: str, of: str) -> str:
    default = sum(row.count * row.default_seconds for row in rows)
    best = sum(row.count * (row.best_seconds or row.default_seconds) for row in rows)
    return (
        f"{len(rows)} {noun}{'s' if len(rows) != 1 else ''}, time of their {of} in the model "
        f"{1e3 * default:.3f} ms default -> {1e3 * best:.3f} ms tuned ({default / best:.2f}x)"
    )


def convergence_png(rows: Sequence[StudyRow], columns: int = 3) -> bytes:
    """Best-so-far latency vs measured trial, a panel per task, a line per sampler; the
    default's latency dashed. A PNG image (the CLI writes it atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    keys = list(dict.fromkeys(row.key for row in rows))
    if not keys:
        raise MinitvmError("the records hold no minitvm tuning studies to plot")
    columns = min(columns, len(keys))
    lines = -(-len(keys) // columns)
    figure, axes = plt.subplots(
        lines, columns, figsize=(5.2 * columns, 3.6 * lines), squeeze=False, constrained_layout=True
    )
    for n, key in enumerate(keys):
        axis = axes[n // columns][n % columns]
        studies = [row for row in rows if row.key == key]
        default = studies[0].default_seconds
        scale, unit = (1e3, "ms") if default >= 1e-3 else (1e6, "us")
        for row in studies:
            trials = range(len(row.curve))
            values = [scale * s for s in row.curve]
            axis.plot(trials, values, drawstyle="steps-post", marker=".", label=row.sampler)
        axis.axhline(scale * default, color="grey", linestyle="--", label="default")
        axis.set_title(f"{studies[0].name} (x{studies[0].count})", fontsize=9)
        axis.set_xlabel("measured trial (0: the default)")
        axis.set_ylabel(f"best latency so far ({unit})")
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    for n in range(len(keys), lines * columns):
        axes[n // columns][n % columns].axis("off")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    return buffer.getvalue()
