"""Reductions that are neither GEMM nor conv (softmax, norms, global pools, a classifier's
matrix-vector product): their default loop order, whose innermost loop LLVM vectorizes when
it can, or an explicit vector accumulator along a reduction loop of whole vectors; explicit
vectorization and unrolling of that loop are the knobs. One exception: a reduction whose
only axis with work to share is the one it accumulates along (a classifier's matrix-vector
product on 1000 columns) runs that axis in blocks ahead of the reduction, so that it has a
loop for the threads at all. MobileNetV2's 1280 -> 1000 in 25 blocks of 40 columns: 0.065 ->
0.043 ms at two threads (ONNX Runtime: 0.056), but 0.065 -> 0.075 at one, where the plain
order streams the weights and the blocks read them 160 bytes a row, a page apart (tuning
for one thread picks the plain order back).
"""

from __future__ import annotations

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.dialects.te_nest import default_nest
from minitvm.schedules.base import LANES, Config, Knob
from minitvm.schedules.innermost import InnermostVectorTemplate, period_of
from minitvm.symbolic import SymDim


class ReductionTemplate(InnermostVectorTemplate):
    """Reductions that are neither GEMM nor conv (softmax's max and sum, norms, pooling, a
    classifier's matrix-vector product on a column count 16 does not divide): their innermost
    loop is the reduction (carried in a register) or a contiguous spatial axis (accumulated in
    memory). By default a reduction loop of a multiple of 16 iterations is vectorized: it then
    carries a vector accumulator, folded once at the end, which reassociates a float sum as
    every BLAS does (a 512 x 768 row sum: 312 -> 34 us).

    When the accumulated axis is the only one with work to share (`y[0, j] = sum_k x[0, k] *
    w[k, j]`: loops i0 of one iteration, r0, i1), `column_block` splits it and runs its
    blocks outermost, ahead of the reduction, so that threads share them: the plain order has
    no spatial loop outside the reduction to run in parallel at all."""

    name = "reduction"

    def applies(self, compute: te.ComputeOp) -> bool:
        return compute.reduce_kind is not None

    def _column_blocks(self, compute: te.ComputeOp) -> tuple[int, ...]:
        """Block sizes of the accumulated axis: whole 8-lane vectors that divide it, two blocks
        at least; none unless every loop outside the reduction runs once."""
        loops = default_nest(compute).loops
        innermost = loops[-1]
        first_reduction = next((n for n, lp in enumerate(loops) if lp.reduction), None)
        if first_reduction is None or innermost.reduction or period_of(compute, innermost) is not None:
            return ()
        if any(lp.extent > 1 for lp in loops[:first_reduction]):
            return ()
        return tuple(b for b in range(8, innermost.extent // 2 + 1, 8) if innermost.extent % b == 0)

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        knobs = super().space(compute)
        if knobs is None or not (blocks := self._column_blocks(compute)):
            return knobs
        return [*knobs, Knob("column_block", (0, *blocks))]

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        innermost = default_nest(compute).loops[-1]
        vector = innermost.reduction and (
            isinstance(innermost.extent, SymDim)  # run-time: vector strips, a scalar rest
            or (innermost.extent > LANES and innermost.extent % LANES == 0)
        )
        config: dict[str, int | str] = {"lanes": LANES if vector else 0, "unroll": 1}
        if blocks := self._column_blocks(compute):
            # explicit 8-lane vectors: LLVM's own would check at every entry that the
            # weights and the accumulators do not overlap (1280 -> 1000 at two threads:
            # 0.044 -> 0.043 ms, and ahead in 5 of the 6 shapes and thread counts measured)
            config.update(column_block=_default_column_block(blocks), lanes=LANES // 2)
        return config

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        block = int(config.get("column_block", 0))
        if not block:
            return super().schedule(compute, config)
        nest = default_nest(compute)
        axis = nest.loops[-1].name
        reductions = [lp.name for lp in nest.loops if lp.reduction]
        blocked = [te.split(axis, block), te.reorder(f"{axis}.o", *reductions)]
        return blocked + self._vector_primitives(f"{axis}.i", block, int(config["lanes"]), int(config["unroll"]))


#: The classifier's block: the largest of at most this many columns (1000 columns: 40, so
#: 25 blocks for the threads to share).
COLUMN_BLOCK = 64


def _default_column_block(blocks: tuple[int, ...]) -> int:
    return max((b for b in blocks if b <= COLUMN_BLOCK), default=blocks[0])

