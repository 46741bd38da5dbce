"""te-fuse: fuse adjacent loops into one (TVM's `fuse`).

Before (the conv of a fused conv + bias + relu kernel, batch 1: loops i0 (1 image), i1 (32
channels), i2 (8 rows), i3 (8 columns), then the reduction; the epilogue runs at i2):

    %acc = te.compute "anchor" (%i0, %i1, %i2, %i3) in [1, 32, 8, 8] sum (...) in [16, 3, 3]
    ...
    %y = te.compute (...) {schedule = [#te.compute_at<"anchor", "i2">]} : tensor<1x32x8x8xf32>

Call (one pipeline, wrapped here):

    minitvm-opt k.mlir -p 'te-fuse{kernel=fused_conv_0 compute=anchor axes=i1,i2},
                           te-parallel{kernel=fused_conv_0 compute=anchor axis=i1_i2_fused}'

After:

    %acc = te.compute "anchor" ... {schedule = [#te.fuse<"i1", "i2">,
                                               #te.parallel<"i1.i2.fused">]} ...

convert-te-to-loop then emits one loop `i1.i2.fused` of 32 * 8 = 256 iterations and recovers
i1 = fused / 8 and i2 = fused % 8 (`arith.divui`/`arith.remui`) inside it. Marked parallel,
its iterations are cut into many more, smaller chunks than the 32 channels alone would give
(with few channels, or channel blocks in NCHW16c, the threads' shares become uneven). An
epilogue attached at a fused axis (here i2) runs in the fused loop, and one attached further
in fuses the same loops of its own. More than two axes fuse left to right: `axes=i0,i1,i2`
makes `i0.i1.fused.i2.fused`. The loops must be adjacent, both spatial or both reductions,
and not yet marked (vectorize, unroll, parallel).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.errors import MinitvmError
from minitvm.passes.te.schedule_pass import SchedulePass, loop_name


@dataclass(frozen=True)
class FusePass(SchedulePass):
    name = "te-fuse"

    #: Two or more loops, each right inside the one before.
    axes: tuple[str, ...]

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        if len(self.axes) < 2:
            raise MinitvmError(f"te-fuse: needs two or more axes, got {list(self.axes)}")
        fused = loop_name(compute, self.axes[0])
        primitives: list[Attribute] = []
        for axis in self.axes[1:]:
            primitive = te.fuse(fused, loop_name(compute, axis))
            primitives.append(primitive)
            fused = primitive.fused_name
        return primitives
