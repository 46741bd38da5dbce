"""Whole models, end to end: `minitvm.compile` -> `Executable.run` against ONNX Runtime.

The nine light models of the onnx wheel run twice: with their own weights (every weight is
ConstantOfShape(0.02), so outputs are nearly input-independent) and with
`models.with_random_weights` (activations O(1) throughout; checked here: ONNX Runtime's
outputs are finite and tell two inputs apart by more than the test's tolerance). Then the MLP,
a BERT-base encoder layer (seq 128, hidden 768, 12 heads, FFN 3072), a ResNet basic block
(1x64x56x56) and ResNet-18 (1x3x224x224), the models `minitvm bench` times, and MobileNetV2
(1x3x224x224, depthwise convs).

Every output must match ONNX Runtime's at rtol 1e-3, atol 1e-4 (atol scaled down for outputs
below 1). The compiles are the cost (seconds to tens of seconds each, LLVM dominating); the
slowest tests are marked `slow` but run by default.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from models import (
    LIGHT_MODELS,
    bert_encoder_layer,
    light_model_path,
    mlp,
    mobilenet_v2,
    resnet18,
    resnet_basic_block,
    with_random_weights,
)

import minitvm
from minitvm.compiler import random_inputs

RTOL, ATOL = 1e-3, 1e-4

#: The slowest tests, ~15-20 s each on the 2-core CI machine (the whole file: ~2.5 min idle,
#: 4.5-6 min when the machine is shared): DenseNet-121's compile (1,200 graph ops) and
#: VGG-19 with 570 MB of random weights going through every stage.
SLOW = {("densenet121", "constant"), ("densenet121", "random"), ("vgg19", "random")}


def ort_runner(model: onnx.ModelProto) -> Callable[[dict[str, np.ndarray]], list[np.ndarray]]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.log_severity_level = 3  # the light models carry unused initializers ORT warns about
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return lambda feeds: session.run(None, feeds)


def assert_matches_ort(model: onnx.ModelProto, seed: int = 1) -> list[np.ndarray]:
    """Compile and run `model` on seeded random inputs, compare with ONNX Runtime, and return
    ONNX Runtime's outputs for a second random input (for `assert_not_degenerate`).

    Tolerance: rtol 1e-3 and atol 1e-4, the atol scaled down with outputs smaller than 1 so
    that a 1000-way softmax (values ~1e-3) is checked to about 0.1%, not to 10%."""
    exe = minitvm.compile(model)
    feeds = random_inputs(exe, seed)
    got = exe.run(feeds)
    reference = ort_runner(model)
    want = reference(feeds)
    assert exe.output_names == [o.name for o in model.graph.output]
    assert len(got) == len(want)
    for name, ours, theirs in zip(exe.output_names, got, want, strict=True):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, name
        atol = ATOL * min(1.0, float(np.abs(theirs).max(initial=0.0)))
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=atol, err_msg=name)
    return [*want, *reference(random_inputs(exe, seed + 1))]


def light_params() -> list[object]:
    return [
        pytest.param(name, weights, marks=[pytest.mark.slow] if (name, weights) in SLOW else [])
        for name in LIGHT_MODELS
        for weights in ("constant", "random")
    ]


@pytest.mark.parametrize(("name", "weights"), light_params())
def test_light_model(name: str, weights: str) -> None:
    model = onnx.load(light_model_path(name))
    if weights == "random":
        model = with_random_weights(model, seed=0)
    outputs = assert_matches_ort(model)
    if weights == "random":
        assert_not_degenerate(outputs)


def assert_not_degenerate(outputs: list[np.ndarray]) -> None:
    """With random weights the comparison means something: ONNX Runtime's outputs (for two
    inputs: first half, second half) are finite, spread over more than 10x the tolerance, not
    a saturated softmax, and differ between the inputs by more than the tolerance. (The light
    models end in global pooling, which averages much of a random input away: their softmax
    outputs move by 4-10e-4 between inputs.)"""
    half = len(outputs) // 2
    for first, second in zip(outputs[:half], outputs[half:], strict=True):
        assert np.isfinite(first).all() and np.isfinite(second).all()
        assert np.abs(first).max() < 1e3
        assert first.max() - first.min() > 10 * ATOL
        assert np.abs(first - second).max() > 2 * ATOL
        if first.ndim == 2 and np.allclose(first.sum(axis=1), 1, atol=1e-4):  # a softmax
            assert first.max() < 0.5, "saturated softmax"


def test_light_models_are_all_listed() -> None:
    import glob
    import os

    found = glob.glob(os.path.join(os.path.dirname(light_model_path("resnet50")), "light_*.onnx"))
    assert sorted(os.path.basename(p)[6:-5] for p in found) == sorted(LIGHT_MODELS)


def test_random_weights_replace_only_weights() -> None:
    """Weights become seeded random tensors of their own shapes; shapes (int64), the graph
    and the seed's determinism are kept."""
    model = onnx.load(light_model_path("squeezenet"))
    random = with_random_weights(model, seed=3)
    assert with_random_weights(model, seed=3) == random
    assert with_random_weights(model, seed=4) != random
    ops = lambda m: [n.op_type for n in m.graph.node]
    assert ops(random) == [op.replace("ConstantOfShape", "Constant") for op in ops(model)]
    weights = {
        n.output[0]: onnx.numpy_helper.to_array(n.attribute[0].t)
        for n in random.graph.node
        if n.op_type == "Constant"
    }
    convs = [n for n in random.graph.node if n.op_type == "Conv"]
    assert len(convs) == 26
    for conv in convs:
        weight = weights[conv.input[1]]
        assert weight.dtype == np.float32 and weight.ndim == 4
        fan_in = int(np.prod(weight.shape[1:]))
        assert 0.05 < weight.std() * np.sqrt(fan_in) < 20  # N(0, 1/fan_in), then calibrated
        assert len(np.unique(weight)) > weight.size // 2
    shapes = [i for i in model.graph.initializer if i.data_type == onnx.TensorProto.INT64]
    assert shapes and all(i in random.graph.initializer for i in shapes)


