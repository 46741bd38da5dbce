"""Fusion never changes results: BN folding, graph-fuse and the fused kernels' default schedule.

Each case is a small ONNX model with random weights, compiled with opt_level 3 (BN folding +
fusion + inline/compute_at schedules) and opt_level 1 (one kernel per op), run on the same
inputs and compared with each other and with ONNX Runtime. Structural checks make sure the
fused path was actually taken (fewer kernels, the expected groups). The light models
SqueezeNet and ResNet-50 run end to end at opt_level 3 against ONNX Runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import func

import minitvm
from minitvm.compiler import build, lower_to_te, random_inputs
from minitvm.dialects import graph as g
from minitvm.dialects import te
from minitvm.frontend import from_onnx
from minitvm.ir import make_context, parse_module, print_module
from minitvm.passes.graph.fold_batchnorm import FoldBatchNormPass
from minitvm.passes.graph.fuse import FusePass
from minitvm.runtime import TensorSpec
from models import light_model_path, with_random_weights

RTOL, ATOL = 1e-4, 1e-5


class Net:
    """An ONNX graph written node by node, with seeded random initializers."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []

    def input(self, name: str, shape: Sequence[int]) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        return name

    def const(self, name: str, array: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, name: str, shape: Sequence[int], scale: float = 0.3, low: float | None = None) -> str:
        if low is not None:
            return self.const(name, self.rng.uniform(low, low + 1.0, shape).astype(np.float32))
        return self.const(name, (scale * self.rng.standard_normal(shape)).astype(np.float32))

    def op(self, kind: str, inputs: Sequence[str], **attrs: object) -> str:
        out = f"{kind.lower()}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def batch_norm(self, x: str, channels: int) -> str:
        n = len(self.nodes)
        params = [
            self.weight(f"bn{n}_scale", [channels], low=0.5),
            self.weight(f"bn{n}_bias", [channels]),
            self.weight(f"bn{n}_mean", [channels]),
            self.weight(f"bn{n}_var", [channels], low=0.5),
        ]
        return self.op("BatchNormalization", [x, *params], epsilon=1e-5)

    def model(self, outputs: Sequence[str], opset: int = 17) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, "fusion_case", self.inputs,
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
            self.inits,
        )  # fmt: skip
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        return onnx.shape_inference.infer_shapes(model)


def run_ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def kernel_names(model: onnx.ModelProto, opt_level: int) -> list[str]:
    """The kernels' names, 3x3 convs direct: with winograd "auto" the choice follows the
    machine's measured roofline, and these tests are about fusion, not the conv's algorithm."""
    module = from_onnx(model)
    lower_to_te(module, opt_level, winograd="never")
    return [
        f.sym_name.data for f in module.ops
        if isinstance(f, func.FuncOp) and te.KERNEL_ATTR in f.attributes
    ]  # fmt: skip


def check(model: onnx.ModelProto, *, rtol: float = RTOL, atol: float = ATOL) -> list[str]:
    """Compile at opt_level 3 and 1, compare both with ONNX Runtime and with each other;
    returns the fused build's kernel names."""
    fused = minitvm.compile(model, opt_level=3, num_threads=1)
    plain = minitvm.compile(model, opt_level=1, num_threads=1)
    feeds = random_inputs(fused, seed=3)
    got, base, want = fused.run(feeds), plain.run(feeds), run_ort(model, feeds)
    for ours, unfused, theirs in zip(got, base, want, strict=True):
        np.testing.assert_allclose(ours, unfused, rtol=rtol, atol=atol)
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)
    names = kernel_names(model, 3)
    assert len(names) < len(kernel_names(model, 1))
    return names


# --------------------------------------------------------------------------------------------
# Small graphs: each is a fused path of its own
# --------------------------------------------------------------------------------------------


