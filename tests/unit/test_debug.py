"""`minitvm debug` (minitvm/debug/, tools/commands/debug.py): per-node comparison with ONNX
Runtime, the first divergence with its local and carried error, the repro, and the node and
pass of a failing compile. The faults are injected here only: a graph -> te lowering rule
monkeypatched to compute a wrong value, or to raise."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from models import _conv_bn, _Graph, mlp
from onnx import TensorProto, helper
from xdsl.ir import Block

from minitvm.compiler import compile, lower_to_te
from minitvm.debug import CompileFailure, DebugOptions, debug
from minitvm.debug.graphs import (
    constant_values,
    node_outputs,
    subgraph,
    value_types,
    with_outputs,
)
from minitvm.debug.metrics import compare
from minitvm.dialects import graph
from minitvm.frontend import from_onnx
from minitvm.lowering.graph_to_te.kernel_builder import LOWERINGS
from minitvm.runtime.ort import ort_session
from minitvm.schedules.kernel import kernels
from minitvm.tools.cli import main

ort = pytest.importorskip("onnxruntime")

OPTIONS = DebugOptions(num_threads=1, progress=False)


def _mlp_with_sigmoid() -> onnx.ModelProto:
    """MatMul, Add, Relu, MatMul, Sigmoid, Mul: six nodes, one Sigmoid ('sig')."""
    g = _Graph(0)
    y = g.node("MatMul", ["x", g.normal("w1", (16, 32), 0.3)], "mm1")
    y = g.node("Add", [y, g.normal("b1", (32,), 0.1)], "add1")
    y = g.node("Relu", [y], "relu1")
    y = g.node("MatMul", [y, g.normal("w2", (32, 16), 0.3)], "mm2")
    y = g.node("Sigmoid", [y], "sig")
    y = g.node("Mul", [y, g.normal("scale", (16,), 1.0)], "y")
    return g.model(
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])],
        13,
        "mlp_sigmoid",
    )


def _conv_bn_relu() -> onnx.ModelProto:
    """Conv, BatchNormalization, Relu, then a second conv-BN-ReLU: at -O3 the BNs fold,
    the convs run in NCHW16c and the ReLUs fuse into their epilogues."""
    g = _Graph(1)
    y = g.node("Relu", [_conv_bn(g, "x", "conv1", "bn1", 8, 32, 3, 1)], "relu1")
    y = g.node("Relu", [_conv_bn(g, y, "conv2", "bn2", 32, 32, 3, 1)], "y")
    return g.model(
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 12, 12])],
        13,
        "conv_bn_relu",
    )


@pytest.fixture
def broken_sigmoid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sigmoid lowered to sigmoid(x) + 0.25: a wrong constant in one kernel."""
    rule = LOWERINGS[graph.SigmoidOp]

    def wrong(kb, op, x):  # noqa: ANN001, ANN202
        (t,) = rule(kb, op, x)
        return [kb.compute(t.shape, t.element_type, lambda *i: t[i] + 0.25)]

    monkeypatch.setitem(LOWERINGS, graph.SigmoidOp, wrong)


def _save(model: onnx.ModelProto, path: os.PathLike[str] | str) -> str:
    onnx.save(model, str(path))
    return str(path)


def test_metrics() -> None:
    a = np.array([1.0, -2.0, 0.0], np.float32)
    same = compare(a, a.copy(), 1e-3, 1e-5)
    assert (same.max_abs, same.ulps, same.within) == (0.0, 0, True)
    assert same.cosine == pytest.approx(1.0)
    step = compare(np.nextafter(a, np.float32(10)), a, 1e-3, 1e-5)
    assert step.ulps == 1 and step.within  # one float apart, across zero too
    wrong = compare(-a, a, 1e-3, 1e-5)
    assert not wrong.within and wrong.max_abs == 4.0 and wrong.cosine == pytest.approx(-1.0)
    assert not compare(a[:2], a, 1e-3, 1e-5).shape_ok
    nan = np.array([np.nan], np.float32)
    assert compare(nan, nan, 1e-3, 1e-5).within and not compare(nan, a[:1], 1e-3, 1e-5).within


