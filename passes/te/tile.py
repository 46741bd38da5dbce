"""te-tile: split several loops and nest all outer parts outside all inner parts (TVM's `tile`).

Before (loops i0, r0, i1 of a matmul):

    %c = te.compute (%i0, %i1) in [64, 128] sum (%r0) in [256] : tensor<64x128xf32> {...}

Call: `minitvm-opt k.mlir -p 'te-tile{kernel=matmul_0 compute=0 axes=i0,i1 factors=4,64}'`

After:

    %c = te.compute ... {schedule = [#te.split<"i0", 4>, #te.split<"i1", 64>,
        #te.reorder<["i0.o", "i1.o", "i0.i", "i1.i"]>]} : tensor<64x128xf32> {...}

The loops become i0.o, i1.o, r0, i0.i, i1.i: the reorder moves the named loops into the
places they held, in the given order (TVM's semantics), so r0 stays where it was. A 4 x 64
tile of C then stays in registers across r0 once i0.i is unrolled and i1.i vectorized.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.errors import MinitvmError
from minitvm.passes.te.schedule_pass import SchedulePass, loop_name


@dataclass(frozen=True)
class TilePass(SchedulePass):
    name = "te-tile"

    #: The loops to tile, outermost first.
    axes: tuple[str, ...]
    #: The tile's extent along each of them.
    factors: tuple[int, ...]

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        if len(self.axes) != len(self.factors):
            raise MinitvmError(f"te-tile: {len(self.axes)} axes but {len(self.factors)} factors")
        axes = [loop_name(compute, a) for a in self.axes]
        splits: list[Attribute] = [te.split(a, f) for a, f in zip(axes, self.factors)]
        return [*splits, te.reorder(*(f"{a}.o" for a in axes), *(f"{a}.i" for a in axes))]
