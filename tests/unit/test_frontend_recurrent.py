"""LSTM, GRU and RNN compiled end to end against ONNX Runtime, feature by feature:
directions, sequence_lens (with a reverse direction), initial states, peepholes, clip,
custom activations, input_forget, layout, linear_before_reset, run-time weights."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

import minitvm

RNG = np.random.default_rng(12)
T, B, I, H = 5, 3, 4, 6


def build(op_type: str, gates: int, directions: int, *, inputs: dict, consts: dict, opset: int,
          outputs=("y", "y_h"), **attrs):  # fmt: skip
    names = ["X", "W", "R", "B", "seq", "h0", "c0", "P"]
    present = {**inputs, **consts}
    node_inputs = [n if n in present else "" for n in names]
    while node_inputs and not node_inputs[-1]:
        node_inputs.pop()
    node = helper.make_node(op_type, node_inputs, list(outputs), hidden_size=H, **attrs)
    infos = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
             for n, a in inputs.items()]  # fmt: skip
    graph = helper.make_graph(
        [node], op_type, infos, [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in consts.items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def weights(gates: int, directions: int, bias: bool = True) -> dict[str, np.ndarray]:
    w = {"W": RNG.standard_normal((directions, gates * H, I)).astype(np.float32) * 0.5,
         "R": RNG.standard_normal((directions, gates * H, H)).astype(np.float32) * 0.5}  # fmt: skip
    if bias:
        w["B"] = RNG.standard_normal((directions, 2 * gates * H)).astype(np.float32) * 0.1
    return w


def check(model, feeds) -> None:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    want = ort.InferenceSession(model.SerializeToString(), options).run(None, feeds)
    got = minitvm.compile(model).run(feeds)
    for w, h in zip(want, got, strict=True):
        assert h.shape == w.shape
        np.testing.assert_allclose(h, w, rtol=1e-4, atol=1e-5)


def x_input(layout: int = 0) -> np.ndarray:
    shape = (B, T, I) if layout else (T, B, I)
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("op_type, gates", [("LSTM", 4), ("GRU", 3), ("RNN", 1)])
def test_directions_with_initial_states(op_type: str, gates: int, direction: str) -> None:
    d = 2 if direction == "bidirectional" else 1
    inputs = {"X": x_input(), "h0": RNG.standard_normal((d, B, H)).astype(np.float32)}
    if op_type == "LSTM":
        inputs["c0"] = RNG.standard_normal((d, B, H)).astype(np.float32)
    outputs = ("y", "y_h", "y_c") if op_type == "LSTM" else ("y", "y_h")
    m = build(op_type, gates, d, inputs=inputs, consts=weights(gates, d), opset=14,
              outputs=outputs, direction=direction)  # fmt: skip
    check(m, inputs)


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("op_type, gates", [("LSTM", 4), ("GRU", 3), ("RNN", 1)])
def test_sequence_lens(op_type: str, gates: int, direction: str) -> None:
    d = 2 if direction == "bidirectional" else 1
    inputs = {"X": x_input(), "seq": np.array([5, 2, 3], np.int32)}
    m = build(op_type, gates, d, inputs=inputs, consts=weights(gates, d), opset=14,
              direction=direction)  # fmt: skip
    check(m, inputs)


def test_lstm_peepholes_clip_input_forget_and_activations() -> None:
    consts = {**weights(4, 1), "P": RNG.standard_normal((1, 3 * H)).astype(np.float32)}
    inputs = {"X": x_input() * 3}
    m = build("LSTM", 4, 1, inputs=inputs, consts=consts, opset=14, clip=1.5, input_forget=1,
              activations=["HardSigmoid", "LeakyRelu", "Tanh"], activation_alpha=[0.3, 0.05],
              activation_beta=[0.4], outputs=("y", "y_h", "y_c"))  # fmt: skip
    check(m, inputs)


@pytest.mark.parametrize("before_reset", [0, 1])
def test_gru_linear_before_reset(before_reset: int) -> None:
    inputs = {"X": x_input()}
    m = build("GRU", 3, 2, inputs=inputs, consts=weights(3, 2), opset=14,
              direction="bidirectional", linear_before_reset=before_reset)  # fmt: skip
    check(m, inputs)


@pytest.mark.parametrize("op_type, gates", [("LSTM", 4), ("GRU", 3), ("RNN", 1)])
def test_batch_first_layout(op_type: str, gates: int) -> None:
    """ONNX Runtime has no layout=1 kernels: its oracle is the layout-0 model on X
    transposed, with the outputs transposed back."""
    x = x_input(layout=1)
    consts = weights(gates, 1)
    batch_first = build(op_type, gates, 1, inputs={"X": x}, consts=consts, opset=14, layout=1)
    y, y_h = minitvm.compile(batch_first).run({"X": x})
    time_first = build(op_type, gates, 1, inputs={"X": x.transpose(1, 0, 2)}, consts=consts,
                       opset=14)  # fmt: skip
    want_y, want_h = ort.InferenceSession(time_first.SerializeToString()).run(
        None, {"X": x.transpose(1, 0, 2).copy()}
    )
    np.testing.assert_allclose(y, want_y.transpose(2, 0, 1, 3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y_h, want_h.transpose(1, 0, 2), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op_type, gates", [("LSTM", 4), ("GRU", 3), ("RNN", 1)])
def test_bidirectional_batch_first_with_initial_states(op_type: str, gates: int) -> None:
    """layout=1 gives the initial states as [B, D, H] too."""
    x = x_input(layout=1)
    h0 = RNG.standard_normal((B, 2, H)).astype(np.float32)
    c0 = RNG.standard_normal((B, 2, H)).astype(np.float32)
    states = {"h0": h0, "c0": c0} if op_type == "LSTM" else {"h0": h0}
    outputs = ("y", "y_h", "y_c") if op_type == "LSTM" else ("y", "y_h")
    consts = weights(gates, 2)
    batch_first = build(op_type, gates, 2, inputs={"X": x, **states}, consts=consts, opset=14,
                        outputs=outputs, layout=1, direction="bidirectional")  # fmt: skip
    got = minitvm.compile(batch_first).run({"X": x, **states})
    time_first = {"X": x.transpose(1, 0, 2).copy(),
                  **{k: v.transpose(1, 0, 2).copy() for k, v in states.items()}}  # fmt: skip
    model = build(op_type, gates, 2, inputs=time_first, consts=consts, opset=14, outputs=outputs,
                  direction="bidirectional")  # fmt: skip
    want = ort.InferenceSession(model.SerializeToString()).run(None, time_first)
    np.testing.assert_allclose(got[0], want[0].transpose(2, 0, 1, 3), rtol=1e-4, atol=1e-5)
    for g, w in zip(got[1:], want[1:], strict=True):
        np.testing.assert_allclose(g, w.transpose(1, 0, 2), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op_type, gates", [("LSTM", 4), ("GRU", 3), ("RNN", 1)])
def test_run_time_weights_and_no_bias(op_type: str, gates: int) -> None:
    inputs = {"X": x_input(), **weights(gates, 2, bias=False)}
    m = build(op_type, gates, 2, inputs=inputs, consts={}, opset=7, direction="bidirectional")
    check(m, inputs)
    with_bias = {"X": x_input(), **weights(gates, 1)}
    check(build(op_type, gates, 1, inputs=with_bias, consts={}, opset=14), with_bias)


def test_rnn_relu_activation() -> None:
    inputs = {"X": x_input()}
    m = build("RNN", 1, 1, inputs=inputs, consts=weights(1, 1), opset=14, activations=["Relu"])
    check(m, inputs)
