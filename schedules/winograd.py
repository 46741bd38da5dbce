"""The Winograd transforms' computes (`lowering/graph_to_te/winograd.py`): loop order,
unrolling and channel vectors.

Both transforms are memory-bound when their scalar work is hoisted: a few adds per element
read and written. What matters is the order they walk memory in and that the per-position
index arithmetic (which input pixel, which coefficient) is not redone per vector.

- The input transform writes v[t, p, c] (positions x tiles x channels) from the blocked
  input x[n, c // b, h, w, c % b]. Its channel loop is split by the block b, so that the
  division resolves at compile time and the inner loop is one vector on both sides.
  "tiles_outer" (the default) runs the positions inside the tile and the channel block,
  unrolled: their patch columns and coefficients are then constants, LLVM folds the select
  chains and loads the patch's 16 vectors once for all 16 positions of F(2x2, 3x3).
  "positions_outer" is the plain order, one position's plane after another: it reads the
  input 16 times and redoes the index arithmetic per vector (64 -> 64 channels at 56 x 56,
  AMD EPYC Zen 4, one thread: 0.17 ms against 0.14; at 224 x 224, where the input leaves the
  caches, 15.4 ms).
- The output transform writes y[n, k // b, oh, ow, k % b] from the product m[t, p, k].
  "pixels_outer" (the default) runs the channel blocks inside the pixel, so that each tile
  reads whole rows m[t, p, :], with the tile's pixels unrolled inside them (F(2x2, 3x3): its
  16 vectors loaded once for all four pixels; a size the tile does not divide has its last
  tile peeled); "channels_outer" is the plain order, which reads a block's 64 bytes of each
  row per pass over the image: 4x the traffic when m is larger than the caches (64 -> 64
  channels at 224 x 224, same machine: 16.4 ms against 4.0 with the pixels outside, before
  the unrolling).
- F(4x4, 3x3)'s tile is too large to unroll whole (`MAX_UNROLLED_POSITIONS`): both
  transforms unroll one column of it (the input transform's 6 positions u of column v, the
  output transform's 4 pixel rows of a pixel column) inside a loop over the columns. The
  lowering's nested sums let the unrolled copies share each row's inner sum.
The conv's epilogue (a residual add, a ReLU) attaches at the image (`schedules/fused.py`:
the pixel loops run outside the channel blocks).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.dialects.graph.winograd import KERNEL
from minitvm.schedules.base import Config, Knob, ScheduleTemplate, vector_block

#: The most positions a transformed tile may have for its transforms to unroll the whole tile
#: (all positions of the input transform, all pixels of the output one): F(2x2, 3x3)'s 16.
#: F(4x4, 3x3)'s 36 positions of 16 terms each, all unrolled, made ResNet-50 compile in 2x
#: the time (the unrolled kernels' loop passes in xDSL; AMD EPYC Zen 4, one process: 19.5 s
#: against 9.5); they unroll one column of the tile: 1.2x.
MAX_UNROLLED_POSITIONS = 16

#: The loop orders of each transform, the default first.
ORDERS = {"input": ("tiles_outer", "positions_outer"), "output": ("pixels_outer", "channels_outer")}


def transform_of(compute: te.ComputeOp) -> str | None:
    """ "input" or "output" for a Winograd transform's compute, else None."""
    attr = compute.attributes.get(te.WINOGRAD_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


class WinogradTemplate(ScheduleTemplate):
    """Loop order (`order`) and channel vectors of a Winograd transform."""

    name = "winograd"

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        transform = transform_of(compute)
        if transform is None:
            return None
        return [Knob("order", ORDERS[transform])]

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        transform = transform_of(compute)
        assert transform is not None
        return {"order": ORDERS[transform][0]}

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        order = config["order"]
        if transform_of(compute) == "input":
            block = _input_block(compute)
            primitives: list[Attribute] = [te.split("i2", block)]
            patch = math.isqrt(compute.shape[0])
            if order == "tiles_outer" and patch * patch <= MAX_UNROLLED_POSITIONS:
                primitives += [te.reorder("i1", "i2.o", "i0", "i2.i"), te.unroll("i0")]
            elif order == "tiles_outer":  # the positions u of column v = i0 % patch unrolled
                primitives += [
                    te.split("i0", patch),
                    te.reorder("i1", "i2.o", "i0.i", "i0.o", "i2.i"),
                    te.unroll("i0.o"),
                ]
            return primitives + ([te.vectorize("i2.i")] if vector_block(block) else [])
        block = compute.shape[-1]
        tile = _output_tile(compute)
        primitives = []
        if order == "pixels_outer":
            whole = (tile + KERNEL - 1) ** 2 <= MAX_UNROLLED_POSITIONS
            # (pixel rows i2.i unrolled inside the pixel columns i3.i, or both unrolled)
            columns = ["i2.i", "i3.i"] if whole else ["i3.i", "i2.i"]
            primitives = [
                te.split("i2", tile), te.split("i3", tile),
                te.reorder("i0", "i2.o", "i3.o", "i1", *columns, "i4"),
                te.unroll("i2.i"), *([te.unroll("i3.i")] if whole else []),
            ]  # fmt: skip
        return primitives + ([te.vectorize("i4")] if vector_block(block) else [])


def _output_tile(compute: te.ComputeOp) -> int:
    """The output transform's tile side: its product m is [(tile + 2)^2, rows, K]."""
    (positions,) = {
        op.tensor.type.get_shape()[0]
        for op in compute.body.walk()
        if isinstance(op, te.ReadOp) and len(op.tensor.type.get_shape()) == 3
    }
    return math.isqrt(positions) - KERNEL + 1


def _input_block(compute: te.ComputeOp) -> int:
    """The input's channel block: the last dim of the tensor the compute reads."""
    reads = [op for op in compute.body.walk() if isinstance(op, te.ReadOp)]
    return reads[0].tensor.type.get_shape()[-1]
