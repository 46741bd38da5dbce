"""te-split: split one loop of a compute into an outer and an inner loop (TVM's `split`).

Before (a 64 x 128 matmul, loops i0, r0, i1):

    %c = te.compute (%i0, %i1) in [64, 128] sum (%r0) in [256] : tensor<64x128xf32> {...}

Call: `minitvm-opt k.mlir -p 'te-split{kernel=matmul_0 compute=0 axis=i0 factor=4}'`

After:

    %c = te.compute (%i0, %i1) in [64, 128] sum (%r0) in [256]
        {schedule = [#te.split<"i0", 4>]} : tensor<64x128xf32> {...}

convert-te-to-loop then runs loop i0 as i0.o (16 iterations) around i0.i (4), with
i0 = i0.o * 4 + i0.i; a factor that does not divide the extent guards the body with `loop.if`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.passes.te.schedule_pass import SchedulePass, loop_name


@dataclass(frozen=True)
class SplitPass(SchedulePass):
    name = "te-split"

    #: The loop to split.
    axis: str
    #: The inner loop's extent.
    factor: int

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        return [te.split(loop_name(compute, self.axis), self.factor)]
