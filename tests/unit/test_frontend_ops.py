"""Per-op imports across opset variants, checked against ONNX Runtime.

Every case imports a small model, checks the graph ops it becomes, and compares the result
shapes with ONNX Runtime's, then the values, running the import with the graph dialect's
reference interpreter: that is what checks the frontend's resolution of defaults, negative
axes, clamping, auto_pad and opset-specific semantics.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation

from minitvm.dialects import graph as g
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import get_float, get_int, get_ints, get_str
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx

F = TensorProto.FLOAT
I64 = TensorProto.INT64

# --------------------------------------------------------------------------------------------
# Building and running models
# --------------------------------------------------------------------------------------------


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: dict[str, tuple[int, ...] | tuple[int, tuple[int, ...]]],
    outputs: Sequence[str],
    opset: int,
    consts: dict[str, np.ndarray] | None = None,
) -> onnx.ModelProto:
    """Graph inputs given as shape (float) or (elem_type, shape); `consts` become initializers."""
    infos = []
    for name, spec in inputs.items():
        elem, shape = (
            spec if isinstance(spec[0], int) and isinstance(spec[-1], tuple) else (F, spec)
        )  # type: ignore[misc]
        infos.append(helper.make_tensor_value_info(name, elem, shape))  # type: ignore[arg-type]
    graph = helper.make_graph(
        list(nodes),
        "test",
        infos,
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in (consts or {}).items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def node(
    op_type: str, inputs: Sequence[str], outputs: Sequence[str] = ("y",), **attrs: object
) -> onnx.NodeProto:
    return helper.make_node(
        op_type, list(inputs), list(outputs), name=f"{op_type.lower()}_{outputs[0]}", **attrs
    )


def random_inputs(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    initializers = {t.name for t in model.graph.initializer}
    feeds = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        shape = [d.dim_value for d in tensor.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        if dtype == np.bool_:
            feeds[value.name] = rng.random(shape) > 0.5
        elif np.issubdtype(dtype, np.integer):
            feeds[value.name] = rng.integers(0, 3, shape).astype(dtype)
        else:
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def run_ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def op_counts(module: ModuleOp) -> dict[str, int]:
    counts = collections.Counter(
        op.name.removeprefix("graph.")
        for op in module.walk()
        if op.name.startswith("graph.") and op.name != "graph.constant"
    )
    return dict(counts)


def ops_of(module: ModuleOp, cls: type[Operation]) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, cls)]


def check(
    model: onnx.ModelProto,
    expect_ops: dict[str, int] | None = None,
    input_shapes: dict[str, tuple[int, ...]] | None = None,
) -> ModuleOp:
    """Import `model`; compare op counts (constants aside), shapes and values (by the graph
    reference interpreter) with ONNX Runtime."""
    module = from_onnx(model, input_shapes=input_shapes)
    if expect_ops is not None:
        assert op_counts(module) == expect_ops
    feeds = random_inputs(
        onnx.shape_inference.infer_shapes(model) if input_shapes is None else model
    )
    if input_shapes:
        rng = np.random.default_rng(0)
        feeds = {k: rng.standard_normal(input_shapes[k]).astype(np.float32) for k in feeds}
    expected = run_ort(model, feeds)
    func = ops_of(module, FuncOp)[0]
    shapes = [tuple(t.get_shape()) for t in func.function_type.outputs.data]  # type: ignore[attr-defined]
    assert shapes == [e.shape for e in expected]
    initializers = {t.name for t in model.graph.initializer}
    args = [feeds[i.name] for i in model.graph.input if i.name not in initializers]
    for got, want in zip(reference.run_module(module, args), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    return module


def i64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


# --------------------------------------------------------------------------------------------
# Elementwise and variadic
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("opset", [7, 13, 21])
def test_binary_broadcast(opset: int) -> None:
    model = make_model(
        [node("Add", ["a", "b"], ["s"]), node("Mul", ["s", "c"])],
        {"a": (2, 3, 4), "b": (4,)},
        ["y"],
        opset,
        {"c": np.float32([[2.0], [3.0], [4.0]])},
    )
    check(model, {"add": 1, "mul": 1})


def test_clip_attributes_before_opset_11() -> None:
    model = make_model([node("Clip", ["x"], min=-0.5, max=0.5)], {"x": (3, 4)}, ["y"], 10)
    module = check(model, {"clip": 1})
    (clip,) = ops_of(module, g.ClipOp)
    assert get_float(clip.properties, "min") == -0.5 and get_float(clip.properties, "max") == 0.5


def test_clip_inputs_from_opset_11() -> None:
    model = make_model(
        [node("Clip", ["x", "", "hi"])],
        {"x": (3, 4)},
        ["y"],
        13,
        {"hi": np.array(0.25, np.float32)},
    )
    module = check(model, {"clip": 1})
    (clip,) = ops_of(module, g.ClipOp)
    assert "min" not in clip.properties and get_float(clip.properties, "max") == 0.25


@pytest.mark.parametrize("count, expect", [(1, {}), (3, {"add": 2})])
def test_sum_is_a_chain_of_adds(count: int, expect: dict[str, int]) -> None:
    names = [f"x{i}" for i in range(count)]
    model = make_model([node("Sum", names)], {n: (2, 3) for n in names}, ["y"], 13)
    check(model, expect)


@pytest.mark.parametrize("op_type, graph_op", [("Max", "max"), ("Min", "min")])
def test_variadic_max_min(op_type: str, graph_op: str) -> None:
    model = make_model(
        [node(op_type, ["a", "b", "c"])], {"a": (2, 3), "b": (3,), "c": (1, 3)}, ["y"], 12
    )
    check(model, {graph_op: 2})


def test_compare_where_cast() -> None:
    nodes = [
        node("Less", ["a", "b"], ["lt"]),
        node("Greater", ["a", "b"], ["gt"]),
        node("Equal", ["lt", "gt"], ["eq"]),
        node("Where", ["eq", "a", "b"], ["w"]),
        node("Cast", ["lt"], ["y"], to=TensorProto.FLOAT),
    ]
    model = make_model(nodes, {"a": (2, 3), "b": (3,)}, ["w", "y"], 13)
    check(model, {"less": 1, "greater": 1, "equal": 1, "where": 1, "cast": 1})


def test_pow_with_integer_exponent() -> None:
    model = make_model([node("Pow", ["x", "e"])], {"x": (2, 3)}, ["y"], 15, {"e": i64(2)})
    check(model, {"pow": 1})


@pytest.mark.parametrize("op_type, opset, attrs, graph_op", [
    ("HardSwish", 14, {}, "hard_swish"),
    ("HardSigmoid", 6 + 7, {"alpha": 0.3}, "hard_sigmoid"),
    ("LeakyRelu", 7, {"alpha": 0.2}, "leaky_relu"),
    ("Gelu", 20, {"approximate": "tanh"}, "gelu"),
    ("Erf", 13, {}, "erf"),
    ("Sigmoid", 7, {}, "sigmoid"),
])  # fmt: skip
def test_unary_with_attributes(
    op_type: str, opset: int, attrs: dict[str, object], graph_op: str
) -> None:
    model = make_model([node(op_type, ["x"], **attrs)], {"x": (2, 5)}, ["y"], opset)
    module = check(model, {graph_op: 1})
    if op_type == "Gelu":
        assert get_str(ops_of(module, g.GeluOp)[0].properties, "approximate") == "tanh"


@pytest.mark.parametrize("op_type, opset, attrs, graph_op", [
    ("Sin", 7, {}, "sin"), ("Acosh", 9, {}, "acosh"), ("Ceil", 13, {}, "ceil"),
    ("Round", 11, {}, "round"), ("Sign", 9, {}, "sign"), ("Sign", 13, {}, "sign"),
    ("Softplus", 7, {}, "softplus"), ("Softsign", 22, {}, "softsign"), ("Mish", 18, {}, "mish"),
    ("Elu", 7, {"alpha": 0.5}, "elu"), ("Selu", 7, {}, "selu"),
    ("Selu", 22, {"alpha": 2.0, "gamma": 1.5}, "selu"), ("Celu", 12, {"alpha": 2.0}, "celu"),
    ("ThresholdedRelu", 10, {"alpha": 0.3}, "thresholded_relu"),
    ("Shrink", 9, {"bias": 0.5, "lambd": 0.25}, "shrink"),
])  # fmt: skip
def test_math_and_activations(
    op_type: str, opset: int, attrs: dict[str, object], graph_op: str
) -> None:
    model = make_model([node(op_type, ["x"], **attrs)], {"x": (2, 5)}, ["y"], opset)
    if op_type == "Acosh":
        model = make_model([node("Abs", ["x"], ["a"]), node("Exp", ["a"], ["e"]),
                            node(op_type, ["e"])], {"x": (2, 5)}, ["y"], opset)  # fmt: skip
        check(model, {"abs": 1, "exp": 1, graph_op: 1})
        return
    check(model, {graph_op: 1})


@pytest.mark.parametrize("op_type, opset, graph_op", [
    ("GreaterOrEqual", 12, "greater_equal"), ("LessOrEqual", 16, "less_equal"),
    ("And", 7, "and"), ("Or", 7, "or"), ("Xor", 7, "xor"),
])  # fmt: skip
def test_comparisons_and_logic(op_type: str, opset: int, graph_op: str) -> None:
    kind = TensorProto.BOOL if op_type in ("And", "Or", "Xor") else F
    nodes = [node(op_type, ["a", "b"], ["c"]), node("Not", ["c"])]
    model = make_model(nodes, {"a": (kind, (2, 3)), "b": (kind, (3,))}, ["y"], opset)
    check(model, {graph_op: 1, "not": 1})


@pytest.mark.parametrize("elem", [TensorProto.INT32, TensorProto.UINT8, TensorProto.INT64])
def test_bitwise_and_shift(elem: int) -> None:
    nodes = [node("BitwiseAnd", ["a", "b"], ["c"]), node("BitwiseNot", ["c"], ["d"]),
             node("BitwiseXor", ["d", "a"], ["e"]), node("BitwiseOr", ["e", "b"], ["y"])]  # fmt: skip
    if elem == TensorProto.UINT8:
        nodes[-1] = node("BitwiseOr", ["e", "b"], ["f"])
        nodes.append(node("BitShift", ["f", "b"], direction="LEFT"))
    model = make_model(nodes, {"a": (elem, (2, 3)), "b": (elem, (3,))}, ["y"], 18)
    check(model)


@pytest.mark.parametrize("fmod", [0, 1])
def test_mod(fmod: int) -> None:
    model = make_model(
        [node("Mod", ["a", "b"], fmod=fmod)],
        {"a": (TensorProto.INT32, (2, 3))},
        ["y"],
        13,
        {"b": np.array([2, -3, 5], np.int32)},
    )
    check(model, {"mod": 1})


def test_is_nan_is_inf_size_mean_castlike() -> None:
    nodes = [node("IsInf", ["x"], ["inf"], detect_negative=0), node("IsNaN", ["x"], ["nan"]),
             node("Or", ["inf", "nan"], ["bad"]), node("Size", ["x"], ["n"]),
             node("CastLike", ["n", "x"], ["nf"]),
             node("Mean", ["x", "nf", "x"], ["y"])]  # fmt: skip
    model = make_model(nodes, {"x": (2, 3)}, ["bad", "y"], 15)
    module = check(model, {"is_inf": 1, "is_nan": 1, "or": 1, "add": 2, "div": 1})
    assert get_int(ops_of(module, g.IsInfOp)[0].properties, "detect_negative") == 0


def test_prelu_slope_broadcasts() -> None:
    model = make_model(
        [node("PRelu", ["x", "slope"])],
        {"x": (1, 3, 4, 4)},
        ["y"],
        9,
        {"slope": np.float32([0.1, 0.2, 0.3]).reshape(3, 1, 1)},
    )
    check(model, {"prelu": 1})


# --------------------------------------------------------------------------------------------
# Softmax and normalization
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("opset, axis, expect", [
    (11, 1, {"reshape": 2}),   # coerced to 2-D at axis 1: a row is 3x4 values
    (11, None, {"reshape": 2}),  # default axis 1 before opset 13
    (11, -1, {}),               # the last axis: no reshape needed
    (13, 1, {}),                # one axis from opset 13
    (13, None, {}),             # default -1
])  # fmt: skip
def test_softmax_axis_semantics(
    op_type: str, opset: int, axis: int | None, expect: dict[str, int]
) -> None:
    attrs = {} if axis is None else {"axis": axis}
    model = make_model([node(op_type, ["x"], **attrs)], {"x": (2, 3, 4)}, ["y"], opset)
    check(model, {**expect, op_type.lower().replace("logsoftmax", "log_softmax"): 1})


@pytest.mark.parametrize("opset, attrs", [(7, {"spatial": 1}), (9, {}), (15, {"training_mode": 0})])
def test_batch_norm_inference(opset: int, attrs: dict[str, object]) -> None:
    params = {n: np.float32([1.0, 2.0, 3.0]) for n in ("s", "b", "m", "v")}
    model = make_model(
        [node("BatchNormalization", ["x", "s", "b", "m", "v"], epsilon=1e-3, **attrs)],
        {"x": (2, 3, 4, 4)},
        ["y"],
        opset,
        params,
    )
    check(model, {"batch_norm": 1})


def test_layer_norm_axis_is_normalized() -> None:
    consts = {"scale": np.ones((4, 5), np.float32), "bias": np.zeros((4, 5), np.float32)}
    model = make_model(
        [node("LayerNormalization", ["x", "scale", "bias"], axis=-2)],
        {"x": (2, 4, 5)},
        ["y"],
        17,
        consts,
    )
    module = check(model, {"layer_norm": 1})
    assert get_int(ops_of(module, g.LayerNormOp)[0].properties, "axis") == 1


def test_lrn() -> None:
    model = make_model([node("LRN", ["x"], size=3, alpha=2e-4)], {"x": (1, 6, 5, 5)}, ["y"], 13)
    check(model, {"lrn": 1})


# --------------------------------------------------------------------------------------------
# Convolution and pooling
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("auto_pad, pads", [
    ("SAME_UPPER", [1, 1, 2, 2]),  # total 3 for a 5-wide input, kernel 4, stride 1
    ("SAME_LOWER", [2, 2, 1, 1]),
    ("VALID", [0, 0, 0, 0]),
    ("NOTSET", [1, 0, 1, 0]),
])  # fmt: skip
def test_conv_auto_pad(auto_pad: str, pads: list[int]) -> None:
    attrs: dict[str, object] = {"auto_pad": auto_pad}
    if auto_pad == "NOTSET":
        attrs["pads"] = pads
    model = make_model(
        [node("Conv", ["x", "w"], **attrs)],
        {"x": (1, 2, 5, 5)},
        ["y"],
        11,
        {"w": np.ones((3, 2, 4, 4), np.float32)},
    )
    module = check(model, {"conv": 1})
    assert list(get_ints(ops_of(module, g.ConvOp)[0].properties, "pads")) == pads


def test_conv_strided_same_upper_grouped_with_bias() -> None:
    consts = {"w": np.ones((4, 1, 3, 3), np.float32), "b": np.float32([1, 2, 3, 4])}
    model = make_model(
        [
            node(
                "Conv",
                ["x", "w", "b"],
                auto_pad="SAME_UPPER",
                strides=[2, 2],
                group=2,
                dilations=[1, 1],
            )
        ],
        {"x": (1, 2, 7, 8)},
        ["y"],
        7,
        consts,
    )
    check(model, {"conv": 1})


@pytest.mark.parametrize("attrs", [
    {"strides": [2, 2], "output_shape": [10, 10]},
    {"strides": [2, 2], "output_shape": [12, 11]},  # larger than the full output: output_padding
    {"strides": [2, 2], "auto_pad": "SAME_UPPER"},
    {"strides": [2, 2], "auto_pad": "SAME_LOWER"},
    {"strides": [2, 2], "pads": [1, 1, 0, 0], "output_padding": [1, 1]},
])  # fmt: skip
def test_conv_transpose(attrs: dict[str, object]) -> None:
    model = make_model(
        [node("ConvTranspose", ["x", "w"], **attrs)],
        {"x": (1, 2, 5, 5)},
        ["y"],
        13,
        {"w": np.ones((2, 3, 3, 3), np.float32)},
    )
    check(model, {"conv_transpose": 1})


@pytest.mark.parametrize("op_type, opset, attrs", [
    ("MaxPool", 8, {"kernel_shape": [3, 3], "strides": [2, 2]}),
    ("MaxPool", 12, {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1,
                     "dilations": [2, 1]}),
    ("MaxPool", 12, {"kernel_shape": [2, 2], "strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ("AveragePool", 7, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1}),
    ("AveragePool", 11, {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1,
                         "pads": [1, 1, 1, 1]}),
    ("AveragePool", 19, {"kernel_shape": [2, 2], "auto_pad": "SAME_LOWER"}),
    # (SAME with dilations is left out: ONNX Runtime 1.32 ignores the dilation when it pads,
    # unlike ONNX's spec, shape inference and reference implementation.)
    ("AveragePool", 19, {"kernel_shape": [2, 2], "dilations": [2, 2], "pads": [1, 0, 1, 1]}),
])  # fmt: skip
def test_pooling(op_type: str, opset: int, attrs: dict[str, object]) -> None:
    model = make_model([node(op_type, ["x"], **attrs)], {"x": (1, 2, 9, 8)}, ["y"], opset)
    check(model, {"max_pool" if op_type == "MaxPool" else "avg_pool": 1})


@pytest.mark.parametrize("opset, attrs", [
    (12, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    (12, {"kernel_shape": [2, 2], "storage_order": 1}),
    (22, {"kernel_shape": [3], "strides": [2], "ceil_mode": 1}),
])  # fmt: skip
def test_max_pool_indices_output(opset: int, attrs: dict[str, object]) -> None:
    shape = (1, 2, 9) if len(attrs["kernel_shape"]) == 1 else (1, 2, 9, 8)  # type: ignore[arg-type]
    model = make_model([node("MaxPool", ["x"], ["y", "i"], **attrs)], {"x": shape}, ["y", "i"],
                       opset)  # fmt: skip
    module = check(model, {"max_pool": 1, "max_pool_indices": 1})
    (indices,) = ops_of(module, g.MaxPoolIndicesOp)
    assert get_int(indices.properties, "storage_order", 0) == attrs.get("storage_order", 0)


def test_max_pool_of_integers() -> None:
    model = make_model([node("MaxPool", ["x"], kernel_shape=[2, 2], pads=[1, 1, 1, 1])],
                       {"x": (TensorProto.INT8, (1, 3, 5, 5))}, ["y"], 12)  # fmt: skip
    check(model, {"max_pool": 1})


def test_max_unpool_of_max_pool_indices() -> None:
    nodes = [node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
             node("MaxUnpool", ["p", "i"], kernel_shape=[2, 2], strides=[2, 2])]  # fmt: skip
    model = make_model(nodes, {"x": (2, 3, 6, 8)}, ["y"], 11)
    module = check(model, {"max_pool": 1, "max_pool_indices": 1, "max_unpool": 1})
    (unpool,) = ops_of(module, g.MaxUnpoolOp)
    assert "output" not in unpool.properties


def test_bitcast() -> None:
    model = make_model([node("BitCast", ["x"], to=TensorProto.UINT32)], {"x": (3, 4)}, ["y"], 26)
    check(model, {"bitcast": 1})


def test_global_pools_and_gemm() -> None:
    nodes = [
        node("GlobalAveragePool", ["x"], ["a"]),
        node("GlobalMaxPool", ["x"], ["m"]),
        node("Add", ["a", "m"], ["s"]),
        node("Flatten", ["s"], ["f"]),
        node("Gemm", ["f", "w"], ["y"], transB=1, alpha=0.5),
    ]
    model = make_model(nodes, {"x": (2, 3, 4, 4)}, ["y"], 13, {"w": np.ones((5, 3), np.float32)})
    check(model, {"global_avg_pool": 1, "global_max_pool": 1, "add": 1, "reshape": 1, "gemm": 1})


# --------------------------------------------------------------------------------------------
# Reshape family
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, result", [
    ([0, -1], (2, 12)), ([-1, 4], (6, 4)), ([0, 0, 2, 2], (2, 3, 2, 2)), ([24], (24,)),
])  # fmt: skip
def test_reshape_zero_and_minus_one(shape: list[int], result: tuple[int, ...]) -> None:
    model = make_model(
        [node("Reshape", ["x", "s"])], {"x": (2, 3, 4)}, ["y"], 13, {"s": i64(*shape)}
    )
    module = check(model, {"reshape": 1})
    assert ops_of(module, g.ReshapeOp)[0].results[0].type.get_shape() == result  # type: ignore[attr-defined]


@pytest.mark.parametrize("opset, axis", [(9, 0), (13, -1), (13, 3)])
def test_flatten(opset: int, axis: int) -> None:
    model = make_model([node("Flatten", ["x"], axis=axis)], {"x": (2, 3, 4)}, ["y"], opset)
    check(model, {"reshape": 1})


@pytest.mark.parametrize("opset", [11, 13])
def test_squeeze_unsqueeze_attribute_vs_input(opset: int) -> None:
    consts = {"ax": i64(0, -1)} if opset >= 13 else {}
    ax: dict[str, object] = {} if opset >= 13 else {"axes": [0, -1]}
    inputs = (lambda x: [x, "ax"]) if opset >= 13 else (lambda x: [x])
    nodes = [
        helper.make_node("Unsqueeze", inputs("x"), ["u"], name="unsq", **ax),
        helper.make_node("Relu", ["u"], ["r"], name="relu"),
        helper.make_node("Squeeze", inputs("r"), ["y"], name="sq", **ax),
    ]
    model = make_model(nodes, {"x": (3, 4)}, ["y"], opset, consts)
    module = check(model, {"reshape": 2, "relu": 1})
    assert ops_of(module, g.ReluOp)[0].results[0].type.get_shape() == (1, 3, 4, 1)  # type: ignore[attr-defined]


def test_squeeze_without_axes_drops_all_ones() -> None:
    model = make_model([node("Squeeze", ["x"])], {"x": (1, 3, 1, 4)}, ["y"], 13)
    check(model, {"reshape": 1})


# --------------------------------------------------------------------------------------------
# Slicing, splitting, joining
# --------------------------------------------------------------------------------------------

INT_MAX = np.iinfo(np.int64).max


@pytest.mark.parametrize("starts, ends, axes, steps", [
    ([1, 0], [3, -1], None, None),
    ([-1], [-INT_MAX], [1], [-1]),              # the whole axis reversed
    ([10, -2], [-10, 0], [2, 1], [-2, -1]),       # clamped start, negative steps
    ([0], [INT_MAX], [-1], [3]),
    ([-100], [100], [0], [1]),                  # clamped both ways: no op
    ([2], [1], [1], [1]),                       # empty
])  # fmt: skip
def test_slice_inputs(
    starts: list[int], ends: list[int], axes: list[int] | None, steps: list[int] | None
) -> None:
    consts = {"st": i64(*starts), "en": i64(*ends)}
    names = ["x", "st", "en"]
    if axes is not None:
        consts["ax"] = i64(*axes)
        names.append("ax")
    if steps is not None:
        consts["sp"] = i64(*steps)
        names.append("sp")
    model = make_model([node("Slice", names)], {"x": (4, 5, 6)}, ["y"], 13, consts)
    check(model)


def test_slice_attributes_before_opset_10() -> None:
    model = make_model(
        [node("Slice", ["x"], starts=[1, -3], ends=[1000, -1], axes=[0, 2])],
        {"x": (4, 5, 6)},
        ["y"],
        9,
    )
    check(model, {"slice": 1})


@pytest.mark.parametrize("opset, attrs, split, outputs", [
    (11, {"split": [2, 4]}, None, 2),
    (11, {}, None, 3),
    (13, {}, [1, 2, 3], 3),
    (13, {"axis": -1}, None, 2),
    (18, {"num_outputs": 4}, None, 4),  # 6 = 2 + 2 + 2 + 0
    (18, {"num_outputs": 3, "axis": 1}, None, 3),  # 5 = 2 + 2 + 1
])  # fmt: skip
def test_split_variants(
    opset: int, attrs: dict[str, object], split: list[int] | None, outputs: int
) -> None:
    names = [f"y{i}" for i in range(outputs)]
    inputs = ["x", "sizes"] if split is not None else ["x"]
    consts = {"sizes": i64(*split)} if split is not None else {}
    model = make_model(
        [node("Split", inputs, names, **attrs)], {"x": (6, 5, 4)}, names, opset, consts
    )
    check(model, {"split": 1})


def test_concat_with_constant_and_negative_axis() -> None:
    model = make_model(
        [node("Concat", ["a", "c", "b"], axis=-1)],
        {"a": (2, 3), "b": (2, 1)},
        ["y"],
        13,
        {"c": np.ones((2, 2), np.float32)},
    )
    check(model, {"concat": 1})


@pytest.mark.parametrize("indices, axis", [
    (i64(-1, 0, 2), 1),
    (np.array(-2, np.int64), 0),
])  # fmt: skip
def test_gather_constant_indices(indices: np.ndarray, axis: int) -> None:
    model = make_model(
        [node("Gather", ["x", "i"], axis=axis)], {"x": (3, 4)}, ["y"], 13, {"i": indices}
    )
    check(model, {"gather": 1})


def test_gather_runtime_indices_into_constant() -> None:
    model = make_model(
        [node("Gather", ["table", "i"])],
        {"i": (I64, (2, 2))},
        ["y"],
        13,
        {"table": np.arange(12, dtype=np.float32).reshape(3, 4)},
    )
    check(model, {"gather": 1})


def test_transpose_default_perm_expand_tile() -> None:
    nodes = [
        node("Transpose", ["x"], ["t"]),
        node("Expand", ["t", "shape"], ["e"]),
        node("Tile", ["e", "reps"], ["y"]),
    ]
    model = make_model(
        nodes, {"x": (1, 3)}, ["y"], 13, {"shape": i64(2, 3, 4), "reps": i64(1, 2, 1)}
    )
    check(model, {"transpose": 1, "expand": 1, "tile": 1})


@pytest.mark.parametrize("opset, mode, pads, axes", [
    (10, "constant", [1, 0, 2, 1], None),
    (11, "reflect", [1, 2, 1, 2], None),
    (13, "edge", [0, 3, 2, 0], None),
    (13, "constant", [-1, 1, 1, -2], None),   # negative pads crop first
    (18, "constant", [2, 1], [-1]),
    (19, "wrap", [3, 6, 1, 0], None),
])  # fmt: skip
def test_pad(opset: int, mode: str, pads: list[int], axes: list[int] | None) -> None:
    if opset < 11:
        model = make_model(
            [node("Pad", ["x"], mode=mode, pads=pads, value=1.5)], {"x": (4, 5)}, ["y"], opset
        )
    else:
        consts = {"p": i64(*pads), "v": np.array(1.5, np.float32)}
        names = ["x", "p", "v"]
        if axes is not None:
            consts["a"] = i64(*axes)
            names.append("a")
        model = make_model([node("Pad", names, mode=mode)], {"x": (4, 5)}, ["y"], opset, consts)
    check(model)


# --------------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op_type, opset, axes_as_input", [
    ("ReduceSum", 11, False), ("ReduceSum", 13, True), ("ReduceMean", 13, False),
    ("ReduceMean", 18, True), ("ReduceMax", 11, False), ("ReduceMax", 18, True),
])  # fmt: skip
@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduce_axes_attribute_vs_input(
    op_type: str, opset: int, axes_as_input: bool, keepdims: int
) -> None:
    if axes_as_input:
        n = node(op_type, ["x", "ax"], keepdims=keepdims)
        consts = {"ax": i64(-1, 0)}
    else:
        n, consts = node(op_type, ["x"], axes=[-1, 0], keepdims=keepdims), {}
    check(
        make_model([n], {"x": (2, 3, 4)}, ["y"], opset, consts),
        {op_type[:6].lower() + "_" + op_type[6:].lower(): 1},
    )


@pytest.mark.parametrize("noop, expect", [(0, {"reduce_sum": 1}), (1, {})])
def test_reduce_empty_axes(noop: int, expect: dict[str, int]) -> None:
    model = make_model(
        [node("ReduceSum", ["x"], noop_with_empty_axes=noop)], {"x": (2, 3)}, ["y"], 13
    )
    check(model, expect)


#: The reductions whose axes are an attribute before opset 18 and an input from 18 on.
REDUCTIONS_18 = {
    "ReduceMin": "reduce_min", "ReduceProd": "reduce_prod", "ReduceL1": "reduce_l1",
    "ReduceL2": "reduce_l2", "ReduceSumSquare": "reduce_sum_square",
    "ReduceLogSum": "reduce_log_sum", "ReduceLogSumExp": "reduce_log_sum_exp",
}  # fmt: skip


def reduction(
    op_type: str, opset: int, axes: Sequence[int] | None, shape=(2, 3, 4), elem: int = F,
    **attrs: object,
) -> tuple[onnx.ModelProto, dict[str, int]]:
    """A one-reduction model (axes as the opset wants them; None: no axes) and the graph ops
    it should import as. ReduceLogSum reads |x|, so that its sums are positive."""
    nodes, x, expect = [], "x", {}
    if op_type == "ReduceLogSum":
        nodes.append(node("Abs", ["x"], ["a"]))
        x, expect = "a", {"abs": 1}
    consts = {}
    if axes is not None and opset >= 18:
        consts["ax"] = i64(*axes)
        nodes.append(node(op_type, [x, "ax"], **attrs))
    else:
        nodes.append(node(op_type, [x], **({} if axes is None else {"axes": list(axes)}), **attrs))
    model = make_model(nodes, {"x": (elem, tuple(shape))}, ["y"], opset, consts)
    return model, expect


@pytest.mark.parametrize("opset", [7, 13, 18, 21])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("op_type", sorted(REDUCTIONS_18))
def test_reductions_across_opsets(op_type: str, opset: int, keepdims: int) -> None:
    model, expect = reduction(op_type, opset, [-1, 0], keepdims=keepdims)
    module = check(model, {**expect, REDUCTIONS_18[op_type]: 1})
    (op,) = [o for o in module.walk() if isinstance(o, g.ReduceOp)]
    assert get_ints(op.properties, "axes") == (0, 2) and get_int(op.properties, "keepdims", 1) == keepdims


@pytest.mark.parametrize("opset", [11, 18])
@pytest.mark.parametrize("op_type", sorted(REDUCTIONS_18))
def test_reductions_without_axes_reduce_every_axis(op_type: str, opset: int) -> None:
    model, expect = reduction(op_type, opset, None)
    check(model, {**expect, REDUCTIONS_18[op_type]: 1})


#: What a reduction over no axes imports as: its elementwise part alone (as ONNX Runtime).
NOOP = {
    "ReduceMin": {}, "ReduceProd": {}, "ReduceL1": {"abs": 1}, "ReduceL2": {"abs": 1},
    "ReduceSumSquare": {"mul": 1}, "ReduceLogSum": {"abs": 1, "log": 1}, "ReduceLogSumExp": {},
}  # fmt: skip


@pytest.mark.parametrize("axes", [None, ()], ids=["no axes", "empty axes"])
@pytest.mark.parametrize("op_type", sorted(REDUCTIONS_18))
def test_reductions_noop_with_empty_axes(op_type: str, axes: tuple[int, ...] | None) -> None:
    model, _ = reduction(op_type, 18, axes, noop_with_empty_axes=1)
    check(model, NOOP[op_type])


@pytest.mark.parametrize("op_type", sorted(REDUCTIONS_18))
def test_reductions_of_a_scalar(op_type: str) -> None:
    model, _ = reduction(op_type, 18, None, shape=())
    check(model, NOOP[op_type])


@pytest.mark.parametrize("op_type, elem, opset", [
    ("ReduceMin", TensorProto.INT8, 18), ("ReduceMin", TensorProto.UINT8, 18),
    ("ReduceMin", TensorProto.INT32, 13), ("ReduceMin", I64, 18), ("ReduceMin", TensorProto.BOOL, 20),
    ("ReduceMin", TensorProto.DOUBLE, 18), ("ReduceProd", TensorProto.INT32, 18),
    ("ReduceProd", I64, 13), ("ReduceL1", I64, 18), ("ReduceSumSquare", TensorProto.INT32, 18),
    ("ReduceL2", TensorProto.DOUBLE, 18), ("ReduceLogSumExp", TensorProto.DOUBLE, 18),
    ("ReduceMax", TensorProto.INT8, 18), ("ReduceMax", TensorProto.UINT8, 18),
])  # fmt: skip
def test_reductions_of_other_element_types(op_type: str, elem: int, opset: int) -> None:
    model, _ = reduction(op_type, opset, [1], elem=elem, keepdims=0)
    check(model)


def test_reductions_reject_element_types_they_are_not_defined_on() -> None:
    model, _ = reduction("ReduceL2", 18, [1], elem=TensorProto.INT32)
    with pytest.raises(FrontendError, match="graph.reduce_l2: input must be a float tensor"):
        from_onnx(model)


def test_reduce_log_sum_exp_infinities_match_onnxruntime() -> None:
    x = np.float32([[1000, 999, 0], [-np.inf, -np.inf, -np.inf], [np.inf, 1, 2], [np.nan, 1, 2],
                    [-np.inf, 1, 2]])  # fmt: skip
    model = make_model([node("ReduceLogSumExp", ["x", "ax"])], {"x": x.shape}, ["y"], 18,
                       {"ax": i64(1)})  # fmt: skip
    (want,) = run_ort(model, {"x": x})
    np.testing.assert_allclose(reference.run_module(from_onnx(model), [x])[0], want, rtol=1e-6)


@pytest.mark.parametrize("opset", [7, 11, 12, 13, 21])
@pytest.mark.parametrize("axis, keepdims", [(0, 1), (-1, 0), (1, 1), (None, None)])
@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
def test_arg_extreme_across_opsets(op_type: str, axis: int | None, keepdims: int | None,
                                   opset: int) -> None:  # fmt: skip
    """Integer inputs in [0, 3), so that ties are many; no attributes: axis 0, keepdims 1."""
    attrs = {} if axis is None else {"axis": axis, "keepdims": keepdims}
    model = make_model([node(op_type, ["x"], **attrs)], {"x": (TensorProto.INT32, (2, 3, 4))},
                       ["y"], opset)  # fmt: skip
    module = check(model, {op_type[:3].lower() + "_" + op_type[3:].lower(): 1})
    (op,) = ops_of(module, g.ArgReduceOp)
    assert get_int(op.properties, "axis") == (axis or 0) % 3
    assert str(op.results[0].type.element_type) == "i64"  # type: ignore[attr-defined]


@pytest.mark.parametrize("opset", [12, 13, 21])
@pytest.mark.parametrize("last", [0, 1])
@pytest.mark.parametrize("elem", [F, TensorProto.INT32, I64, TensorProto.DOUBLE])
@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
def test_arg_extreme_select_last_index(op_type: str, elem: int, last: int, opset: int) -> None:
    nodes = [node(op_type, ["x"], axis=1, keepdims=0, select_last_index=last)]
    if elem in (F, TensorProto.DOUBLE):  # Relu makes ties at 0
        nodes = [node("Relu", ["x"], ["r"]), node(op_type, ["r"], axis=1, keepdims=0,
                                                  select_last_index=last)]  # fmt: skip
    module = check(make_model(nodes, {"x": (elem, (3, 8))}, ["y"], opset))
    (op,) = ops_of(module, g.ArgReduceOp)
    assert get_int(op.properties, "select_last_index", 0) == last


@pytest.mark.parametrize("last", [0, 1])
@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
def test_arg_extreme_nans_match_onnxruntime(op_type: str, last: int) -> None:
    nan, inf = np.nan, np.inf
    x = np.float32([[nan, 1, 2, 2], [1, nan, 2, 2], [2, 1, nan, 1], [nan, nan, nan, nan],
                    [-inf, nan, -inf, 3], [inf, nan, inf, -inf], [nan, -inf, -inf, nan]])  # fmt: skip
    model = make_model([node(op_type, ["x"], axis=1, keepdims=0, select_last_index=last)],
                       {"x": x.shape}, ["y"], 13)  # fmt: skip
    (want,) = run_ort(model, {"x": x})
    np.testing.assert_array_equal(reference.run_module(from_onnx(model), [x])[0], want)
    columns = x.T.copy()  # and along a non-contiguous axis
    model = make_model([node(op_type, ["x"], axis=0, keepdims=0, select_last_index=last)],
                       {"x": columns.shape}, ["y"], 13)  # fmt: skip
    (want,) = run_ort(model, {"x": columns})
    np.testing.assert_array_equal(reference.run_module(from_onnx(model), [columns])[0], want)


# --------------------------------------------------------------------------------------------
# Resize
# --------------------------------------------------------------------------------------------


def test_resize_opset_10_scales() -> None:
    model = make_model(
        [node("Resize", ["x", "s"], mode="nearest")],
        {"x": (1, 2, 3, 4)},
        ["y"],
        10,
        {"s": np.float32([1, 1, 2, 1.5])},
    )
    module = check(model, {"resize": 1})
    props = ops_of(module, g.ResizeOp)[0].properties
    assert get_str(props, "coordinate_transformation_mode") == "asymmetric"
    assert get_str(props, "nearest_mode") == "floor"


CTM = "coordinate_transformation_mode"


@pytest.mark.parametrize("opset, attrs, scales, sizes", [
    (11, {"mode": "linear"}, None, [1, 2, 7, 9]),
    (13, {"mode": "nearest", CTM: "asymmetric"}, [1, 1, 0.5, 2.5], None),
    (18, {"mode": "linear", "axes": [3, 2], "keep_aspect_ratio_policy": "not_larger"}, None,
     [10, 7]),
    (19, {"mode": "linear", CTM: "half_pixel_symmetric"}, [1, 1, 1.7, 1.3], None),
    # (ONNX Runtime disagrees with ONNX's reference when align_corners downsamples.)
    (13, {"mode": "linear", CTM: "align_corners"}, [1, 1, 1.5, 2], None),
    (13, {"mode": "nearest", CTM: "pytorch_half_pixel", "nearest_mode": "ceil"}, None,
     [1, 2, 3, 11]),
    (13, {"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1}, [1, 1, 1.5, 0.5], None),
    (18, {"mode": "cubic", "antialias": 1, "axes": [2, 3]}, None, [3, 2]),
    (18, {"mode": "linear", "antialias": 1}, [1, 1, 0.5, 0.6], None),
])  # fmt: skip
def test_resize(
    opset: int, attrs: dict[str, object], scales: list[float] | None, sizes: list[int] | None
) -> None:
    consts: dict[str, np.ndarray] = {}
    names = ["x", "", "", ""]
    if opset < 13:  # roi and scales are required inputs in opsets 11-12 (empty when unused)
        names[1:3] = ["roi", "scales"]
        consts["roi"] = consts["scales"] = np.zeros(0, np.float32)
    if scales is not None:
        consts["scales"] = np.float32(scales)
        names[2] = "scales"
    if sizes is not None:
        consts["sizes"] = i64(*sizes)
        names[3] = "sizes"
    names = names[:3] if sizes is None else names
    model = make_model([node("Resize", names, **attrs)], {"x": (1, 2, 4, 6)}, ["y"], opset, consts)
    check(model, {"resize": 1})


@pytest.mark.parametrize("opset, attrs, roi", [
    (11, {"mode": "linear"}, [0, 0, 0.25, -0.2, 1, 1, 0.75, 1.2]),
    (13, {"mode": "nearest", "extrapolation_value": 2.0}, [0, 0, -0.5, 0.1, 1, 1, 1.0, 0.9]),
    (19, {"mode": "cubic", "axes": [3, 2]}, [-0.2, 0.25, 1.2, 0.75]),  # (W, H) boxes
])  # fmt: skip
def test_resize_tf_crop_and_resize(opset: int, attrs: dict[str, object], roi: list[float]) -> None:
    """roi (input 1) holds the box of the given axes; sizes, so that ONNX Runtime's rounded
    output length is the reference's scale * size."""
    sizes = [9, 6] if "axes" in attrs else [1, 2, 6, 9]  # (W, H): the axes' order
    consts = {"roi": np.float32(roi), "scales": np.zeros(0, np.float32), "sizes": i64(*sizes)}
    model = make_model([node("Resize", ["x", "roi", "scales", "sizes"], **attrs,
                             coordinate_transformation_mode="tf_crop_and_resize")],
                       {"x": (1, 2, 4, 6)}, ["y"], opset, consts)  # fmt: skip
    module = check(model, {"resize": 1})
    (op,) = ops_of(module, g.ResizeOp)
    assert len(op.sampling.roi or ()) == 8


