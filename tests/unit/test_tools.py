"""The command-line tools as a user meets them: exit codes, exact messages, files written.

The CLIs run as subprocesses (`python -m minitvm.tools.<tool>`), as from a shell; tests of
how minitvm-opt reports a failing pass run it in-process with a test pass registered.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from minitvm.errors import MinitvmError
from minitvm.passes.registry import all_passes
from minitvm.tools import minitvm_opt

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
BIN = Path(sys.executable).parent

VERIFY_ERROR_IR = """\
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  %0 = graph.relu %a : tensor<2x3xf32>
  %1 = graph.add %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  func.return %1 : tensor<2x4xf32>
}
"""

GOOD_IR = """\
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.relu %a : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
"""


def run(tool: str, *args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    module = {"minitvm": "minitvm.tools.cli", "minitvm-opt": "minitvm.tools.minitvm_opt"}[tool]
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        input=stdin,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )


def assert_fails(result: subprocess.CompletedProcess[str], stderr: str) -> None:
    assert "Traceback" not in result.stderr
    assert result.stderr == stderr
    assert result.returncode == 1


def save_model(
    path: Path,
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
) -> Path:
    graph = helper.make_graph(nodes, "test", inputs, outputs)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def relu_model(path: Path, dims: list[int | str]) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)
    return save_model(path, [helper.make_node("Relu", ["x"], ["y"])], [x], [y])


def leftovers(directory: Path) -> list[str]:
    """Temporary files an atomic write would leave behind if it failed to clean up."""
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


# ------------------------------------------------------------------------------ minitvm-opt


def test_parse_error_points_at_the_unknown_op(tmp_path: Path):
    path = tmp_path / "bad.mlir"
    path.write_text(GOOD_IR.replace("graph.relu", "graph.rleu"))
    assert_fails(
        run("minitvm-opt", path),
        f"{path}:2:8: error: Operation graph.rleu is not registered\n"
        "  %0 = graph.rleu %a : tensor<2x3xf32>\n"
        "       ^\n",
    )


def test_syntax_error_names_file_line_and_column(tmp_path: Path):
    path = tmp_path / "bad.mlir"
    path.write_text(GOOD_IR.replace("%a : tensor<2x3xf32>\n", "%a tensor<2x3xf32>\n"))
    result = run("minitvm-opt", path)
    assert_fails(result, result.stderr)
    assert result.stderr.startswith(f"{path}:2:")
    assert ": error: " in result.stderr.splitlines()[0]


def test_parse_error_on_stdin_is_located_in_stdin():
    result = run("minitvm-opt", stdin=GOOD_IR.replace("graph.relu", "graph.rleu"))
    assert_fails(result, result.stderr)
    assert result.stderr.startswith("<stdin>:2:8: error: Operation graph.rleu is not registered\n")


def test_verify_error_points_at_the_failing_op(tmp_path: Path):
    path = tmp_path / "invalid.mlir"
    path.write_text(VERIFY_ERROR_IR)
    assert_fails(
        run("minitvm-opt", path),
        f"{path}:3:3: error: graph.add: result should be tensor<2x3xf32> but is declared "
        "tensor<2x4xf32>\n"
        "  %1 = graph.add %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>\n"
        "  ^\n",
    )


def test_verify_diagnostics_prints_the_message_and_succeeds(tmp_path: Path):
    path = tmp_path / "invalid.mlir"
    path.write_text(VERIFY_ERROR_IR)
    result = run("minitvm-opt", "--verify-diagnostics", path)
    assert result.returncode == 0
    assert result.stdout.startswith(
        "graph.add: result should be tensor<2x3xf32> but is declared tensor<2x4xf32>\n"
    )


def test_split_input_file_reports_lines_of_the_whole_file(tmp_path: Path):
    path = tmp_path / "split.mlir"
    path.write_text(GOOD_IR + "\n// -----\n\n" + VERIFY_ERROR_IR)
    result = run("minitvm-opt", "--split-input-file", path)
    assert result.stdout.count("graph.relu") == 1  # the first chunk was processed
    assert result.stderr.startswith(f"{path}:10:3: error: graph.add: result should be")
    assert result.returncode == 1


def test_unknown_pass_is_a_usage_error(tmp_path: Path):
    path = tmp_path / "ok.mlir"
    path.write_text(GOOD_IR)
    assert_fails(
        run("minitvm-opt", path, "-p", "graph-nonsense"),
        "minitvm-opt: error: invalid pass pipeline 'graph-nonsense': "
        "Unrecognized passes: ['graph-nonsense']\n",
    )


def test_missing_input_file(tmp_path: Path):
    path = tmp_path / "nope.mlir"
    assert_fails(
        run("minitvm-opt", path), f"minitvm-opt: error: {path}: No such file or directory\n"
    )


def test_binary_input_is_rejected_cleanly():
    path = LIGHT / "light_squeezenet.onnx"
    assert_fails(
        run("minitvm-opt", path),
        f"minitvm-opt: error: {path} is not MLIR text (to read an ONNX model, use "
        "`minitvm import`)\n",
    )


def test_output_file_is_written_whole(tmp_path: Path):
    source, out = tmp_path / "ok.mlir", tmp_path / "out.mlir"
    source.write_text(GOOD_IR)
    result = run("minitvm-opt", source, "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "graph.relu %a : tensor<2x3xf32>" in out.read_text()
    assert out.stat().st_mode & 0o777 == 0o666 & ~current_umask()
    assert leftovers(tmp_path) == []


def test_output_file_is_untouched_on_error(tmp_path: Path):
    source, out = tmp_path / "invalid.mlir", tmp_path / "out.mlir"
    source.write_text(GOOD_IR + "\n// -----\n\n" + VERIFY_ERROR_IR)
    out.write_text("previous result\n")
    result = run("minitvm-opt", "--split-input-file", source, "-o", out)
    assert result.returncode == 1
    assert out.read_text() == "previous result\n"  # not even the first chunk's output
    assert leftovers(tmp_path) == []
    fresh = tmp_path / "fresh.mlir"
    assert run("minitvm-opt", source, "-o", fresh).returncode == 1
    assert not fresh.exists()


def test_output_into_missing_directory(tmp_path: Path):
    source, out = tmp_path / "ok.mlir", tmp_path / "no" / "out.mlir"
    source.write_text(GOOD_IR)
    assert_fails(
        run("minitvm-opt", source, "-o", out),
        f"minitvm-opt: error: {out}: No such file or directory\n",
    )


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_console_scripts_are_installed():
    for script in ("minitvm", "minitvm-opt"):
        result = subprocess.run(
            [BIN / script, "--help"], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stderr
        assert "usage:" in result.stdout


# ------------------------------------------------------------------------------ passes


@dataclass(frozen=True)
class RaisesPass(ModulePass):
    name = "test-raises"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise MinitvmError("cannot fold this model: it is too clever")


@dataclass(frozen=True)
class BreaksIRPass(ModulePass):
    """Declares every relu's result 1 element wider: invalid IR from a buggy pass."""

    name = "test-breaks-ir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in op.walk():
            if inner.name == "graph.relu":
                Rewriter.replace_value_with_new_type(inner.results[0], TensorType(f32, [2, 4]))


