"""Write tuning records for a lit test: `python make_records.py KERNELS.mlir DB TEMPLATE K=V ...`.

Every tuning task (one thread, this CPU) of the te kernels in KERNELS.mlir whose template is
TEMPLATE gets one trial, the config K=V..., as its best: what `minitvm tune` would have filed
had that config won. The kernels get their default schedules first, as in a compile.
"""

from __future__ import annotations

import sys

import optuna

from minitvm.ir import make_context, parse_module
from minitvm.passes.te.default_schedule import DefaultSchedulePass
from minitvm.records import open_storage
from minitvm.tuner.search import Baseline, prepare_study
from minitvm.tuner.space import distributions
from minitvm.tuner.tasks import tasks_of_module


def main(path: str, db: str, template: str, *assignments: str) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with open(path) as f:
        module = parse_module(f.read(), filename=path)
    DefaultSchedulePass().apply(make_context(), module)
    config: dict[str, int | str] = {}
    for assignment in assignments:
        knob, _, value = assignment.partition("=")
        config[knob] = int(value) if value.lstrip("-").isdigit() else value
    storage = open_storage(f"sqlite:///{db}", create=True)
    for task in tasks_of_module(module, num_threads=1):
        if task.template != template:
            continue
        task.check(config)
        study = prepare_study(storage, task, "tpe", Baseline(1.0, 0.0, ()))
        trial = optuna.trial.create_trial(
            params=config, distributions=distributions(task.knobs), value=0.5
        )
        study.add_trial(trial)


if __name__ == "__main__":
    main(*sys.argv[1:])
