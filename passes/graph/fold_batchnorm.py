"""graph-fold-batchnorm: fold inference batch norms (and per-channel scales and shifts) into
the weights of the conv / gemm / matmul that feeds them.

In inference a batch norm is an affine map per channel c: y = x * f[c] + s[c], with
f = scale / sqrt(var + eps) and s = bias - mean * f. When x is a conv (or a gemm, or a 2-D
matmul by a constant matrix) with constant weights whose result has no other use, the map
folds into the producer at compile time (numpy, in float64, stored in the producer's element type):

    %y = graph.conv %x, %w, %b                    %y = graph.conv %x, %w', %b'
    %z = graph.batch_norm %y, %g, %be, %m, %v  ->   w'[c, ...] = w[c, ...] * f[c]
                                                    b'[c]      = (b[c] - m[c]) * f[c] + be[c]

The same folding applies to a `graph.mul` / `graph.add` / `graph.sub` of such a producer by a
constant that varies along the channel only (Caffe-style models, DenseNet among them, follow
every batch norm by such a "Scale" pair). A batch norm that has no foldable producer but
constant parameters becomes `x * f + s` with f and s constants of shape (C, 1, ..., 1), two
cheap ops that `graph-fuse` then folds into a neighbour's kernel. Non-constant parameters
leave the batch norm alone. The constants the folded ops read are left for `graph-dce`.

MLIR counterpart: none upstream; this is the "fold BN into conv" pass every inference
compiler has (TVM's `SimplifyInference` + `FoldScaleAxis`, ONNX Runtime's ConvBNFusion).
"""

from __future__ import annotations

import re
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
    AddOp,
    BatchNormOp,
    ConstantOp,
    ConvOp,
    GemmOp,
    MatMulOp,
    MulOp,
    SubOp,
    WeightsAttr,
)
from minitvm.dialects.graph.base import Shape, get_float, get_int, is_float, shape_of
from minitvm.dialects.graph.constant import numpy_dtype_of

#: Ops whose result a per-channel affine map can fold into.
Producer = ConvOp | GemmOp | MatMulOp


def _constant(value: SSAValue | None) -> np.ndarray | None:
    if value is None or not isinstance(value.owner, ConstantOp):
        return None
    return value.owner.numpy()


