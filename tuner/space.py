"""Search spaces: a template's knobs as Optuna distributions.

Each knob of a schedule template (`schedules.base.Knob`: tile sizes, loop order, unroll,
vector width, ...) is one categorical parameter named after it: the choices are few and
discrete, and some (orders) have no numeric sense, so categorical is the honest distribution;
TPE's multivariate mode still learns which combinations go together. Combinations a template
rejects (too many accumulator registers) are not excluded here: the study prunes them before
anything is built (see `search.Objective`).
"""

from __future__ import annotations

from collections.abc import Sequence

import optuna
from optuna.distributions import CategoricalDistribution

from minitvm.schedules.base import Knob


def distributions(knobs: Sequence[Knob]) -> dict[str, CategoricalDistribution]:
    """The Optuna distribution of each knob (what `suggest_config` samples from)."""
    return {knob.name: CategoricalDistribution(knob.choices) for knob in knobs}


def suggest_config(trial: optuna.Trial, knobs: Sequence[Knob]) -> dict[str, int | str]:
    """One value per knob, proposed by the trial's sampler."""
    return {knob.name: trial.suggest_categorical(knob.name, knob.choices) for knob in knobs}
