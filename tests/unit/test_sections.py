"""loop.sections end to end (passes/loop/sections.py, lowering/loop_to_llvm/sections.py): the
two directions of bidirectional RNN layers run side by side, and every model computes what
ONNX Runtime computes on any number of threads, in the JIT and in an exported library
(whose C pool runs a kernel's loops inside a section serially)."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.parser import Parser

import minitvm
from minitvm.ir import make_context
from minitvm.passes.loop import sections
from minitvm.passes.loop.plan_memory import LiveRange

RNG = np.random.default_rng(11)
T, B, I, H = 6, 1, 16, 16


def _rnn_layers(op_type: str, gates: int, layers: int = 2) -> onnx.ModelProto:
    """`layers` bidirectional layers, each reading the last one's (T, B, 2H) output."""
    nodes, weights, width = [], [], I
    source = "x"
    for n in range(layers):
        w, r = f"w{n}", f"r{n}"
        weights += [
            numpy_helper.from_array(
                RNG.standard_normal((2, gates * H, width)).astype(np.float32) * 0.3, w
            ),
            numpy_helper.from_array(
                RNG.standard_normal((2, gates * H, H)).astype(np.float32) * 0.3, r
            ),
        ]
        nodes += [
            helper.make_node(
                op_type, [source, w, r], [f"y{n}"], hidden_size=H, direction="bidirectional"
            ),
            helper.make_node("Transpose", [f"y{n}"], [f"t{n}"], perm=[0, 2, 1, 3]),
            helper.make_node("Reshape", [f"t{n}", "shape"], [f"o{n}"]),
        ]
        source, width = f"o{n}", 2 * H
    weights.append(numpy_helper.from_array(np.array([T, -1, 2 * H], np.int64), "shape"))
    graph = helper.make_graph(
        nodes, "rnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [T, B, I])],
        [helper.make_tensor_value_info(source, TensorProto.FLOAT, None)],
        weights,
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


def _expected(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, feeds
    )


@pytest.fixture
def wrapped(monkeypatch) -> list[list[int]]:
    """The calls per section of every loop.sections the compiles make."""
    found: list[list[int]] = []
    wrap = sections.wrap_sections

    def spy(block, chains):
        found.append([len(c) for c in chains])
        return wrap(block, chains)

    monkeypatch.setattr(sections, "wrap_sections", spy)
    return found


@pytest.mark.parametrize("op_type, gates", [("LSTM", 4), ("GRU", 3)])
def test_the_directions_of_each_layer_are_two_sections(op_type: str, gates: int, wrapped) -> None:
    model = _rnn_layers(op_type, gates)
    feeds = {"x": RNG.standard_normal((T, B, I)).astype(np.float32)}
    expected = _expected(model, feeds)
    exe = minitvm.compile(model, num_threads=2)
    assert len(wrapped) == 2 and all(len(s) == 2 and s[0] == s[1] > T for s in wrapped), wrapped
    # 1 thread: in turn; 2: side by side; 3, 4: in turn, each kernel on all the threads.
    for threads in (2, 1, 3, 4):
        exe.num_threads = threads
        for run in range(2):  # a second run reuses the arena the first one left behind
            got = exe.run(feeds)
            np.testing.assert_allclose(
                got[0], expected[0], rtol=1e-4, atol=1e-5, err_msg=f"{threads} threads, run {run}"
            )


def test_an_exported_library_runs_sections_side_by_side(tmp_path) -> None:
    model = _rnn_layers("LSTM", 4)
    path = tmp_path / "lstm.onnx"
    onnx.save(model, path)
    feeds = {"x": RNG.standard_normal((T, B, I)).astype(np.float32)}
    expected = _expected(model, feeds)
    library = tmp_path / "lstm.so"
    minitvm.compile(path, num_threads=2).export(library)
    for threads in (2, 1, 3):
        lib = minitvm.load(library, num_threads=threads)
        for _ in range(3):
            np.testing.assert_allclose(lib.run(feeds)[0], expected[0], rtol=1e-4, atol=1e-5)


def test_chains_of_different_kernels_stay_as_they_are(wrapped) -> None:
    """A forward and a reverse LSTM of different hidden sizes: independent, not balanced."""
    nodes, weights = [], []
    for n, (direction, hidden) in enumerate((("forward", H), ("reverse", 2 * H))):
        weights += [
            numpy_helper.from_array(
                RNG.standard_normal((1, 4 * hidden, I)).astype(np.float32) * 0.3, f"w{n}"
            ),
            numpy_helper.from_array(
                RNG.standard_normal((1, 4 * hidden, hidden)).astype(np.float32) * 0.3, f"r{n}"
            ),
        ]
        nodes.append(
            helper.make_node(
                "LSTM", ["x", f"w{n}", f"r{n}"], [f"y{n}"], hidden_size=hidden, direction=direction
            )
        )
    graph = helper.make_graph(
        nodes, "two",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [T, B, I])],
        [helper.make_tensor_value_info(f"y{n}", TensorProto.FLOAT, None) for n in range(2)],
        weights,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    feeds = {"x": RNG.standard_normal((T, B, I)).astype(np.float32)}
    expected = _expected(model, feeds)
    exe = minitvm.compile(model, num_threads=2)
    assert wrapped == []
    for got, want in zip(exe.run(feeds), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_callee_may_write_every_buffer_it_does_not_only_read() -> None:
    """Loads (through a view too) and a copy's source read; a store, a copy's target, a
    call's argument, a value stored (an address, say) may write."""
    text = """
    func.func private @other(memref<16xf32>)
    func.func @k(%a: memref<16xf32>, %b: memref<16xf32>, %c: memref<16xf32>, %d: memref<16xf32>, %e: memref<16xf32>) {
      %i = arith.constant 0 : index
      %v = loop.view %a[0] : memref<16xf32> to memref<1x16xf32>
      %x = loop.load %v[%i, %i] : memref<1x16xf32> -> f32
      loop.prefetch %a[%i] : memref<16xf32>
      %w = loop.view %b[0] : memref<16xf32> to memref<1x16xf32>
      loop.store %x, %w[%i, %i] : f32, memref<1x16xf32>
      loop.copy %a, %c : memref<16xf32>, memref<16xf32>
      func.call @other(%d) : (memref<16xf32>) -> ()
      %y = loop.load %e[%i] : memref<16xf32> -> f32
      func.return
    }
    """
    module = Parser(make_context(), text).parse_module()
    kernels = {f.sym_name.data: f for f in module.ops}
    assert sections.written_arguments(kernels["k"]) == {1, 2, 3}
    assert sections.written_arguments(kernels["other"]) is None  # no body, no loop.inputs


def test_buffers_live_in_two_sections_of_one_op_overlap() -> None:
    """Apart in the block's order, together in time: they may run at once."""
    a = LiveRange(None, 64, 1, 2, frozenset({(7, 0)}))  # type: ignore[arg-type]
    b = LiveRange(None, 64, 3, 4, frozenset({(7, 1)}))  # type: ignore[arg-type]
    c = LiveRange(None, 64, 3, 4, frozenset({(7, 0)}))  # type: ignore[arg-type]
    d = LiveRange(None, 64, 3, 4, frozenset({(8, 1)}))  # type: ignore[arg-type]
    assert a.overlaps(b) and b.overlaps(a)
    assert not a.overlaps(c)  # one section: one after the other
    assert not a.overlaps(d)  # another loop.sections: after this one
