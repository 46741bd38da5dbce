"""Det (frontend/onnx_linalg.py) compiled end to end against ONNX Runtime (float32) and
numpy (float64 and float16, which ONNX Runtime's Det does not take): batched and unbatched
matrices, the sizes that need row swaps, singular matrices, and the size limit."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper

import minitvm
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx
from minitvm.frontend.onnx_linalg import MAX_SIZE

RNG = np.random.default_rng(11)


def det_model(shape: tuple[int, ...], dtype: type = np.float32, opset: int = 22) -> onnx.ModelProto:
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    node = helper.make_node("Det", ["x"], ["y"])
    graph = helper.make_graph(
        [node], "det", [helper.make_tensor_value_info("x", elem, shape)],
        [helper.make_empty_tensor_value_info("y")],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("opset", [11, 22])
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 3, 3), (2, 3, 4, 4), (5, 5), (4, 8, 8)])
def test_det_matches_onnxruntime(shape: tuple[int, ...], opset: int) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    model = det_model(shape, opset=opset)
    got = minitvm.compile(model).run({"x": x})[0]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, {"x": x})[0]
    assert got.shape == want.shape == shape[:-2] and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_pivoting_and_singular_matrices() -> None:
    """A zero leading entry needs a row swap (and flips the sign); a zero column, duplicate
    rows or an all-zero matrix give 0, not NaN."""
    x = np.array([
        [[0, 1, 0], [1, 0, 0], [0, 0, 1]],  # a swap: -1
        [[0, 0, 1], [0, 1, 0], [1, 0, 0]],  # -1
        [[0, 2, 3], [0, 4, 5], [0, 6, 7]],  # a zero column: 0
        [[1, 2, 3], [1, 2, 3], [4, 5, 6]],  # equal rows: 0
        np.zeros((3, 3)),
        [[1e-8, 1, 0], [1, 1, 0], [0, 0, 2]],  # a tiny pivot: the row below is taken
    ], np.float32)  # fmt: skip
    got = minitvm.compile(det_model(x.shape)).run({"x": x})[0]
    want = np.linalg.det(x.astype(np.float64))
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float16, 2e-3)])
def test_det_other_float_types(dtype: type, rtol: float) -> None:
    x = RNG.standard_normal((3, 4, 4)).astype(dtype)
    got = minitvm.compile(det_model(x.shape, dtype)).run({"x": x})[0]
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float64), np.linalg.det(x.astype(np.float64)),
                               rtol=rtol, atol=rtol)  # fmt: skip


def test_det_size_limit() -> None:
    n = MAX_SIZE + 1
    with pytest.raises(FrontendError, match=f"matrices of size {n} are not supported"):
        from_onnx(det_model((n, n)))
    with pytest.raises(FrontendError, match="square matrices"):
        from_onnx(det_model((2, 3)))
