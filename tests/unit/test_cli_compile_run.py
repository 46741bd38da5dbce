"""`minitvm compile` and `minitvm run` as a user meets them: exit codes, what they print,
the one-line errors, and the files `--output-dir` writes.

The commands run as subprocesses (`python -m minitvm.tools.cli`), as from a shell, on
examples/mlp.onnx (compiles in a fraction of a second) and tiny models built here. Paths that
need a controlled ONNX Runtime (a mismatch, ORT missing) or a failing write run in-process.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from minitvm.runtime import timing
from minitvm.tools import cli
from minitvm.tools.commands import run as run_command
from minitvm.tools.options import CommandError

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.onnx"
BIN = Path(sys.executable).parent


def minitvm(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "minitvm.tools.cli", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=cwd,
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


def add_model(path: Path, dims: list[int | str], out: str = "sum") -> Path:
    """sum = a + b, both float32 with shape `dims`."""
    a, b = (helper.make_tensor_value_info(n, TensorProto.FLOAT, dims) for n in "ab")
    y = helper.make_tensor_value_info(out, TensorProto.FLOAT, dims)
    return save_model(path, [helper.make_node("Add", ["a", "b"], [out])], [a, b], [y])


def mlp_reference(x: np.ndarray) -> np.ndarray:
    """examples/mlp.onnx computed with numpy from its own weights."""
    w = {i.name: numpy_helper.to_array(i) for i in onnx.load(MLP).graph.initializer}
    hidden = np.maximum(x @ w["fc0.weight"].T + w["fc0.bias"], 0)
    return hidden @ w["fc1.weight"].T + w["fc1.bias"]


def npy(path: Path, array: np.ndarray) -> Path:
    np.save(path, array)
    return path


def leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


# ------------------------------------------------------------------------------ the example


def test_example_model_is_what_make_mlp_writes(tmp_path: Path) -> None:
    out = tmp_path / "mlp.onnx"
    subprocess.run(
        [sys.executable, ROOT / "examples" / "make_mlp.py", "-o", out],
        check=True,
        capture_output=True,
    )
    assert out.read_bytes() == MLP.read_bytes()
    assert MLP.stat().st_size < 1.5e6


def test_readme_first_command_passes() -> None:
    """The README's first command, after the install, runs as written (from the repo root)."""
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"```sh\n(.*?)\n```", readme, re.DOTALL)
    assert first is not None
    command = first.group(1).split("&&")[-1].strip()
    assert command == "minitvm run examples/mlp.onnx --compare-ort"
    argv = shlex.split(command)
    result = subprocess.run(
        [BIN / argv[0], *argv[1:]], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "PASS" in result.stdout and "FAIL" not in result.stdout


# ------------------------------------------------------------------------------ compile


def test_compile_prints_stage_times_and_op_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINITVM_CACHE_DIR", str(tmp_path))  # cold: every kernel compiled
    result = minitvm("compile", MLP)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert re.fullmatch(
        rf"compiled {re.escape(str(MLP))} in \d+\.\d\d s \(-O3, \d+ threads?\)", lines[0]
    )
    assert lines[1:3] == ["  input image: float32[1, 784]", "  output logits: float32[1, 10]"]
    rows = {}
    for line in lines:
        match = re.fullmatch(r"(\S.*?)\s+(\d+\.\d{3})\s+(\d+\.\d)%", line)
        if match:
            rows[match[1]] = (float(match[2]), float(match[3]))
    stages = list(rows)[:-1]  # the compiler's own stage names, in order
    assert stages[:2] == ["load", "import"] and stages[-1] == "LLVM + JIT"
    assert {"graph -> te", "key kernels", "compile kernels", "main -> llvm"} <= set(stages)
    kernel_stages = dict(re.findall(r"^(te -> loop|loop -> llvm|LLVM)\s+(\d+\.\d{3})$", result.stdout, re.M))
    assert list(kernel_stages) == ["te -> loop", "loop -> llvm", "LLVM"]
    assert all(float(seconds) > 0 for seconds in kernel_stages.values())
    assert list(rows)[-1] == "total"
    assert rows["total"][0] == pytest.approx(sum(s for s, _ in list(rows.values())[:-1]), abs=0.01)
    assert rows["total"][1] == 100.0
    counts = dict(re.findall(r"^(graph|te|loop|llvm)\s+(\d+)$", result.stdout, re.MULTILINE))
    assert list(counts) == ["graph", "te", "loop", "llvm"]
    # Each lowering spells the model out in more ops, up to the loop nests; the llvm count may
    # be lower than the loop one (unrolled register blocks' index arithmetic folds into GEPs).
    assert 0 < int(counts["graph"]) < int(counts["te"]) < int(counts["loop"])
    assert int(counts["llvm"]) > 0


def test_compile_options(tmp_path: Path) -> None:
    result = minitvm(
        "compile",
        add_model(tmp_path / "add.onnx", ["n", 4]),
        "--input-shape",
        "a=3x4",
        "-O",
        "0",
        "--num-threads",
        "2",
    )
    assert result.returncode == 0, result.stderr
    assert "(-O0, 2 threads)" in result.stdout.splitlines()[0]
    assert (
        "  input a: float32[3, 4]\n  input b: float32[3, 4]\n  output sum: float32[3, 4]\n"
        in result.stdout
    )


def test_compile_keeps_dynamic_dimensions_unless_given(tmp_path: Path) -> None:
    """A dimension the model leaves dynamic stays so (one compile for every size), within a
    range `--input-shape` gives; so does export's library."""
    path = add_model(tmp_path / "add.onnx", ["n", 4])
    result = minitvm("compile", path)
    assert result.returncode == 0, result.stderr
    assert "  input a: float32[n, 4]\n  input b: float32[n, 4]\n  output sum: float32[n, 4]\n" in result.stdout
    result = minitvm("run", path, "--input-shape", "a=2..9x4", "--repeat", "1")
    assert result.returncode == 0, result.stderr
    assert "sizes  n = 2 (dynamic: compiled for any size, run at the smallest;" in result.stdout
    exported = minitvm("export", path, "-o", str(tmp_path / "add.so"))  # a library for any n
    assert exported.returncode == 0, exported.stderr
    assert "float32[n, 4]" in (tmp_path / "add.h").read_text().replace("shape [n, 4]", "float32[n, 4]")
    # a dimension one input's shape fixes is fixed in every input that names it
    both = add_model(tmp_path / "add2.onnx", ["n", "m"])
    result = minitvm("run", both, "--input-shape", "a=3x?", "--repeat", "1")
    assert result.returncode == 0, result.stderr
    assert "sizes  m = 1 (dynamic" in result.stdout and "input  b: float32[3, 1]" in result.stdout
    bad = minitvm("compile", path, "--input-shape", "a=3x4..2")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.endswith(
        "minitvm compile: error: argument --input-shape: expected NAME=D0xD1x... with "
        "dimensions that are sizes (>= 0), ? or ranges lo..hi (1 <= lo <= hi), got 'a=3x4..2'\n"
    )
    assert_fails(
        minitvm("compile", path, "--input-shape", "c=1x4"),
        "minitvm: error: --input-shape c: the model has no input 'c'; its inputs are "
        "a: float32[n, 4]; b: float32[n, 4]\n",
    )


def test_compile_errors(tmp_path: Path) -> None:
    missing = tmp_path / "nope.onnx"
    assert_fails(
        minitvm("compile", missing), f"minitvm: error: {missing}: No such file or directory\n"
    )
    text = tmp_path / "model.onnx"
    text.write_text("not a model")
    assert_fails(
        minitvm("compile", text),
        f"minitvm: error: {text} is not an ONNX model (it does not parse as one)\n",
    )
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [2, 1])
    # A string op: out of minitvm's scope, so this stays unsupported.
    normalize = helper.make_node("StringNormalizer", ["x"], ["y"], name="pick")
    result = minitvm("run", save_model(tmp_path / "strings.onnx", [normalize], [x], [y]))
    assert_fails(result, result.stderr)
    assert result.stderr.startswith(
        "minitvm: error: node 'pick' (StringNormalizer, opset 13): unsupported op StringNormalizer"
    )
    assert result.stderr.count("\n") == 1


