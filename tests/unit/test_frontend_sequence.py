"""ONNX sequences (frontend/onnx_sequence.py): the sequence ops inside a graph, sequences as
graph inputs and outputs (one tensor per item at run time), and their errors; every result
against ONNX Runtime."""

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

FLOAT_SEQ = h.make_sequence_type_proto(h.make_tensor_type_proto(T.FLOAT, None))


def _model(nodes, inputs, outputs, inits=(), opset=17) -> onnx.ModelProto:
    graph = h.make_graph(nodes, "seq", inputs, outputs, list(inits))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def _out(name: str, sequence: bool = False) -> onnx.ValueInfoProto:
    if sequence:
        return h.make_value_info(name, FLOAT_SEQ)
    return h.make_tensor_value_info(name, T.FLOAT, None)


def _int(name: str, *values: int) -> onnx.TensorProto:
    dims = [] if len(values) == 1 else [len(values)]
    return h.make_tensor(name, T.INT64, dims, list(values))


def _ort(model: onnx.ModelProto, feeds: dict) -> list:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _assert_same(got, want) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if isinstance(w, list):
            _assert_same(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
            assert g.shape == np.shape(w)


X = np.arange(24, dtype=np.float32).reshape(4, 6) - 7


@pytest.mark.parametrize("opt_level", [1, 3])
def test_sequence_ops_inside_a_graph(opt_level: int) -> None:
    """Split a run-time tensor into a sequence, edit it, read it back: every op once."""
    nodes = [
        h.make_node("Relu", ["x"], ["r"]),  # a run-time value, not folded
        h.make_node("SplitToSequence", ["r", "two"], ["s"], axis=1),  # 3 parts of 4x2
        h.make_node("Slice", ["x", "zero1", "two1", "axes"], ["x2"]),  # columns 0:2 of x
        h.make_node("SequenceAt", ["s", "minus1"], ["last"]),
        h.make_node("SequenceErase", ["s", "zero"], ["erased"]),
        h.make_node("SequenceInsert", ["erased", "x2"], ["inserted"]),  # at the back
        h.make_node("SequenceInsert", ["inserted", "x2", "zero"], ["front"]),
        h.make_node("ConcatFromSequence", ["front"], ["cat"], axis=1),
        h.make_node("ConcatFromSequence", ["front"], ["stacked"], axis=-1, new_axis=1),
        h.make_node("SequenceLength", ["front"], ["n"]),
    ]
    inits = [_int("two", 2), _int("minus1", -1), _int("zero", 0), _int("zero1", 0, 0),
             _int("two1", 4, 2), _int("axes", 0, 1)]  # fmt: skip
    outputs = [_out("last"), _out("cat"), _out("stacked"),
               h.make_tensor_value_info("n", T.INT64, None)]  # fmt: skip
    model = _model(nodes, [h.make_tensor_value_info("x", T.FLOAT, [4, 6])], outputs, inits)
    exe = minitvm.compile(model, opt_level=opt_level, num_threads=1)
    got = exe.run({"x": X})
    _assert_same(got, _ort(model, {"x": X}))
    assert got[1].shape == (4, 8) and got[2].shape == (4, 2, 4) and int(got[3]) == 4


@pytest.mark.parametrize(
    ("split", "keepdims", "shapes"),
    [
        (None, 1, [(4, 1)] * 6),
        (None, 0, [(4,)] * 6),
        ([4], 1, [(4, 4), (4, 2)]),  # a scalar split: parts of 4, the last one shorter
        ([1, 2, 3], 1, [(4, 1), (4, 2), (4, 3)]),
    ],
)
def test_split_to_sequence_is_a_sequence_output(split, keepdims, shapes) -> None:
    inputs = ["r"]
    inits = []
    if split is not None:
        inputs.append("split")
        inits.append(h.make_tensor("split", T.INT64, [] if len(split) == 1 else [len(split)],
                                   split))  # fmt: skip
    nodes = [h.make_node("Neg", ["x"], ["r"]),
             h.make_node("SplitToSequence", inputs, ["s"], axis=1, keepdims=keepdims)]  # fmt: skip
    model = _model(nodes, [h.make_tensor_value_info("x", T.FLOAT, [4, 6])],
                   [_out("s", sequence=True)], inits)  # fmt: skip
    exe = minitvm.compile(model, num_threads=1)
    assert exe.output_names == [f"s[{i}]" for i in range(len(shapes))]
    got = exe.run({"x": X})
    assert [a.shape for a in got] == shapes
    _assert_same([got], _ort(model, {"x": X}))


def _identity_add_model() -> onnx.ModelProto:
    """A sequence input mapped through SequenceMap (add a tensor to each item), returned."""
    body = h.make_graph(
        [h.make_node("Add", ["item", "bias"], ["sum"])], "body",
        [h.make_tensor_value_info("item", T.FLOAT, None),
         h.make_tensor_value_info("bias", T.FLOAT, None)],
        [h.make_tensor_value_info("sum", T.FLOAT, None)],
    )  # fmt: skip
    nodes = [h.make_node("SequenceMap", ["xs", "b"], ["ys"], body=body)]
    inputs = [h.make_value_info("xs", FLOAT_SEQ), h.make_tensor_value_info("b", T.FLOAT, [3])]
    return _model(nodes, inputs, [_out("ys", sequence=True)])


def test_sequence_input_and_output_are_one_tensor_per_item() -> None:
    model = _identity_add_model()
    items = [np.full((2, 3), i, np.float32) for i in range(3)]
    bias = np.array([1, 2, 3], np.float32)
    exe = minitvm.compile(model, input_shapes={"xs": [(2, 3)] * 3}, num_threads=1)
    assert exe.input_names == ["xs[0]", "xs[1]", "xs[2]", "b"]
    assert exe.output_names == ["ys[0]", "ys[1]", "ys[2]"]
    feeds = {f"xs[{i}]": a for i, a in enumerate(items)} | {"b": bias}
    _assert_same([exe.run(feeds)], _ort(model, {"xs": items, "b": bias}))


def test_backend_takes_and_returns_lists_for_sequences() -> None:
    """ONNX's backend API: a sequence is a list; a new length compiles again."""
    model = _identity_add_model()
    rep = MinitvmBackend.prepare(model, "CPU")
    bias = np.array([1, 2, 3], np.float32)
    for count in (2, 4):
        items = [np.random.default_rng(count).standard_normal((5, 3)).astype(np.float32)] * count
        (got,) = rep.run([items, bias])
        assert isinstance(got, list) and len(got) == count
        _assert_same([got], _ort(model, {"xs": items, "b": bias}))
    assert rep.compile_count == 2


def test_a_sequence_input_needs_its_shapes() -> None:
    with pytest.raises(FrontendError, match=r"input 'xs' is a sequence of tensors; give the shape"):
        minitvm.compile(_identity_add_model(), input_shapes={"b": (3,)})


def test_position_out_of_range_names_the_node() -> None:
    nodes = [h.make_node("SplitToSequence", ["x"], ["s"], axis=0),
             h.make_node("SequenceAt", ["s", "p"], ["y"], name="pick")]  # fmt: skip
    model = _model(nodes, [h.make_tensor_value_info("x", T.FLOAT, [4, 6])], [_out("y")],
                   [_int("p", 4)])  # fmt: skip
    with pytest.raises(FrontendError, match=r"node 'pick' \(SequenceAt.*position 4 is out of range"):
        minitvm.compile(model)


def test_a_tensor_op_given_a_sequence_names_the_node() -> None:
    nodes = [h.make_node("SplitToSequence", ["x"], ["s"], axis=0),
             h.make_node("Relu", ["s"], ["y"], name="bad")]  # fmt: skip
    model = _model(nodes, [h.make_tensor_value_info("x", T.FLOAT, [4, 6])], [_out("y")])
    with pytest.raises(FrontendError, match=r"node 'bad' \(Relu.*is a sequence; this op takes a"):
        minitvm.compile(model)


def test_loop_builds_a_sequence_with_sequence_insert() -> None:
    """What exporters emit for a Python list appended to in a loop: the list is a
    loop-carried sequence, concatenated after the loop."""
    body = h.make_graph(
        [h.make_node("Mul", ["x", "scale"], ["scaled"]),
         h.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
         h.make_node("Add", ["scaled", "fi"], ["item"]),
         h.make_node("SequenceInsert", ["seq_in", "item"], ["seq_out"]),
         h.make_node("Identity", ["cond"], ["cond_out"])],
        "body",
        [h.make_tensor_value_info("i", T.INT64, []), h.make_tensor_value_info("cond", T.BOOL, []),
         h.make_value_info("seq_in", FLOAT_SEQ)],
        [h.make_tensor_value_info("cond_out", T.BOOL, []), h.make_value_info("seq_out", FLOAT_SEQ)],
    )  # fmt: skip
    nodes = [
        h.make_node("SequenceEmpty", [], ["empty"], dtype=T.FLOAT),
        h.make_node("Loop", ["trips", "", "empty"], ["seq"], body=body),
        h.make_node("ConcatFromSequence", ["seq"], ["y"], axis=0, new_axis=1),
    ]
    inputs = [h.make_tensor_value_info("x", T.FLOAT, [2, 3]),
              h.make_tensor_value_info("scale", T.FLOAT, [3])]  # fmt: skip
    model = _model(nodes, inputs, [_out("y")], [_int("trips", 4)])
    x, scale = X[:2, :3].copy(), np.array([0.5, -1, 2], np.float32)
    got = minitvm.compile(model, num_threads=1).run({"x": x, "scale": scale})
    assert got[0].shape == (4, 2, 3)
    _assert_same(got, _ort(model, {"x": x, "scale": scale}))