def test_subgraph_cuts_inputs_and_keeps_weights() -> None:
    model = _mlp_with_sigmoid()
    values = {"relu1": np.ones((4, 32), np.float32)}
    sub, feeds = subgraph(
        model, {3}, ["mm2"], values, constant_values(model), value_types(model, None)
    )
    assert [n.name for n in sub.graph.node] == ["mm2"]
    assert list(feeds) == ["relu1"] and [i.name for i in sub.graph.input] == ["relu1"]
    assert [i.name for i in sub.graph.initializer] == ["w2"]
    onnx.checker.check_model(sub)


def test_correct_model_matches(tmp_path, capsys) -> None:
    path = _save(_mlp_with_sigmoid(), tmp_path / "m.onnx")
    report = debug(onnx.load(path), None, OPTIONS)
    assert report.ok and report.first is None and len(report.rows) == 6
    assert all(row.metrics.within for row in report.rows)
    assert main(["debug", path, "--num-threads", "1", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "all 6 node outputs match ONNX Runtime" in out
    assert not (tmp_path / "repro.onnx").exists()


def test_fused_blocked_layouts_map_back() -> None:
    model = _conv_bn_relu()
    report = debug(model, None, OPTIONS)
    names = ["conv1", "bn1", "relu1", "conv2", "bn2", "y"]
    assert [row.output.name for row in report.rows] == names
    assert report.ok, [(r.output.name, r.metrics) for r in report.rows]
    # The program under test really is blocked and fused: each conv one NCHW[x]c kernel, its
    # BN folded and its ReLU in the epilogue; the instrumented one keeps the blocked convs.
    # (Direct convs: whether Winograd pays for one of them depends on the machine's roofline.)
    cases = ((model, "fused_conv_nchwc"), (_returning_all(model), "conv_nchwc"))
    for instrumented, wanted in cases:
        module = from_onnx(instrumented)
        lower_to_te(module, 3, num_threads=1, winograd="never")
        names = [k.sym_name.data for k in kernels(module)]
        assert sum(name.startswith(wanted) for name in names) == 2, names


def _returning_all(model: onnx.ModelProto) -> onnx.ModelProto:
    return with_outputs(model, [o.name for o in node_outputs(model)], value_types(model, None))


def test_broken_lowering_is_found(broken_sigmoid, tmp_path, capsys) -> None:
    model = _mlp_with_sigmoid()
    report = debug(model, None, OPTIONS)
    first = report.first
    assert first is not None and first.output.node.name == "sig"
    matching = [r.output.name for r in report.rows if r.metrics.within]
    assert matching == ["mm1", "add1", "relu1", "mm2"]
    assert first.local is not None and not first.local.within and first.local.max_abs > 0.2
    (after,) = [r for r in report.rows if r.output.name == "y"]
    assert not after.metrics.within and after.carried_only  # Mul alone is right
    assert [k.template for k in report.kernels] and report.kernels[0].name.startswith("sigmoid")
    assert report.repro is not None and report.repro.diverges
    assert report.repro.node_count == 1 < len(model.graph.node)

    path = _save(model, tmp_path / "m.onnx")
    out_dir = tmp_path / "out"
    assert main(["debug", path, "--num-threads", "1", "-o", str(out_dir)]) == 1
    captured = capsys.readouterr()
    assert "first divergent node: 'sig' (Sigmoid)" in captured.out
    assert "minitvm: error:" in captured.err and "Traceback" not in captured.err
    repro = onnx.load(str(out_dir / "repro.onnx"))
    assert len(repro.graph.node) < len(model.graph.node)
    feeds = {i.name: np.load(out_dir / f"{i.name}.npy") for i in repro.graph.input}
    got = compile(repro, num_threads=1).run(feeds)[0]  # still the broken compiler
    want = ort_session(repro, 1)(feeds)[0]
    assert not compare(got, want, 1e-3, 1e-5).within


def test_compile_failure_names_node_and_pass(monkeypatch, tmp_path, capsys) -> None:
    def fails(kb, op, x):  # noqa: ANN001, ANN202
        raise ValueError("injected lowering failure")

    monkeypatch.setitem(LOWERINGS, graph.SigmoidOp, fails)
    model = _mlp_with_sigmoid()
    with pytest.raises(CompileFailure) as info:
        debug(model, None, OPTIONS)
    assert info.value.node is not None and info.value.node.name == "sig"
    assert info.value.pass_name == "convert-graph-to-te"
    path = _save(model, tmp_path / "m.onnx")
    assert main(["debug", path, "--num-threads", "1", "-o", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]  # (after the progress bar)
    assert last.startswith("minitvm: error: node 'sig' (Sigmoid)") and "convert-graph-to-te" in last
    assert "Traceback" not in err


def test_fault_only_in_fused_kernels_is_found_by_prefixes(monkeypatch) -> None:
    """ReLU doubled only inside a fused group: the instrumented run (every node output
    returned, so nothing fuses with a ReLU) matches, the model as compiled does not; the
    prefixes name the ReLU whose group is wrong."""
    rule = LOWERINGS[graph.ReluOp]

    def wrong_when_fused(kb, op, x):  # noqa: ANN001, ANN202
        (t,) = rule(kb, op, x)
        if not isinstance(op.parent_op(), graph.FusedOp):
            return [t]
        return [kb.compute(t.shape, t.element_type, lambda *i: t[i] * 2.0)]

    monkeypatch.setitem(LOWERINGS, graph.ReluOp, wrong_when_fused)
    report = debug(_conv_bn_relu(), None, OPTIONS)
    assert not report.ok and report.notes
    first = report.first
    assert first is not None and first.output.name == "relu1" and first.by_prefix
    assert first.fused_only  # the ReLU alone is right
    assert report.repro is not None and report.repro.diverges and report.repro.node_count < 6


def test_dynamic_input_shape_and_given_input(monkeypatch, tmp_path, capsys) -> None:
    """--input-shape fixes the model's dynamic batch; the cut subgraphs have static inputs
    of their own; --input files are used as given."""
    rule = LOWERINGS[graph.ReluOp]

    def wrong(kb, op, x):  # noqa: ANN001, ANN202
        (t,) = rule(kb, op, x)
        return [kb.compute(t.shape, t.element_type, lambda *i: t[i] - 1.0)]

    monkeypatch.setitem(LOWERINGS, graph.ReluOp, wrong)
    path = _save(mlp(batch="N", sizes=(16, 8, 4)), tmp_path / "mlp.onnx")
    x = np.random.default_rng(3).standard_normal((3, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    args = ["debug", path, "--input", f"x={tmp_path / 'x.npy'}", "--num-threads", "1"]
    assert main([*args, "--input-shape", "x=3x16", "-o", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    assert "first divergent node: 'relu0' (Relu)" in out and "random" not in out
    feeds = np.load(tmp_path / "out" / "fc0.npy")
    assert feeds.shape == (3, 8)


def test_failing_graph_pass_names_the_node(monkeypatch) -> None:
    """graph-conv-layout made to fail on a conv whose input is computed (the second one):
    the replay names the pass, the prefixes the node; an unsupported op is the frontend's."""
    from minitvm.passes.graph.conv_layout import ConvLayoutPass

    apply = ConvLayoutPass.apply

    def fails_on_second_conv(self, ctx, module):  # noqa: ANN001, ANN202
        for op in module.walk():
            if isinstance(op, graph.ConvOp) and not isinstance(op.operands[0].owner, Block):
                raise RuntimeError("injected graph-conv-layout failure")
        return apply(self, ctx, module)

    monkeypatch.setattr(ConvLayoutPass, "apply", fails_on_second_conv)
    with pytest.raises(CompileFailure) as info:
        debug(_conv_bn_relu(), None, OPTIONS)
    failure = info.value
    assert (failure.pass_name, failure.stage) == ("graph-conv-layout", "graph passes")
    assert failure.node is not None and failure.node.name == "conv2"
    assert str(failure).startswith("node 'conv2' (Conv) fails to compile in pass graph-conv-layout")

    monkeypatch.setattr(ConvLayoutPass, "apply", apply)
    model = _conv_bn_relu()
    model.graph.node[4].op_type = "NoSuchOp"
    with pytest.raises(CompileFailure, match=r"^node 'bn2' \(NoSuchOp\) .* pass frontend"):
        debug(model, None, OPTIONS)
