"""`minitvm export`: a library that computes what the JIT computes, needs nothing but the C
library, exports nothing but the C API, rejects every bad call with a message, checks its
CPU and its weights file, runs from several threads at once, and loads and unloads cleanly.
`minitvm.load` runs it from Python without xDSL or LLVM. (The C and C++ example programs
have their own test: test_export_examples.py.)"""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.deploy import export_library
from minitvm.deploy.library import weights_digest, write_weights
from minitvm.errors import MinitvmError
from minitvm.runtime.library import CTensor

REPO = Path(__file__).resolve().parents[2]
MLP = REPO / "examples" / "mlp.onnx"
EINVAL, EWEIGHTS, ECPU, ECHECK = 1, 2, 3, 5

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="no C compiler")  # fmt: skip


def two_in_two_out() -> onnx.ModelProto:
    """y = relu(x @ w + b) row-gathered by int64 `idx`, and the bool mask y > 0.5: inputs of
    two element types, outputs of two, weights, and a loop long enough to run in parallel."""
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((64, 256)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(256).astype(np.float32), "b")
    half = numpy_helper.from_array(np.array(0.5, np.float32), "half")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"]),
        helper.make_node("Add", ["xw", "b"], ["xwb"]),
        helper.make_node("Relu", ["xwb"], ["h"]),
        helper.make_node("Gather", ["h", "idx"], ["y"], axis=0),
        helper.make_node("Greater", ["y", "half"], ["mask"]),
    ]
    graph = helper.make_graph(
        nodes, "two_in_two_out",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [32, 64]),
         helper.make_tensor_value_info("idx", TensorProto.INT64, [5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 256]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, [5, 256])],
        [w, b, half],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def feeds(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((32, 64)).astype(np.float32),
        "idx": rng.integers(0, 32, 5).astype(np.int64),
    }


@pytest.fixture(scope="module")
def exe() -> minitvm.Executable:
    return minitvm.compile(two_in_two_out(), num_threads=2)


