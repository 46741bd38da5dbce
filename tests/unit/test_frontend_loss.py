"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (frontend/onnx_loss.py) end to end:
`minitvm.compile(model).run(feeds)` against ONNX Runtime, one feature at a time (reductions,
weights, ignore_index inside and outside [0, C), k-D inputs, the log_prob output, int32
targets, float64 and float16), and the import errors a malformed node gets."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import minitvm
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx

NLL, SCE = "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"
DTYPES = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64,
          TensorProto.FLOAT16: np.float16}  # fmt: skip
TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12, np.float16: 2e-3}


def loss_model(
    op_type: str, shape: tuple[int, ...], *, elem: int = TensorProto.FLOAT,
    index: int = TensorProto.INT64, weight: bool = False, log_prob: bool = False,
    opset: int = 13, **attrs: object,
) -> onnx.ModelProto:  # fmt: skip
    """One loss node on x [shape] and target [shape without axis 1] (and weight [C])."""
    target_shape = [shape[0], *shape[2:]]
    inputs = [helper.make_tensor_value_info("x", elem, list(shape)),
              helper.make_tensor_value_info("target", index, target_shape)]  # fmt: skip
    if weight:
        inputs.append(helper.make_tensor_value_info("weight", elem, [shape[1]]))
    outputs = ["loss", "log_prob"] if log_prob else ["loss"]
    node = helper.make_node(op_type, [i.name for i in inputs], outputs, **attrs)
    graph = helper.make_graph(
        [node], "loss", inputs, [helper.make_empty_tensor_value_info(o) for o in outputs]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def feeds_for(model: onnx.ModelProto, ignore_index: int | None = None) -> dict[str, np.ndarray]:
    """Log-probability-like inputs, targets over [0, C) with about a third set to
    `ignore_index`, positive weights."""
    rng = np.random.default_rng(0)
    feeds = {}
    x, target = model.graph.input[0], model.graph.input[1]
    shape = [d.dim_value for d in x.type.tensor_type.shape.dim]
    dtype = DTYPES[x.type.tensor_type.elem_type]
    feeds["x"] = rng.standard_normal(shape).astype(dtype)
    index_dtype = helper.tensor_dtype_to_np_dtype(target.type.tensor_type.elem_type)
    target_shape = [shape[0], *shape[2:]]
    labels = rng.integers(0, shape[1], target_shape)
    if ignore_index is not None:
        labels = np.where(rng.random(target_shape) < 0.35, ignore_index, labels)
    feeds["target"] = labels.astype(index_dtype)
    if len(model.graph.input) > 2:
        feeds["weight"] = rng.uniform(0.2, 2.0, shape[1]).astype(dtype)
    return feeds


def check(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    want = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    got = minitvm.compile(model).run(feeds)
    assert len(got) == len(want)
    for w, r in zip(want, got, strict=True):
        assert r.shape == w.shape and r.dtype == w.dtype
        tol = TOLERANCE[w.dtype.type]
        np.testing.assert_allclose(r, w, rtol=tol, atol=tol)
    return got


@pytest.mark.parametrize("op_type", [NLL, SCE])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean", None])
@pytest.mark.parametrize("weight", [False, True])
def test_reductions_and_weights(op_type: str, reduction: str | None, weight: bool) -> None:
    attrs = {} if reduction is None else {"reduction": reduction}  # None: the default, mean
    model = loss_model(op_type, (4, 5), weight=weight, **attrs)
    (loss,) = check(model, feeds_for(model))
    assert loss.shape == ((4,) if reduction == "none" else ())


@pytest.mark.parametrize("op_type", [NLL, SCE])
@pytest.mark.parametrize("ignore_index", [0, 3, -1, -100, 7])
@pytest.mark.parametrize("weight", [False, True])
def test_ignore_index_mean(op_type: str, ignore_index: int, weight: bool) -> None:
    """Inside [0, C) and outside it: ignored elements give 0 and leave the mean's
    denominator (the count, or the summed weights, of the counted elements)."""
    model = loss_model(op_type, (6, 5, 3), weight=weight, reduction="mean",
                       ignore_index=ignore_index)  # fmt: skip
    check(model, feeds_for(model, ignore_index))


@pytest.mark.parametrize("reduction", ["none", "sum"])
def test_ignore_index_zeroes_loss(reduction: str) -> None:
    model = loss_model(NLL, (6, 5, 3), weight=True, reduction=reduction, ignore_index=2)
    feeds = feeds_for(model, 2)
    (loss,) = check(model, feeds)
    if reduction == "none":
        assert np.all(loss[feeds["target"] == 2] == 0)


@pytest.mark.parametrize("op_type", [NLL, SCE])
@pytest.mark.parametrize("weight", [False, True])
def test_k_dimensional(op_type: str, weight: bool) -> None:
    """[N, C, d1, d2, d3] with a loss per element of [N, d1, d2, d3] and the mean over all."""
    for reduction in ("none", "mean"):
        model = loss_model(op_type, (2, 4, 3, 2, 5), weight=weight, reduction=reduction,
                           ignore_index=1)  # fmt: skip
        check(model, feeds_for(model, 1))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_log_prob_output(reduction: str) -> None:
    model = loss_model(SCE, (3, 6, 4), weight=True, log_prob=True, reduction=reduction,
                       ignore_index=-1)  # fmt: skip
    feeds = feeds_for(model, -1)
    _, log_prob = check(model, feeds)
    assert log_prob.shape == (3, 6, 4)
    np.testing.assert_allclose(np.exp(log_prob).sum(axis=1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("op_type", [NLL, SCE])
def test_int32_targets(op_type: str) -> None:
    model = loss_model(op_type, (5, 7, 2), index=TensorProto.INT32, weight=True,
                       reduction="mean", ignore_index=4)  # fmt: skip
    check(model, feeds_for(model, 4))


@pytest.mark.parametrize("op_type", [NLL, SCE])
@pytest.mark.parametrize("elem", [TensorProto.DOUBLE, TensorProto.FLOAT16])
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_element_types(op_type: str, elem: int, reduction: str) -> None:
    model = loss_model(op_type, (4, 5, 3), elem=elem, weight=True, log_prob=op_type == SCE,
                       reduction=reduction, ignore_index=0)  # fmt: skip
    check(model, feeds_for(model, 0))


@pytest.mark.parametrize(("op_type", "opset"), [(NLL, 12), (NLL, 13), (NLL, 22), (NLL, 28),
                                                (SCE, 12), (SCE, 13), (SCE, 28)])  # fmt: skip
def test_opsets(op_type: str, opset: int) -> None:
    model = loss_model(op_type, (3, 4), weight=True, opset=opset, ignore_index=1)
    check(model, feeds_for(model, 1))


def test_softmax_cross_entropy_is_stable_for_far_apart_scores() -> None:
    """Scores 200 apart: softmax underflows to 0 for the low class, so log(softmax) would be
    -inf; log_softmax gives the exact -200."""
    model = loss_model(SCE, (2, 3), log_prob=True, reduction="none")
    feeds = {"x": np.array([[0.0, 200.0, 0.0], [-100.0, 100.0, 100.0]], np.float32),
             "target": np.array([0, 1], np.int64)}  # fmt: skip
    loss, log_prob = check(model, feeds)
    np.testing.assert_allclose(loss, [200.0, np.log(2.0)], rtol=1e-6)
    assert np.all(np.isfinite(log_prob))


def test_mean_of_nothing_is_nan() -> None:
    """Every element ignored: 0 / 0, as ONNX Runtime and the ONNX reference give."""
    model = loss_model(NLL, (3, 4), weight=True, ignore_index=2)
    feeds = feeds_for(model)
    feeds["target"][:] = 2
    (loss,) = check(model, feeds)
    assert np.isnan(loss)


def test_composition_has_no_gather_and_uses_log_softmax() -> None:
    ops = [op.name for op in from_onnx(loss_model(SCE, (3, 4), weight=True)).walk()]
    assert "graph.log_softmax" in ops and "graph.log" not in ops
    assert "graph.equal" in ops and "graph.gather" not in ops


@pytest.mark.parametrize(("ignore_index", "masked"), [(2, True), (4, False), (-1, False)])
def test_ignore_index_masks_only_a_class(ignore_index: int, masked: bool) -> None:
    """An ignore_index in [0, C) drops that class from the one-hot mask (graph.and with a
    constant); one outside [0, C) matches no class, so it needs no op of its own."""
    model = loss_model(NLL, (3, 4), reduction="sum", ignore_index=ignore_index)
    ops = [op.name for op in from_onnx(model).walk()]
    assert ("graph.and" in ops) == masked


def test_constant_target() -> None:
    """A target known at import time is materialized like any constant operand."""
    model = loss_model(NLL, (3, 4), weight=True, reduction="sum")
    feeds = feeds_for(model)
    target = onnx.numpy_helper.from_array(feeds.pop("target"), "target")
    model.graph.initializer.append(target)
    del model.graph.input[1]
    check(model, feeds)


@pytest.mark.parametrize(
    ("shape", "target_shape", "attrs", "message"),
    [
        ((5,), (5,), {}, "input must be"),
        ((3, 4, 2), (3, 4), {}, "target has shape [3, 4]"),
        ((3, 4), (3,), {"reduction": "max"}, "unsupported reduction 'max'"),
    ],
)
def test_errors(
    shape: tuple[int, ...], target_shape: tuple[int, ...], attrs: dict[str, object], message: str
) -> None:
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape)),
              helper.make_tensor_value_info("target", TensorProto.INT64, list(target_shape))]  # fmt: skip
    node = helper.make_node(NLL, ["x", "target"], ["loss"], **attrs)
    graph = helper.make_graph([node], "bad", inputs, [helper.make_empty_tensor_value_info("loss")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(FrontendError, match=message.replace("[", r"\[").replace("]", r"\]")):
        from_onnx(model)


def test_weight_shape_error() -> None:
    model = loss_model(NLL, (3, 4), weight=True)
    model.graph.input[2].type.tensor_type.shape.dim[0].dim_value = 5
    with pytest.raises(FrontendError, match=r"weight must have shape \[4\]"):
        from_onnx(model)