@pytest.fixture
def test_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    passes = {
        **all_passes(),
        "test-raises": lambda: RaisesPass,
        "test-breaks-ir": lambda: BreaksIRPass,
    }
    monkeypatch.setattr(minitvm_opt, "all_passes", lambda: passes)


def test_minitvm_error_from_a_pass_is_one_clean_message(
    tmp_path: Path, test_passes: None, capsys: pytest.CaptureFixture[str]
):
    path = tmp_path / "ok.mlir"
    path.write_text(GOOD_IR)
    assert minitvm_opt.main([str(path), "-p", "test-raises"]) == 1
    assert capsys.readouterr().err == (
        f"{path}: error: cannot fold this model: it is too clever\n"
        "note: raised by pass 'test-raises'\n"
    )


def test_invalid_ir_from_a_pass_names_the_pass(
    tmp_path: Path, test_passes: None, capsys: pytest.CaptureFixture[str]
):
    path = tmp_path / "ok.mlir"
    path.write_text(GOOD_IR)
    assert minitvm_opt.main([str(path), "-p", "test-breaks-ir"]) == 1
    err = capsys.readouterr().err
    # The op keeps the location it was parsed at; the message is xDSL's type-constraint one.
    assert err.startswith(f"{path}:2:3: error: ")
    assert "tensor<2x4xf32>" in err
    assert err.endswith(
        "  %0 = graph.relu %a : tensor<2x3xf32>\n"
        "  ^\n"
        "note: in the IR produced by pass 'test-breaks-ir'\n"
    )


def test_registered_passes_resolve_to_their_names():
    for name, factory in all_passes().items():
        assert factory().name == name


def test_minitvm_opt_registers_minitvm_dialects_and_passes(tmp_path: Path):
    from minitvm.ir import minitvm_dialects

    path = tmp_path / "ok.mlir"
    path.write_text(GOOD_IR)
    driver = minitvm_opt.MinitvmOptMain(args=[str(path)])
    for dialect in minitvm_dialects():
        assert dialect.name in driver.ctx.registered_dialect_names
    assert set(all_passes()) <= set(driver.available_passes)


