"""ONNX models for the benchmarks (`minitvm bench`, bench/*.py) and the end-to-end tests.

    mlp(batch, sizes, seed)              Gemm + Relu layers, He-scaled seeded weights
    bert_encoder_layer(seq, hidden, ...) one BERT encoder layer at opset 17
    matmul(m, k, n)                      C = A @ B of two runtime inputs (fp32), no weights
    resnet_basic_block(channels, size)   conv-BN-ReLU-conv-BN + identity, ReLU (torchvision's)
    resnet18(batch, image, classes)      torchvision's ResNet-18, Conv/BN/Relu unfused
    mobilenet_v2(batch, image, classes)  torchvision's MobileNetV2: depthwise convs, ReLU6
    lm_head(seq, hidden, vocab)          GPT-2's LM head: a MatMul with 154 MB of weights
    unet_decoder_block(channels, size)   2x2/2 ConvTranspose, Concat, two conv-BN-ReLU
    vgg16(batch, image, classes)         torchvision's VGG-16: 13 3x3 convs, 3 big Gemms
    yolo_neck_block(channels, size)      YOLOv5's Conv+SiLU, nearest Resize, Concat, C3
    light_model_path(name)               a model from the onnx wheel's backend/test/data/light
    with_random_weights(model, seed)     the same graph with seeded random weights of sane scale
    with_dynamic_dims(model, dims)       the same graph with named (dim_param) input dimensions
    random_feeds(model, shapes, seed)    inputs of given shapes: floats, token ids, masks

The light models carry every weight as `ConstantOfShape(0.02)`: with those, each conv of a
deep net multiplies its activations by about 0.02 * fan_in, so outputs end up as constant
softmaxes or huge numbers and checking a compiler against them proves little.
`with_random_weights` gives them weights under which activations stay O(1) through 50+ layers.

This module is `minitvm.bench.models` (the installed `minitvm bench` needs it); the tests
import it through tests/models.py as `models`, as do the scripts in bench/.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LIGHT_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")

#: The nine models in the onnx wheel, by the name between `light_` and `.onnx`.
LIGHT_MODELS = (
    "bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50", "shufflenet",
    "squeezenet", "vgg19", "zfnet512",
)  # fmt: skip


def light_model_path(name: str) -> str:
    """Path of a light model: `light_model_path("resnet50")` (a `light_` prefix is optional)."""
    name = name.removeprefix("light_").removesuffix(".onnx")
    path = os.path.join(LIGHT_DIR, f"light_{name}.onnx")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no light model '{name}' in {LIGHT_DIR}; have {LIGHT_MODELS}")
    return path


# ------------------------------------------------------------------------------ built models


class _Graph:
    """Nodes plus seeded initializers, for writing models in a few lines."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def node(self, op: str, inputs: Sequence[str], output: str, **attrs: object) -> str:
        self.nodes.append(helper.make_node(op, list(inputs), [output], name=output, **attrs))
        return output

    def const(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def normal(self, name: str, shape: tuple[int, ...], std: float) -> str:
        return self.const(name, (self.rng.standard_normal(shape) * std).astype(np.float32))

    def uniform(self, name: str, shape: tuple[int, ...], low: float, high: float) -> str:
        return self.const(name, self.rng.uniform(low, high, shape).astype(np.float32))

    def model(
        self,
        inputs: list[onnx.ValueInfoProto],
        outputs: list[onnx.ValueInfoProto],
        opset: int,
        name: str,
    ) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        onnx.checker.check_model(model)
        return model


def mlp(
    batch: int | str = 1, sizes: Sequence[int] = (784, 256, 10), seed: int = 0
) -> onnx.ModelProto:
    """A multi-layer perceptron as PyTorch exports `nn.Linear` + `nn.ReLU` (opset 13):
    Gemm(transB=1) layers with Relu between them; input `x` [batch, sizes[0]], output
    `logits` [batch, sizes[-1]]. Weights ~ N(0, 2/fan_in) (He), biases ~ N(0, 0.1)."""
    if len(sizes) < 2:
        raise ValueError(f"an MLP needs at least two sizes, got {list(sizes)}")
    g, x = _Graph(seed), "x"
    layers = list(itertools.pairwise(sizes))
    for i, (n_in, n_out) in enumerate(layers):
        weight = g.normal(f"fc{i}.weight", (n_out, n_in), math.sqrt(2.0 / n_in))
        bias = g.normal(f"fc{i}.bias", (n_out,), 0.1)
        last = i == len(layers) - 1
        x = g.node("Gemm", [x, weight, bias], "logits" if last else f"fc{i}", transB=1)
        if not last:
            x = g.node("Relu", [x], f"relu{i}")
    return g.model(
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, sizes[0]])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, sizes[-1]])],
        13,
        "mlp",
    )