def test_usage_errors_exit_2() -> None:
    for args in (
        ["-O", "4"],
        ["--num-threads", "0"],
        ["--repeat", "0"],
        ["--warmup", "-1"],
        ["--input", "x"],
    ):
        command = "compile" if args[0] in ("-O", "--num-threads") else "run"
        result = minitvm(command, MLP, *args)
        assert result.returncode == 2, args
        assert f"minitvm {command}: error: argument" in result.stderr


# ------------------------------------------------------------------------------ run


def test_run_compare_ort_on_random_inputs() -> None:
    result = minitvm("run", MLP, "--compare-ort", "--repeat", "3", "--warmup", "0")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[1] == "input  image: float32[1, 784] random (not given with --input; seed 0)"
    assert re.fullmatch(
        r"output logits: float32\[1, 10\]  max abs err (\S+), max rel err (\S+)  PASS", lines[2]
    )
    assert re.fullmatch(r"latency over 3 runs \(0 warm-up, \d+ threads?\):", lines[3])
    assert re.fullmatch(r"  minitvm      median \d+\.\d{3} ms, min \d+\.\d{3} ms", lines[4])
    assert re.fullmatch(
        r"  onnxruntime  median \d+\.\d{3} ms, min \d+\.\d{3} ms  \(minitvm is \d+\.\d\dx (slower|faster)\)",
        lines[5],
    )
    assert len(lines) == 6