# --------------------------------------------------------------------------------------------
# Folded away
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("opset, mask", [(7, False), (10, False), (12, True), (13, True)])
def test_dropout_is_identity(opset: int, mask: bool) -> None:
    outputs = ["d", "mask"] if mask else ["d"]
    model = make_model(
        [node("Dropout", ["x"], outputs), node("Relu", ["d"])],
        {"x": (2, 3)},
        ["y", *outputs[1:]],
        opset,
    )
    check(model, {"relu": 1})


def test_constants_shapes_ranges_fold() -> None:
    """Constant variants, ConstantOfShape, Shape(start), Range, Gather, Cast, Unsqueeze and
    arithmetic on constants all fold into the reshape's target shape."""
    nodes = [
        node("Shape", ["x"], ["shape"], start=1),  # [3, 4]
        node("Gather", ["shape", "one"], ["four"]),  # 4
        node("Unsqueeze", ["four", "ax0"], ["four1d"]),  # [4]
        node("Constant", [], ["half"], value_float=0.5),
        node("Cast", ["half"], ["zero"], to=TensorProto.INT64),  # 0
        node("Unsqueeze", ["zero", "ax0"], ["zero1d"]),  # [0]
        node("Constant", [], ["len1"], value_ints=[1]),
        node("ConstantOfShape", ["len1"], ["minus1"], value=numpy_helper.from_array(i64(-1))),
        node("Range", ["zero", "three", "one"], ["r"]),  # [0, 1, 2]
        node("ReduceSum", ["r"], ["three1d"], keepdims=1),  # [3]
        node("Sub", ["four1d", "three1d"], ["diff"]),  # [1]
        node("Concat", ["zero1d", "four1d", "minus1", "diff"], ["target"], axis=0),  # [0, 4, -1, 1]
        node("Reshape", ["x", "target"], ["y"]),
    ]
    consts = {"three": np.array(3, np.int64), "one": np.array(1, np.int64), "ax0": i64(0)}
    model = make_model(nodes, {"x": (2, 3, 4)}, ["y", "target"], 15, consts)
    module = check(model, {"reshape": 1})
    assert ops_of(module, g.ReshapeOp)[0].results[0].type.get_shape() == (2, 4, 3, 1)  # type: ignore[attr-defined]