def bert_encoder_layer(
    seq: int = 128,
    hidden: int = 768,
    heads: int = 12,
    ffn: int = 3072,
    seed: int = 0,
    batch: int = 1,
    dynamic: bool = False,
) -> onnx.ModelProto:
    """One post-LN BERT encoder layer at opset 17, as PyTorch exports it: input
    `hidden_states` and output `output`, both [batch, seq, hidden]. With `dynamic`, batch
    and seq are the named dimensions `batch` and `seq`, and the heads' shape is computed from
    the input's, as exports with dynamic axes do: Shape, Slice [0:2], Concat with
    [heads, head] (`batch` and `seq` only shape the model's inputs and outputs then).

    Self-attention: Q/K/V = MatMul + Add, Reshape to heads, Transpose (K to [b, h, d, s]),
    scores = Q·K / sqrt(head), Softmax, context = P·V, Transpose + Reshape back (shape
    [0, 0, -1]), output projection, residual Add, LayerNormalization. FFN: MatMul + Add,
    Gelu written out as x * 0.5 * (1 + Erf(x / sqrt 2)), MatMul + Add, residual Add,
    LayerNormalization. Weights ~ N(0, 1/fan_in), biases ~ N(0, 0.1), LN scale ~ U(0.5, 1.5).
    """
    if hidden % heads:
        raise ValueError(f"hidden size {hidden} is not a multiple of {heads} heads")
    g, head = _Graph(seed), hidden // heads

    def dense(x: str, name: str, n_in: int, n_out: int) -> str:
        weight = g.normal(f"{name}.weight", (n_in, n_out), math.sqrt(1.0 / n_in))
        mm = g.node("MatMul", [x, weight], f"{name}.matmul")
        return g.node("Add", [mm, g.normal(f"{name}.bias", (n_out,), 0.1)], name)

    def layer_norm(x: str, name: str, output: str) -> str:
        scale = g.uniform(f"{name}.weight", (hidden,), 0.5, 1.5)
        bias = g.normal(f"{name}.bias", (hidden,), 0.1)
        return g.node("LayerNormalization", [x, scale, bias], output, axis=-1, epsilon=1e-12)

    def scalar(name: str, value: float) -> str:
        return g.const(name, np.array(value, np.float32))

    if dynamic:
        batch_seq = g.node(
            "Slice",
            [g.node("Shape", ["hidden_states"], "input_shape"),
             g.const("zero", np.array([0], np.int64)), g.const("two", np.array([2], np.int64))],
            "batch_seq",
        )  # fmt: skip
        split = g.node(
            "Concat",
            [batch_seq, g.const("heads_head", np.array([heads, head], np.int64))],
            "split_heads_shape",
            axis=0,
        )
    else:
        split = g.const("split_heads_shape", np.array([batch, seq, heads, head], np.int64))

    def project(name: str, perm: list[int]) -> str:
        x = g.node(
            "Reshape", [dense("hidden_states", name, hidden, hidden), split], f"{name}.heads"
        )
        return g.node("Transpose", [x], f"{name}.t", perm=perm)

    q = project("query", [0, 2, 1, 3])
    k = project("key", [0, 2, 3, 1])
    v = project("value", [0, 2, 1, 3])
    scores = g.node("MatMul", [q, k], "scores")
    scaled = g.node("Div", [scores, scalar("sqrt_head", math.sqrt(head))], "scaled")
    probs = g.node("Softmax", [scaled], "probs", axis=-1)
    context = g.node("MatMul", [probs, v], "context")
    context = g.node("Transpose", [context], "context.t", perm=[0, 2, 1, 3])
    merge = g.const("merge_shape", np.array([0, 0, -1], np.int64))
    merged = g.node("Reshape", [context, merge], "merged")
    attn = dense(merged, "attn_out", hidden, hidden)
    ln1 = layer_norm(g.node("Add", [attn, "hidden_states"], "attn_res"), "ln1", "ln1")

    up = dense(ln1, "ffn_up", hidden, ffn)
    erf = g.node(
        "Erf", [g.node("Div", [up, scalar("sqrt2", math.sqrt(2.0))], "gelu.div")], "gelu.erf"
    )
    one_plus = g.node("Add", [erf, scalar("one", 1.0)], "gelu.add")
    gelu = g.node("Mul", [g.node("Mul", [up, one_plus], "gelu.mul"), scalar("half", 0.5)], "gelu")
    down = dense(gelu, "ffn_down", ffn, hidden)
    layer_norm(g.node("Add", [down, ln1], "ffn_res"), "ln2", "output")
    shape = ["batch", "seq", hidden] if dynamic else [batch, seq, hidden]
    return g.model(
        [helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, shape)],
        17,
        "bert_encoder_layer",
    )


def with_dynamic_dims(
    model: onnx.ModelProto, dims: dict[str, Sequence[str | None]]
) -> onnx.ModelProto:
    """A copy of `model` whose input `name` has dimension i named `dims[name][i]` (None keeps
    it), as an export with dynamic axes declares it; the outputs' and intermediate values'
    shapes, which those names change, are left for shape inference to recompute."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for value in model.graph.input:
        for dim, name in zip(value.type.tensor_type.shape.dim, dims.get(value.name, ())):
            if name is not None:
                dim.dim_param = name
    for output in model.graph.output:
        output.type.tensor_type.ClearField("shape")
    del model.graph.value_info[:]
    return model


def random_feeds(
    model: onnx.ModelProto, shapes: dict[str, Sequence[int]], seed: int = 0
) -> dict[str, np.ndarray]:
    """Seeded inputs of `model` at `shapes`: floats N(0, 1); int64 inputs are token ids in
    [0, 100), or 0/1 when their name says mask or type (attention masks, token types)."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in model.graph.input:
        dtype = onnx.helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
        shape = tuple(shapes[value.name])
        if dtype == np.int64:
            high = 2 if ("mask" in value.name or "type" in value.name) else 100
            feeds[value.name] = rng.integers(0, high, shape).astype(np.int64)
        else:
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def matmul(m: int = 512, k: int = 512, n: int = 512) -> onnx.ModelProto:
    """C = A @ B for runtime inputs `a` [m, k] and `b` [k, n], fp32 (opset 13): a GEMM with
    nothing to fold, so what is measured is the kernel."""
    g = _Graph(0)
    g.node("MatMul", ["a", "b"], "c")
    return g.model(
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [k, n]),
        ],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [m, n])],
        13,
        "matmul",
    )