def test_random_weights_keep_scalars_and_give_bn_sane_parameters() -> None:
    model = with_random_weights(onnx.load(light_model_path("resnet50")), seed=0)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    constants = {
        n.output[0]: onnx.numpy_helper.to_array(n.attribute[0].t)
        for n in model.graph.node
        if n.op_type == "Constant"
    }
    values = {**inits, **constants}
    for node in model.graph.node:
        if node.op_type == "BatchNormalization":
            scale, bias, mean, var = (values[x] for x in node.input[1:])
            assert (
                0.5 <= scale.min() and scale.max() <= 1.5 and 0.5 <= var.min() and var.max() <= 1.5
            )
            assert abs(bias).max() < 1 and abs(mean).max() < 1
    bert = bert_encoder_layer(seq=8, hidden=32, heads=4, ffn=64)
    random = {
        i.name: onnx.numpy_helper.to_array(i) for i in with_random_weights(bert).graph.initializer
    }
    for init in bert.graph.initializer:
        if init.dims == [] or init.data_type != onnx.TensorProto.FLOAT:  # sqrt2, one, half, shapes
            assert np.array_equal(random[init.name], onnx.numpy_helper.to_array(init))
        else:
            assert not np.array_equal(random[init.name], onnx.numpy_helper.to_array(init))


def test_mlp() -> None:
    assert_matches_ort(mlp(batch=8, sizes=(784, 512, 256, 10), seed=0))


def test_bert_encoder_layer() -> None:
    model = bert_encoder_layer(seq=128, hidden=768, heads=12, ffn=3072, seed=0)
    ops = sorted({n.op_type for n in model.graph.node})
    assert ops == [
        "Add", "Div", "Erf", "LayerNormalization", "MatMul", "Mul", "Reshape", "Softmax",
        "Transpose",
    ]  # fmt: skip
    output = assert_matches_ort(model)[0]
    assert 0.5 < output.std() < 2  # layer-normed, scaled by U(0.5, 1.5)


def test_resnet_basic_block() -> None:
    model = resnet_basic_block(channels=64, size=56)
    assert [n.op_type for n in model.graph.node] == [
        "Conv", "BatchNormalization", "Relu", "Conv", "BatchNormalization", "Add", "Relu",
    ]  # fmt: skip
    output = assert_matches_ort(model)[0]
    assert 0.5 < output.std() < 2


@pytest.mark.slow  # ~10 s on the 2-core machine
def test_resnet18() -> None:
    model = resnet18(batch=1, image=224, classes=1000)
    ops = Counter(n.op_type for n in model.graph.node)
    assert ops == {
        "Conv": 20, "BatchNormalization": 20, "Relu": 17, "Add": 8, "MaxPool": 1,
        "GlobalAveragePool": 1, "Flatten": 1, "Gemm": 1,
    }  # fmt: skip
    assert_not_degenerate(assert_matches_ort(model))


@pytest.mark.slow  # ~10 s on the 2-core machine
def test_mobilenet_v2() -> None:
    """17 depthwise convs (run blocked, as conv_nchwc with group = channels), ReLU6 as Clip,
    residual adds, and 24-channel stages (NCHW8c)."""
    model = mobilenet_v2(batch=1, image=224, classes=1000)
    ops = Counter(n.op_type for n in model.graph.node)
    assert ops == {
        "Conv": 52, "BatchNormalization": 52, "Clip": 35, "Add": 10,
        "GlobalAveragePool": 1, "Flatten": 1, "Gemm": 1,
    }  # fmt: skip
    groups = [onnx.helper.get_node_attr_value(n, "group") for n in model.graph.node if n.op_type == "Conv"]
    depthwise = [g for g in groups if g > 1]
    assert len(depthwise) == 17
    assert_not_degenerate(assert_matches_ort(model))
