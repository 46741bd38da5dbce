"""ONNX converters for the sampling ops: GridSample, RoiAlign, Col2Im (graph ops of their own,
`dialects/graph/sampling.py`) and AffineGrid (a composition). Resize is with the other
shape-like ops in onnx_tensor_ops.py.

    GridSample    graph.grid_sample; opset 16's mode names (bilinear, bicubic) become 20's
                  (linear, cubic)
    RoiAlign      graph.roi_align; before opset 16 the coordinates are "output_half_pixel"
    Col2Im        graph.col2im; image_shape and block_shape known at import time
    AffineGrid    constant base grid [D*H*W, k+1] (x, y[, z], 1) @ theta^T: a transpose and a
                  matmul, reshaped to [N, (D,) H, W, k]; size known at import time
"""

from __future__ import annotations

import math

import numpy as np

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
