"""Which template schedules a compute: the templates in the order they are tried, and the
default schedule of a compute as convert-graph-to-te built it.

The most specific templates come first (a blocked conv, a GEMM, a blocked pool, a pointwise
NCHW conv), then the general ones (other reductions, transposes, injective computes): the
first whose `space` applies to a compute schedules it. None applies to a compute without
elements (a dim of size 0): its nest runs no iteration, so there is nothing to schedule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.errors import MinitvmError
from minitvm.schedules.base import Config, ScheduleTemplate
from minitvm.schedules.conv import ConvNchwcTemplate, PointwiseConvNchwTemplate
from minitvm.schedules.gemm import GemmTemplate
from minitvm.schedules.injective import InjectiveTemplate
from minitvm.schedules.pool import PoolNchwcTemplate
from minitvm.schedules.reduction import ReductionTemplate
from minitvm.schedules.transpose import TransposeTemplate
from minitvm.schedules.winograd import WinogradTemplate

REDUCTION = ReductionTemplate()
TRANSPOSE = TransposeTemplate()
INJECTIVE = InjectiveTemplate()

#: Tried in order; the first whose space applies to a compute schedules it.
TEMPLATES: tuple[ScheduleTemplate, ...] = (
    WinogradTemplate(), ConvNchwcTemplate(), GemmTemplate(), PoolNchwcTemplate(), PointwiseConvNchwTemplate(),
    REDUCTION, TRANSPOSE, INJECTIVE,
)  # fmt: skip


def template_for(compute: te.ComputeOp) -> ScheduleTemplate | None:
    if _is_empty(compute):
        return None
    return next((t for t in TEMPLATES if t.space(compute) is not None), None)


def _is_empty(compute: te.ComputeOp) -> bool:
    return math.prod(compute.shape) == 0


def template_named(name: str) -> ScheduleTemplate:
    for template in TEMPLATES:
        if template.name == name:
            return template
    raise MinitvmError(f"no schedule template named '{name}' (known: {', '.join(t.name for t in TEMPLATES)})")


def apply_default_schedule(compute: te.ComputeOp, main: bool) -> None:
    """The default schedule of a compute as a rule built it: its template's default if it is
    the main compute of a templated op (`main`), else the reduction or transpose default if
    it is one of those, else the injective one (the plain loop order, but a loop with a
    period split by it, see `period`)."""
    if main or _is_empty(compute):
        apply_template(compute)
        return
    for template in (REDUCTION, TRANSPOSE, INJECTIVE):
        if template.space(compute) is not None:
            config = template.default_config(compute)
            if config is not None:
                _append(compute, template.schedule(compute, config))
            return


def _append(compute: te.ComputeOp, primitives: Sequence[Attribute]) -> None:
    if primitives:
        compute.attributes[te.SCHEDULE_ATTR] = ArrayAttr([*compute.schedule, *primitives])


def apply_template(compute: te.ComputeOp, config: Config | None = None) -> ScheduleTemplate | None:
    """Give `compute` its template's schedule (the default config unless `config` is given),
    after the primitives it already has; the template, or None if none applies."""
    template = template_for(compute)
    if template is None:
        return None
    config = config or template.default_config(compute)
    if config is None:
        return None
    _append(compute, template.schedule(compute, config))
    return template
