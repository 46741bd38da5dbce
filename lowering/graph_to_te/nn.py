"""Lowering rules of the neural-network graph ops: contractions, convolutions, pooling,
normalizations and softmax (resize is in sampling.py).

Each rule writes the op's ONNX semantics (as `dialects/graph/reference.py` states them in
numpy) as te computes. A reduction's body is only the reduced term, so anything applied to
the reduced value (bias, scaling, the average's divisor) is a following elementwise compute:

    conv(x, w, b)  ->  padded = compute(select(in bounds, x[clamped], 0))      (if pads)
                       acc    = compute(padded[...] * w[...], sum over c/group x kernel)
                       y      = compute(acc + b[m])                              (if bias)

graph.conv_nchwc is the same three computes on blocked tensors (padding on H and W only; the
bias read at the flat channel mo * mb + mi).

Every read stays in bounds at every point of the index space: windows that reach into the
padding read a clamped index and `select` the padding value (0, or -inf for max pooling).
Index ranges are known statically, so bounds are checked only on the sides a window can
actually cross.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import IndexType, IntegerType, TensorType, f16, f32, i64
from xdsl.ir import Attribute, Operation

from minitvm.dialects import graph
from minitvm.dialects.graph.base import get_float, get_int, shape_of, surely_below
from minitvm.dialects.te_expr import (
    Expr,
    Tensor,
    cast,
    const,
    exp,
    is_nan,
    is_unsigned,
    log,
    maximum,
    minimum,
    pow_,
    select,
    sqrt,
)
from minitvm.lowering.graph_to_te.kernel_builder import KernelBuilder, broadcast_read, lowering

Index = Expr | int


# --------------------------------------------------------------------------------------------
# Index helpers
# --------------------------------------------------------------------------------------------


def _result_shape(op: Operation, index: int = 0) -> tuple[int, ...]:
    type_ = op.results[index].type
    assert isinstance(type_, TensorType)
    return shape_of(type_)


def _affine(offset: int, *terms: tuple[Expr, int]) -> Expr:
    """offset + sum(index * coefficient), without multiplications by +-1 or additions of 0."""
    value: Expr | None = None
    # Positive terms first, so that negative ones become subtractions.
    for index, coefficient in sorted(terms, key=lambda t: t[1] < 0):
        if coefficient == 0:
            continue
        if value is None:
            if coefficient == 1:
                value = index
            else:
                value = -index if coefficient == -1 else index * coefficient
            continue
        term = index if abs(coefficient) == 1 else index * abs(coefficient)
        value = value + term if coefficient > 0 else value - term
    if value is None:
        return const(offset, terms[0][0].type)
    return value if offset == 0 else value + offset


def _all(conditions: Sequence[Expr]) -> Expr | None:
    result: Expr | None = None
    for condition in conditions:
        result = condition if result is None else result & condition
    return result


def _bounded(
    shape: Sequence[int], index: Sequence[Index], ranges: dict[int, tuple[int, int]]
) -> tuple[list[Index], Expr | None]:
    """`index` clamped into `shape`, and whether it was inside (None: always). `ranges[d]`
    is the static range [lo, hi] of index d; only the sides it can cross are checked (and
    clamped): with symbolic sizes, those the symbols' ranges do not rule out."""
    clamped = list(index)
    checks: list[Expr] = []
    for d, (lo, hi) in ranges.items():
        i, size = index[d], shape[d]
        assert isinstance(i, Expr)
        if not surely_below(-1, lo):
            checks.append(i >= 0)
            clamped[d] = maximum(clamped[d], 0)
        if not surely_below(hi, size):
            checks.append(i < size)
            clamped[d] = minimum(clamped[d], size - 1)
    return clamped, _all(checks)


def _guarded_read(
    x: Tensor, index: Sequence[Index], fill: float, ranges: dict[int, tuple[int, int]]
) -> Expr:
    """x[index], or `fill` where the index leaves x (see `_bounded`)."""
    clamped, valid = _bounded(x.shape, index, ranges)
    value = x[clamped]
    return value if valid is None else select(valid, value, fill)


