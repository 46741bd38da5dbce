"""Lowering rules of the sampling graph ops: resize, grid_sample, roi_align, col2im.

Each result element reads the input at positions computed from its own index (resize, whose
sample points are static), from a tensor it reads first (grid_sample's grid, roi_align's
boxes and batch indices), or sums the column entries that map to it (col2im). The semantics
are `dialects/graph/reference.py`'s, computed in f32 (f64 for f64 tensors; resize's static
coordinates in f64, as the reference has them):

    resize       nearest: one compute, one read at the per-dim nearest index; linear and
                 cubic: the taps of each resampled dim (index, weight) combined in computes
                 of at most 16 taps each (bilinear, bicubic: one compute; a wide antialias
                 filter: one compute per dim, as the reference's separable loop)
    grid_sample  one compute: the grid point's coordinates, padding applied, then 1, 2^k or
                 4^k taps, each a read at a clamped index (zeros padding selects 0 outside)
    roi_align    a reduction over each bin's sample points of their bilinear value (sum or
                 max), then the division by the point count (avg) or the fix-up of points the
                 window left out (max); the adaptive average (sampling_ratio 0) as row and
                 column weights per bin and two contractions (see `_roi_align`)
    col2im       a reduction over the kernel offsets of the column entry each one maps to the
                 pixel, selected away where it maps elsewhere

Every read stays in bounds at every point of the index space, for any input values: indices
computed from data go through `_to_index`, which also maps NaN to an in-bounds index.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import IndexType, TensorType, f32, f64
from xdsl.ir import Attribute, Operation

from minitvm.dialects import graph
from minitvm.dialects.graph.base import get_float, get_int, get_str, shape_of
from minitvm.dialects.graph.reference import crop_range, crop_terms
from minitvm.dialects.graph.tensor import Sampling
from minitvm.dialects.te_expr import (
    Expr,
    Tensor,
    abs_,
    cast,
    ceil,
    clamp,
    const,
    floor,
    maximum,
    minimum,
    round_even,
    select,
    trunc,
)
from minitvm.lowering.graph_to_te.kernel_builder import KernelBuilder, lowering

Index = Expr | int
#: A tap: the index it reads along one dim, its weight (None: 1), and (zeros padding)
#: whether it lies inside the input (None: always).
Tap = tuple[Expr, Expr | None, Expr | None]


def _result_shape(op: Operation) -> tuple[int, ...]:
    type_ = op.results[0].type
    assert isinstance(type_, TensorType)
    return shape_of(type_)


def _work_type(*types: Attribute) -> Attribute:
    """The float type the arithmetic is done in: f64 if a tensor is f64, else f32."""
    return f64 if f64 in types else f32


def _to_index(value: Expr, size: int) -> Expr:
    """A float index kept inside [0, size) and cast: NaN goes to 0 (ordered comparisons are
    false for NaN), so a read at it stays in bounds whatever the data."""
    value = select(value > 0.0, value, 0.0)
    value = select(value < float(size - 1), value, float(size - 1))
    return cast(value, IndexType())


def cubic_weight(a: float, distance: Expr, *, near: bool | None = None) -> Expr:
    """Keys' cubic convolution kernel at `distance` (>= 0), as ONNX writes it; `near` says
    statically which piece applies (True: distance <= 1, False: 1 < distance <= 2), None
    selects (and gives 0 from 2 on)."""
    d = distance
    inner = ((d * (a + 2) - (a + 3)) * d) * d + 1.0
    outer = (((d * a) - 5 * a) * d + 8 * a) * d - 4 * a
    if near is not None:
        return inner if near else outer
    return select(d <= 1.0, inner, select(d < 2.0, outer, 0.0))


def reflect(x: Expr, low: float, high: float) -> Expr:
    """x mirrored at `low` and `high` until it lies between them (`reference.reflect`)."""
    span = high - low
    if span == 0:
        return const(low, x.type)
    below = x < low
    excess = select(below, low - x, x - high)
    folds = trunc(excess / span)
    rest = excess - folds * span
    even = (folds - floor(folds * 0.5) * 2.0).eq(0.0)
    from_low = select(even, rest + low, high - rest)
    from_high = select(even, high - rest, rest + low)
    return select(below, from_low, select(x > high, from_high, x))


def _combine(
    read: Callable[[list[Index]], Expr], index: Sequence[Index], taps: dict[int, list[Tap]]
) -> Expr:
    """sum over the taps of every dim in `taps` of (product of weights) * read(index with
    those dims replaced by the taps' indices); a tap outside (zeros padding) reads 0."""
    dims = sorted(taps)
    total: Expr | None = None
    for combo in itertools.product(*(taps[d] for d in dims)):
        at = list(index)
        weight: Expr | None = None
        inside: Expr | None = None
        for d, (i, w, ok) in zip(dims, combo):
            at[d] = i
            if w is not None:
                weight = w if weight is None else weight * w
            if ok is not None:
                inside = ok if inside is None else inside & ok
        value = read(at)
        if inside is not None:
            value = select(inside, value, 0.0)
        term = value if weight is None else value * weight
        total = term if total is None else total + term
    assert total is not None
    return total


# --------------------------------------------------------------------------------------------
# Resize
# --------------------------------------------------------------------------------------------

#: The most taps one resize compute combines (a 4 x 4 bicubic stencil); wider filters
#: (antialias downsampling) get one compute per dim.
_MAX_TAPS = 16


def _source_coordinate(
    s: Sampling, d: int, i: Expr, size: int, out: int, work: Attribute = f64
) -> Expr:
    """ONNX's coordinate_transformation_mode: where output index i samples the input.
    `length_resized` is scale * size unrounded, as the ONNX spec and reference.py read it.
    The reference's order of operations, in f64 by default, so that the floor of a tap
    decides as the reference does (free for linear and cubic: their per-element weights
    dominate). Nearest mode takes f32, as ONNX Runtime does: f64 there costs up to 1.5x on
    2x upsampling, and only a source within an f32 rounding of a .5 tie can differ."""
    x = cast(i, work)
    scale = s.scales[d]
    length = float(_f32(scale) * _f32(size))
    mode = s.coordinate_mode
    if mode == "half_pixel" or (mode == "pytorch_half_pixel" and out > 1):
        return (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return const(0.0, work)
    if mode == "half_pixel_symmetric":
        offset = size / 2 * (1 - out / length)
        return (x + 0.5) / scale + offset - 0.5
    if mode == "align_corners":
        return const(0.0, work) if length == 1 else x * float(size - 1) / (length - 1)
    if mode == "tf_crop_and_resize":
        width, offset, single = crop_terms(s.roi_of(d), size)
        if length == 1:
            return const(single, work)
        # (x * 1.0 and + 0.0 left out: both exact)
        x = (x if width == 1 else x * width) * float(size - 1) / (length - 1)
        return x if offset == 0 else x + offset
    assert mode == "asymmetric", mode
    return x / scale


def _f32(value: float) -> float:
    return float(np.float32(value))


def _nearest(mode: str, x: Expr, size: int) -> Expr:
    """The input index nearest_mode picks for coordinate x, clamped into [0, size)."""
    down = floor(x)
    if mode in ("round_prefer_floor", "round_prefer_ceil"):
        tie = down if mode == "round_prefer_floor" else down + 1.0
        # Off the .5 ties every rounding agrees, so round-half-even serves for the rest.
        index = select((x - down).eq(0.5), tie, round_even(x))
    elif mode == "floor":
        index = down
    else:
        index = ceil(x)
    return clamp(cast(index, IndexType()), 0, size - 1)


def _resize_taps(s: Sampling, d: int, i: Expr, size: int, out: int, work: Attribute) -> list[Tap]:
    """The taps (index clamped into the input, weight) along dim d for output index i:
    `Sampling`'s filter, in the reference's formulas (reference._filter_taps)."""
    coordinate = _source_coordinate(s, d, i, size, out)
    low_f = floor(coordinate)
    t = cast(coordinate - low_f, work)
    low = cast(low_f, IndexType())
    offsets = s.taps(d)
    weights: list[Expr] = []
    for j in offsets:
        if not s.antialias:
            # (j, t) in {0, 1} x [0, 1) (linear) or {-1, 0, 1, 2} x [0, 1) (cubic): the
            # piece of the filter each tap needs is known.
            if s.mode == "linear":
                weights.append(1.0 - t if j == 0 else t)
            else:
                distance = t + 1.0 if j == -1 else t if j == 0 else 1.0 - t if j == 1 else 2.0 - t
                weights.append(cubic_weight(s.cubic_coeff_a, distance, near=j in (0, 1)))
            continue
        distance = abs_((t - float(j)) * s.filter_scale(d))
        if s.mode == "linear":
            weights.append(maximum(1.0 - distance, 0.0))
        else:
            weights.append(cubic_weight(s.cubic_coeff_a, distance))
    if s.antialias:
        total = _sum(weights)
        weights = [w / total for w in weights]
    indices = [low + j if j else low for j in offsets]
    if s.exclude_outside:
        weights = [select((k >= 0) & (k < size), w, 0.0) for k, w in zip(indices, weights)]
        total = _sum(weights)
        total = select(total.eq(0.0), 1.0, total)
        weights = [w / total for w in weights]
    return [(clamp(k, 0, size - 1), w, None) for k, w in zip(indices, weights)]


def _sum(values: Sequence[Expr]) -> Expr:
    total = values[0]
    for v in values[1:]:
        total = total + v
    return total


def _extrapolated(s: Sampling, dims: Sequence[int], i: Sequence[Expr],
                  sizes: Sequence[int], out: Sequence[int]) -> Expr | None:  # fmt: skip
    """tf_crop_and_resize: whether output index i samples outside the input along one of
    `dims` (decided at compile time, in float64, as the reference decides it)."""
    if s.coordinate_mode != "tf_crop_and_resize":
        return None
    outside: Expr | None = None
    for d in dims:
        first, last = crop_range(s, d, sizes[d], out[d])
        tests = [i[d] < first] if first > 0 else []
        tests += [i[d] > last] if last < out[d] - 1 else []
        for test in tests:
            outside = test if outside is None else outside | test
    return outside


def _tap_passes(s: Sampling, dims: Sequence[int]) -> list[list[int]]:
    """The resampled dims grouped into computes of at most _MAX_TAPS taps each."""
    passes: list[list[int]] = []
    taps = 0
    for d in dims:
        n = len(s.taps(d))
        if passes and taps * n <= _MAX_TAPS:
            passes[-1].append(d)
            taps *= n
        else:
            passes.append([d])
            taps = n
    return passes


@lowering(graph.ResizeOp)
def _resize(kb: KernelBuilder, op: graph.ResizeOp, x: Tensor) -> list[Tensor]:
    """Nearest: one read per element at the per-dim nearest index. Linear and cubic: the
    resampled dims in passes of at most _MAX_TAPS taps, each pass a compute (the last of the
    input's type, the others f32). tf_crop_and_resize selects extrapolation_value where a
    pass's dims sample outside the input."""
    s = op.sampling
    out = _result_shape(op)
    sizes = x.shape
    dims = [d for d in range(len(out)) if s.resamples(d, sizes[d], out[d])]
    work = _work_type(x.element_type)
    fill = s.extrapolation_value

    if s.mode == "nearest":
        def nearest(*i: Expr) -> Expr:
            index: list[Index] = list(i)
            for d in dims:
                coordinate = _source_coordinate(s, d, i[d], sizes[d], out[d], work)
                index[d] = _nearest(s.nearest_mode, coordinate, sizes[d])
            outside = _extrapolated(s, dims, i, sizes, out)
            return x[index] if outside is None else select(outside, fill, x[index])

        return [kb.compute(out, x.element_type, nearest)]

    passes = _tap_passes(s, dims)
    if not passes:
        return [kb.compute(out, x.element_type, lambda *i: x[i])]
    source = x
    for n, group in enumerate(passes):
        shape = tuple(out[d] if d in group or d in dims[: dims.index(group[0])] else sizes[d]
                      for d in range(len(out)))  # fmt: skip
        last = n == len(passes) - 1

        def interpolate(*i: Expr, src: Tensor = source, group: list[int] = group) -> Expr:
            taps = {d: _resize_taps(s, d, i[d], sizes[d], out[d], work) for d in group}
            value = _combine(lambda at: cast(src[at], work), i, taps)
            outside = _extrapolated(s, group, i, sizes, out)
            return value if outside is None else select(outside, fill, value)

        source = kb.compute(shape, x.element_type if last else work, interpolate)
    return [source]


# --------------------------------------------------------------------------------------------
# GridSample
# --------------------------------------------------------------------------------------------


@lowering(graph.GridSampleOp)
def _grid_sample(kb: KernelBuilder, op: graph.GridSampleOp, x: Tensor, grid: Tensor) -> list[Tensor]:
    props = op.properties
    mode = get_str(props, "mode", "linear")
    padding = get_str(props, "padding_mode", "zeros")
    align = bool(get_int(props, "align_corners", 0))
    spatial = x.shape[2:]
    work = _work_type(x.element_type, grid.element_type)

    def taps_along(d: int, n: Expr, o: Sequence[Expr]) -> list[Tap]:
        size = spatial[d]
        low, high = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
        g = cast(grid[(n, *o, len(spatial) - 1 - d)], work)
        # The reference's order of operations, in its float32: nearest's ties depend on it.
        p = (g + 1.0) / 2.0 * float(size - 1) if align else ((g + 1.0) * float(size) - 1.0) / 2.0
        if mode == "nearest":
            p = round_even(p)
        if padding == "border":
            p = select((p < low) | (p > high), clamp(p, 0.0, float(size - 1)), p)
        elif padding == "reflection":
            p = reflect(p, low, high)
        base = floor(p)
        t = p - base
        if mode == "nearest":
            weights: list[tuple[int, Expr | None]] = [(0, None)]
        elif mode == "linear":
            weights = [(0, 1.0 - t), (1, t)]
        else:
            weights = [(-1, cubic_weight(-0.75, t + 1.0, near=False)),
                       (0, cubic_weight(-0.75, t, near=True)),
                       (1, cubic_weight(-0.75, 1.0 - t, near=True)),
                       (2, cubic_weight(-0.75, 2.0 - t, near=False))]  # fmt: skip
        taps: list[Tap] = []
        for j, w in weights:
            at = base + float(j) if j else base
            inside = None
            if padding == "zeros":
                inside = (at >= 0.0) & (at <= float(size - 1))
            elif padding == "reflection":
                at = trunc(reflect(at, low, high))
            taps.append((_to_index(at, size), w, inside))
        return taps

    def body(n: Expr, c: Expr, *o: Expr) -> Expr:
        taps = {2 + d: taps_along(d, n, o) for d in range(len(spatial))}
        return _combine(lambda at: cast(x[at], work), [n, c, *o], taps)

    return [kb.compute(_result_shape(op), x.element_type, body)]


# --------------------------------------------------------------------------------------------
# RoiAlign
# --------------------------------------------------------------------------------------------


@lowering(graph.RoiAlignOp)
def _roi_align(
    kb: KernelBuilder, op: graph.RoiAlignOp, x: Tensor, rois: Tensor, batch_indices: Tensor
) -> list[Tensor]:
    """With sampling_ratio 0 a bin's point count, ceil(bin size), depends on the box, but a
    te reduction has a static extent: it then runs over a window of H + 4 (W + 4) points
    from the first one at most a pixel before the map, which holds every point that can
    count (at most H + 2 of them lie within [-1, H] as they are more than half a pixel
    apart), masked past the bin's count. That is exact for any box. As a bilinear sample is
    a product of a row and a column weighting, the average is separable: per box and bin,
    a weight for every row (the window's points summed, over the count) and for every
    column, then two contractions, O(C (H W + W) / OW) per output element against the
    direct O(C (H + 4) (W + 4)). Max mode is not separable: it stays direct, and slow."""
    props = op.properties
    out_h, out_w = get_int(props, "output_height"), get_int(props, "output_width")
    ratio = get_int(props, "sampling_ratio", 0)
    scale = get_float(props, "spatial_scale", 1.0)
    half_pixel = get_str(props, "coordinate_transformation_mode", "half_pixel") == "half_pixel"
    max_mode = get_str(props, "mode", "avg") == "max"
    n_images, _, height, width = x.shape
    work = _work_type(x.element_type)
    windows = (ratio, ratio) if ratio else (height + 4, width + 4)

    def box(r: Expr, axis: int) -> tuple[Expr, Expr, Expr]:
        """Along axis 0 (y) or 1 (x) of roi r: its start, bin size and points per bin."""
        offset = 0.5 if half_pixel else 0.0
        start = cast(rois[r, 1 - axis], work) * scale - offset
        extent = cast(rois[r, 3 - axis], work) * scale - offset - start
        if not half_pixel:
            extent = maximum(extent, 1.0)  # malformed boxes count as 1 x 1
        bin_size = extent / float(out_h if axis == 0 else out_w)
        points = const(float(ratio), work) if ratio else ceil(bin_size)
        return start, bin_size, points

    def first_point(start: Expr, bin_size: Expr, points: Expr, p: Expr) -> Expr:
        """Adaptive sampling: where the window of points starts (one before the first point
        at or after -1, as far as float rounding can tell)."""
        spacing = bin_size / points
        first = ceil((-1.0 - (start + cast(p, work) * bin_size)) / spacing - 0.5) - 1.0
        return select(first > 0.0, first, 0.0)  # NaN (no points) -> 0

    def axis_point(r: Expr, axis: int, p: Expr, k: Expr, size: int):
        """The k-th point of the window along `axis` of bin p: whether the bin has it (None:
        always), whether it lies within a pixel of the map, its low and high indices and
        their weights."""
        start, bin_size, points = box(r, axis)
        j = cast(k, work)
        exists: Expr | None = None
        if not ratio:
            j = j + first_point(start, bin_size, points, p)
            exists = j < points
        at = start + cast(p, work) * bin_size + (j + 0.5) * bin_size / points
        near = (at >= -1.0) & (at <= float(size))
        at = select(at > 0.0, at, 0.0)
        low_f = floor(at)
        edge = low_f >= float(size - 1)
        low_f = select(edge, float(size - 1), low_f)
        at = select(edge, low_f, at)
        low = _to_index(low_f, size)
        high = select(edge, low, minimum(low + 1, size - 1))
        frac = at - low_f
        return exists, near, low, high, 1.0 - frac, frac

    def bilinear(r: Expr, c: Expr, ph: Expr, pw: Expr, ky: Expr, kx: Expr):
        """Whether the point exists, whether it is near the map, its four weighted corners."""
        batch = clamp(cast(batch_indices[r], IndexType()), 0, n_images - 1)
        y_in, y_near, y_low, y_high, wy_low, wy_high = axis_point(r, 0, ph, ky, height)
        x_in, x_near, x_low, x_high, wx_low, wx_high = axis_point(r, 1, pw, kx, width)
        terms = [cast(x[batch, c, yi, xi], work) * (wy * wx) for yi, wy, xi, wx in (
            (y_low, wy_low, x_low, wx_low), (y_low, wy_low, x_high, wx_high),
            (y_high, wy_high, x_low, wx_low), (y_high, wy_high, x_high, wx_high),
        )]  # fmt: skip
        exists = None if y_in is None or x_in is None else y_in & x_in
        return exists, y_near & x_near, terms

    out = _result_shape(op)

    def avg_term(*index: Expr) -> Expr:
        exists, near, terms = bilinear(*index)
        return select(near if exists is None else near & exists, _sum(terms), 0.0)

    def max_term(*index: Expr) -> Expr:
        exists, near, terms = bilinear(*index)
        top = maximum(maximum(terms[0], terms[1]), maximum(terms[2], terms[3]))
        value = select(near, top, 0.0)  # points off the map count as 0, as in the reference
        # A window point past the bin's count does not exist: the max's identity.
        return value if exists is None else select(exists, value, -math.inf)

    if not ratio and not max_mode:
        def axis_weights(axis: int, size: int, bins: int) -> Tensor:
            """[R, bins, size]: how much input row (column) i weighs in bin p of roi r."""
            def weight(r: Expr, p: Expr, i: Expr, k: Expr) -> Expr:
                exists, near, low, high, w_low, w_high = axis_point(r, axis, p, k, size)
                assert exists is not None
                term = select(low.eq(i), w_low, 0.0) + select(high.eq(i), w_high, 0.0)
                _, _, points = box(r, axis)  # exists: points >= 1
                return select(near & exists, term / points, 0.0)

            return kb.compute((rois.shape[0], bins, size), work, weight,
                              reduce=("sum", [windows[axis]]))  # fmt: skip

        rows, columns = axis_weights(0, height, out_h), axis_weights(1, width, out_w)

        def row_term(r: Expr, c: Expr, ph: Expr, xx: Expr, yy: Expr) -> Expr:
            batch = clamp(cast(batch_indices[r], IndexType()), 0, n_images - 1)
            return rows[r, ph, yy] * cast(x[batch, c, yy, xx], work)

        pooled = kb.compute((*out[:3], width), work, row_term, reduce=("sum", [height]))
        return [kb.compute(out, x.element_type,
                           lambda r, c, ph, pw, xx: pooled[r, c, ph, xx] * columns[r, pw, xx],
                           reduce=("sum", [width]))]  # fmt: skip

    reduced = kb.compute(out, work, max_term if max_mode else avg_term,
                         reduce=("max" if max_mode else "sum", list(windows)))  # fmt: skip

    def finish(r: Expr, c: Expr, ph: Expr, pw: Expr) -> Expr:
        value = reduced[r, c, ph, pw]
        if ratio:
            return value if max_mode else value / float(ratio * ratio)
        start_y, bin_y, points_y = box(r, 0)
        start_x, bin_x, points_x = box(r, 1)
        # Points of the bin outside the window lie off the map: each counts as 0.
        first_y = first_point(start_y, bin_y, points_y, ph)
        first_x = first_point(start_x, bin_x, points_x, pw)
        left_out = ((first_y > 0.0) | (first_y + float(windows[0]) < points_y)
                    | (first_x > 0.0) | (first_x + float(windows[1]) < points_x))  # fmt: skip
        value = select(left_out, maximum(value, 0.0), value)
        return select((points_y > 0.0) & (points_x > 0.0), value, 0.0)  # no points: 0

    return [kb.compute(out, x.element_type, finish)]


# --------------------------------------------------------------------------------------------
# Col2Im
# --------------------------------------------------------------------------------------------


@lowering(graph.Col2ImOp)
def _col2im(kb: KernelBuilder, op: graph.Col2ImOp, x: Tensor) -> list[Tensor]:
    """result[n, c, p] = sum over kernel offsets k of x[n, c * K + k, b] for the block b
    with b * strides - pads_begin + k * dilations = p, where one exists: per dim,
    t = p + pad_begin - k * dilation must be a multiple of the stride in [0, (blocks - 1) *
    stride]. Only the tests that can fail (static bounds) are emitted."""
    window, blocks = op.window, op.blocks
    image = _result_shape(op)[2:]
    dims = len(image)
    block = math.prod(window.kernel)

    def term(n: Expr, c: Expr, *rest: Expr) -> Expr:
        pixel, offset = rest[:dims], rest[dims:]
        valid: Expr | None = None
        column: Index = 0
        row: Index = c * block if block > 1 else c
        stride_in_rows = block
        for d in range(dims):
            k, s, dil, nb = window.kernel[d], window.strides[d], window.dilations[d], blocks[d]
            begin = window.pad_begins[d]
            t = pixel[d] + begin if begin else pixel[d]
            t = t - offset[d] * dil if dil > 1 else t - offset[d]
            lowest, highest, last = begin - (k - 1) * dil, image[d] - 1 + begin, (nb - 1) * s
            tests = ([t >= 0] if lowest < 0 else []) + ([t <= last] if highest > last else [])
            if lowest < 0:
                t = maximum(t, 0)
            if highest > last:
                t = minimum(t, last)
            if s > 1:
                q = t // s
                tests.append((q * s).eq(t))
                t = q
            for test in tests:
                valid = test if valid is None else valid & test
            column = column * nb + t if d else t
            stride_in_rows //= k
            row = row + offset[d] * stride_in_rows if stride_in_rows > 1 else row + offset[d]
        value = x[n, row, column]
        return value if valid is None else select(valid, value, 0)

    return [kb.compute(_result_shape(op), x.element_type, term, reduce=("sum", list(window.kernel)))]