def _conv_bn(
    g: _Graph,
    x: str,
    conv: str,
    bn: str,
    c_in: int,
    c_out: int,
    kernel: int,
    stride: int,
    group: int = 1,
) -> str:
    """Conv (no bias, "same" padding) then BatchNormalization, as PyTorch exports
    `nn.Conv2d(bias=False)` + `nn.BatchNorm2d` in eval mode: two nodes, left for the compiler
    to fold. Conv weight ~ N(0, 2/fan_in) (He); BN scale and running variance ~ U(0.5, 1.5),
    bias and running mean ~ N(0, 0.1)."""
    fan_in = c_in // group * kernel * kernel
    weight = g.normal(
        f"{conv}.weight", (c_out, c_in // group, kernel, kernel), math.sqrt(2.0 / fan_in)
    )
    y = g.node(
        "Conv", [x, weight], conv,
        dilations=[1, 1], group=group, kernel_shape=[kernel, kernel],
        pads=[kernel // 2] * 4, strides=[stride, stride],
    )  # fmt: skip
    params = [
        g.uniform(f"{bn}.weight", (c_out,), 0.5, 1.5),
        g.normal(f"{bn}.bias", (c_out,), 0.1),
        g.normal(f"{bn}.running_mean", (c_out,), 0.1),
        g.uniform(f"{bn}.running_var", (c_out,), 0.5, 1.5),
    ]
    return g.node("BatchNormalization", [y, *params], bn, epsilon=1e-5, momentum=0.9)


def _basic_block(
    g: _Graph, x: str, name: str, c_in: int, c_out: int, stride: int, output: str = ""
) -> str:
    """torchvision's `BasicBlock`: conv3x3-BN-ReLU-conv3x3-BN, plus the input (through a
    1x1/stride conv + BN where the shape changes), then ReLU (named `output` if given)."""
    y = _conv_bn(g, x, f"{name}.conv1", f"{name}.bn1", c_in, c_out, 3, stride)
    y = g.node("Relu", [y], f"{name}.relu1")
    y = _conv_bn(g, y, f"{name}.conv2", f"{name}.bn2", c_out, c_out, 3, 1)
    if stride != 1 or c_in != c_out:
        down = f"{name}.downsample"
        x = _conv_bn(g, x, f"{down}.0", f"{down}.1", c_in, c_out, 1, stride)
    return g.node("Relu", [g.node("Add", [y, x], f"{name}.add")], output or f"{name}.relu2")


def resnet_basic_block(
    channels: int = 64, size: int = 56, batch: int = 1, seed: int = 0
) -> onnx.ModelProto:
    """One ResNet basic block (ResNet-18/34's, stride 1) as PyTorch exports it at opset 13:
    input `x` and output `y`, both [batch, channels, size, size]; Conv, BatchNormalization
    and Relu are separate nodes (weights as in `_conv_bn`)."""
    g = _Graph(seed)
    _basic_block(g, "x", "block", channels, channels, 1, output="y")
    shape = [batch, channels, size, size]
    return g.model(
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        13,
        "resnet_basic_block",
    )


def resnet18(
    batch: int = 1, image: int = 224, classes: int = 1000, seed: int = 0
) -> onnx.ModelProto:
    """torchvision's ResNet-18 as PyTorch exports it at opset 13 (eval mode, BN unfolded):
    input `x` [batch, 3, image, image], output `logits` [batch, classes].

    7x7/2 conv, BN, ReLU, 3x3/2 max pool; four stages of two basic blocks (64, 128, 256, 512
    channels; the first block of stages 2-4 has stride 2 and a 1x1/2 conv + BN downsample);
    global average pool, Flatten, Gemm(transB=1). Names follow torchvision's state dict
    (`layer2.0.downsample.0.weight`). Weights as in `_conv_bn`, except that the BN scales
    ending each of the 8 blocks' branches (bn2, and the downsample's BN) are divided by
    sqrt(8): each residual add would otherwise grow the activations, and the logits would
    have std ~70 instead of ~0.7 (measured with ONNX Runtime on N(0, 1) input).
    The fc layer is N(0, 1/fan_in), its bias N(0, 0.1).
    """
    g = _Graph(seed)
    x = _conv_bn(g, "x", "conv1", "bn1", 3, 64, 7, 2)
    x = g.node("Relu", [x], "relu")
    x = g.node(
        "MaxPool", [x], "maxpool",
        ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2],
    )  # fmt: skip
    c_in = 64
    for stage, c_out in enumerate((64, 128, 256, 512), start=1):
        for index in range(2):
            stride = 2 if stage > 1 and index == 0 else 1
            x = _basic_block(g, x, f"layer{stage}.{index}", c_in, c_out, stride)
            c_in = c_out
    for init in g.initializers:
        if init.name.endswith(("bn2.weight", "downsample.1.weight")):
            scale = numpy_helper.to_array(init) / np.float32(math.sqrt(8))
            init.CopyFrom(numpy_helper.from_array(scale, init.name))
    return _classified(g, x, "avgpool", "fc", 512, batch, image, classes, "resnet18")


def _classified(
    g: _Graph,
    x: str,
    pool: str,
    fc: str,
    features: int,
    batch: int,
    image: int,
    classes: int,
    name: str,
) -> onnx.ModelProto:
    """The image classifier ending in `x` ([batch, features, h, w]): global average pool,
    Flatten, Gemm(transB=1) to `logits` (fc weight N(0, 1/features), bias N(0, 0.1)), as a
    model of input `x` [batch, 3, image, image] at opset 13."""
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x], pool)], "flatten", axis=1)
    weight = g.normal(f"{fc}.weight", (classes, features), math.sqrt(1.0 / features))
    bias = g.normal(f"{fc}.bias", (classes,), 0.1)
    g.node("Gemm", [x, weight, bias], "logits", alpha=1.0, beta=1.0, transB=1)
    return g.model(
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, image, image])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, classes])],
        13,
        name,
    )  # fmt: skip


