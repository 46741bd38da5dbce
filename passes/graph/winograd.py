"""graph-winograd: 3x3 stride-1 convolutions as Winograd F(2x2, 3x3), where that is faster.

A blocked conv (`graph.conv_nchwc`, one group, 3x3 kernel, stride and dilation 1, constant
weight) becomes the input transform, a batched GEMM on weights transformed at compile time,
and the output transform with the conv's bias (see `dialects/graph/winograd.py`):

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

`mode` chooses: "always", "never", or "auto" (the default), which rewrites a conv when
`winograd_pays` says the three kernels beat the direct conv on this machine.
Run after graph-conv-layout and before graph-pack-weights and graph-fuse.
MLIR counterpart: none upstream (IREE's `iree-linalg-ext` has a Winograd conv rewrite);
TVM's `conv2d_winograd` x86 and ARM schedules; Lavin and Gray, "Fast Algorithms for
Convolutional Neural Networks" (2016).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
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
from minitvm.dialects.graph.winograd import KERNEL, POSITIONS, tile_grid, transform_weight
from minitvm.errors import MinitvmError
from minitvm.machine import measured_here

MODES = ("auto", "always", "never")


def _applies(op: ConvNchwcOp) -> bool:
    """Whether `op` is a conv F(2x2, 3x3) computes: a float one (the transforms' fractions
    have no integer form), one group, a 3x3 kernel, stride and dilation 1, a constant
    weight."""
    window = op.window
    return (
        is_float(op.result.type.element_type)  # type: ignore[attr-defined]
        and op.groups == 1
        and tuple(window.kernel) == (KERNEL, KERNEL)
        and all(s == 1 for s in window.strides)
        and all(d == 1 for d in window.dilations)
        and isinstance(op.weight.owner, ConstantOp)
    )


@dataclass
class WinogradPattern(RewritePattern):
    mode: str
    #: weight -> its transform, so that a weight several convs read is transformed once
    transformed: dict[ConstantOp, ConstantOp] = field(default_factory=dict)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvNchwcOp, rewriter: PatternRewriter) -> None:
        if self.mode == "never" or not _applies(op):
            return
        x, y = op.input.type, op.result.type
        assert isinstance(x, TensorType) and isinstance(y, TensorType)
        n, k_outer, height, width, block = shape_of(y)
        _, c_outer, *size, c_inner = shape_of(x)
        if not all(isinstance(d, int) for d in (k_outer, height, width, c_outer, *size, c_inner)):
            return  # (only the batch may be known at run time: the tile grid is fixed)
        channels, outputs = c_outer * c_inner, k_outer * block
        # (per image: the batch scales both sides alike)
        if self.mode == "auto" and not winograd_pays(
            1, channels, outputs, (size[0], size[1]), (height, width)
        ):
            return
        weight = op.weight.owner
        assert isinstance(weight, ConstantOp)
        u = self.transformed.get(weight)
        if u is None:
            hint = f"{op.weight.name_hint or 'w'}_winograd"
            u = ConstantOp.from_array(transform_weight(unblock_weight(weight.numpy())), hint)
            u.result.name_hint = hint
            rewriter.insert(u, InsertPoint.after(weight))
            self.transformed[weight] = u
        th, tw = tile_grid(height, width)
        tiles = n * th * tw
        rows = tiles if isinstance(tiles, int) else SizesAttr.of([tiles])
        pads = op.window.pads
        v = WinogradInputOp.make(
            op.input, pads=[pads[0], pads[1]], output=[height, width], rows=rows
        )
        m = MatMulOp.make(v.result, u.result)
        out = WinogradOutputOp.make(m.result, op.bias, output=[n, height, width], block=block)
        rewriter.replace(op, [v, m, out], [out.result])


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


def winograd_pays(
    n: int,
    channels: int,
    outputs: int,
    size: tuple[int, int],
    output: tuple[int, int],
    roofline: Roofline | None = None,
) -> bool:
    """Whether F(2x2, 3x3) beats the direct conv of n images of `size` pixels, `channels`
    -> `outputs`, with an output of `output` pixels, on the `roofline` (this machine's by
    default). Each kernel is costed at its roofline time: the direct conv at 18 flops per
    output and input channel pair and pixel; Winograd at 2 x 16 per tile (2.25x fewer) in the
    GEMM, plus the traffic of the transformed tiles, written by one kernel and read by the
    next (16 floats per tile and channel, twice: in and out). So Winograd loses where that
    traffic outweighs the flops saved: few channels (a 3 -> 64 stem at 224 x 224: 3.6 ms
    against 1.5 by this model on 118 GFLOP/s and 34 GB/s), and wins from a few tens of
    channels on (64 -> 64 at 56 x 56: 1.3 ms against 2.0)."""
    roofline = roofline or Roofline.of_this_machine()
    th, tw = tile_grid(*output)
    rows = n * th * tw
    image, result = n * channels * size[0] * size[1], n * outputs * output[0] * output[1]
    direct = roofline.seconds(
        2 * KERNEL * KERNEL * channels * outputs * output[0] * output[1] * n,
        image + KERNEL * KERNEL * channels * outputs + result,
    )
    v, m = POSITIONS * rows * channels, POSITIONS * rows * outputs
    winograd = (
        roofline.seconds(0, image + v)
        + roofline.seconds(
            2 * POSITIONS * rows * channels * outputs, v + POSITIONS * channels * outputs + m
        )
        + roofline.seconds(0, m + result)
    )
    return winograd < direct


@dataclass(frozen=True)
class WinogradPass(ModulePass):
    name = "graph-winograd"

    mode: str = "auto"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in MODES:
            raise MinitvmError(
                f"graph-winograd: mode '{self.mode}' is not one of {', '.join(MODES)}"
            )
        PatternRewriteWalker(WinogradPattern(self.mode)).rewrite_module(op)
