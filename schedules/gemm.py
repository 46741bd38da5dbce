"""GEMM-like computes (`C[.., i, j] = sum_k A[.., i, k] * B[.., k, j]`, B walked contiguously
along j) get TVM's x86 dense schedule in miniature, by default a 4 x 64 register block of C
(4 rows, 4 vectors of 16 lanes) accumulated over k, k blocked by 256 so B's panel stays in
cache:

    split i by 4, split j by 64, split j.i by 16, split r0 by 256,
    reorder (j.o, r0.o, i.o, r0.i, i.i, j.i.o, j.i.i),
    unroll i.i, unroll j.i.o, vectorize j.i.i

After loop-unroll and loop-vectorize the k loop holds 16 vector FMAs on broadcast A and
vector B, and LLVM keeps the 16 accumulators in registers. The same schedule serves
`graph.matmul_packed`, whose B is read as `w[j // 16, k, j % 16]` (panels of one vector,
see `passes/graph/pack_weights.py`): once j is split by 16, te_to_loop resolves the division
at compile time and each vector of the block is one contiguous panel row.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.dialects.arith_values import constant_int
from minitvm.dialects.te_nest import default_nest, index_dependencies
from minitvm.schedules.base import (
    L1_BYTES,
    L2_BYTES,
    LANES,
    MAX_ACCUMULATORS,
    Config,
    InvalidConfig,
    Knob,
    ScheduleTemplate,
    divisors,
    is_sum,
    registers_for,
)


def _reads_panels(compute: te.ComputeOp) -> bool:
    """Whether `compute` is `graph.matmul_packed`'s product: its B read as
    `w[..., j // LANES, r0, j % LANES]` (j the last spatial axis), B packed in one-vector
    panels (a batch of them, for a batched B)."""
    j, r0 = compute.spatial_args[-1], compute.reduce_args[0] if compute.reduce_args else None
    for read in compute.body.walk():
        if not isinstance(read, te.ReadOp) or len(read.indices) < 3:
            continue
        panel, row, lane = read.indices[-3:]
        divide = panel.owner
        if (
            isinstance(divide, arith.FloorDivSIOp)
            and divide.lhs == j
            and constant_int(divide.rhs) == LANES == read.tensor.type.get_shape()[-1]
            and row == r0
            and index_dependencies(lane) == {j}
        ):
            return True
    return False


#: The register block heights the default tries, tallest first: a block of fewer rows loads
#: more of B per FMA (graph-pack-weights pads only products the first one divides).
ROW_BLOCKS = (4, 2)

#: The register block widths the default tries, widest first (graph-pack-weights pads an N
#: that no panel divides to a multiple of the first).
COLUMN_BLOCKS = (64, 32, 16)


def widest_columns(rows: int) -> int | None:
    """The widest of COLUMN_BLOCKS whose block of `rows` rows fits the accumulator registers
    (64 with AVX-512's 32 registers and 4 rows; 16 with AVX2's 16), or None."""
    return next((c for c in COLUMN_BLOCKS if registers_for(rows * c) <= MAX_ACCUMULATORS), None)


class GemmTemplate(ScheduleTemplate):
    """Register-blocked GEMM: `rows` x `cols` block of C, k blocked by `k_block` (0: not)."""

    name = "gemm"

    def _dims(self, compute: te.ComputeOp) -> tuple[str, str, int, int, int] | None:
        shape, extents = compute.shape, compute.extents
        if len(shape) < 2 or len(extents) != 1 or not is_sum(compute):
            return None
        rank = len(shape)
        i, j = f"i{rank - 2}", f"i{rank - 1}"
        streams_j = [lp.name for lp in default_nest(compute).loops][-2:] == ["r0", j]
        if not streams_j and not _reads_panels(compute):
            return None  # B is not walked contiguously along j: not this kernel's shape
        return i, j, shape[-2], shape[-1], extents[0]

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        dims = self._dims(compute)
        if dims is None:
            return None
        _, _, rows, cols, depth = dims
        knobs = [
            Knob("rows", divisors(rows, (1, 2, 3, 4, 6, 8))),
            Knob("cols", divisors(cols, (16, 32, 48, 64, 96, 128))),
            # A packed B's panel is one 16-lane vector: 8 lanes would split it.
            Knob("lanes", (LANES,) if _reads_panels(compute) else (8, 16)),
            Knob(
                "k_block",
                (0, *(d for d in (32, 64, 128, 256, 512) if d < depth and depth % d == 0)),
            ),
            Knob("tile_order", ("cols_first", "rows_first")),
        ]
        return knobs if all(k.choices for k in knobs) else None

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        space = self.space(compute)
        assert space is not None
        choices = {k.name: k.choices for k in space}
        # On packed panels the plain loop order would run each output as a strided dot
        # product, so even one row (a matrix-vector product) gets a register block.
        fallback = (1,) if _reads_panels(compute) else ()
        # the first block, rows first, that divides the shape and fits the register file
        # (4 x 64 with AVX-512's 32 registers; 4 x 16 with AVX2's 16)
        blocks = (
            (r, c) for r in (*ROW_BLOCKS, *fallback) if r in choices["rows"]
            for c in COLUMN_BLOCKS if c in choices["cols"]
            if registers_for(r * c) <= MAX_ACCUMULATORS
        )  # fmt: skip
        rows, cols = next(blocks, (None, None))
        if rows is None or cols is None:
            return None  # no block that pays off divides the shape: keep the plain order
        return {
            "rows": rows,
            "cols": cols,
            "lanes": LANES,
            "k_block": self._default_k_block(compute, rows, cols, choices["k_block"]),
            "tile_order": "cols_first",
        }

    @staticmethod
    def _default_k_block(
        compute: te.ComputeOp, rows: int, cols: int, choices: tuple[int | str, ...]
    ) -> int:
        """For a packed B, the deepest block of K whose B block (k_block x cols floats) fits
        in half the L1, when several blocks of rows read it (it then stays in L1 for all of
        them instead of streaming from L2 for each), and at least 64 deep (C is read and
        written once per block); failing that, all of K in one block when the strip of
        `cols` columns fits in half the L2 (C written once). A strided B gets blocks of 256
        rows, which kept its strip in cache best (1024^3 on AMD EPYC Zen 4, one thread: 102
        GFLOP/s against 90 unblocked).

        Measured on Sapphire Rapids (L1 48 KiB), one thread, GPT-2's LM head (64 rows, 768
        deep, packed): all of K 41.7 ms, blocks of 128 38.7, of 64 37.3 (ORT 41.0)."""
        depth, height = compute.extents[0], compute.shape[-2]
        if _reads_panels(compute):
            if L1_BYTES and height >= 2 * rows:
                fitting = [k for k in choices if isinstance(k, int) and k >= 64
                           and k < depth and k * cols * 4 <= L1_BYTES // 2]  # fmt: skip
                if fitting:
                    return max(fitting)
            if L2_BYTES and depth * cols * 4 <= L2_BYTES // 2:
                return 0
        return 256 if 256 in choices else 0

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        dims = self._dims(compute)
        assert dims is not None
        i, j, _, _, _ = dims
        rows, cols, lanes = int(config["rows"]), int(config["cols"]), int(config["lanes"])
        k_block = int(config["k_block"])
        if (needed := registers_for(rows * cols, lanes)) > MAX_ACCUMULATORS:
            raise InvalidConfig(
                f"gemm: a {rows} x {cols} block needs {needed} accumulator registers"
            )
        schedule: list[Attribute] = [te.split(i, rows), te.split(j, cols)]
        inner = [f"{i}.i"]
        if cols > lanes:
            schedule.append(te.split(f"{j}.i", lanes))
            inner += [f"{j}.i.o", f"{j}.i.i"]
        else:
            inner += [f"{j}.i"]
        tiles = (
            [f"{j}.o", f"{i}.o"] if config["tile_order"] == "cols_first" else [f"{i}.o", f"{j}.o"]
        )
        if k_block:
            schedule.append(te.split("r0", k_block))
            schedule.append(te.reorder(tiles[0], "r0.o", tiles[1], "r0.i", *inner))
        else:
            schedule.append(te.reorder(*tiles, "r0", *inner))
        schedule += [te.unroll(name) for name in inner[:-1]]
        schedule.append(te.vectorize(inner[-1]))
        return schedule
