"""te-default-schedule: each kernel without a schedule gets its template's default one.

convert-graph-to-te emits kernels that say only WHAT they compute; this pass says HOW, from
the schedule templates (`schedules/`): the compute marked `te.templated` (a conv's, a GEMM's
or a pool's main compute) gets its template's default config, every other compute the
reduction, transpose or injective default, and a `te.fused` kernel is made one pass over the
data: intermediates `#te.inline`d, the epilogue `#te.compute_at` the anchor.

Before:

    func.func @matmul_0(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32>
        attributes {te.kernel} {
      %c = te.compute (%i0, %i1) in [64, 64] sum (%r0) in [64] {te.templated} : ... { ... }
      func.return %c : tensor<64x64xf32>
    }

After: the GEMM template's default, a 4 x 64 register block:

      %c = te.compute (...) {te.templated, schedule = [#te.split<"i0", 4>,
                             #te.split<"i1", 64>, ..., #te.vectorize<"i1.i.i">]} : ...

A kernel any of whose computes already has a schedule (written by hand with te-split and
friends, or by an earlier run of this pass) is left as it is. TVM's counterpart is the
default schedule each operator strategy registers; MLIR's, a transform script.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from minitvm.dialects import te
from minitvm.dialects.te_nest import kernel_nests
from minitvm.errors import MinitvmError
from minitvm.schedules.kernel import clear_schedule, is_scheduled, kernels, set_default_schedule
from minitvm.symbolic import SymbolicError, size_hints


@dataclass(frozen=True)
class DefaultSchedulePass(ModulePass):
    name = "te-default-schedule"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in list(kernels(op)):
            if is_scheduled(kernel):
                continue
            if not te.is_symbolic_kernel(kernel):
                set_default_schedule(kernel)
                continue
            try:  # templates that need numbers give up (SymbolicError): the plain loops then
                with size_hints():
                    set_default_schedule(kernel)
                    kernel_nests(kernel)
            except (SymbolicError, MinitvmError):
                clear_schedule(kernel)
