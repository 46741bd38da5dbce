"""examples/c as a user meets them: export a model, `make MODEL=model.so`, run run_model (C)
and run_model_cpp (C++) on .npy files, and check what they save against ONNX Runtime.

Two models: examples/mlp.onnx (exported with `--weights file`, so that the weights file
beside the library and `--weights` are both used) and a tiny one built here with two inputs
of different dtypes (float32, int64) and two outputs (float32, bool) named "out/0" and
"out:0": both become out_0 in a file name, so --output-dir must name them as `minitvm run
--output-dir` does (out_0.npy, out_0_2.npy) for the two directories to compare file by
file, which is what the README tells users to do. The programs run as subprocesses with a
timeout, so a program that hangs (in minitvm_destroy, say) fails its test instead of the
whole run.

Without make or a C/C++ compiler the module is skipped, except under CI (`CI=true`), where
that is a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.bench.models import with_dynamic_dims
from minitvm.runtime.ort import ort_session
from minitvm.tools.commands.run import save_outputs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "c"
MLP = ROOT / "examples" / "mlp.onnx"
RTOL, ATOL = 1e-4, 1e-5
#: Each run takes milliseconds; this only bounds a hang.
TIMEOUT_S = 20
PROGRAMS = ("run_model", "run_model_cpp")

MISSING = [
    tool
    for tool in ("make", os.environ.get("CC") or "cc", os.environ.get("CXX") or "c++")
    if shutil.which(tool.split()[0]) is None
]
if MISSING and os.environ.get("CI") != "true":
    pytest.skip(f"examples/c needs {', '.join(MISSING)}", allow_module_level=True)


def two_io_model() -> onnx.ModelProto:
    """out/0 = Gather(x, indices, axis=1) * w; out:0 = Gather(...) > 0."""
    gathered = helper.make_node("Gather", ["x", "indices"], ["g"], axis=1)
    scale = helper.make_node("Mul", ["g", "w"], ["out/0"])
    compare = helper.make_node("Greater", ["g", "zero"], ["out:0"])
    graph = helper.make_graph(
        [gathered, scale, compare],
        "two_io",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("indices", TensorProto.INT64, [2]),
        ],
        [
            helper.make_tensor_value_info("out/0", TensorProto.FLOAT, [2, 2]),
            helper.make_tensor_value_info("out:0", TensorProto.BOOL, [2, 2]),
        ],
        initializer=[
            numpy_helper.from_array(np.array([0.5, -3.0], np.float32), "w"),
            numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def found_size_model() -> onnx.ModelProto:
    """where = NonZero(x > 0) and the positive values (Compress): outputs whose sizes the
    model finds as it runs, which the programs take from minitvm_run_alloc."""
    nodes = [
        helper.make_node("Greater", ["x", "zero"], ["positive"]),
        helper.make_node("NonZero", ["positive"], ["where"]),
        helper.make_node("Compress", ["x", "positive"], ["values"]),
    ]
    graph = helper.make_graph(
        nodes, "found",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("where", TensorProto.INT64, [1, None]),
         helper.make_tensor_value_info("values", TensorProto.FLOAT, [None])],
        initializer=[numpy_helper.from_array(np.array(0.0, np.float32), "zero")],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def sample_inputs(name: str) -> list[np.ndarray]:
    if name == "mlp":
        return [np.random.default_rng(0).standard_normal((1, 784)).astype(np.float32)]
    if name == "mlp_dynamic":  # a batch the library learns from the input's shape
        return [np.random.default_rng(0).standard_normal((3, 784)).astype(np.float32)]
    if name == "found":
        return [np.random.default_rng(0).standard_normal(300).astype(np.float32)]
    # signs chosen so that out:0 is [[False, True], [True, False]]: an all-True (or all-False)
    # bool output would pass for a wrong one
    x = np.array([[1.5, -2.0, 0.25], [-0.5, 3.0, -1.25]], np.float32)
    return [x, np.array([1, 0], np.int64)]


@dataclass(frozen=True)
class Built:
    """One exported model and the example programs built against it."""

    model: onnx.ModelProto
    library: Path
    build: Path
    inputs: list[Path]  # sample_inputs(name) as .npy files

    def program(self, program: str) -> Path:
        return self.build / program


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    assert not MISSING, f"CI must have {', '.join(MISSING)} for examples/c"
    result = {}
    for name, model, weights in (
        ("mlp", onnx.load(MLP), "file"),
        ("two_io", two_io_model(), "embed"),
        ("mlp_dynamic", with_dynamic_dims(onnx.load(MLP), {"image": ["batch", None]}), "embed"),
        ("found", found_size_model(), "embed"),
    ):
        directory = tmp_path_factory.mktemp(name)
        library = directory / f"{name}.so"
        # 2 threads: the MLP gets parallel loops, so that --threads changes something
        minitvm.compile(model, num_threads=2).export(str(library), weights=weights)
        build = directory / "build"
        done = subprocess.run(
            ["make", "-s", "-f", str(EXAMPLES / "Makefile"), f"MODEL={library}", f"BUILD={build}"],
            capture_output=True, text=True, check=False, cwd=directory, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stderr == "", f"the examples build with warnings:\n{done.stderr}"
        files = []
        for i, array in enumerate(sample_inputs(name)):
            files.append(directory / f"input{i}.npy")
            # the second input in format 2.0 (4-byte header length), as np.save writes for
            # huge headers: npy.h reads both
            with open(files[-1], "wb") as f:
                np.lib.format.write_array(f, array, version=(2, 0) if i else (1, 0))
        result[name] = Built(model, library, build, files)
    return result


def run(program: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [str(program), *map(str, args)], capture_output=True, text=True, check=False,
            timeout=TIMEOUT_S,
        )  # fmt: skip
    except subprocess.TimeoutExpired as e:
        # the partial output comes back as bytes (or None) even with text=True
        said = [
            o.decode(errors="replace") if isinstance(o, bytes) else o or ""
            for o in (e.stdout, e.stderr)
        ]
        pytest.fail(f"{program.name} {' '.join(map(str, args))} did not exit in {TIMEOUT_S} s; "
                    f"stdout:\n{said[0]}\nstderr:\n{said[1]}")  # fmt: skip


def assert_match_ort(
    model: onnx.ModelProto, inputs: Sequence[np.ndarray], directory: Path
) -> list[np.ndarray]:
    """ONNX Runtime's outputs, saved as `minitvm run --output-dir` saves them, against the
    files in `directory` (the same names, dtypes, shapes and values); ours, in order."""
    feeds = {i.name: array for i, array in zip(model.graph.input, inputs)}
    want = ort_session(model, num_threads=1)(feeds)
    reference = directory.parent / f"{directory.name}-ort"
    files = save_outputs(str(reference), [o.name for o in model.graph.output], want)
    assert sorted(os.listdir(directory)) == sorted(files)
    got = [np.load(directory / file) for file in files]
    for file, g, w in zip(files, got, want):
        assert (g.dtype, g.shape) == (w.dtype, w.shape), file
        if w.dtype == np.bool_:
            np.testing.assert_array_equal(g, w, err_msg=file)
        else:
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=file)
    return got


def mlp_logits(directory: Path) -> np.ndarray:
    return np.load(directory / "logits.npy")


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("name", ["mlp", "two_io", "mlp_dynamic", "found"])
def test_outputs_match_ort(
    built: dict[str, Built], name: str, program: str, tmp_path: Path
) -> None:
    b = built[name]
    done = run(b.program(program), "--output-dir", tmp_path / "out", *b.inputs)
    assert done.returncode == 0, done.stderr
    got = assert_match_ort(b.model, sample_inputs(name), tmp_path / "out")
    # what it prints: name, dtype, shape and the first values of each output
    for i, (output, array) in enumerate(zip(b.model.graph.output, got)):
        shape = ", ".join(map(str, array.shape))
        line = re.search(rf"^output {i} {re.escape(output.name)}: {array.dtype}\[{shape}\] = \[(.*)\]$",
                         done.stdout, re.MULTILINE)  # fmt: skip
        assert line, done.stdout
        first = line.group(1).removesuffix(", ...").split(", ")
        assert len(first) == min(8, array.size)
        if array.dtype == np.bool_:
            assert first == [str(v).lower() for v in array.reshape(-1)[:8]]
        else:
            np.testing.assert_allclose([float(v) for v in first], array.reshape(-1)[:8], rtol=1e-6)


@pytest.mark.parametrize("program", PROGRAMS)
def test_threads_give_the_same_outputs(
    built: dict[str, Built], program: str, tmp_path: Path
) -> None:
    b = built["mlp"]
    outputs = []
    for threads in (1, 2):
        directory = tmp_path / f"threads{threads}"
        done = run(
            b.program(program), "--threads", str(threads), "--output-dir", directory, *b.inputs
        )
        assert done.returncode == 0, done.stderr
        outputs.append(mlp_logits(directory))
    # each element is computed by one thread whatever the split: bit for bit the same
    np.testing.assert_array_equal(outputs[0], outputs[1])


@pytest.mark.parametrize("program", PROGRAMS)
def test_wrong_input_count_fails(built: dict[str, Built], program: str) -> None:
    mlp, two_io = built["mlp"], built["two_io"]
    done = run(mlp.program(program), *mlp.inputs, *mlp.inputs)
    assert done.returncode == 1
    assert f"{program}: the model has 1 input (image), got 2 .npy files" in done.stderr
    done = run(two_io.program(program), two_io.inputs[0])
    assert done.returncode == 1
    assert f"{program}: the model has 2 inputs (x, indices), got 1 .npy file" in done.stderr


@pytest.mark.parametrize("program", PROGRAMS)
def test_wrong_shape_or_dtype_fails_with_the_library_message(
    built: dict[str, Built], program: str, tmp_path: Path
) -> None:
    b = built["two_io"]
    _, indices = sample_inputs("two_io")
    np.save(tmp_path / "wide.npy", np.zeros((2, 4), np.float32))
    np.save(tmp_path / "int32.npy", indices.astype(np.int32))
    # (the programs ask minitvm_output_shape first, which checks the inputs as minitvm_run does)
    for files, message in (
        ([tmp_path / "wide.npy", b.inputs[1]], "minitvm_output_shape: input 'x' has shape 2x4, the model's is 2x3"),
        (
            [b.inputs[0], tmp_path / "int32.npy"],
            "minitvm_output_shape: input 'indices' has dtype 6 (int32), the model's is 7 (int64)",
        ),
    ):  # fmt: skip
        done = run(b.program(program), "--output-dir", tmp_path / "out", *files)
        assert (done.returncode, done.stderr) == (1, f"{program}: {message}\n")
        assert not (tmp_path / "out").exists()  # nothing written for a run that failed


@pytest.mark.parametrize("program", PROGRAMS)
def test_unreadable_npy_fails(built: dict[str, Built], program: str, tmp_path: Path) -> None:
    b = built["mlp"]
    np.save(tmp_path / "fortran.npy", np.asfortranarray(np.zeros((2, 392), np.float32)))
    done = run(b.program(program), tmp_path / "fortran.npy")
    assert done.returncode == 1
    assert "fortran.npy: the array is in Fortran order; save it in C order" in done.stderr
    done = run(b.program(program), tmp_path / "missing.npy")
    assert done.returncode == 1
    assert "missing.npy: No such file or directory" in done.stderr


def test_repeat_prints_median_and_min(built: dict[str, Built]) -> None:
    b = built["mlp"]
    done = run(b.program("run_model"), "--repeat", "5", *b.inputs)
    assert done.returncode == 0, done.stderr
    latency = re.search(
        r"^latency over 5 runs: median (\d+\.\d+) ms, min (\d+\.\d+) ms$", done.stdout, re.MULTILINE
    )
    assert latency, done.stdout
    assert float(latency.group(2)) <= float(latency.group(1))


def test_weights_option(built: dict[str, Built], tmp_path: Path) -> None:
    b = built["mlp"]
    weights = b.library.with_suffix(".weights")
    assert weights.is_file()  # exported with weights="file"
    moved = tmp_path / "elsewhere.weights"
    shutil.copy(weights, moved)
    done = run(
        b.program("run_model"), "--weights", moved, "--output-dir", tmp_path / "out", *b.inputs
    )
    assert done.returncode == 0, done.stderr
    assert_match_ort(b.model, sample_inputs("mlp"), tmp_path / "out")
    done = run(b.program("run_model"), "--weights", tmp_path / "missing.weights", *b.inputs)
    assert done.returncode == 1
    assert f"run_model: cannot open the weights file {tmp_path / 'missing.weights'}" in done.stderr
