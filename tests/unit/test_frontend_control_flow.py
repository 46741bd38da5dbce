"""If, Loop and Scan, compiled when the frontend can decide their course at import time
(frontend/onnx_control_flow.py), and If on a run-time condition (graph.if), checked against
ONNX Runtime; and the errors for a course that depends on run-time values."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.backend import MinitvmBackend
from minitvm.errors import FrontendError, NonConstantOperandError

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
RNG = np.random.default_rng(4)


def model(nodes, inputs, outputs, consts=None, opset=16):
    graph = helper.make_graph(
        nodes, "cf", [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in (consts or {}).items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def same_as_ort(m, feeds) -> None:
    want = ort.InferenceSession(m.SerializeToString()).run(None, feeds)
    got = minitvm.compile(m).run(feeds)
    for w, h in zip(want, got, strict=True):
        assert h.shape == w.shape and h.dtype == w.dtype
        np.testing.assert_allclose(h, w, rtol=1e-5, atol=1e-6)


def branch(name: str, op_type: str, out: str) -> object:
    """A branch computing op_type(x, x) from the outer scope's x."""
    return helper.make_graph([helper.make_node(op_type, ["x", "x"], [out])], name, [],
                             [helper.make_empty_tensor_value_info(out)])  # fmt: skip


@pytest.mark.parametrize("cond", [True, False])
def test_if_with_a_constant_condition_inlines_its_branch(cond: bool) -> None:
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch("then", "Add", "a"),
                            else_branch=branch("else", "Mul", "m"))  # fmt: skip
    m = model([node], {"x": (F, [3, 4])}, ["y"], {"c": np.array(cond)})
    same_as_ort(m, {"x": RNG.standard_normal((3, 4)).astype(np.float32)})
    ops = {op.name for op in minitvm.from_onnx(m).walk()}
    assert ("graph.add" in ops) == cond and ("graph.mul" in ops) != cond


def test_if_on_a_shape_folds_like_scripted_code() -> None:
    """`if x.shape[0] > 2:` as torch.jit.script exports it: Shape, Gather, Greater, If."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"]),
        helper.make_node("Greater", ["n", "two"], ["c"]),
        helper.make_node(
            "If",
            ["c"],
            ["y"],
            then_branch=branch("then", "Sub", "d"),
            else_branch=branch("else", "Mul", "m"),
        ),
    ]
    consts = {"zero": np.array(0, np.int64), "two": np.array(2, np.int64)}
    m = model(nodes, {"x": (F, [3, 4])}, ["y"], consts)
    same_as_ort(m, {"x": RNG.standard_normal((3, 4)).astype(np.float32)})


@pytest.mark.parametrize("opt_level", [0, 1, 3])
@pytest.mark.parametrize("threads", [1, 2])
def test_if_on_a_run_time_condition_runs_the_branch_it_picks(opt_level: int, threads: int) -> None:
    """One compile serves both outcomes: a graph.if, its branches kernel calls."""
    node = helper.make_node("If", ["c"], ["y"], name="choose",
                            then_branch=branch("then", "Add", "a"),
                            else_branch=branch("else", "Mul", "m"))  # fmt: skip
    m = model([node, helper.make_node("Sigmoid", ["y"], ["z"])],
              {"x": (F, [3, 8]), "c": (B, [])}, ["z"])  # fmt: skip
    exe = minitvm.compile(m, opt_level=opt_level, num_threads=threads)
    session = ort.InferenceSession(m.SerializeToString())
    for cond in (True, False, True):
        feeds = {"x": RNG.standard_normal((3, 8)).astype(np.float32), "c": np.array(cond)}
        np.testing.assert_allclose(exe.run(feeds)[0], session.run(None, feeds)[0], rtol=1e-5,
                                   atol=1e-6)  # fmt: skip
    ifs = [op for op in minitvm.from_onnx(m).walk() if op.name == "graph.if"]
    assert len(ifs) == 1


def test_backend_compiles_a_run_time_if_once() -> None:
    """ONNX's backend API used to compile once per condition value (it froze the input)."""
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch("then", "Add", "a"),
                            else_branch=branch("else", "Mul", "m"))  # fmt: skip
    m = model([node], {"x": (F, [3, 8]), "c": (B, [])}, ["y"])
    rep = MinitvmBackend.prepare(m, "CPU")
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    for cond in (True, False, True, False):
        (y,) = rep.run([x, np.array(cond)])
        np.testing.assert_allclose(y, x + x if cond else x * x, rtol=1e-6)
    assert rep.compile_count == 1 and rep.constant_inputs == ()


