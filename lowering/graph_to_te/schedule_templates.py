"""Schedule templates: the default schedule of each kernel class, and the knobs it is made of.

A template recognises a class of te computes by their structure and turns a *config* (one
value per knob) into a list of schedule primitives. Its `default_config` is what untuned
compiles use; its `space` is the search space the tuner explores. A config that breaks a
template's constraints (more accumulators than vector registers) is rejected by `schedule`
with `InvalidConfig` before anything is built, so the tuner prunes it without measuring.

GEMM-like computes (`C[.., i, j] = sum_k A[.., i, k] * B[.., k, j]`, B walked contiguously
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

Blocked convolutions (`y[n, mo, oh, ow, mi] = sum over co, kh, kw, ci of
x[n, co, oh*s + kh, ow*s + kw, ci] * w[mo, co, kh, kw, ci, mi]`, NCHW[x]c, see
`passes/graph/conv_layout.py`) get TVM's x86 conv2d_NCHWc schedule: a row block of `ow`
output pixels x the 16 output channels of a block, accumulated in registers over the whole
reduction:

    split i3 by ow_block, reorder (i0, i1, i2, i3.o, r0, r1, r2, r3, i3.i, i4),
    fuse (i1, i2), unroll i3.i, vectorize i4

so each step of the innermost reduction loop is one weight vector load, `ow_block`
broadcasts of input scalars and `ow_block` vector FMAs. The channel blocks and rows run as
one (parallel) loop, whose chunks are a few rows, not whole channel blocks: a ResNet
block's 3x3 convs have only 4 blocks, which 3 threads (or 2, one of them slowed down by
another process) would share unevenly.

1x1 convs that stay NCHW (grouped ones, ShuffleNet's), stride 1 and unpadded, run the
reduction outside the rows and all h x w pixels of a channel as one contiguous loop when
there are at most 14x14 of them (`PointwiseConvNchwTemplate`): 7 pixels a row leave LLVM
little to vectorize.

Transposes and layout transforms (the source read contiguously along another output axis
`s` than the innermost one, `d`) are tiled so that a tile's source lines and output lines
all stay in L1, the outer tile loop unrolled. NCHW16c -> NCHW, 16 channels x 8 pixels per
tile (s = i1, d = i3):

    split i1 by 16, split i3 by 8, reorder (i0, i1.o, i2, i3.o, i1.i, i3.i), unroll i1.i

This is the default of untuned compiles too, for any compute of this shape.

Other reductions (softmax, norms, pooling) and injective computes (elementwise chains)
keep their default loop order, whose innermost loop LLVM vectorizes when it can; their
templates expose explicit vectorization and unrolling of that loop as knobs. One exception:
a reduction whose only axis with work to share is the one it accumulates along (a
classifier's matrix-vector product on 1000 columns) runs that axis in blocks ahead of the
reduction, so that it has a loop for the threads at all. MobileNetV2's 1280 -> 1000 in 25
blocks of 40 columns: 0.065 -> 0.043 ms at two threads (ONNX Runtime: 0.056), but 0.065 ->
0.075 at one, where the plain order streams the weights and the blocks read them 160 bytes
a row, a page apart (tuning for one thread picks the plain order back).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute, Operation, SSAValue

from minitvm.dialects import te
from minitvm.dialects.arith_values import constant_int
from minitvm.dialects.te_nest import default_nest, index_dependencies
from minitvm.errors import MinitvmError

LANES = 16  # f32 lanes of a 512-bit vector
VECTOR_REGISTERS = 32  # zmm0-31; a register block may hold at most MAX_ACCUMULATORS of them
MAX_ACCUMULATORS = 28  # leaves registers for the broadcast operand and the loaded vectors

Config = Mapping[str, int | str]


class InvalidConfig(MinitvmError):
    """A config outside a template's constraints: pruned before it is built."""


@dataclass(frozen=True)
class Knob:
    """One tunable choice of a template and the values it may take for one compute."""

    name: str
    choices: tuple[int | str, ...]


