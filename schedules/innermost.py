"""The base of the reduction and injective templates: explicit vectors (and unrolling) on
the innermost loop of a compute's default nest, the loop split first by its period when
its index divides by a constant (a reshape read through a transpose).
"""

from __future__ import annotations

from abc import abstractmethod

from xdsl.dialects import arith
from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.dialects.arith_values import constant_int
from minitvm.dialects.te_nest import Loop, default_nest
from minitvm.schedules.base import (
    LANES,
    Config,
    InvalidConfig,
    Knob,
    ScheduleTemplate,
    placed_elsewhere,
)
from minitvm.symbolic import SymDim


class InnermostVectorTemplate(ScheduleTemplate):
    """Vectorize (and unroll) the innermost loop of the compute's default nest: `lanes` 0
    leaves it to LLVM's auto-vectorizer (the default), 8 or 16 makes explicit vector code,
    `unroll` copies the vector body that many times. Which computes it applies to is up to
    the subclass."""

    @abstractmethod
    def applies(self, compute: te.ComputeOp) -> bool:
        """Whether the template is for `compute` at all."""

    def _innermost(self, compute: te.ComputeOp) -> tuple[list[Attribute], str, int]:
        """The schedule's first primitives, and the loop the knobs act on with its extent:
        the default nest's innermost loop, split by its period when it has one (see
        `period_of`), so that its index divisions resolve at compile time."""
        innermost = default_nest(compute).loops[-1]
        period = period_of(compute, innermost)
        if period is None:
            return [], innermost.name, innermost.extent
        return [te.split(innermost.name, period)], f"{innermost.name}.i", period

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        if placed_elsewhere(compute) or not compute.shape or not self.applies(compute):
            return None
        _, _, extent = self._innermost(compute)
        if isinstance(extent, SymDim):  # a run-time extent: 16-lane strips, a scalar rest
            return [Knob("lanes", (0, LANES)), Knob("unroll", (1,))]
        lanes = (0, *(n for n in (8, 16) if extent % n == 0))
        unroll = tuple(u for u in (1, 2, 4) if extent % (u * max(lanes)) == 0) if len(lanes) > 1 else (1,)
        return [Knob("lanes", lanes), Knob("unroll", unroll)]

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        return {"lanes": 0, "unroll": 1}

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        head, name, extent = self._innermost(compute)
        return head + self._vector_primitives(name, extent, int(config["lanes"]), int(config["unroll"]))

    def _vector_primitives(
        self, name: str, extent: int | SymDim, lanes: int, unroll: int
    ) -> list[Attribute]:
        """Loop `name` (of `extent` iterations) as `lanes`-wide vectors, `unroll` at a time."""
        if lanes == 0:
            if unroll != 1:
                raise InvalidConfig(f"{self.name}: unroll {unroll} needs explicit vector lanes")
            return []
        if isinstance(extent, SymDim):
            if (lanes, unroll) != (LANES, 1):
                raise InvalidConfig(f"{self.name}: a run-time extent takes {LANES} lanes, unroll 1")
            return [te.vectorize(name)]  # (loop-vectorize: whole vectors, then a scalar rest)
        if extent % (lanes * unroll):
            raise InvalidConfig(f"{self.name}: {lanes} lanes x unroll {unroll} do not divide {extent}")
        if lanes == LANES and unroll == 1:
            # loop-vectorize strip-mines the loop itself; on a reduction loop it then
            # carries a vector accumulator (a split would fold every vector in lane order)
            return [te.vectorize(name)]
        if unroll == 1:
            return [te.split(name, lanes), te.vectorize(f"{name}.i")]
        return [
            te.split(name, lanes * unroll), te.split(f"{name}.i", lanes),
            te.unroll(f"{name}.i.o"), te.vectorize(f"{name}.i.i"),
        ]  # fmt: skip


def period_of(compute: te.ComputeOp, innermost: Loop) -> int | None:
    """The smallest c that `compute`'s body divides its innermost spatial index by (c a
    proper divisor of the loop's extent, > 1), or None. A reshape read through a transpose
    (BERT's heads merged back: out[s, h * 64 + d] = x[h, s, d]) divides the flat index by
    the row length; on the plain loop that is a division per element and no vector code.
    Split by c, te_to_loop resolves the division and the inner loop walks both sides
    contiguously: [1, 12, 128, 64] -> [1, 128, 768] took 0.051 ms plain, 0.018 split and
    vectorized (one thread)."""
    if innermost.reduction:
        return None
    axis = compute.spatial_args[int(innermost.name[1:])]
    periods = [
        c
        for op in compute.body.walk()
        if isinstance(op, arith.FloorDivSIOp) and op.lhs == axis
        and (c := constant_int(op.rhs)) is not None and 1 < c < innermost.extent
        and innermost.extent % c == 0
    ]  # fmt: skip
    return min(periods, default=None)

