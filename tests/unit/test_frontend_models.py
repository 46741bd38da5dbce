"""Whole-model imports: ONNX's light test models, an MLP and a BERT encoder layer.

Each import must verify, pin the graph ops it produces, and give the output shapes ONNX
Runtime computes; the text form must round-trip byte for byte. The MLP and the BERT layer are
also run with the graph reference interpreter and compared with ONNX Runtime's values.
"""

from __future__ import annotations

import collections
import glob
import math
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp

from minitvm.dialects.graph import reference
from minitvm.frontend import from_onnx
from minitvm.ir import parse_module, print_module

LIGHT_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")

# Graph-op counts per light model (computed once, pinned). ConstantOfShape weights, Unsqueezed
# BN parameters, Dropout and no-op Reshapes are folded away; Sum becomes graph.add.
LIGHT_OP_COUNTS: dict[str, dict[str, int]] = {
    "bvlc_alexnet": {
        "constant": 16, "conv": 5, "relu": 7, "lrn": 2, "max_pool": 3, "reshape": 1, "gemm": 3,
        "softmax": 1,
    },
    "densenet121": {
        "constant": 848, "conv": 121, "batch_norm": 121, "mul": 121, "add": 121, "relu": 121,
        "max_pool": 1, "concat": 58, "avg_pool": 3, "global_avg_pool": 1,
    },
    "inception_v1": {
        "constant": 116, "conv": 57, "relu": 57, "max_pool": 13, "lrn": 2, "concat": 9,
        "avg_pool": 1, "reshape": 1, "gemm": 1, "softmax": 1,
    },
    "inception_v2": {
        "constant": 485, "conv": 69, "batch_norm": 69, "mul": 69, "add": 69, "relu": 69,
        "max_pool": 5, "avg_pool": 8, "concat": 10, "reshape": 1, "gemm": 1, "softmax": 1,
    },
    "resnet50": {
        "constant": 267, "conv": 53, "batch_norm": 53, "relu": 49, "max_pool": 1, "add": 16,
        "avg_pool": 1, "reshape": 1, "gemm": 1, "softmax": 1,
    },
    "shufflenet": {
        "constant": 248, "conv": 49, "batch_norm": 49, "relu": 33, "max_pool": 1, "reshape": 33,
        "transpose": 16, "avg_pool": 4, "concat": 3, "add": 13, "gemm": 1, "softmax": 1,
    },
    "squeezenet": {
        "constant": 52, "conv": 26, "relu": 26, "max_pool": 3, "concat": 8, "global_avg_pool": 1,
        "reshape": 2, "softmax": 1,
    },
    "vgg19": {
        "constant": 38, "conv": 16, "relu": 18, "max_pool": 5, "reshape": 1, "gemm": 3,
        "softmax": 1,
    },
    "zfnet512": {
        "constant": 16, "conv": 5, "relu": 7, "lrn": 2, "max_pool": 3, "reshape": 1, "gemm": 3,
        "softmax": 1,
    },
}  # fmt: skip


def graph_op_counts(module: ModuleOp) -> dict[str, int]:
    counts = collections.Counter(op.name for op in module.walk() if op.name.startswith("graph."))
    return {name.removeprefix("graph."): n for name, n in counts.items()}


def result_shapes(module: ModuleOp) -> list[tuple[int, ...]]:
    func = next(op for op in module.walk() if isinstance(op, FuncOp))
    assert func.sym_name.data == "main"
    types = func.function_type.outputs.data
    assert all(isinstance(t, TensorType) for t in types)
    return [tuple(t.get_shape()) for t in types]  # type: ignore[union-attr]


