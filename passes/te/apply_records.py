"""te-apply-records: kernels tuned for this CPU and thread count get their best schedule.

`minitvm tune` files the best config of each kernel in the records (an Optuna storage URL)
under the kernel's task key: a structural hash of WHAT it computes, its template's search
space, and the target (CPU and thread count; `schedules/kernel.py`). This pass looks up each
kernel's key and, where the records have a config for it, replaces the kernel's schedule by
that config's (the template's schedule, the fused schedule on top), and records the config
on the kernel:

    minitvm-opt m.mlir -p 'te-default-schedule,te-apply-records{records="sqlite:///r.db" threads=1}'

    func.func @fused_conv_nchwc_3(...) attributes {te.fused, te.kernel,
        te.tuned = {c_block = 0 : i64, oc_block = 2 : i64, ow_block = 7 : i64, reduction_order = "kh_kw_c", unroll_kw = 0 : i64}}

Kernels must have their default schedules first (te-default-schedule): keys are taken of
kernels as the tuner saw them. `threads` is the thread count the compiled model will run on
(0: every core this process may use); records tuned for another count do not apply.

`ApplyConfigsPass` is the same with the configs given in Python (`minitvm.compile(...,
schedules={key: config})`), not read from records; it has no pipeline form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from minitvm.host import default_num_threads, target_key
from minitvm.records import load_schedules
from minitvm.schedules.base import Config
from minitvm.schedules.kernel import apply_kernel_configs


@dataclass(frozen=True)
class ApplyRecordsPass(ModulePass):
    name = "te-apply-records"

    #: The records' URL (`sqlite:///minitvm_records.db`, `postgresql://...`).
    records: str
    #: The thread count the model will run on; 0: every core this process may use.
    threads: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_key(self.threads or default_num_threads())
        apply_kernel_configs(op, load_schedules(self.records).get, target)


@dataclass(frozen=True)
class ApplyConfigsPass(ModulePass):
    """Give each kernel whose task key `configs` holds that config (Python only)."""

    name = "te-apply-configs"

    #: (task key, config) pairs; see `of`.
    configs: tuple[tuple[str, tuple[tuple[str, int | str], ...]], ...]
    threads: int = 0

    @staticmethod
    def of(configs: Mapping[str, Config], threads: int = 0) -> ApplyConfigsPass:
        items = tuple((key, tuple(config.items())) for key, config in configs.items())
        return ApplyConfigsPass(items, threads)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        configs = {key: dict(items) for key, items in self.configs}
        target = target_key(self.threads or default_num_threads())
        apply_kernel_configs(op, configs.get, target)
