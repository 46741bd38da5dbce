"""te-vectorize: run one loop as vector lanes (TVM's `vectorize`).

Before (a register-blocked matmul: loops i1.o, i0.o, r0, i0.i, i1.i.o, i1.i.i, the last two
of 4 and 16 iterations):

    %c = te.compute ... {schedule = [..., #te.unroll<"i0.i">, #te.unroll<"i1.i.o">]} ...

Call: `minitvm-opt k.mlir -p 'te-vectorize{kernel=matmul_0 compute=0 axis="i1.i.i"}'`

After:

    %c = te.compute ... {schedule = [..., #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} ...

convert-te-to-loop marks the loop `{vectorize}`; loop-vectorize turns it into `<16 x f32>`
code (`loop.vload`, `loop.vstore`, `math.fma`, `loop.broadcast`). With the unrolled loops
around it, the reduction loop holds a 4 x 64 block of C as 16 vectors that LLVM keeps in
registers. A loop that cannot be vectorized stays scalar (see passes/loop/vectorize.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.passes.te.schedule_pass import SchedulePass, loop_name


@dataclass(frozen=True)
class VectorizePass(SchedulePass):
    name = "te-vectorize"

    #: The loop whose iterations become vector lanes.
    axis: str

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        return [te.vectorize(loop_name(compute, self.axis))]