def conv_bn_relu_residual(seed: int) -> onnx.ModelProto:
    """ResNet's basic block: conv-bn-relu, conv-bn, + skip, relu (two fused kernels). With
    10 channels, which no channel block divides (16 or 8 with AVX-512, 8 or 4 with AVX2),
    the convs stay in NCHW."""
    net = Net(seed)
    x = net.input("x", [1, 10, 10, 10])
    y = net.op("Conv", [x, net.weight("w1", [10, 10, 3, 3], 0.2)], pads=[1, 1, 1, 1])
    y = net.op("Relu", [net.batch_norm(y, 10)])
    y = net.op("Conv", [y, net.weight("w2", [10, 10, 3, 3], 0.2), net.weight("b2", [10])], pads=[1, 1, 1, 1])
    y = net.op("Add", [net.batch_norm(y, 10), x])
    return net.model([net.op("Relu", [y])])


def strided_conv_bn_clip(seed: int) -> onnx.ModelProto:
    """A strided depthwise conv (group = channels) + BN + ReLU6, then a 1x1 conv + BN."""
    net = Net(seed)
    x = net.input("x", [1, 6, 11, 9])
    y = net.op("Conv", [x, net.weight("dw", [6, 1, 3, 3])], pads=[1, 1, 1, 1], strides=[2, 2], group=6)
    y = net.op("Clip", [net.batch_norm(y, 6), net.const("lo", np.float32(0)), net.const("hi", np.float32(6))])
    y = net.op("Conv", [y, net.weight("pw", [4, 6, 1, 1])])
    return net.model([net.batch_norm(y, 4)])


def blocked_depthwise_convs(seed: int) -> onnx.ModelProto:
    """MobileNet's depthwise convs on blocked data (32 channels: whole vector blocks), a
    strided one on odd sizes, then a stride-1 one, each + BN + ReLU6."""
    net = Net(seed)
    y = net.input("x", [1, 32, 13, 11])
    for n, stride in enumerate((2, 1)):
        w = net.weight(f"dw{n}", [32, 1, 3, 3], 0.3)
        y = net.op("Conv", [y, w], pads=[1, 1, 1, 1], strides=[stride, stride], group=32)
        y = net.op("Clip", [net.batch_norm(y, 32), net.const(f"lo{n}", np.float32(0)), net.const(f"hi{n}", np.float32(6))])
    return net.model([y])


def matmul_bias_gelu(seed: int) -> onnx.ModelProto:
    """A transformer FFN: matmul + bias + gelu, matmul + bias + residual."""
    net = Net(seed)
    x = net.input("x", [6, 16])
    h = net.op("Add", [net.op("MatMul", [x, net.weight("w1", [16, 32])]), net.weight("b1", [32])])
    h = net.op("Gelu", [h])
    y = net.op("Add", [net.op("MatMul", [h, net.weight("w2", [32, 16])]), net.weight("b2", [16])])
    return net.model([net.op("Add", [y, x])], opset=20)


def gemm_bn_sigmoid(seed: int) -> onnx.ModelProto:
    """Gemm (transposed weight, alpha/beta) + BN folded into its weights + sigmoid."""
    net = Net(seed)
    x = net.input("x", [5, 12])
    y = net.op("Gemm", [x, net.weight("w", [7, 12]), net.weight("c", [7])], transB=1, alpha=0.5, beta=2.0)
    return net.model([net.op("Sigmoid", [net.batch_norm(y, 7)])])


def conv_bn_scale_shift(seed: int) -> onnx.ModelProto:
    """DenseNet's pattern: conv, BN, a per-channel Mul and Add (Caffe's Scale), ReLU."""
    net = Net(seed)
    x = net.input("x", [1, 3, 7, 7])
    y = net.batch_norm(net.op("Conv", [x, net.weight("w", [5, 3, 3, 3])], pads=[1, 1, 1, 1]), 5)
    y = net.op("Add", [net.op("Mul", [y, net.weight("s", [5, 1, 1], low=0.5)]), net.weight("t", [5, 1, 1])])
    return net.model([net.op("Relu", [y])])


