"""graph-conv-transpose-as-conv: a transposed conv whose windows do not overlap is a 1x1 conv
and a pixel shuffle.

A decoder's upsampling `ConvTranspose` with kernel = stride (2x2, stride 2: U-Net's, a
segmentation head's) writes every output pixel from exactly one input pixel:

    y[n, o, s*h + a, s*w + b] = sum_c x[n, c, h, w] * W[c, o, a, b]  (+ bias[o])

so it is a 1x1 conv with O*s*s output channels, W' [(o, a, b), c] = W[c, o, a, b], whose
channels are then spread over the s x s pixels they belong to (a reshape, a transpose and a
reshape: DepthToSpace's column-row-depth order, per output channel):

    %z = graph.conv %x, %w1x1 : (tensor<1x64x28x28xf32>, tensor<128x64x1x1xf32>) -> ...
    %z6 = graph.reshape %z : tensor<1x128x28x28xf32> to tensor<1x32x2x2x28x28xf32>
    %t = graph.transpose %z6 {perm = array<i64: 0, 1, 4, 2, 5, 3>} : ... -> ...
    %y = graph.reshape %t : tensor<1x32x28x2x28x2xf32> to tensor<1x32x56x56xf32>
    (%y = graph.add %y, %bias  for a bias [O], as [O, 1, 1])

The conv then runs blocked (graph-conv-layout) on the conv template, instead of the
transposed conv's reduction over every (c, kh, kw) of which all but one tap per output are
skipped: a 2x2/2 ConvTranspose 64 -> 32 at 28x28 ran at 2.5 GFLOP/s that way. It applies to
2-D transposed convs with a constant weight, kernel = stride, no padding, no output padding,
dilation 1 and one group; the others are left as they are. Run before graph-conv-layout.
MLIR counterpart: none upstream; ONNX Runtime and oneDNN special-case the same shape.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
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
    AddOp,
    ConstantOp,
    ConvOp,
    ConvTransposeOp,
    ReshapeOp,
    TransposeOp,
)
from minitvm.dialects.graph.base import get_ints


def _non_overlapping(op: ConvTransposeOp) -> int | None:
    """The stride s if `op` is a 2-D transposed conv with s x s windows that do not overlap
    (and nothing else this rewrite cannot express), else None."""
    weight = op.weight.owner
    if not isinstance(weight, ConstantOp) or op.groups != 1:
        return None
    window = op.window
    square = len(window.kernel) == 2 and window.kernel[0] == window.kernel[1]
    if not square or window.kernel != window.strides:
        return None
    if any(window.pads) or any(d != 1 for d in window.dilations):
        return None
    if any(get_ints(op.properties, "output_padding", [0, 0])):
        return None
    return window.kernel[0]


class ConvTransposeAsConvPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvTransposeOp, rewriter: PatternRewriter) -> None:
        s = _non_overlapping(op)
        if s is None:
            return
        weight = op.weight.owner
        assert isinstance(weight, ConstantOp)
        w = weight.numpy()  # [C, O, s, s]
        c, o = w.shape[:2]
        rows = np.ascontiguousarray(w.transpose(1, 2, 3, 0).reshape(o * s * s, c, 1, 1))
        hint = f"{op.weight.name_hint or 'w'}_1x1"
        kernel = ConstantOp.from_array(rows, hint)
        kernel.result.name_hint = hint
        rewriter.insert(kernel, InsertPoint.after(weight))
        x = op.input.type
        assert isinstance(x, TensorType)
        n, _, h, wd = x.get_shape()
        conv = ConvOp.make(op.input, kernel.result, None)
        split = ReshapeOp.make(conv.result, shape=[n, o, s, s, h, wd])
        shuffle = TransposeOp.make(split.result, perm=[0, 1, 4, 2, 5, 3])
        merged = ReshapeOp.make(shuffle.result, shape=[n, o, h * s, wd * s])
        ops = [conv, split, shuffle, merged]
        if op.bias is not None:
            bias = ReshapeOp.make(op.bias, shape=[o, 1, 1])
            total = AddOp.make(merged.result, bias.result)
            ops += [bias, total]
        rewriter.replace(op, ops, [ops[-1].results[0]])


@dataclass(frozen=True)
class ConvTransposeAsConvPass(ModulePass):
    name = "graph-conv-transpose-as-conv"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ConvTransposeAsConvPattern()).rewrite_module(op)
