"""ONNX converters for the loss ops: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.

Both become compositions of graph ops (no op of their own). The input is [N, C, d1..dk] and
the target [N, d1..dk] holds run-time class indices, so picking input[n, target[n, ...], ...]
is a one-hot mask over the class axis, built from a compile-time arange:

    mask[n, c, ...] = (target[n, ...] == c) and c != ignore_index   # equal(reshape, const)
    picked[n, ...]  = reduce_sum(where(mask, input, 0), axis 1)      # input[n, target, ...]
    weight_of[n, ...] = reduce_sum(where(mask, weight[c], 0), axis 1)
    loss = -(picked * weight_of)

Exactly one class matches a counted element, so the sums are exact, and an ignored or
unmatched element (an ignore_index outside [0, C) matches no class) gives 0 loss and 0
weight without a 0 * inf. `reduction` "mean" divides the summed loss by the summed
`weight_of` (the weights of the counted elements), a plain mean only without weight and
ignore_index. SoftmaxCrossEntropyLoss is the same on log_softmax(scores) along the class
axis, its optional second output.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.frontend.onnx_node import NodeContext, Value, converter

_REDUCTIONS = ("none", "sum", "mean")


def _negative_log_likelihood(ctx: NodeContext, x: SSAValue) -> SSAValue:
    """The loss of log-probabilities `x` [N, C, d...] for the node's target (input 1), weight
    (input 2, optional), `ignore_index` and `reduction`."""
    reduction = ctx.attr_choice("reduction", "mean", _REDUCTIONS)
    shape, target_shape = ctx.shape(0), ctx.shape(1)
    if len(shape) < 2:
        raise ctx.error(f"input must be [N, C] or [N, C, d1, ..., dk], got shape {list(shape)}")
    n, c, spatial = shape[0], shape[1], list(shape[2:])
    if target_shape != (n, *spatial):
        raise ctx.error(
            f"target has shape {list(target_shape)}; an input of shape {list(shape)} needs "
            f"{[n, *spatial]}"
        )
    index_dtype = ctx.dtype(1)
    if index_dtype not in (np.int32, np.int64):
        raise ctx.error(f"target must be int32 or int64, got {index_dtype}")
    has_weight = ctx.has_input(2)
    if has_weight and ctx.shape(2) != (c,):
        raise ctx.error(f"weight must have shape [{c}] (one per class), got {list(ctx.shape(2))}")
    ignore_index = ctx.attr_int("ignore_index", 0) if ctx.has_attr("ignore_index") else None

    out = ctx.node.output[0]
    dtype = ctx.dtype(0)
    per_class = [c] + [1] * len(spatial)  # broadcasts against [N, C, d...]
    classes = np.arange(c, dtype=index_dtype).reshape(per_class)
    target = ctx.make1(g.ReshapeOp, ctx.tensor(1), shape=[n, 1, *spatial])
    mask = ctx.make1(g.EqualOp, target, ctx.materialize(classes, f"{out}_classes"))
    if ignore_index is not None and 0 <= ignore_index < c:
        counted = (np.arange(c) != ignore_index).reshape(per_class)
        mask = ctx.make1(g.AndOp, mask, ctx.materialize(counted, f"{out}_counted"))
    zero = ctx.materialize(np.array(0, dtype), f"{out}_zero")

    def pick(values: SSAValue) -> SSAValue:
        """values[n, target[n, ...], ...] where counted, else 0: [N, d...]."""
        return ctx.make1(
            g.ReduceSumOp, ctx.make1(g.WhereOp, mask, values, zero), axes=[1], keepdims=0
        )

    loss = pick(x)
    weight_of = None  # the weight of each element, where some element may not count fully
    if has_weight:
        weight_of = pick(ctx.make1(g.ReshapeOp, ctx.tensor(2), shape=per_class))
        loss = ctx.make1(g.MulOp, loss, weight_of)
    elif ignore_index is not None and reduction == "mean":
        weight_of = pick(ctx.materialize(np.array(1, dtype), f"{out}_one"))
    loss = ctx.make1(g.NegOp, loss)

    if reduction == "none":
        return loss
    every_axis = list(range(1 + len(spatial)))
    if reduction == "mean" and weight_of is None:
        return ctx.make1(g.ReduceMeanOp, loss, axes=every_axis, keepdims=0)
    total = ctx.make1(g.ReduceSumOp, loss, axes=every_axis, keepdims=0)
    if reduction == "sum":
        return total
    assert weight_of is not None
    weight_total = ctx.make1(g.ReduceSumOp, weight_of, axes=every_axis, keepdims=0)
    return ctx.make1(g.DivOp, total, weight_total)


@converter("NegativeLogLikelihoodLoss")
def convert_negative_log_likelihood_loss(ctx: NodeContext) -> list[Value]:
    return [_negative_log_likelihood(ctx, ctx.tensor(0))]


@converter("SoftmaxCrossEntropyLoss")
def convert_softmax_cross_entropy_loss(ctx: NodeContext) -> list[Value | None]:
    """log_softmax along the class axis (not log of softmax: no log(0) = -inf for a class far
    below the others), then the NegativeLogLikelihoodLoss of it; output 1 is log_softmax."""
    if ctx.rank(0) < 2:
        raise ctx.error(
            f"scores must be [N, C] or [N, C, d1, ..., dk], got shape {list(ctx.shape(0))}"
        )
    log_prob = ctx.make1(g.LogSoftmaxOp, ctx.tensor(0), axis=1)
    loss = _negative_log_likelihood(ctx, log_prob)
    return [loss, log_prob] if len(ctx.node.output) > 1 else [loss]