def conv_bn_variable_mean(seed: int) -> onnx.ModelProto:
    """A BN whose mean arrives at run time: not folded, but fused into the conv's kernel (5
    output channels, which no channel block divides: the conv stays in NCHW)."""
    net = Net(seed)
    x, mean = net.input("x", [1, 3, 6, 6]), net.input("mean", [5])
    y = net.op("Conv", [x, net.weight("w", [5, 3, 3, 3])], pads=[1, 1, 1, 1])
    params = [net.weight("g", [5], low=0.5), net.weight("b", [5]), mean, net.weight("v", [5], low=0.5)]
    return net.model([net.op("Relu", [net.op("BatchNormalization", [y, *params])])])


def injective_chain(seed: int) -> onnx.ModelProto:
    """Broadcasting elementwise ops, a reshape and a transpose: one kernel."""
    net = Net(seed)
    x = net.input("x", [2, 3, 4])
    y = net.op("Mul", [net.op("Add", [x, net.weight("b", [4])]), net.weight("s", [3, 1])])
    y = net.op("Reshape", [net.op("Tanh", [y]), net.const("shape", np.array([6, 4], np.int64))])
    y = net.op("Transpose", [y], perm=[1, 0])
    return net.model([net.op("Sub", [y, net.weight("o", [4, 1])])])


def lstm_gate_tree(seed: int) -> onnx.ModelProto:
    """An LSTM cell's gate math on a [2, 4*6] GEMM result: four gate slices, then
    c' = sigmoid(f) * c + sigmoid(i) * tanh(g) and h = sigmoid(o) * tanh(c'). A tree of
    single-use injective ops per output: two kernels after the GEMM."""
    net = Net(seed)
    x, c = net.input("x", [2, 5]), net.input("c", [2, 6])
    gates = net.op("MatMul", [x, net.weight("w", [5, 24])])
    i, o, f, g_ = (net.op("Slice", [gates, net.const(f"s{k}", np.array([6 * k])),
                                    net.const(f"e{k}", np.array([6 * k + 6])),
                                    net.const(f"a{k}", np.array([1]))]) for k in range(4))  # fmt: skip
    kept = net.op("Mul", [net.op("Sigmoid", [f]), c])
    c_new = net.op("Add", [kept, net.op("Mul", [net.op("Sigmoid", [i]), net.op("Tanh", [g_])])])
    h = net.op("Mul", [net.op("Sigmoid", [o]), net.op("Tanh", [c_new])])
    return net.model([h, c_new])


def reductions_with_epilogues(seed: int) -> onnx.ModelProto:
    """Softmax, layer norm, max pool, reduce-mean and global pool anchors, each with an
    epilogue that reads something else too."""
    net = Net(seed)
    x = net.input("x", [2, 4, 6, 6])
    p = net.op("Relu", [net.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])])
    s = net.op("Mul", [net.op("Softmax", [p], axis=3), net.weight("t", [3])])
    ln = net.op("LayerNormalization", [s, net.weight("g", [3, 3]), net.weight("be", [3, 3])], axis=2)
    ln = net.op("Add", [ln, p])
    m = net.op("Sub", [net.op("ReduceMean", [ln, net.const("ax", np.array([1], np.int64))]), net.weight("u", [3, 3])])
    pooled = net.op("Neg", [net.op("GlobalAveragePool", [m])])
    return net.model([pooled, m], opset=18)


def layer_norm_mean_escapes(seed: int) -> onnx.ModelProto:
    """The group of a layer norm and its epilogue also returns the mean, used after it."""
    net = Net(seed)
    x = net.input("x", [3, 5, 8])
    net.nodes.append(helper.make_node(
        "LayerNormalization", [x, net.weight("g", [8]), net.weight("b", [8])], ["y", "mean"], axis=2,
    ))  # fmt: skip
    y = net.op("Tanh", [net.op("Mul", ["y", net.weight("s", [8])])])
    return net.model([y, net.op("Neg", ["mean"])])


