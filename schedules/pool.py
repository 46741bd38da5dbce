"""Blocked pools (NCHW[x]c max and average pools): the channel block's lanes one vector
accumulator per output pixel, the window reduced outside the block.
"""

from __future__ import annotations

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.schedules.base import Config, Knob, ScheduleTemplate, divisors, vector_block


class PoolNchwcTemplate(ScheduleTemplate):
    """Blocked pooling: a max or sum window over [N, C/b, H, W, b] (graph-conv-layout's 3-D
    pools, the third window dim one wide over the block), `ow_block` output pixels x the b
    channels of a block accumulated in vector registers over the window. The plain nest
    reduces innermost, one lane at a time: SqueezeNet's 3x3/2 max pool on 1x4x111x111x16
    took 1.53 ms that way, 0.158 with the block innermost and vectorized (one thread)."""

    name = "pool_nchwc"

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        shape, extents = compute.shape, compute.extents
        kind = compute.reduce_kind
        if kind is None or kind.data not in ("max", "sum") or len(shape) != 5:
            return None
        if len(extents) != 3 or extents[2] != 1 or not vector_block(shape[4]):
            return None
        return [Knob("ow_block", divisors(shape[3], (1, 2, 4, 7, 8)))]

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str]:
        return {"ow_block": 1}

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        ow_block = int(config["ow_block"])
        if ow_block == 1:
            return [te.reorder("i0", "i1", "i2", "i3", "r0", "r1", "r2", "i4"), te.vectorize("i4")]
        return [
            te.split("i3", ow_block),
            te.reorder("i0", "i1", "i2", "i3.o", "r0", "r1", "r2", "i3.i", "i4"),
            te.unroll("i3.i"),
            te.vectorize("i4"),
        ]


#: Output sizes (H x W) up to which a pointwise NCHW conv runs its rows as one loop by
#: default (see `PointwiseConvNchwTemplate`). ShuffleNet's grouped 1x1 convs, one thread:
