"""QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear compiled and checked against
ONNX Runtime: per-tensor, per-axis and blocked parameters, the integer types, rounding of
halves to even, saturation, and the zero-range case of the dynamic quantizer."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

import minitvm

RNG = np.random.default_rng(21)


def run_both(nodes, inputs: dict[str, np.ndarray], consts: dict[str, np.ndarray], outputs,
             opset: int = 21) -> None:  # fmt: skip
    infos = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for n, a in inputs.items()
    ]
    graph = helper.make_graph(
        nodes, "q", infos, [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in consts.items()],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    want = ort.InferenceSession(model.SerializeToString()).run(None, inputs)
    got = minitvm.compile(model).run(inputs)
    for w, h in zip(want, got, strict=True):
        assert h.dtype == w.dtype and h.shape == w.shape
        np.testing.assert_allclose(h, w, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16])
def test_per_tensor_round_trip(dtype: type) -> None:
    x = (RNG.standard_normal((3, 40)) * 4).astype(np.float32)
    x.flat[:4] = [0.25, 0.75, -0.25, 1e6]  # halves go to even; 1e6 saturates
    zero = np.array(3 if np.dtype(dtype).kind == "u" else -2, dtype)
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]  # fmt: skip
    run_both(nodes, {"x": x}, {"s": np.array(0.5, np.float32), "z": zero}, ["q", "y"])


def test_per_axis_runtime_parameters() -> None:
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    inputs = {"x": x, "s": np.array([0.1, 0.2, 0.05], np.float32),
              "z": np.array([0, 10, 250], np.uint8)}  # fmt: skip
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=-2)]  # fmt: skip
    run_both(nodes, inputs, {}, ["q", "y"])


def test_blocked() -> None:
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    scale = np.abs(RNG.standard_normal((3, 3))).astype(np.float32) + 0.1
    zero = RNG.integers(-5, 5, (3, 3)).astype(np.int8)
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1, block_size=2),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1, block_size=2)]  # fmt: skip
    run_both(nodes, {"x": x}, {"s": scale, "z": zero}, ["q", "y"])


def test_no_zero_point_and_int32_dequantize() -> None:
    nodes = [helper.make_node("QuantizeLinear", ["x", "s"], ["q"]),
             helper.make_node("DequantizeLinear", ["i", "s"], ["y"])]  # fmt: skip
    inputs = {"x": RNG.standard_normal(9).astype(np.float32),
              "i": RNG.integers(-1000, 1000, 9).astype(np.int32)}  # fmt: skip
    run_both(nodes, inputs, {"s": np.array(0.02, np.float32)}, ["q", "y"])


@pytest.mark.parametrize("kind", ["mixed", "positive", "zeros"])
def test_dynamic_quantize(kind: str) -> None:
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    if kind == "positive":
        x = np.abs(x) + 1
    elif kind == "zeros":
        x = np.zeros_like(x)
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    run_both([node], {"x": x}, {}, ["y", "s", "z"], opset=13)
