"""DFT and STFT (frontend/onnx_signal.py) compiled end to end against ONNX Runtime, and the
structure of what they import to: one matmul with a constant DFT matrix (DFT), one strided
conv (STFT).

ONNX Runtime's float32 FFT is off by ~1e-5 of the signal's magnitude (it misses the node
tests' tolerance for that reason), so results are compared within that of the largest
output; where the exact answer is 0 (the imaginary part of a real signal's DC and Nyquist
bins) minitvm's must be exactly 0, as the reference's is.
"""

from __future__ import annotations

import collections

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

import minitvm
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx

RNG = np.random.default_rng(17)


def dft_model(
    shape: tuple[int, ...],
    opset: int,
    axis: int | None = None,
    dft_length: int | None = None,
    dtype: type = np.float32,
    **attrs: int,
) -> onnx.ModelProto:
    """A DFT node over input x; axis is an attribute before opset 20 and an initializer from
    it, dft_length an initializer."""
    inits, names = [], ["x", "", ""]
    if dft_length is not None:
        inits.append(numpy_helper.from_array(np.array(dft_length, np.int64), "dft_length"))
        names[1] = "dft_length"
    if axis is not None and opset >= 20:
        inits.append(numpy_helper.from_array(np.array(axis, np.int64), "axis"))
        names[2] = "axis"
    elif axis is not None:
        attrs["axis"] = axis
    while not names[-1]:
        names.pop()
    node = helper.make_node("DFT", names, ["y"], **attrs)
    graph = helper.make_graph(
        [node], "dft", [helper.make_tensor_value_info("x", _elem(dtype), shape)],
        [helper.make_empty_tensor_value_info("y")], inits,
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _elem(dtype: type) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def run_both(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    got = minitvm.compile(model).run(feeds)[0]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return got, session.run(None, feeds)[0]


def assert_close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * float(np.abs(want).max()))


DFT_CASES = [
    # shape, axis, attrs, dft_length
    ((2, 16, 1), 1, {}, None),  # real input, full spectrum
    ((2, 16, 2), 1, {}, None),  # complex input
    ((2, 16, 1), 1, {"onesided": 1}, None),  # RFFT
    ((2, 15, 1), 1, {"onesided": 1}, None),  # RFFT of odd length
    ((2, 16, 2), 1, {"inverse": 1}, None),
    ((2, 9, 2), 1, {"inverse": 1, "onesided": 1}, None),  # IRFFT, default length 16
    ((2, 9, 2), 1, {"inverse": 1, "onesided": 1}, 17),  # IRFFT of odd length
    ((3, 5, 7, 1), 2, {}, None),  # not the last signal axis: transposed around the matmul
    ((3, 5, 7, 2), 1, {}, None),
    ((2, 12, 1), 1, {}, 20),  # zero-padded to dft_length
    ((2, 12, 2), 1, {}, 8),  # truncated to dft_length
    ((2, 12, 1), 1, {"onesided": 1}, 7),
]


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("shape, axis, attrs, dft_length", DFT_CASES)
def test_dft_matches_onnxruntime(
    shape: tuple[int, ...], axis: int, attrs: dict[str, int], dft_length: int | None, opset: int
) -> None:
    model = dft_model(shape, opset, axis, dft_length, **attrs)
    x = RNG.standard_normal(shape).astype(np.float32)
    got, want = run_both(model, {"x": x})
    assert_close(got, want)


def test_dft_default_axis_per_opset() -> None:
    """Opset 17's default axis is 1, opset 20's -2 (the last signal axis)."""
    x = RNG.standard_normal((2, 4, 6, 1)).astype(np.float32)
    for opset, axis in ((17, 1), (20, 2)):
        got = minitvm.compile(dft_model(x.shape, opset)).run({"x": x})[0]
        want = np.fft.fft(x[..., 0].astype(np.float64), axis=axis)
        np.testing.assert_allclose(got, np.stack([want.real, want.imag], -1), rtol=1e-4,
                                   atol=1e-5)  # fmt: skip


def test_real_signal_dc_and_nyquist_are_exactly_real() -> None:
    x = RNG.standard_normal((3, 10, 1)).astype(np.float32)
    forward = minitvm.compile(dft_model(x.shape, 20, axis=1)).run({"x": x})[0]
    assert np.all(forward[:, [0, 5], 1] == 0)
    spectrum = np.fft.rfft(x[..., 0].astype(np.float64), axis=1)
    y = np.stack([spectrum.real, spectrum.imag], -1).astype(np.float32)
    model = dft_model(y.shape, 20, axis=1, inverse=1, onesided=1)
    back = minitvm.compile(model).run({"x": y})[0]
    np.testing.assert_allclose(back, x, rtol=1e-4, atol=1e-5)


def test_dft_is_one_matmul() -> None:
    module = from_onnx(dft_model((1, 64, 1), 20, axis=1))
    ops = collections.Counter(op.name for op in module.walk() if op.name.startswith("graph."))
    assert ops["graph.matmul"] == 1 and "graph.transpose" not in ops


@pytest.mark.parametrize(
    "shape, axis, message",
    [
        ((2, 8, 1), -1, "axis -1 is out of range for rank 3"),
        ((2, 8, 3), 1, "last dim of input must be 1 .real. or 2 .complex."),
    ],
)
def test_dft_errors(shape: tuple[int, ...], axis: int, message: str) -> None:
    with pytest.raises(FrontendError, match=message):
        from_onnx(dft_model(shape, 20, axis))


def stft_model(
    signal: tuple[int, ...],
    step: int,
    window: np.ndarray | None = None,
    window_input: bool = False,
    frame_length: int | None = None,
    dtype: type = np.float32,
    **attrs: int,
) -> onnx.ModelProto:
    """An STFT node; frame_step and frame_length are initializers, the window an initializer
    or (window_input) a graph input. onesided is always given: ONNX's shape inference takes
    0 for a missing one where the schema (and ONNX Runtime, and the reference) say 1."""
    attrs.setdefault("onesided", 1)
    inputs = [helper.make_tensor_value_info("signal", _elem(dtype), signal)]
    inits = [numpy_helper.from_array(np.array(step, np.int64), "frame_step")]
    names = ["signal", "frame_step", "", ""]
    if window is not None:
        names[2] = "window"
        if window_input:
            inputs.append(helper.make_tensor_value_info("window", _elem(dtype), window.shape))
        else:
            inits.append(numpy_helper.from_array(window.astype(dtype), "window"))
    if frame_length is not None:
        names[3] = "frame_length"
        inits.append(numpy_helper.from_array(np.array(frame_length, np.int64), "frame_length"))
    while not names[-1]:
        names.pop()
    node = helper.make_node("STFT", names, ["y"], **attrs)
    graph = helper.make_graph(
        [node], "stft", inputs, [helper.make_empty_tensor_value_info("y")], inits
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


HANN = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)).astype(np.float32)


