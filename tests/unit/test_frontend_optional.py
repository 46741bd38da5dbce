"""ONNX optionals (frontend/onnx_optional.py): the optional ops inside a graph, optional
graph inputs (given or empty) and outputs (an empty one is None through the backend), an If
choosing between an empty and a full optional, and the errors; results against ONNX
Runtime where it runs the model."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import minitvm
from minitvm.backend import MinitvmBackend
from minitvm.errors import FrontendError

FLOAT4 = h.make_tensor_type_proto(T.FLOAT, [4])
OPT_TENSOR = h.make_optional_type_proto(FLOAT4)
OPT_SEQ = h.make_optional_type_proto(h.make_sequence_type_proto(FLOAT4))
X = np.array([1.5, -2.0, 3.0, -4.5], np.float32)


def _model(nodes, inputs, outputs, opset=18) -> onnx.ModelProto:
    graph = h.make_graph(nodes, "opt", inputs, outputs)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def _ort(model: onnx.ModelProto, feeds: dict) -> list:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _wrap_and_unwrap() -> onnx.ModelProto:
    """x -> Optional -> (HasElement, Relu(GetElement)): the element computed at run time."""
    return _model(
        [
            h.make_node("Optional", ["x"], ["o"]),
            h.make_node("OptionalHasElement", ["o"], ["has"]),
            h.make_node("OptionalGetElement", ["o"], ["e"]),
            h.make_node("Relu", ["e"], ["y"]),
        ],
        [h.make_tensor_value_info("x", T.FLOAT, [4])],
        [h.make_tensor_value_info("has", T.BOOL, []), h.make_tensor_value_info("y", T.FLOAT, [4])],
    )


@pytest.mark.parametrize("opt_level", [1, 3])
def test_optional_ops_inside_a_graph_match_onnxruntime(opt_level: int) -> None:
    model = _wrap_and_unwrap()
    got = minitvm.compile(model, opt_level=opt_level).run({"x": X})
    want = _ort(model, {"x": X})
    assert bool(got[0]) is True and bool(want[0]) is True
    np.testing.assert_array_equal(got[1], want[1])


def _has_element_of_input() -> onnx.ModelProto:
    """An optional tensor input: whether it is given, and its element plus one if so."""
    return _model(
        [h.make_node("OptionalHasElement", ["o"], ["has"])],
        [h.make_value_info("o", OPT_TENSOR)],
        [h.make_tensor_value_info("has", T.BOOL, [])],
    )


def test_an_optional_input_is_compiled_given_or_empty() -> None:
    model = _has_element_of_input()
    given = minitvm.compile(model)  # a static tensor: given, by default
    assert [s.name for s in given.inputs] == ["o"] and bool(given.run({"o": X})[0])
    empty = minitvm.compile(model, input_shapes={"o": None})
    assert empty.inputs == [] and not bool(empty.run({})[0])
    rep = MinitvmBackend.prepare(model, "CPU")
    assert bool(rep.run([X])[0]) and not bool(rep.run([None])[0])
    assert rep.compile_count == 2


def test_an_optional_sequence_input_and_an_empty_optional_output() -> None:
    """Identity of an optional sequence, and an Optional left empty as a graph output: the
    backend gives the list back, and None for the empty one."""
    model = _model(
        [
            h.make_node("Identity", ["o"], ["same"]),
            h.make_node("Optional", [], ["none"], type=h.make_tensor_type_proto(T.FLOAT, [4])),
        ],
        [h.make_value_info("o", OPT_SEQ)],
        [h.make_value_info("same", OPT_SEQ), h.make_value_info("none", OPT_TENSOR)],
    )
    rep = MinitvmBackend.prepare(model, "CPU")
    same, none = rep.run([[X, 2 * X]])
    assert none is None and len(same) == 2
    np.testing.assert_array_equal(same[1], 2 * X)
    same, none = rep.run([None])
    assert same is None and none is None
    with pytest.raises(FrontendError, match="optional sequence; give the shape of each"):
        minitvm.compile(model)


def test_if_between_an_empty_and_a_full_optional_freezes_its_condition() -> None:
    """Which branch gives the optional must be known at import: the backend compiles once
    per value of the condition (as for sequences)."""
    empty = h.make_graph(
        [h.make_node("Optional", [], ["e"], type=FLOAT4)], "then", [],
        [h.make_value_info("e", OPT_TENSOR)],
    )  # fmt: skip
    full = h.make_graph(
        [h.make_node("Optional", ["x"], ["f"])], "else", [], [h.make_value_info("f", OPT_TENSOR)]
    )
    model = _model(
        [
            h.make_node("If", ["c"], ["o"], then_branch=empty, else_branch=full),
            h.make_node("OptionalHasElement", ["o"], ["has"]),
        ],
        [h.make_tensor_value_info("c", T.BOOL, []), h.make_tensor_value_info("x", T.FLOAT, [4])],
        [h.make_value_info("o", OPT_TENSOR), h.make_tensor_value_info("has", T.BOOL, [])],
    )
    rep = MinitvmBackend.prepare(model, "CPU")
    o, has = rep.run([np.array(True), X])
    assert o is None and not bool(has)
    o, has = rep.run([np.array(False), X])
    np.testing.assert_array_equal(o, X)
    assert bool(has) and rep.constant_inputs == ("c",)


def test_getting_the_element_of_an_empty_optional_names_the_node() -> None:
    model = _model(
        [
            h.make_node("Optional", [], ["none"], type=FLOAT4),
            h.make_node("OptionalGetElement", ["none"], ["y"], name="get"),
        ],
        [],
        [h.make_tensor_value_info("y", T.FLOAT, [4])],
    )
    with pytest.raises(FrontendError, match=r"get.*OptionalGetElement.*'none' is empty"):
        minitvm.compile(model)


def test_an_optional_where_a_tensor_is_taken_is_a_clear_error() -> None:
    model = _model(
        [h.make_node("Optional", ["x"], ["o"]), h.make_node("Relu", ["o"], ["y"], name="relu")],
        [h.make_tensor_value_info("x", T.FLOAT, [4])],
        [h.make_tensor_value_info("y", T.FLOAT, [4])],
    )
    with pytest.raises(FrontendError, match=r"relu.*is an optional; this op takes a tensor"):
        minitvm.compile(model)
