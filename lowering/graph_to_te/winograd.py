"""Lowering rules of the Winograd transforms (`dialects/graph/winograd.py`): one compute each,
whose body is the transform's few nonzero terms for the output element's tile position.

A row u of B^T (or A^T) has few nonzero entries: B^T's rows two, A^T's three. So the
position's value is a sum over slots (the k-th nonzero of each row) rather than over the whole
patch:

    v[t, p, c] = sum over slots a, b of  coef_a(u) * coef_b(v) * d_p[col_a(u), col_b(v), c]

with (u, v) = (t // 4, t % 4), col_a(u) the column of row u's a-th nonzero entry and coef_a(u)
its value. `col` and `coef` are index functions, written as the affine function they are where
they are one (A^T's columns are u + a) and as a short select chain otherwise; either way they
depend on the position only, so the vector loop over channels sees them as constants and
reads 4 (input) or 9 (output) vectors per position instead of 16.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IndexType, StringAttr
from xdsl.ir import Attribute

from minitvm.dialects import graph, te
from minitvm.dialects.graph.base import get_int, get_ints
from minitvm.dialects.graph.winograd import (
    INPUT_TRANSFORM,
    OUTPUT_TRANSFORM,
    PATCH,
    TILE,
    rows_of,
    tile_grid,
)
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


def _product(a: Scalar, b: Scalar) -> Scalar:
    """a * b, folded where either is a number."""
    if not isinstance(a, Expr) and not isinstance(b, Expr):
        return a * b
    if not isinstance(a, Expr):
        return b if a == 1 else b * a
    if not isinstance(b, Expr):
        return a if b == 1 else a * b
    return a * b


def _transform_terms(
    matrix: np.ndarray, u: Expr, v: Expr, element_type: Attribute
) -> list[tuple[Index, Index, Scalar]]:
    """(column for u, column for v, coefficient) of each term of the 2-D transform
    (matrix d matrix^T)[u, v]."""
    slots = _slots(matrix)
    index = IndexType()
    rows_u = [(_table(u, cols, index), _table(u, coefs, element_type)) for cols, coefs in slots]
    rows_v = [(_table(v, cols, index), _table(v, coefs, element_type)) for cols, coefs in slots]
    return [
        (col_u, col_v, _product(coef_u, coef_v))
        for col_u, coef_u in rows_u
        for col_v, coef_v in rows_v
    ]


def _flat(row: Index, col: Index) -> Index:
    """The position row * PATCH + col of a transformed tile."""
    if not isinstance(row, Expr) and not isinstance(col, Expr):
        return int(row) * PATCH + int(col)
    offset = sum(int(x) * s for x, s in ((row, PATCH), (col, 1)) if not isinstance(x, Expr))
    return _affine(offset, *((x, s) for x, s in ((row, PATCH), (col, 1)) if isinstance(x, Expr)))


@lowering(graph.WinogradInputOp)
def _winograd_input(kb: KernelBuilder, op: graph.WinogradInputOp, x: Tensor) -> list[Tensor]:
    """v[t, p, c] = (B^T d_p B)[t // 4, t % 4] for channel c of tile p's patch d_p: rows
    2 * i - top + (0..3) and columns 2 * j - left + (0..3) of image n, p = (n * th + i) * tw
    + j. Reads outside the input are zeros, and so are the rows past the last tile."""
    n_images, *_, block = x.shape
    top, left = get_ints(op.properties, "pads")
    th, tw = tile_grid(*get_ints(op.properties, "output"))
    tiles = n_images * th * tw
    rows = rows_of(op.properties)
    ranges = {
        2: (-top, TILE * (th - 1) + PATCH - 1 - top),
        3: (-left, TILE * (tw - 1) + PATCH - 1 - left),
    }

    def body(t: Expr, p: Expr, c: Expr) -> Expr:
        n = p // (th * tw)
        if rows > tiles:
            n = minimum(n, n_images - 1)
        i, j = p // tw % th, p % tw
        h0, w0 = _affine(-top, (i, TILE)), _affine(-left, (j, TILE))
        terms = []
        for col_h, col_w, coefficient in _transform_terms(
            INPUT_TRANSFORM, t // PATCH, t % PATCH, x.element_type
        ):
            index = [n, c // block, h0 + col_h, w0 + col_w, c % block]
            terms.append(_times(coefficient, _guarded_read(x, index, 0.0, ranges)))
        value = _sum(terms, x.element_type)
        return value if rows == tiles else select(p < tiles, value, 0.0)

    return [_marked(kb.compute(_result_shape(op), x.element_type, body), "input")]


@lowering(graph.WinogradOutputOp)
def _winograd_output(
    kb: KernelBuilder, op: graph.WinogradOutputOp, m: Tensor, bias: Tensor | None = None
) -> list[Tensor]:
    """y[n, ko, oh, ow, ki] = (A^T m_p A)[oh % 2, ow % 2] at channel k = ko * block + ki of
    tile p = (n * th + oh // 2) * tw + ow // 2, plus bias[k]."""
    _, height, width = get_ints(op.properties, "output")
    block = get_int(op.properties, "block")
    th, tw = tile_grid(height, width)

    def body(n: Expr, ko: Expr, oh: Expr, ow: Expr, ki: Expr) -> Expr:
        p = _affine(0, (n, th * tw), (oh // TILE, tw), (ow // TILE, 1))
        k = _affine(0, (ko, block), (ki, 1))
        terms = [
            _times(coefficient, m[_flat(row, col), p, k])
            for row, col, coefficient in _transform_terms(
                OUTPUT_TRANSFORM, oh % TILE, ow % TILE, m.element_type
            )
        ]
        value = _sum(terms, m.element_type)
        return value if bias is None else value + bias[k]

    return [_marked(kb.compute(_result_shape(op), m.element_type, body), "output")]


def _marked(tensor: Tensor, transform: str) -> Tensor:
    """`tensor`, its compute marked as the Winograd `transform` for its schedule template."""
    compute = tensor.value.owner
    assert isinstance(compute, te.ComputeOp)
    compute.attributes[te.WINOGRAD_ATTR] = StringAttr(transform)
    return tensor
