"""bench/conformance.py --all's report on fabricated results, and its process pool on a fake
child: what is out of minitvm's scope, how a failure's detail becomes a reason, the per-op
table's counts, and that a crash or a hang costs one case only. No node-suite case runs here
(`python bench/conformance.py --all` runs them all).
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from minitvm.bench import conformance
from minitvm.bench.conformance_report import (
    MINITVM,
    OLD_OPSET,
    ORT,
    OTHER_DOMAIN,
    RANDOM,
    STRING,
    TRAINING,
    Result,
    full_report,
    op_rows,
    out_of_scope,
    reason,
    totals,
)

PASS = Result("pass", "", 0.1)


def _model(
    nodes: list[onnx.NodeProto],
    inputs: list[str],
    elem_type: int = TensorProto.FLOAT,
    initializers: list[onnx.TensorProto] | None = None,
) -> onnx.ModelProto:
    values = [helper.make_tensor_value_info(n, elem_type, [2]) for n in inputs]
    output = helper.make_tensor_value_info("y", elem_type, [2])
    graph = helper.make_graph(nodes, "g", values, [output], initializer=initializers or [])
    return helper.make_model(graph)


# --------------------------------------------------------------------------------------------
# Scope
# --------------------------------------------------------------------------------------------


def test_an_ordinary_op_is_in_scope() -> None:
    assert out_of_scope(_model([helper.make_node("Relu", ["x"], ["y"])], ["x"])) is None


@pytest.mark.parametrize(
    ("node", "inputs", "scope"),
    [
        (
            helper.make_node("Adam", ["x"], ["y"], domain="ai.onnx.preview.training"),
            ["x"],
            TRAINING,
        ),
        (helper.make_node("BatchNormalization", ["x"], ["y"], training_mode=1), ["x"], TRAINING),
        (helper.make_node("Dropout", ["x", "r", "t"], ["y"]), ["x", "r", "t"], TRAINING),
        (helper.make_node("RandomUniformLike", ["x"], ["y"]), ["x"], RANDOM),
        (helper.make_node("Bernoulli", ["x"], ["y"]), ["x"], RANDOM),
        (helper.make_node("StringNormalizer", ["x"], ["y"]), ["x"], STRING),
    ],
    ids=[
        "training-op",
        "batchnorm-training-mode",
        "dropout-training-input",
        "random-like",
        "bernoulli",
        "string-op",
    ],
)
def test_out_of_scope_ops(node: onnx.NodeProto, inputs: list[str], scope: str) -> None:
    assert out_of_scope(_model([node], inputs)) == scope


def test_inference_dropout_is_in_scope() -> None:
    assert out_of_scope(_model([helper.make_node("Dropout", ["x"], ["y"])], ["x"])) is None


@pytest.mark.parametrize(
    "node",
    [
        helper.make_node("NonZero", ["x"], ["y"]),
        helper.make_node("Unique", ["x"], ["y"]),
        helper.make_node("TopK", ["x", "k"], ["y", "i"]),
    ],
    ids=["nonzero", "unique", "topk-run-time-k"],
)
def test_data_dependent_shapes_are_in_scope(node: onnx.NodeProto) -> None:
    """Output shapes found at run time are minitvm's since issue 19."""
    assert out_of_scope(_model([node], list(node.input))) is None


def test_string_values_are_out_of_scope_whatever_the_op() -> None:
    model = _model([helper.make_node("Identity", ["x"], ["y"])], ["x"], TensorProto.STRING)
    assert out_of_scope(model) == STRING


def test_other_domains_and_old_opsets_are_out_of_scope() -> None:
    """Issue 20's scope is the default domain at opsets 7 and later (ai.onnx.ml's Binarizer,
    opset 1's Not are outside it)."""
    ml = _model([helper.make_node("Binarizer", ["x"], ["y"], domain="ai.onnx.ml")], ["x"])
    assert out_of_scope(ml) == OTHER_DOMAIN
    old = _model([helper.make_node("Not", ["x"], ["y"])], ["x"], TensorProto.BOOL)
    for version, scope in ((1, OLD_OPSET), (6, OLD_OPSET), (7, None)):
        del old.opset_import[:]
        old.opset_import.append(helper.make_opsetid("", version))
        assert out_of_scope(old) == scope


def test_subgraph_nodes_count() -> None:
    body = helper.make_graph(
        [helper.make_node("RandomNormal", [], ["z"], shape=[2])],
        "then",
        [],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])],
    )
    node = helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)
    assert out_of_scope(_model([node], ["c"])) == RANDOM


# --------------------------------------------------------------------------------------------
# Reasons
# --------------------------------------------------------------------------------------------

_SUPPORTED = "(supported: float32, float64, float16, int64, int32, bool)"
_ORT_NO_KERNEL = "NOT_IMPLEMENTED : Could not find an implementation for Max(13) node with name ''"