def conv_silu_matmul_erf_gelu(seed: int) -> onnx.ModelProto:
    """YOLO's Conv + SiLU (x * sigmoid(x)) and BERT's GELU written out (x * 0.5 * (1 +
    erf(x / sqrt 2))) after a matmul: diamonds, the anchor's result read twice."""
    net = Net(seed)
    x = net.input("x", [1, 16, 6, 6])
    y = net.op("Conv", [x, net.weight("w", [16, 16, 3, 3], 0.1), net.weight("b", [16])], pads=[1, 1, 1, 1])
    y = net.op("Mul", [y, net.op("Sigmoid", [y])])
    h = net.op("MatMul", [net.op("Reshape", [y, net.const("shape", np.array([16, 36]))]), net.weight("m", [36, 32])])
    erf = net.op("Erf", [net.op("Div", [h, net.const("sqrt2", np.float32(np.sqrt(2)))])])
    one_plus = net.op("Add", [erf, net.const("one", np.float32(1))])
    gelu = net.op("Mul", [net.op("Mul", [h, one_plus]), net.const("half", np.float32(0.5))])
    return net.model([gelu])


CASES: dict[str, Callable[[int], onnx.ModelProto]] = {
    "conv_silu_matmul_erf_gelu": conv_silu_matmul_erf_gelu,
    "conv_bn_relu_residual": conv_bn_relu_residual,
    "strided_conv_bn_clip": strided_conv_bn_clip,
    "matmul_bias_gelu": matmul_bias_gelu,
    "gemm_bn_sigmoid": gemm_bn_sigmoid,
    "conv_bn_scale_shift": conv_bn_scale_shift,
    "conv_bn_variable_mean": conv_bn_variable_mean,
    "injective_chain": injective_chain,
    "lstm_gate_tree": lstm_gate_tree,
    "reductions_with_epilogues": reductions_with_epilogues,
    "layer_norm_mean_escapes": layer_norm_mean_escapes,
}


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("case", sorted(CASES))
def test_fused_graph_matches_unfused_and_onnxruntime(case: str, seed: int) -> None:
    check(CASES[case](seed))


def test_residual_block_is_two_fused_conv_kernels() -> None:
    assert kernel_names(conv_bn_relu_residual(0), 3) == ["fused_conv_0", "fused_conv_1"]


def test_silu_and_erf_gelu_fuse_into_their_anchors() -> None:
    names = [n.rsplit("_", 1)[0] for n in kernel_names(conv_silu_matmul_erf_gelu(0), 3)]
    assert "fused_conv_nchwc" in names and "fused_matmul_packed" in names
    assert not any("sigmoid" in n or "erf" in n or "div" in n for n in names), names


def test_injective_chain_is_one_kernel() -> None:
    assert [n.rsplit("_", 1)[0] for n in kernel_names(injective_chain(0), 3)] == ["fused_add"]


def test_injective_trees_are_one_kernel_each() -> None:
    names = [n.rsplit("_", 1)[0] for n in kernel_names(lstm_gate_tree(0), 3)]
    assert sorted(names) == ["fused_slice", "fused_slice", "matmul"], names


def test_batch_norms_fold_away() -> None:
    module = from_onnx(conv_bn_relu_residual(0))
    FoldBatchNormPass().apply(make_context(), module)
    ops = [op for op in module.walk() if isinstance(op, g.BatchNormOp | g.MulOp)]
    assert not ops


def test_fused_kernel_schedule() -> None:
    """The conv's reduction is the named anchor; bias, BN shift, residual and relu collapse
    into one compute attached at the conv's row loop; the padding stays materialized."""
    module = from_onnx(conv_bn_relu_residual(0))
    lower_to_te(module, 3, winograd="never")
    kernel = next(f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data.startswith("fused_conv"))
    computes = [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]
    pad, anchor, *epilogue = computes
    assert pad.schedule == () and pad.reduce_kind is None
    assert anchor.label == "anchor" and anchor.reduce_kind is not None
    *inlined, last = epilogue
    assert all(c.schedule == (te.inline(),) for c in inlined)
    assert last.schedule == (te.compute_at("anchor", "i2"),)


def test_a_depthwise_conv_reads_its_padding_inline() -> None:
    """A blocked depthwise conv is bound by its reads: its zero padding is inlined into it
    (a select per input vector), not copied into a padded buffer first; the results still
    match ONNX Runtime at every border."""
    model = blocked_depthwise_convs(4)
    check(model)
    module = from_onnx(model)
    lower_to_te(module, 3, winograd="never")
    convs = [f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data.startswith("fused_conv_nchwc")]
    assert len(convs) == 2
    for kernel in convs:
        pad, anchor, *_ = [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]
        assert pad.schedule == (te.inline(),) and anchor.label == "anchor"


