"""A te kernel's schedule as one config: the default one, and what the tuner reads, keys and
replaces.

`set_default_schedule(kernel)` is what te-default-schedule does to each kernel: every compute
gets its default (its template's default config where convert-graph-to-te marked it
`te.templated`, else the reduction, transpose or injective default), and a `te.fused` kernel's
other computes are inlined or attached to its anchor accordingly (`fused.py`). The tuner
and te-apply-records see a kernel through three functions:

  - `kernel_template(kernel)`: the anchor compute and its template (knobs = search space);
  - `kernel_task_key(kernel, target)`: a structural hash of WHAT the kernel computes (its
    computes with every schedule, name and SSA name hint left out), the target, and the
    template with its search space, so equal kernels of a model, or of two models, share one
    tuning task and its records, and records made for another template or space (an older
    minitvm) are not applied to it;
  - `set_kernel_config(kernel, config)`: replace the whole kernel's schedule by the one a
    config implies (the anchor's template schedule, then the fused schedule on top of it).

Changing the config never changes what the kernel computes (schedules only say HOW).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i64

from minitvm.dialects import te
from minitvm.dialects.te import ANCHOR
from minitvm.schedules.base import Config, ScheduleTemplate
from minitvm.schedules.fused import schedule_fused_kernel
from minitvm.schedules.templates import TEMPLATES, apply_default_schedule, template_for
from minitvm.symbolic import size_hints

#: Attributes that say HOW, or what a schedule pass left behind: no part of a kernel's key.
_SCHEDULE_ATTRS = (te.SCHEDULE_ATTR, te.TEMPLATED_ATTR, te.FUSED_ATTR, te.TUNED_ATTR)


def _computes(kernel: func.FuncOp) -> list[te.ComputeOp]:
    return [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]


def _name(compute: te.ComputeOp) -> str | None:
    name = compute.properties.get("name")
    return name.data if isinstance(name, StringAttr) else None


def set_default_schedule(kernel: func.FuncOp) -> None:
    """Give an unscheduled kernel its default schedule (see the module docstring)."""
    for compute in _computes(kernel):
        apply_default_schedule(compute, main=te.TEMPLATED_ATTR in compute.attributes)
    if te.FUSED_ATTR in kernel.attributes:
        anchor = next((c for c in _computes(kernel) if _name(c) == ANCHOR), None)
        schedule_fused_kernel(kernel, anchor)


def clear_schedule(kernel: func.FuncOp) -> None:
    """Drop every schedule from `kernel` (what a template that gave up half-way left)."""
    for compute in _computes(kernel):
        compute.attributes.pop(te.SCHEDULE_ATTR, None)
    kernel.attributes.pop(te.TUNED_ATTR, None)


def is_scheduled(kernel: func.FuncOp) -> bool:
    """Whether any compute of `kernel` has a schedule (its default, or one written by hand)."""
    return any(compute.schedule for compute in _computes(kernel))


def kernel_template(kernel: func.FuncOp) -> tuple[te.ComputeOp, ScheduleTemplate] | None:
    """The compute whose schedule a template makes and that template; None for kernels
    without one. That is the fused group's anchor; else, trying the templates from the most
    specific (GEMM, conv) to the most general (injective), the last compute one applies to."""
    computes = _computes(kernel)
    for compute in computes:
        if _name(compute) == ANCHOR and (template := template_for(compute)) is not None:
            return compute, template
    for template in TEMPLATES:
        for compute in reversed(computes):
            if template.space(compute) is not None:
                return compute, template
    return None


def kernel_task_key(kernel: func.FuncOp, target: str) -> str:
    """sha256 of the kernel's schedule-free structure and the target (see the docstring)."""
    copy = kernel.clone()
    copy.sym_name = StringAttr("kernel")
    for op in copy.walk():
        for attr in _SCHEDULE_ATTRS:
            op.attributes.pop(attr, None)
        for result in op.results:
            result.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.name_hint = None
    text = str(copy)
    found = kernel_template(kernel)
    space = "" if found is None else _space_signature(*found)
    return hashlib.sha256(f"{target}\n{space}\n{text}".encode()).hexdigest()[:24]


def _space_signature(anchor: te.ComputeOp, template: ScheduleTemplate) -> str:
    knobs = template.space(anchor) or []
    return f"{template.name}: " + "; ".join(f"{k.name}={list(k.choices)}" for k in knobs)


def set_kernel_config(kernel: func.FuncOp, config: Config) -> None:
    """Give `kernel` the schedule of `config` in place of the one it has (see the docstring);
    raises InvalidConfig (before touching the kernel) if the config breaks the template."""
    found = kernel_template(kernel)
    if found is None:
        raise ValueError(f"kernel @{kernel.sym_name.data} has no schedule template")
    anchor, template = found
    primitives = template.schedule(anchor, config)
    fused = _name(anchor) == ANCHOR
    # an anchor-less fused chain (a reshape + transpose) had its intermediates inlined
    inlined = any(isinstance(p, te.InlineAttr) for c in _computes(kernel) for p in c.schedule)
    for compute in _computes(kernel):
        compute.attributes.pop(te.SCHEDULE_ATTR, None)
        if compute is not anchor:
            apply_default_schedule(compute, main=False)
    if primitives:
        anchor.attributes[te.SCHEDULE_ATTR] = ArrayAttr(primitives)
    if fused or inlined:
        schedule_fused_kernel(kernel, anchor if fused else None)


def kernels(module: ModuleOp) -> Iterator[func.FuncOp]:
    """The te kernels of a module after convert-graph-to-te."""
    for op in module.ops:
        if isinstance(op, func.FuncOp) and te.KERNEL_ATTR in op.attributes:
            yield op


def apply_kernel_configs(module: ModuleOp, lookup: Callable[[str], Config | None], target: str) -> int:
    """Give each kernel whose task key `lookup` knows that config (tuning records applied),
    and record it on the kernel as `te.tuned`; how many kernels changed."""
    applied = 0
    for kernel in kernels(module):
        # a kernel of symbolic sizes decides under size hints, as the tuner saw it
        with size_hints() if te.is_symbolic_kernel(kernel) else contextlib.nullcontext():
            if kernel_template(kernel) is None:
                continue
            config = lookup(kernel_task_key(kernel, target))
            if config is not None:
                set_kernel_config(kernel, config)
                kernel.attributes[te.TUNED_ATTR] = config_attr(config)
                applied += 1
    return applied


def config_attr(config: Config) -> DictionaryAttr:
    """A config as IR, knobs in name order: `{cols = 64 : i64, tile_order = "cols_first"}`."""
    return DictionaryAttr(
        {k: StringAttr(v) if isinstance(v, str) else IntegerAttr(v, i64) for k, v in sorted(config.items())}
    )