def _node_error(op: str, message: str, error: str = "FrontendError") -> str:
    """A detail as the child reports a frontend error about one node."""
    return f"{error}: node '#0 -> y' ({op}, opset 19): {message}"


@pytest.mark.parametrize(
    ("detail", "category"),
    [
        ("FrontendError: unsupported op(s) Foo; supported ops: Abs, Add", "unsupported op Foo"),
        (
            "FrontendError: unsupported op(s) Loop, SequenceEmpty; supported ops: Abs",
            "unsupported op Loop, SequenceEmpty",
        ),
        (
            f"FrontendError: input 'x': unsupported element type bfloat16 {_SUPPORTED}",
            "element type bfloat16",
        ),
        # numpy's name (an input) and ONNX's (Cast's `to`) of one type make one group.
        (
            f"FrontendError: input 'x': unsupported element type float8_e4m3fn {_SUPPORTED}",
            "element type float8e4m3fn",
        ),
        (
            _node_error("Cast", "unsupported 'to' type FLOAT8E4M3FN; supported: float32"),
            "element type float8e4m3fn",
        ),
        (
            f"FrontendError: input 'x': unsupported element type object {_SUPPORTED}",
            "element type string",
        ),
        (
            _node_error("Resize", "antialias=1 is not supported; supported: antialias=0"),
            "attribute antialias=1 not supported",
        ),
        (
            _node_error("Resize", "unsupported mode 'cubic'; supported: 'nearest', 'linear'"),
            "attribute mode 'cubic' not supported",
        ),
        (
            _node_error("Dropout", "training_mode=true is not supported; export for inference"),
            "training mode",
        ),
        (
            "FrontendError: model opset 1 is not supported; supported opsets: 7 to 28",
            "model opset 1",
        ),
        (
            _node_error(
                "Reshape",
                "shape must be a constant known at import time",
                "NonConstantOperandError",
            ),
            "non-constant shape operand",
        ),
        (f"NotImplemented: [ONNXRuntimeError] : 9 : {_ORT_NO_KERNEL}", "no ORT kernel for Max"),
        # Unknown to every pattern: the error's type and message, without the node's name.
        (
            "AssertionError: one operand must be an expression\nTraceback (most recent call...",
            "AssertionError: one operand must be an expression",
        ),
        (_node_error("Gather", "something new"), "FrontendError: Gather: something new"),
    ],
)
def test_reason_of_an_error(detail: str, category: str) -> None:
    assert reason(Result("error", detail, 0.0)) == category


@pytest.mark.parametrize(
    ("verdict", "category"),
    [("wrong", "wrong result"), ("crash", "crash"), ("timeout", "timeout")],
)
def test_reason_of_a_verdict(verdict: str, category: str) -> None:
    assert reason(Result(verdict, "process exited with -11 (SIGSEGV)", 0.0)) == category


# --------------------------------------------------------------------------------------------
# The table and the report
# --------------------------------------------------------------------------------------------

OPS = {"test_a": "A", "test_a2": "A", "test_b": "B", "test_b_expanded": "B (expanded)"}
SCOPES: dict[str, str | None] = {n: None for n in OPS} | {"test_b_expanded": RANDOM}
UNSUPPORTED = Result("error", "FrontendError: unsupported op(s) A; supported ops: B", 0.2)
ORT_FAILS = Result("error", "NotImplemented: ... Could not find an implementation for B(1)", 0.0)
RESULTS = {
    ORT: {"test_a": PASS, "test_a2": PASS, "test_b": ORT_FAILS, "test_b_expanded": PASS},
    MINITVM: {
        "test_a": UNSUPPORTED,
        "test_a2": PASS,
        "test_b": PASS,
        "test_b_expanded": Result("crash", "process exited with -11 (SIGSEGV)", 0.0),
    },
}


def test_op_rows_count_each_runner_and_the_gaps() -> None:
    rows = {row.op: row for row in op_rows(OPS, SCOPES, RESULTS)}
    assert list(rows) == ["A", "B", "B (expanded)"]  # expanded bodies after the ops
    a, b, expanded = rows["A"], rows["B"], rows["B (expanded)"]
    assert (a.cases, a.ort_pass, a.minitvm_pass, a.behind, a.ahead) == (2, 2, 1, 1, 0)
    assert (b.ort_pass, b.minitvm_pass, b.behind, b.ahead) == (0, 1, 0, 1)
    # ORT passes it and minitvm crashes, but it is out of scope: not behind.
    assert (expanded.behind, expanded.out_of_scope) == (0, 1)


def test_totals_sum_the_rows() -> None:
    total = totals(op_rows(OPS, SCOPES, RESULTS))
    assert (total.op, total.cases, total.ort_pass, total.minitvm_pass) == ("total", 4, 3, 2)
    assert (total.behind, total.ahead, total.out_of_scope) == (1, 1, 1)


