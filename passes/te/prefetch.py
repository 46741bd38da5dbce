"""te-prefetch: prefetch, while one iteration of a loop runs, what the next one will read.

Before (a register-blocked GEMM on packed B: loops i1.o, i0.o, r0, i0.i, i1.i.o (unrolled),
i1.i.i (vectorized)):

    %c = te.compute ... {schedule = [#te.split<"i0", 6>, ..., #te.vectorize<"i1.i.i">]} ...

Call: `minitvm-opt k.mlir -p 'te-prefetch{kernel=matmul_0 compute=0 ahead=i1_o over=i0_o}'`

After:

    %c = te.compute ... {schedule = [..., #te.vectorize<"i1.i.i">, #te.prefetch<"i1.o", "i0.o">]} ...

convert-te-to-loop then asks, at each step of the innermost loop that is neither unrolled
nor vectorized (r0), for the line of B that the next column strip (i1.o + 1) reads there, one
vector of the strip per block of rows (i0.o % 4): `loop.prefetch`, into L2. The strip comes
from memory while the blocks of rows compute on this one, instead of the first block of rows
of each strip waiting for it (see `te.PrefetchAttr`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.passes.te.schedule_pass import SchedulePass, loop_name


@dataclass(frozen=True)
class PrefetchPass(SchedulePass):
    name = "te-prefetch"

    #: The loop whose next iteration's reads are prefetched.
    ahead: str
    #: The loop whose iterations the prefetches of a read unrolled over several lines are
    #: spread over (one line each).
    over: str

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        return [te.prefetch(loop_name(compute, self.ahead), loop_name(compute, self.over))]
