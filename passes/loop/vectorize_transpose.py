"""loop-vectorize-transpose: copy a transpose's tiles through vector registers.

A transpose tile as the transpose schedule template leaves it (`#te.vectorize` on the tile's
output axis d, innermost) is a pair of loops whose body copies one element, read
contiguously along the outer loop s and written contiguously along the inner loop d:

    loop.for %s = 0 to 8 step 1 {
      loop.for %d = 0 to 16 step 1 {
        %v = loop.load %A[.., %d, .., %s] : memref<..xf32> -> f32       (stride 1 along s)
        loop.store %v, %B[.., %s, .., %d] : f32, memref<..xf32>          (stride 1 along d)
      } {vectorize}
    }

loop-vectorize cannot widen d (its loads are a gather, a source line per lane); this pass
copies the whole tile instead: D vector loads of S lanes (one per d, along s), an S x D
register transpose out of `loop.vshuffle`s, S vector stores of D lanes (one per s, along d):

    %a0 = loop.vload %A[.., 0, .., %s0] -> vector<8xf32>     ... 16 loads, one per d
    (32 shuffles: two 8 x 8 transposes, their halves joined)
    loop.vstore %r0, %B[.., 0, .., %d0] : vector<16xf32>     ... 8 stores, one per s

A square n x n transpose takes log2(n) rounds of n shuffles: round k swaps the off-diagonal
k x k blocks of each 2k x 2k block, pairing rows i and i + k (lane j of row i, bit k of j
set, trades with lane j - k of row i + k). A tile of S = 2D (or D = 2S) is two such
squares, split out of (or joined into) whole vectors. On 2-core Zen 4, one thread, NCHW ->
NCHW16c of [1, 64, 56, 56]: 0.079 ms with the template's scalar tile, see the template's
docstring for the vector figure.

What qualifies: the outer loop (no `parallel` hint, no iter_args) holds only the inner one,
marked `vectorize`; both run from 0 by 1 over 4, 8, 16 or 32 iterations; the inner body is
pure index arithmetic, one `loop.load` and one `loop.store` of the loaded value to another
buffer; the load's last index moves by 1 with s and not with d, its other indices do not
move with s; the store's last index moves by 1 with d and not with s, its others do not
move with d. Anything else is left to loop-vectorize. Runs before loop-unroll and
loop-vectorize.
MLIR counterpart: `vector.transpose` lowered by `LowerVectorTranspose` (shuffle strategy).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from minitvm.dialects import loop
from minitvm.dialects.arith_ext import is_pure
from minitvm.dialects.arith_values import constant_int
from minitvm.dialects.index_analysis import combined_stride, linear_in_arguments
from minitvm.passes.loop.vectorize import LANE_COUNTS


class _Strides:
    """How far index values move per step of one loop variable (None: not linearly)."""

    def __init__(self, variable: SSAValue, others: Sequence[SSAValue], extent: int):
        self.variable, self.extent = variable, extent
        self.memo: dict[SSAValue, int | None] = {v: 0 for v in others}
        self.memo[variable] = 1

    def _quotient(self, dividend: SSAValue, divisor: int) -> int | None:
        """The stride of `dividend // divisor`: 0 when the variable's whole range stays
        within one multiple of the divisor. With dividend = a * v + r, r a multiple of m
        (the gcd of its coefficients, its constant and the divisor) and 0 <= a * v < m for
        every v in [0, extent), the quotient is r // divisor throughout: a 4-channel tile
        of NCHW16c, c = 4 * c.o + c.i, reads block c // 16 and lane c % 16 = 4 * (c.o % 4)
        + c.i."""
        form = linear_in_arguments(dividend)
        if form is None:
            return None
        terms, constant = form.terms, form.constant
        a = terms.get(self.variable, 0)
        if a == 0:
            return 0
        m = math.gcd(divisor, constant, *(c for v, c in terms.items() if v != self.variable))
        return 0 if 0 < a and a * (self.extent - 1) < m else None

    def of(self, value: SSAValue) -> int | None:
        if value in self.memo:
            return self.memo[value]
        owner = value.owner
        stride: int | None
        if not isinstance(owner, Operation):
            stride = 0  # an enclosing loop's variable: fixed inside the tile
        elif isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            lhs, rhs = self.of(owner.lhs), self.of(owner.rhs)
            stride = None if lhs is None or rhs is None else combined_stride(owner, lhs, rhs)
        elif isinstance(owner, arith.FloorDivSIOp) and (divisor := constant_int(owner.rhs)):
            stride = self._quotient(owner.lhs, divisor) if divisor > 0 else None
        else:
            moving = [self.of(o) for o in owner.operands]
            stride = 0 if all(m == 0 for m in moving) else None
        self.memo[value] = stride
        return stride


@dataclass
class _Tile:
    outer: loop.ForOp
    inner: loop.ForOp
    load: loop.LoadOp
    store: loop.StoreOp

    @property
    def s(self) -> SSAValue:
        return self.outer.induction_var

    @property
    def d(self) -> SSAValue:
        return self.inner.induction_var


def _only_op(block_ops: Sequence[Operation]) -> Operation | None:
    body = [op for op in block_ops if not isinstance(op, loop.YieldOp)]
    return body[0] if len(body) == 1 else None


def _counts(op: loop.ForOp) -> bool:
    lower, _, step = op.bounds
    return lower == 0 and step == 1 and not op.is_dynamic and op.trip_count in LANE_COUNTS and not op.inits


def match_tile(outer: loop.ForOp) -> _Tile | None:
    """`outer` and its one inner loop as a transpose tile, or None (see the module docstring)."""
    inner = _only_op(list(outer.body.block.ops))
    if not isinstance(inner, loop.ForOp) or loop.VECTORIZE_HINT not in inner.attributes:
        return None
    if loop.PARALLEL_HINT in outer.attributes or not _counts(outer) or not _counts(inner):
        return None
    ops = [op for op in inner.body.block.ops if not isinstance(op, loop.YieldOp)]
    loads = [op for op in ops if isinstance(op, loop.LoadOp)]
    stores = [op for op in ops if isinstance(op, loop.StoreOp)]
    if len(loads) != 1 or len(stores) != 1:
        return None
    load, store = loads[0], stores[0]
    if store.value != load.result or store.buffer == load.buffer or not load.result.has_one_use():
        return None
    if any(not is_pure(op) for op in ops if op not in (load, store)):
        return None
    s, d = outer.induction_var, inner.induction_var
    along_s = _Strides(s, [d], outer.trip_count)
    along_d = _Strides(d, [s], inner.trip_count)
    *load_rest, load_last = load.indices
    *store_rest, store_last = store.indices
    if (along_s.of(load_last), along_d.of(load_last)) != (1, 0):
        return None
    if (along_d.of(store_last), along_s.of(store_last)) != (1, 0):
        return None
    if any(along_s.of(i) != 0 for i in load_rest) or any(along_d.of(i) != 0 for i in store_rest):
        return None
    return _Tile(outer, inner, load, store)


class _Emitter:
    """Appends ops before the tile, keeping index constants and copies of the index math."""

    def __init__(self, tile: _Tile, rewriter: PatternRewriter):
        self.tile, self.rewriter = tile, rewriter
        self.point = InsertPoint.before(tile.outer)

    def emit(self, op: Operation) -> Operation:
        self.rewriter.insert(op, self.point)
        return op

    def index(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp(IntegerAttr(value, IndexType()))).results[0]

    def indices_at(self, access: loop.LoadOp | loop.StoreOp, s: int, d: int) -> list[SSAValue]:
        """`access`'s indices at s = `s`, d = `d`: the inner body's index math, copied."""
        mapping: dict[SSAValue, SSAValue] = {self.tile.s: self.index(s), self.tile.d: self.index(d)}
        for op in self.tile.inner.body.block.ops:
            if op is self.tile.load or op is self.tile.store or isinstance(op, loop.YieldOp):
                continue
            self.emit(op.clone(value_mapper=mapping))
        return [mapping.get(i, i) for i in access.indices]

    def shuffle(self, a: SSAValue, b: SSAValue, mask: Sequence[int]) -> SSAValue:
        return self.emit(loop.VectorShuffleOp(a, b, mask)).results[0]


def transpose_square(rows: list[SSAValue], shuffle) -> list[SSAValue]:
    """The n x n transpose of n vectors of n lanes (n a power of two), in log2(n) rounds."""
    n = len(rows)
    rows = list(rows)
    k = 1
    while k < n:
        low = [j if j & k == 0 else n + j - k for j in range(n)]
        high = [j + k if j & k == 0 else n + j for j in range(n)]
        for i in range(n):
            if i & k == 0:
                a, b = rows[i], rows[i + k]
                rows[i], rows[i + k] = shuffle(a, b, low), shuffle(a, b, high)
        k *= 2
    return rows


def transpose(vectors: list[SSAValue], lanes: int, shuffle) -> list[SSAValue]:
    """`len(vectors)` vectors of `lanes` lanes -> `lanes` vectors of `len(vectors)` lanes,
    out[u][t] = vectors[t][u]: squares of the smaller size, split or joined."""
    count = len(vectors)
    n = min(count, lanes)
    if lanes > count:  # each source vector holds lanes // n squares side by side
        out: list[SSAValue] = []
        for part in range(lanes // n):
            piece = list(range(part * n, (part + 1) * n))
            out += transpose_square([shuffle(v, v, piece) for v in vectors], shuffle)
        return out
    squares = [transpose_square(vectors[p * n : (p + 1) * n], shuffle) for p in range(count // n)]
    joined = []
    for u in range(lanes):
        parts = [square[u] for square in squares]
        while len(parts) > 1:
            width = 2 * n * (count // n) // len(parts)
            parts = [shuffle(a, b, range(width)) for a, b in zip(parts[::2], parts[1::2])]
        joined.append(parts[0])
    return joined


class VectorizeTransposePattern(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: loop.ForOp, rewriter: PatternRewriter) -> None:
        tile = match_tile(op)
        if tile is None:
            return
        emitter = _Emitter(tile, rewriter)
        lanes_s, lanes_d = op.trip_count, tile.inner.trip_count
        columns = []
        for d in range(lanes_d):
            indices = emitter.indices_at(tile.load, 0, d)
            columns.append(emitter.emit(loop.VectorLoadOp(tile.load.buffer, indices, lanes_s)).results[0])
        rows = transpose(columns, lanes_s, emitter.shuffle)
        for s, row in enumerate(rows):
            indices = emitter.indices_at(tile.store, s, 0)
            emitter.emit(loop.VectorStoreOp(row, tile.store.buffer, indices))
        rewriter.erase(op)


@dataclass(frozen=True)
class VectorizeTransposePass(ModulePass):
    """Copy transpose tiles through registers (see the module docstring)."""

    name = "loop-vectorize-transpose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(VectorizeTransposePattern()).rewrite_module(op)