def test_run_times_a_small_model_many_times_by_default() -> None:
    """Without --repeat, a 20 us model is timed over far more than ten runs (ten runs' median
    moved by a fifth from one command to the next)."""
    result = minitvm("run", MLP, "--compare-ort")
    assert result.returncode == 0, result.stderr
    runs = re.search(r"latency over (\d+) runs \(1 warm-up", result.stdout)
    assert runs is not None, result.stdout
    assert timing.AUTO_MIN_RUNS < int(runs.group(1)) <= timing.AUTO_MAX_RUNS


def test_run_given_input_and_output_dir(tmp_path: Path) -> None:
    x = np.random.default_rng(5).standard_normal((1, 784), dtype=np.float32)
    out = tmp_path / "out" / "nested"
    result = minitvm(
        "run",
        MLP,
        "--input",
        f"image={npy(tmp_path / 'x.npy', x)}",
        "--output-dir",
        out,
        "--repeat",
        "1",
    )
    assert result.returncode == 0, result.stderr
    assert f"input  image: float32[1, 784] from {tmp_path / 'x.npy'}\n" in result.stdout
    assert "onnxruntime" not in result.stdout and "max abs err" not in result.stdout
    assert result.stdout.endswith(f"saved logits.npy in {out}\n")
    assert sorted(p.name for p in out.iterdir()) == ["logits.npy"]
    np.testing.assert_allclose(np.load(out / "logits.npy"), mlp_reference(x), rtol=1e-4, atol=1e-5)


def test_output_dir_replaces_files_whole_and_names_them_safely(tmp_path: Path) -> None:
    path = add_model(tmp_path / "add.onnx", [2, 3], out="gpu_0/sum:0")
    out = tmp_path / "out"
    out.mkdir()
    (out / "gpu_0_sum_0.npy").write_text("an older, longer file " * 100)
    a, b = np.ones((2, 3), np.float32), np.full((2, 3), 2, np.float32)
    result = minitvm(
        "run",
        path,
        "--input",
        f"a={npy(tmp_path / 'a.npy', a)}",
        "--input",
        f"b={npy(tmp_path / 'b.npy', b)}",
        "--output-dir",
        out,
        "--compare-ort",
    )
    assert result.returncode == 0, result.stderr
    assert "output gpu_0/sum:0: float32[2, 3]  max abs err 0, max rel err 0  PASS" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["gpu_0_sum_0.npy"]
    np.testing.assert_array_equal(np.load(out / "gpu_0_sum_0.npy"), a + b)