@pytest.fixture(scope="module")
def exported(exe, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("embed") / "model.so"
    exe.export(str(path))
    return path


@pytest.fixture(scope="module")
def exported_file(exe, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("file") / "model.so"
    exe.export(str(path), weights="file")
    return path


def test_the_library_computes_what_the_jit_computes(exe, exported, exported_file) -> None:
    assert exe.stats["parallel_loops"], "the model should exercise the library's thread pool"
    want = exe.run(feeds())
    for path in (exported, exported_file):
        for threads in (1, 2, 3):
            lib = minitvm.load(path, num_threads=threads)
            got = lib.run(feeds())
            assert [a.dtype for a in got] == [np.float32, np.bool_]
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
            lib.close()


def test_the_library_describes_its_inputs_and_outputs(exe, exported) -> None:
    lib = minitvm.load(exported)
    assert lib.inputs == exe.inputs and lib.outputs == exe.outputs
    assert lib.input_names == ["x", "idx"] and lib.output_names == ["y", "mask"]
    header = exported.with_suffix(".h").read_text()
    assert "#define MINITVM_ABI_VERSION 2" in header
    assert "0: x  dtype 1 (float32), shape [32, 64]" in header
    assert "1: mask  dtype 9 (bool), shape [5, 256]" in header


def test_the_library_needs_only_the_c_library_and_exports_only_the_api(exported, exported_file) -> None:
    ldd = subprocess.run(["ldd", str(exported)], capture_output=True, text=True, check=True).stdout
    needed = {line.split()[0] for line in ldd.splitlines() if line.strip()}
    allowed = ("linux-vdso", "libc.so", "libm.so", "libpthread.so", "/lib64/ld-linux", "ld-linux")
    assert all(any(n.startswith(a) or a in n for a in allowed) for n in needed), ldd
    if shutil.which("nm"):
        nm = subprocess.run(["nm", "-D", "--defined-only", str(exported)], capture_output=True,
                            text=True, check=True).stdout  # fmt: skip
        symbols = {line.split()[-1] for line in nm.splitlines()}
        assert symbols == {
            "minitvm_abi_version", "minitvm_create", "minitvm_destroy", "minitvm_input_info",
            "minitvm_input_name", "minitvm_last_error", "minitvm_num_inputs", "minitvm_num_outputs",
            "minitvm_output_info", "minitvm_output_name", "minitvm_output_shape", "minitvm_run",
            "minitvm_run_alloc", "minitvm_free",
        }  # fmt: skip
    assert exported_file.stat().st_size < exported.stat().st_size  # the weights are outside


# --------------------------------------------------------------------------------------------
# The C API, called directly
# --------------------------------------------------------------------------------------------


class Api:
    """The library's functions with their C types (what minitvm.load declares)."""

    def __init__(self, path: Path):
        from minitvm.runtime.library import _declare

        self.lib = ctypes.CDLL(str(path))
        _declare(self.lib)

    def __getattr__(self, name: str):
        return getattr(self.lib, f"minitvm_{name}")

    def error(self) -> str:
        return self.lib.minitvm_last_error().decode()

    def create(self, weights: str | None = None, threads: int = 1) -> ctypes.c_void_p:
        model = ctypes.c_void_p()
        rc = self.lib.minitvm_create(None if weights is None else weights.encode(), threads, ctypes.byref(model))
        assert rc == 0, self.error()
        return model


def tensors(arrays: list[np.ndarray], codes: list[int]) -> tuple[ctypes.Array, list]:
    keep = []
    array = (CTensor * max(1, len(arrays)))()
    for tensor, a, code in zip(array, arrays, codes):
        shape = (ctypes.c_int64 * max(1, a.ndim))(*a.shape)
        keep.append(shape)
        tensor.data, tensor.dtype, tensor.ndim, tensor.shape = a.ctypes.data, code, a.ndim, shape
    return array, keep


def test_every_bad_call_fails_with_a_code_and_a_message(exported) -> None:
    api = Api(exported)
    assert api.abi_version() == 2
    assert api.create(None, 0).value  # 0 threads: every core
    model = api.create()
    x, idx = feeds()["x"], feeds()["idx"]
    y, mask = np.empty((5, 256), np.float32), np.empty((5, 256), np.bool_)

    def run(ins, in_codes, outs=(y, mask), out_codes=(1, 9), n_in=None, n_out=None, handle=model):
        i, _keep_i = tensors(list(ins), list(in_codes))
        o, _keep_o = tensors(list(outs), list(out_codes))
        n_in = len(ins) if n_in is None else n_in
        n_out = len(outs) if n_out is None else n_out
        return api.run(handle, i, n_in, o, n_out)

    assert run((x, idx), (1, 7)) == 0 and api.error() == ""
    cases = [
        (lambda: run((x,), (1,)), "got 1 inputs and 2 outputs, the model has 2 and 2"),
        (lambda: run((x, idx), (1, 7), outs=(y,), out_codes=(1,)), "got 2 inputs and 1 outputs"),
        (lambda: run((x, idx), (1, 6)), "input 'idx' has dtype 6 (int32), the model's is 7 (int64)"),
        (lambda: run((x, idx), (1, 7), out_codes=(1, 1)), "output 'mask' has dtype 1 (float), the model's is 9 (bool)"),
        (lambda: run((x[None], idx), (1, 7)), "input 'x' has 3 dimensions, the model's has 2"),
        (lambda: run((x[:16], idx), (1, 7)), "input 'x' has shape 16x64, the model's is 32x64"),
        (lambda: run((x, idx), (1, 7), handle=None), "the model is NULL"),
        (lambda: api.run(model, None, 2, None, 2), "`inputs` or `outputs` is NULL"),
        (lambda: api.create(None, -1), None),
    ]
    for call, message in cases[:-1]:
        assert call() == EINVAL
        assert message in api.error()
    # a NULL data pointer
    i, _keep_i = tensors([x, idx], [1, 7])
    i[0].data = None
    o, _keep_o = tensors([y, mask], [1, 9])
    assert api.run(model, i, 2, o, 2) == EINVAL and "input 'x' has no data (NULL)" in api.error()
    # create's own checks
    out = ctypes.c_void_p()
    assert api.lib.minitvm_create(None, -1, ctypes.byref(out)) == EINVAL and "num_threads" in api.error()
    assert api.lib.minitvm_create(None, 1, None) == EINVAL and "`out` is NULL" in api.error()
    assert api.lib.minitvm_create(b"/some/file", 1, ctypes.byref(out)) == EWEIGHTS
    assert "has its weights inside" in api.error()
    # queries
    assert api.num_inputs(model) == 2 and api.num_outputs(model) == 2 and api.num_inputs(None) == -1
    assert api.input_name(model, 1) == b"idx" and api.output_name(model, 0) == b"y"
    assert api.input_name(model, 2) is None and api.output_name(model, -1) is None
    dtype, ndim, shape = ctypes.c_int32(), ctypes.c_int32(), (ctypes.c_int64 * 8)()
    assert api.output_info(model, 1, ctypes.byref(dtype), ctypes.byref(ndim), shape) == 0
    assert (dtype.value, ndim.value, list(shape[:2])) == (9, 2, [5, 256])
    assert api.input_info(model, 2, ctypes.byref(dtype), ctypes.byref(ndim), shape) == EINVAL
    assert "no input 2 (the model has 2)" in api.error()
    assert api.input_info(model, 0, None, ctypes.byref(ndim), shape) == EINVAL
    api.destroy(model)
    api.destroy(None)  # ignored


def test_errors_are_per_thread(exported) -> None:
    api = Api(exported)
    model = api.create()
    assert api.input_info(model, 9, None, None, None) == EINVAL
    seen = []
    thread = threading.Thread(target=lambda: seen.append(api.error()))
    thread.start()
    thread.join()
    assert seen == [""] and "no input 9" in api.error()
    api.destroy(model)


def test_a_weights_file_is_checked(exe, exported_file, tmp_path) -> None:
    weights = exported_file.with_suffix(".weights")
    api = Api(exported_file)
    api.destroy(api.create())  # NULL: the file beside the library
    api.destroy(api.create(str(weights)))
    out = ctypes.c_void_p()

    def create(path: Path | str) -> int:
        return api.lib.minitvm_create(str(path).encode(), 1, ctypes.byref(out))

    assert create(tmp_path / "missing.weights") == EWEIGHTS
    assert "cannot open the weights file" in api.error() and "missing.weights" in api.error()
    short = tmp_path / "short.weights"
    short.write_bytes(weights.read_bytes()[:-64])
    assert create(short) == EWEIGHTS and "bytes, this model's has" in api.error()
    other = tmp_path / "other.weights"
    data = bytearray(weights.read_bytes())
    data[100] ^= 1
    other.write_bytes(bytes(data))
    assert create(other) == EWEIGHTS and "is not this model's (its digest differs)" in api.error()
    # moved away from its weights: NULL no longer finds them
    lonely = tmp_path / "lonely.so"
    shutil.copy(exported_file, lonely)
    assert Api(lonely).lib.minitvm_create(None, 1, ctypes.byref(out)) == EWEIGHTS
    assert "model.weights" in Api(lonely).error()
    with pytest.raises(MinitvmError, match="cannot open the weights file"):
        minitvm.load(lonely)
    np.testing.assert_array_equal(minitvm.load(lonely, weights=str(weights)).run(feeds())[0], exe.run(feeds())[0])


def test_the_digest_is_the_same_in_c_and_python(tmp_path) -> None:
    rng = np.random.default_rng(0)
    constants = [rng.standard_normal(n).astype(np.float32) for n in (1, 17, 1000)]
    blob = tmp_path / "w.bin"
    offsets, size, digest = write_weights(constants, blob)
    assert offsets == [0, 64, 192] and size == 4224 and size == blob.stat().st_size
    assert digest == weights_digest(blob.read_bytes())
    changed = bytearray(blob.read_bytes())
    changed[4000] ^= 0x80
    assert weights_digest(bytes(changed)) != digest
    # the C side agrees: test_a_weights_file_is_checked creates from a file it digests


def test_a_cpu_without_the_instructions_is_refused_at_create(exe, tmp_path) -> None:
    import llvmlite.binding as llvm

    # features the C runtime checks that this CPU lacks (old AMD-only ones, on Intel; FMA4 on
    # every CPU since Zen)
    host = llvm.get_host_cpu_features()
    lacking = [f for f in ("fma4", "sse4a", "amx-tile", "avx512fp16") if not host.get(f, False)]
    if not lacking:
        pytest.skip("this CPU has every feature the test could pretend to need")
    native = exe._exporter.args[0]  # the code, as compile bound it
    needy = dataclasses.replace(native, features=f"{native.features},+{lacking[0]}")
    path = tmp_path / "needy.so"
    export_library(needy, exe.inputs, exe.outputs, exe._constants, path)
    with pytest.raises(MinitvmError, match=f"compiled for instructions this CPU lacks: {lacking[0]}"):
        minitvm.load(path)


# --------------------------------------------------------------------------------------------
# Threads, loading and unloading
# --------------------------------------------------------------------------------------------


def test_runs_from_many_threads_at_once(exe, exported) -> None:
    """Four threads share one model (its runs take turns), four more have a model each."""
    shared = minitvm.load(exported, num_threads=2)
    own = [minitvm.load(exported, num_threads=2) for _ in range(4)]
    errors = []

    def work(lib, seed: int) -> None:
        try:
            for n in range(20):
                inputs = feeds(seed * 100 + n)
                for g, w in zip(lib.run(inputs), exe.run(inputs)):
                    np.testing.assert_array_equal(g, w)
        except BaseException as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(shared, s)) for s in range(4)]
    threads += [threading.Thread(target=work, args=(lib, 10 + s)) for s, lib in enumerate(own)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def _threads_of_this_process() -> int:
    """The library's pool threads in this process (named so: other runtimes' threads, such
    as ONNX Runtime's of an earlier test collected meanwhile, come and go as they like)."""
    count = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                count += comm.read().strip() == "minitvm-pool"
        except OSError:  # a thread that exited as we looked
            pass
    return count


def _settles_at(count: int) -> bool:
    """Whether the thread count reaches `count` within a second (a joined thread's /proc
    entry may outlive the join for a moment)."""
    deadline = time.monotonic() + 1.0
    while _threads_of_this_process() != count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_load_and_unload_repeatedly_leaks_no_thread(exported) -> None:
    import _ctypes

    gc.collect()  # libraries of earlier tests, unreachable but not yet destroyed
    before = _threads_of_this_process()
    for _ in range(20):
        api = Api(exported)
        models = [api.create(threads=3) for _ in range(2)]
        assert _settles_at(before + 4), _threads_of_this_process()
        for m in models:
            api.destroy(m)
        _ctypes.dlclose(api.lib._handle)
        assert _settles_at(before), _threads_of_this_process()


def test_load_imports_neither_xdsl_nor_llvm(exported) -> None:
    code = (
        "import sys, numpy as np, minitvm\n"
        f"lib = minitvm.load({str(exported)!r})\n"
        "lib.run({'x': np.zeros((32, 64), np.float32), 'idx': np.zeros(5, np.int64)})\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'xdsl', 'llvmlite', 'onnx'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_load_errors(tmp_path) -> None:
    with pytest.raises(MinitvmError, match="no such library"):
        minitvm.load(tmp_path / "nothing.so")
    not_elf = tmp_path / "bad.so"
    not_elf.write_text("hello")
    with pytest.raises(MinitvmError, match="cannot load"):
        minitvm.load(not_elf)
    other = tmp_path / "other.so"
    (tmp_path / "other.c").write_text("int other(void) { return 0; }\n")
    cc = shutil.which("cc") or shutil.which("gcc")
    subprocess.run([cc, "-shared", "-fPIC", "-o", other, tmp_path / "other.c"], check=True)
    with pytest.raises(MinitvmError, match="is not a library minitvm exported"):
        minitvm.load(other)


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------


def cli(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "minitvm.tools.cli", *map(str, args)],
        capture_output=True, text=True, check=False, timeout=300, env=env,
    )  # fmt: skip


def test_export_and_run_from_the_command_line(tmp_path) -> None:
    library = tmp_path / "mlp.so"
    done = cli("export", MLP, "-o", library, "--weights", "file", "--num-threads", "1")
    assert done.returncode == 0, done.stderr
    assert "exported" in done.stdout and library.exists()
    assert library.with_suffix(".h").exists() and library.with_suffix(".weights").exists()
    run = cli("run", library, "--onnx", MLP, "--compare-ort", "--num-threads", "2")
    assert run.returncode == 0, run.stderr
    assert "PASS" in run.stdout and "loaded" in run.stdout
    no_onnx = cli("run", library, "--compare-ort")
    assert no_onnx.returncode == 1 and "--onnx FILE" in no_onnx.stderr
    assert "Traceback" not in no_onnx.stderr


def test_export_errors_leave_nothing_behind(tmp_path) -> None:
    bad_name = cli("export", MLP, "-o", tmp_path / "mlp.dll")
    assert bad_name.returncode == 1 and "must end in .so" in bad_name.stderr
    no_dir = cli("export", MLP, "-o", tmp_path / "nowhere" / "mlp.so")
    assert no_dir.returncode == 1 and "no directory" in no_dir.stderr
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc")}
    no_cc = cli("export", MLP, "-o", tmp_path / "mlp.so", env=env)
    assert no_cc.returncode == 1 and "needs a C compiler" in no_cc.stderr
    failing = tmp_path / "failing-cc"
    failing.write_text("#!/bin/sh\necho 'ld: out of luck' >&2\nexit 1\n")
    failing.chmod(0o755)
    broken = cli("export", MLP, "-o", tmp_path / "mlp.so", env={**os.environ, "CC": str(failing)})
    assert broken.returncode == 1 and "out of luck" in broken.stderr
    for result in (bad_name, no_dir, no_cc, broken):
        assert "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["failing-cc"]


# --------------------------------------------------------------------------------------------
# The thread pool of c/runtime.c, alone (a stand-in model: c/pool_stress.c)
# --------------------------------------------------------------------------------------------

RUNTIME_C = REPO / "deploy" / "c"
STRESS = Path(__file__).parent / "c" / "pool_stress.c"


def _build_stress(tmp_path: Path, *flags: str) -> Path | None:
    cc = shutil.which("cc") or shutil.which("gcc")
    binary = tmp_path / ("pool_stress" + "".join(f.strip("-=") for f in flags))
    built = subprocess.run(
        [cc, "-O1", "-g", "-pthread", *flags, f"-I{RUNTIME_C}", STRESS, RUNTIME_C / "runtime.c", "-o", binary],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return binary if built.returncode == 0 else None


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_the_pool_runs_every_iteration_once_and_stops_its_threads(tmp_path, threads) -> None:
    """20 models created, run 3 times (29 parallel loops a run) and destroyed: a helper the OS
    starts late, after a destroy began, once hung the join."""
    binary = _build_stress(tmp_path)
    assert binary is not None
    done = subprocess.run([binary, str(threads), "20", "3"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


def test_the_pool_has_no_data_race(tmp_path) -> None:
    binary = _build_stress(tmp_path, "-fsanitize=thread")
    if binary is None:
        pytest.skip("the C compiler has no ThreadSanitizer here")
    env = {**os.environ, "MINITVM_POOL_SPIN_US": "50", "TSAN_OPTIONS": "halt_on_error=1"}
    done = subprocess.run([binary, "3", "5", "3"], capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.returncode == 0 and "WARNING: ThreadSanitizer" not in done.stderr, done.stderr[-3000:]


def test_export_for_another_cpu(tmp_path) -> None:
    """--cpu x86_64_v3: an AVX2 library, whatever this machine has (no zmm register in it);
    it still runs here and matches ORT."""
    library = tmp_path / "v3.so"
    done = cli("export", MLP, "-o", library, "--cpu", "x86-64-v3", "--num-threads", "1")
    assert done.returncode == 0, done.stderr
    assert "for x86-64-v3" in done.stdout
    if shutil.which("objdump"):
        code = subprocess.run(["objdump", "-d", library], capture_output=True, text=True, check=True).stdout
        assert "ymm" in code and "zmm" not in code
    run = cli("run", library, "--onnx", MLP, "--compare-ort")
    assert run.returncode == 0 and "PASS" in run.stdout, run.stderr
    unknown = cli("export", MLP, "-o", tmp_path / "x.so", "--cpu", "pentium9")
    assert unknown.returncode == 1 and "unknown CPU 'pentium9'" in unknown.stderr
    assert "haswell" in unknown.stderr and "Traceback" not in unknown.stderr


def test_named_cpus_have_llvm_features() -> None:
    from minitvm.host import named_cpu

    name, features = named_cpu("skylake_avx512")
    assert name == "skylake-avx512"
    on = {f for f, enabled in features.items() if enabled}
    assert {"avx512f", "avx512bw", "avx512vl", "fma", "bmi", "lzcnt", "sse4.2"} <= on
    assert "avx512vnni" not in on and "amx-tile" not in on
    assert named_cpu("znver4")[0] == "znver4" and named_cpu("zen4")[1]["avx512bf16"]
    assert not any(f.startswith("avx") for f, e in named_cpu("x86_64_v2")[1].items() if e)


def test_loading_a_replaced_library_is_refused(exe, tmp_path) -> None:
    """dlopen returns the library first loaded at a path: a model exported again over it
    must not silently run the old code."""
    path = tmp_path / "again.so"
    exe.export(str(path))
    minitvm.load(path).run(feeds())
    minitvm.load(path)  # the same file: fine
    exe.export(str(path))  # a new file at the same path
    with pytest.raises(MinitvmError, match="already loaded another file at"):
        minitvm.load(path)
