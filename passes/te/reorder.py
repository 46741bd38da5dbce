"""te-reorder: change the nesting order of a compute's loops (TVM's `reorder`).

Before (the default order of a matmul: i-k-j, loops i0, r0, i1):

    %c = te.compute (%i0, %i1) in [64, 128] sum (%r0) in [256] : tensor<64x128xf32> {...}

Call: `minitvm-opt k.mlir -p 'te-reorder{kernel=matmul_0 compute=0 order=i0,i1,r0}'`

After:

    %c = te.compute ... {schedule = [#te.reorder<["i0", "i1", "r0"]>]} : tensor<64x128xf32>

The named loops take the places they held, in the given order; loops not named stay put.
With the reduction innermost, convert-te-to-loop carries the accumulator in a register
(`loop.for ... iter_args`) instead of updating the output buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.passes.te.schedule_pass import SchedulePass, loop_name


@dataclass(frozen=True)
class ReorderPass(SchedulePass):
    name = "te-reorder"

    #: The loops, outermost first.
    order: tuple[str, ...]

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        return [te.reorder(*(loop_name(compute, a) for a in self.order))]
