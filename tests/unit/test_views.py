"""Views and concats in place (lowering/views.py): @main's reshapes, row splits, row slices
and concats of kernels' results cost no kernel and no copy, and every model computes what
ONNX Runtime computes, whatever else reads, returns or outlives the bytes they share."""

from __future__ import annotations

import re

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.compiler import llvm_ir

RNG = np.random.default_rng(7)


def _model(nodes, inputs, outputs, weights=()) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "views",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(w, n) for n, w in weights],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _weight(name: str, shape: tuple[int, ...]) -> tuple[str, np.ndarray]:
    return name, RNG.standard_normal(shape).astype(np.float32) * 0.1


def _ints(name: str, values: list[int]) -> tuple[str, np.ndarray]:
    return name, np.array(values, np.int64)


def _check(model: onnx.ModelProto, threads: int = 1) -> None:
    feeds = {
        i.name: RNG.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
        for i in model.graph.input
    }
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)
    exe = minitvm.compile(model, num_threads=threads)
    for run in range(2):  # a second run reuses the arena the first one left behind
        for got, want in zip(exe.run(feeds), expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"run {run}")


def _calls(model: onnx.ModelProto) -> list[str]:
    """The kernels @main calls, by op name (the LLVM IR's `@split_3` is "split")."""
    text = llvm_ir(model, num_threads=1)
    main = text[text.index('define void @"main"') :]
    return [re.sub(r"_\d+$", "", name) for name in re.findall(r'call ccc void @"([a-z_0-9]+)"', main)]


def _steps_model() -> onnx.ModelProto:
    """An LSTM's shape of work: a projection of all steps at once, split into steps, a
    matmul per step, the steps concatenated, a reshape of the result."""
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"]),
        helper.make_node("Split", ["xw"], [f"s{t}" for t in range(4)], axis=0, num_outputs=4),
        *(helper.make_node("MatMul", [f"s{t}", "r"], [f"h{t}"]) for t in range(4)),
        helper.make_node("Concat", [f"h{t}" for t in range(4)], ["hs"], axis=0),
        helper.make_node("Reshape", ["hs", "shape"], ["y"]),
    ]
    weights = [_weight("w", (32, 64)), _weight("r", (64, 16)), _ints("shape", [64])]
    return _model(nodes, [("x", [4, 32])], ["y"], weights)


def test_a_split_a_concat_and_a_reshape_of_kernels_results_are_no_kernels() -> None:
    model = _steps_model()
    calls = _calls(model)
    assert calls.count("matmul") + calls.count("matmul_packed") == 5, calls
    assert not {"split", "concat", "reshape"} & set(calls), calls
    _check(model)
    _check(model, threads=2)


def test_a_view_keeps_its_buffer_alive_while_it_is_read() -> None:
    # a's reshape v is read by the last matmul only; b and c are written meanwhile, and may
    # not take a's bytes, which an arena that ignored the view would give them.
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["a"]),
        helper.make_node("Reshape", ["a", "rows"], ["v"]),
        helper.make_node("MatMul", ["x", "w2"], ["b"]),
        helper.make_node("MatMul", ["b", "w3"], ["c"]),
        helper.make_node("Reshape", ["c", "rows"], ["cv"]),
        helper.make_node("MatMul", ["v", "w4"], ["d"]),
        helper.make_node("Add", ["d", "cv"], ["y"]),
    ]
    weights = [_weight("w1", (16, 64)), _weight("w2", (16, 64)), _weight("w3", (64, 64)),
               _weight("w4", (16, 16)), _ints("rows", [64, 16])]  # fmt: skip
    model = _model(nodes, [("x", [16, 16])], ["y"], weights)
    assert "reshape" not in _calls(model)
    _check(model)


@pytest.mark.parametrize(
    "case",
    ["input_in_concat", "piece_returned", "concat_returned", "piece_twice", "piece_in_two_concats",
     "split_returned", "constant_slice", "unaligned_split", "columns_split"],
)  # fmt: skip
def test_views_and_concats_in_place_compute_what_ort_does(case: str) -> None:
    """The cases where a view or a concat in place must not be made, or must be copied out,
    and those where it may be made of something other than a kernel's result."""
    mm = [helper.make_node("MatMul", ["x", "w"], ["p"]), helper.make_node("MatMul", ["x", "u"], ["q"])]
    weights = [_weight("w", (16, 16)), _weight("u", (16, 16))]
    outputs = ["y"]
    if case == "input_in_concat":  # the graph input's bytes are the caller's: a kernel
        nodes = [*mm, helper.make_node("Concat", ["p", "x"], ["y"], axis=0)]
    elif case == "piece_returned":  # p is written into the model's output: the concat copies
        nodes = [*mm, helper.make_node("Concat", ["p", "q"], ["y"], axis=0)]
        outputs = ["y", "p"]
    elif case == "concat_returned":  # the pieces are written straight into the output
        nodes = [*mm, helper.make_node("Concat", ["p", "q"], ["y"], axis=0)]
    elif case == "piece_twice":
        nodes = [*mm, helper.make_node("Concat", ["p", "q", "p"], ["y"], axis=0)]
    elif case == "piece_in_two_concats":  # p has one buffer: one concat writes it in place
        nodes = [*mm, helper.make_node("Concat", ["p", "q"], ["c1"], axis=0),
                 helper.make_node("Concat", ["q", "p"], ["c2"], axis=0),
                 helper.make_node("Add", ["c1", "c2"], ["y"])]  # fmt: skip
    elif case == "split_returned":  # views that are outputs are copied into them
        nodes = [mm[0], helper.make_node("Split", ["p"], ["y", "z"], axis=0, num_outputs=2)]
        outputs = ["y", "z"]
    elif case == "constant_slice":  # a view of a constant's bytes
        nodes = [helper.make_node("Slice", ["w", "starts", "ends"], ["ws"]),
                 helper.make_node("MatMul", ["x", "ws"], ["y"])]  # fmt: skip
        weights = [_weight("w", (32, 16)), _ints("starts", [16]), _ints("ends", [32])]
    elif case == "unaligned_split":  # pieces 3 floats in: a kernel
        nodes = [mm[0], helper.make_node("Reshape", ["p", "flat"], ["f"]),
                 helper.make_node("Split", ["f", "sizes"], ["y", "z"], axis=1)]  # fmt: skip
        weights += [_ints("flat", [1, 256]), _ints("sizes", [3, 253])]
        outputs = ["y", "z"]
    else:  # columns of 16 rows interleave: a kernel
        nodes = [mm[0], helper.make_node("Split", ["p"], ["y", "z"], axis=1, num_outputs=2)]
        outputs = ["y", "z"]
    _check(_model(nodes, [("x", [16, 16])], outputs, weights))
