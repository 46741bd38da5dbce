"""ONNX converters for the sampling ops: GridSample, RoiAlign, Col2Im (graph ops of their own,
`dialects/graph/sampling.py`) and AffineGrid (a composition). Resize is with the other
shape-like ops in onnx_tensor_ops.py.

    GridSample    graph.grid_sample; opset 16's mode names (bilinear, bicubic) become 20's
                  (linear, cubic)
    RoiAlign      graph.roi_align; before opset 16 the coordinates are "output_half_pixel"
    Col2Im        graph.col2im; image_shape and block_shape known at import time
    AffineGrid    constant base grid [D*H*W, k+1] (x, y[, z], 1) @ theta^T: a transpose and a
                  matmul, reshaped to [N, (D,) H, W, k]; size known at import time
    DeformConv    graph.grid_sample at every kernel tap moved by its offset (ONNX's reference
                  defines it by GridSample), the mask, and a batched matmul with the weights
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.frontend.onnx_node import NodeContext, Value, converter


def _ints(array: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(array).reshape(-1)]


@converter("GridSample")
def convert_grid_sample(ctx: NodeContext) -> list[Value]:
    """Opset 16 names the modes bilinear (default), nearest, bicubic; opset 20 linear
    (default), nearest, cubic, and allows 3-D (volumetric) grids."""
    if ctx.opset < 20:
        given = ctx.attr_choice("mode", "bilinear", ("bilinear", "nearest", "bicubic"))
        mode = {"bilinear": "linear", "bicubic": "cubic"}.get(given, given)
    else:
        mode = ctx.attr_choice("mode", "linear", ("linear", "nearest", "cubic"))
    padding = ctx.attr_choice("padding_mode", "zeros", ("zeros", "border", "reflection"))
    align = ctx.attr_int("align_corners", 0)
    return [ctx.make1(g.GridSampleOp, ctx.tensor(0), ctx.tensor(1), mode=mode,
                      padding_mode=padding, align_corners=align)]  # fmt: skip


@converter("RoiAlign")
def convert_roi_align(ctx: NodeContext) -> list[Value]:
    """Opset 10 has no coordinate_transformation_mode: its boxes are "output_half_pixel"
    (opset 16 made "half_pixel" the default)."""
    modes = ("half_pixel", "output_half_pixel")
    default = "half_pixel" if ctx.opset >= 16 else "output_half_pixel"
    transform = ctx.attr_choice("coordinate_transformation_mode", default, modes) \
        if ctx.opset >= 16 else default  # fmt: skip
    return [ctx.make1(
        g.RoiAlignOp, ctx.tensor(0), ctx.tensor(1), ctx.tensor(2),
        mode=ctx.attr_choice("mode", "avg", ("avg", "max")),
        output_height=ctx.attr_int("output_height", 1),
        output_width=ctx.attr_int("output_width", 1),
        sampling_ratio=ctx.attr_int("sampling_ratio", 0),
        spatial_scale=ctx.attr_float("spatial_scale", 1.0),
        coordinate_transformation_mode=transform,
    )]  # fmt: skip


@converter("Col2Im")
def convert_col2im(ctx: NodeContext) -> list[Value]:
    """image_shape and block_shape (inputs 1, 2) must be known at import time."""
    image = _ints(ctx.const(1, "image_shape"))
    block = _ints(ctx.const(2, "block_shape"))
    return [ctx.make1(
        g.Col2ImOp, ctx.tensor(0), image_shape=image, block_shape=block,
        strides=ctx.attr_ints("strides"), pads=ctx.attr_ints("pads"),
        dilations=ctx.attr_ints("dilations"),
    )]  # fmt: skip


def affine_base_grid(sizes: list[int], align_corners: bool) -> np.ndarray:
    """[prod(sizes), k + 1]: the normalized coordinates (x, y[, z], 1) of every output point,
    the last dim fastest, as ONNX's reference lays them out (a size-1 dim at 0, as PyTorch)."""
    axes = []
    for n in sizes:
        if align_corners:
            step = 2.0 / (n - 1) if n > 1 else 0.0
            axes.append(-1.0 + np.arange(n) * step if n > 1 else np.zeros(1))
        else:
            step = 2.0 / n
            axes.append(-1.0 + step / 2 + np.arange(n) * step)
    mesh = np.meshgrid(*axes, indexing="ij")
    columns = [m.reshape(-1) for m in reversed(mesh)]  # x (the last dim) first
    return np.stack([*columns, np.ones(math.prod(sizes))], axis=1)


@converter("AffineGrid")
def convert_affine_grid(ctx: NodeContext) -> list[Value]:
    """theta [N, 2, 3] with size (N, C, H, W), or [N, 3, 4] with (N, C, D, H, W): grid[n, p] =
    theta[n] @ (x_p, y_p[, z_p], 1)."""
    size = _ints(ctx.const(1, "size"))
    theta_shape = ctx.shape(0)
    k = len(size) - 2
    if k not in (2, 3) or theta_shape != (size[0], k, k + 1):
        raise ctx.error(
            f"theta {list(theta_shape)} and size {size} must be [N, 2, 3] and (N, C, H, W), or "
            "[N, 3, 4] and (N, C, D, H, W)"
        )
    spatial = size[2:]
    base = affine_base_grid(spatial, bool(ctx.attr_int("align_corners", 0)))
    base_value = ctx.materialize(base.astype(ctx.dtype(0)), f"{ctx.node.output[0]}_base_grid")
    theta_t = ctx.make1(g.TransposeOp, ctx.tensor(0), perm=[0, 2, 1])
    points = ctx.make1(g.MatMulOp, base_value, theta_t)
    return [ctx.make1(g.ReshapeOp, points, shape=[size[0], *spatial, k])]


