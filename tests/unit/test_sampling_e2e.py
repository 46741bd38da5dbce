"""The sampling ops end to end: `minitvm.compile` at opt level 3 against ONNX Runtime (one
thread) at small but realistic shapes.

Resize in cubic mode (cubic_coeff_a, exclude_outside), with antialias (linear and cubic,
downsampling) and tf_crop_and_resize (roi, extrapolation_value, axes); GridSample in every
mode, padding and align_corners, 4-D at opsets 16 (bilinear, bicubic) and 20, 5-D
(volumetric) at 20; AffineGrid 2-D and 3-D, and feeding GridSample (a spatial transformer);
RoiAlign at opsets 10 and 16, avg and max, fixed and adaptive sampling, both coordinate
modes; Col2Im with strides, pads and dilations. Where ONNX Runtime departs from ONNX's
reference, which minitvm follows (Resize's align_corners when scale * size is fractional, a
bicubic grid point outside the image under border padding), the inputs stay where the two
agree, or the reference is the oracle.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import minitvm
from minitvm.dialects import graph as g
from minitvm.frontend import from_onnx

RNG = np.random.default_rng(2024)


def rand(*shape: int, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def model(
    nodes: list[onnx.NodeProto],
    feeds: dict[str, np.ndarray],
    consts: dict[str, np.ndarray],
    opset: int,
) -> onnx.ModelProto:
    """`nodes` (ending in output "y") over graph inputs `feeds` and initializers `consts`."""
    graph = helper.make_graph(
        nodes, "sampling",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
         for n, a in feeds.items()],
        [helper.make_empty_tensor_value_info("y")],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in consts.items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def compare(proto: onnx.ModelProto, feeds: dict[str, np.ndarray], oracle: str = "ort") -> None:
    got = minitvm.compile(proto, opt_level=3, num_threads=1).run(feeds)[0]
    if oracle == "onnx":
        want = ReferenceEvaluator(proto).run(None, feeds)[0]
    else:
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(proto.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])  # fmt: skip
        want = session.run(None, feeds)[0]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------------------------
# Resize
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("attrs, scales, sizes", [
    ({"mode": "cubic"}, [1, 1, 2, 2], None),
    ({"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1}, [1, 1, 1.5, 0.75], None),
    ({"mode": "cubic", "coordinate_transformation_mode": "align_corners"}, None, [1, 3, 63, 47]),
    ({"mode": "cubic", "coordinate_transformation_mode": "pytorch_half_pixel"}, None,
     [1, 3, 20, 40]),
    ({"mode": "cubic", "antialias": 1}, [1, 1, 0.5, 0.5], None),
    ({"mode": "cubic", "antialias": 1, "exclude_outside": 1}, None, [1, 3, 13, 21]),
    ({"mode": "linear", "antialias": 1}, [1, 1, 0.25, 0.6], None),
    ({"mode": "linear", "antialias": 1, "axes": [3, 2]}, [0.5, 1.0], None),
])  # fmt: skip
def test_resize_filters(attrs, scales, sizes):
    x = rand(1, 3, 32, 24)
    consts = {"scales": np.float32(scales)} if scales is not None else {"sizes": np.int64(sizes)}
    inputs = ["x", "", "scales"] if scales is not None else ["x", "", "", "sizes"]
    compare(model([helper.make_node("Resize", inputs, ["y"], **attrs)], {"x": x}, consts, 19),
            {"x": x})  # fmt: skip


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("opset", [11, 19])
def test_resize_tf_crop_and_resize(mode, opset):
    """A box reaching past the image on three sides; sizes, so that ONNX Runtime's rounded
    output length is the reference's scale * size."""
    x = rand(2, 3, 24, 32)
    roi = np.float32([0, 0, -0.1, 0.2, 1, 1, 0.7, 1.3])
    consts = {"roi": roi, "scales": np.zeros(0, np.float32), "sizes": np.int64([2, 3, 20, 28])}
    node = helper.make_node("Resize", ["x", "roi", "scales", "sizes"], ["y"], mode=mode,
                            coordinate_transformation_mode="tf_crop_and_resize",
                            extrapolation_value=-3.0)  # fmt: skip
    compare(model([node], {"x": x}, consts, opset), {"x": x})


