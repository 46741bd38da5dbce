"""GEMM-like computes (`C[.., i, j] = sum_k A[.., i, k] * B[.., k, j]`, B walked contiguously
along j) get TVM's x86 dense schedule in miniature: a register block of C accumulated over k,
k blocked so that B's panel stays in cache. For 4 x 64 (4 rows, 4 vectors of 16 lanes) and k
blocked by 256:

    split i by 4, split j by 64, split j.i by 16, split r0 by 256,
    reorder (j.o, r0.o, i.o, r0.i, i.i, j.i.o, j.i.i),
    unroll i.i, unroll j.i.o, vectorize j.i.i

After loop-unroll and loop-vectorize the k loop holds 16 vector FMAs on broadcast A and
vector B, and LLVM keeps the 16 accumulators in registers. The default block follows the
vector registers (`default_block`: 6 x 64 with AVX-512's 32, 6 x 16 with AVX2's 16); a block
needs not divide M or N: te_to_loop ends the rows with one shorter block (a run-time M with
two blocks as even as can be: 7 rows as 4 + 3), and the columns
with one shorter block that it peels in turn (whole vectors, then single columns). K is
blocked from the machine's cache sizes (and, for a strip of B larger than half the L2, its
measured FMA peak and L2 bandwidth: `_default_k_block`). Where B does not stay in the L2, the
next strip of B is prefetched while the blocks of rows read this one (`#te.prefetch`,
`_default_prefetch`). The same schedule serves `graph.matmul_packed`, whose B is read as
`w[j // 16, k, j % 16]` (panels of one vector, see `passes/graph/pack_weights.py`): once j is
split by 16, te_to_loop resolves the division at compile time and each vector of the block is
one contiguous panel row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.dialects.arith_values import constant_int
from minitvm.dialects.graph.base import shape_of
from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.dialects.te_nest import default_nest, index_dependencies
from minitvm.machine import measured_here
from minitvm.schedules.base import (
    L1_BYTES,
    L2_BYTES,
    LANES,
    VECTOR_REGISTERS,
    Config,
    InvalidConfig,
    Knob,
    ScheduleTemplate,
    divisors,
    is_sum,
    registers_for,
)
from minitvm.symbolic import SymDim, hinted


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


def _b_bytes(compute: te.ComputeOp) -> int:
    """The bytes of B, the tensor read along both k and j (all of it: a batch of matrices, as
    Winograd's products read, goes through the caches in one call), at its hinted size."""
    j, r0 = compute.spatial_args[-1], compute.reduce_args[0]
    sizes = [
        math.prod(hinted(d) for d in shape_of(read.tensor.type))
        * numpy_dtype_of(read.tensor.type.element_type).itemsize
        for read in compute.body.walk()
        if isinstance(read, te.ReadOp)
        and {j, r0} <= set().union(*(index_dependencies(i) for i in read.indices))
    ]  # fmt: skip
    return max(sizes, default=0)


#: The register block heights a GEMM may have (the tuner's choices; the default picks one by
#: `default_block`). A height needs not divide M: te_to_loop runs the rows left after the
#: whole blocks as one shorter block (64 rows in blocks of 6: ten of 6, one of 4).
ROW_CHOICES = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16)

#: The register block widths the tuner may choose: those that divide N, or where none does,
#: all up to N (`GemmTemplate._column_choices`).
COLUMN_CHOICES = (16, 32, 48, 64, 96, 128)

#: The column blocks the default chooses among, widest first.
COLUMN_BLOCKS = (64, 32, 16)

#: Rows from which a product of a strided B whose N no column block divides gets register
#: blocks, its last column block shorter; fewer (a matrix-vector product, a classifier's) are
#: the reduction template's, which blocks their columns itself. graph-pack-weights packs
#: such products' constant weights from the same row count.
SHORT_ROWS = 4

def block_registers(rows: int, cols: int, lanes: int = LANES) -> int:
    """Vector registers a `rows` x `cols` register block holds at once: its accumulators,
    the row of B each step of k loads (each vector of it used by every row), and the
    broadcast element of A (4 x 64 with AVX-512's 16-lane registers: 16 + 4 + 1)."""
    vectors = registers_for(cols, lanes)
    return rows * vectors + vectors + 1


def fits(rows: int, cols: int, lanes: int = LANES) -> bool:
    """Whether a `rows` x `cols` block stays in the vector registers (no spills)."""
    return block_registers(rows, cols, lanes) <= VECTOR_REGISTERS


