"""CumSum and CumProd as scans written into @main (lowering/scan_to_loop.py): every axis,
exclusive and reversed, the element types it takes, symbolic sizes, and a long axis (where
the tensor-expression form, O(n^2), took most of a second)."""

from __future__ import annotations

import time

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from test_data_dependent import make_model

import minitvm

RNG = np.random.default_rng(7)
TYPES = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.int32: TensorProto.INT32,
         np.int64: TensorProto.INT64}  # fmt: skip


def cum_sum_model(shape: list[int | str], axis: int, exclusive: int, reverse: int, dtype: type):
    node = helper.make_node("CumSum", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)
    model = make_model([node], {"x": (TYPES[dtype], shape)}, ["y"], opset=18)
    model.graph.initializer.append(numpy_helper.from_array(np.array(axis, np.int64), "axis"))
    return model


@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize(("exclusive", "reverse"), [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cum_sum_is_a_scan_along_any_axis(axis: int, exclusive: int, reverse: int, dtype: type) -> None:
    model = cum_sum_model([3, "n", 4], axis, exclusive, reverse, dtype)
    exe = minitvm.compile(model, num_threads=1)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (1, 5, 33):
        x = RNG.integers(-50, 50, (3, n, 4)).astype(dtype)
        (got,), (want,) = exe.run({"x": x}), session.run(None, {"x": x})
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_long_running_sum_takes_linear_time() -> None:
    model = cum_sum_model([200_000], 0, 0, 1, np.int64)
    exe = minitvm.compile(model, num_threads=1)
    x = RNG.integers(0, 9, 200_000)
    start = time.perf_counter()
    (got,) = exe.run({"x": x})
    assert time.perf_counter() - start < 1.0  # (O(n^2) was 4 * 10^10 steps)
    np.testing.assert_array_equal(got, np.cumsum(x[::-1])[::-1])