def _window_ranges(
    base: int, out: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
    dilations: Sequence[int], pads: Sequence[int],
) -> dict[int, tuple[int, int]]:
    """Static ranges of the input positions o * stride + k * dilation - pad, keyed by the
    dimension (spatial dim i is dimension base + i)."""
    return {
        base + i: (-pads[i], (o - 1) * s + (k - 1) * d - pads[i])
        for i, (o, k, s, d) in enumerate(zip(out, kernel, strides, dilations))
    }


def _add_channel_bias(
    kb: KernelBuilder, y: Tensor, bias: Tensor | None, block: int | None = None
) -> Tensor:
    """y + bias[c] (bias along dim 1), or y itself without a bias. With a channel `block`, y
    is blocked [N, C/block, ..., block] and channel c is (dim 1) * block + (last dim)."""
    if bias is None:
        return y
    if block is None:
        return kb.compute(y.shape, y.element_type, lambda n, c, *s: y[(n, c, *s)] + bias[c])

    def blocked(n: Expr, co: Expr, *rest: Expr) -> Expr:
        return y[(n, co, *rest)] + bias[_affine(0, (co, block), (rest[-1], 1))]

    return kb.compute(y.shape, y.element_type, blocked)


# --------------------------------------------------------------------------------------------
# Contractions
# --------------------------------------------------------------------------------------------


def _widening(op: Operation) -> tuple[Attribute, Callable[[Expr], Expr]]:
    """The element type of a contraction's product, and what its operand reads go through:
    an integer contraction extends each read to its i32 accumulator before the
    multiply-add (graph.matmul's and graph.conv's integer form); a float one reads as is."""
    element = op.results[0].type.element_type  # type: ignore[attr-defined]
    if graph.is_integer_contraction(element):
        return element, lambda value: cast(value, element)
    return element, lambda value: value


def _batch_index(shape: Sequence[int], batch: Sequence[Expr]) -> list[Index]:
    """Index of an operand's batch dims (`shape`) at a broadcast batch index."""
    tail = batch[len(batch) - len(shape) :] if shape else ()
    return [0 if size == 1 else i for size, i in zip(shape, tail)]


@lowering(graph.MatMulOp)
def _matmul(kb: KernelBuilder, op: graph.MatMulOp, a: Tensor, b: Tensor) -> list[Tensor]:
    """numpy.matmul: sum over k of a[..., m, k] * b[..., k, n]; a 1-D lhs has no m, a 1-D
    rhs no n; batch dims broadcast."""
    out = _result_shape(op)
    element, wide = _widening(op)
    a_vec, b_vec = len(a.shape) == 1, len(b.shape) == 1
    k_extent = a.shape[-1]
    batch_rank = len(out) - (not a_vec) - (not b_vec)

    def body(*args: Expr) -> Expr:
        *index, k = args
        batch, rest = index[:batch_rank], index[batch_rank:]
        a_index = [k] if a_vec else [*_batch_index(a.shape[:-2], batch), rest[0], k]
        b_index = [k] if b_vec else [*_batch_index(b.shape[:-2], batch), k, rest[-1]]
        return wide(a[a_index]) * wide(b[b_index])

    product = kb.compute(out, element, body, reduce=("sum", [k_extent]))
    return [product]