#: torchvision's MobileNetV2 stages: (expansion t, output channels c, blocks n, stride s).
MOBILENET_V2_STAGES = (
    (1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
    (6, 320, 1, 1),
)  # fmt: skip


def mobilenet_v2(
    batch: int = 1, image: int = 224, classes: int = 1000, seed: int = 0
) -> onnx.ModelProto:
    """torchvision's MobileNetV2 (width 1.0) as PyTorch exports it at opset 13 (eval mode, BN
    unfolded, ReLU6 as Clip(0, 6)): input `x` [batch, 3, image, image], output `logits`.

    3x3/2 conv to 32 channels; the inverted residual blocks of `MOBILENET_V2_STAGES` (1x1
    expand by t unless t = 1, 3x3 depthwise conv with the stage's stride on the first block,
    1x1 project without activation, the input added where the shape is kept); 1x1 conv to
    1280; global average pool, Flatten, Gemm. Weights as in `_conv_bn` (ReLU6 and the
    blocks without a residual keep the activations O(1)); the fc layer as ResNet-18's."""
    g = _Graph(seed)
    low, high = g.const("relu6.min", np.float32(0.0)), g.const("relu6.max", np.float32(6.0))

    def conv_bn_relu6(
        x: str, name: str, c_in: int, c_out: int, kernel: int, stride: int, group: int = 1
    ) -> str:
        y = _conv_bn(g, x, f"{name}.0", f"{name}.1", c_in, c_out, kernel, stride, group)
        return g.node("Clip", [y, low, high], f"{name}.2")

    x = conv_bn_relu6("x", "features.0", 3, 32, 3, 2)
    c_in, index = 32, 1
    for t, c_out, blocks, first_stride in MOBILENET_V2_STAGES:
        for block in range(blocks):
            name, hidden = f"features.{index}.conv", c_in * t
            stride = first_stride if block == 0 else 1
            y = x if t == 1 else conv_bn_relu6(x, f"{name}.0", c_in, hidden, 1, 1)
            depthwise = f"{name}.{0 if t == 1 else 1}"  # torchvision's module numbering
            y = conv_bn_relu6(y, depthwise, hidden, hidden, 3, stride, group=hidden)
            project = 1 if t == 1 else 2
            y = _conv_bn(g, y, f"{name}.{project}", f"{name}.{project + 1}", hidden, c_out, 1, 1)
            residual = stride == 1 and c_in == c_out
            x = g.node("Add", [x, y], f"features.{index}.add") if residual else y
            c_in, index = c_out, index + 1
    x = conv_bn_relu6(x, f"features.{index}", c_in, 1280, 1, 1)
    return _classified(g, x, "pool", "classifier.1", 1280, batch, image, classes, "mobilenet_v2")


def lm_head(seq: int = 64, hidden: int = 768, vocab: int = 50257, seed: int = 0) -> onnx.ModelProto:
    """GPT-2's language-model head as `torch.onnx` exports it (opset 17): the last hidden
    states `h` [1, seq, hidden] times the tied embedding, transposed and folded to an
    initializer [hidden, vocab] ~ N(0, 1/hidden), to `logits` [1, seq, vocab]. A MatMul with
    a prime N (50257) and 154 MB of weights: memory-bound at seq 1, compute-bound at 64."""
    g = _Graph(seed)
    weight = g.normal("lm_head.weight", (hidden, vocab), math.sqrt(1.0 / hidden))
    g.node("MatMul", ["h", weight], "logits")
    return g.model(
        [helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, seq, hidden])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, seq, vocab])],
        17,
        "lm_head",
    )


