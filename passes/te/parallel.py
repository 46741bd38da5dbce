"""te-parallel: run one loop's iterations on all threads (TVM's `parallel`).

Before (an elementwise compute over 8 x 1024 elements):

    %y = te.compute (%i0, %i1) in [8, 1024] : tensor<8x1024xf32> {...}

Call: `minitvm-opt k.mlir -p 'te-parallel{kernel=relu_0 compute=0 axis=i1}'`

After:

    %y = te.compute (%i0, %i1) in [8, 1024] {schedule = [#te.parallel<"i1">]} ...

convert-te-to-loop marks the loop `{parallel}` (and no other loop: without this primitive the
first loop of two or more iterations that only spatial loops enclose is marked, for computes
with enough work); convert-loop-to-llvm outlines it into a chunk function that the runtime's
threads call on ranges of iterations. The mark is dropped on a reduction loop (its iterations
would race on the accumulator) and inside another parallel loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.passes.te.schedule_pass import SchedulePass, loop_name


@dataclass(frozen=True)
class ParallelPass(SchedulePass):
    name = "te-parallel"

    #: The loop whose iterations run in parallel.
    axis: str

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        return [te.parallel(loop_name(compute, self.axis))]