def _conv_branch(name: str, weight: str, out: str, extra: list | None = None):
    """conv(x, weight) + relu in a branch: the branch's weights are the outer graph's."""
    nodes = [helper.make_node("Conv", ["img", weight], [f"{out}_c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", [f"{out}_c"], [out]), *(extra or [])]  # fmt: skip
    last = extra[-1].output[0] if extra else out
    return helper.make_graph(nodes, name, [], [helper.make_empty_tensor_value_info(last)])


def test_if_whose_branches_hold_convs_nested_ifs_and_outer_values() -> None:
    """The graph passes run inside the branches (conv layout, weight packing, Winograd,
    fusion); an If nested in a branch; a branch giving back an outer value untouched; the
    condition computed by the model itself."""
    inner = helper.make_node(
        "If", ["c2"], ["deep"],
        then_branch=helper.make_graph([helper.make_node("Neg", ["t"], ["n"])], "in_then", [],
                                      [helper.make_empty_tensor_value_info("n")]),
        else_branch=helper.make_graph([helper.make_node("Identity", ["img"], ["i"])], "in_else",
                                      [], [helper.make_empty_tensor_value_info("i")]),
    )  # fmt: skip
    nodes = [
        helper.make_node("ReduceMean", ["img"], ["mean"], keepdims=0),
        helper.make_node("Greater", ["mean", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["y"],
                         then_branch=_conv_branch("then", "w1", "t", [inner]),
                         else_branch=_conv_branch("else", "w2", "e")),
        helper.make_node("Add", ["y", "img"], ["z"]),
    ]  # fmt: skip
    consts = {"w1": RNG.standard_normal((16, 16, 3, 3)).astype(np.float32) / 12,
              "w2": RNG.standard_normal((16, 16, 3, 3)).astype(np.float32) / 12,
              "zero": np.array(0, np.float32)}  # fmt: skip
    m = model(nodes, {"img": (F, [1, 16, 12, 12]), "c2": (B, [])}, ["z"], consts)
    session = ort.InferenceSession(m.SerializeToString())
    exe = minitvm.compile(m, num_threads=2)
    for shift, c2 in ((1.0, True), (1.0, False), (-1.0, True)):
        img = (RNG.standard_normal((1, 16, 12, 12)) + shift).astype(np.float32)
        feeds = {"img": img, "c2": np.array(c2)}
        np.testing.assert_allclose(exe.run(feeds)[0], session.run(None, feeds)[0], rtol=1e-4,
                                   atol=1e-5)  # fmt: skip


def test_if_whose_branches_differ_in_shape_is_a_clear_error() -> None:
    other = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["r"], keepdims=0)], "else", [],
        [helper.make_empty_tensor_value_info("r")],
    )  # fmt: skip
    node = helper.make_node("If", ["c"], ["y"], name="choose",
                            then_branch=branch("then", "Add", "a"), else_branch=other)  # fmt: skip
    m = model([node], {"x": (F, [3]), "c": (B, [])}, ["y"])
    with pytest.raises(FrontendError, match="node 'choose' \\(If.*branches give different types"):
        minitvm.from_onnx(m)


def loop_body(with_scan: bool = True, stop_at: int | None = None):
    """acc += x * i each iteration; scans acc; with stop_at, cond_out = i + 1 < stop_at."""
    nodes = [
        helper.make_node("Cast", ["i"], ["fi"], to=F),
        helper.make_node("Mul", ["x", "fi"], ["xi"]),
        helper.make_node("Add", ["acc_in", "xi"], ["acc_out"]),
        helper.make_node("Identity", ["acc_out"], ["scan"]),
    ]
    if stop_at is None:
        nodes.append(helper.make_node("Identity", ["cond_in"], ["cond_out"]))
    else:
        nodes += [helper.make_node("Add", ["i", "one"], ["next"]),
                  helper.make_node("Less", ["next", "limit"], ["cond_out"])]  # fmt: skip
    outputs = ["cond_out", "acc_out"] + (["scan"] if with_scan else [])
    consts = [numpy_helper.from_array(np.array(1, np.int64), "one"),
              numpy_helper.from_array(np.array(stop_at or 0, np.int64), "limit")]  # fmt: skip
    return helper.make_graph(
        nodes, "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond_in", B, []),
         helper.make_tensor_value_info("acc_in", F, [4])],
        [helper.make_empty_tensor_value_info(o) for o in outputs], consts,
    )  # fmt: skip


@pytest.mark.parametrize("trip, stop_at", [(5, None), (10, 3), (1, None)])
def test_loop_with_a_known_trip_count_is_unrolled(trip: int, stop_at: int | None) -> None:
    node = helper.make_node("Loop", ["M", "cond", "acc0"], ["acc", "scans"],
                            body=loop_body(stop_at=stop_at))  # fmt: skip
    consts = {"M": np.array(trip, np.int64), "cond": np.array(True)}
    m = model([node], {"acc0": (F, [4]), "x": (F, [4])}, ["acc", "scans"], consts)
    feeds = {"acc0": RNG.standard_normal(4).astype(np.float32),
             "x": RNG.standard_normal(4).astype(np.float32)}  # fmt: skip
    same_as_ort(m, feeds)