def test_output_dir_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert_fails(
        minitvm("run", MLP, "--output-dir", blocker, "--repeat", "1"),
        f"minitvm: error: --output-dir {blocker}: File exists\n",
    )
    # A write that dies halfway leaves the old file as it was, and no temporary file.
    out = tmp_path / "out"
    out.mkdir()
    (out / "y.npy").write_bytes(b"old")

    def dies(stream, array, allow_pickle):
        stream.write(b"\x93NUMPY partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "save", dies)
    with pytest.raises(CommandError, match=f"--output-dir {out}: y.npy: No space left on device"):
        run_command.save_outputs(str(out), ["y"], [np.zeros(3, np.float32)])
    assert (out / "y.npy").read_bytes() == b"old"
    assert leftovers(out) == []


def test_run_input_errors(tmp_path: Path) -> None:
    good = npy(tmp_path / "x.npy", np.zeros((1, 784), np.float32))
    wide = npy(tmp_path / "wide.npy", np.zeros((2, 784), np.float32))
    double = npy(tmp_path / "double.npy", np.zeros((1, 784)))
    garbage = tmp_path / "garbage.npy"
    garbage.write_text("hello")
    truncated = tmp_path / "truncated.npy"
    truncated.write_bytes(good.read_bytes()[:300])
    missing = tmp_path / "missing.npy"
    expects = "but the model expects float32[1, 784]"
    expect = {
        f"label={good}": "--input label: the model has no input 'label'; its inputs are "
        "image: float32[1, 784]",
        f"image={wide}": f"--input image: {wide} holds float32[2, 784] {expects}",
        f"image={double}": f"--input image: {double} holds float64[1, 784] {expects}",
        f"image={garbage}": f"--input image: {garbage} is not a .npy file (no NumPy header)",
        f"image={missing}": f"--input image: {missing}: No such file or directory",
    }
    for arg, message in expect.items():
        assert_fails(minitvm("run", MLP, "--input", arg), f"minitvm: error: {message}\n")
    result = minitvm("run", MLP, "--input", f"image={truncated}")
    assert_fails(result, result.stderr)
    assert result.stderr.startswith(
        f"minitvm: error: --input image: {truncated} is not a readable .npy file ("
    )
    assert_fails(
        minitvm("run", MLP, "--input", f"image={good}", "--input", f"image={good}"),
        "minitvm: error: --input image is given twice\n",
    )


def test_run_dynamic_input_takes_the_files_shape(tmp_path: Path) -> None:
    path = add_model(tmp_path / "add.onnx", ["n", 4])
    a = npy(tmp_path / "a.npy", np.ones((5, 4), np.float32))
    result = minitvm("run", path, "--input", f"a={a}", "--repeat", "1", "--seed", "7")
    assert result.returncode == 0, result.stderr
    assert f"input  a: float32[5, 4] from {a}\n" in result.stdout
    assert "input  b: float32[5, 4] random (not given with --input; seed 7)\n" in result.stdout
    assert "output sum: float32[5, 4]\n" in result.stdout
    assert_fails(
        minitvm("run", path, "--input", f"a={a}", "--input-shape", "a=6x4"),
        f"minitvm: error: --input a: {a} holds float32[5, 4] but the model expects float32[6, 4]\n",
    )
    result = minitvm("run", path, "--input", f"a={a}", "--input-shape", "a=?x4", "--repeat", "1")
    assert result.returncode == 0, result.stderr  # a file's size, n left dynamic in the compile
    assert "output sum: float32[5, 4]\n" in result.stdout and "sizes" not in result.stdout
    result = minitvm("run", path, "--repeat", "1", "--compare-ort")
    assert result.returncode == 0, result.stderr
    assert "sizes  n = 1 (dynamic: compiled for any size, run at the smallest;" in result.stdout
    assert "output sum: float32[1, 4]  max abs err 0, max rel err 0  PASS\n" in result.stdout


def test_run_mismatch_fails_with_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output ONNX Runtime disagrees with is FAIL, named on stderr; the others PASS, and
    the outputs are still saved."""
    path = tmp_path / "two.onnx"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("r", "n")]
    save_model(
        path,
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["x"], ["n"])],
        [x],
        outs,
    )

    def off_by_some(model: onnx.ModelProto, num_threads: int):
        assert num_threads == 2
        return lambda feeds: [np.maximum(feeds["x"], 0), -feeds["x"] + np.float32(0.01)]

    monkeypatch.setattr(run_command, "ort_session", off_by_some)
    code = cli.main(
        [
            "run",
            str(path),
            "--compare-ort",
            "--num-threads",
            "2",
            "--repeat",
            "2",
            "--output-dir",
            str(tmp_path / "out"),
        ]
    )
    stdout, stderr = capsys.readouterr()
    assert code == 1
    assert "output r: float32[2, 3]  max abs err 0, max rel err 0  PASS\n" in stdout
    assert re.search(
        r"output n: float32\[2, 3\]  max abs err 0\.01, max rel err \S+  FAIL\n", stdout
    )
    assert (
        stderr
        == "minitvm: error: 1 of 2 outputs differ from ONNX Runtime's (rtol 0.001, atol 0.0001): n\n"
    )
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["n.npy", "r.npy"]
    # Looser tolerances make it pass.
    code = cli.main(["run", str(path), "--compare-ort", "--num-threads", "2", "--atol", "0.02"])
    assert code == 0 and "FAIL" not in capsys.readouterr().out


def test_compare_counts_nan_and_shape_mismatches() -> None:
    a = np.array([1.0, np.nan, 3.0], np.float32)
    assert run_command.compare(a, a.copy(), 1e-3, 1e-4) == (0.0, 0.0, True)
    assert run_command.compare(a, np.array([1.0, 2.0, 3.0], np.float32), 1e-3, 1e-4)[2] is False
    assert run_command.compare(a, a[:2], 1e-3, 1e-4) == (float("inf"), float("inf"), False)
    abs_err, rel_err, passed = run_command.compare(
        np.array([1.0, 2.001]), np.array([1.0, 2.0]), 1e-3, 1e-4
    )
    assert abs_err == pytest.approx(1e-3) and rel_err == pytest.approx(5e-4) and passed


def test_compare_takes_equal_infinities_as_exact() -> None:
    """NaN/Inf weights give infinite outputs; inf - inf is NaN, which once made them FAIL."""
    inf = np.float32(np.inf)
    a = np.array([inf, -inf, np.nan, 1.0], np.float32)
    assert run_command.compare(a, a.copy(), 1e-3, 1e-4) == (0.0, 0.0, True)
    flipped = np.array([-inf, -inf, np.nan, 1.0], np.float32)
    assert run_command.compare(a, flipped, 1e-3, 1e-4) == (float("inf"), float("inf"), False)
    finite = np.array([1.0, -inf, np.nan, 1.0], np.float32)
    assert run_command.compare(finite, a, 1e-3, 1e-4) == (float("inf"), float("inf"), False)


def test_compare_ort_without_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(
        CommandError, match="--compare-ort needs ONNX Runtime: pip install onnxruntime"
    ):
        run_command.reference_session(onnx.load(MLP), 1)


def test_compile_prints_the_pipeline_it_runs(tmp_path: Path) -> None:
    from minitvm.pipeline import compile_stages, pipeline_spec

    result = minitvm("compile", MLP, "--print-pipeline", "--num-threads", "2", "-O", "1")
    assert result.returncode == 0, result.stderr
    assert result.stdout == pipeline_spec(compile_stages(1, num_threads=2)) + "\n"
    assert result.stdout.startswith(
        "graph-widen-bf16,graph-canonicalize,graph-dce,convert-graph-to-te,"
    )
    records = f"sqlite:///{tmp_path}/r.db"
    out = tmp_path / "pipeline.txt"
    tuned = minitvm("compile", MLP, "--print-pipeline", "--records", records, "--num-threads",
                    "2", "-o", out)  # fmt: skip
    assert tuned.returncode == 0 and tuned.stdout == "", tuned.stderr
    assert f'te-apply-records{{records="{records}" threads=2}}' in out.read_text()
    assert f'graph-winograd{{records="{records}" threads=2}}' in out.read_text()


def test_compile_emits_the_llvm_ir_it_builds(tmp_path: Path) -> None:
    from minitvm.compiler import llvm_ir

    out = tmp_path / "mlp.ll"
    result = minitvm("compile", MLP, "--emit-llvm", "--num-threads", "1", "-o", out)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert text == llvm_ir(str(MLP), num_threads=1)
    assert 'define void @"main"(ptr' in text  # the entry ABI: main(io, consts, arena)
    error = "minitvm: error: -o is for --print-pipeline or --emit-llvm output\n"
    assert_fails(minitvm("compile", MLP, "-o", out), error)