@converter("DeformConv")
def convert_deform_conv(ctx: NodeContext) -> list[Value]:
    """Deformable convolution (opset 19), 2-D: each kernel tap of each output pixel reads the
    input at its place moved by a learned offset, interpolated bilinearly (zeros outside)
    and scaled by an optional mask; then a plain convolution of those samples.

    As ONNX's reference defines it, the samples are GridSample's (linear, zeros,
    align_corners): one graph.grid_sample per image and offset group reads every tap at
    every output pixel ([N*G_off, C/G_off, K*oH, oW], K = kH*kW), the mask multiplies them,
    and the convolution is a batched matmul of the weights, per group, with those columns
    ([G, oC/G, C/G*K] @ [N, G, C/G*K, oH*oW]), plus the bias."""
    x_shape, w_shape, offset_shape = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    if len(x_shape) != 4:
        raise ctx.error(f"only 2-D deformable convolutions are supported; X has rank {len(x_shape)}")
    n, c, ih, iw = x_shape
    oc, c_per_group, kh, kw = w_shape
    group, offset_groups = ctx.attr_int("group", 1), ctx.attr_int("offset_group", 1)
    kernel = ctx.attr_ints("kernel_shape", [kh, kw])
    pads = ctx.attr_ints("pads", [0, 0, 0, 0])
    strides, dilations = ctx.attr_ints("strides", [1, 1]), ctx.attr_ints("dilations", [1, 1])
    assert kernel is not None and pads is not None and strides is not None
    assert dilations is not None
    if list(kernel) != [kh, kw] or c_per_group * group != c or oc % group or c % offset_groups:
        raise ctx.error(
            f"W {list(w_shape)} does not fit X {list(x_shape)}, kernel_shape {kernel}, group "
            f"{group} and offset_group {offset_groups}"
        )
    taps = kh * kw
    _, offset_channels, oh, ow = offset_shape
    if offset_channels != offset_groups * taps * 2:
        raise ctx.error(f"offset has {offset_channels} channels; offset_group {offset_groups} "
                        f"and a {kh}x{kw} kernel need {offset_groups * taps * 2}")  # fmt: skip
    if ih < 2 or iw < 2:
        raise ctx.error(f"an input of {ih}x{iw} pixels: its sampling grid would divide by zero")
    dtype = ctx.dtype(0)
    # Where each tap of each output pixel reads before its offset, as GridSample's normalized
    # (align_corners) coordinates: [K, oH, oW] each.
    tap_h, tap_w = np.meshgrid(np.arange(kh) * dilations[0], np.arange(kw) * dilations[1],
                               indexing="ij")  # fmt: skip
    at_h = (np.arange(oh) * strides[0] - pads[0])[None, :, None] + tap_h.reshape(-1, 1, 1)
    at_w = (np.arange(ow) * strides[1] - pads[1])[None, None, :] + tap_w.reshape(-1, 1, 1)
    at_h, at_w = (np.broadcast_to(a, (taps, oh, ow)) for a in (at_h, at_w))
    scale_h, scale_w = 2.0 / (ih - 1), 2.0 / (iw - 1)

    def const(array: np.ndarray, what: str) -> SSAValue:
        return ctx.materialize(np.ascontiguousarray(array, dtype=dtype), f"{ctx.node.name}_{what}")

    offset = ctx.make1(g.ReshapeOp, ctx.tensor(2), shape=[n, offset_groups, taps, 2, oh, ow])
    coordinates = []
    for axis, (base, scale) in enumerate(((at_h, scale_h), (at_w, scale_w))):
        starts = [0, 0, 0, axis, 0, 0]
        ends = [n, offset_groups, taps, axis + 1, oh, ow]
        moved = ctx.make1(g.SliceOp, offset, starts=starts, ends=ends, steps=[1] * 6)
        moved = ctx.make1(g.ReshapeOp, moved, shape=[n * offset_groups, taps * oh, ow, 1])
        place = const((base * scale - 1).reshape(1, taps * oh, ow, 1), f"grid{axis}")
        coordinates.append(ctx.make1(g.AddOp, ctx.make1(g.MulOp, moved, const(
            np.array(scale), f"scale{axis}")), place))  # fmt: skip
    grid = ctx.make1(g.ConcatOp, coordinates[::-1], axis=3)  # GridSample wants (x, y)
    images = ctx.make1(g.ReshapeOp, ctx.tensor(0), shape=[n * offset_groups, c // offset_groups, ih, iw])
    samples = ctx.make1(g.GridSampleOp, images, grid, mode="linear", padding_mode="zeros",
                        align_corners=1)  # fmt: skip
    samples = ctx.make1(g.ReshapeOp, samples, shape=[n, offset_groups, c // offset_groups, taps, oh, ow])
    if ctx.has_input(4):
        mask = ctx.make1(g.ReshapeOp, ctx.tensor(4), shape=[n, offset_groups, 1, taps, oh, ow])
        samples = ctx.make1(g.MulOp, samples, mask)
    columns = ctx.make1(g.ReshapeOp, samples, shape=[n, group, c_per_group * taps, oh * ow])
    weights = ctx.make1(g.ReshapeOp, ctx.tensor(1), shape=[group, oc // group, c_per_group * taps])
    y = ctx.make1(g.ReshapeOp, ctx.make1(g.MatMulOp, weights, columns), shape=[n, oc, oh, ow])
    if ctx.has_input(3):
        y = ctx.make1(g.AddOp, y, ctx.make1(g.ReshapeOp, ctx.tensor(3), shape=[1, oc, 1, 1]))
    return [y]
