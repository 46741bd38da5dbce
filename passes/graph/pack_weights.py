"""graph-pack-weights: GEMMs on weights packed in column panels.

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

Tails: an N that no panel divides (a language model's head: 64 x 768 @ 768 x 50257) is
packed with zero columns to whole panels, and the product keeps its N columns
(`graph.matmul_packed {columns = 50257}`): the GEMM template's last column block is then
shorter (785 blocks of 64 columns, then one vector and one column), so neither the padding
nor a slice of it costs anything at run time. A run-time B of such an N is packed by ops that
run with the model (`graph.pad`, `graph.reshape`, `graph.transpose`: one injective kernel)
when the product has at least RUNTIME_PACK_ROWS rows; fewer do not pay for the copy.

Measured (AMD EPYC Zen 4, one thread; C = A @ B, both run-time inputs): 1000^3 34.8 -> 100.6
GFLOP/s, 256 x 256 @ 256 x 250 53.9 -> 98.8, 1001 x 512 @ 512 x 512 44.6 -> 105.6, 33 x 512
@ 512 x 512 44.2 -> 94.7; GPT-2's head (constant B) 572 ms on the reduction template, 46.6 ms
padded to 64-column blocks and sliced (51.4 + 0.7 ms on a later, noisier run), 50.8 ms with
its own N. Products of 1-3 rows whose N no panel divides are left alone (matrix-vector
products, a classifier's, are the reduction template's, which blocks their columns itself),
and so are Gemms of such shapes.
A run-time B of whole panels is packed from WHOLE_PACK_ROWS rows: where the GEMM's column
blocks are one cache line wide (AVX2) it pays from 32 rows, with AVX-512's four-line blocks
only in the largest products (see WHOLE_PACK_ROWS).
MLIR counterpart: none upstream (IREE's data tiling packs weights the same way); TVM's x86
`dense_pack`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import BlockArgument, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from minitvm.dialects.graph import (
    AddOp,
    ConstantOp,
    GemmOp,
    MatMulOp,
    MatMulPackedOp,
    PadOp,
    ReshapeOp,
    TransposeOp,
)
from minitvm.dialects.graph.base import get_float, get_int, is_static, shape_of
from minitvm.schedules.gemm import COLUMN_BLOCKS, SHORT_ROWS, widest_columns

#: Columns per panel: one 512-bit vector of f32, the unit the GEMM template's column blocks
#: are made of (`schedules.base.LANES`).
PANEL = 16

def padded_columns(n: int) -> int:
    """N rounded up to whole panels."""
    return -(-n // PANEL) * PANEL


def pack_panels(b: np.ndarray, panel: int = PANEL) -> np.ndarray:
    """[..., K, N] -> [..., N'/panel, K, panel] for N' = padded_columns(N): b[..., k, n]
    lands at [..., n // panel, k, n % panel]; the columns past N are zeros."""
    *batch, k, n = b.shape
    padded = padded_columns(n)
    if padded != n:
        b = np.concatenate([b, np.zeros((*batch, k, padded - n), dtype=b.dtype)], axis=-1)
    rank = len(batch)
    order = (*range(rank), rank + 1, rank, rank + 2)
    return np.ascontiguousarray(b.reshape(*batch, k, padded // panel, panel).transpose(order))


#: Rows from which packing a run-time rhs pays: each packed panel then serves at least 8
#: register blocks. On 512 x 500 @ 16 and 64 rows (AMD EPYC Zen 4, one thread): 0.190 ->
#: 0.220 ms (the copy costs more than it gains) and 0.726 -> 0.464 ms.
RUNTIME_PACK_ROWS = 8 * SHORT_ROWS

#: Rows from which a run-time B of whole panels is packed too. The GEMM reads cols x 4 bytes
#: of each row of B per step, rows N x 4 bytes apart. With AVX2's 16-column blocks that is
#: one cache line per row, and packing pays from RUNTIME_PACK_ROWS (AMD EPYC Zen 4, AVX-512
#: masked out, one thread: 32 x 1024 @ 1024 x 1024 34.8 -> 63.2 GFLOP/s, 64 rows 34.1 ->
#: 91.3, 512^3 84.5 -> 103.2). AVX-512's 64-column blocks read four lines per row, and
#: packing gains about what the copy costs (same machine: 64 x 1024 @ 1024 x 1024 1.37 ->
#: 1.63 ms, 128 rows 2.70 -> 2.86, 512^3 2.41 -> 2.46, 1024^3 19.9 both ways): from 512
#: rows on, where the copy is at most 2% of the product.
WHOLE_PACK_ROWS = RUNTIME_PACK_ROWS if widest_columns(SHORT_ROWS) != COLUMN_BLOCKS[0] else 128 * SHORT_ROWS


def _constant(array: np.ndarray, hint: str) -> ConstantOp:
    op = ConstantOp.from_array(array, hint)
    op.result.name_hint = hint
    return op


def _after_definition(value: SSAValue) -> InsertPoint:
    """Right after `value` is defined (the start of its block for an argument): a point that
    dominates every use of it."""
    if isinstance(value, BlockArgument):
        return InsertPoint.at_start(value.block)
    assert isinstance(value, OpResult)
    return InsertPoint.after(value.op)


class _Made:
    """What this pass made so far, so that operands several products share are packed or
    padded once: packed constants by (weights, scale), ops by (value, what was done). Each
    goes right after the value it is made from, which dominates all its users."""

    def __init__(self) -> None:
        self.constants: dict[tuple[ConstantOp, float], ConstantOp] = {}
        self.values: dict[tuple[SSAValue, str], SSAValue] = {}

    def panels(
        self, weights: ConstantOp, rewriter: PatternRewriter, scale: float = 1.0
    ) -> SSAValue:
        """`scale * weights` packed (`pack_panels`), as a constant."""
        packed = self.constants.get((weights, scale))
        if packed is None:
            w = weights.numpy()
            if scale != 1.0:
                w = w * w.dtype.type(scale)
            packed = _constant(pack_panels(w), f"{weights.result.name_hint or 'w'}_packed")
            rewriter.insert(packed, InsertPoint.after(weights))
            self.constants[(weights, scale)] = packed
        return packed.result

    def padded(self, value: SSAValue, dim: int, size: int, rewriter: PatternRewriter) -> SSAValue:
        """`value` with zeros appended along `dim` up to `size` (graph.pad; itself if it has
        that size already)."""
        assert isinstance(value.type, TensorType)
        shape = value.type.get_shape()
        rank, dim = len(shape), dim % len(shape)
        if shape[dim] == size:
            return value
        key = (value, f"pad {dim} {size}")
        if key not in self.values:
            pads = [0] * (2 * rank)
            pads[rank + dim] = size - shape[dim]
            pad = PadOp.make(value, pads=pads)
            pad.result.name_hint = f"{value.name_hint}_padded" if value.name_hint else None
            rewriter.insert(pad, _after_definition(value))
            self.values[key] = pad.result
        return self.values[key]

    def packed_at_run_time(self, rhs: SSAValue, rewriter: PatternRewriter) -> SSAValue:
        """rhs [K, N] packed by ops that run with the model: zero columns up to
        `padded_columns(N)` (graph.pad), [K, P, PANEL] (graph.reshape), [P, K, PANEL]
        (graph.transpose). graph-fuse makes the reshape and transpose one injective kernel."""
        key = (rhs, "panels")
        if key not in self.values:
            assert isinstance(rhs.type, TensorType)
            k, n = rhs.type.get_shape()
            panels = padded_columns(n) // PANEL
            padded = self.padded(rhs, 1, panels * PANEL, rewriter)
            reshape = ReshapeOp.make(padded, shape=[k, panels, PANEL])
            transpose = TransposeOp.make(reshape.result, perm=[1, 0, 2])
            transpose.result.name_hint = f"{rhs.name_hint or 'b'}_packed"
            rewriter.insert([reshape, transpose], _after_definition(padded))
            self.values[key] = transpose.result
        return self.values[key]


def _rows(value: SSAValue) -> int:
    """The rows of a product's lhs: every dimension but the last (a batch of matrices counts
    as one tall matrix: the packed panel serves them all)."""
    assert isinstance(value.type, TensorType)
    return int(np.prod(value.type.get_shape()[:-1]))


def _product(lhs: SSAValue, packed: SSAValue, columns: int) -> MatMulPackedOp:
    """lhs times the packed rhs, to its `columns` columns (the last panel's padding left out)."""
    return MatMulPackedOp.make(lhs, packed, columns=None if columns % PANEL == 0 else columns)


class MatMulPackPattern(RewritePattern):
    """matmul(x, w) of a [K, N] w of more than one panel (or a constant batch of them,
    [..., K, N]), in one of two ways:

    - a constant w is packed at compile time (its columns padded to whole panels);
    - a run-time w whose N no panel divides is packed by ops that run with the model, if x
      has at least RUNTIME_PACK_ROWS rows (fewer do not pay for the copy);

    The product keeps N columns; x's rows are never padded either: the GEMM template runs
    the rows and columns its register blocks leave as shorter blocks."""

    def __init__(self, made: _Made):
        self.made = made

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatMulOp, rewriter: PatternRewriter) -> None:
        lhs, rhs = op.lhs, op.rhs
        assert isinstance(lhs.type, TensorType) and isinstance(rhs.type, TensorType)
        lhs_shape, rhs_shape = shape_of(lhs.type), shape_of(rhs.type)
        weights = rhs.owner
        batched = len(rhs_shape) > 2 and isinstance(weights, ConstantOp)
        if not is_static(rhs.type) or len(lhs_shape) < 2 or not (len(rhs_shape) == 2 or batched):
            return
        if rhs_shape[-1] <= PANEL:
            return
        rows, columns = lhs_shape[-2], rhs_shape[-1]
        if not is_static(lhs.type):
            # Rows known only at run time: a constant rhs is packed (a run-time pack would
            # need their number to know whether it pays).
            if isinstance(weights, ConstantOp):
                product = _product(lhs, self.made.panels(weights, rewriter), columns)
                rewriter.replace(op, product)
            return
        tall = rows >= SHORT_ROWS  # rows a register block can cover
        whole = columns % PANEL == 0
        packed: SSAValue | None = None
        if isinstance(weights, ConstantOp):
            if whole or tall:
                packed = self.made.panels(weights, rewriter)
        elif tall and _rows(lhs) >= (RUNTIME_PACK_ROWS if not whole else WHOLE_PACK_ROWS):
            packed = self.made.packed_at_run_time(rhs, rewriter)
        if packed is not None:
            rewriter.replace(op, _product(lhs, packed, columns))


class GemmPackPattern(RewritePattern):
    """gemm(x, constant w, c) -> matmul_packed(x, packed alpha * w), + beta * c (for an N
    that no panel divides, from SHORT_ROWS rows, as graph.matmul's)."""

    def __init__(self, made: _Made):
        self.made = made

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GemmOp, rewriter: PatternRewriter) -> None:
        props = op.properties
        if get_int(props, "trans_a", 0) or get_int(props, "trans_b", 0):
            return
        weights = op.rhs.owner
        rhs_shape = op.rhs.type.get_shape()  # type: ignore[attr-defined]
        if not isinstance(weights, ConstantOp) or rhs_shape[1] <= PANEL:
            return
        if rhs_shape[1] % PANEL and not (is_static(op.lhs.type) and _rows(op.lhs) >= SHORT_ROWS):
            return  # a matrix-vector product: the reduction template's
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
        product = _product(op.lhs, self.made.panels(weights, rewriter, alpha), rhs_shape[1])
        if bias is None:
            rewriter.replace(op, product)
            return
        total = AddOp.make(product.result, bias)
        rewriter.replace(op, [product, total], [total.result])


@dataclass(frozen=True)
class PackWeightsPass(ModulePass):
    name = "graph-pack-weights"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        made = _Made()
        patterns = [MatMulPackPattern(made), GemmPackPattern(made)]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