def test_a_runner_not_run_has_no_column() -> None:
    total = totals(op_rows(OPS, SCOPES, {MINITVM: RESULTS[MINITVM]}))
    assert (total.ort_pass, total.minitvm_pass, total.behind) == (None, 2, 0)


def test_full_report_names_each_gap_with_its_reason() -> None:
    text = full_report(OPS, SCOPES, RESULTS)
    assert "4 cases: ORT passes 3, minitvm passes 2, 1 out of minitvm's scope" in text
    assert "in scope, ORT passes and minitvm fails: 1 (the target is 0)" in text
    behind = text.split("in scope, ORT passes and minitvm fails (1, by minitvm's reason):")[1]
    assert behind.split("\n")[1].split() == ["1", "unsupported", "op", "A"]
    assert "test_a:" in behind.split("minitvm passes and ORT fails")[0]
    ahead = text.split("minitvm passes and ORT fails (1, by ORT's reason):")[1]
    assert "no ORT kernel for B" in ahead
    assert "1 random generator (ort passes 1, minitvm passes 0)" in text


def test_full_report_of_one_runner_lists_its_failures() -> None:
    text = full_report(OPS, SCOPES, {ORT: RESULTS[ORT]})
    assert "ORT passes 3, minitvm passes -" in text
    assert "in scope, ort fails (1, by ort's reason):" in text


# --------------------------------------------------------------------------------------------
# Verdicts and the process pool
# --------------------------------------------------------------------------------------------


def assert_outputs() -> None:  # named as the verdict is: its AssertionError is a wrong result
    raise AssertionError("Not equal to tolerance")


def _compile() -> None:
    raise AssertionError("one operand must be an expression")


@pytest.mark.parametrize(("raise_", "verdict"), [(assert_outputs, "wrong"), (_compile, "error")])
def test_an_assert_is_wrong_only_in_the_verdict(raise_: object, verdict: str) -> None:
    try:
        raise_()  # type: ignore[operator]
    except AssertionError as error:
        got, detail = conformance._failure(error)
    assert got == verdict
    assert ("Traceback" in detail) == (verdict == "error")  # where a compiler assert fired


FAKE_CHILD = """
import ctypes, json, sys, time
print("ready", flush=True)
for line in sys.stdin:
    name = line.strip()
    if name == "crash":
        print("dying", file=sys.stderr, flush=True)
        ctypes.string_at(0)
    if name == "hang":
        time.sleep(60)
    print(json.dumps([name, "pass", "", 0.0]), flush=True)
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_crash_or_a_hang_costs_one_case(tmp_path: Path, jobs: int) -> None:
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(FAKE_CHILD))
    pool = conformance._Pool([sys.executable, str(script)], jobs, timeout=1.0)
    names = ["a", "crash", "b", "hang", "c"]
    results = pool.run(names, lambda done: None)
    assert list(results) == names
    assert [results[n].verdict for n in names] == ["pass", "crash", "pass", "timeout", "pass"]
    assert results["crash"].detail == "process exited with -11 (SIGSEGV); stderr: dying"


def test_a_child_that_cannot_start_stops_the_run(tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text("raise SystemExit('no minitvm here')\n")
    pool = conformance._Pool([sys.executable, str(script)], 1, timeout=5.0)
    with pytest.raises(RuntimeError, match="failed to start: process exited with 1; stderr: no"):
        pool.run(["a"], lambda done: None)


def test_zero_size_cases_are_those_with_an_empty_tensor(tmp_path: Path) -> None:
    """`--zero-size` keeps a case whose data set, initializer or Constant has a 0 dim."""
    import numpy as np
    from onnx import numpy_helper

    def case(name: str, data: np.ndarray, init: np.ndarray, const: np.ndarray) -> Path:
        directory = tmp_path / name
        (directory / "test_data_set_0").mkdir(parents=True)
        value = helper.make_tensor("v", TensorProto.FLOAT, const.shape, const.ravel().tolist())
        nodes = [helper.make_node("Constant", [], ["c"], value=value)]
        graph = helper.make_graph(
            nodes, name, [], [helper.make_empty_tensor_value_info("c")],
            initializer=[numpy_helper.from_array(init, "w")],
        )  # fmt: skip
        onnx.save(helper.make_model(graph), directory / "model.onnx")
        tensor = numpy_helper.from_array(data)
        (directory / "test_data_set_0" / "input_0.pb").write_bytes(tensor.SerializeToString())
        return directory

    full, empty = np.ones((2, 3), np.float32), np.ones((2, 0), np.float32)
    assert not conformance._has_zero_size(case("full", full, full, full))
    assert conformance._has_zero_size(case("data", empty, full, full))
    assert conformance._has_zero_size(case("init", full, empty, full))
    assert conformance._has_zero_size(case("const", full, full, empty))