# ------------------------------------------------------------------------------ minitvm import


def test_import_unsupported_op(tmp_path: Path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])
    # A string op: out of minitvm's scope, so this stays unsupported.
    node = helper.make_node("StringNormalizer", ["x"], ["z"], name="mix")
    path = save_model(tmp_path / "strings.onnx", [node], [x], [z])
    result = run("minitvm", "import", path)
    assert_fails(result, result.stderr)
    assert result.stderr.startswith(
        "minitvm: error: node 'mix' (StringNormalizer, opset 13): unsupported op StringNormalizer;"
        " supported ops: "
    )
    assert result.stderr.count("\n") == 1
    assert result.stdout == ""


def test_import_missing_file(tmp_path: Path):
    path = tmp_path / "nope.onnx"
    assert_fails(
        run("minitvm", "import", path), f"minitvm: error: {path}: No such file or directory\n"
    )


def test_import_not_an_onnx_file(tmp_path: Path):
    path = tmp_path / "model.onnx"
    path.write_text(GOOD_IR)
    assert_fails(
        run("minitvm", "import", path),
        f"minitvm: error: {path} is not an ONNX model (it does not parse as one)\n",
    )
    path.write_bytes(b"")
    assert_fails(
        run("minitvm", "import", path),
        f"minitvm: error: {path} is not an ONNX model (it has no graph)\n",
    )


def test_import_output_is_untouched_on_error(tmp_path: Path):
    out = tmp_path / "out.mlir"
    out.write_text("previous result\n")
    result = run("minitvm", "import", tmp_path / "nope.onnx", "-o", out)
    assert result.returncode == 1
    assert out.read_text() == "previous result\n"
    assert leftovers(tmp_path) == []


def test_import_input_shape_fixes_dynamic_dimensions(tmp_path: Path):
    path = relu_model(tmp_path / "relu.onnx", ["N", 4])
    out = tmp_path / "relu.mlir"
    result = run("minitvm", "import", path, "--input-shape", "x=3x4", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "graph.relu %x : tensor<3x4xf32>" in out.read_text()
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("bad", ["x", "x=", "=3x4", "x=3xa", "x=-1x4", "x=0..4x4", "x=5..4x4", "x=3x"])
def test_import_input_shape_syntax(tmp_path: Path, bad: str):
    result = run("minitvm", "import", relu_model(tmp_path / "m.onnx", [3, 4]), "--input-shape", bad)
    assert result.returncode == 2
    assert (
        "expected NAME=D0xD1x... with dimensions that are sizes (>= 0), ? or ranges lo..hi "
        f"(1 <= lo <= hi), got '{bad}'"
    ) in result.stderr


def test_import_input_shape_keeps_or_bounds_a_dimension(tmp_path: Path):
    """`?` leaves a dimension as the model has it, `lo..hi` bounds it (both symbolic)."""
    path = relu_model(tmp_path / "relu.onnx", ["N", "M"])
    out = tmp_path / "relu.mlir"
    result = run("minitvm", "import", path, "--input-shape", "x=?x1..8", "-o", out)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert 'graph.relu %x : tensor<?x?xf32, #graph.dims<"N", "M">>' in text
    assert 'minitvm.dim_bounds = {M = "1..8"}' in text


# ------------------------------------------------------------------------------ round trips


@pytest.fixture(scope="module")
def squeezenet_ir() -> dict[str, str]:
    model = LIGHT / "light_squeezenet.onnx"
    texts = {}
    for form, flags in (("custom", []), ("generic", ["--generic"])):
        result = run("minitvm", "import", model, *flags)
        assert result.returncode == 0, result.stderr
        texts[form] = result.stdout
    return texts


def test_import_output_passes_through_minitvm_opt_unchanged(squeezenet_ir: dict[str, str]):
    text = squeezenet_ir["custom"]
    assert "graph.conv" in text
    assert run("minitvm-opt", stdin=text).stdout == text


def test_generic_import_output_passes_through_minitvm_opt_unchanged(
    squeezenet_ir: dict[str, str],
):
    text = squeezenet_ir["generic"]
    assert '"graph.conv"' in text
    assert run("minitvm-opt", "--print-op-generic", stdin=text).stdout == text
    assert run("minitvm-opt", stdin=text).stdout == squeezenet_ir["custom"]


def test_custom_form_parses_to_the_same_ir(squeezenet_ir: dict[str, str]):
    generic = run("minitvm-opt", "--print-op-generic", stdin=squeezenet_ir["custom"]).stdout
    assert generic == squeezenet_ir["generic"]
