"""Sampling graph ops: reads at computed, often data-dependent, positions of an image.

    %y = graph.grid_sample %x, %grid {mode = "cubic", padding_mode = "border"}
           : (tensor<1x3x32x32xf32>, tensor<1x16x16x2xf32>) -> tensor<1x3x16x16xf32>
    %r = graph.roi_align %x, %rois, %batch {output_height = 7 : i64, output_width = 7 : i64,
           sampling_ratio = 2 : i64, spatial_scale = 6.250000e-02 : f32}
           : (tensor<2x256x50x50xf32>, tensor<100x4xf32>, tensor<100xi64>) -> tensor<100x256x7x7xf32>
    %i = graph.col2im %cols {image_shape = array<i64: 5, 5>, block_shape = array<i64: 2, 2>}
           : (tensor<1x20x16xf32>) -> tensor<1x5x5x5xf32>
    %k, %o = graph.greedy_nms %boxes, %scores, %max, %iou, %threshold
           : (tensor<1x5x8400xf32>, tensor<1x80x8400xf32>, tensor<i64>, tensor<f32>, tensor<f32>)
           -> (tensor<1x80x8400xi1>, tensor<1x80x8400xi64>)

graph.grid_sample reads the input at the points a tensor gives, graph.roi_align averages (or
takes the max of) bilinear samples inside boxes a tensor gives, graph.col2im sums the columns
of an im2col matrix back into the image, graph.greedy_nms keeps boxes greedily in score order
(NonMaxSuppression). graph.resize (dialects/graph/tensor.py) is their
static relative: its sample points follow from its properties alone. ONNX's reference
implementation (`onnx.reference.ops`) is the spec of each: `dialects/graph/reference.py`
states it in numpy, and docs/graph_ops.md names the differences from ONNX's attributes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f32,
)
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def

from minitvm.dialects.graph.base import (
    GraphOp,
    Props,
    ShapeError,
    as_tensor,
    check_elements,
    fmt_shape,
    get_float,
    get_int,
    get_ints,
    get_str,
    int_attr,
    shape_of,
    tensor_type,
)
from minitvm.dialects.graph.nn import Window, window_output_size

_FORMAT = "operands attr-dict `:` functional-type(operands, results)"


def _check_choice(op_name: str, props: Props, name: str, default: str, allowed: Sequence[str]) -> str:
    value = get_str(props, name, default)
    if value not in allowed:
        raise ShapeError(f"{op_name}: {name} \"{value}\" is not one of {', '.join(allowed)}")
    return value


def _check_flag(op_name: str, props: Props, name: str) -> bool:
    value = get_int(props, name, 0)
    if value not in (0, 1):
        raise ShapeError(f"{op_name}: {name} must be 0 or 1, got {value}")
    return bool(value)


@irdl_op_definition
class GridSampleOp(GraphOp):
    """result[n, c, *o] = input[n, c] sampled at the point grid[n, *o, :].

    input is [N, C, *spatial] (1-3 spatial dims), grid [N, *out, k] with k = the number of
    spatial dims: normalized coordinates in [-1, 1] (-1 and 1 the centers of the edge
    elements with `align_corners`, their outer edges without), the LAST spatial dim first
    (x, y[, z] index W, H[, D]). `mode` "nearest" reads the element nearest the point (ties
    to even), "linear" and "cubic" interpolate (N-linear; N-cubic with Keys' a = -0.75).
    `padding_mode` says what lies outside: "zeros" zeros; "border" the edge elements (points
    outside clamped to the edge); "reflection" the input mirrored at its edges (points and
    taps reflected back inside). PyTorch's grid_sample and ONNX's GridSample (opsets 16, 20).
    """

    name = "graph.grid_sample"
    input = operand_def(TensorType)
    grid = operand_def(TensorType)
    result = result_def(TensorType)
    mode = opt_prop_def(StringAttr, default_value=StringAttr("linear"))
    padding_mode = opt_prop_def(StringAttr, default_value=StringAttr("zeros"))
    align_corners = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    assembly_format = _FORMAT

    MODES: ClassVar[tuple[str, ...]] = ("nearest", "linear", "cubic")
    PADDING_MODES: ClassVar[tuple[str, ...]] = ("zeros", "border", "reflection")

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        grid = as_tensor(cls.name, "grid", operand_types[1])
        check_elements(cls.name, "input", x, "float")
        check_elements(cls.name, "grid", grid, "float")
        shape, points = shape_of(x), shape_of(grid)
        spatial = len(shape) - 2
        if not 1 <= spatial <= 3:
            raise ShapeError(
                f"{cls.name}: input must be [N, C, 1-3 spatial dims], got {fmt_shape(shape)}"
            )
        if len(points) != len(shape) or points[0] != shape[0] or points[-1] != spatial:
            dims = ", ".join(f"out_{d + 1}" for d in range(spatial))
            raise ShapeError(
                f"{cls.name}: grid must be [{shape[0]}, {dims}, {spatial}] (the input's batch, "
                f"the output's {spatial} spatial dims, {spatial} coordinates) for input "
                f"{fmt_shape(shape)}, got {fmt_shape(points)}"
            )
        _check_choice(cls.name, props, "mode", "linear", cls.MODES)
        _check_choice(cls.name, props, "padding_mode", "zeros", cls.PADDING_MODES)
        _check_flag(cls.name, props, "align_corners")
        return [tensor_type((*shape[:2], *points[1:-1]), x.element_type)]


@irdl_op_definition
class RoiAlignOp(GraphOp):
    """result[r, c] = the output_height x output_width bins of box rois[r] over image
    input[batch_indices[r], c], each bin the average (`mode` "avg") or max ("max") of its
    sample points' bilinear interpolations (Mask R-CNN's RoIAlign, ONNX's RoiAlign).

    input is [N, C, H, W], rois [R, 4] boxes (x1, y1, x2, y2) in input-image coordinates,
    scaled by `spatial_scale` onto this feature map, batch_indices [R] (i64 or i32, in
    [0, N)). Each bin holds sampling_ratio x sampling_ratio points (0: ceil(bin size) per
    dim, which depends on the box). `coordinate_transformation_mode` "half_pixel" shifts the
    scaled box by -0.5 (pixel centers; boxes may be smaller than a pixel), "output_half_pixel"
    does not (the pre-opset-16 behaviour; boxes at least 1 x 1). Points more than one pixel
    outside the map count as 0; max mode takes the max of each point's four weighted corner
    values, as ONNX's reference and ONNX Runtime do.
    """

    name = "graph.roi_align"
    input = operand_def(TensorType)
    rois = operand_def(TensorType)
    batch_indices = operand_def(TensorType)
    result = result_def(TensorType)
    output_height = prop_def(IntegerAttr[I64])
    output_width = prop_def(IntegerAttr[I64])
    mode = opt_prop_def(StringAttr, default_value=StringAttr("avg"))
    sampling_ratio = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    spatial_scale = opt_prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))
    coordinate_transformation_mode = opt_prop_def(StringAttr, default_value=StringAttr("half_pixel"))
    assembly_format = _FORMAT

    MODES: ClassVar[tuple[str, ...]] = ("avg", "max")
    COORDINATE_MODES: ClassVar[tuple[str, ...]] = ("half_pixel", "output_half_pixel")

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x, rois, batch = (
            as_tensor(cls.name, n, t)
            for n, t in zip(("input", "rois", "batch_indices"), operand_types)
        )
        check_elements(cls.name, "input", x, "float")
        shape = shape_of(x)
        if len(shape) != 4:
            raise ShapeError(f"{cls.name}: input must be [N, C, H, W], got {fmt_shape(shape)}")
        boxes = shape_of(rois)
        if len(boxes) != 2 or boxes[1] != 4:
            raise ShapeError(f"{cls.name}: rois must be [R, 4] (x1, y1, x2, y2), got {fmt_shape(boxes)}")
        if rois.element_type != x.element_type:
            raise ShapeError(
                f"{cls.name}: rois have element type {rois.element_type} but the input "
                f"{x.element_type}"
            )
        element = batch.element_type
        if not isinstance(element, IntegerType) or element.width.data not in (32, 64):
            raise ShapeError(f"{cls.name}: batch_indices must be i64 or i32, got {element}")
        if shape_of(batch) != (boxes[0],):
            raise ShapeError(
                f"{cls.name}: batch_indices must have shape {boxes[0]} (one per roi), got "
                f"{fmt_shape(shape_of(batch))}"
            )
        height, width = get_int(props, "output_height"), get_int(props, "output_width")
        if height < 1 or width < 1:
            raise ShapeError(
                f"{cls.name}: output_height and output_width must be >= 1, got {height} and {width}"
            )
        if get_int(props, "sampling_ratio", 0) < 0:
            raise ShapeError(
                f"{cls.name}: sampling_ratio must be >= 0 (0: adaptive), got "
                f"{get_int(props, 'sampling_ratio')}"
            )
        get_float(props, "spatial_scale", 1.0)
        _check_choice(cls.name, props, "mode", "avg", cls.MODES)
        _check_choice(cls.name, props, "coordinate_transformation_mode", "half_pixel",
                      cls.COORDINATE_MODES)  # fmt: skip
        return [tensor_type((boxes[0], shape[1], height, width), x.element_type)]


@irdl_op_definition
class Col2ImOp(GraphOp):
    """Rearrange im2col columns into an image, summing the entries that land on one pixel.

    input is [N, C * prod(block_shape), L]: for every channel c and kernel offset k (row
    c * prod(block_shape) + k, k row-major over block_shape) the values of the L sliding
    blocks (row-major over their grid). Block b puts its offset-k entry at image position
    b * strides - pads_begin + k * dilations; positions outside the image are dropped. L
    must be the number of blocks of the window over image_shape. The result is [N, C,
    *image_shape]. ONNX's Col2Im (the adjoint of im2col; PyTorch's fold).
    """

    name = "graph.col2im"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    image_shape = prop_def(DenseArrayBase)
    block_shape = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @property
    def window(self) -> Window:
        """The sliding window: block_shape as the kernel, strides, pads, dilations."""
        return _col2im_window(self.properties)

    @property
    def blocks(self) -> tuple[int, ...]:
        """The number of sliding blocks along each image dim."""
        return _blocks(self.window, get_ints(self.properties, "image_shape"))

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        check_elements(cls.name, "input", x, "numeric")
        shape = shape_of(x)
        image = get_ints(props, "image_shape")
        window = _col2im_window(props)
        dims = len(image)
        if not image or len(window.kernel) != dims or any(d < 1 for d in (*image, *window.kernel)):
            raise ShapeError(
                f"{cls.name}: image_shape {list(image)} and block_shape {list(window.kernel)} "
                "must be non-empty lists of positive sizes of the same length"
            )
        for name, values, want in (
            ("strides", window.strides, dims), ("pads", window.pads, 2 * dims),
            ("dilations", window.dilations, dims),
        ):  # fmt: skip
            if len(values) != want:
                raise ShapeError(
                    f"{cls.name}: {name} has {len(values)} entries but image_shape has {dims} "
                    f"dims (expected {want})"
                )
        if any(s < 1 for s in (*window.strides, *window.dilations)) or any(p < 0 for p in window.pads):
            raise ShapeError(f"{cls.name}: strides and dilations must be >= 1 and pads >= 0")
        if len(shape) != 3:
            raise ShapeError(f"{cls.name}: input must be [N, C * block size, L], got {fmt_shape(shape)}")
        block = math.prod(window.kernel)
        if shape[1] % block:
            raise ShapeError(
                f"{cls.name}: input dim 1 ({shape[1]}) must be a multiple of the block size "
                f"{block} (the product of block_shape {list(window.kernel)})"
            )
        blocks = _blocks(window, image)
        if any(b < 1 for b in blocks):
            raise ShapeError(
                f"{cls.name}: a block of shape {list(window.kernel)} (dilated, padded) does "
                f"not fit image_shape {list(image)}"
            )
        if shape[2] != math.prod(blocks):
            raise ShapeError(
                f"{cls.name}: input dim 2 ({shape[2]}) must be the number of sliding blocks, "
                f"{math.prod(blocks)} ({fmt_shape(blocks)})"
            )
        return [tensor_type((shape[0], shape[1] // block, *image), x.element_type)]


def _col2im_window(props: Props) -> Window:
    kernel = get_ints(props, "block_shape")
    dims = len(kernel)
    return Window(
        kernel,
        get_ints(props, "strides", [1] * dims),
        get_ints(props, "pads", [0] * (2 * dims)),
        get_ints(props, "dilations", [1] * dims),
    )


def _blocks(window: Window, image: Sequence[int]) -> tuple[int, ...]:
    return tuple(
        window_output_size(size, k, s, begin, end, d)
        for size, k, s, begin, end, d in zip(
            image, window.kernel, window.strides, window.pad_begins, window.pad_ends,
            window.dilations,
        )
    )  # fmt: skip


@irdl_op_definition
class GreedyNmsOp(GraphOp):
    """NonMaxSuppression's greedy pass, per batch b and class c over that class's candidate
    boxes (those scoring above `threshold` when `thresholded`, else all) from the best score
    down, ties to the lower index: a box is kept when its IoU with none of the boxes kept so
    far is above `iou`; the pass ends once `max_boxes` are kept or the candidates run out.
    Results: `order[b, c, t]` the candidate of rank t for each rank the pass looked at, -1
    after; `keep[b, c, t]` whether it was kept (false after).

    `boxes` is [batch, n, 4] as ONNX gives them: two corners in either order, [y1, x1, y2,
    x2], or with `center_point_box` [x_center, y_center, width, height]; the pass works on
    x0, y0, x1, y1 (x0 <= x1, y0 <= y1: the min and max of the corners' coordinates, or the
    center -/+ half the size, half = size * 0.5) and area = (x1 - x0) * (y1 - y0), in f32.
    `scores` [batch, classes, n]; `max_boxes` (i64), `iou` and `threshold` (f32) scalars. The
    IoU of a candidate p and a kept box q is inter / union with inter = ix * iy, ix =
    min(p.x1, q.x1) - max(p.x0, q.x0) (iy alike) and union = (p.area + q.area) - inter; it
    counts only where ix, iy, inter, both areas and union are positive (a degenerate box
    suppresses nothing). Written into @main as loops (lowering/nms_to_loop.py): each batch's
    corners and areas worked out in one pass over its boxes, then per class the candidates in
    a heap, popped in rank order only as far as the pass goes, each compared with the kept
    boxes only.

        %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %threshold {thresholded = 1 : i64}
          : (tensor<1x8400x4xf32>, tensor<1x80x8400xf32>, tensor<i64>, tensor<f32>, tensor<f32>)
          -> (tensor<1x80x8400xi1>, tensor<1x80x8400xi64>)
    """

    name = "graph.greedy_nms"
    boxes = operand_def(TensorType)
    scores = operand_def(TensorType)
    max_boxes = operand_def(TensorType)
    iou = operand_def(TensorType)
    threshold = operand_def(TensorType)
    keep = result_def(TensorType)
    order = result_def(TensorType)
    thresholded = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    center_point_box = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        names = ("boxes", "scores", "max_boxes", "iou", "threshold")
        boxes, scores, most, iou, threshold = (as_tensor(cls.name, n, t) for n, t in zip(names, operand_types))
        shape = shape_of(scores)
        if len(shape) != 3 or scores.element_type != f32:
            raise ShapeError(f"{cls.name}: scores must be [batch, classes, boxes] of f32, got {scores}")
        batch, _, n = shape
        if shape_of(boxes) != (batch, n, 4) or boxes.element_type != f32:
            raise ShapeError(
                f"{cls.name}: boxes must be [batch, boxes, 4] of f32, {fmt_shape((batch, n, 4))}, "
                f"got {boxes}"
            )
        for name, value, element in (("max_boxes", most, IntegerType(64)), ("iou", iou, f32), ("threshold", threshold, f32)):
            if shape_of(value) or value.element_type != element:
                raise ShapeError(f"{cls.name}: {name} must be a tensor<{element}> (a scalar), got {value}")
        _check_flag(cls.name, props, "thresholded")
        _check_flag(cls.name, props, "center_point_box")
        return [tensor_type(shape, IntegerType(1)), tensor_type(shape, IntegerType(64))]

    @property
    def is_thresholded(self) -> bool:
        return get_int(self.properties, "thresholded", 0) == 1

    @property
    def has_centers(self) -> bool:
        """Boxes are [x_center, y_center, width, height] (else two corners)."""
        return get_int(self.properties, "center_point_box", 0) == 1


SAMPLING_OPS = [GridSampleOp, RoiAlignOp, Col2ImOp, GreedyNmsOp]
