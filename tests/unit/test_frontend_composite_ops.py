"""ONNX ops the frontend writes as compositions of graph ops, compiled and checked against
ONNX Runtime: layout (DepthToSpace, SpaceToDepth), masks (Trilu, OneHot), crops, Lp pooling,
normalizations, Swish, Upsample and the import-time constants (EyeLike, windows)."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import minitvm

RNG = np.random.default_rng(3)
F = TensorProto.FLOAT


def run_both(
    op_type: str,
    inputs: dict[str, np.ndarray],
    consts: dict[str, np.ndarray] | None = None,
    opset: int = 18,
    n_outputs: int = 1,
    **attrs: object,
) -> None:
    consts = consts or {}
    names = [*inputs, *consts]
    infos = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for n, a in inputs.items()
    ]
    outputs = [f"y{i}" for i in range(n_outputs)]
    node = helper.make_node(op_type, names, outputs, **attrs)
    graph = helper.make_graph(
        [node], op_type, infos, [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in consts.items()],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    want = ort.InferenceSession(model.SerializeToString(), options).run(None, inputs)
    got = minitvm.compile(model).run(inputs)
    for w, h in zip(want, got, strict=True):
        assert h.dtype == w.dtype and h.shape == w.shape
        np.testing.assert_allclose(h, w, rtol=1e-4, atol=1e-5)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_to_space(mode: str) -> None:
    run_both("DepthToSpace", {"x": rand(2, 8, 3, 5)}, blocksize=2, mode=mode)


def test_space_to_depth() -> None:
    run_both("SpaceToDepth", {"x": rand(2, 3, 6, 4)}, blocksize=2)


@pytest.mark.parametrize("upper, k", [(1, 0), (0, 0), (1, 2), (0, -1), (1, -7)])
def test_trilu(upper: int, k: int) -> None:
    run_both("Trilu", {"x": rand(2, 4, 6)}, {"k": np.array(k, np.int64)}, upper=upper)


def test_trilu_int_without_k() -> None:
    run_both("Trilu", {"x": RNG.integers(-9, 9, (5, 3)).astype(np.int32)}, upper=0)


@pytest.mark.parametrize("attrs", [{}, {"k": 1}, {"k": -2, "dtype": TensorProto.INT32}])
def test_eye_like(attrs: dict[str, object]) -> None:
    run_both("EyeLike", {"x": rand(3, 5)}, **attrs)


@pytest.mark.parametrize(
    "shape, axes", [([3, 7], None), ([6, 2], [1, 2]), ([1], [-1]), ([5, 9, 4], None)]
)
def test_center_crop_pad(shape: list[int], axes: list[int] | None) -> None:
    if axes is None and len(shape) == 2:
        x = rand(5, 4)
    else:
        x = rand(2, 5, 4) if len(shape) < 3 else rand(4, 6, 5)
    attrs = {} if axes is None else {"axes": axes}
    run_both("CenterCropPad", {"x": x}, {"shape": np.array(shape, np.int64)}, **attrs)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis: int) -> None:
    indices = np.array([[0, 3, -1], [7, -4, 2]], np.int64)
    run_both(
        "OneHot",
        {"i": indices},
        {"depth": np.array(4, np.int64), "values": np.array([0.5, 3.0], np.float32)},
        axis=axis,
    )


def test_one_hot_float_indices() -> None:
    indices = np.array([0.0, 2.7, 1.2, 5.0], np.float32)
    run_both(
        "OneHot",
        {"i": indices},
        {"depth": np.array([3], np.float32), "values": np.array([0, 1], np.float32)},
    )


@pytest.mark.parametrize("p", [1, 2, 3])
def test_lp_pool(p: int) -> None:
    run_both("LpPool", {"x": rand(1, 3, 7, 6)}, kernel_shape=[3, 2], strides=[2, 1],
             pads=[1, 0, 1, 1], p=p)  # fmt: skip


@pytest.mark.parametrize("p", [1, 2, 3])
def test_global_lp_pool(p: int) -> None:
    run_both("GlobalLpPool", {"x": rand(2, 3, 5, 4)}, p=p)


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_swish(alpha: float) -> None:
    run_both("Swish", {"x": rand(3, 17)}, opset=24, alpha=alpha)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_upsample(mode: str) -> None:
    run_both("Upsample", {"x": rand(1, 2, 3, 4)}, {"s": np.array([1, 1, 2, 1.5], np.float32)},
             opset=9, mode=mode)  # fmt: skip


def test_instance_norm() -> None:
    run_both("InstanceNormalization", {"x": rand(2, 3, 5, 4)},
             {"s": rand(3), "b": rand(3)}, epsilon=1e-3)  # fmt: skip


@pytest.mark.parametrize("opset, per", [(18, "group"), (21, "channel")])
def test_group_norm(opset: int, per: str) -> None:
    size = 2 if per == "group" else 6
    run_both("GroupNormalization", {"x": rand(2, 6, 3, 4)}, {"s": rand(size), "b": rand(size)},
             opset=opset, num_groups=2)  # fmt: skip


def test_mean_variance_norm() -> None:
    run_both("MeanVarianceNormalization", {"x": rand(2, 3, 4, 5)})
    run_both("MeanVarianceNormalization", {"x": rand(2, 3, 4, 5)}, axes=[1, 3])


@pytest.mark.parametrize("p, axis", [(1, -1), (2, 0), (2, 1)])
def test_lp_norm(p: int, axis: int) -> None:
    x = rand(3, 4)
    x[1] = 0.0  # a zero vector stays zero
    run_both("LpNormalization", {"x": x}, p=p, axis=axis)


@pytest.mark.parametrize("op_type", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
def test_windows(op_type: str, periodic: int) -> None:
    model_input = {"x": rand(2)}  # the window is a constant: an unrelated input keeps ORT happy
    window = helper.make_node(op_type, ["n"], ["y0"], periodic=periodic)
    add = helper.make_node("Add", ["x", "x"], ["y1"])
    graph = helper.make_graph(
        [window, add], op_type, [helper.make_tensor_value_info("x", F, [2])],
        [helper.make_empty_tensor_value_info("y0"), helper.make_empty_tensor_value_info("y1")],
        [numpy_helper.from_array(np.array(10, np.int64), "n")],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    want = ort.InferenceSession(model.SerializeToString()).run(None, model_input)
    got = minitvm.compile(model).run(model_input)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opset, axis", [(13, -1), (13, 1), (11, 1), (11, 2)])
def test_hardmax(opset: int, axis: int) -> None:
    x = RNG.integers(0, 3, (2, 3, 4)).astype(np.float32)  # ties: the first maximum wins
    run_both("Hardmax", {"x": x}, opset=opset, axis=axis)


@pytest.mark.parametrize("largest, axis", [(1, -1), (0, -1), (1, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_top_k(largest: int, axis: int, dtype: type) -> None:
    x = RNG.integers(-4, 5, (3, 7)).astype(dtype)  # ties: the lower index comes first
    run_both("TopK", {"x": x}, {"k": np.array([3], np.int64)}, opset=11, n_outputs=2,
             largest=largest, axis=axis)  # fmt: skip


def test_top_k_attribute_before_opset_10() -> None:
    run_both("TopK", {"x": rand(2, 9)}, opset=9, n_outputs=2, k=4)