def _is_sum(compute: te.ComputeOp) -> bool:
    return compute.reduce_kind is not None and compute.reduce_kind.data == "sum"


def _divisors(n: int, candidates: Sequence[int]) -> tuple[int, ...]:
    return tuple(c for c in candidates if c <= n and n % c == 0)


class ScheduleTemplate(ABC):
    """A kernel class's schedule as a function of its knobs (see the module docstring)."""

    name: str = ""

    @abstractmethod
    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        """The knobs for `compute`, or None if the template does not apply to it."""

    @abstractmethod
    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        """The untuned config, or None when the plain loop order is the better default."""

    @abstractmethod
    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        """The primitives of `config`; raises InvalidConfig if `config` breaks a constraint."""

    def check(self, compute: te.ComputeOp, config: Config) -> None:
        """Raise InvalidConfig unless every knob of the space has a value among its choices."""
        space = self.space(compute)
        if space is None:
            raise InvalidConfig(f"schedule template '{self.name}' does not apply to this compute")
        for knob in space:
            if config.get(knob.name) not in knob.choices:
                raise InvalidConfig(
                    f"schedule template '{self.name}': {knob.name} = {config.get(knob.name)!r} "
                    f"is not one of {list(knob.choices)}"
                )


def _reads_panels(compute: te.ComputeOp) -> bool:
    """Whether `compute` is `graph.matmul_packed`'s product: its B read as
    `w[j // LANES, r0, j % LANES]` (j the last spatial axis), B packed in one-vector panels."""
    j, r0 = compute.spatial_args[-1], compute.reduce_args[0] if compute.reduce_args else None
    for read in compute.body.walk():
        if not isinstance(read, te.ReadOp) or len(read.indices) != 3:
            continue
        panel, row, lane = read.indices
        divide = panel.owner
        if (
            isinstance(divide, arith.FloorDivSIOp)
            and divide.lhs == j
            and constant_int(divide.rhs) == LANES == read.tensor.type.get_shape()[2]
            and row == r0
            and index_dependencies(lane) == {j}
        ):
            return True
    return False


class GemmTemplate(ScheduleTemplate):
    """Register-blocked GEMM: `rows` x `cols` block of C, k blocked by `k_block` (0: not)."""

    name = "gemm"

    def _dims(self, compute: te.ComputeOp) -> tuple[str, str, int, int, int] | None:
        shape, extents = compute.shape, compute.extents
        if len(shape) < 2 or len(extents) != 1 or not _is_sum(compute):
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
            Knob("rows", _divisors(rows, (1, 2, 3, 4, 6, 8))),
            Knob("cols", _divisors(cols, (16, 32, 48, 64, 96, 128))),
            # A packed B's panel is one 16-lane vector: 8 lanes would split it.
            Knob("lanes", (LANES,) if _reads_panels(compute) else (8, 16)),
            Knob("k_block", (0, *(d for d in (32, 64, 128, 256, 512) if d < depth and depth % d == 0))),
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
        rows = next((r for r in (4, 2, *fallback) if r in choices["rows"]), None)
        cols = next((c for c in (64, 32, 16) if c in choices["cols"]), None)
        if rows is None or cols is None:
            return None  # no block that pays off divides the shape: keep the plain order
        k_block = 256 if 256 in choices["k_block"] else 0
        return {"rows": rows, "cols": cols, "lanes": LANES, "k_block": k_block, "tile_order": "cols_first"}

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        dims = self._dims(compute)
        assert dims is not None
        i, j, _, _, _ = dims
        rows, cols, lanes = int(config["rows"]), int(config["cols"]), int(config["lanes"])
        k_block = int(config["k_block"])
        if rows * cols // lanes > MAX_ACCUMULATORS:
            raise InvalidConfig(f"gemm: a {rows} x {cols} block needs {rows * cols // lanes} accumulator registers")
        schedule: list[Attribute] = [te.split(i, rows), te.split(j, cols)]
        inner = [f"{i}.i"]
        if cols > lanes:
            schedule.append(te.split(f"{j}.i", lanes))
            inner += [f"{j}.i.o", f"{j}.i.i"]
        else:
            inner += [f"{j}.i"]
        tiles = [f"{j}.o", f"{i}.o"] if config["tile_order"] == "cols_first" else [f"{i}.o", f"{j}.o"]
        if k_block:
            schedule.append(te.split("r0", k_block))
            schedule.append(te.reorder(tiles[0], "r0.o", tiles[1], "r0.i", *inner))
        else:
            schedule.append(te.reorder(*tiles, "r0", *inner))
        schedule += [te.unroll(name) for name in inner[:-1]]
        schedule.append(te.vectorize(inner[-1]))
        return schedule


