"""`minitvm.backend`: ONNX's backend API over minitvm.

What the backend adds to `minitvm.compile`: graph inputs that feed a shape-like operand are
frozen into the model with the values of the run (found by asking the frontend), and the
compiled Executable is cached under those values, recompiling when they change; a model with
symbolic dimensions is compiled once for all their sizes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from minitvm.backend import MinitvmBackend
from minitvm.errors import FrontendError, MinitvmError

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: dict[str, tuple[int, Sequence[int | str] | None]],
    outputs: Sequence[str],
    opset: int = 17,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        list(nodes),
        "test",
        [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def pad_model() -> onnx.ModelProto:
    """y = relu(pad(x, pads)) with the pads a run-time input, as node tests do (pads must be
    known at import time)."""
    return make_model(
        [
            helper.make_node("Pad", ["x", "pads"], ["r"]),
            helper.make_node("Relu", ["r"], ["y"]),
        ],
        {"x": (F, [2, 3]), "pads": (I64, [4])},
        ["y"],
    )


def test_shape_input_is_frozen_cached_and_recompiled_when_it_changes() -> None:
    rng = np.random.default_rng(0)
    rep = MinitvmBackend.prepare(pad_model())
    assert rep.constant_inputs is None and rep.compile_count == 0  # compiles at the first run

    def want(x: np.ndarray, pads: list[int]) -> np.ndarray:
        return np.maximum(np.pad(x, list(zip(pads[:2], pads[2:]))), 0)

    x = rng.standard_normal((2, 3)).astype(np.float32)
    (y,) = rep.run([x, np.array([1, 0, 0, 2], np.int64)])
    np.testing.assert_array_equal(y, want(x, [1, 0, 0, 2]))
    assert rep.constant_inputs == ("pads",)
    assert rep.compile_count == 1

    x2 = rng.standard_normal((2, 3)).astype(np.float32)
    (y,) = rep.run([x2, np.array([1, 0, 0, 2], np.int64)])  # same operand: cached
    np.testing.assert_array_equal(y, want(x2, [1, 0, 0, 2]))
    assert rep.compile_count == 1

    (y,) = rep.run([x, np.array([0, 3, 1, 1], np.int64)])  # new value: recompiled
    assert y.shape == (3, 7)
    np.testing.assert_array_equal(y, want(x, [0, 3, 1, 1]))
    assert rep.compile_count == 2

    rep.run([x, np.array([1, 0, 0, 2], np.int64)])  # both values stay cached
    rep.run([x, np.array([0, 3, 1, 1], np.int64)])
    assert rep.compile_count == 2


def test_inputs_feeding_a_shape_operand_through_nodes_are_frozen() -> None:
    """Pad's pads computed by Concat(Add(a, b), c): a, b and c are all frozen; x is not."""
    model = make_model(
        [
            helper.make_node("Add", ["a", "b"], ["ab"]),
            helper.make_node("Concat", ["ab", "c"], ["pads"], axis=0),
            helper.make_node("Pad", ["x", "pads"], ["y"]),
        ],
        {"x": (F, [2, 3]), "a": (I64, [2]), "b": (I64, [2]), "c": (I64, [2])},
        ["y"],
    )
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a, b, c = np.array([0, 1], np.int64), np.array([1, 0], np.int64), np.array([0, 2], np.int64)
    rep = MinitvmBackend.prepare(model)
    (y,) = rep.run([x, a, b, c])
    np.testing.assert_array_equal(y, np.pad(x, [(1, 0), (1, 2)]))
    assert set(rep.constant_inputs or ()) == {"a", "b", "c"}


def test_an_input_seen_only_through_shape_stays_a_run_time_input() -> None:
    """Reshape(x, Shape(z)) + z: Shape needs only z's static shape, so z is not frozen."""
    model = make_model(
        [
            helper.make_node("Shape", ["z"], ["s"]),
            helper.make_node("Reshape", ["x", "s"], ["r"]),
            helper.make_node("Add", ["r", "z"], ["y"]),
        ],
        {"x": (F, [6]), "z": (F, [2, 3])},
        ["y"],
    )
    rep = MinitvmBackend.prepare(model)
    x, z = np.arange(6, dtype=np.float32), np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(rep.run([x, z])[0], x.reshape(2, 3) + z)
    assert rep.constant_inputs == ()
    np.testing.assert_array_equal(rep.run([x, 2 * z])[0], x.reshape(2, 3) + 2 * z)
    assert rep.compile_count == 1