def lstm_stack(
    steps: int = 64, hidden: int = 256, inputs: int = 256, layers: int = 2, batch: int = 1,
    seed: int = 0,
) -> onnx.ModelProto:  # fmt: skip
    """A bidirectional `nn.LSTM(inputs, hidden, num_layers=layers, bidirectional=True)` as
    PyTorch exports it (opset 14): per layer one LSTM node on [steps, batch, features], its
    Y [steps, 2, batch, hidden] transposed and reshaped to [steps, batch, 2 * hidden] for the
    next; weights ~ U(-1/sqrt(hidden), 1/sqrt(hidden)) as PyTorch initializes them."""
    g, x, bound = _Graph(seed), "x", 1.0 / math.sqrt(hidden)
    features = inputs
    for i in range(layers):
        w = g.uniform(f"lstm{i}.W", (2, 4 * hidden, features), -bound, bound)
        r = g.uniform(f"lstm{i}.R", (2, 4 * hidden, hidden), -bound, bound)
        b = g.uniform(f"lstm{i}.B", (2, 8 * hidden), -bound, bound)
        y = g.node("LSTM", [x, w, r, b], f"lstm{i}.Y", direction="bidirectional",
                   hidden_size=hidden)  # fmt: skip
        t = g.node("Transpose", [y], f"lstm{i}.T", perm=[0, 2, 1, 3])
        shape = g.const(f"lstm{i}.shape", np.array([steps, batch, 2 * hidden], np.int64))
        x = g.node("Reshape", [t, shape], "y" if i == layers - 1 else f"lstm{i}.out")
        features = 2 * hidden
    return g.model(
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [steps, batch, inputs])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [steps, batch, 2 * hidden])],
        14,
        "lstm",
    )


def unet_decoder_block(
    channels: int = 128, size: int = 28, batch: int = 1, seed: int = 0
) -> onnx.ModelProto:
    """One U-Net decoder stage as PyTorch exports it (opset 13): `x` [batch, channels, size,
    size] up-sampled by a 2x2/2 ConvTranspose with bias to channels/2, concatenated with the
    encoder's `skip` [batch, channels/2, 2*size, 2*size], then two conv3x3-BN-ReLU to
    channels/2: output `y` [batch, channels/2, 2*size, 2*size]. ConvTranspose weight
    ~ N(0, 1/channels) (each output pixel sees one tap of each input channel)."""
    g, half = _Graph(seed), channels // 2
    weight = g.normal("up.weight", (channels, half, 2, 2), math.sqrt(1.0 / channels))
    bias = g.normal("up.bias", (half,), 0.1)
    up = g.node(
        "ConvTranspose", ["x", weight, bias], "up",
        dilations=[1, 1], group=1, kernel_shape=[2, 2], pads=[0, 0, 0, 0], strides=[2, 2],
    )  # fmt: skip
    y = g.node("Concat", [up, "skip"], "cat", axis=1)
    y = g.node("Relu", [_conv_bn(g, y, "conv.0", "conv.1", channels, half, 3, 1)], "conv.2")
    g.node("Relu", [_conv_bn(g, y, "conv.3", "conv.4", half, half, 3, 1)], "y")
    big = [batch, half, 2 * size, 2 * size]
    return g.model(
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, channels, size, size]),
            helper.make_tensor_value_info("skip", TensorProto.FLOAT, big),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, big)],
        13,
        "unet_decoder_block",
    )


#: torchvision's VGG-16 ("D"): output channels of each 3x3 conv, "M" for a 2x2/2 max pool.
VGG16_LAYERS = (
    64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M",
)  # fmt: skip


def vgg16(batch: int = 1, image: int = 224, classes: int = 1000, seed: int = 0) -> onnx.ModelProto:
    """torchvision's VGG-16 (no BN) as PyTorch exports it at opset 13 in eval mode: the convs
    of `VGG16_LAYERS` (3x3, pad 1, bias, ReLU), Flatten (the adaptive pool to 7x7 is the
    identity at 224x224 and is not exported), then Gemm(transB=1) 25088-4096-4096-classes
    with ReLU between (Dropout is gone in eval mode). Input `x` [batch, 3, image, image],
    output `logits`. Weights N(0, 2/fan_in) (He), biases N(0, 0.01); 138 M parameters."""
    g, x, c_in = _Graph(seed), "x", 3
    for index, layer in enumerate(VGG16_LAYERS):
        name = f"features.{index}"
        if layer == "M":
            x = g.node("MaxPool", [x], name, kernel_shape=[2, 2], strides=[2, 2])
            continue
        c_out = int(layer)
        weight = g.normal(f"{name}.weight", (c_out, c_in, 3, 3), math.sqrt(2.0 / (9 * c_in)))
        bias = g.normal(f"{name}.bias", (c_out,), 0.01)
        x = g.node(
            "Conv", [x, weight, bias], name,
            dilations=[1, 1], group=1, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1],
        )  # fmt: skip
        x, c_in = g.node("Relu", [x], f"{name}.relu"), c_out
    x = g.node("Flatten", [x], "flatten", axis=1)
    side = image // 32
    sizes = (c_in * side * side, 4096, 4096, classes)
    for index, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
        name, last = f"classifier.{3 * index}", index == len(sizes) - 2
        weight = g.normal(f"{name}.weight", (n_out, n_in), math.sqrt((1.0 if last else 2.0) / n_in))
        bias = g.normal(f"{name}.bias", (n_out,), 0.01)
        x = g.node("Gemm", [x, weight, bias], "logits" if last else name, transB=1)
        if not last:
            x = g.node("Relu", [x], f"{name}.relu")
    return g.model(
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, image, image])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, classes])],
        13,
        "vgg16",
    )