def test_resize_tf_crop_and_resize_axes():
    x = rand(1, 2, 16, 16)
    consts = {"roi": np.float32([0.25, 0.1, 0.75, 0.6]), "sizes": np.int64([12, 8])}
    node = helper.make_node("Resize", ["x", "roi", "", "sizes"], ["y"], mode="linear", axes=[3, 2],
                            coordinate_transformation_mode="tf_crop_and_resize")  # fmt: skip
    compare(model([node], {"x": x}, consts, 19), {"x": x})


def test_resize_cubic_align_corners_downsampling_follows_the_reference():
    """3.2 x 24 = 76.8: ONNX Runtime uses 76 as length_resized, ONNX's reference 76.8."""
    x = rand(1, 2, 24, 24)
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="cubic",
                            coordinate_transformation_mode="align_corners")  # fmt: skip
    proto = model([node], {"x": x}, {"scales": np.float32([1, 1, 0.7, 3.2])}, 19)
    compare(proto, {"x": x}, oracle="onnx")


# --------------------------------------------------------------------------------------------
# GridSample and AffineGrid
# --------------------------------------------------------------------------------------------

GRID_MODES = {16: ("nearest", "bilinear", "bicubic"), 20: ("nearest", "linear", "cubic")}


@pytest.mark.parametrize("opset", [16, 20])
@pytest.mark.parametrize("mode_index", [0, 1, 2])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [0, 1])
def test_grid_sample(opset, mode_index, padding, align):
    """Points up to 30% outside the image, but for bicubic under border padding, where ONNX
    Runtime (like PyTorch) does not clamp the point before taking its taps (minitvm follows
    ONNX's reference, which does)."""
    mode = GRID_MODES[opset][mode_index]
    reach = 1.0 if mode_index == 2 and padding == "border" else 1.3
    x, grid = rand(2, 4, 16, 16), rand(2, 12, 10, 2, lo=-reach, hi=reach)
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode, padding_mode=padding,
                            align_corners=align)  # fmt: skip
    compare(model([node], {"x": x, "grid": grid}, {}, opset), {"x": x, "grid": grid})


@pytest.mark.parametrize("mode", ["nearest", "linear"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [0, 1])
def test_grid_sample_volumetric(mode, padding, align):
    x, grid = rand(1, 3, 6, 8, 8), rand(1, 4, 5, 6, 3, lo=-1.2, hi=1.2)
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode, padding_mode=padding,
                            align_corners=align)  # fmt: skip
    compare(model([node], {"x": x, "grid": grid}, {}, 20), {"x": x, "grid": grid})


def test_grid_sample_volumetric_cubic_follows_the_reference():
    """ONNX Runtime has bicubic for 4-D inputs only."""
    x, grid = rand(1, 2, 4, 5, 6), rand(1, 3, 3, 4, 3, lo=-1.2, hi=1.2)
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode="cubic")
    compare(model([node], {"x": x, "grid": grid}, {}, 20), {"x": x, "grid": grid}, oracle="onnx")


@pytest.mark.parametrize("size", [[2, 3, 12, 20], [2, 3, 5, 6, 7]])
@pytest.mark.parametrize("align", [0, 1])
def test_affine_grid(size, align):
    k = len(size) - 2
    theta = rand(2, k, k + 1, lo=-1.5, hi=1.5)
    node = helper.make_node("AffineGrid", ["theta", "size"], ["y"], align_corners=align)
    proto = model([node], {"theta": theta}, {"size": np.int64(size)}, 20)
    module = from_onnx(proto)
    assert not any(isinstance(op, g.GridSampleOp) for op in module.walk())
    assert sum(isinstance(op, g.MatMulOp) for op in module.walk()) == 1
    compare(proto, {"theta": theta})


