"""graph-conv-transpose-as-conv: a 2-D transposed conv whose kernel is a multiple of its
stride is one conv and a pixel shuffle.

A transposed conv of stride s writes output pixel s*q + a (a in [0, s), the pixel's phase)
from the kernel taps t = a + m*s only: with k = K*s taps per dim, each phase sees K of them,

    u[n, o, s*q + a, s*r + b] = sum over c, m, m' of x[n, c, q - m, r - m'] * W[c, o, a + m*s, b + m'*s]

which is a plain conv (a correlation, full padding K - 1) of x with O*s*s output channels,
one per (o, a, b), of K x K kernels: G[(o, a, b), c, K-1-m, K-1-m'] = W[c, o, a + m*s, b + m'*s].
Its channels are then spread over the s x s pixels they belong to (a reshape, a transpose
and a reshape: DepthToSpace's column-row-depth order, per output channel), which gives the
transposed conv without padding, (H - 1)*s + k rows; its pads are a slice off that, and
the bias an add after it:

    %z = graph.conv %x, %g {pads = [K-1, ...]} : (tensor<1x64x28x28xf32>, tensor<128x64x1x1xf32>) -> ...
    %z6 = graph.reshape %z : tensor<1x128x28x28xf32> to tensor<1x32x2x2x28x28xf32>
    %t = graph.transpose %z6 {perm = array<i64: 0, 1, 4, 2, 5, 3>} : ... -> ...
    %u = graph.reshape %t : tensor<1x32x28x2x28x2xf32> to tensor<1x32x56x56xf32>
    (%y = graph.slice %u ...  for pads; %y = graph.add %y, %bias  for a bias [O], as [O, 1, 1])

(shown for a 2x2/2 ConvTranspose 64 -> 32 at 28x28: K = 1, a 1x1 conv, nothing to slice).
A kernel that is no multiple of the stride (3x3/2) gets zero taps up to the next one (4x4):
they add to output pixels past (H - 1)*s + k only, which the slice drops. An output padding
beyond the end pad is zeros (graph.pad) before the bias.

The conv then runs blocked (graph-conv-layout) on the conv template, instead of the
transposed conv's reduction over every (c, kh, kw) of which all but 1/s^2 of the taps per
output are skipped: a 2x2/2 ConvTranspose 64 -> 32 at 28x28 ran at 2.5 GFLOP/s that way
(AMD EPYC Zen 4, one thread), 7.84 ms against 0.177 as a conv. It applies to 2-D transposed
convs with a constant weight, dilation 1 and one group; the others are left as they are.
Run before graph-conv-layout.
MLIR counterpart: none upstream; ONNX Runtime and oneDNN special-case the kernel = stride
shape; the phase decomposition is the "sub-pixel convolution" of Shi et al. (2016).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
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
    PadOp,
    ReshapeOp,
    SliceOp,
    TransposeOp,
)
from minitvm.dialects.graph.base import is_static, shape_of

#: A full conv's output rows (K > 1) are made a multiple of this many pixels: their width,
#: W + K - 1, is often prime (29 for a 4x4/2 ConvTranspose of 28 columns), and the conv
#: template's register block must divide it. 128 -> 64 channels, 4x4/2 at 28x28, AMD EPYC
#: Zen 4, one thread: the 29-pixel rows ran in blocks of one pixel, 4.13 ms (53 GFLOP/s),
#: the 32-pixel ones 2.11 ms (115 GFLOP/s).
ROW_MULTIPLE = 4


def _rewritable(op: ConvTransposeOp) -> bool:
    """Whether `op` is a 2-D transposed conv this rewrite expresses: a constant weight, one
    group, dilation 1."""
    window = op.window
    return (
        isinstance(op.weight.owner, ConstantOp)
        and op.groups == 1
        and len(window.kernel) == 2
        and all(d == 1 for d in window.dilations)
    )


def phase_kernels(w: np.ndarray, strides: tuple[int, int]) -> np.ndarray:
    """A transposed conv's weight [C, O, kh, kw] as the conv weight [O*sh*sw, C, K, K'] of its
    phases (K = ceil(kh / sh) and K' = ceil(kw / sw), taps past the kernel zero): channel
    (o, a, b) holds, flipped, the taps a + m*sh, b + m'*sw of output channel o."""
    (sh, sw), (c, o, kh, kw) = strides, w.shape
    k_h, k_w = -(-kh // sh), -(-kw // sw)
    padded = np.zeros((c, o, k_h * sh, k_w * sw), dtype=w.dtype)
    padded[:, :, :kh, :kw] = w
    taps = padded.reshape(c, o, k_h, sh, k_w, sw)[:, :, ::-1, :, ::-1, :]  # [c, o, m, a, m', b]
    return np.ascontiguousarray(taps.transpose(1, 3, 5, 0, 2, 4).reshape(o * sh * sw, c, k_h, k_w))


class ConvTransposeAsConvPattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvTransposeOp, rewriter: PatternRewriter) -> None:
        if not _rewritable(op) or not is_static(op.input.type):
            return  # (symbolic sizes: rows padded to whole register blocks need numbers)
        weight = op.weight.owner
        assert isinstance(weight, ConstantOp)
        window = op.window
        sh, sw = window.strides
        g = phase_kernels(weight.numpy(), (sh, sw))
        o, k_h, k_w = g.shape[0] // (sh * sw), g.shape[2], g.shape[3]
        hint = f"{op.weight.name_hint or 'w'}_phases"
        kernel = ConstantOp.from_array(g, hint)
        kernel.result.name_hint = hint
        rewriter.insert(kernel, InsertPoint.after(weight))
        x = op.input.type
        assert isinstance(x, TensorType)
        n, _, h, wd = shape_of(x)
        rows, cols = h + k_h - 1, wd + k_w - 1
        # a full conv's rows in whole register blocks (the extra columns see only zeros,
        # and go with the slice the full conv needs anyway)
        extra = -cols % ROW_MULTIPLE if k_w > 1 and cols > ROW_MULTIPLE else 0
        full = [k_h - 1, k_w - 1, k_h - 1, k_w - 1 + extra]
        conv = ConvOp.make(op.input, kernel.result, None, pads=full if any(full) else None)
        cols += extra
        split = ReshapeOp.make(conv.result, shape=[n, o, sh, sw, rows, cols])
        shuffle = TransposeOp.make(split.result, perm=[0, 1, 4, 2, 5, 3])
        merged = ReshapeOp.make(shuffle.result, shape=[n, o, rows * sh, cols * sw])
        ops: list[Operation] = [conv, split, shuffle, merged]
        y = self._cropped(merged.result, op, ops)
        if op.bias is not None:
            bias = ReshapeOp.make(op.bias, shape=[o, 1, 1])
            ops += [bias, AddOp.make(y, bias.result)]
        rewriter.replace(op, ops, [ops[-1].results[0]])

    @staticmethod
    def _cropped(u: SSAValue, op: ConvTransposeOp, ops: list[Operation]) -> SSAValue:
        """The transposed conv's output from `u` (its output without padding, and longer by
        the zero taps): the begin pads and whatever lies past the output sliced off, an
        output padding past `u`'s end zero-padded back (appending to `ops`)."""
        assert isinstance(u.type, TensorType) and isinstance(op.result.type, TensorType)
        have, want = shape_of(u.type), shape_of(op.result.type)
        begins = list(op.window.pads[:2])
        ends = [min(have[2 + d], begins[d] + want[2 + d]) for d in range(2)]
        if begins != [0, 0] or ends != list(have[2:]):
            ops.append(
                SliceOp.make(u, starts=[0, 0, *begins], ends=[*have[:2], *ends], steps=[1] * 4)
            )
            u = ops[-1].results[0]
        short = [want[2 + d] - (ends[d] - begins[d]) for d in range(2)]
        if any(short):
            ops.append(PadOp.make(u, pads=[0, 0, 0, 0, 0, 0, *short]))
            u = ops[-1].results[0]
        return u


@dataclass(frozen=True)
class ConvTransposeAsConvPass(ModulePass):
    name = "graph-conv-transpose-as-conv"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ConvTransposeAsConvPattern()).rewrite_module(op)
