"""graph-pack-weights: give GEMMs with constant weights their weights packed in column panels.

A register-blocked GEMM (`schedules/gemm.py`) reads, at each step k, one row
segment of B per column vector of its block. In B's own [K, N] layout consecutive steps are N
floats apart; for N = 1024 that is 4 KiB, so every row lands in the same L1 set and the block's
B panel keeps evicting itself. Packed as [N/16, K, 16] (panel p holds columns 16p..16p+15,
row after row), the block's columns are a few contiguous streams instead. When B is a
constant, packing it once at compile time is free:

    %y = graph.matmul %x, %w : (tensor<64x1024xf32>, tensor<1024x1024xf32>) -> tensor<64x1024xf32>
  becomes
    %wp = graph.constant ... : tensor<64x1024x16xf32>          (w packed, folded now)
    %y = graph.matmul_packed %x, %wp : (tensor<64x1024xf32>, tensor<64x1024x16xf32>) -> ...

Measured on 64x1024 @ 1024x1024, one thread, 4 x 64 register block: 1.33 ms (101 GFLOP/s)
plain, 1.20 ms (112 GFLOP/s, 96% of this core's peak) packed.

A `graph.gemm` with a constant B (already untransposed by `graph-fold-weight-layout`) and no
transposed A becomes `graph.matmul_packed` followed by a `graph.add` of its bias, which fusion
folds back into the kernel; alpha is folded into the packed weights, beta into a constant
bias. A weight several GEMMs read (at the same alpha) is packed once. Matrices of one panel
(N = 16) are already packed. This runs after batch-norm folding, which folds into
graph.matmul and graph.gemm only.

A `graph.matmul` whose N no panel divides (a language model's head: 64 x 768 @ 768 x 50257)
has its weights padded with zero columns to whole panels, and the padding sliced off the
product: the register-blocked GEMM then covers it (the GEMM template needs a column block
that divides N; without one the product ran on the reduction template, at 9 GFLOP/s
against 100 on this shape, AMD EPYC Zen 4, one thread). Only products whose row count the
GEMM's default block height (4) divides are padded: others would get one-row blocks, and
matrix-vector products (a classifier's) are the reduction template's, which blocks their
columns itself. Gemms are not padded.
MLIR counterpart: none upstream (IREE's data tiling packs weights the same way); TVM's x86
`dense_pack`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from minitvm.dialects.graph import AddOp, ConstantOp, GemmOp, MatMulOp, MatMulPackedOp, SliceOp
from minitvm.dialects.graph.base import get_float, get_int
from minitvm.schedules.gemm import ROW_BLOCKS

#: Columns per panel: one 512-bit vector of f32, the unit the GEMM template's column blocks
#: are made of (`schedules.base.LANES`).
PANEL = 16


def pack_panels(b: np.ndarray, panel: int = PANEL) -> np.ndarray:
    """[K, N] -> [ceil(N/panel), K, panel]: b[k, n] lands at [n // panel, k, n % panel]; the
    last panel's columns past N are zeros."""
    k, n = b.shape
    padded = -(-n // panel) * panel
    if padded != n:
        b = np.concatenate([b, np.zeros((k, padded - n), dtype=b.dtype)], axis=1)
    return np.ascontiguousarray(b.reshape(k, padded // panel, panel).transpose(1, 0, 2))


#: Rows that a padded product's M must be a multiple of: the GEMM template's tallest default
#: block, so that the padded product gets a register block taller than one row (a 37-row or
#: 2-row product keeps the reduction template's order).
PAD_ROWS = ROW_BLOCKS[0]


def _packable(lhs: SSAValue, rhs: SSAValue, pad: bool = False) -> ConstantOp | None:
    """rhs's constant op if `lhs @ rhs` can run on rhs packed: a matrix lhs (or a batch of
    them) and a constant [K, N] rhs of more than one panel, N a whole number of panels unless
    `pad` (then lhs's row count must be a multiple of PAD_ROWS)."""
    owner = rhs.owner
    if not isinstance(owner, ConstantOp):
        return None
    assert isinstance(lhs.type, TensorType) and isinstance(rhs.type, TensorType)
    rows, shape = lhs.type.get_shape(), rhs.type.get_shape()
    if len(rows) < 2 or len(shape) != 2 or shape[1] <= PANEL:
        return None
    if shape[1] % PANEL and not (pad and rows[-2] % PAD_ROWS == 0):
        return None
    return owner


def _constant(array: np.ndarray, hint: str) -> ConstantOp:
    op = ConstantOp.from_array(array, hint)
    op.result.name_hint = hint
    return op


class _Packed:
    """The packed constants made so far, one per (weights, scale): a weight several GEMMs
    share is packed once. Each goes right after its weights' constant, which dominates every
    GEMM that reads them."""

    def __init__(self) -> None:
        self.made: dict[tuple[ConstantOp, float], ConstantOp] = {}

    def product(
        self, lhs: SSAValue, weights: ConstantOp, rewriter: PatternRewriter, scale: float = 1.0
    ) -> MatMulPackedOp:
        """`lhs @ (scale * weights)` on the weights packed."""
        packed = self.made.get((weights, scale))
        if packed is None:
            w = weights.numpy()
            if scale != 1.0:
                w = w * w.dtype.type(scale)
            packed = _constant(pack_panels(w), f"{weights.result.name_hint or 'w'}_packed")
            rewriter.insert(packed, InsertPoint.after(weights))
            self.made[(weights, scale)] = packed
        return MatMulPackedOp.make(lhs, packed.result)


class MatMulPackPattern(RewritePattern):
    """matmul(x, constant w) -> matmul_packed(x, packed w)."""

    def __init__(self, packed: _Packed):
        self.packed = packed

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatMulOp, rewriter: PatternRewriter) -> None:
        weights = _packable(op.lhs, op.rhs, pad=True)
        if weights is None:
            return
        product = self.packed.product(op.lhs, weights, rewriter)
        shape = op.result.type.get_shape()  # type: ignore[attr-defined]
        if tuple(product.result.type.get_shape()) == tuple(shape):  # type: ignore[attr-defined]
            rewriter.replace(op, product)
            return
        rank = len(shape)
        columns = SliceOp.make(
            product.result, starts=[0] * rank, ends=list(shape), steps=[1] * rank
        )
        rewriter.replace(op, [product, columns], [columns.result])


class GemmPackPattern(RewritePattern):
    """gemm(x, constant w, c) -> matmul_packed(x, packed alpha * w), + beta * c."""

    def __init__(self, packed: _Packed):
        self.packed = packed

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GemmOp, rewriter: PatternRewriter) -> None:
        props = op.properties
        if get_int(props, "trans_a", 0) or get_int(props, "trans_b", 0):
            return
        weights = _packable(op.lhs, op.rhs)
        if weights is None:
            return
        alpha, beta = get_float(props, "alpha", 1.0), get_float(props, "beta", 1.0)
        bias: SSAValue | None = op.bias if beta != 0.0 else None
        if bias is not None and beta != 1.0:
            owner = bias.owner
            if not isinstance(owner, ConstantOp):
                return  # beta * c would be one more op; leave the gemm as it is
            c = owner.numpy()
            scaled = _constant(c * c.dtype.type(beta), f"{bias.name_hint or 'c'}_scaled")
            rewriter.insert(scaled)
            bias = scaled.result
        product = self.packed.product(op.lhs, weights, rewriter, alpha)
        if bias is None:
            rewriter.replace(op, product)
            return
        total = AddOp.make(product.result, bias)
        rewriter.replace(op, [product, total], [total.result])


@dataclass(frozen=True)
class PackWeightsPass(ModulePass):
    name = "graph-pack-weights"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        packed = _Packed()
        PatternRewriteWalker(
            GreedyRewritePatternApplier([MatMulPackPattern(packed), GemmPackPattern(packed)])
        ).rewrite_module(op)