@pytest.mark.parametrize("threads", [1, 2])
def test_loop_on_a_run_time_trip_count_runs_as_a_loop(threads: int) -> None:
    """One compile serves every trip count, 0 included: a graph.loop, a loop.while."""
    node = helper.make_node("Loop", ["M", "", "acc0"], ["acc"], name="repeat",
                            body=loop_body(with_scan=False))  # fmt: skip
    m = model([node], {"acc0": (F, [4]), "x": (F, [4]), "M": (I64, [])}, ["acc"])
    assert [op.name for op in minitvm.from_onnx(m).walk()].count("graph.loop") == 1
    exe = minitvm.compile(m, num_threads=threads)
    session = ort.InferenceSession(m.SerializeToString())
    for trips in (0, 1, 3, 40):
        feeds = {"acc0": RNG.standard_normal(4).astype(np.float32),
                 "x": RNG.standard_normal(4).astype(np.float32), "M": np.array(trips)}  # fmt: skip
        np.testing.assert_allclose(exe.run(feeds)[0], session.run(None, feeds)[0], rtol=1e-5)


def _while_body():
    """(a, b) -> (b * 2, a + b) while sum(a + b) < limit: a data-dependent exit, and yields
    that swap two loop-carried values."""
    return helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["ab"]),
         helper.make_node("Mul", ["b", "two"], ["b2"]),
         helper.make_node("ReduceSum", ["ab"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["go"])],
        "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("c", B, []),
         helper.make_tensor_value_info("a", F, [4]), helper.make_tensor_value_info("b", F, [4])],
        [helper.make_tensor_value_info("go", B, []), helper.make_tensor_value_info("b2", F, [4]),
         helper.make_tensor_value_info("ab", F, [4])],
    )  # fmt: skip


@pytest.mark.parametrize("trip", [None, 5])
def test_while_loop_on_a_run_time_condition(trip: int | None) -> None:
    inputs = ["M" if trip else "", "c", "a0", "b0"]
    node = helper.make_node("Loop", inputs, ["a", "b"], body=_while_body())
    consts = {"two": np.array(2, np.float32), "limit": np.array(500, np.float32)}
    if trip:
        consts["M"] = np.array(trip, np.int64)  # known M, run-time condition
    m = model([node], {"a0": (F, [4]), "b0": (F, [4]), "c": (B, [])}, ["a", "b"], consts)
    exe = minitvm.compile(m, num_threads=1)
    session = ort.InferenceSession(m.SerializeToString())
    for start, cond in ((1.0, True), (30.0, True), (1.0, False)):
        feeds = {"a0": np.full(4, start, np.float32), "b0": np.arange(4, dtype=np.float32),
                 "c": np.array(cond)}  # fmt: skip
        for got, want in zip(exe.run(feeds), session.run(None, feeds), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-6)


def test_loop_with_scan_outputs_on_a_run_time_trip_count_is_a_clear_error() -> None:
    node = helper.make_node("Loop", ["M", "", "acc0"], ["acc", "scans"], name="repeat",
                            body=loop_body(with_scan=True))  # fmt: skip
    m = model([node], {"acc0": (F, [4]), "x": (F, [4]), "M": (I64, [])}, ["acc", "scans"])
    with pytest.raises(NonConstantOperandError, match="node 'repeat' \\(Loop.*scan outputs"):
        minitvm.from_onnx(m)


def scan_body():
    """state += x_t; out_t = state * 2."""
    nodes = [helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
             helper.make_node("Add", ["s_out", "s_out"], ["y_t"])]  # fmt: skip
    return helper.make_graph(
        nodes, "scan_body",
        [helper.make_tensor_value_info("s_in", F, [3]), helper.make_tensor_value_info("x_t", F, [3])],
        [helper.make_empty_tensor_value_info("s_out"), helper.make_empty_tensor_value_info("y_t")],
    )  # fmt: skip


@pytest.mark.parametrize(
    "attrs, x_shape",
    [
        ({}, [5, 3]),
        ({"scan_input_directions": [1]}, [5, 3]),
        ({"scan_input_axes": [1], "scan_output_axes": [1]}, [3, 5]),
        ({"scan_output_directions": [1]}, [5, 3]),
    ],
)
def test_scan_is_unrolled(attrs: dict, x_shape: list[int]) -> None:
    node = helper.make_node("Scan", ["s0", "x"], ["s", "y"], body=scan_body(),
                            num_scan_inputs=1, **attrs)  # fmt: skip
    m = model([node], {"s0": (F, [3]), "x": (F, x_shape)}, ["s", "y"])
    feeds = {"s0": RNG.standard_normal(3).astype(np.float32),
             "x": RNG.standard_normal(x_shape).astype(np.float32)}  # fmt: skip
    same_as_ort(m, feeds)


def test_scan_opset_8_batched() -> None:
    node = helper.make_node("Scan", ["", "s0", "x"], ["s", "y"], body=scan_body(),
                            num_scan_inputs=1)  # fmt: skip
    m = model([node], {"s0": (F, [2, 3]), "x": (F, [2, 4, 3])}, ["s", "y"], opset=8)
    feeds = {"s0": RNG.standard_normal((2, 3)).astype(np.float32),
             "x": RNG.standard_normal((2, 4, 3)).astype(np.float32)}  # fmt: skip
    same_as_ort(m, feeds)