def vector_block(lanes: int) -> bool:
    """A channel block the conv template vectorizes: whole 16-lane vectors, or one 8-lane
    vector (NCHW8c, for channel counts 16 does not divide)."""
    return lanes % LANES == 0 or lanes == LANES // 2


def _vectors(lanes: int) -> int:
    """Vector registers per pixel of a channel block (an 8-lane block takes one)."""
    return max(1, lanes // LANES)


class ConvNchwcTemplate(ScheduleTemplate):
    """Blocked conv: `ow_block` output pixels x one channel block in registers (blocks of
    16-lane vectors, or one 8-lane vector)."""

    name = "conv_nchwc"

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        shape, extents = compute.shape, compute.extents
        if len(shape) != 5 or len(extents) != 4 or not _is_sum(compute):
            return None
        if not vector_block(shape[4]) or default_nest(compute).loops[-1].name != "i4":
            return None
        width, blocks = shape[3], shape[1]
        return [
            Knob("ow_block", tuple(b for b in range(1, min(width, MAX_ACCUMULATORS) + 1) if width % b == 0)),
            Knob("oc_block", _divisors(blocks, (1, 2, 4))),
            Knob("reduction_order", ("c_kh_kw", "kh_kw_c")),
            Knob("unroll_kw", (0, 1)),
        ]

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str]:
        width, vectors = compute.shape[3], _vectors(compute.shape[4])
        # 14 pixels of one vector each; fewer pixels when a block is several vectors wide
        most = min(width, 14, MAX_ACCUMULATORS // vectors)
        ow_block = max(b for b in range(1, most + 1) if width % b == 0)
        return {"ow_block": ow_block, "oc_block": 1, "reduction_order": "c_kh_kw", "unroll_kw": 0}

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        ow_block, oc_block = int(config["ow_block"]), int(config["oc_block"])
        vectors = _vectors(compute.shape[4])
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
        reduction = ["r0", "r1", "r2", "r3"] if config["reduction_order"] == "c_kh_kw" else ["r1", "r2", "r0", "r3"]
        schedule.append(te.reorder("i0", *channels, "i2", "i3.o", *reduction, *inner))
        # One loop over (channel block, row) for the threads (see the module docstring).
        schedule.append(te.fuse(channels[0], "i2"))
        if config["unroll_kw"]:
            schedule.append(te.unroll("r2"))
        schedule += [te.unroll(name) for name in inner[:-1]]
        schedule.append(te.vectorize("i4"))
        return schedule


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
        return [Knob("ow_block", _divisors(shape[3], (1, 2, 4, 7, 8)))]

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
        if len(shape) != 4 or len(extents) != 3 or extents[1:] != (1, 1) or not _is_sum(compute):
            return None
        if [lp.name for lp in default_nest(compute).loops] != ["i0", "i1", "i2", "r0", "r1", "r2", "i3"]:
            return None
        if not self._reads_whole_rows(compute):
            return None
        pixels = shape[2] * shape[3]
        return [
            Knob("fuse_rows", (0, 1)),
            Knob("oc_block", _divisors(self._group_channels(compute), (1, 2, 4, 8))),
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
            if not index_dependencies(row, memo) <= {h, kh} or not index_dependencies(column, memo) <= {w, kw}:
                return False
        return True

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str]:
        space = self.space(compute)
        assert space is not None
        choices = {k.name: k.choices for k in space}
        pixels = compute.shape[2] * compute.shape[3]
        if pixels > FUSED_ROWS_UP_TO:
            return {"fuse_rows": 0, "oc_block": 1, "pixel_block": pixels}
        # up to 4 channels x the largest pixel block whose accumulators fit in 16 registers
        for oc_block in sorted((b for b in choices["oc_block"] if b <= 4), reverse=True):
            fitting = [p for p in choices["pixel_block"] if oc_block * -(-p // LANES) <= 16]
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
        if oc_block > 1 and oc_block * -(-pixel_block // LANES) > MAX_ACCUMULATORS:
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


def _placed_elsewhere(compute: te.ComputeOp) -> bool:
    """Inlined into its readers or attached to another compute's nest: no loops of its own."""
    return any(isinstance(p, te.InlineAttr | te.ComputeAtAttr) for p in compute.schedule)


class TransposeTemplate(ScheduleTemplate):
    """Cache-blocked transpose: the output in tiles of `tile_s` x `tile_d` elements, the
    tile loop `inner` ("d" or "s") innermost and the other one unrolled.

    It applies to an injective compute with loops of its own whose one read of a tensor of
    rank >= 2 walks the source's contiguous (last) dim along exactly one output axis `s`
    other than the output's innermost axis `d`. In the plain loop order LLVM vectorizes d
    with gathers (a source line per lane), and a layout transform like NCHW16c -> NCHW
    comes back to each source line 16 times, a plane later. A tile reads `tile_d` source
    lines and writes `tile_s` output lines, all in L1; LLVM makes it unrolled scalar copies
    (loop-vectorize cannot: one side of a transpose is always strided, so there is no
    vectorize primitive). Standalone, one thread: NCHW16c -> NCHW [1, 64, 56, 56] 0.123 ->
    0.057 ms, NCHW -> NCHW16c 0.088 -> 0.066, BERT's [1, 128, 768] -> [1, 12, 64, 128]
    0.097 -> 0.038 (2 threads: 0.064 -> 0.030, 0.046 -> 0.033, 0.052 -> 0.020).

    With `registers` 1 (tiles of 4, 8 or 16, d innermost) the tile is one register transpose
    instead: `#te.vectorize` on d.i, which `loop-vectorize-transpose` turns into vector loads
    along s, a `loop.vshuffle` network and vector stores along d. Standalone, one thread
    (two): NCHW -> NCHW16c [1, 64, 56, 56] 0.079 -> 0.031 ms (0.048 -> 0.028), NCHW16c ->
    NCHW 0.070 -> 0.039 (0.041 -> 0.020), BERT's head transpose 0.052 -> 0.029.

    The default is the largest tiles with d innermost (the output written along its rows),
    copied through registers when the tiles allow it.
    Of 15 shapes measured (`docs/schedules.md`) it is faster than the plain order on 13;
    NCHW -> NHWC with 64 channels (0.069 -> 0.082 ms) and a [12, 128, 64] -> [12, 64, 128]
    transpose (0.035 -> 0.038) are slower, and there `tile_s` 4, `inner` "s" is the best."""

    name = "transpose"

    def axes(self, compute: te.ComputeOp) -> tuple[int, int] | None:
        """(s, d) as dims of the compute, or None if it is no transpose (see the class)."""
        rank = len(compute.shape)
        if compute.reduce_kind is not None or rank < 2 or _placed_elsewhere(compute):
            return None
        reads = [op for op in compute.body.walk() if isinstance(op, te.ReadOp)]
        sources = [read for read in reads if len(read.indices) >= 2]
        if len(sources) != 1:
            return None
        depends = index_dependencies(sources[0].indices[-1])
        walked = [n for n, arg in enumerate(compute.spatial_args) if arg in depends]
        if len(walked) != 1 or walked[0] == rank - 1:
            return None
        s, d = walked[0], rank - 1
        if compute.shape[s] < 2 or compute.shape[d] < 2:
            return None
        if s == d - 1 and compute.shape[d] <= SHORT_TRANSPOSE:
            return None
        return s, d

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        axes = self.axes(compute)
        if axes is None:
            return None
        extent_s, extent_d = (compute.shape[n] for n in axes)
        knobs = [
            Knob("tile_s", _tiles(extent_s)),
            Knob("tile_d", _tiles(extent_d)),
            Knob("inner", ("d", "s")),
            Knob("registers", (1, 0)),
        ]
        return knobs if all(k.choices for k in knobs) else None

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        space = self.space(compute)
        assert space is not None
        tile_s, tile_d = (max(int(c) for c in knob.choices) for knob in space[:2])
        registers = int(tile_s in REGISTER_TILES and tile_d in REGISTER_TILES)
        return {"tile_s": tile_s, "tile_d": tile_d, "inner": "d", "registers": registers}

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        axes = self.axes(compute)
        assert axes is not None
        tiles = {axis: int(config[knob]) for axis, knob in zip(axes, ("tile_s", "tile_d"))}
        schedule: list[Attribute] = []
        loops: list[str] = []  # after the splits
        outer: list[str] = []
        inner: list[str] = []
        for axis, extent in enumerate(compute.shape):
            name = f"i{axis}"
            if axis not in tiles:
                outer.append(name)
            elif tiles[axis] < extent:
                schedule.append(te.split(name, tiles[axis]))
                outer.append(f"{name}.o")
                inner.append(f"{name}.i")
            else:
                inner.append(name)
            loops += [f"{name}.o", f"{name}.i"] if tiles.get(axis, extent) < extent else [name]
        if config["inner"] == "s":
            inner.reverse()
        # The outer loops keep the output's order, so the parallel default gives each thread
        # whole blocks of the output. (Moving s.o inward, NCHW16c -> NCHW [1, 512, 7, 7] on 2
        # threads took 0.014 ms instead of 0.005: the threads' rows shared cache lines.)
        if [*outer, *inner] != loops:
            schedule.append(te.reorder(*outer, *inner))
        if config["registers"]:
            if config["inner"] != "d" or not set(tiles.values()) <= set(REGISTER_TILES):
                raise InvalidConfig(
                    f"transpose: a register tile needs inner = d and tiles of "
                    f"{', '.join(map(str, REGISTER_TILES))}, got {dict(config)}"
                )
            # loop-vectorize-transpose takes the pair; where its index analysis cannot (an
            # index it does not see move by 1), the tile stays the unrolled copy.
            schedule.append(te.unroll(inner[0]))
            schedule.append(te.vectorize(inner[-1]))
        else:
            schedule.append(te.unroll(inner[0]))
        return schedule


#: A transpose whose innermost output axis d is this short and whose source is contiguous
#: along the axis right outside it is no case for the template: LLVM unrolls d and
#: vectorizes the outer axis with contiguous loads and interleaved stores, 3-5x faster than
#: any tile (standalone, one thread: NCHW -> NCHW3c [1, 3, 224, 224] 0.014 ms plain, 0.042
#: tiled; NCHW -> NHWC with 8 channels 0.0022 vs 0.0072, with 12 channels 0.016 vs 0.0098).
SHORT_TRANSPOSE = 8


#: Tile sizes that `loop-vectorize-transpose` copies through registers (vector lanes).
REGISTER_TILES = (4, 8, 16)


def _tiles(extent: int) -> tuple[int, ...]:
    """Tile sizes of an axis: 4, 8 and 16 where they divide it, and all of it if it is short."""
    return tuple(sorted({*_divisors(extent, (4, 8, 16)), *((extent,) if extent <= 16 else ())}))


class _InnermostVectorTemplate(ScheduleTemplate):
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
        `_period`), so that its index divisions resolve at compile time."""
        innermost = default_nest(compute).loops[-1]
        period = _period(compute, innermost)
        if period is None:
            return [], innermost.name, innermost.extent
        return [te.split(innermost.name, period)], f"{innermost.name}.i", period

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        if _placed_elsewhere(compute) or not compute.shape or not self.applies(compute):
            return None
        _, _, extent = self._innermost(compute)
        lanes = (0, *(n for n in (8, 16) if extent % n == 0))
        unroll = tuple(u for u in (1, 2, 4) if extent % (u * max(lanes)) == 0) if len(lanes) > 1 else (1,)
        return [Knob("lanes", lanes), Knob("unroll", unroll)]

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        return {"lanes": 0, "unroll": 1}

    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        head, name, extent = self._innermost(compute)
        return head + self._vector_primitives(name, extent, int(config["lanes"]), int(config["unroll"]))

    def _vector_primitives(self, name: str, extent: int, lanes: int, unroll: int) -> list[Attribute]:
        """Loop `name` (of `extent` iterations) as `lanes`-wide vectors, `unroll` at a time."""
        if lanes == 0:
            if unroll != 1:
                raise InvalidConfig(f"{self.name}: unroll {unroll} needs explicit vector lanes")
            return []
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


def _period(compute: te.ComputeOp, innermost) -> int | None:
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


class ReductionTemplate(_InnermostVectorTemplate):
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
        if first_reduction is None or innermost.reduction or _period(compute, innermost) is not None:
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
        vector = innermost.reduction and innermost.extent > LANES and innermost.extent % LANES == 0
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


class InjectiveTemplate(_InnermostVectorTemplate):
    """Elementwise and data-movement computes (a fused kernel's last compute once the rest
    is inlined, layout transforms)."""

    name = "injective"

    def applies(self, compute: te.ComputeOp) -> bool:
        return compute.reduce_kind is None

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        """Explicit vectors on a period split into whole vectors (see `_period`), else LLVM's
        auto-vectorizer on the plain loop."""
        head, _, extent = self._innermost(compute)
        return {"lanes": LANES if head and extent % LANES == 0 else 0, "unroll": 1}


REDUCTION = ReductionTemplate()
TRANSPOSE = TransposeTemplate()
INJECTIVE = InjectiveTemplate()

#: Tried in order; the first whose space applies to a compute schedules it.
TEMPLATES: tuple[ScheduleTemplate, ...] = (
    ConvNchwcTemplate(), GemmTemplate(), PoolNchwcTemplate(), PointwiseConvNchwTemplate(),
    REDUCTION, TRANSPOSE, INJECTIVE,
)  # fmt: skip


def template_for(compute: te.ComputeOp) -> ScheduleTemplate | None:
    return next((t for t in TEMPLATES if t.space(compute) is not None), None)


def template_named(name: str) -> ScheduleTemplate:
    for template in TEMPLATES:
        if template.name == name:
            return template
    raise MinitvmError(f"no schedule template named '{name}' (known: {', '.join(t.name for t in TEMPLATES)})")


def apply_default_schedule(compute: te.ComputeOp, main: bool) -> None:
    """The default schedule of a compute as a rule built it: its template's default if it is
    the main compute of a templated op (`main`), else the reduction or transpose default if
    it is one of those, else the injective one (the plain loop order, but a loop with a
    period split by it, see `_period`)."""
    if main:
        apply_template(compute)
        return
    for template in (REDUCTION, TRANSPOSE, INJECTIVE):
        if template.space(compute) is not None:
            config = template.default_config(compute)
            if config is not None:
                _append(compute, template.schedule(compute, config))
            return


def _append(compute: te.ComputeOp, primitives: Sequence[Attribute]) -> None:
    if primitives:
        compute.attributes["schedule"] = ArrayAttr([*compute.schedule, *primitives])


def apply_template(compute: te.ComputeOp, config: Config | None = None) -> ScheduleTemplate | None:
    """Give `compute` its template's schedule (the default config unless `config` is given),
    after the primitives it already has; the template, or None if none applies."""
    template = template_for(compute)
    if template is None:
        return None
    config = config or template.default_config(compute)
    if config is None:
        return None
    _append(compute, template.schedule(compute, config))
    return template