def test_an_empty_input_runs_unless_the_frontend_needs_its_values() -> None:
    """An input without elements is a run-time input like any other: data of shape (0, 3)
    runs through the compiled code. An empty axes input is frozen because the frontend asks
    for axes at import time (ReduceSum with empty axes reduces over all axes), and a run with
    other axes compiles again."""
    model = make_model(
        [
            helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0),
            helper.make_node("Relu", ["e"], ["r"]),
        ],
        {"x": (F, [2, 3]), "axes": (I64, ["n"]), "e": (F, ["m", 3])},
        ["y", "r"],
        opset=13,
    )
    rep = MinitvmBackend.prepare(model)
    x, empty = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((0, 3), np.float32)
    y, r = rep.run([x, np.zeros(0, np.int64), empty])
    np.testing.assert_allclose(y, x.sum())
    assert r.shape == (0, 3) and r.dtype == np.float32
    assert rep.constant_inputs == ("axes",)
    (y, _) = rep.run([x, np.array([1], np.int64), empty])
    np.testing.assert_allclose(y, x.sum(axis=1))
    rep.run([x, np.zeros(0, np.int64), empty])
    assert rep.compile_count == 2  # keyed by axes' values, not by the empty input's


def test_inputs_by_name_and_outputs_by_name_or_position() -> None:
    model = make_model(
        [helper.make_node("Split", ["x"], ["lo", "hi"], axis=0, num_outputs=2)],
        {"x": (F, [4, 2])},
        ["lo", "hi"],
        opset=18,
    )
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    outputs = MinitvmBackend.run_model(model, {"x": x})
    np.testing.assert_array_equal(outputs["hi"], x[2:])
    np.testing.assert_array_equal(outputs[0], x[:2])
    assert len(list(outputs)) == 2


def test_dynamic_input_dimensions_compile_once() -> None:
    """A model with a symbolic dimension is compiled once, for every size of it; a size of 0
    (which a dynamic compile does not take) gets a compile of its own."""
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], {"x": (F, ["N", 3])}, ["y"])
    rep = MinitvmBackend.prepare(model)
    for n in (2, 5, 2, 7):
        x = np.linspace(-1, 1, n * 3, dtype=np.float32).reshape(n, 3)
        np.testing.assert_array_equal(rep.run([x])[0], np.maximum(x, 0))
    assert rep.compile_count == 1
    assert rep.run([np.zeros((0, 3), np.float32)])[0].shape == (0, 3)
    rep.run([np.ones((3, 3), np.float32)])
    assert rep.compile_count == 2


def test_a_model_that_needs_its_shapes_compiles_per_shape() -> None:
    """A Reshape to a shape computed from the input's dimension by value, not by Shape,
    before a MatMul that needs the reshaped rows' length: taken at run time, that length is
    unknown to the MatMul, and frozen, the reshape cannot be checked for every N. Each run's
    shape gets its own compile, as for a static model."""
    model = make_model(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Reshape", ["r", "s"], ["t"]),
         helper.make_node("MatMul", ["t", "w"], ["y"])],
        {"x": (F, ["N", 4]), "s": (I64, [2])},
        ["y"],
    )  # fmt: skip
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    model.graph.initializer.append(onnx.numpy_helper.from_array(w, "w"))
    rep = MinitvmBackend.prepare(model)
    for n in (2, 3):
        x = np.linspace(-1, 1, n * 4, dtype=np.float32).reshape(n, 4)
        np.testing.assert_allclose(rep.run([x, np.array([n, 4])])[0], np.maximum(x, 0) @ w, rtol=1e-6)
    assert rep.compile_count == 2 and rep.constant_inputs == ("s",)