def yolo_neck_block(
    channels: int = 256, size: int = 20, batch: int = 1, seed: int = 0
) -> onnx.ModelProto:
    """The first top-down step of YOLOv5's neck as ultralytics exports it (opset 17, BN folded
    into the convs, SiLU as Sigmoid * Mul): `p5` [batch, 2*channels, size, size] through a
    1x1 Conv+SiLU to `channels`, a 2x nearest Resize, Concat with the backbone's `p4`
    [batch, channels, 2*size, 2*size], then a C3 block without shortcut (two 1x1 Conv+SiLU
    branches to channels/2, a bottleneck of 1x1 and 3x3 Conv+SiLU on the first, Concat,
    1x1 Conv+SiLU to `channels`): output `y` [batch, channels, 2*size, 2*size]. Weights
    N(0, 2/fan_in), biases N(0, 0.1)."""
    g, half = _Graph(seed), channels // 2

    def conv_silu(x: str, name: str, c_in: int, c_out: int, kernel: int, output: str = "") -> str:
        weight = g.normal(
            f"{name}.conv.weight", (c_out, c_in, kernel, kernel),
            math.sqrt(2.0 / (c_in * kernel * kernel)),
        )  # fmt: skip
        bias = g.normal(f"{name}.conv.bias", (c_out,), 0.1)
        y = g.node(
            "Conv", [x, weight, bias], f"{name}.conv",
            dilations=[1, 1], group=1, kernel_shape=[kernel, kernel], pads=[kernel // 2] * 4,
            strides=[1, 1],
        )  # fmt: skip
        sigmoid = g.node("Sigmoid", [y], f"{name}.sigmoid")
        return g.node("Mul", [y, sigmoid], output or f"{name}.act")

    x = conv_silu("p5", "model.10", 2 * channels, channels, 1)
    scales = g.const("model.11.scales", np.array([1.0, 1.0, 2.0, 2.0], np.float32))
    x = g.node(
        "Resize", [x, "", scales], "model.11",
        coordinate_transformation_mode="asymmetric", mode="nearest", nearest_mode="floor",
    )  # fmt: skip
    x = g.node("Concat", [x, "p4"], "model.12", axis=1)
    a = conv_silu(x, "model.13.cv1", 2 * channels, half, 1)
    a = conv_silu(
        conv_silu(a, "model.13.m.0.cv1", half, half, 1), "model.13.m.0.cv2", half, half, 3
    )
    b = conv_silu(x, "model.13.cv2", 2 * channels, half, 1)
    x = g.node("Concat", [a, b], "model.13.cat", axis=1)
    conv_silu(x, "model.13.cv3", channels, channels, 1, output="y")
    big = [batch, channels, 2 * size, 2 * size]
    return g.model(
        [
            helper.make_tensor_value_info(
                "p5", TensorProto.FLOAT, [batch, 2 * channels, size, size]
            ),
            helper.make_tensor_value_info("p4", TensorProto.FLOAT, big),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, big)],
        17,
        "yolo_neck_block",
    )


# ------------------------------------------------------------------------------ random weights

#: Ops through which a constant reaches the op that gives it its meaning (input 0 only).
_PASS_THROUGH = {"Unsqueeze", "Squeeze", "Reshape", "Flatten", "Transpose", "Identity", "Cast"}

#: (op, input index) -> what a constant is to that op.
_ROLES = {
    ("Conv", 1): "weight", ("Gemm", 1): "weight", ("MatMul", 1): "weight",
    ("Conv", 2): "bias", ("Gemm", 2): "bias",
    ("BatchNormalization", 1): "scale", ("BatchNormalization", 2): "bias",
    ("BatchNormalization", 3): "bias", ("BatchNormalization", 4): "scale",
    ("LayerNormalization", 1): "scale", ("LayerNormalization", 2): "bias",
    ("Add", 0): "bias", ("Add", 1): "bias", ("Sub", 1): "bias", ("Sum", 0): "bias",
    ("Mul", 0): "scale", ("Mul", 1): "scale", ("Div", 1): "scale",
}  # fmt: skip

#: Ops whose output's scale does not follow their input's.
_NORMALIZING = {
    "Softmax", "LogSoftmax", "LayerNormalization", "InstanceNormalization", "Sigmoid", "Tanh",
    "Erf", "Shape", "ConstantOfShape", "Constant",
}  # fmt: skip

Uses = dict[str, list[tuple[onnx.NodeProto, int]]]


