"""te-unroll: unroll one loop completely (TVM's `unroll`).

Before (a register-blocked matmul: loops i1.o, i0.o, r0, i0.i (4), i1.i.o (4), i1.i.i):

    %c = te.compute ... {schedule = [#te.split<"i0", 4>, ...]} ...

Call: `minitvm-opt k.mlir -p 'te-unroll{kernel=matmul_0 compute=0 axis=i0_i}'`

After:

    %c = te.compute ... {schedule = [#te.split<"i0", 4>, ..., #te.unroll<"i0.i">]} ...

convert-te-to-loop marks the loop `{unroll}`; loop-unroll replaces it by one copy of its
body per iteration, with the index a constant in each, so the copies' addresses fold.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.passes.te.schedule_pass import SchedulePass, loop_name


@dataclass(frozen=True)
class UnrollPass(SchedulePass):
    name = "te-unroll"

    #: The loop to unroll.
    axis: str

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        return [te.unroll(loop_name(compute, self.axis))]
