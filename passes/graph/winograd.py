"""graph-winograd: 3x3 stride-1 convolutions as Winograd F(2x2, 3x3) or F(4x4, 3x3), where
that is faster.

A blocked conv (`graph.conv_nchwc`, one group, 3x3 kernel, stride and dilation 1, constant
weight) becomes the input transform, a batched GEMM on weights transformed at compile time,
and the output transform with the conv's bias (see `dialects/graph/winograd.py`). With
F(2x2, 3x3) (F(4x4, 3x3) adds `tile = 4` to both transforms and makes 36 GEMMs on 4x4 tiles):

    %y = graph.conv_nchwc %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : ...
  becomes
    %v = graph.winograd_input %x {pads = array<i64: 1, 1>, output = array<i64: 56, 56>, rows = 784} : ...
    %u = graph.constant ... : tensor<16x64x64xf32>                        (G w G^T, folded now)
    %m = graph.matmul %v, %u : (tensor<16x784x64xf32>, tensor<16x64x64xf32>) -> tensor<16x784x64xf32>
    %y = graph.winograd_output %m, %b {output = array<i64: 1, 56, 56>, block = 16} : ...

The GEMM runs on the GEMM template (16 products of tiles x C by C x K) and graph-fuse gives
the output transform the conv's epilogue (a residual add, a ReLU) as one injective kernel.
The GEMM's rows are the tiles, unpadded: the GEMM template runs the tiles its register
blocks leave as one shorter block.

`mode` chooses: "auto" (the default) rewrites a conv with the tile whose three kernels
`best_tile` says are fastest on this machine, unless the direct conv is faster still;
"always" rewrites every conv it applies to with that tile; "never" none; "f2x2" and "f4x4"
every one with that tile.

Which of the three algorithms (`ALGORITHMS`: direct, f2x2, f4x4) a conv takes is also a
tuning task (`tuner/choices.py`): `minitvm tune` times each on the conv alone and files the
fastest under the conv's `choice_key` (its types, window and the target: CPU and threads).
In mode "auto" a conv whose key the `records` (for `threads` threads on this CPU) or the
`choices` ("key:algorithm" items, `minitvm.compile(schedules={key: {"algorithm": ...}})`,
which win over the records) name takes that algorithm instead of the model's pick:

    minitvm-opt m.mlir -p 'graph-winograd{records="sqlite:///r.db" threads=1}'

Run after graph-conv-layout and before graph-pack-weights and graph-fuse.
MLIR counterpart: none upstream (IREE's `iree-linalg-ext` has a Winograd conv rewrite);
TVM's `conv2d_winograd` x86 and ARM schedules; Lavin and Gray, "Fast Algorithms for
Convolutional Neural Networks" (2016).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from minitvm.dialects.graph import (
    ConstantOp,
    ConvNchwcOp,
    MatMulOp,
    WinogradInputOp,
    WinogradOutputOp,
)
from minitvm.dialects.graph.base import SizesAttr, is_float, shape_of
from minitvm.dialects.graph.reference import unblock_weight
from minitvm.dialects.graph.winograd import (
    KERNEL,
    TRANSFORMS,
    tile_grid,
    transform_weight,
    transforms,
)
from minitvm.errors import MinitvmError
from minitvm.host import default_num_threads, target_key
from minitvm.machine import measured_here
from minitvm.records import load_schedules

#: Modes that name a tile: F(2x2, 3x3) or F(4x4, 3x3) wherever it applies.
NAMED = {f"f{tile}x{tile}": tile for tile in TRANSFORMS}
MODES = ("auto", "always", "never", *NAMED)
#: What a conv's tuning task chooses between (its one knob, `ALGORITHM`): the direct conv or
#: a Winograd tile. Part of the task key: a new algorithm makes new tasks.
ALGORITHM = "algorithm"
ALGORITHMS = ("direct", *NAMED)
#: The tile each algorithm runs (None: the direct conv).
TILE_OF = {"direct": None, **NAMED}


def choice_key(op: ConvNchwcOp, target: str) -> str:
    """The key of a conv's algorithm task: sha256 of what decides which algorithm is fastest
    (its operand and result types, its window, whether it has a bias), the algorithms, and
    the target (`host.target_key`: CPU and threads). Convs that differ only in their weights'
    values share it."""
    types = [str(op.input.type), str(op.weight.type), str(op.result.type)]
    types.append(str(op.bias.type) if op.bias is not None else "no bias")
    window = op.window
    text = "\n".join(
        [
            target,
            f"graph-winograd: {ALGORITHM}={list(ALGORITHMS)}",
            *types,
            f"pads={list(window.pads)} strides={list(window.strides)}",
            f"dilations={list(window.dilations)} group={op.groups}",
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def choices_of(configs: Mapping[str, Mapping[str, int | str]]) -> dict[str, str]:
    """The algorithm choices among configs by task key (records' or `schedules`): the
    kernels' configs have no `ALGORITHM` knob and are left out."""
    return {
        key: str(config[ALGORITHM])
        for key, config in configs.items()
        if str(config.get(ALGORITHM)) in ALGORITHMS
    }


def applies(op: ConvNchwcOp) -> bool:
    """Whether `op` is a conv Winograd's F(m x m, 3x3) computes: a float one (the transforms'
    fractions have no integer form), one group, a 3x3 kernel, stride and dilation 1. The
    rewrite also needs a constant weight, which a tuning task's conv alone (`tuner/choices.py`)
    takes as an argument until it is measured."""
    window = op.window
    return (
        is_float(op.result.type.element_type)  # type: ignore[attr-defined]
        and op.groups == 1
        and tuple(window.kernel) == (KERNEL, KERNEL)
        and all(s == 1 for s in window.strides)
        and all(d == 1 for d in window.dilations)
    )


def conv_of(op: ConvNchwcOp) -> Conv | None:
    """The cost model's view of a conv Winograd applies to (None where it does not, or where
    a size other than the batch is known only at run time: the tile grid is fixed). A batch
    known only at run time is costed as one image: the weight's traffic, which a larger batch
    shares, makes it the case least favourable to the larger tile."""
    if not applies(op):
        return None
    n, k_outer, height, width, block = shape_of(op.result.type)  # type: ignore[arg-type]
    _, c_outer, *size, c_inner = shape_of(op.input.type)  # type: ignore[arg-type]
    dims = (k_outer, height, width, block, c_outer, *size, c_inner)
    if not all(isinstance(d, int) for d in dims):
        return None
    images = n if isinstance(n, int) else 1
    return Conv(images, c_outer * c_inner, k_outer * block, (size[0], size[1]), (height, width))


def model_pick(conv: Conv) -> str:
    """The algorithm mode "auto" gives `conv` without tuning: `best_tile`'s."""
    tile = best_tile(conv)
    return "direct" if tile is None else f"f{tile}x{tile}"


@dataclass
class WinogradPattern(RewritePattern):
    mode: str
    #: choice_key -> algorithm, for the convs tuning chose for (mode "auto" only)
    chosen: Mapping[str, str] = field(default_factory=dict)
    #: the target the choices' keys name (needed only when there are choices)
    target: str = ""
    #: (weight, tile) -> its transform, so that a weight several convs read is transformed once
    transformed: dict[tuple[ConstantOp, int], ConstantOp] = field(default_factory=dict)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvNchwcOp, rewriter: PatternRewriter) -> None:
        if self.mode == "never" or not isinstance(op.weight.owner, ConstantOp):
            return
        conv = conv_of(op)
        if conv is None:
            return
        tile = _tile_for(self.mode, conv)
        if self.mode == "auto" and self.chosen:
            algorithm = self.chosen.get(choice_key(op, self.target))
            if algorithm is not None:  # (tuned on this CPU: what was measured beats the model)
                tile = TILE_OF[algorithm]
        if tile is None:
            return
        weight = op.weight.owner
        assert isinstance(weight, ConstantOp)
        u = self.transformed.get((weight, tile))
        if u is None:
            hint = f"{op.weight.name_hint or 'w'}_winograd"
            u = ConstantOp.from_array(transform_weight(unblock_weight(weight.numpy()), tile), hint)
            u.result.name_hint = hint
            rewriter.insert(u, InsertPoint.after(weight))
            self.transformed[weight, tile] = u
        n, _, height, width, block = shape_of(op.result.type)  # type: ignore[arg-type]
        th, tw = tile_grid(height, width, tile)
        tiles = n * th * tw
        rows = tiles if isinstance(tiles, int) else SizesAttr.of([tiles])
        pads = op.window.pads
        v = WinogradInputOp.make(
            op.input, pads=[pads[0], pads[1]], output=[height, width], rows=rows, tile=tile
        )
        m = MatMulOp.make(v.result, u.result)
        out = WinogradOutputOp.make(
            m.result, op.bias, output=[n, height, width], block=block, tile=tile
        )
        rewriter.replace(op, [v, m, out], [out.result])


