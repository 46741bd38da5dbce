"""te-inline: substitute computes marked `#te.inline` into the computes that read them.

Before:

    %p = te.compute (%i0) in [8] {schedule = [#te.inline]} : tensor<8xf32> {
      %a = te.read %x[%i0] : tensor<8xf32>
      %b = arith.addf %a, %a : f32
      te.yield %b : f32
    }
    %q = te.compute (%i0) in [8] : tensor<8xf32> {
      %v = te.read %p[%i0] : tensor<8xf32>
      %r = math.exp %v : f32
      te.yield %r : f32
    }

After: `%p` is gone and `%q`'s body computes `exp(x[i0] + x[i0])` directly. This is TVM's
`compute_inline`: no buffer and no loop nest for the inlined tensor, at the price of
recomputing it per read. A reduction cannot be inlined; a kernel result marked inline is still
materialized for the caller (and inlined into its readers too).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from minitvm.dialects import te
from minitvm.dialects.te_inline import inline_computes


@dataclass(frozen=True)
class InlinePass(ModulePass):
    name = "te-inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.ops:
            if isinstance(kernel, func.FuncOp) and te.KERNEL_ATTR in kernel.attributes:
                inline_computes(kernel)
