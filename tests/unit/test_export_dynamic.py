"""`minitvm export` of a model compiled with sizes known only at run time: one library runs
every size, computes what the JIT computes at each, tells its callers the shapes (-1 in
input/output info, `minitvm_output_shape` for a run's), grows its arena to the largest run,
and refuses what `Executable.run` refuses with the same messages (a size out of its bound,
two inputs that disagree on a size)."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import models
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from test_data_dependent import make_model
from test_export import ECHECK, EINVAL, Api, tensors

import minitvm
from minitvm.bench.models import mlp, with_dynamic_dims
from minitvm.errors import MinitvmError

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler")  # fmt: skip


def _random(shape: tuple[int, ...], seed: int = 0, dtype: type = np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_one_library_runs_every_batch_size(tmp_path: Path) -> None:
    exe = minitvm.compile(with_dynamic_dims(mlp(), {"x": ["batch", None]}), num_threads=2)
    exe.export(str(tmp_path / "mlp.so"))
    lib = minitvm.load(tmp_path / "mlp.so", num_threads=2)
    assert [len(s.shape) for s in lib.inputs] == [2] and not lib.inputs[0].is_static
    assert lib.outputs[0].shape[1] == exe.outputs[0].shape[1]
    for batch in (3, 64, 1, 200, 7):  # bigger, smaller, biggest (the arena grows), smaller
        x = {"x": _random((batch, 784), batch)}
        (want,), (got,) = exe.run(x), lib.run(x)
        assert got.shape == want.shape == (batch, 10)
        np.testing.assert_array_equal(got, want)
    header = (tmp_path / "mlp.h").read_text()
    assert "shape [batch, 784]" in header and "minitvm_output_shape" in header


def test_the_c_api_of_a_library_of_run_time_sizes(tmp_path: Path) -> None:
    """-1 in the info calls; `minitvm_output_shape` for given inputs, and its errors."""
    exe = minitvm.compile(with_dynamic_dims(mlp(), {"x": ["batch", None]}), num_threads=1)
    exe.export(str(tmp_path / "mlp.so"))
    api = Api(tmp_path / "mlp.so")
    model = api.create()
    dtype, ndim, shape = ctypes.c_int32(), ctypes.c_int32(), (ctypes.c_int64 * 8)()
    assert api.input_info(model, 0, ctypes.byref(dtype), ctypes.byref(ndim), shape) == 0
    assert list(shape[: ndim.value]) == [-1, 784]
    assert api.output_info(model, 0, ctypes.byref(dtype), ctypes.byref(ndim), shape) == 0
    assert list(shape[: ndim.value]) == [-1, 10]
    x = _random((5, 784))
    inputs, _keep = tensors([x], [1])
    assert api.output_shape(model, inputs, 1, 0, shape) == 0 and list(shape[:2]) == [5, 10]
    cases = [
        (lambda: api.output_shape(None, inputs, 1, 0, shape), "the model is NULL"),
        (lambda: api.output_shape(model, inputs, 1, 1, shape), "no output 1 (the model has 1)"),
        (lambda: api.output_shape(model, inputs, 1, 0, None), "`shape` is NULL"),
        (lambda: api.output_shape(model, inputs, 2, 0, shape), "got 2 inputs, the model has 1"),
    ]
    for call, message in cases:
        assert call() == EINVAL and message in api.error()
    narrow, _keep_narrow = tensors([_random((5, 700))], [1])
    assert api.output_shape(model, narrow, 1, 0, shape) == EINVAL
    assert "input 'x' has shape 5x700, the model's is ?x784" in api.error()
    api.destroy(model)


def test_sizes_that_are_expressions_of_the_inputs(tmp_path: Path) -> None:
    """A strided conv on an image of any size: the output's height is floordiv(h - 1, 2) + 1,
    which the library computes in C with floor division, as the JIT does."""
    net = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
        "strided",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, "h", "w_"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, None, None])],
        [onnx.numpy_helper.from_array(_random((8, 4, 3, 3), 1), "w")],
    )
    model = helper.make_model(net, opset_imports=[helper.make_opsetid("", 17)])
    exe = minitvm.compile(model, num_threads=1)
    exe.export(str(tmp_path / "conv.so"))
    lib = minitvm.load(tmp_path / "conv.so", num_threads=1)
    for h, w in ((7, 9), (16, 5), (1, 1), (33, 32)):
        x = {"x": _random((1, 4, h, w), h * w)}
        (want,), (got,) = exe.run(x), lib.run(x)
        assert got.shape == want.shape == (1, 8, (h - 1) // 2 + 1, (w - 1) // 2 + 1)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_bounds_and_agreement_are_checked_by_the_library(tmp_path: Path) -> None:
    """The BERT export's two inputs share `batch` and `sequence`, bounded to 1..64: the
    library says what is off in the words the Executable uses."""
    model = onnx.load(os.path.join(models.ONNX_DIR, "bert_dynamic.onnx"))
    exe = minitvm.compile(model, input_shapes=dict.fromkeys(models.BERT_INPUTS, (None, "1..64")), num_threads=1)
    exe.export(str(tmp_path / "bert.so"))
    lib = minitvm.load(tmp_path / "bert.so", num_threads=1)
    for shape in ((2, 11), (1, 64), (1, 1)):
        feeds = models.random_feeds(model, dict.fromkeys(models.BERT_INPUTS, shape), 0)
        for want, got in zip(exe.run(feeds), lib.run(feeds)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    too_long = models.random_feeds(model, dict.fromkeys(models.BERT_INPUTS, (1, 65)), 0)
    message = r"input 'input_ids' dimension 1 \('sequence'\) is 65, outside the 1\.\.64 the model was compiled for"
    for runner in (exe, lib):
        with pytest.raises(MinitvmError, match=message):
            runner.run(too_long)
    feeds = models.random_feeds(model, dict.fromkeys(models.BERT_INPUTS, (1, 9)), 0)
    feeds[models.BERT_INPUTS[1]] = feeds[models.BERT_INPUTS[1]][:, :8]
    with pytest.raises(MinitvmError, match=rf"input '{models.BERT_INPUTS[1]}' dimension 1 is 8, but the model says"):
        lib.run(feeds)


def test_a_percent_sign_in_a_name_prints_as_itself_in_the_librarys_messages(tmp_path: Path) -> None:
    """The library's refusals are printf formats: a `%` in an input's name must not be read
    as a conversion (`%d'` would print garbage or read an argument that is not there)."""
    net = helper.make_graph(
        [helper.make_node("Relu", ["x%d"], ["y"])],
        "percent",
        [helper.make_tensor_value_info("x%d", TensorProto.FLOAT, ["n%"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n%"])],
    )
    model = helper.make_model(net, opset_imports=[helper.make_opsetid("", 17)])
    exe = minitvm.compile(model, input_shapes={"x%d": ("1..4",)}, num_threads=1)
    exe.export(str(tmp_path / "percent.so"))
    lib = minitvm.load(tmp_path / "percent.so", num_threads=1)
    x = _random((3,))
    np.testing.assert_array_equal(lib.run({"x%d": x})[0], np.maximum(x, 0))
    with pytest.raises(MinitvmError, match=r"input 'x%d' dimension 0 \('n_'\) is 5, outside the 1\.\.4 the model was compiled for$"):
        lib.run({"x%d": _random((5,))})


def _found_size_models() -> dict[str, tuple[onnx.ModelProto, list[dict[str, np.ndarray]]]]:
    """Models whose output sizes the code finds as it runs, each with feeds whose found sizes
    grow past the initial capacity, shrink and grow again."""
    rng = np.random.default_rng(7)
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64

    def sparse(n: int, density: float) -> np.ndarray:
        return (rng.random(n) < density).astype(np.float32) * rng.standard_normal(n).astype(np.float32)

    nonzero = make_model([helper.make_node("NonZero", ["x"], ["y"])], {"x": (f32, ["n"])}, ["y"])
    unique = make_model(
        [helper.make_node("Unique", ["x"], ["y", "indices", "inverse", "counts"])],
        {"x": (i64, ["n"])}, ["y", "indices", "inverse", "counts"],
    )  # fmt: skip
    range_ = make_model([helper.make_node("Range", ["s", "l", "d"], ["y"], name="r")],
                        {n: (i64, []) for n in "sld"}, ["y"])  # fmt: skip
    reshape = make_model([helper.make_node("Reshape", ["x", "s"], ["y"])], {"x": (f32, ["n"]), "s": (i64, [4])}, ["y"])
    top_k = make_model([helper.make_node("TopK", ["x", "k"], ["v", "i"])],
                       {"x": (f32, [2, "n"]), "k": (i64, [1])}, ["v", "i"])  # fmt: skip

    nms = make_model(
        [helper.make_node("NonMaxSuppression", ["b", "s", "max", "iou", "th"], ["y"])],
        {"b": (f32, ["batch", "n", 4]), "s": (f32, ["batch", 3, "n"]), "max": (i64, [1]),
         "iou": (f32, [1]), "th": (f32, [1])}, ["y"],
    )  # fmt: skip

    def detections(batch: int, n: int, most: int) -> dict[str, np.ndarray]:
        corner = rng.random((batch, n, 2)).astype(np.float32) * 100
        size = rng.random((batch, n, 2)).astype(np.float32) * 20
        return {"b": np.concatenate([corner, corner + size], -1), "s": rng.random((batch, 3, n)).astype(np.float32),
                "max": np.array([most]), "iou": np.float32([0.5]), "th": np.float32([0.2])}  # fmt: skip

    def scalars(*values: int) -> dict[str, np.ndarray]:
        return dict(zip("sld", (np.array(v, np.int64) for v in values), strict=True))

    return {
        "nonzero": (nonzero, [{"x": sparse(n, d)} for n, d in [(10, 0.5), (1000, 0.3), (7, 0.0), (5000, 0.9)]]),
        "unique": (unique, [{"x": rng.integers(0, v, n)} for n, v in [(20, 5), (3000, 2000), (4, 9)]]),
        "range": (range_, [scalars(*c) for c in [(0, 5, 1), (-7, 900, 2), (10, 0, -3), (0, 70_000, 1)]]),
        "nms": (nms, [detections(*c) for c in [(1, 10, 5), (2, 500, 50), (1, 3000, 100), (3, 40, 2)]]),
        "reshape": (reshape, [{"x": rng.standard_normal(n).astype(np.float32), "s": np.array(s, np.int64)}
                              for n, s in [(120, (120, 1, 1, 1)), (120, (1, 1, 1, 120)), (24, (2, 3, -1, 2)), (360, (3, 4, 5, 6))]]),
        "top_k": (top_k, [{"x": rng.standard_normal((2, n)).astype(np.float32), "k": np.array([k], np.int64)}
                          for n, k in [(50, 3), (500, 300), (9, 9)]]),
    }  # fmt: skip


@pytest.mark.parametrize("name", ["nonzero", "unique", "range", "nms", "reshape", "top_k"])
def test_a_library_finds_output_sizes_as_it_runs(tmp_path: Path, name: str) -> None:
    """NonZero, Unique, a Range of fed bounds, NonMaxSuppression of any batch and box count,
    a 4-D Reshape to fed shapes (one group of sizes) and TopK of a fed k, exported (two threads: parallel loops of run-time trip counts too):
    the library allocates the outputs, raises its capacities and reruns as the Executable
    does, and gives the same values in the same shapes."""
    model, feeds = _found_size_models()[name]
    exe = minitvm.compile(model, num_threads=2)
    exe.export(str(tmp_path / f"{name}.so"))
    lib = minitvm.load(tmp_path / f"{name}.so", num_threads=2)
    assert [s.dtype for s in lib.outputs] == [s.dtype for s in exe.outputs]
    for feed in feeds:
        for want, got in zip(exe.run(feed), lib.run(feed), strict=True):
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_the_c_api_of_sizes_found_as_the_model_runs(tmp_path: Path) -> None:
    """-2 in output info; minitvm_run and minitvm_output_shape refuse such an output and say
    why; minitvm_run_alloc hands out the outputs (minitvm_free frees them); a check the
    inputs' values fail is MINITVM_ECHECK with the node's message, and leaves no output."""
    model = make_model(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="rs"), helper.make_node("NonZero", ["y"], ["where"])],
        {"x": (TensorProto.FLOAT, [2, 3, 4]), "s": (TensorProto.INT64, [2])}, ["y", "where"], opset=18,
    )  # fmt: skip
    exe = minitvm.compile(model, num_threads=1)
    exe.export(str(tmp_path / "rs.so"))
    api = Api(tmp_path / "rs.so")
    m = api.create()
    dtype, ndim, shape = ctypes.c_int32(), ctypes.c_int32(), (ctypes.c_int64 * 8)()
    for i, dims in enumerate(([-2, -2], [2, -2])):
        assert api.output_info(m, i, ctypes.byref(dtype), ctypes.byref(ndim), shape) == 0
        assert list(shape[: ndim.value]) == dims
    x = (np.arange(24, dtype=np.float32) % 3).reshape(2, 3, 4)
    inputs, _keep = tensors([x, np.array([6, -1], np.int64)], [1, 7])
    assert api.output_shape(m, inputs, 2, 0, shape) == EINVAL
    assert "output 'y' has a size the model finds as it runs" in api.error()
    y, where = np.empty((6, 4), np.float32), np.empty((2, 24), np.int64)
    outputs, _keep_out = tensors([y, where], [1, 7])
    assert api.run(m, inputs, 2, outputs, 2) == EINVAL
    assert "output 'y' has a size the model finds as it runs (-2 in minitvm_output_info): run it with minitvm_run_alloc" in api.error()
    assert api.run_alloc(m, inputs, 2, outputs, 2) == 0, api.error()
    want = exe.run({"x": x, "s": np.array([6, -1], np.int64)})
    for tensor, w in zip(outputs, want):
        assert list(tensor.shape[: w.ndim]) == list(w.shape)
        got = np.ctypeslib.as_array(ctypes.cast(tensor.data, ctypes.POINTER(np.ctypeslib.as_ctypes_type(w.dtype))), w.shape)
        np.testing.assert_array_equal(got, w)
        api.free(tensor.data)
    wrong, _keep_wrong = tensors([x, np.array([5, 5], np.int64)], [1, 7])
    assert api.run_alloc(m, wrong, 2, outputs, 2) == ECHECK
    assert api.error() == (
        "minitvm_run_alloc: node 'rs' (Reshape, opset 18): the shape asked for (at most one -1, "
        "no other negative size) does not hold the input's 24 elements ([2, 3, 4])"
    )
    assert not outputs[0].data and not outputs[1].data
    outputs[0].data = outputs[1].data = 1  # (whatever the caller left there)
    assert api.run_alloc(m, inputs, 1, outputs, 2) == EINVAL and "got 1 inputs and 2 outputs" in api.error()
    assert not outputs[0].data and not outputs[1].data  # nothing to free after an error
    lib = minitvm.load(tmp_path / "rs.so", num_threads=1)
    with pytest.raises(MinitvmError, match=r"rs\.so: minitvm_run_alloc: node 'rs' \(Reshape, opset 18\): the shape asked for"):
        lib.run({"x": x, "s": np.array([5, 5], np.int64)})
    api.free(None)
    api.destroy(m)


def test_export_from_the_command_line_keeps_dynamic_dimensions(tmp_path: Path) -> None:
    source = tmp_path / "mlp.onnx"
    onnx.save(with_dynamic_dims(mlp(), {"x": ["batch", None]}), source)
    library = tmp_path / "mlp.so"
    done = subprocess.run(
        [sys.executable, "-m", "minitvm.tools.cli", "export", str(source), "-o", str(library),
         "--input-shape", "x=?x784", "--num-threads", "1"],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lib = minitvm.load(library, num_threads=1)
    assert not lib.inputs[0].is_static
    for batch in (2, 9):
        assert lib.run({"x": _random((batch, 784))})[0].shape == (batch, 10)
    np.save(tmp_path / "x.npy", _random((6, 784)))
    ran = subprocess.run(
        [sys.executable, "-m", "minitvm.tools.cli", "run", str(library), "--onnx", str(source),
         "--input", f"x={tmp_path / 'x.npy'}", "--compare-ort", "--repeat", "1"],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "output logits: float32[6, 10]" in ran.stdout and "PASS" in ran.stdout


@pytest.mark.parametrize("threads", [2, 3])
def test_a_library_shares_a_batch_by_its_own_thread_count(tmp_path: Path, threads: int) -> None:
    """A library's kernels that run either each image's rows or whole images on the threads
    ask its pool how many threads the run has (`minitvm__count_fn`): with 2 and 3, at batch
    1 (rows), 2, 3 and 8, it computes what the Executable does."""
    model = with_dynamic_dims(models.resnet_basic_block(channels=32, size=14), {"x": ["batch", None, None, None]})
    exe = minitvm.compile(model, num_threads=threads)
    exe.export(str(tmp_path / "block.so"))
    lib = minitvm.load(tmp_path / "block.so", num_threads=threads)
    for batch in (1, 8, 2, 3):
        x = {"x": _random((batch, 32, 14, 14), batch)}
        np.testing.assert_allclose(lib.run(x)[0], exe.run(x)[0], rtol=1e-5, atol=1e-5)