def _tile_for(mode: str, conv: Conv) -> int | None:
    """The tile `mode` gives `conv`: the one named, or the fastest by `best_tile` (None: the
    direct conv)."""
    if mode in NAMED:
        return NAMED[mode]
    return best_tile(conv, direct=mode == "auto")


@dataclass(frozen=True)
class Roofline:
    """A core's measured fp32 FMA throughput and memory bandwidth: a kernel takes at least
    its flops at the one and its bytes at the other."""

    flops_per_s: float
    bytes_per_s: float

    @staticmethod
    def of_this_machine() -> Roofline:
        measured = measured_here()
        assert measured is not None
        return Roofline(measured.fma_gflops * 1e9, measured.bandwidth_gbs * 1e9)

    def seconds(self, flops: float, floats: float) -> float:
        return max(flops / self.flops_per_s, 4 * floats / self.bytes_per_s)


@dataclass(frozen=True)
class Conv:
    """A 3x3 stride-1 conv of n images of `size` pixels, `channels` -> `outputs`, with an
    output of `output` pixels."""

    n: int
    channels: int
    outputs: int
    size: tuple[int, int]
    output: tuple[int, int]

    def direct_seconds(self, roofline: Roofline) -> float:
        """The direct conv at its roofline time: 18 flops per output and input channel pair
        and pixel; the image, the weight and the result read or written once."""
        pixels = self.n * self.output[0] * self.output[1]
        return roofline.seconds(
            2 * KERNEL * KERNEL * self.channels * self.outputs * pixels,
            self.n * self.channels * self.size[0] * self.size[1]
            + KERNEL * KERNEL * self.channels * self.outputs
            + self.outputs * pixels,
        )

    def winograd_seconds(self, tile: int, roofline: Roofline) -> float:
        """F(tile x tile, 3x3)'s three kernels at their roofline times. The GEMM makes 2 flops
        per position, tile, and channel pair, and reads the transformed tiles and weight and
        writes its product (positions floats per tile and channel each). Each transform makes
        2 flops per term of its 2-D transform (a row of B^T or A^T with a nonzeros times one
        with b makes a * b terms) and reads and writes its side once. So the larger tile
        saves flops and traffic per pixel, less where the tile grid overhangs a small output
        (7 x 7 pixels in 4 x 4 tiles compute 8 x 8), and its transform weight (36 floats per
        channel pair) weighs on a GEMM with few tiles."""
        t = transforms(tile)
        th, tw = tile_grid(*self.output, tile)
        rows = self.n * th * tw
        image = self.n * self.channels * self.size[0] * self.size[1]
        result = self.n * self.outputs * self.output[0] * self.output[1]
        v, m = t.positions * rows * self.channels, t.positions * rows * self.outputs
        input_terms = int(np.count_nonzero(t.input, axis=1).sum()) ** 2
        output_terms = int(np.count_nonzero(t.output, axis=1).sum()) ** 2
        return (
            roofline.seconds(2 * input_terms * rows * self.channels, image + v)
            + roofline.seconds(
                2 * t.positions * rows * self.channels * self.outputs,
                v + t.positions * self.channels * self.outputs + m,
            )
            + roofline.seconds(2 * output_terms * rows * self.outputs, m + result)
        )