def test_outputs_that_are_inputs_or_constants() -> None:
    nodes = [
        node("Identity", ["x"], ["same"]),
        node("Constant", [], ["c"], value_floats=[1.0, 2.0]),
    ]
    model = make_model(nodes, {"x": (2,)}, ["same", "c", "x"], 13)
    module = check(model, {})
    (ret,) = ops_of(module, ReturnOp)
    assert ret.operands[0] is ret.operands[2]


def test_input_shapes_fix_dynamic_dims() -> None:
    model = make_model([node("Relu", ["x"])], {"x": ("batch", 3)}, ["y"], 13)  # type: ignore[dict-item]
    module = check(model, {"relu": 1}, input_shapes={"x": (5, 3)})
    assert ops_of(module, FuncOp)[0].function_type.outputs.data[0].get_shape() == (5, 3)  # type: ignore[attr-defined]


def test_names_are_readable_ssa_names() -> None:
    from minitvm.ir import print_module

    nodes = [helper.make_node("Relu", ["input/0:x"], ["layer1.relu_out_0"], name="r")]
    model = make_model(nodes, {"input/0:x": (2,)}, ["layer1.relu_out_0"], 13)
    text = print_module(from_onnx(model))
    assert "@main(%input_0_x: tensor<2xf32>)" in text
    assert "%layer1.relu_out = graph.relu %input_0_x" in text
