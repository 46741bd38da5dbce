"""graph-conv-layout: run 2-D convolutions in the blocked NCHW[x]c layout.

In NCHW the channels of one pixel lie H*W floats apart, so a convolution cannot load the
output channels it accumulates as one vector. In NCHW16c (`[N, C/16, H, W, 16]`) they are
contiguous: the conv kernel keeps a row of output pixels x 16 channels in vector registers
and feeds them with one weight vector and one broadcast input scalar per multiply-add (the
layout TVM's x86 conv2d uses). This pass

  1. rewrites each `graph.conv` (2-D, constant weights, float or integer; one group, or
     depthwise: one per channel) as `graph.conv_nchwc` between two `graph.layout_transform`s, its weights
     re-laid out as `[M/16, C/cb, KH, KW, cb, 16]` at compile time (a depthwise conv's as
     `[C/16, 1, KH, KW, 1, 16]`). Channels are blocked by `block` (16) where it divides
     them, else by half of it (NCHW8c: MobileNetV2's 24 channels), else the conv stays in
     NCHW; an input with few channels is one block (cb = 3 for an RGB image):

       %y = graph.conv %x, %w, %b        %xb = graph.layout_transform %x {NCHW -> NCHW16c}
                                   ->    %yb = graph.conv_nchwc %xb, %wb, %b
                                         %y  = graph.layout_transform %yb {NCHW16c -> NCHW}

  2. moves each `-> NCHW` transform below the layout-agnostic ops that read it: elementwise
     ops whose other operands are blocked the same way or per-channel/scalar constants (those
     are re-laid out to `[1, C/16, 1, 1, 16]`), and concatenations along the channels;
  3. cancels a transform whose input is the inverse transform (`NCHW16c -> NCHW -> NCHW16c`),
     and keeps one of equal transforms of the same value.

So between consecutive convolutions (through bias, ReLU, residual adds, DenseNet's concats)
no transform is left; transforms remain only where the graph leaves the blocked world (the
model's input and output, pooling, reshapes). MLIR counterpart: none upstream; TVM's
`AlterOpLayout` + `ConvertLayout` passes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from minitvm.dialects.graph import (
    AvgPoolOp,
    BitcastOp,
    CastOp,
    ConcatOp,
    ConstantOp,
    ConvNchwcOp,
    ConvOp,
    LayoutTransformOp,
    MaxPoolOp,
    blocked_layout,
    parse_layout,
)
from minitvm.dialects.graph.base import Shape, get_int, get_ints, shape_of
from minitvm.dialects.graph.elementwise import ELEMENTWISE_OPS

#: The layout everything outside the blocked world is in.
NCHW = "NCHW"

#: Input channels up to this many are taken as one block when `block` does not divide them.
_WHOLE_CHANNEL_LIMIT = 64


def _shape(value: SSAValue) -> Shape:
    assert isinstance(value.type, TensorType)
    return shape_of(value.type)


def _constant(array: np.ndarray, hint: str) -> ConstantOp:
    op = ConstantOp.from_array(np.ascontiguousarray(array), hint)
    op.result.name_hint = hint
    return op


def channel_block(channels: int, block: int) -> int | None:
    """The block a conv's channels are laid out in: `block` when it divides them, else half
    of it (one 8-float vector: MobileNetV2's 24-channel stages), else None."""
    for candidate in (block, block // 2):
        if candidate >= 1 and channels % candidate == 0:
            return candidate
    return None


def input_block(channels: int, block: int) -> int | None:
    """The channel block of a conv's input: `channel_block`, else all channels when there
    are few (an RGB image), else None (the conv stays in NCHW)."""
    found = channel_block(channels, block)
    if found is not None:
        return found
    if channels <= _WHOLE_CHANNEL_LIMIT:
        return channels
    return None


def blocked_weights(w: np.ndarray, cb: int, mb: int) -> np.ndarray:
    """(M, C, KH, KW) -> (M/mb, C/cb, KH, KW, cb, mb): w[m, c] lands at [m//mb, c//cb, .., c%cb, m%mb]."""
    m, c, kh, kw = w.shape
    return w.reshape(m // mb, mb, c // cb, cb, kh, kw).transpose(0, 2, 4, 5, 3, 1)


def _unblocking_block(value: SSAValue) -> int | None:
    """b if `value` is the result of a `NCHW{b}c -> NCHW` transform."""
    owner = value.owner
    if isinstance(owner, LayoutTransformOp) and owner.dst_layout.data == NCHW:
        return parse_layout(owner.src_layout.data)
    return None


class ConvToBlockedPattern(RewritePattern):
    """conv -> to-blocked, conv_nchwc, from-blocked (see the module docstring)."""

    def __init__(self, block: int):
        super().__init__()
        self.block = block

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvOp, rewriter: PatternRewriter) -> None:
        x_shape, w_shape = _shape(op.input), _shape(op.weight)
        weight = op.weight.owner
        group = op.groups
        mb = channel_block(w_shape[0], self.block)
        if len(x_shape) != 4 or not isinstance(weight, ConstantOp) or mb is None:
            return
        # depthwise (one input channel per output channel): blocked like the input
        depthwise = group == x_shape[1] == w_shape[0] and w_shape[1] == 1
        if group != 1 and not depthwise:
            return
        cb = mb if depthwise else input_block(x_shape[1], self.block)
        if cb is None:
            return
        w_blocked = _constant(
            blocked_weights(weight.numpy(), 1 if depthwise else cb, mb),
            f"{weight.result.name_hint or 'w'}_nchwc",
        )
        x_blocked = LayoutTransformOp.make(op.input, src_layout=NCHW, dst_layout=blocked_layout(cb))
        kept = ("strides", "pads", "dilations", "group") if depthwise else ("strides", "pads", "dilations")
        conv = ConvNchwcOp.make(
            x_blocked.result, w_blocked.result, op.bias,
            **{k: v for k, v in op.properties.items() if k in kept},
        )  # fmt: skip
        y = LayoutTransformOp.make(conv.result, src_layout=blocked_layout(mb), dst_layout=NCHW)
        rewriter.insert([w_blocked, x_blocked, conv])
        rewriter.replace(op, y)


def _blocked_constant(value: SSAValue, channels: int, rank: int, block: int) -> ConstantOp | None:
    """A per-channel or scalar constant operand of a rank-4 NCHW elementwise op, re-laid out
    for the NCHW{block}c result; None if `value` is not one."""
    owner = value.owner
    if not isinstance(owner, ConstantOp):
        return None
    shape = _shape(value)
    if len(shape) > rank:
        return None
    padded = (1,) * (rank - len(shape)) + shape
    if padded[0] != 1 or padded[2] != 1 or padded[3] != 1 or padded[1] not in (1, channels):
        return None
    array = owner.numpy().reshape(padded)
    if padded[1] == 1:
        return _constant(array.reshape(1, 1, 1, 1, 1), value.name_hint or "c")
    return _constant(
        array.reshape(1, channels // block, 1, 1, block), f"{value.name_hint or 'c'}_nchwc"
    )


def _is_blocked_elsewhere(value: SSAValue, block: int) -> bool:
    """Whether some op already blocks `value` by `block` (a conv reads it): reading that
    blocked copy costs no extra transform."""
    return any(
        isinstance(use.operation, LayoutTransformOp)
        and use.operation.dst_layout.data == blocked_layout(block)
        for use in value.uses
    )


class SinkUnblockThroughElementwisePattern(RewritePattern):
    """op(from-blocked(x), constant c) -> from-blocked(op(x, c re-laid out)); likewise for
    any number of operands blocked alike (a residual add of two conv results), and for
    operands a conv already reads blocked (the skip connection of a network's first block)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) not in ELEMENTWISE_OPS or len(op.results) != 1:
            return
        out_shape = _shape(op.results[0])
        if len(out_shape) != 4:
            return
        blocks = {_unblocking_block(v) for v in op.operands if _unblocking_block(v) is not None}
        if len(blocks) != 1:
            return
        (block,) = blocks
        new_ops: list[Operation] = []
        operands: list[SSAValue] = []
        for value in op.operands:
            if _unblocking_block(value) is not None:
                if _shape(value) != out_shape:
                    return  # a broadcast blocked operand: not worth the cases
                owner = value.owner
                assert isinstance(owner, LayoutTransformOp)
                operands.append(owner.input)
                continue
            if _shape(value) == out_shape and _is_blocked_elsewhere(value, block):
                to_blocked = LayoutTransformOp.make(
                    value, src_layout=NCHW, dst_layout=blocked_layout(block)
                )
                new_ops.append(to_blocked)
                operands.append(to_blocked.result)
                continue
            const = _blocked_constant(value, out_shape[1], 4, block)
            if const is None:
                return
            new_ops.append(const)
            operands.append(const.result)
        if isinstance(op, CastOp | BitcastOp):  # their result type is given, not inferred
            blocked = type(op).make(operands[0], to=op.result.type.element_type)  # type: ignore[attr-defined]
        else:
            blocked = type(op).make(*operands, **dict(op.properties))  # pyright: ignore[reportAttributeAccessIssue]
        back = LayoutTransformOp.make(
            blocked.results[0], src_layout=blocked_layout(block), dst_layout=NCHW
        )
        rewriter.insert([*new_ops, blocked])
        rewriter.replace(op, back)


class SinkUnblockThroughConcatPattern(RewritePattern):
    """concat(from-blocked(x), y, axis=1) -> from-blocked(concat(x, to-blocked(y), axis=1)):
    every input's channels are whole blocks, so concatenating the blocks concatenates the
    channels. Inputs not blocked yet (a DenseNet block's input, fresh from pooling) are
    blocked once here, and every later concat of the block then sees only blocked inputs."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConcatOp, rewriter: PatternRewriter) -> None:
        rank = len(_shape(op.result))
        if rank != 4 or get_int(op.properties, "axis") % rank != 1:
            return
        blocks = {b for v in op.inputs if (b := _unblocking_block(v)) is not None}
        if len(blocks) != 1:
            return
        (block,) = blocks
        if any(_shape(v)[1] % block for v in op.inputs):
            return
        new_ops: list[Operation] = []
        inputs: list[SSAValue] = []
        for value in op.inputs:
            owner = value.owner
            if _unblocking_block(value) is not None:
                assert isinstance(owner, LayoutTransformOp)
                inputs.append(owner.input)
            else:
                to_blocked = LayoutTransformOp.make(
                    value, src_layout=NCHW, dst_layout=blocked_layout(block)
                )
                new_ops.append(to_blocked)
                inputs.append(to_blocked.result)
        blocked = ConcatOp.make(inputs, axis=1)
        back = LayoutTransformOp.make(
            blocked.result, src_layout=blocked_layout(block), dst_layout=NCHW
        )
        rewriter.insert([*new_ops, blocked])
        rewriter.replace(op, back)


class SinkUnblockThroughPoolPattern(RewritePattern):
    """pool2d(from-blocked(x)) -> from-blocked(pool3d(x)): a blocked tensor [N, C/b, H, W, b]
    read as N, C/b and three spatial dims is pooled by the same window with a third,
    one-wide, unpadded, unstrided dimension over the b channels of a block, and that is the
    2-D pool of every channel. So max and average pools (ResNet's stem, DenseNet's
    transitions) stay blocked, without an op of their own: ResNet-18 paid 0.55 ms to unblock
    its 112x112 stem output for the max-pool and 0.10 ms to block the result again."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, MaxPoolOp | AvgPoolOp) or len(_shape(op.input)) != 4:
            return
        block = _unblocking_block(op.input)
        if block is None:
            return
        owner = op.input.owner
        assert isinstance(owner, LayoutTransformOp)
        properties: dict[str, object] = dict(op.properties)
        properties["kernel_shape"] = [*op.window.kernel, 1]
        for name in ("strides", "dilations"):  # absent: all 1, the third dim's value too
            if name in op.properties:
                properties[name] = [*get_ints(op.properties, name), 1]
        if "pads" in op.properties:
            pads = get_ints(op.properties, "pads")
            properties["pads"] = [*pads[:2], 0, *pads[2:], 0]
        blocked = type(op).make(owner.input, **properties)
        back = LayoutTransformOp.make(
            blocked.result, src_layout=blocked_layout(block), dst_layout=NCHW
        )
        rewriter.insert(blocked)
        rewriter.replace(op, back)


class CancelLayoutTransformsPattern(RewritePattern):
    """transform(transform(x, A -> B), B -> A) -> x; (A -> B) then (B -> C) -> (A -> C)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LayoutTransformOp, rewriter: PatternRewriter) -> None:
        inner = op.input.owner
        if not isinstance(inner, LayoutTransformOp):
            return
        src, dst = inner.src_layout.data, op.dst_layout.data
        if src == dst:
            rewriter.replace(op, [], [inner.input])
        else:
            rewriter.replace(
                op, LayoutTransformOp.make(inner.input, src_layout=src, dst_layout=dst)
            )


class ShareLayoutTransformsPattern(RewritePattern):
    """Two equal transforms of one value -> the earlier one (convs and a concat that all
    read one tensor block it once)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LayoutTransformOp, rewriter: PatternRewriter) -> None:
        for use in op.input.uses:
            twin = use.operation
            if (
                twin is not op
                and isinstance(twin, LayoutTransformOp)
                and twin.parent_block() is op.parent_block()
                and twin.is_before_in_block(op)
                and twin.properties == op.properties
            ):
                rewriter.replace(op, [], [twin.result])
                return


@dataclass(frozen=True)
class ConvLayoutPass(ModulePass):
    """Convolutions to NCHW{block}c, transforms pushed to the blocked world's edges."""

    name = "graph-conv-layout"

    block: int = 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ConvToBlockedPattern(self.block)).rewrite_module(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    SinkUnblockThroughElementwisePattern(),
                    SinkUnblockThroughConcatPattern(),
                    SinkUnblockThroughPoolPattern(),
                    CancelLayoutTransformsPattern(),
                    ShareLayoutTransformsPattern(),
                ]
            )
        ).rewrite_module(op)