def _hint(value: SSAValue, suffix: str) -> str:
    """A blob name for a folded weight: the original's name (or key stem) plus `suffix`."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, WeightsAttr):
        stem = re.sub(r"_[0-9a-f]{12}$", "", owner.value.key.data)
    else:
        stem = value.name_hint or "w"
    return stem if stem.endswith(suffix) else stem + suffix


def _shape(value: SSAValue) -> Shape:
    assert isinstance(value.type, TensorType)
    return shape_of(value.type)


def _channel_axis(op: Operation) -> int | None:
    """The result dim whose index selects a weight slice of `op` (a conv's output channel, a
    gemm's or matmul's column), when `op` has constant weights a per-channel map can scale
    (float ones: an integer contraction's weights cannot take a factor)."""
    if not is_float(op.results[0].type.element_type):  # type: ignore[attr-defined]
        return None
    if isinstance(op, ConvOp):
        ok = _constant(op.weight) is not None and (op.bias is None or _constant(op.bias) is not None)
        return 1 if ok else None
    if isinstance(op, GemmOp):
        ok = _constant(op.rhs) is not None and (op.bias is None or _constant(op.bias) is not None)
        return 1 if ok else None
    if isinstance(op, MatMulOp):
        # (M, K) @ constant (K, N): column n of the result is column n of the weight.
        ok = len(_shape(op.rhs)) == 2 and len(_shape(op.result)) == 2
        return 1 if ok and _constant(op.rhs) is not None else None
    return None


def _scaled_producer(
    op: Producer, factor: np.ndarray, shift: np.ndarray
) -> tuple[list[Operation], SSAValue]:
    """New ops computing `op`'s result * factor[c] + shift[c] along its channel axis."""
    f64 = np.float64
    dtype = numpy_dtype_of(op.results[0].type.element_type)  # type: ignore[attr-defined]
    new: list[Operation] = []

    def const(array: np.ndarray, like: SSAValue, suffix: str) -> SSAValue:
        value = ConstantOp.from_array(array.astype(dtype), _hint(like, suffix))
        new.append(value)
        return value.result

    if isinstance(op, ConvOp):
        w = _constant(op.weight)
        assert w is not None
        weight = w.astype(f64) * factor.reshape(-1, *[1] * (w.ndim - 1))
        bias = np.zeros_like(factor) if op.bias is None else _constant(op.bias).astype(f64)  # type: ignore[union-attr]
        folded = ConvOp.make(
            op.input, const(weight, op.weight, "_folded"),
            const(bias * factor + shift, op.bias or op.weight, "_bias_folded"),
            **dict(op.properties),
        )  # fmt: skip
        new.append(folded)
        return new, folded.result
    if isinstance(op, GemmOp):
        w = _constant(op.rhs)
        assert w is not None
        trans_b = get_int(op.properties, "trans_b", 0)
        weight = w.astype(f64) * (factor[:, None] if trans_b else factor[None, :])
        beta = get_float(op.properties, "beta", 1.0)
        c = np.zeros(1) if op.bias is None else _constant(op.bias).astype(f64) * beta  # type: ignore[union-attr]
        props = {k: v for k, v in op.properties.items() if k != "beta"}
        folded = GemmOp.make(
            op.lhs, const(weight, op.rhs, "_folded"),
            const(c * factor + shift, op.bias or op.rhs, "_bias_folded"), **props,
        )  # fmt: skip
        new.append(folded)
        return new, folded.result
    w = _constant(op.rhs)
    assert w is not None
    product = MatMulOp.make(op.lhs, const(w.astype(f64) * factor[None, :], op.rhs, "_folded"))
    new.append(product)
    if not np.any(shift):
        return new, product.result
    added = AddOp.make(product.result, const(shift, op.rhs, "_shift"))
    new.append(added)
    return new, added.result


def _fold_into_producer(
    value: SSAValue, user: Operation, factor: np.ndarray, shift: np.ndarray,
    rewriter: PatternRewriter,
) -> bool:
    """Replace `user` (x * factor + shift along dim 1 of `value`) by a scaled producer."""
    producer = value.owner
    if not isinstance(producer, Producer) or _channel_axis(producer) != 1:
        return False
    if not value.has_one_use() or _shape(value) != _shape(user.results[0]):
        return False
    channels = _shape(value)[1]
    factor = np.broadcast_to(factor, (channels,)).astype(np.float64)
    shift = np.broadcast_to(shift, (channels,)).astype(np.float64)
    new, result = _scaled_producer(producer, factor, shift)
    rewriter.replace(user, new, [result])
    rewriter.erase(producer)
    return True


def _batch_norm_affine(op: BatchNormOp) -> tuple[np.ndarray, np.ndarray] | None:
    """(factor, shift) of a batch norm with constant parameters, in float64."""
    params = [_constant(v) for v in (op.scale, op.bias, op.mean, op.variance)]
    if any(p is None for p in params):
        return None
    scale, bias, mean, var = (p.astype(np.float64) for p in params)  # type: ignore[union-attr]
    eps = float(np.float32(get_float(op.properties, "epsilon", 1e-5)))
    factor = scale / np.sqrt(var + eps)
    return factor, bias - mean * factor


def _per_channel(value: SSAValue, like: SSAValue) -> np.ndarray | None:
    """The constant `value` as a vector over dim 1 of `like`, if it broadcasts along that dim
    only (shape (C,1,1), (1,C,1,1), a scalar, ...), else None."""
    array = _constant(value)
    shape = _shape(like)
    if array is None or len(shape) < 2 or array.ndim > len(shape):
        return None
    padded = array.reshape((1,) * (len(shape) - array.ndim) + array.shape)
    if any(size != 1 for d, size in enumerate(padded.shape) if d != 1):
        return None
    if padded.shape[1] not in (1, shape[1]):
        return None
    return padded.reshape(-1).astype(np.float64)


class FoldBatchNormIntoProducerPattern(RewritePattern):
    """batch_norm(conv / gemm / matmul with constant weights) -> the producer, rescaled."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter) -> None:
        if (affine := _batch_norm_affine(op)) is not None:
            _fold_into_producer(op.input, op, *affine, rewriter)


class FoldChannelAffineIntoProducerPattern(RewritePattern):
    """producer * c, producer + c, producer - c with c constant per channel -> the producer,
    rescaled (c may sit on either side of a mul or add)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp | AddOp | SubOp, rewriter: PatternRewriter) -> None:
        sides = [(op.lhs, op.rhs)] + ([(op.rhs, op.lhs)] if not isinstance(op, SubOp) else [])
        for value, other in sides:
            if not isinstance(value.owner, Producer) or (c := _per_channel(other, value)) is None:
                continue
            if isinstance(op, MulOp):
                affine = (c, np.zeros(1))
            else:
                affine = (np.ones(1), -c if isinstance(op, SubOp) else c)
                if isinstance(value.owner, MatMulOp):
                    return  # a matmul has no bias to take the shift: nothing would be saved
            if _fold_into_producer(value, op, *affine, rewriter):
                return


class BatchNormToAffinePattern(RewritePattern):
    """A batch norm with constant parameters that nothing absorbed -> x * f + s."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter) -> None:
        if (affine := _batch_norm_affine(op)) is None:
            return
        shape = (-1, *[1] * (len(_shape(op.input)) - 2))
        dtype = numpy_dtype_of(op.result.type.element_type)  # type: ignore[attr-defined]
        factor, shift = (
            ConstantOp.from_array(a.reshape(shape).astype(dtype), _hint(op.scale, suffix))
            for a, suffix in zip(affine, ("_factor", "_shift"))
        )
        mul = MulOp.make(op.input, factor.result)
        add = AddOp.make(mul.result, shift.result)
        rewriter.replace(op, [factor, shift, mul, add], [add.result])


@dataclass(frozen=True)
class FoldBatchNormPass(ModulePass):
    """Fold batch norms and per-channel affine maps into conv/gemm/matmul weights."""

    name = "graph-fold-batchnorm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([
                FoldBatchNormIntoProducerPattern(),
                FoldChannelAffineIntoProducerPattern(),
                BatchNormToAffinePattern(),
            ])
        ).rewrite_module(op)