def best_tile(conv: Conv, direct: bool = True, roofline: Roofline | None = None) -> int | None:
    """The Winograd tile whose kernels are fastest for `conv` on the `roofline` (this
    machine's by default), or None where the direct conv is faster still (only when `direct`
    may be chosen). Winograd loses where the traffic of the transformed tiles outweighs the
    flops saved: few channels (a 3 -> 64 stem at 224 x 224: 3.6 ms against 1.5 by this model
    on 118 GFLOP/s and 34 GB/s), and wins from a few tens of channels on."""
    roofline = roofline or Roofline.of_this_machine()
    times = {tile: conv.winograd_seconds(tile, roofline) for tile in TRANSFORMS}
    if direct:
        times[None] = conv.direct_seconds(roofline)
    return min(times, key=lambda tile: times[tile])


@dataclass(frozen=True)
class WinogradPass(ModulePass):
    name = "graph-winograd"

    mode: str = "auto"
    #: Tuning records (a URL): in mode "auto", the algorithms tuned for `threads` threads on
    #: this CPU replace the model's pick.
    records: str | None = None
    #: The thread count the model will run on; 0: every core this process may use.
    threads: int = 0
    #: "choice key:algorithm" items, which win over the records (mode "auto" only).
    choices: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in MODES:
            raise MinitvmError(
                f"graph-winograd: mode '{self.mode}' is not one of {', '.join(MODES)}"
            )
        chosen: dict[str, str] = {}
        if self.mode == "auto" and (self.records or self.choices):
            target = target_key(self.threads or default_num_threads())
            if self.records:
                chosen.update(choices_of(load_schedules(self.records, target)))
            for item in self.choices:
                key, _, algorithm = item.rpartition(":")
                if algorithm not in ALGORITHMS or not key:
                    raise MinitvmError(
                        f"graph-winograd: choice '{item}' is not 'key:algorithm' with an "
                        f"algorithm among {', '.join(ALGORITHMS)}"
                    )
                chosen[key] = algorithm
            pattern = WinogradPattern(self.mode, chosen, target)
        else:
            pattern = WinogradPattern(self.mode)
        PatternRewriteWalker(pattern).rewrite_module(op)