@lowering(graph.MatMulPackedOp)
def _matmul_packed(
    kb: KernelBuilder, op: graph.MatMulPackedOp, a: Tensor, w: Tensor
) -> list[Tensor]:
    """sum over k of a[..., m, k] * w[..., n // nb, k, n % nb]: graph.matmul on the unpacked
    rhs (batch dims broadcast). Once the GEMM schedule splits n by nb, te_to_loop resolves the
    division and remainder at compile time, and the panel's nb lanes are one contiguous vector."""
    out = _result_shape(op)
    element, wide = _widening(op)
    panel = w.shape[-1]
    batch_rank = len(out) - 2

    def body(*args: Expr) -> Expr:
        *index, k = args
        batch, n = index[:batch_rank], index[-1]
        rows = index[:-1] if len(a.shape) == len(out) else [*_batch_index(a.shape[:-2], batch), index[-2]]
        lhs = wide(a[[*rows, k]])
        return lhs * wide(w[[*_batch_index(w.shape[:-3], batch), n // panel, k, n % panel]])

    return [kb.compute(out, element, body, reduce=("sum", [a.shape[-1]]))]


@lowering(graph.GemmOp)
def _gemm(
    kb: KernelBuilder, op: graph.GemmOp, a: Tensor, b: Tensor, c: Tensor | None = None
) -> list[Tensor]:
    """alpha * op(a) @ op(b) + beta * c: the product, then the scaling and bias."""
    props = op.properties
    trans_a, trans_b = get_int(props, "trans_a", 0), get_int(props, "trans_b", 0)
    alpha, beta = get_float(props, "alpha", 1.0), get_float(props, "beta", 1.0)
    out = _result_shape(op)
    k_extent = a.shape[0] if trans_a else a.shape[1]
    product = kb.compute(
        out, a.element_type,
        lambda i, j, k: a[(k, i) if trans_a else (i, k)] * b[(j, k) if trans_b else (k, j)],
        reduce=("sum", [k_extent]),
    )  # fmt: skip
    if alpha == 1.0 and (c is None or beta == 0.0):
        return [product]

    def epilogue(i: Expr, j: Expr) -> Expr:
        y = product[i, j] if alpha == 1.0 else product[i, j] * alpha
        if c is None or beta == 0.0:
            return y
        bias = broadcast_read(c, (i, j))
        return y + (bias if beta == 1.0 else bias * beta)

    return [kb.compute(out, a.element_type, epilogue)]


# --------------------------------------------------------------------------------------------
# Convolutions
# --------------------------------------------------------------------------------------------


def _pad_spatial(
    kb: KernelBuilder, x: Tensor, begins: Sequence[int], ends: Sequence[int],
    dims: Sequence[int] | None = None,
) -> Tensor:
    """x with zeros around the dims `dims` (default: the spatial dims 2, 3, ... of an NC +
    spatial tensor), begins[i] before and ends[i] after dims[i]; x itself without padding."""
    if not any(begins) and not any(ends):
        return x
    if dims is None:
        dims = range(2, 2 + len(begins))
    pad = {d: (b, e) for d, b, e in zip(dims, begins, ends, strict=True)}
    shape = [s + sum(pad.get(d, (0, 0))) for d, s in enumerate(x.shape)]
    ranges = {d: (-b, x.shape[d] + e - 1) for d, (b, e) in pad.items()}

    def body(*i: Expr) -> Expr:
        index = [p - pad[d][0] if pad.get(d, (0, 0))[0] else p for d, p in enumerate(i)]
        return _guarded_read(x, index, 0.0, ranges)

    return kb.compute(shape, x.element_type, body)


def _input_channel(group: int, m_group: int, c_group: int, m: Expr, rc: Expr | None) -> Index:
    """The input channel that reduction index rc (None when a group has one input channel)
    reaches from output channel m: group m // m_group, channel rc within it."""
    if group == 1:
        return 0 if rc is None else rc
    g = m if m_group == 1 else m // m_group
    return g if rc is None else _affine(0, (g, c_group), (rc, 1))


@lowering(graph.ConvOp)
def _conv(
    kb: KernelBuilder, op: graph.ConvOp, x: Tensor, w: Tensor, bias: Tensor | None = None
) -> list[Tensor]:
    """y[n, m, o] = sum over (c, k) of padded[n, g * C/G + c, o * stride + k * dilation]
    * w[m, c, k], with g = m // (M/G) the group of output channel m."""
    c_out, c_group, *kernel = w.shape
    spatial = len(kernel)
    window = op.window
    strides, pads, dilations = window.strides, window.pads, window.dilations
    group = op.groups
    m_group = c_out // group
    element, wide = _widening(op)
    padded = _pad_spatial(kb, x, pads[:spatial], pads[spatial:])
    # With one input channel per group (depthwise) only the kernel taps are reduced over.
    channel_axis = c_group != 1  # (0 channels: an empty reduction, the bias alone)

    def body(n: Expr, m: Expr, *rest: Expr) -> Expr:
        o, r = rest[:spatial], rest[spatial:]
        rc, taps = (r[0], r[1:]) if channel_axis else (None, r)
        channel = _input_channel(group, m_group, c_group, m, rc)
        position = [
            _affine(0, (oi, s), (k, d)) for oi, k, s, d in zip(o, taps, strides, dilations)
        ]
        return wide(padded[(n, channel, *position)]) * wide(w[(m, 0 if rc is None else rc, *taps)])

    extents = [c_group] * channel_axis + list(kernel)
    acc = kb.compute(_result_shape(op), element, body, reduce=("sum", extents))
    return [_add_channel_bias(kb, acc, bias)]


@lowering(graph.ConvNchwcOp)
def _conv_nchwc(
    kb: KernelBuilder, op: graph.ConvNchwcOp, x: Tensor, w: Tensor, bias: Tensor | None = None
) -> list[Tensor]:
    """y[n, mo, oh, ow, mi] = sum over (co, kh, kw, ci) of padded[n, co, oh * sh + kh * dh,
    ow * sw + kw * dw, ci] * w[mo, co, kh, kw, ci, mi], then + bias[mo * mb + mi].

    The loops keep their names for the conv schedule: i0..i4 = (n, mo, oh, ow, mi) and
    r0..r3 = (co, kh, kw, ci), all four reductions even where an extent is 1.

    A depthwise conv (`group` = C) reads input channel (mo, mi) for output channel (mo, mi):
    padded[n, mo, h, w, mi] * w[mo, 0, kh, kw, 0, mi], its co and ci of extent 1. So the
    conv schedule's vector along mi loads the input as a vector instead of broadcasting it."""
    _, c_outer, kernel_h, kernel_w, c_inner, m_block = w.shape
    window = op.window
    strides, pads, dilations = window.strides, window.pads, window.dilations
    padded = _pad_spatial(kb, x, pads[:2], pads[2:], dims=(2, 3))
    depthwise = op.groups != 1
    element, wide = _widening(op)

    def body(
        n: Expr, mo: Expr, oh: Expr, ow: Expr, mi: Expr, co: Expr, kh: Expr, kw: Expr, ci: Expr
    ) -> Expr:
        h = _affine(0, (oh, strides[0]), (kh, dilations[0]))
        v = _affine(0, (ow, strides[1]), (kw, dilations[1]))
        if depthwise:
            return wide(padded[n, mo, h, v, mi]) * wide(w[mo, 0, kh, kw, 0, mi])
        return wide(padded[n, co, h, v, ci]) * wide(w[mo, co, kh, kw, ci, mi])

    extents = [c_outer, kernel_h, kernel_w, c_inner]
    acc = kb.compute(_result_shape(op), element, body, reduce=("sum", extents))
    return [_add_channel_bias(kb, acc, bias, block=m_block)]


@lowering(graph.ConvTransposeOp)
def _conv_transpose(
    kb: KernelBuilder, op: graph.ConvTransposeOp, x: Tensor, w: Tensor,
    bias: Tensor | None = None,
) -> list[Tensor]:
    """The gather form of the scatter ONNX defines: output o receives x[i] * w[k] for every
    tap k with o + pad_begin = i * stride + k * dilation, i.e. i = (o + pad - k * d) / s when
    that divides exactly and lands inside x."""
    c_in, m_group, *kernel = w.shape
    spatial = len(kernel)
    window = op.window
    strides, pads, dilations = window.strides, window.pads, window.dilations
    group = op.groups
    c_group = c_in // group
    out = _result_shape(op)
    channel_axis = c_group != 1  # (0 channels: an empty reduction, the bias alone)

    def body(n: Expr, m: Expr, *rest: Expr) -> Expr:
        o, r = rest[:spatial], rest[spatial:]
        rc, taps = (r[0], r[1:]) if channel_axis else (None, r)
        channel = _input_channel(group, m_group, c_group, m, rc)
        checks: list[Expr] = []
        position: list[Expr] = []
        for i in range(spatial):
            t = _affine(pads[i], (o[i], 1), (taps[i], -dilations[i]))
            lo, hi = pads[i] - (kernel[i] - 1) * dilations[i], out[2 + i] - 1 + pads[i]
            if strides[i] > 1:
                q = t // strides[i]
                checks.append((q * strides[i]).eq(t))
                t, lo, hi = q, lo // strides[i], hi // strides[i]
            size = x.shape[2 + i]
            index = t
            if lo < 0:
                checks.append(t >= 0)
                index = maximum(index, 0)
            if hi >= size:
                checks.append(t < size)
                index = minimum(index, size - 1)
            position.append(index)
        m_local = m if group == 1 else m % m_group
        term = x[(n, channel, *position)] * w[(channel, m_local, *taps)]
        valid = _all(checks)
        return term if valid is None else select(valid, term, 0.0)

    extents = [c_group] * channel_axis + list(kernel)
    acc = kb.compute(out, x.element_type, body, reduce=("sum", extents))
    return [_add_channel_bias(kb, acc, bias)]


# --------------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------------


Ints = tuple[int, ...]


def _pool_geometry(
    op: graph.PoolOp,
) -> tuple[Ints, Ints, Ints, Ints, Ints, dict[int, tuple[int, int]]]:
    """kernel, strides, pads, dilations, result shape, static ranges of the input positions."""
    window = op.window
    kernel, strides, pads, dilations = window.kernel, window.strides, window.pads, window.dilations
    out = _result_shape(op)
    ranges = _window_ranges(2, out[2:], kernel, strides, dilations, window.pad_begins)
    return kernel, strides, pads, dilations, out, ranges


def _window_index(
    n: Expr, c: Expr, rest: Sequence[Expr], strides: Ints, dilations: Ints, pads: Ints
) -> list[Expr]:
    """x's index at output position rest[:spatial] and window tap rest[spatial:]."""
    spatial = len(strides)
    o, k = rest[:spatial], rest[spatial:]
    return [n, c, *(_affine(-p, (oi, s), (ki, d))
                    for oi, ki, s, d, p in zip(o, k, strides, dilations, pads))]


def _lowest(element: Attribute) -> float | int:
    """What a max pool's taps off the input read: -inf, or an integer type's least value."""
    if not isinstance(element, IntegerType):
        return float("-inf")
    return 0 if is_unsigned(element) else -(1 << (element.width.data - 1))


def _window_max(kb: KernelBuilder, op: graph.PoolOp, x: Tensor) -> Tensor:
    """Max over the window; taps in the padding (or past it, in ceil mode) read -inf (an
    integer type's least value)."""
    kernel, strides, pads, dilations, out, ranges = _pool_geometry(op)
    fill = _lowest(x.element_type)

    def body(n: Expr, c: Expr, *rest: Expr) -> Expr:
        index = _window_index(n, c, rest, strides, dilations, pads)
        return _guarded_read(x, index, fill, ranges)

    return kb.compute(out, x.element_type, body, reduce=("max", kernel))


@lowering(graph.MaxPoolOp)
def _max_pool(kb: KernelBuilder, op: graph.MaxPoolOp, x: Tensor) -> list[Tensor]:
    return [_window_max(kb, op, x)]


def _plane_strides(sizes: Sequence[int], column_major: bool = False) -> list[int]:
    """What one step along each dim of a plane of `sizes` adds to a flat position within it."""
    order = range(len(sizes)) if column_major else reversed(range(len(sizes)))
    strides, step = [0] * len(sizes), 1
    for d in order:
        strides[d], step = step, step * sizes[d]
    return strides


@lowering(graph.MaxPoolIndicesOp)
def _max_pool_indices(kb: KernelBuilder, op: graph.MaxPoolIndicesOp, x: Tensor) -> list[Tensor]:
    """The window's max (graph.max_pool's compute), then the least row-major flat index
    among the taps on the input that hold it, or that are NaN where it is NaN (the first in
    scan order): a min reduction. Column-major indices are a last compute of that one's
    coordinates (the scan order stays row-major's, as for ties the ONNX reference takes)."""
    kernel, strides, pads, dilations, out, ranges = _pool_geometry(op)
    best = _window_max(kb, op, x)
    _, channels, *sizes = x.shape
    plane = math.prod(sizes)
    steps = _plane_strides(sizes)
    none = (1 << 63) - 1

    def first(n: Expr, c: Expr, *rest: Expr) -> Expr:
        index = _window_index(n, c, rest, strides, dilations, pads)
        clamped, valid = _bounded(x.shape, index, ranges)
        value = x[clamped]
        hit = value.eq(best[(n, c, *rest[: len(sizes)])])
        if value.is_float:
            hit = hit | is_nan(value)
        if valid is not None:
            hit = valid & hit
        flat = _affine(0, (n, channels * plane), (c, plane), *zip(index[2:], steps))  # type: ignore[arg-type]
        return select(hit, cast(flat, i64), none)

    row_major = kb.compute(out, i64, first, reduce=("min", kernel))
    if not op.column_major:
        return [row_major]
    columns = _plane_strides(sizes, column_major=True)

    def transposed(*i: Expr) -> Expr:
        flat = row_major[i]
        within = flat % plane
        index = flat - within
        for size, step, column in zip(sizes, steps, columns):
            index = index + within // step % size * column
        return index

    return [kb.compute(out, i64, transposed)]


@lowering(graph.MaxUnpoolOp)
def _max_unpool(
    kb: KernelBuilder, op: graph.MaxUnpoolOp, x: Tensor, indices: Tensor
) -> list[Tensor]:
    """A gather over the pooled positions whose windows cover the output position p: along
    dim d, q = (p + pad) // stride - t for t < ceil(kernel / stride), those that exist and
    whose window reaches p. An element hits p when its index is p's flat index (in the
    inferred size). With one candidate per dim (kernel <= stride) the result is that
    element or 0; otherwise a max reduction over the candidates finds the last hitting
    element's ordinal (-1 for none) and the result reads it."""
    window = op.window
    kernel, strides, pads = window.kernel, window.strides, window.pad_begins
    out = _result_shape(op)
    _, channels, *sizes = x.shape
    spatial = len(sizes)
    inferred = op.unpooled_sizes(op.properties, tuple(sizes))
    reach = [-(-k // s) for k, s in zip(kernel, strides)]
    plane = math.prod(inferred)
    steps = _plane_strides(inferred)

    def candidate(n: Expr, c: Expr, p: Sequence[Expr], t: Sequence[Index]):
        """Pooled position q of candidate t (clamped into x), and whether it hits p."""
        q: list[Index] = [n, c]
        checks: list[Expr] = []
        for d in range(spatial):
            shifted = p[d] + pads[d] if pads[d] else p[d]
            base = shifted // strides[d] if strides[d] > 1 else shifted
            q.append(base if isinstance(t[d], int) and t[d] == 0 else base - t[d])
            if kernel[d] % strides[d]:  # the window of q may end before p
                checks.append(shifted - q[-1] * strides[d] < kernel[d])  # type: ignore[operator]
            if out[2 + d] > inferred[d]:
                checks.append(p[d] < inferred[d])
        ranges = {
            2 + d: (-(reach[d] - 1), (out[2 + d] - 1 + pads[d]) // strides[d]) for d in range(spatial)
        }
        clamped, inside = _bounded(x.shape, q, ranges)
        flat = _affine(0, (n, channels * plane), (c, plane), *zip(p, steps))
        hit = indices[clamped].eq(cast(flat, i64))
        for check in checks + ([inside] if inside is not None else []):
            hit = check & hit
        return clamped, hit

    if reach == [1] * spatial:

        def single(n: Expr, c: Expr, *p: Expr) -> Expr:
            q, hit = candidate(n, c, p, [0] * spatial)
            return select(hit, x[q], 0)

        return [kb.compute(out, x.element_type, single)]
    pooled_steps = _plane_strides(sizes)

    def last(n: Expr, c: Expr, *rest: Expr) -> Expr:
        p, t = rest[:spatial], rest[spatial:]
        q, hit = candidate(n, c, p, t)
        ordinal = _affine(0, *zip(q[2:], pooled_steps))  # type: ignore[arg-type]
        return select(hit, cast(ordinal, i64), -1)

    winner = kb.compute(out, i64, last, reduce=("max", reach))

    def unpooled(n: Expr, c: Expr, *p: Expr) -> Expr:
        w = winner[(n, c, *p)]
        ordinal = maximum(cast(w, IndexType()), 0)
        q = [ordinal // step % size if step > 1 else ordinal % size
             for step, size in zip(pooled_steps, sizes)]  # fmt: skip
        return select(w >= 0, x[(n, c, *q)], 0)

    return [kb.compute(out, x.element_type, unpooled)]


def _tap_count(
    o: Expr, kernel: int, stride: int, dilation: int, pad: int, lo: int, hi: int
) -> Expr:
    """How many taps k in [0, kernel) put o * stride + k * dilation - pad inside [lo, hi):
    k from ceil((lo + pad - o * stride) / d) to floor((hi - 1 + pad - o * stride) / d)."""

    def over_dilation(numerator: Expr) -> Expr:
        return numerator if dilation == 1 else numerator // dilation

    first = maximum(over_dilation(_affine(lo + pad + dilation - 1, (o, -stride))), 0)
    last = minimum(over_dilation(_affine(hi - 1 + pad, (o, -stride))), kernel - 1)
    return maximum(last - first + 1, 0)


@lowering(graph.AvgPoolOp)
def _avg_pool(kb: KernelBuilder, op: graph.AvgPoolOp, x: Tensor) -> list[Tensor]:
    """Window sum, then the division by the window's tap count: taps on the input, or with
    count_include_pad also those on the explicit pads (never those past them, which only
    ceil mode reaches), as ONNX Runtime and PyTorch count."""
    kernel, strides, pads, dilations, out, ranges = _pool_geometry(op)
    spatial = len(kernel)
    include_pad = op.includes_pad

    def window_sum(n: Expr, c: Expr, *rest: Expr) -> Expr:
        index = _window_index(n, c, rest, strides, dilations, pads)
        return _guarded_read(x, index, 0.0, ranges)

    total = kb.compute(out, x.element_type, window_sum, reduce=("sum", kernel))

    def bounds(i: int) -> tuple[int, int]:
        size = x.shape[2 + i]
        return (-pads[i], size + pads[spatial + i]) if include_pad else (0, size)

    def average(n: Expr, c: Expr, *o: Expr) -> Expr:
        count: Expr | int = 1
        for i in range(spatial):
            lo, hi = bounds(i)
            first, last = ranges[2 + i]
            if lo <= first and last < hi:
                taps: Expr | int = kernel[i]  # every window lies inside: a constant count
            else:
                taps = _tap_count(o[i], kernel[i], strides[i], dilations[i], pads[i], lo, hi)
            count = taps if isinstance(count, int) and count == 1 else count * taps
        divisor = cast(count, x.element_type) if isinstance(count, Expr) else float(count)
        return total[(n, c, *o)] / divisor

    return [kb.compute(out, x.element_type, average)]


@lowering(graph.GlobalMaxPoolOp, graph.GlobalAvgPoolOp)
def _global_pool(kb: KernelBuilder, op: Operation, x: Tensor) -> list[Tensor]:
    """Max or mean over all spatial dims (kept as dims of size 1)."""
    spatial = x.shape[2:]
    out = _result_shape(op)

    def body(n: Expr, c: Expr, *rest: Expr) -> Expr:
        return x[(n, c, *rest[len(spatial):])]

    if isinstance(op, graph.GlobalMaxPoolOp):
        return [kb.compute(out, x.element_type, body, reduce=("max", spatial))]
    total = kb.compute(out, x.element_type, body, reduce=("sum", spatial))
    count = math.prod(spatial)  # (a symbolic count is read as a te.size)
    divisor = float(count) if isinstance(count, int) else count
    return [kb.compute(out, x.element_type, lambda *i: total[i] / divisor)]


# --------------------------------------------------------------------------------------------
# Normalizations
# --------------------------------------------------------------------------------------------


@lowering(graph.BatchNormOp)
def _batch_norm(
    kb: KernelBuilder, op: graph.BatchNormOp, x: Tensor, scale: Tensor, bias: Tensor,
    mean: Tensor, var: Tensor,
) -> list[Tensor]:
    """(x - mean) * (scale / sqrt(var + eps)) + bias along dim 1; the per-channel factor is
    its own (small) compute so the per-element work is one multiply-add."""
    eps = get_float(op.properties, "epsilon", 1e-5)
    factor = kb.compute(scale.shape, x.element_type, lambda c: scale[c] / sqrt(var[c] + eps))
    return [
        kb.compute(x.shape, x.element_type,
                   lambda n, c, *s: (x[(n, c, *s)] - mean[c]) * factor[c] + bias[c])
    ]  # fmt: skip


@lowering(graph.LayerNormOp)
def _layer_norm(
    kb: KernelBuilder, op: graph.LayerNormOp, x: Tensor, scale: Tensor,
    bias: Tensor | None = None,
) -> list[Tensor]:
    """Mean and variance over dims [axis, rank) (two reductions), then
    y = (x - mean) * inv_std_dev * scale + bias; mean and inv_std_dev are results too."""
    axis = get_int(op.properties, "axis", -1)
    eps = get_float(op.properties, "epsilon", 1e-5)
    inner = x.shape[axis:]
    stats = _result_shape(op, 1)
    count = float(math.prod(inner))
    type_ = x.element_type

    def element(*args: Expr) -> list[Expr]:
        """x's index for a stats index (kept dims of size 1) plus reduction indices."""
        return [*args[:axis], *args[len(stats):]]

    total = kb.compute(stats, type_, lambda *a: x[element(*a)], reduce=("sum", inner))
    mean = kb.compute(stats, type_, lambda *i: total[i] / count)

    def squared_deviation(*args: Expr) -> Expr:
        d = x[element(*args)] - mean[args[: len(stats)]]
        return d * d

    square_sum = kb.compute(stats, type_, squared_deviation, reduce=("sum", inner))
    inv_std = kb.compute(stats, type_, lambda *i: 1.0 / sqrt(square_sum[i] / count + eps))

    def normalize(*i: Expr) -> Expr:
        stat_index = [*i[:axis], *[0] * len(inner)]
        y = (x[i] - mean[stat_index]) * inv_std[stat_index] * broadcast_read(scale, i[axis:])
        return y if bias is None else y + broadcast_read(bias, i[axis:])

    return [kb.compute(x.shape, type_, normalize), mean, inv_std]


@lowering(graph.LRNOp)
def _lrn(kb: KernelBuilder, op: graph.LRNOp, x: Tensor) -> list[Tensor]:
    """y = x / (bias + alpha / size * square_sum)^beta, the square sum over channels
    c - floor((size - 1) / 2) .. c + ceil((size - 1) / 2) that exist."""
    props = op.properties
    size = get_int(props, "size")
    alpha, beta = get_float(props, "alpha", 1e-4), get_float(props, "beta", 0.75)
    bias = get_float(props, "bias", 1.0)
    before = (size - 1) // 2
    channels = x.shape[1]

    def square(n: Expr, c: Expr, *rest: Expr) -> Expr:
        *s, r = rest
        v = _guarded_read(x, [n, _affine(-before, (c, 1), (r, 1)), *s], 0.0,
                          {1: (-before, channels - 1 - before + size - 1)})
        return v * v

    square_sum = kb.compute(x.shape, x.element_type, square, reduce=("sum", [size]))
    return [
        kb.compute(x.shape, x.element_type,
                   lambda *i: x[i] / pow_(square_sum[i] * (alpha / size) + bias, beta))
    ]  # fmt: skip


def _axis_reduction_index(axis: int, args: Sequence[Expr]) -> list[Expr]:
    """x's index for a (kept-dim) index along `axis` whose reduction index is last."""
    *index, r = args
    index[axis] = r
    return index


@lowering(graph.SoftmaxOp, graph.LogSoftmaxOp)
def _softmax(kb: KernelBuilder, op: Operation, x: Tensor) -> list[Tensor]:
    """Numerically stable: m = max(x), s = sum(exp(x - m)) along `axis`; softmax is
    exp(x - m) / s, log_softmax (x - m) - log(s)."""
    axis = get_int(op.properties, "axis")
    kept = tuple(1 if d == axis else size for d, size in enumerate(x.shape))
    type_ = x.element_type

    def kept_index(i: Sequence[Expr]) -> list[Index]:
        return [0 if d == axis else v for d, v in enumerate(i)]

    m = kb.compute(kept, type_, lambda *a: x[_axis_reduction_index(axis, a)],
                   reduce=("max", [x.shape[axis]]))

    # An f16 softmax sums its exponentials, each rounded to f16, in f32 and rounds the sum
    # once, as numpy's (and ONNX's reference) f16 sum does: a sum of unrounded f32 terms
    # differs by 2 ulp in places, beyond the node tests' rtol.
    sum_type = f32 if type_ == f16 else type_

    def exp_shifted(*a: Expr) -> Expr:
        return cast(exp(x[_axis_reduction_index(axis, a)] - m[a[:-1]]), sum_type)

    total = kb.compute(kept, sum_type, exp_shifted, reduce=("sum", [x.shape[axis]]))
    s = total if sum_type == type_ else kb.compute(kept, type_, lambda *i: cast(total[i], type_))

    def normalize(*i: Expr) -> Expr:
        shifted = x[i] - m[kept_index(i)]
        if isinstance(op, graph.LogSoftmaxOp):
            return shifted - log(s[kept_index(i)])
        return exp(shifted) / s[kept_index(i)]

    return [kb.compute(x.shape, type_, normalize)]