def run_ort(model: onnx.ModelProto | str, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    source = model if isinstance(model, str) else model.SerializeToString()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.log_severity_level = 3  # the light models carry unused initializers ORT warns about
    session = ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def ort_output_shapes(
    model: onnx.ModelProto | str, feeds: dict[str, np.ndarray]
) -> list[tuple[int, ...]]:
    return [tuple(r.shape) for r in run_ort(model, feeds)]


def assert_same_values(
    module: ModuleOp, model: onnx.ModelProto, feeds: dict[str, np.ndarray]
) -> None:
    """The import, run by the graph reference interpreter, computes what ONNX Runtime does."""
    got = reference.run_module(module, feeds)
    for value, want in zip(got, run_ort(model, feeds), strict=True):
        np.testing.assert_allclose(value, want, rtol=1e-3, atol=1e-4)


def random_feeds(module: ModuleOp, model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """Random inputs with the shapes the import gave the function arguments."""
    func = next(op for op in module.walk() if isinstance(op, FuncOp))
    initializers = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    rng = np.random.default_rng(0)
    return {
        name: rng.standard_normal(arg.type.get_shape(), dtype=np.float32)  # type: ignore[attr-defined]
        for name, arg in zip(names, func.body.block.args, strict=True)
    }


def assert_round_trips(module: ModuleOp) -> None:
    for generic in (False, True):
        text = print_module(module, generic=generic)
        assert print_module(parse_module(text), generic=generic) == text


@pytest.mark.parametrize("name", sorted(LIGHT_OP_COUNTS))
def test_light_model(name: str) -> None:
    path = os.path.join(LIGHT_DIR, f"light_{name}.onnx")
    module = from_onnx(path)
    assert graph_op_counts(module) == LIGHT_OP_COUNTS[name]
    assert result_shapes(module) == ort_output_shapes(path, random_feeds(module, onnx.load(path)))
    assert_round_trips(module)


def test_light_models_are_all_covered() -> None:
    found = {
        os.path.basename(p)[len("light_") : -len(".onnx")]
        for p in glob.glob(os.path.join(LIGHT_DIR, "light_*.onnx"))
    }
    assert found == set(LIGHT_OP_COUNTS)


# --------------------------------------------------------------------------------------------
# Models built here
# --------------------------------------------------------------------------------------------


class _Weights:
    """Seeded weights registered as initializers."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.initializers: list[onnx.TensorProto] = []

    def add(self, name: str, shape: tuple[int, ...], scale: float = 0.02) -> str:
        array = (self.rng.standard_normal(shape, dtype=np.float32) * scale).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def const(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(array, name))
        return name


def _model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    weights: _Weights,
    opset: int,
) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "test", inputs, outputs, weights.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    return model


def mlp_model() -> onnx.ModelProto:
    """784-1024-1024-10 with Gemm + Relu, opset 13."""
    w, nodes, x = _Weights(), [], "image"
    sizes = [784, 1024, 1024, 10]
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        weight, bias = w.add(f"fc{i}.weight", (n_out, n_in)), w.add(f"fc{i}.bias", (n_out,))
        y = f"fc{i}" if i < len(sizes) - 2 else "logits"
        nodes.append(helper.make_node("Gemm", [x, weight, bias], [y], name=f"fc{i}", transB=1))
        if i < len(sizes) - 2:
            nodes.append(helper.make_node("Relu", [y], [f"relu{i}"], name=f"relu{i}"))
            y = f"relu{i}"
        x = y
    return _model(
        nodes,
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 784])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        w,
        13,
    )


def test_mlp() -> None:
    model = mlp_model()
    module = from_onnx(model, input_shapes={"image": (8, 784)})
    assert graph_op_counts(module) == {"constant": 6, "gemm": 3, "relu": 2}
    feeds = {"image": np.random.default_rng(1).standard_normal((8, 784), dtype=np.float32)}
    assert result_shapes(module) == ort_output_shapes(model, feeds) == [(8, 10)]
    assert_same_values(module, model, feeds)
    assert "func.func @main(%image: tensor<8x784xf32>) -> tensor<8x10xf32>" in print_module(module)
    assert_round_trips(module)


SEQ, HIDDEN, HEADS, FFN = 128, 768, 12, 3072


def bert_layer_model() -> onnx.ModelProto:
    """One BERT encoder layer as PyTorch exports it at opset 17: the head-split reshape target
    is computed with Shape -> Gather -> Unsqueeze -> Concat (folded by the frontend), Gelu is
    written out with Erf, LayerNormalization is the opset-17 op."""
    w, nodes = _Weights(), []
    node = lambda op, ins, outs, **attrs: nodes.append(
        helper.make_node(op, ins, outs, name=outs[0], **attrs)
    )
    head = HIDDEN // HEADS

    def dense(x: str, name: str, n_in: int, n_out: int) -> str:
        node("MatMul", [x, w.add(f"{name}.weight", (n_in, n_out))], [f"{name}.mm"])
        node("Add", [f"{name}.mm", w.add(f"{name}.bias", (n_out,))], [name])
        return name

    # Reshape target (batch, seq, heads, head) from the input's own shape.
    node("Shape", ["hidden_states"], ["shape"])
    for i, dim in ((0, "batch"), (1, "seq")):
        node("Gather", ["shape", w.const(f"idx{i}", np.array(i, np.int64))], [f"{dim}_dim"], axis=0)
        node(
            "Unsqueeze", [f"{dim}_dim", w.const(f"axes{i}", np.array([0], np.int64))], [f"{dim}_1d"]
        )
    heads_shape = w.const("heads_shape", np.array([HEADS, head], np.int64))
    node("Concat", ["batch_1d", "seq_1d", heads_shape], ["split_heads_shape"], axis=0)

    def heads(name: str, perm: list[int]) -> str:
        x = dense("hidden_states", name, HIDDEN, HIDDEN)
        node("Reshape", [x, "split_heads_shape"], [f"{name}.heads"])
        node("Transpose", [f"{name}.heads"], [f"{name}.t"], perm=perm)
        return f"{name}.t"

    q, k, v = heads("query", [0, 2, 1, 3]), heads("key", [0, 2, 3, 1]), heads("value", [0, 2, 1, 3])
    node("MatMul", [q, k], ["scores"])
    node("Div", ["scores", w.const("sqrt_head", np.array(math.sqrt(head), np.float32))], ["scaled"])
    node("Softmax", ["scaled"], ["probs"], axis=-1)
    node("MatMul", ["probs", v], ["context"])
    node("Transpose", ["context"], ["context.t"], perm=[0, 2, 1, 3])
    node(
        "Reshape", ["context.t", w.const("merge_shape", np.array([0, 0, -1], np.int64))], ["merged"]
    )
    attn = dense("merged", "attn_out", HIDDEN, HIDDEN)
    node("Add", [attn, "hidden_states"], ["attn_res"])
    node(
        "LayerNormalization",
        ["attn_res", w.add("ln1.gamma", (HIDDEN,)), w.add("ln1.beta", (HIDDEN,))],
        ["ln1"],
        axis=-1,
        epsilon=1e-12,
    )
    up = dense("ln1", "ffn_up", HIDDEN, FFN)
    node("Div", [up, w.const("sqrt2", np.array(math.sqrt(2.0), np.float32))], ["gelu.div"])
    node("Erf", ["gelu.div"], ["gelu.erf"])
    node("Add", ["gelu.erf", w.const("one", np.array(1.0, np.float32))], ["gelu.add"])
    node("Mul", [up, "gelu.add"], ["gelu.mul"])
    node("Mul", ["gelu.mul", w.const("half", np.array(0.5, np.float32))], ["gelu"])
    down = dense("gelu", "ffn_down", FFN, HIDDEN)
    node("Add", [down, "ln1"], ["ffn_res"])
    node(
        "LayerNormalization",
        ["ffn_res", w.add("ln2.gamma", (HIDDEN,)), w.add("ln2.beta", (HIDDEN,))],
        ["output"],
        axis=-1,
        epsilon=1e-12,
    )
    return _model(
        nodes,
        [helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, [1, SEQ, HIDDEN])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, SEQ, HIDDEN])],
        w,
        17,
    )


def test_bert_layer() -> None:
    model = bert_layer_model()
    module = from_onnx(model)
    assert graph_op_counts(module) == {
        # 6 dense layers (weight + bias) + sqrt_head, sqrt2, one, half + 2 x (gamma, beta)
        "constant": 20, "matmul": 8, "add": 9, "reshape": 4, "transpose": 4, "div": 2,
        "softmax": 1, "erf": 1, "mul": 2, "layer_norm": 2,
    }  # fmt: skip
    feeds = {
        "hidden_states": np.random.default_rng(1).standard_normal(
            (1, SEQ, HIDDEN), dtype=np.float32
        )
    }
    assert result_shapes(module) == ort_output_shapes(model, feeds) == [(1, SEQ, HIDDEN)]
    assert_same_values(module, model, feeds)
    text = print_module(module)
    assert "graph.softmax %scaled {axis = 3 : i64}" in text
    assert "{axis = 2 : i64" in text  # the layer norms' axis, normalized
    assert_round_trips(module)


@pytest.mark.parametrize("case", ["mlp", "resnet_block", "bert", "resnet50"])
def test_shape_inference_without_the_weights_data_infers_the_same(case: str) -> None:
    """The frontend runs ONNX's shape inference on a copy whose large float weights
    (initializers or Constant values) have their shapes only: the result, weights put back,
    is ONNX's own on the whole model, byte for byte, and the model is left as it was."""
    from minitvm.bench.suite import find_case
    from minitvm.frontend.onnx import _infer_shapes

    model = find_case(case).build()
    before = model.SerializeToString()
    ours = _infer_shapes(model)
    assert model.SerializeToString() == before
    plain = onnx.shape_inference.infer_shapes(model, data_prop=True)
    assert ours.SerializeToString() == plain.SerializeToString()