def with_random_weights(
    model: onnx.ModelProto, seed: int = 0, calibrate: bool = True
) -> onnx.ModelProto:
    """A copy of `model` whose weights are seeded random tensors of sane scale.

    Every float constant with more than one element (an initializer, or the output of a
    `Constant` or `ConstantOfShape` node) gets a role from the op that uses it, looking
    through Reshape, Unsqueeze, Transpose, ..., and is replaced:

      Conv/Gemm/MatMul weight              N(0, 1/fan_in), then calibrated (below)
      Conv/Gemm bias, BN bias and mean     N(0, 0.1)
      BN scale and variance                U(0.5, 1.5)
      LayerNorm scale / bias               U(0.5, 1.5) / N(0, 0.1)
      Mul/Div operand / Add/Sub operand    U(0.5, 1.5) / N(0, 0.1)  (e.g. Caffe2's unfused BN)

    Scalars (Gelu's sqrt 2, attention's sqrt d) and constants of other uses keep their
    values; integer constants (shapes, indices) are never touched. `ConstantOfShape` weights
    become `Constant` nodes; names, structure and opset stay as they were.

    N(0, 1/fan_in) alone does not keep activations O(1) (measured with ONNX Runtime on the
    light models): ReLU halves the variance per layer, so VGG-19's and SqueezeNet's logits end
    up made of biases (outputs hardly depend on the input), while BN and residual adds grow
    ShuffleNet's to a saturated softmax; 2/fan_in (He) instead blows ResNet-50's logits up to
    ~1e4. So `calibrate` (the default) rescales each weight so that its op's output has unit
    RMS on a seeded N(0, 1) input, as LSUV does: three ONNX Runtime runs of the model.
    """
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    rng = np.random.default_rng(seed)
    infos = _value_infos(model)  # before the weights are in: shape inference copies the model
    uses: Uses = {}
    for node in graph.node:
        for index, name in enumerate(node.input):
            uses.setdefault(name, []).append((node, index))

    # Every float constant as (name, current value, where the new value goes).
    constants: list[tuple[str, np.ndarray, onnx.TensorProto]] = []
    initializers = {init.name: init for init in graph.initializer}
    constants += [(init.name, numpy_helper.to_array(init), init) for init in graph.initializer]
    for position, node in enumerate(list(graph.node)):
        if node.op_type == "Constant":
            value = next((a for a in node.attribute if a.name == "value"), None)
            if value is not None:
                constants.append((node.output[0], numpy_helper.to_array(value.t), value.t))
        elif node.op_type == "ConstantOfShape" and node.input[0] in initializers:
            fill = next((a.t for a in node.attribute if a.name == "value"), None)
            value = numpy_helper.to_array(fill) if fill is not None else np.zeros(1, np.float32)
            dims = numpy_helper.to_array(initializers[node.input[0]]).tolist()
            constant = helper.make_node(
                "Constant", [], [node.output[0]], name=node.name,
                value=numpy_helper.from_array(np.zeros(0, value.dtype)),
            )  # fmt: skip
            graph.node.remove(node)
            graph.node.insert(position, constant)
            array = np.broadcast_to(value.ravel()[:1], dims)
            constants.append((node.output[0], array, graph.node[position].attribute[0].t))

    new_values: dict[str, np.ndarray] = {}
    weights: dict[str, str] = {}  # weight -> the output of the op that uses it
    for name, array, _ in constants:
        use = _use(name, uses) if array.dtype.kind == "f" and array.size > 1 else None
        if use is None:
            continue
        node, index, seen_as = use
        kind = _ROLES[node.op_type, index]
        if kind == "weight":
            shape = infos.get(seen_as, (0, array.shape))[1] or array.shape
            new = rng.standard_normal(array.shape, np.float32)
            new *= math.sqrt(1.0 / _fan_in(node, shape))
            weights[name] = node.output[0]
        elif kind == "scale":
            new = rng.random(array.shape, np.float32) + np.float32(0.5)
        else:
            new = rng.standard_normal(array.shape, np.float32) * np.float32(0.1)
        new_values[name] = new.astype(array.dtype, copy=False)
    if calibrate and weights:
        _calibrate(model, new_values, weights, infos, seed)
    for name, array, tensor in constants:
        if name in new_values:
            tensor.CopyFrom(numpy_helper.from_array(new_values[name], tensor.name))
        elif list(tensor.dims) != list(array.shape):  # an untouched ConstantOfShape
            tensor.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(array), tensor.name))
    return model


def _use(name: str, uses: Uses) -> tuple[onnx.NodeProto, int, str] | None:
    """The first op that gives the constant `name` a role: (node, input index, the value it
    reads, which is `name` or what a pass-through op made of it)."""
    pending, seen = [name], {name}
    while pending:
        value = pending.pop(0)
        for node, index in uses.get(value, []):
            if node.op_type in _PASS_THROUGH and index == 0:
                if node.output[0] not in seen:
                    seen.add(node.output[0])
                    pending.append(node.output[0])
            elif (node.op_type, index) in _ROLES:
                return node, index, value
    return None


def _fan_in(node: onnx.NodeProto, shape: Sequence[int]) -> int:
    """Inputs summed into each output element, for the weight operand of `node`."""
    if node.op_type == "Gemm":
        trans_b = any(a.name == "transB" and a.i for a in node.attribute)
        return shape[-1] if trans_b else shape[0]
    if node.op_type == "MatMul":
        return shape[-2] if len(shape) >= 2 else shape[0]
    return max(1, math.prod(shape[1:]))  # Conv: C_in / group * kernel


