"""Blocked convolutions (`y[n, mo, oh, ow, mi] = sum over co, kh, kw, ci of
x[n, co, oh*s + kh, ow*s + kw, ci] * w[mo, co, kh, kw, ci, mi]`, NCHW[x]c, see
`passes/graph/conv_layout.py`) get TVM's x86 conv2d_NCHWc schedule: a row block of `ow`
output pixels x the 16 output channels of a block, accumulated in registers over the whole
reduction:

    split i3 by ow_block, reorder (i0, i1, i2, i3.o, r0, r1, r2, r3, i3.i, i4),
    fuse (i1, i2), unroll i3.i, vectorize i4

so each step of the innermost reduction loop is one weight vector load, `ow_block`
broadcasts of input scalars and `ow_block` vector FMAs. Where a row's pixel blocks would each
stream more weights than the L1 holds (1x1 convs of many channels), the input channel blocks
are split by `c_block` and each block of them runs over the whole row (`r0.o` outside
`i3.o`; `_default_c_block`). The channel blocks and rows run as
one (parallel) loop, whose chunks are a few rows, not whole channel blocks: a ResNet
block's 3x3 convs have only 4 blocks, which 3 threads (or 2, one of them slowed down by
another process) would share unevenly.

1x1 convs that stay NCHW (grouped ones, ShuffleNet's), stride 1 and unpadded, run the
reduction outside the rows and all h x w pixels of a channel as one contiguous loop when
there are at most 14x14 of them (`PointwiseConvNchwTemplate`): 7 pixels a row leave LLVM
little to vectorize.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Attribute, Operation, SSAValue

from minitvm.dialects import te
from minitvm.dialects.arith_values import constant_int
from minitvm.dialects.te_nest import default_nest, index_dependencies
from minitvm.schedules.base import (
    L1_BYTES,
    LANES,
    MAX_ACCUMULATORS,
    VECTOR_REGISTERS,
    Config,
    InvalidConfig,
    Knob,
    ScheduleTemplate,
    divisors,
    is_sum,
    registers_for,
    vector_block,
    vectors_per_pixel,
)


class ConvNchwcTemplate(ScheduleTemplate):
    """Blocked conv: `ow_block` output pixels x one channel block in registers (blocks of
    16-lane vectors, or one 8-lane vector)."""

    name = "conv_nchwc"

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        shape, extents = compute.shape, compute.extents
        if len(shape) != 5 or len(extents) != 4 or not is_sum(compute):
            return None
        if not vector_block(shape[4]) or default_nest(compute).loops[-1].name != "i4":
            return None
        width, blocks = shape[3], shape[1]
        return [
            Knob("ow_block", divisors(width, range(1, MAX_ACCUMULATORS + 1))),
            Knob("oc_block", divisors(blocks, (1, 2, 4))),
            Knob("reduction_order", ("c_kh_kw", "kh_kw_c")),
            Knob("unroll_kw", (0, 1)),
            Knob("c_block", (0, *_proper_divisors(extents[0]))),
        ]

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str]:
        """The register block of `ow_block` pixels x `oc_block` channel blocks that does
        the most FMAs per load. Each step of the reduction broadcasts an input scalar per
        pixel and loads a weight vector per channel block (several per block wider than a
        register), and feeds ow x oc x vectors FMAs. Blocks take at most half the vector
        registers: at 14x14, 14 pixels x 2 blocks (all 28 accumulators of AVX-512) ran 3.07
        ms against 2.16 for 14 x 1. Ties go to more accumulators, then to wider rows. So
        AVX-512 gets 4 x 4 at 56x56 and 28x28, 7 x 2 at 14x14 and 7x7; AVX2 (NCHW8c) 4 x 2,
        2 x 4 at 14x14, 7 x 1 at 7x7. A depthwise conv loads an input vector per pixel and
        block, which no channel block shares: it keeps a row of one (`_depthwise_row`).

        Where one FMA issues per cycle (AVX-512 on AMD Zen 4) the block hardly matters: 3x3
        convs, one thread, 64 channels at 56x56 2.117 ms with 14 x 1, 2.113 with 4 x 4; 128
        at 28x28 2.040 and 2.082; 512 at 7x7 2.21 with 7 x 1, 2.04 with 7 x 2. Where two do,
        14 broadcasts and one load per 14 FMAs keep the load ports as busy as the FMA pipes:
        Zen 4 with AVX-512 masked out (two 256-bit FMA pipes), one thread, ResNet-18 41.5
        ms with the widest rows of one block (8 x 1 at 56x56), 37.6 with these; YOLOv5's
        neck step 18.3 and 14.5 ms. The cost: an epilogue runs after the conv's whole nest,
        not row by row, when the block has several channel blocks (a compute_at consumer
        cannot split the shared channel axis), which measured nothing at these sizes."""
        width, vectors = compute.shape[3], vectors_per_pixel(compute.shape[4])
        if reads_input_vectors(compute):
            ow_block, oc_block = _depthwise_row(compute, vectors), 1
        else:
            ow_block, oc_block = self._most_fmas_per_load(width, compute.shape[1], vectors)
        return {
            "ow_block": ow_block,
            "oc_block": oc_block,
            "reduction_order": "c_kh_kw",
            "unroll_kw": 0,
            "c_block": _default_c_block(compute, ow_block, oc_block),
        }

    @staticmethod
    def _most_fmas_per_load(width: int, blocks: int, vectors: int) -> tuple[int, int]:
        """(ow_block, oc_block) of the most FMAs per load within half the registers (see
        `default_config`)."""
        budget = max(VECTOR_REGISTERS // 2, vectors)

        def score(block: tuple[int, int]) -> tuple[float, int, int]:
            ow, oc = block
            fmas = ow * oc * vectors
            return fmas / (ow + oc * vectors), fmas, ow

        candidates = [
            (ow, oc)
            for ow in divisors(width, range(1, 15))
            for oc in divisors(blocks, (1, 2, 4)) if ow * oc * vectors <= budget
        ]  # fmt: skip
        return max(candidates, key=score)

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        ow_block, oc_block = int(config["ow_block"]), int(config["oc_block"])
        vectors = vectors_per_pixel(compute.shape[4])
        if ow_block * oc_block * vectors > MAX_ACCUMULATORS:
            raise InvalidConfig(
                f"conv_nchwc: {ow_block} pixels x {oc_block * vectors} vectors need more than "
                f"{MAX_ACCUMULATORS} accumulator registers"
            )
        schedule: list[Attribute] = [te.split("i3", ow_block)]
        channels, inner = ["i1"], ["i3.i", "i4"]
        if oc_block > 1:
            schedule.append(te.split("i1", oc_block))
            channels, inner = ["i1.o"], ["i1.i", "i3.i", "i4"]
        reduction = (
            ["r0", "r1", "r2", "r3"]
            if config["reduction_order"] == "c_kh_kw"
            else ["r1", "r2", "r0", "r3"]
        )
        c_block = int(config["c_block"])
        outer: list[str] = []
        if c_block:
            schedule.append(te.split("r0", c_block))
            outer, reduction = ["r0.o"], [r if r != "r0" else "r0.i" for r in reduction]
        schedule.append(te.reorder("i0", *channels, "i2", *outer, "i3.o", *reduction, *inner))
        # One loop over (channel block, row) for the threads (see the module docstring).
        schedule.append(te.fuse(channels[0], "i2"))
        if config["unroll_kw"]:
            schedule.append(te.unroll("r2"))
        schedule += [te.unroll(name) for name in inner[:-1]]
        schedule.append(te.vectorize("i4"))
        return schedule


def _proper_divisors(extent: int | object) -> tuple[int, ...]:
    """The blocks a reduction of `extent` input channel blocks can be split into (none for a
    run-time extent)."""
    return divisors(extent, range(1, extent)) if isinstance(extent, int) else ()


#: The fewest multiply-adds per accumulator a block of the reduction does: the register
#: block is loaded and stored once per block (as GEMM's `k_block`, see schedules/gemm.py).
MIN_BLOCK_DEPTH = 64


def _default_c_block(compute: te.ComputeOp, ow_block: int, oc_block: int) -> int:
    """How many input channel blocks one pass over a row's pixel blocks reduces (0: all).

    Each pixel block of a row reads the weights of its `oc_block` channel blocks for the
    whole reduction: for a 1x1 conv of 512 -> 128 channels, 4 blocks x 512 x 16 floats =
    128 KiB, which no L1 holds, so every pixel block streams them from L2 again, while the
    input walks 32 channel blocks whose stride is often a multiple of 4 KiB (40x40x16
    floats = 100 KiB) and so lands in the same few L1 sets. Splitting the reduction into
    blocks whose weights fit in half the L1, each run over all of the row's pixel blocks,
    keeps them there (the accumulators are stored and reloaded once per block). The deepest
    such block of at least MIN_BLOCK_DEPTH multiply-adds; none when the row is one pixel
    block (nothing to reuse) or the weights of one channel block already do not fit (3x3
    convs: 9 x 16 x 16 floats per channel block and output block).

    AMD EPYC Zen 4 (L1d 32 KiB), one thread, YOLOv5 neck's 512 -> 128 1x1 conv + SiLU at
    40x40 (input shared by two such convs): the pair 7.70 -> 5.06 ms (blocks of 4 of 32);
    a 256 -> 256 one at 40x40, 2.71 -> 2.88 ms, within the run's noise.

    None either for a 1x1 conv whose row is two pixel blocks that together need more
    accumulators than the register file holds (`_row_outgrows_the_registers`)."""
    blocks, kh, kw, lanes_in = compute.extents
    width, lanes_out = compute.shape[3], compute.shape[4]
    if not L1_BYTES or not all(isinstance(d, int) for d in (blocks, kh, kw, lanes_in, width)):
        return 0
    if width // ow_block < 2 or reads_input_vectors(compute):
        return 0
    if kh * kw == 1 and _row_outgrows_the_registers(width, ow_block, oc_block, lanes_out):
        return 0
    depth = kh * kw * lanes_in  # multiply-adds per input channel block
    element = compute.result.type.element_type
    bytes_per_block = oc_block * depth * lanes_out * getattr(element, "bitwidth", 32) // 8
    fitting = [
        c
        for c in _proper_divisors(blocks)
        if c * bytes_per_block <= L1_BYTES // 2 and c * depth >= MIN_BLOCK_DEPTH
    ]
    return max(fitting, default=0)


def _row_outgrows_the_registers(width: int, ow_block: int, oc_block: int, lanes: int) -> bool:
    """Whether a split reduction would keep more values in registers than there are: a row
    of two pixel blocks (1x1 convs only, whose loop over a row's blocks has a small body)
    is a loop LLVM unrolls completely, and its LICM then keeps both blocks' accumulators in
    registers across the blocks of input channels, the stores to them being at the same
    place in every iteration. At 14x14, 7 pixels x 2 channel blocks (AVX-512), that is 28
    accumulators, and 7 broadcasts and 2 weights with them, in 32 registers: 11 spilled
    and reloaded in the innermost loop. Sapphire Rapids, one thread, 1024 -> 256 at 14x14:
    0.88 ms with the split, 0.70 without; 512 -> 1024 stride 2, 2.81 and 2.73. Rows of
    three or more blocks stay a loop (12x12 with 4x4 blocks, 28x28), and 3x3 convs' larger
    bodies too: there the split wins (3x3 256 -> 256 at 14x14: 1.64 ms against 1.72)."""
    vectors = vectors_per_pixel(lanes)
    if width // ow_block != 2:
        return False
    row = width * oc_block * vectors  # both blocks' accumulators
    return row + ow_block + oc_block * vectors > VECTOR_REGISTERS


def _depthwise_row(compute: te.ComputeOp, vectors: int) -> int:
    """The pixels of a depthwise conv's register block: the widest row (a divisor of the
    width, at most 14) whose values fit in the vector registers together. LLVM unrolls the
    short loop over the kernel's columns and loads each input vector once for all the
    taps that read it, so a row of `ow` pixels at stride `s` keeps `ow` accumulators, the
    `(ow - 1) * s + kw` input vectors under them and `kw` weights live. Where only rows
    under half the widest fit (7 pixels with AVX2's 16 registers: 1 would), the widest is
    kept: each accumulator is one chain of kh x kw dependent FMAs, and too few chains
    leave the FMA pipes waiting on their latency, which costs more than a few spills.

    Sapphire Rapids, one thread, MobileNetV2's depthwise convs, 14 pixels (33-46 values,
    spilled) against 7: 32 channels at 112x112 0.366 -> 0.215 ms, 144 at 56x56 0.294 ->
    0.190, 192 at 28x28 0.118 -> 0.069, 96 at 112x112 stride 2 0.350 -> 0.290. Rows of 4,
    7 and 8 pixels, which all fit, were within 5% of each other."""
    width = compute.shape[3]
    most = min(width, 14, MAX_ACCUMULATORS // vectors)
    rows = [b for b in range(1, most + 1) if width % b == 0]
    columns, stride = _window_columns_and_stride(compute)
    if columns is None:  # (a window of a size known only at run time: nothing to count)
        return max(rows)
    kw = columns

    def values(ow: int) -> int:
        return (ow + (ow - 1) * stride + kw + kw) * vectors  # accumulators, inputs, weights

    fitting = [ow for ow in rows if values(ow) <= VECTOR_REGISTERS]
    if fitting and 2 * max(fitting) >= max(rows):
        return max(fitting)
    return max(rows)


def _window_columns_and_stride(compute: te.ComputeOp) -> tuple[int | None, int]:
    """(kw, stride along the width) of an NCHWc conv: kw from the reduction (None where it
    is symbolic), the stride from the widths of its input (padded or not) and output (input
    // output: 114 // 112 and 113 // 56 alike)."""
    kw = compute.extents[2]
    width = compute.shape[3]
    inputs = [
        read.tensor.type.get_shape()[3]  # type: ignore[attr-defined]
        for read in compute.body.walk()
        if isinstance(read, te.ReadOp) and len(read.indices) == 5
    ]
    widest = max((w for w in inputs if isinstance(w, int)), default=width)
    stride = max(1, widest // width) if isinstance(width, int) else 1
    return (kw if isinstance(kw, int) else None), stride


def reads_input_vectors(compute: te.ComputeOp) -> bool:
    """Whether the NCHWc conv reads its input along the output's lanes (a depthwise conv:
    output channel m reads input channel m) rather than one scalar broadcast to all lanes."""
    if len(compute.shape) != 5 or not compute.spatial_args:
        return False
    lane = compute.spatial_args[4]
    memo: dict[SSAValue, frozenset[SSAValue]] = {}
    return any(
        isinstance(read, te.ReadOp)
        and len(read.indices) == 5
        and lane in index_dependencies(read.indices[4], memo)
        for read in compute.body.walk()
    )


#: 544 -> 544 channels at 7x7 0.446 -> 0.170 ms, 272 -> 272 at 14x14 0.228 -> 0.189, but
#: 136 -> 136 at 28x28 0.197 -> 0.273 (its 28-pixel rows already vectorize).
FUSED_ROWS_UP_TO = 14 * 14


class PointwiseConvNchwTemplate(ScheduleTemplate):
    """1x1 convs that stay NCHW (grouped ones: conv-layout blocks only plain and depthwise
    convs), stride 1, no padding: `y[n, o, h, w] = sum_c x[n, g(o) + c, h, w] * w[o, c, 0, 0]`.

    The default nest runs the reduction inside each output row and accumulates along w, a
    loop of 7 iterations at 7x7: little for LLVM to vectorize. With `fuse_rows`, the
    reduction moves outside the rows and the rows run as one loop of h x w pixels, which
    input and output both walk contiguously; that loop is vectorized (loop-vectorize reads
    the pair h = p / w, w = p % w as one contiguous index, and covers a pixel count that
    16 does not divide with smaller vectors and scalars: 49 = 3 x 16 + 1).

    A register block of `oc_block` output channels (of one group) x `pixel_block` pixels
    stays in registers across the reduction, so each input vector loaded serves `oc_block`
    channels:

        split (i1, oc_block), fuse (i2, i3) -> p, split (p, pixel_block),
        reorder (i0, i1.o, p.o, r0, r1, r2, i1.i, p.i), unroll i1.i, vectorize p.i

    (te-to-loop finds the group of channel 4 * o + i as o / 17 for 68-channel groups, one
    value for the block.) ShuffleNet's 544 -> 544 conv (4 groups) at 7x7 took 0.170 ms with
    the rows fused, 0.115 with blocks of 4 channels x 49 pixels; its 272 -> 272 at 14x14
    0.189 -> 0.134 (one thread, standalone). The output channels stay the outermost loop,
    the threads' share."""

    name = "conv_nchw"

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        shape, extents = compute.shape, compute.extents
        if len(shape) != 4 or len(extents) != 3 or extents[1:] != (1, 1) or not is_sum(compute):
            return None
        if [lp.name for lp in default_nest(compute).loops] != [
            "i0",
            "i1",
            "i2",
            "r0",
            "r1",
            "r2",
            "i3",
        ]:
            return None
        if not self._reads_whole_rows(compute):
            return None
        pixels = shape[2] * shape[3]
        return [
            Knob("fuse_rows", (0, 1)),
            Knob("oc_block", divisors(self._group_channels(compute), (1, 2, 4, 8))),
            Knob("pixel_block", self._pixel_blocks(pixels)),
        ]

    @staticmethod
    def _pixel_blocks(pixels: int) -> tuple[int, ...]:
        """All the pixels, or a block of 16 to 256 of them that divides their count."""
        blocks = (d for d in range(LANES, min(pixels, 256) + 1) if pixels % d == 0)
        return tuple(sorted({pixels, *blocks}))

    @staticmethod
    def _group_channels(compute: te.ComputeOp) -> int:
        """Output channels per group: how many share the input channels a block reads (a
        block must not straddle two groups)."""
        channels = compute.shape[1]
        memo: dict[SSAValue, frozenset[SSAValue]] = {}
        o = compute.spatial_args[1]
        for read in compute.body.walk():
            if not isinstance(read, te.ReadOp) or len(read.indices) != 4:
                continue
            channel = read.indices[1]
            if channel is o or o not in index_dependencies(channel, memo):
                continue
            # the input's channel g(o) + c: o's group is o / (channels per group)
            for op in _defining_ops(channel):
                division = isinstance(op, arith.FloorDivSIOp | arith.DivSIOp | arith.DivUIOp)
                if division and op.operands[0] is o:
                    return constant_int(op.operands[1]) or 1
            return 1
        return channels

    @staticmethod
    def _reads_whole_rows(compute: te.ComputeOp) -> bool:
        """Whether every read that moves along the output's w reads a tensor of the output's
        h x w at (h, w) plus a kernel offset: stride 1 and no padding, so that the pixels of
        consecutive rows are consecutive in memory."""
        (_, _, h, w), (_, kh, kw) = compute.spatial_args, compute.reduce_args
        memo: dict[SSAValue, frozenset[SSAValue]] = {}
        for read in compute.body.walk():
            if not isinstance(read, te.ReadOp):
                continue
            if w not in frozenset().union(*(index_dependencies(i, memo) for i in read.indices)):
                continue
            *_, row, column = read.indices
            if tuple(read.tensor.type.get_shape()[-2:]) != compute.shape[2:]:
                return False
            if not index_dependencies(row, memo) <= {h, kh} or not index_dependencies(
                column, memo
            ) <= {w, kw}:
                return False
        return True

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str]:
        space = self.space(compute)
        assert space is not None
        choices = {k.name: k.choices for k in space}
        pixels = compute.shape[2] * compute.shape[3]
        if pixels > FUSED_ROWS_UP_TO:
            return {"fuse_rows": 0, "oc_block": 1, "pixel_block": pixels}
        # up to 4 channels x the largest pixel block whose accumulators fit in half the
        # register file (16 zmm)
        for oc_block in sorted((b for b in choices["oc_block"] if b <= 4), reverse=True):
            fitting = [
                p for p in choices["pixel_block"]
                if oc_block * registers_for(p) <= VECTOR_REGISTERS // 2
            ]  # fmt: skip
            if fitting:
                return {"fuse_rows": 1, "oc_block": oc_block, "pixel_block": max(fitting)}
        return {"fuse_rows": 1, "oc_block": 1, "pixel_block": pixels}

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        oc_block, pixel_block = int(config["oc_block"]), int(config["pixel_block"])
        pixels = compute.shape[2] * compute.shape[3]
        if not config["fuse_rows"]:
            if oc_block != 1 or pixel_block != pixels:
                raise InvalidConfig("conv_nchw: register blocks need fuse_rows")
            return []
        if oc_block > 1 and oc_block * registers_for(pixel_block) > MAX_ACCUMULATORS:
            raise InvalidConfig(
                f"conv_nchw: {oc_block} channels x {pixel_block} pixels need more than "
                f"{MAX_ACCUMULATORS} accumulator registers"
            )
        channels, block = ["i1"], []
        schedule: list[Attribute] = []
        if oc_block > 1:
            schedule.append(te.split("i1", oc_block))
            channels, block = ["i1.o"], ["i1.i"]
        schedule.append(te.reorder("i0", *channels, "r0", "r1", "r2", *block, "i2", "i3"))
        schedule.append(te.fuse("i2", "i3"))
        row = te.fused_name("i2", "i3")
        pixel_loop = row
        if pixel_block < pixels:
            schedule.append(te.split(row, pixel_block))
            reduction = ["r0", "r1", "r2"]
            schedule.append(te.reorder("i0", *channels, f"{row}.o", *reduction, *block, f"{row}.i"))
            pixel_loop = f"{row}.i"
        schedule += [te.unroll(name) for name in block]
        schedule.append(te.vectorize(pixel_loop))
        return schedule


def _defining_ops(value: SSAValue) -> list[Operation]:
    """The ops computing `value` inside a compute body, innermost first."""
    ops: list[Operation] = []
    pending = [value]
    while pending:
        owner = pending.pop().owner
        if isinstance(owner, Operation):
            ops.append(owner)
            pending.extend(owner.operands)
    return ops
