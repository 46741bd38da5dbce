"""Failures `minitvm fuzz` found, each as the graph its reducer left, compiled and compared
with ONNX Runtime."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.runtime.ort import ort_session


def _constant_node_model(op_type: str, constants: dict[str, np.ndarray], out_shape: list[int],
                         **attrs: object) -> onnx.ModelProto:  # fmt: skip
    """A graph of one node whose inputs are all initializers (so the frontend folds it)."""
    node = helper.make_node(op_type, list(constants), ["y"], **attrs)
    graph = helper.make_graph(
        [node], "found", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        [numpy_helper.from_array(a, n) for n, a in constants.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def _check(model: onnx.ModelProto) -> None:
    want = ort_session(model, 1)({})
    got = minitvm.compile(model, opt_level=3, num_threads=1).run({})
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=0)


def test_constant_global_lp_pool_compiles():
    """s5-157: ONNX's reference evaluator has no GlobalLpPool, and folding the node at import
    time failed ("No registered implementation"); it is compiled instead."""
    x = np.array([[[[0.0], [0.0], [1.0], [0.0]]]], np.float32)
    _check(_constant_node_model("GlobalLpPool", {"x": x}, [1, 1, 1, 1], p=1))


def test_constant_gather_elements_with_fewer_indices_than_data_compiles():
    """s5-201: GatherElements' indices may be smaller than the data along the other axes
    (ONNX Runtime and the spec allow it); ONNX's reference evaluator refuses them, so folding
    failed ("all dimensions of index and self should be the same size")."""
    data = np.array([[0.0416666679], [0.0104166670], [-0.3333333433]], np.float32)
    index = np.array([[-1], [-1]], np.int64)
    _check(_constant_node_model("GatherElements", {"data": data, "index": index}, [2, 1],
                                axis=-1))  # fmt: skip


def test_ceil_mode_pool_whose_last_window_starts_in_the_padding_compiles():
    """s2-53: MaxPool(kernel 1, stride 3, ceil_mode) of 3 values has one output: the window
    that would start at 3 lies in the padding, and the ONNX spec and ONNX Runtime drop it.
    ONNX 1.23's shape inference counts it, and the frontend refused the model because its
    (correct) shape disagreed; downstream of the pool, too."""
    pool = helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[1], strides=[3], ceil_mode=1)
    relu = helper.make_node("Relu", ["p"], ["y"])
    graph = helper.make_graph(
        [pool, relu], "found", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6, 3])],
        [helper.make_empty_tensor_value_info("y")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    x = np.random.default_rng(0).standard_normal((2, 6, 3)).astype(np.float32)
    want = ort_session(model, 1)({"x": x})[0]
    got = minitvm.compile(model, opt_level=3, num_threads=1).run({"x": x})[0]
    assert want.shape == (2, 6, 1)
    np.testing.assert_array_equal(got, want)


def test_constant_global_max_pool_of_a_3d_input_compiles():
    """s10-401: ONNX's reference evaluator gives GlobalMaxPool of a [1, 22, 2] constant the
    shape (1, 1), dropping the channel axis (the spec, shape inference and ONNX Runtime:
    (1, 22, 1)); a folded result whose shape shape inference contradicts is not trusted, the
    node is compiled."""
    x = np.linspace(-2, 3, 44, dtype=np.float32).reshape(1, 22, 2)
    for op_type in ("GlobalMaxPool", "GlobalAveragePool"):
        _check(_constant_node_model(op_type, {"x": x}, [1, 22, 1]))


def test_cubic_align_corners_resize_then_lrn_follows_the_spec_where_both_oracles_depart():
    """s17-140, reduced: Resize (cubic, align_corners, 4x3 -> 12x4) then LRN (size 1). ORT
    departs from the spec on the Resize (0.88 from ONNX's reference there), and ONNX's
    reference departs on the LRN (its loop runs over the batch axis, not the channels:
    every channel but the first gets no square sum), so neither oracle can judge the pair.
    minitvm follows the spec on both: the reference's Resize, then LRN's formula."""
    from onnx.reference import ReferenceEvaluator

    scales = numpy_helper.from_array(np.array([1, 1, 3, 1.5], np.float32), "scales")
    resize = helper.make_node("Resize", ["x", "", "scales"], ["r"], mode="cubic",
                              coordinate_transformation_mode="align_corners")  # fmt: skip
    lrn = helper.make_node("LRN", ["r"], ["y"], alpha=0.01, beta=0.75, bias=2.0, size=1)
    graph = helper.make_graph(
        [resize, lrn], "found", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 12, 4])], [scales],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    x = (np.arange(36, dtype=np.float32).reshape(1, 3, 4, 3) % 7 - 3) / 2
    resize_only = helper.make_model(
        helper.make_graph([resize], "r", graph.input,
                          [helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 3, 12, 4])],
                          [scales]),
        opset_imports=[helper.make_opsetid("", 21)],
    )  # fmt: skip
    r = ReferenceEvaluator(resize_only).run(None, {"x": x})[0].astype(np.float64)
    want = r / (2.0 + 0.01 * r**2) ** 0.75  # size 1: each value's own square
    for opt_level in (1, 3):
        got = minitvm.compile(model, opt_level=opt_level, num_threads=1).run({"x": x})[0]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