def test_data_dependent_outputs_compile_once() -> None:
    """NonZero's and TopK's (k fed at run time) output shapes are found as they run: one
    compile serves every input and every k."""
    model = make_model(
        [
            helper.make_node("NonZero", ["x"], ["nz"]),
            helper.make_node("TopK", ["x2", "k"], ["v", "i"], axis=1),
        ],
        {"x": (F, ["N", 3]), "x2": (F, [2, 6]), "k": (I64, [1])},
        ["nz", "v", "i"],
    )
    rep = MinitvmBackend.prepare(model)
    rng = np.random.default_rng(0)
    for n, k in ((2, 1), (4, 6), (1, 0)):
        x = (rng.random((n, 3)) < 0.5).astype(np.float32)
        x2 = rng.standard_normal((2, 6)).astype(np.float32)
        nz, v, i = rep.run([x, x2, np.array([k])])
        np.testing.assert_array_equal(nz, np.array(np.nonzero(x)))
        order = np.argsort(-x2, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(i, order)
        np.testing.assert_array_equal(v, np.take_along_axis(x2, order, axis=1))
    assert rep.compile_count == 1 and rep.constant_inputs == ()


def test_prepare_rejects_an_unsupported_op_naming_it() -> None:
    model = make_model(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("StringNormalizer", ["r"], ["y"])],
        {"x": (F, [3, 3])},
        ["y"],
    )
    # A string op: out of minitvm's scope, so this stays unsupported.
    match = r"unsupported op\(s\) StringNormalizer; supported ops: Abs"
    with pytest.raises(FrontendError, match=match):
        MinitvmBackend.prepare(model)
    assert not MinitvmBackend.is_compatible(model)


def test_prepare_rejects_an_unsupported_opset_and_device() -> None:
    relu = [helper.make_node("Relu", ["x"], ["y"])]
    with pytest.raises(FrontendError, match="opset 5 is not supported"):
        MinitvmBackend.prepare(make_model(relu, {"x": (F, [2])}, ["y"], opset=5))
    with pytest.raises(MinitvmError, match="device 'CUDA' is not supported"):
        MinitvmBackend.prepare(make_model(relu, {"x": (F, [2])}, ["y"]), device="CUDA")
    assert MinitvmBackend.supports_device("CPU")
    assert not MinitvmBackend.supports_device("CUDA")
    assert not MinitvmBackend.supports_device("TPU")


def test_an_unsupported_attribute_value_fails_at_the_first_run() -> None:
    model = make_model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="area")],
        {"x": (F, [1, 1, 2, 2]), "scales": (F, [4])},
        ["y"],
        opset=19,
    )
    rep = MinitvmBackend.prepare(model)
    with pytest.raises(FrontendError, match="unsupported mode 'area'"):
        rep.run([np.ones((1, 1, 2, 2), np.float32), np.array([1, 1, 2, 2], np.float32)])


def test_wrong_number_of_inputs() -> None:
    rep = MinitvmBackend.prepare(pad_model())
    with pytest.raises(MinitvmError, match="got 1 inputs; the model takes 2"):
        rep.run([np.ones((2, 3, 4), np.float32)])


def test_run_node() -> None:
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    (y,) = MinitvmBackend.run_node(helper.make_node("Relu", ["x"], ["y"]), [x])
    np.testing.assert_array_equal(y, np.maximum(x, 0))

    # Slice's bounds arrive as inputs: specialized like any graph input.
    node = helper.make_node("Slice", ["x", "starts", "ends", "", "steps"], ["y"])
    starts, ends, steps = (np.array(v, np.int64) for v in ([2, 0], [0, 4], [-1, 2]))
    (y,) = MinitvmBackend.run_node(node, [x, starts, ends, steps], opset_version=13)
    np.testing.assert_array_equal(y, x[2:0:-1, 0:4:2])

    info = [(np.dtype(np.float32), (4, 3))]
    (y,) = MinitvmBackend.run_node(
        helper.make_node("Transpose", ["x"], ["y"]), [x], outputs_info=info
    )
    np.testing.assert_array_equal(y, x.T)
