"""Lowering rules of the Winograd transforms (`dialects/graph/winograd.py`): one compute each,
whose body is the transform's few nonzero terms for the output element's tile position.

A row u of B^T (or A^T) has few nonzero entries: for F(2x2, 3x3) B^T's rows two, A^T's
three; for F(4x4, 3x3) up to four and five. So the position's value is a sum over slots
(the k-th nonzero of each row) rather than over the whole patch, nested by rows:

    v[t, p, c] = sum over slots a of coef_a(u) * (sum over slots b of coef_b(v) * d_p[col_a(u), col_b(v), c])

with (u, v) = (t // patch, t % patch), col_a(u) the column of row u's a-th nonzero entry and
coef_a(u) its value. `col` and `coef` are index functions, written as the affine function
they are where they are one (A^T's columns are u + a) and as a short select chain
otherwise; either way they depend on the position only, so the vector loop over channels
sees them as constants and reads, for F(2x2, 3x3), 4 (input) or 9 (output) vectors per
position instead of 16. The nesting is for F(4x4, 3x3), whose schedules unroll u inside a
loop over v (`schedules/winograd.py`): the unrolled copies reading the same row share its
inner sum.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import IndexType, StringAttr
from xdsl.ir import Attribute

from minitvm.dialects import graph, te
from minitvm.dialects.graph.base import get_int, get_ints
from minitvm.dialects.graph.winograd import rows_of, tile_grid, tile_of, transforms
from minitvm.dialects.te_expr import Expr, Tensor, const, minimum, select
from minitvm.lowering.graph_to_te.kernel_builder import KernelBuilder, lowering
from minitvm.lowering.graph_to_te.nn import _affine, _guarded_read, _result_shape

Index = Expr | int
Scalar = Expr | float


def _slots(matrix: np.ndarray) -> list[tuple[list[int], list[float]]]:
    """Per slot k, the column and value of each row's k-th nonzero entry (a row with fewer
    nonzeros repeats its last column with value 0)."""
    rows = [[(c, float(v)) for c, v in enumerate(row) if v != 0] for row in matrix]
    width = max(len(r) for r in rows)
    slots = []
    for k in range(width):
        entries = [r[k] if k < len(r) else (r[-1][0], 0.0) for r in rows]
        slots.append(([c for c, _ in entries], [v for _, v in entries]))
    return slots


def _table(row: Expr, values: Sequence[float], type_: Attribute) -> Expr | float:
    """values[row] as an expression of the index `row` (of type `type_`): a Python number
    where all are equal, an affine function of row where the values are one (for an index),
    else the most common value, replaced by a select for the rows of each other value."""
    first = values[0]
    if all(v == first for v in values):
        return first
    step = values[1] - values[0]
    if isinstance(type_, IndexType) and all(v == first + step * r for r, v in enumerate(values)):
        return _affine(int(first), (row, int(step)))
    counts = Counter(values)
    default = max(counts, key=lambda v: (counts[v], -values.index(v)))
    value = const(default, type_)
    for other in dict.fromkeys(v for v in values if v != default):
        rows = [r for r, v in enumerate(values) if v == other]
        condition = row.eq(rows[0])
        for r in rows[1:]:
            condition = condition | row.eq(r)
        value = select(condition, const(other, type_), value)
    return value


def _times(coefficient: Scalar, value: Expr) -> Expr | None:
    """coefficient * value, without multiplying by +-1 (None for a coefficient of 0)."""
    if not isinstance(coefficient, Expr):
        if coefficient == 0:
            return None
        if abs(coefficient) == 1:
            return value if coefficient > 0 else -value
    return value * coefficient


def _sum(terms: Sequence[Expr | None], element_type: Attribute) -> Expr:
    present = [t for t in terms if t is not None]
    total = present[0] if present else const(0.0, element_type)
    for term in present[1:]:
        total = total + term
    return total


def _transform(
    matrix: np.ndarray,
    u: Expr,
    v: Expr,
    element_type: Attribute,
    read: Callable[[Index, Index], Expr],
) -> Expr:
    """(matrix d matrix^T)[u, v], d[row, col] being `read(row, col)`, as the nested sum
    sum_a coef_a(u) * (sum_b coef_b(v) * d[col_a(u), col_b(v)]): the inner sums depend on
    u only through the row they read, so where v is a loop and u unrolled (F(4x4, 3x3)'s
    input transform), the copies for positions that read the same row share them (LLVM's
    GVN finds them), making the 2-D transform the two 1-D ones it is."""
    index = IndexType()
    slots = _slots(matrix)
    rows_u = [(_table(u, cols, index), _table(u, coefs, element_type)) for cols, coefs in slots]
    rows_v = [(_table(v, cols, index), _table(v, coefs, element_type)) for cols, coefs in slots]
    outer = []
    for col_u, coef_u in rows_u:
        inner = [_times(coef_v, read(col_u, col_v)) for col_v, coef_v in rows_v]
        outer.append(_times(coef_u, _sum(inner, element_type)))
    return _sum(outer, element_type)


def _flat(row: Index, col: Index, patch: int) -> Index:
    """The position row * patch + col of a transformed tile."""
    if not isinstance(row, Expr) and not isinstance(col, Expr):
        return int(row) * patch + int(col)
    offset = sum(int(x) * s for x, s in ((row, patch), (col, 1)) if not isinstance(x, Expr))
    return _affine(offset, *((x, s) for x, s in ((row, patch), (col, 1)) if isinstance(x, Expr)))


@lowering(graph.WinogradInputOp)
def _winograd_input(kb: KernelBuilder, op: graph.WinogradInputOp, x: Tensor) -> list[Tensor]:
    """v[t, p, c] = (B^T d_p B)[t // patch, t % patch] for channel c of tile p's patch d_p:
    rows m * i - top + (0 .. patch-1) and columns m * j - left + (0 .. patch-1) of image n,
    p = (n * th + i) * tw + j, for tiles of m x m. Reads outside the input are zeros, and so
    are the rows past the last tile."""
    n_images, *_, block = x.shape
    top, left = get_ints(op.properties, "pads")
    tf = transforms(tile_of(op.properties))
    m, patch = tf.tile, tf.patch
    th, tw = tile_grid(*get_ints(op.properties, "output"), m)
    tiles = n_images * th * tw
    rows = rows_of(op.properties)
    ranges = {
        2: (-top, m * (th - 1) + patch - 1 - top),
        3: (-left, m * (tw - 1) + patch - 1 - left),
    }

    def body(t: Expr, p: Expr, c: Expr) -> Expr:
        n = p // (th * tw)
        if rows > tiles:
            n = minimum(n, n_images - 1)
        i, j = p // tw % th, p % tw
        h0, w0 = _affine(-top, (i, m)), _affine(-left, (j, m))

        def read(col_h: Index, col_w: Index) -> Expr:
            index = [n, c // block, h0 + col_h, w0 + col_w, c % block]
            return _guarded_read(x, index, 0.0, ranges)

        value = _transform(tf.input, t // patch, t % patch, x.element_type, read)
        return value if rows == tiles else select(p < tiles, value, 0.0)

    return [_marked(kb.compute(_result_shape(op), x.element_type, body), "input")]


@lowering(graph.WinogradOutputOp)
def _winograd_output(
    kb: KernelBuilder, op: graph.WinogradOutputOp, m: Tensor, bias: Tensor | None = None
) -> list[Tensor]:
    """y[n, ko, oh, ow, ki] = (A^T m_p A)[oh % s, ow % s] at channel k = ko * block + ki of
    tile p = (n * th + oh // s) * tw + ow // s, plus bias[k], for tiles of s x s."""
    _, height, width = get_ints(op.properties, "output")
    block = get_int(op.properties, "block")
    tf = transforms(tile_of(op.properties))
    s = tf.tile
    th, tw = tile_grid(height, width, s)

    def body(n: Expr, ko: Expr, oh: Expr, ow: Expr, ki: Expr) -> Expr:
        p = _affine(0, (n, th * tw), (oh // s, tw), (ow // s, 1))
        k = _affine(0, (ko, block), (ki, 1))
        value = _transform(
            tf.output, oh % s, ow % s, m.element_type,
            lambda row, col: m[_flat(row, col, tf.patch), p, k],
        )  # fmt: skip
        return value if bias is None else value + bias[k]

    return [_marked(kb.compute(_result_shape(op), m.element_type, body), "output")]


def _marked(tensor: Tensor, transform: str) -> Tensor:
    """`tensor`, its compute marked as the Winograd `transform` for its schedule template."""
    compute = tensor.value.owner
    assert isinstance(compute, te.ComputeOp)
    compute.attributes[te.WINOGRAD_ATTR] = StringAttr(transform)
    return tensor