#: Accumulators a register block needs to keep the FMA units busy with room to spare: an x86
#: core since Haswell and Zen issues 2 vector FMAs a cycle at a latency of 4 cycles (Zen 4's
#: 512-bit ones as pairs of 256-bit halves), so 8 dependent chains are in flight at least,
#: and twice that leaves slack for loads that miss L1. AMD EPYC Zen 4, one thread, AVX-512
#: masked out, k blocked by 256, interleaved: 4 x 16 (8 accumulators, exactly the minimum)
#: against 6 x 16 (12), 384 x 1024 @ 1024 x 1024 packed 10.9-12.3 ms against 10.2-11.3, 512^3
#: 3.76 against 3.42; with AVX-512, 4 x 64 (16) and 6 x 64 (24) alike.
ENOUGH_ACCUMULATORS = 16


def default_block(
    height: int | SymDim, rows: Sequence[int], cols: Sequence[int], lanes: int = LANES
) -> tuple[int, int] | None:
    """The default register block (rows, cols) for `height` rows of C (at its hinted size if
    symbolic), from `rows` x `cols` blocks that fit the registers (accumulators, a row of B,
    one broadcast of A; BLIS's analytical model in miniature):

    - of the blocks that hold ENOUGH_ACCUMULATORS, the one with the fewest loads per FMA
      (each step of k loads a broadcast of A per row and a vector of B per column vector),
      the wider block on a tie: 6 x 64 with AVX-512's 32 registers (10 loads for 24 FMAs;
      4 x 64, 8 for 16);
    - where none does, the most accumulators there are room for, the wider block on a tie:
      6 x 16 with AVX2's 16 registers (BLIS's Haswell kernel), not 4 x 16;

    then as even as the blocks over `height` allow: 8 rows in blocks of 6 would end with a
    block of 2 (4 accumulators, its FMAs waiting on each other), so they are two of 4.

    Intel Xeon of the Sapphire Rapids class, one thread, kernels alone, interleaved, 4 x 64
    against 6 x 64: 1024^3 packed at run time 21.5 -> 18.7 ms, 512^3 3.06 -> 2.77, mlp's
    64 x 1024 @ 1024 x 1024 1.44 -> 1.26, BERT's 128 x 768 @ 768 x 3072 7.02 -> 6.46, GPT-2's
    LM head 66.1 -> 61.5; ResNet's Winograd products (784 x 64 @ 64 x 64) 1.06 either way;
    5 x 64 was no faster than 4 x 64. AMD EPYC Zen 4: 4 x 64 and 6 x 64 alike."""
    tall = hinted(height)
    blocks = [(r, c) for c in cols for r in rows if r <= tall and fits(r, c, lanes)]
    if not blocks:
        return None

    def accumulators(block: tuple[int, int]) -> int:
        return block[0] * registers_for(block[1], lanes)

    def loads_per_fma(block: tuple[int, int]) -> float:
        vectors = registers_for(block[1], lanes)
        return (block[0] + vectors) / (block[0] * vectors)

    enough = [b for b in blocks if accumulators(b) >= ENOUGH_ACCUMULATORS]
    if enough:
        r, c = min(enough, key=lambda b: (loads_per_fma(b), -b[1]))
    else:
        r, c = max(blocks, key=lambda b: (accumulators(b), b[1]))
    even = -(-tall // -(-tall // r))  # the height split into as many blocks, evened out
    return (even if even in rows else r), c


#: The share of the L2's measured read bandwidth that a GEMM's stream of B may take: the rest
#: is left for A, C and the stream's own misses and prefetches.
L2_STREAM_SHARE = 0.75


def streams_b_from_l2(rows: int) -> bool:
    """Whether a register block of `rows` rows, at this core's measured FMA peak, can read B
    straight from L2 (K not blocked for L1): each step of k reads cols x 4 bytes of B for
    2 x rows x cols flops, so the block needs 2 / rows bytes of B per flop, at the peak
    2 x peak / rows bytes a second, against L2_STREAM_SHARE of the measured L2 bandwidth.

    AMD EPYC Zen 4 (1 512-bit FMA a cycle, 107.7 GFLOP/s; L2 about 100-110 GB/s): 4 rows
    need 54 GB/s, and all of K in one block is faster (GPT-2's head, 64 x 768 @ 768 x 50257
    packed, one thread: 49.4 ms against 55.6 with blocks of 64); a Sapphire Rapids core (2
    512-bit FMAs a cycle, 245 GFLOP/s) would need 123 GB/s, about what its L2 delivers, and
    there blocks of 64 were faster (37.3 against 41.7 ms)."""
    measured = measured_here()
    if measured is None or not measured.l2_bandwidth_gbs:
        return False
    return 2 * measured.fma_gflops / rows <= L2_STREAM_SHARE * measured.l2_bandwidth_gbs


def widest_columns(rows: int) -> int | None:
    """The widest of COLUMN_BLOCKS whose block of `rows` rows fits the registers
    (64 with AVX-512's 32 registers and 4 rows; 16 with AVX2's 16), or None."""
    return next((c for c in COLUMN_BLOCKS if fits(rows, c)), None)


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
        _, _, height, width, depth = dims
        tall = height if isinstance(height, SymDim) else min(height, ROW_CHOICES[-1])
        knobs = [
            Knob("rows", tuple(r for r in ROW_CHOICES if isinstance(tall, SymDim) or r <= tall)),
            Knob("cols", self._column_choices(compute, height, width)),
            # A packed B's panel is one 16-lane vector: 8 lanes would split it.
            Knob("lanes", (LANES,) if _reads_panels(compute) else (8, 16)),
            Knob(
                "k_block",
                (0, *(d for d in (32, 64, 128, 256, 512) if d < depth and depth % d == 0)),
            ),
            Knob("tile_order", ("cols_first", "rows_first")),
            Knob("prefetch", (0, 1)),
        ]
        return knobs if all(k.choices for k in knobs) else None

    @staticmethod
    def _column_choices(compute: te.ComputeOp, height: int | SymDim, width: int | SymDim) -> tuple[int, ...]:
        """The column blocks that divide N; where none does (GPT-2's prime N = 50257), every
        block up to N, the last one shorter (te_to_loop peels it: whole vectors, then single
        columns), if a register block pays: on packed panels, or from SHORT_ROWS rows of a
        strided B (fewer are a matrix-vector product, whose columns the reduction template
        blocks itself)."""
        dividing = divisors(width, COLUMN_CHOICES)
        if dividing or not (_reads_panels(compute) or hinted(height) >= SHORT_ROWS):
            return dividing
        return tuple(c for c in COLUMN_CHOICES if c <= width)

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        space = self.space(compute)
        assert space is not None
        choices = {k.name: k.choices for k in space}
        height = compute.shape[-2]
        # On packed panels the plain loop order would run each output as a strided dot
        # product, so even one row (a matrix-vector product) gets a register block; a
        # strided B gets one from 2 rows (the reduction template blocks a single row's
        # columns itself).
        rows = [r for r in choices["rows"] if _reads_panels(compute) or r >= 2]
        cols = [c for c in COLUMN_BLOCKS if c in choices["cols"]]
        block = default_block(height, rows, cols)
        if block is None or (not _reads_panels(compute) and hinted(height) < 2):
            return None  # no block that pays off: keep the plain order
        r, c = block
        return {
            "rows": r,
            "cols": c,
            "lanes": LANES,
            "k_block": self._default_k_block(compute, r, c, choices["k_block"]),
            "tile_order": "cols_first",
            "prefetch": int(self._default_prefetch(compute, r)),
        }

    @staticmethod
    def _default_k_block(
        compute: te.ComputeOp, rows: int, cols: int, choices: tuple[int | str, ...]
    ) -> int:
        """For a packed B: all of K in one block (C written once) when the strip of `cols`
        columns fits in half the L2: the register block streams it from L2 while A's rows
        stream past contiguously. Where the strip does not fit, and the block can stream B
        from L2 at the FMA peak (`streams_b_from_l2`), the deepest block of K whose B block
        fits in half the L2; otherwise the deepest one whose B block (k_block x cols floats)
        fits in half the L1, when several blocks of rows read it, and at least 64 deep (C is
        read and written once per block). A strided B gets blocks of 256 rows, which kept its
        strip in cache best (1024^3 on AMD EPYC Zen 4, one thread: 102 GFLOP/s against 90
        unblocked).

        Blocking K for L1 where the strip fits in L2 costs more than it saves: every block of
        K reads all of A's rows again, a few cache lines of each, strided. Measured, one
        thread, 4 x 64 blocks, all of K against blocks of 64, interleaved. AMD EPYC Zen 4
        (L2 1 MiB): 1024^3 packed at run time 20.4 against 22.4 ms, mlp's 64 x 1024 @
        1024 x 1024 1.21 against 1.33, BERT's 128 x 768 @ 768 x 3072 5.74 against 6.15; its
        128 x 3072 @ 3072 x 768 (strip 768 KiB) in blocks of 256 5.97 ms, 512 6.03, all of K
        6.12, 64 6.46. Intel Xeon of the Sapphire Rapids class (L2 2 MiB, L1 48 KiB; its
        measured L2 bandwidth, 146 GB/s, is below the 114 / 0.75 GB/s a 4-row block at the
        peak was thought to need): 1024^3 packed at run time 16.8 against 22.8 ms (2 threads
        7.5 against 11.3), the BERT layer 11.29 against 11.67 ms, GPT-2's LM head (64 x 768
        @ 768 x 50257) 32.7 against 33.0, 512^3 1.74 against 1.79."""
        depth, height = compute.extents[0], compute.shape[-2]
        if _reads_panels(compute):

            def deepest(cache_bytes: int) -> int | None:
                """The deepest block of K, 64 at least, whose B block fits in half a cache of
                `cache_bytes` (0 for all of K where the whole strip does)."""
                if depth * cols * 4 <= cache_bytes // 2:
                    return 0
                fitting = [k for k in choices if isinstance(k, int) and 64 <= k < depth
                           and k * cols * 4 <= cache_bytes // 2]  # fmt: skip
                return max(fitting) if fitting else None

            in_l2 = deepest(L2_BYTES) if L2_BYTES else None
            if in_l2 == 0 or (in_l2 is not None and streams_b_from_l2(rows)):
                return in_l2
            if L1_BYTES and hinted(height) >= 2 * rows:
                in_l1 = deepest(L1_BYTES)
                if in_l1:
                    return in_l1
        return 256 if 256 in choices else 0

    @staticmethod
    def _default_prefetch(compute: te.ComputeOp, rows: int) -> bool:
        """Prefetch the next strip of B while the blocks of rows read this one (#te.prefetch)
        when B does not stay in half the L2 from one run to the next, and there are at least
        two blocks of rows to spread the prefetches over. Otherwise the first block of rows of
        each strip waits for it to come from memory (or L3) while the others leave the memory
        idle. Measured, one thread, kernels alone, interleaved, on an Intel Xeon of the
        Sapphire Rapids class (L2 2 MiB): GPT-2's LM head (64 x 768 @ 768 x 50257 packed,
        B 154 MB) 51.2 -> 44.7 ms; mlp's 64 x 784 @ 784 x 1024 0.772 -> 0.733 ms and
        64 x 1024 @ 1024 x 1024 1.024 -> 1.003; BERT's (B 2.4-9.4 MB, in L3 between runs)
        within 3% either way; 512^3 (B 1 MiB, in L2) 2.04-2.08 against 2.06-2.13 with it.

        B is the whole tensor (`_b_bytes`): a batch of GEMMs reads all of its matrices in one
        call, though each may fit in the L2. Winograd F(4x4, 3x3)'s 36 products of ResNet-18
        at 14 x 14 (256 KiB each, 9.4 MB in all) took 0.69 ms timed alone, warm, and 0.92 in
        the model, where their weights come from memory. Prefetched (the next strip
        crosses into the next matrix of the batch), 0.71-0.84; the model 0.933x (AMD EPYC
        Zen 4, one thread, interleaved, with every vector of a strip prefetched: see
        `te.PrefetchAttr`), 0.954x at 2 threads, 0.91x with AVX-512 masked out."""
        return bool(L2_BYTES) and _b_bytes(compute) > L2_BYTES // 2 and hinted(compute.shape[-2]) > rows

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        dims = self._dims(compute)
        assert dims is not None
        i, j, _, _, _ = dims
        rows, cols, lanes = int(config["rows"]), int(config["cols"]), int(config["lanes"])
        k_block = int(config["k_block"])
        if not fits(rows, cols, lanes):
            vectors = registers_for(cols, lanes)
            raise InvalidConfig(
                f"gemm: a {rows} x {cols} block needs {block_registers(rows, cols, lanes)} "
                f"vector registers ({rows * vectors} accumulators, {vectors} for a row of B, "
                f"1 for A), and this CPU has {VECTOR_REGISTERS}"
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
        if int(config["prefetch"]):
            if config["tile_order"] != "cols_first":
                raise InvalidConfig(
                    "gemm: prefetch spreads a strip of B over the blocks of rows that read it "
                    "in turn: cols_first only"
                )
            # the next strip of B (of columns, or of k when K is blocked), a vector of it per
            # block of rows
            schedule.append(te.prefetch("r0.o" if k_block else f"{j}.o", f"{i}.o"))
        return schedule