def test_intermediate_graph_output_is_a_group_result() -> None:
    """A value the model returns is not fused past (it has a user outside the chain): the
    conv (5 output channels: NCHW) stays alone, relu + sigmoid still make one kernel."""
    net = Net(1)
    x = net.input("x", [1, 3, 5, 5])
    y = net.op("Conv", [x, net.weight("w", [5, 3, 3, 3])], pads=[1, 1, 1, 1])
    r = net.op("Relu", [y])
    model = net.model([net.op("Sigmoid", [r]), y])
    check(model)
    module = from_onnx(model)
    FusePass().apply(make_context(), module)
    (fused,) = [op for op in module.walk() if isinstance(op, g.FusedOp)]
    assert fused.label == "relu_sigmoid"


def test_fused_op_round_trips_in_custom_and_generic_form() -> None:
    module = from_onnx(conv_bn_relu_residual(0))
    FusePass().apply(make_context(), module)
    assert len([op for op in module.walk() if isinstance(op, g.FusedOp)]) == 2
    for generic in (False, True):
        text = print_module(module, generic=generic)
        reparsed = parse_module(text)
        reparsed.verify()
        assert print_module(reparsed, generic=generic) == text
        assert print_module(reparsed, generic=not generic) == print_module(module, generic=not generic)


# A compute_at onto a compute that is itself attached, at a loop the two share: that loop is
# the outer producer's, and te_to_loop once dropped such a consumer (never emitted it).
NESTED_COMPUTE_AT = """
func.func @k(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>) -> tensor<4x16xf32> attributes {te.kernel} {
  %c = te.compute "mm" (%i, %j) in [4, 16] sum (%k) in [8] : tensor<4x16xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    %b = te.read %B[%k, %j] : tensor<8x16xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  %r = te.compute "relu" (%i, %j) in [4, 16] {schedule = [#te.compute_at<"mm", "i0">]} : tensor<4x16xf32> {
    %v = te.read %c[%i, %j] : tensor<4x16xf32>
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %z : f32
    te.yield %m : f32
  }
  %n = te.compute (%i, %j) in [4, 16] {schedule = [#te.compute_at<"relu", "AXIS">]} : tensor<4x16xf32> {
    %v = te.read %r[%i, %j] : tensor<4x16xf32>
    %m = arith.negf %v : f32
    te.yield %m : f32
  }
  func.return %n : tensor<4x16xf32>
}
func.func @main(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = func.call @k(%A, %B) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  func.return %0 : tensor<4x16xf32>
}
"""


@pytest.mark.parametrize("axis", ["i0", "i1"])
def test_compute_at_onto_an_attached_producer(axis: str) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 8)).astype(np.float32), rng.standard_normal((8, 16)).astype(np.float32)
    f32 = np.dtype(np.float32)
    module = parse_module(NESTED_COMPUTE_AT.replace("AXIS", axis))
    exe = build(module, [TensorSpec("A", (4, 8), f32), TensorSpec("B", (8, 16), f32)],
                [TensorSpec("y", (4, 16), f32)], num_threads=1)  # fmt: skip
    (got,) = exe.run({"A": a, "B": b})
    np.testing.assert_allclose(got, -np.maximum(a @ b, 0), rtol=RTOL, atol=ATOL)


# --------------------------------------------------------------------------------------------
# Light models, end to end
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["squeezenet", pytest.param("resnet50", marks=pytest.mark.slow)])
def test_light_model_fused_matches_onnxruntime(name: str) -> None:
    model = with_random_weights(onnx.load(light_model_path(name)), seed=0)
    exe = minitvm.compile(model, opt_level=3)
    feeds = random_inputs(exe, seed=1)
    for ours, theirs in zip(exe.run(feeds), run_ort(model, feeds), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-3, atol=1e-4)