def test_spatial_transformer():
    """AffineGrid's grid feeding GridSample: rotate, scale and shift a feature map."""
    x = rand(2, 8, 20, 24)
    angle, scale = np.float32(0.3), np.float32(0.8)
    rotation = scale * np.float32([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    theta = np.stack([np.concatenate([rotation, np.float32([[0.1], [-0.2]])], axis=1)] * 2)
    nodes = [
        helper.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=0),
        helper.make_node("GridSample", ["x", "grid"], ["y"], mode="linear"),
    ]
    feeds = {"x": x, "theta": theta.astype(np.float32)}
    compare(model(nodes, feeds, {"size": np.int64([2, 8, 16, 16])}, 20), feeds)


# --------------------------------------------------------------------------------------------
# RoiAlign and Col2Im
# --------------------------------------------------------------------------------------------


def _boxes(count: int, height: int, width: int, scale: float) -> np.ndarray:
    """Boxes in input-image coordinates (the feature map times 1 / scale), some reaching past
    the map, a few smaller than a pixel."""
    x1 = RNG.uniform(-4, width / scale, count)
    y1 = RNG.uniform(-4, height / scale, count)
    w = RNG.uniform(0.5, width / scale / 2, count)
    h = RNG.uniform(0.5, height / scale / 2, count)
    return np.stack([x1, y1, x1 + w, y1 + h], axis=1).astype(np.float32)


@pytest.mark.parametrize("opset, transform", [(10, None), (16, "half_pixel"),
                                              (16, "output_half_pixel")])  # fmt: skip
@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("ratio", [0, 2])
def test_roi_align(opset, transform, mode, ratio):
    x = rand(2, 8, 24, 20)
    rois = _boxes(12, 24, 20, 0.25)
    batch = RNG.integers(0, 2, 12).astype(np.int64)
    attrs = {"mode": mode, "output_height": 7, "output_width": 5, "sampling_ratio": ratio,
             "spatial_scale": 0.25}  # fmt: skip
    if transform is not None:
        attrs["coordinate_transformation_mode"] = transform
    node = helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], **attrs)
    feeds = {"x": x, "rois": rois, "batch": batch}
    compare(model([node], feeds, {}, opset), feeds)


@pytest.mark.parametrize("image, block, attrs", [
    ([16, 16], [3, 3], {"pads": [1, 1, 1, 1]}),
    ([15, 17], [2, 3], {"strides": [2, 3], "pads": [1, 0, 0, 2], "dilations": [2, 1]}),
    ([6, 8, 7], [2, 3, 2], {"strides": [2, 1, 3], "pads": [1, 1, 0, 0, 0, 1]}),
])  # fmt: skip
def test_col2im(image, block, attrs):
    """The columns of an im2col with the same window, 4 channels."""
    strides = attrs.get("strides", [1] * len(image))
    pads = attrs.get("pads", [0] * 2 * len(image))
    dilations = attrs.get("dilations", [1] * len(image))
    blocks = [(i + pads[d] + pads[d + len(image)] - dilations[d] * (b - 1) - 1) // strides[d] + 1
              for d, (i, b) in enumerate(zip(image, block))]  # fmt: skip
    x = rand(2, 4 * int(np.prod(block)), int(np.prod(blocks)))
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], **attrs)
    consts = {"image": np.int64(image), "block": np.int64(block)}
    compare(model([node], {"x": x}, consts, 18), {"x": x})


# --------------------------------------------------------------------------------------------
# DeformConv
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("attrs, mask, bias", [
    ({}, False, False),
    ({"pads": [1, 1, 1, 1]}, True, True),
    ({"strides": [2, 1], "dilations": [1, 2], "pads": [2, 0, 1, 2]}, True, False),
    ({"group": 2, "offset_group": 2, "pads": [1, 1, 1, 1]}, True, True),
    ({"group": 4, "offset_group": 1, "strides": [2, 2]}, False, True),
])  # fmt: skip
def test_deform_conv(attrs, mask, bias):
    """Offsets up to 3 pixels either way, so taps land between pixels and outside the image
    (zeros there); the weights, offsets and mask are run-time inputs, as models feed them."""
    n, c, oc, h, w, k = 2, 8, 12, 9, 11, 3
    group = attrs.get("group", 1)
    strides, dilations = attrs.get("strides", [1, 1]), attrs.get("dilations", [1, 1])
    pads = attrs.get("pads", [0, 0, 0, 0])
    oh = (h + pads[0] + pads[2] - dilations[0] * (k - 1) - 1) // strides[0] + 1
    ow = (w + pads[1] + pads[3] - dilations[1] * (k - 1) - 1) // strides[1] + 1
    offset_group = attrs.get("offset_group", 1)
    feeds = {"x": rand(n, c, h, w), "w": rand(oc, c // group, k, k),
             "offset": rand(n, offset_group * k * k * 2, oh, ow, lo=-3, hi=3)}  # fmt: skip
    inputs = ["x", "w", "offset", "", ""]
    if bias:
        feeds["b"], inputs[3] = rand(oc), "b"
    if mask:
        feeds["mask"], inputs[4] = rand(n, offset_group * k * k, oh, ow, lo=0, hi=1), "mask"
    node = helper.make_node("DeformConv", inputs, ["y"], kernel_shape=[k, k], **attrs)
    compare(model([node], feeds, {}, 19), feeds)