@pytest.mark.parametrize(
    "signal, step, window, window_input, frame_length, attrs",
    [
        ((2, 128, 1), 8, None, False, 16, {}),
        ((2, 128, 1), 8, HANN, False, None, {}),  # the window folded into the taps
        ((2, 128, 1), 4, HANN, True, 16, {}),  # a run-time window multiplies the taps
        ((1, 100, 1), 10, HANN, False, None, {"onesided": 0}),
        ((2, 64, 2), 16, None, False, 16, {"onesided": 0}),  # complex signal
        ((1, 50, 1), 7, None, False, 9, {}),  # odd frame length, a partial last frame dropped
    ],
)
def test_stft_matches_onnxruntime(
    signal: tuple[int, ...],
    step: int,
    window: np.ndarray | None,
    window_input: bool,
    frame_length: int | None,
    attrs: dict[str, int],
) -> None:
    model = stft_model(signal, step, window, window_input, frame_length, **attrs)
    feeds = {"signal": RNG.standard_normal(signal).astype(np.float32)}
    if window_input:
        assert window is not None
        feeds["window"] = window
    got, want = run_both(model, feeds)
    assert_close(got, want)


def test_stft_is_one_conv() -> None:
    module = from_onnx(stft_model((1, 256, 1), 8, HANN))
    ops = collections.Counter(op.name for op in module.walk() if op.name.startswith("graph."))
    assert ops["graph.conv"] == 1 and "graph.gather" not in ops and "graph.mul" not in ops


def test_stft_window_length_must_match() -> None:
    with pytest.raises(FrontendError, match="the window has 16 samples, frame_length is 8"):
        from_onnx(stft_model((1, 64, 1), 4, HANN, frame_length=8))


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-10), (np.float16, 2e-3)])
def test_other_float_types(dtype: type, tol: float) -> None:
    """float64 transforms in float64, float16 in float32 and rounds once (numpy's float64
    FFT is the oracle)."""
    x = RNG.standard_normal((2, 24, 2)).astype(dtype)
    model = dft_model(x.shape, 20, axis=1, dtype=dtype)
    got = minitvm.compile(model).run({"x": x})[0]
    want = np.fft.fft(x[..., 0].astype(np.float64) + 1j * x[..., 1], axis=1)
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float64), np.stack([want.real, want.imag], -1),
                               rtol=tol, atol=tol * float(np.abs(want).max()))  # fmt: skip
    signal = RNG.standard_normal((1, 40, 1)).astype(dtype)
    model = stft_model(signal.shape, 4, HANN, frame_length=16, dtype=dtype)
    got = minitvm.compile(model).run({"signal": signal})[0]
    frames = np.stack([signal[0, 4 * f : 4 * f + 16, 0] for f in range(7)]).astype(np.float64)
    want = np.fft.rfft(frames * HANN.astype(dtype), axis=1)
    np.testing.assert_allclose(got[0].astype(np.float64), np.stack([want.real, want.imag], -1),
                               rtol=tol, atol=tol * float(np.abs(want).max()))  # fmt: skip