def _calibrate(
    model: onnx.ModelProto,
    values: dict[str, np.ndarray],
    weights: dict[str, str],
    infos: dict[str, tuple[int, tuple[int, ...] | None]],
    seed: int,
) -> None:
    """Scale each weight in `values` so that its op's output has unit RMS on a seeded N(0, 1)
    input, as LSUV does (Mishkin & Matas, "All you need is a good init", 2015).

    LSUV fixes one layer per forward run; this fixes all of them per run: from the RMS of every
    value it walks the graph in order, predicting how each value's RMS changes with the weights
    already rescaled upstream (ops taken as homogeneous in their first input; Add and Concat
    mix their inputs' changes; normalizing ops reset it), and picks each weight's factor so
    that its op's output lands at RMS 1. Conv/Gemm biases are zero in these runs, which makes
    the prediction exact along conv/ReLU/pool chains and close elsewhere; three runs settle it.
    """
    import onnxruntime as ort

    rng = np.random.default_rng(seed)
    feeds: dict[str, np.ndarray] = {}
    initializers = {init.name for init in model.graph.initializer}
    for info in model.graph.input:
        if info.name not in initializers:
            elem_type, shape = infos.get(info.name, (0, None))
            if elem_type != TensorProto.FLOAT or shape is None:
                return  # nothing to calibrate on: keep N(0, 1/fan_in)
            feeds[info.name] = rng.standard_normal(shape).astype(np.float32)

    # The probe: all constants we replace become inputs (one session serves every run); each
    # float value an op makes gets its mean square computed in the graph.
    probe = onnx.ModelProto.FromString(model.SerializeToString())
    graph = probe.graph
    nodes = [n for n in graph.node if not (n.op_type == "Constant" and n.output[0] in values)]
    zero_biases = {
        node.input[2]: np.zeros_like(values[node.input[2]])
        for node in nodes
        if node.op_type in ("Conv", "Gemm") and len(node.input) == 3 and node.input[2] in values
    }
    measured = [
        out for node in nodes for out in node.output if infos.get(out, (0,))[0] == TensorProto.FLOAT
    ]
    for value in measured:
        nodes.append(helper.make_node("Mul", [value, value], [f"{value}.sq"]))
        nodes.append(helper.make_node("ReduceMean", [f"{value}.sq"], [f"{value}.ms"], keepdims=0))
    kept_initializers = [i for i in graph.initializer if i.name not in values]
    inputs = [i for i in graph.input if i.name not in values]
    inputs += [
        helper.make_tensor_value_info(n, TensorProto.FLOAT, v.shape) for n, v in values.items()
    ]
    outputs = [helper.make_tensor_value_info(f"{v}.ms", TensorProto.FLOAT, []) for v in measured]
    probe.graph.CopyFrom(helper.make_graph(nodes, graph.name, inputs, outputs, kept_initializers))
    options = ort.SessionOptions()
    options.log_severity_level = 3  # the light models carry unused initializers ORT warns about
    session = ort.InferenceSession(
        probe.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )

    weight_at = {output: name for name, output in weights.items()}
    sizes = {name: math.prod(shape) for name, (_, shape) in infos.items() if shape is not None}
    for _ in range(3):
        squares = session.run(None, {**feeds, **values, **zero_biases})
        rms = {v: math.sqrt(float(ms)) for v, ms in zip(measured, squares)}
        change: dict[str, float] = {}  # value -> predicted new RMS / measured RMS
        for node in nodes[: len(nodes) - 2 * len(measured)]:
            out = node.output[0]
            first = change.get(node.input[0], 1.0) if node.input else 1.0
            if out in weight_at:
                predicted = rms.get(out, 0.0) * first
                factor = 1.0 / predicted if 0 < predicted < math.inf else 1.0
                factor = min(max(factor, 1e-4), 1e4)
                values[weight_at[out]] *= np.float32(factor)
                change[out] = first * factor
            elif node.op_type in ("Add", "Sub", "Sum", "Concat"):
                parts = [(rms.get(x, 0.0), change.get(x, 1.0), sizes.get(x, 1)) for x in node.input]
                if node.op_type != "Concat":
                    parts = [(r, c, 1) for r, c, _ in parts]
                old = sum(n * r * r for r, _, n in parts)
                new = sum(n * (r * c) ** 2 for r, c, n in parts)
                change[out] = math.sqrt(new / old) if old > 0 else 1.0
            elif node.op_type in _NORMALIZING:
                change[out] = 1.0
            else:
                change[out] = first


def _value_infos(model: onnx.ModelProto) -> dict[str, tuple[int, tuple[int, ...] | None]]:
    """Element type and static shape (None if not static) of the model's values, where ONNX's
    shape inference knows them."""
    inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    infos = {}
    for info in [*inferred.graph.value_info, *inferred.graph.input, *inferred.graph.output]:
        tensor_type = info.type.tensor_type
        dims = tensor_type.shape.dim
        static = tensor_type.HasField("shape") and all(d.HasField("dim_value") for d in dims)
        infos[info.name] = (
            tensor_type.elem_type,
            tuple(d.dim_value for d in dims) if static else None,
        )
    return infos
