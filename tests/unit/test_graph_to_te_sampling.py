"""convert-graph-to-te on the sampling ops (resize, grid_sample, roi_align, col2im) computes
what the graph reference computes.

Each case lowers a one-op module, runs it with the te interpreter (which checks every read
over the whole index space, so these tests also prove that no read leaves its tensor, even
for NaN grid points and boxes) and compares with `reference.evaluate`, itself checked against
ONNX Runtime in test_graph_reference.py.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region

from minitvm.dialects import graph as g
from minitvm.dialects import te_eval
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import tensor_type
from minitvm.dialects.graph.constant import element_type_of
from minitvm.dialects.te import ComputeOp
from minitvm.lowering.graph_to_te import ConvertGraphToTePass

RNG = np.random.default_rng(11)


def rand(*shape: int, lo: float = -2.0, hi: float = 2.0, dtype=np.float32) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(dtype)


def lower(make: Callable[..., Operation], inputs: list[np.ndarray]) -> tuple[ModuleOp, Operation]:
    """The lowered one-op module `make(*args)` and the graph op it was made from."""
    block = Block(arg_types=[tensor_type(x.shape, element_type_of(x.dtype)) for x in inputs])
    op = make(*block.args)
    block.add_ops([op, func.ReturnOp(*op.results)])
    module = ModuleOp([func.FuncOp("main", (block.arg_types, [r.type for r in op.results]),
                                   Region(block))])  # fmt: skip
    module.verify()
    graph_op = op.clone()
    ConvertGraphToTePass().apply(Context(), module)
    module.verify()
    return module, graph_op


def check(make: Callable[..., Operation], inputs: list[np.ndarray], rtol: float = 1e-4) -> ModuleOp:
    """te interpreter vs reference for the op `make` builds; returns the lowered module."""
    module, op = lower(make, inputs)
    (want,) = reference.evaluate(op, inputs)
    (got,) = te_eval.run_module(module, inputs)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-5)
    return module


def computes(module: ModuleOp) -> list[ComputeOp]:
    return [op for op in module.walk() if isinstance(op, ComputeOp)]


# --------------------------------------------------------------------------------------------
# Resize
# --------------------------------------------------------------------------------------------


def _resize(shape, scales, **props) -> Callable[..., Operation]:
    sizes = [int(np.floor(s * f)) for s, f in zip(shape, scales)]
    return lambda v: g.ResizeOp.make(v, sizes=sizes, scales=scales, **props)


TRANSFORMS = ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
              "asymmetric"]  # fmt: skip


@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize("antialias", [0, 1])
@pytest.mark.parametrize("exclude_outside", [0, 1])
@pytest.mark.parametrize("scales", [[1, 1, 0.6, 0.45], [1, 1, 1.7, 2.3], [1, 1, 0.25, 1.0]])
def test_resize_filters(mode, antialias, exclude_outside, scales):
    check(_resize((1, 2, 5, 6), scales, mode=mode, antialias=antialias,
                  exclude_outside=exclude_outside, cubic_coeff_a=-0.5), [rand(1, 2, 5, 6)])  # fmt: skip


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_resize_cubic_coordinates(transform):
    check(_resize((1, 2, 5, 6), [1, 1, 1.4, 0.6], mode="cubic",
                  coordinate_transformation_mode=transform), [rand(1, 2, 5, 6)])  # fmt: skip


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("roi, scales", [
    ([0, 0, 0.1, -0.2, 1, 1, 0.8, 1.3], [1, 1, 1.4, 0.5]),
    ([0, 0, 0.1, 0, 1, 1, 0.8, 1], [1, 1, 1, 1]),  # a crop at scale 1 is no identity
    ([0, 0, 0.9, 0.2, 1, 1, 0.1, 0.7], [1, 1, 0.4, 1.0]),  # a flipped box
])  # fmt: skip
def test_resize_tf_crop_and_resize(mode, roi, scales):
    check(_resize((1, 2, 5, 6), scales, mode=mode, roi=roi, extrapolation_value=3.0,
                  coordinate_transformation_mode="tf_crop_and_resize"), [rand(1, 2, 5, 6)])  # fmt: skip


def test_resize_f16_interpolates_in_f32():
    check(_resize((1, 1, 4, 4), [1, 1, 2, 1.5], mode="cubic"), [rand(1, 1, 4, 4, dtype=np.float16)],
          rtol=2e-3)  # fmt: skip


def test_resize_wide_filters_get_one_compute_per_dim():
    """Bicubic is one compute of 16 taps; antialiased downsampling by 2 stretches the cubic
    to 8 taps a dim: two computes of 8 reads (the first into f32), not one of 64."""
    x = rand(1, 1, 8, 8)
    (one,) = computes(check(_resize((1, 1, 8, 8), [1, 1, 2, 2], mode="cubic"), [x]))
    assert one.shape == (1, 1, 16, 16)
    rows, cols = computes(check(_resize((1, 1, 8, 8), [1, 1, 0.5, 0.5], mode="cubic",
                                        antialias=1), [x]))  # fmt: skip
    assert (rows.shape, cols.shape) == ((1, 1, 4, 8), (1, 1, 4, 4))


# --------------------------------------------------------------------------------------------
# GridSample
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("shapes", [((2, 3, 5, 4), (2, 6, 7, 2)), ((1, 2, 3, 4, 5), (1, 2, 3, 4, 3)),
                                    ((2, 2, 6), (2, 5, 1))])  # fmt: skip
def test_grid_sample(mode, padding, align, shapes):
    """Points up to 1.5x outside the [-1, 1] box: every padding rule applies, reflection
    folds some of them twice."""
    x_shape, grid_shape = shapes
    inputs = [rand(*x_shape), rand(*grid_shape, lo=-2.5, hi=2.5)]
    check(lambda a, b: g.GridSampleOp.make(a, b, mode=mode, padding_mode=padding,
                                           align_corners=align), inputs)  # fmt: skip


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_reads_in_bounds_for_any_grid(padding):
    """NaN and infinite grid points give garbage, but every read stays inside the input (the
    te interpreter would raise)."""
    grid = np.float32([[[[np.nan, 0.5], [np.inf, -np.inf], [1e30, -1e30], [0.2, 0.3]]]])
    module, _ = lower(lambda a, b: g.GridSampleOp.make(a, b, mode="cubic", padding_mode=padding),
                      [rand(1, 2, 4, 4), grid])  # fmt: skip
    (y,) = te_eval.run_module(module, [rand(1, 2, 4, 4), grid])
    assert y.shape == (1, 2, 1, 4)


# --------------------------------------------------------------------------------------------
# RoiAlign
# --------------------------------------------------------------------------------------------

ROIS = np.float32([
    [0, 0, 9, 9], [1.3, 2.1, 7.7, 5.2], [-3, -2, 15, 14], [4, 4, 4.2, 4.3], [20, 20, 30, 30],
    [5, 5, 2, 3], [-40, -30, -20, 50], [-100, -100, 200, 300],
])  # fmt: skip
BATCH = np.array([0, 1, 1, 0, 1, 0, 1, 0], np.int64)


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("transform", ["half_pixel", "output_half_pixel"])
@pytest.mark.parametrize("ratio", [0, 1, 3])
def test_roi_align(mode, transform, ratio):
    """Boxes inside, across and far off the map, smaller than a pixel, of negative size, and
    a box much larger than the map (its bins hold more points than fit on the map: the
    adaptive window must hold every one that counts)."""
    check(lambda a, b, c: g.RoiAlignOp.make(
        a, b, c, mode=mode, coordinate_transformation_mode=transform, sampling_ratio=ratio,
        output_height=3, output_width=4, spatial_scale=0.8), [rand(2, 3, 10, 12), ROIS, BATCH])  # fmt: skip


def test_roi_align_adaptive_window_spans_the_map():
    """sampling_ratio 0: the points are taken from windows of H + 4 and W + 4. The average
    is separable: row and column weights per bin (summed over the windows), then one
    contraction over the rows and one over the columns; the max reduces over the windows."""
    inputs = [rand(1, 3, 6, 5), ROIS[:2], BATCH[:2] * 0]
    module = check(lambda a, b, c: g.RoiAlignOp.make(a, b, c, output_height=2, output_width=4),
                   inputs)  # fmt: skip
    assert [(c.shape, c.extents) for c in computes(module)] == [
        ((2, 2, 6), (10,)), ((2, 4, 5), (9,)), ((2, 3, 2, 5), (6,)), ((2, 3, 2, 4), (5,))]
    module = check(lambda a, b, c: g.RoiAlignOp.make(a, b, c, output_height=2, output_width=4,
                                                     mode="max"), inputs)  # fmt: skip
    assert computes(module)[0].extents == (10, 9)


def test_roi_align_reads_in_bounds_for_any_box():
    rois = np.float32([[np.nan, 0, 3, 3], [0, np.inf, -np.inf, 2], [1e30, -1e30, 1e30, 1e30]])
    batch = np.array([0, 5, -3], np.int64)  # out of range: invalid input, but no stray read
    for ratio in (0, 2):
        module, _ = lower(lambda a, b, c, r=ratio: g.RoiAlignOp.make(
            a, b, c, output_height=2, output_width=2, sampling_ratio=r, mode="max"),
            [rand(1, 1, 4, 4), rois, batch])  # fmt: skip
        (y,) = te_eval.run_module(module, [rand(1, 1, 4, 4), rois, batch])
        assert y.shape == (3, 1, 2, 2)


# --------------------------------------------------------------------------------------------
# Col2Im
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, image, block, props", [
    ((1, 5, 5), [5, 5], [1, 5], {}),
    ((2, 8, 8), [6, 7], [2, 2], {"strides": [2, 3], "pads": [1, 0, 1, 1], "dilations": [1, 2]}),
    ((1, 16, 36), [4, 5, 4], [2, 2, 2], {"strides": [1, 2, 1], "pads": [0, 1, 1, 0, 0, 0]}),
    ((1, 6, 2), [7], [3], {"strides": [3], "dilations": [2], "pads": [2, 1]}),
])  # fmt: skip
def test_col2im(shape, image, block, props):
    check(lambda v: g.Col2ImOp.make(v, image_shape=image, block_shape=block, **props),
          [rand(*shape)])  # fmt: skip


def test_col2im_int32_sums_exactly():
    x = RNG.integers(-1000, 1000, (1, 9, 9)).astype(np.int32)
    check(lambda v: g.Col2ImOp.make(v, image_shape=[5, 5], block_shape=[3, 3], strides=[2, 2],
                                    pads=[1, 1, 1, 1]), [x])  # fmt: skip
