"""`minitvm fuzz` (minitvm/fuzz/): the generator draws valid models covering every spec, the
reducer shrinks a failure to one node, the sandbox classifies a hang, failures round-trip on
disk, the CLI runs, and a short fixed-seed campaign finds nothing (CI)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from minitvm.fuzz.campaign import run_campaign
from minitvm.fuzz.check import Config, Verdict, compare
from minitvm.fuzz.generate import generate
from minitvm.fuzz.graph import exact_outputs
from minitvm.fuzz.reduce import Reducer
from minitvm.fuzz.sandbox import Sandbox
from minitvm.fuzz.spec import SPECS
from minitvm.fuzz.store import INDEX, load_failure, save_failure
from minitvm.runtime.ort import ort_session
from minitvm.tools import cli


def test_generated_models_are_valid_and_cover_every_spec():
    covered: set[str] = set()
    for index in range(2 * len(SPECS)):
        case = generate(7, index)
        onnx.checker.check_model(case.model, full_check=True)
        outputs = ort_session(case.model, 1)(case.feeds)
        for info, out in zip(case.model.graph.output, outputs, strict=True):
            assert np.all(np.isfinite(out.astype(np.float64))), (index, info.name)
            if info.name in case.exact_outputs:  # exact: a multiple of 2^-bits, small enough
                assert out.dtype != np.float32 or np.all(np.abs(out) < 2**23)
        covered.update(case.op_types)
    assert covered == set(SPECS)


def test_generation_is_deterministic_and_honours_ops():
    a, b = generate(3, 5), generate(3, 5)
    assert a.model.SerializeToString() == b.model.SerializeToString()
    assert all(np.array_equal(a.feeds[k], b.feeds[k]) for k in a.feeds)
    for index in range(20):
        assert set(generate(3, index, ["Conv", "Relu"]).op_types) <= {"Conv", "Relu"}


def test_unknown_op_is_a_user_error(capsys):
    assert cli.main(["fuzz", "--count", "1", "--ops", "Relu,NoSuchOp"]) == 1
    assert "no spec for NoSuchOp" in capsys.readouterr().err


def test_reducer_shrinks_a_synthetic_failure_to_one_node():
    """A fake bug: every graph with a Tanh "fails"; the reduced graph is that Tanh alone, fed
    the value its input had."""
    ops = ["Tanh", "Add", "MatMul", "Relu", "Transpose", "Concat", "Mul"]
    case = next(c for i in range(50) if len((c := generate(11, i, ops, 10)).op_types) >= 6
                and "Tanh" in c.op_types and c.op_types[0] != "Tanh")  # fmt: skip
    checks: list[int] = []

    def fails(smaller):
        checks.append(1)
        onnx.checker.check_model(smaller.model, full_check=True)
        return "Tanh" in smaller.op_types

    reduced = Reducer(case, fails).reduce()
    assert reduced.op_types == ["Tanh"]
    assert len(reduced.model.graph.input) == 1 and len(reduced.model.graph.output) == 1
    # the Tanh computes what it computed in the original graph
    tanh = reduced.model.graph.node[0]
    original = onnx.ModelProto()
    original.CopyFrom(case.model)
    original.graph.output.extend(
        [onnx.helper.make_empty_tensor_value_info(tanh.output[0])])  # fmt: skip
    want = ort_session(original, 1)(case.feeds)[-1]
    got = ort_session(reduced.model, 1)(reduced.feeds)[0]
    np.testing.assert_array_equal(got, want)
    assert len(checks) <= 100


def test_compare_is_exact_for_exact_outputs_and_scaled_otherwise():
    want = np.array([1000.0, 1.0], np.float32)
    near = want + np.float32(0.05)  # within atol 1e-4 * 1000 + rtol
    assert compare(near, want, exact=False)[0]
    assert not compare(near, want, exact=True)[0]
    assert not compare(want + 1, want, exact=False)[0]
    assert not compare(want.astype(np.float64), want, exact=False)[0]  # dtype differs


def test_failure_directory_round_trips(tmp_path):
    case = generate(5, 2)
    reduced = generate(5, 3)
    verdict = Verdict("mismatch", Config(3, 2), "float32[2] vs ORT's float32[2]", output="v3",
                      max_error=0.5)  # fmt: skip
    line = save_failure(tmp_path, "s5-2", case, reduced, verdict)
    save_failure(tmp_path, "s5-9", case, case, verdict)
    back = load_failure(tmp_path / "s5-2")
    assert back.model.SerializeToString() == reduced.model.SerializeToString()
    assert back.feeds.keys() == reduced.feeds.keys()
    assert all(np.array_equal(back.feeds[k], reduced.feeds[k]) for k in back.feeds)
    assert back.exact_outputs == reduced.exact_outputs == exact_outputs(reduced.model)
    assert (tmp_path / "s5-2" / "summary.txt").read_text() == line + "\n"
    assert line.startswith("mismatch O3/2t output=v3 max_error=0.5")
    index = (tmp_path / INDEX).read_text().splitlines()
    assert [row.split("\t")[0] for row in index] == ["s5-2", "s5-9"]
    assert onnx.load(str(tmp_path / "s5-2" / "original.onnx")).graph == case.model.graph
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_sandbox_reports_a_hang_and_recovers():
    case = generate(0, 0, ["Relu"])
    with Sandbox(timeout=0.001) as sandbox:
        assert sandbox.check(case).kind == "hang"
        sandbox.timeout = 300
        assert sandbox.check(case).kind == "pass"


def test_cli_runs_a_small_campaign(tmp_path, capsys):
    out = tmp_path / "failures"
    code = cli.main(["fuzz", "--count", "3", "--seed", "4", "--ops", "Relu,Add",
                     "--ops", "Conv", "-o", str(out), "--max-nodes", "3"])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0, text
    assert "graphs: 3 generated, 3 compiled, 3 passed" in text
    assert "failures: 0" in text and "graphs per minute" in text and "op types" in text
    assert out.is_dir() and not (out / INDEX).exists()


@pytest.mark.slow
def test_fixed_seed_campaign_finds_nothing():
    """The CI run: a few dozen graphs of every op, checked at -O1/-O3 on 1 and 2 threads."""
    stats = run_campaign(2026, 30)
    assert stats.generated == 30 and stats.discarded <= 2
    assert not stats.failures, [f.summary for f in stats.failures]
    assert len(stats.ops) >= 40


def test_a_departure_of_onnx_runtime_from_the_spec_is_not_a_failure():
    """s8-194: Resize (linear, align_corners) downsampling 5 -> 2 columns: ONNX Runtime
    departs from ONNX's reference implementation, minitvm matches it."""
    from onnx import TensorProto, helper, numpy_helper

    from minitvm.fuzz.check import check
    from minitvm.fuzz.graph import Case

    scales = numpy_helper.from_array(np.array([1, 1, 3, 0.5], np.float32), "scales")
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                            coordinate_transformation_mode="align_corners")  # fmt: skip
    graph = helper.make_graph(
        [node], "resize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 12, 2])], [scales],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    x = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5) % 7
    verdict = check(Case(model, {"x": x}), [Config(3, 1)])
    assert verdict.kind == "ort-departs" and not verdict.failed, verdict


def test_compare_matches_equal_infinities_and_nans_and_ignores_them_for_scale():
    """s12-1736 (a false mismatch): x / Clip(x, min=-0.5) is NaN where x is 0 on both sides,
    and a NaN in the expected values made the tolerance NaN. An infinity must not scale the
    absolute tolerance up to excuse everything else."""
    want = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    assert compare(want.copy(), want, exact=False) == (True, 0.0)
    assert compare(want.copy(), want, exact=True) == (True, 0.0)
    off = want.copy()
    off[3] = 1.5
    assert not compare(off, want, exact=False)[0]
    nan_for_number = want.copy()
    nan_for_number[3] = np.nan
    assert compare(nan_for_number, want, exact=False) == (False, float("inf"))


def test_minitvm_closer_to_a_float64_evaluation_than_onnx_runtime_is_not_a_failure():
    """s12-2034: GroupNormalization of groups of two near-equal values (3.92, 4.12): ONNX
    Runtime and ONNX's float32 reference compute the variance as E[x^2] - E[x]^2 and lose
    5e-4; minitvm matches the float64 evaluation."""
    from onnx import TensorProto, helper, numpy_helper

    from minitvm.fuzz.check import as_float64, check
    from minitvm.fuzz.graph import Case

    scale = numpy_helper.from_array(np.array([0, 0.8125], np.float32), "scale")
    bias = numpy_helper.from_array(np.array([-0.5, -0.5], np.float32), "bias")
    node = helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=2)
    graph = helper.make_graph(
        [node], "gn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2, 1, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2, 1, 2])], [scale, bias],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    x = np.array([2.8729613, 2.8394542, 3.9196022, 4.1150446,
                  3.524468, 4.371874, 3.5349815, 3.526684], np.float32).reshape(2, 2, 1, 2)  # fmt: skip
    assert as_float64(model).graph.initializer[0].data_type == TensorProto.DOUBLE
    verdict = check(Case(model, {"x": x}), [Config(3, 1)])
    assert verdict.kind == "ort-departs" and "float64" in verdict.detail, verdict


def test_nan_and_infinite_outputs_equal_on_both_sides_pass_the_check():
    """s12-1736 and s12-3003, reduced: x / Clip(x, min=-0.5) (0 / 0 where x is 0) and
    Atanh(x) (+-inf at +-1) gave the same NaNs and infinities as ONNX Runtime, yet were
    reported as mismatches."""
    from onnx import TensorProto, helper

    from minitvm.fuzz.check import check
    from minitvm.fuzz.graph import Case

    x = np.array([[0.0, 1.0, -1.0, 0.5], [-0.5, 0.25, 0.0, -0.75]], np.float32)
    nodes = [
        helper.make_node("Clip", ["x", "low"], ["c"]),
        helper.make_node("Div", ["x", "c"], ["q"]),
        helper.make_node("Atanh", ["x"], ["a"]),
    ]
    low = helper.make_tensor("low", TensorProto.FLOAT, [], [-0.5])
    graph = helper.make_graph(
        nodes, "nan_inf", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 4]) for n in ("q", "a")], [low],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    verdict = check(Case(model, {"x": x}), [Config(3, 1), Config(1, 2)])
    assert verdict.kind == "pass", verdict
