"""The kernel cache and the parallel kernel build (kernel_build.py, lowering/object_cache.py,
lowering/fork_map.py): a second compile takes every kernel from the cache and computes the
same bits; a model sharing kernels with another takes those; the key changes with what
changes the code; damaged entries are misses; processes compiling at once share one cache;
the misses are compiled in several processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.compiler import random_inputs
from minitvm.errors import MinitvmError
from minitvm.host import FEATURES_ENV, enabled_features, host_cpu
from minitvm.lowering.fork_map import fork_map
from minitvm.lowering.object_cache import (
    USAGE_FILE,
    KernelObject,
    ObjectCache,
    _compiler_sources,
    kernel_key,
    kernel_symbol,
)
from minitvm.runtime.ort import ort_session


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache directory of this test's own."""
    monkeypatch.setenv("MINITVM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "kernels"


def mlp(extra_branch: bool = False) -> onnx.ModelProto:
    """relu(x @ w1 + b1) @ w2; with `extra_branch`, also sigmoid(v) * 2 as a second output
    (so that the model holds the first one's kernels and one of its own)."""
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((32, 64)).astype(np.float32), "w1"),
        numpy_helper.from_array(rng.standard_normal(64).astype(np.float32), "b1"),
        numpy_helper.from_array(rng.standard_normal((64, 16)).astype(np.float32), "w2"),
        numpy_helper.from_array(np.full(8, 2.0, np.float32), "two"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["hb"]),
        helper.make_node("Relu", ["hb"], ["r"]),
        helper.make_node("MatMul", ["r", "w2"], ["y"]),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 32])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])]
    if extra_branch:
        nodes += [
            helper.make_node("Sigmoid", ["v"], ["s"]),
            helper.make_node("Mul", ["s", "two"], ["z"]),
        ]
        inputs.append(helper.make_tensor_value_info("v", TensorProto.FLOAT, [8]))
        outputs.append(helper.make_tensor_value_info("z", TensorProto.FLOAT, [8]))
    graph = helper.make_graph(nodes, "mlp", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def counts(exe: minitvm.Executable) -> tuple[int, int]:
    report = exe.stats["report"]
    return report.op_counts["kernels"], report.op_counts["kernels from cache"]


def entry_files(cache: Path) -> list[Path]:
    """The cache's files but its usage record (temporary files included)."""
    return [p for p in cache.rglob("*") if p.is_file() and p.name != USAGE_FILE]


def check_against_ort(model: onnx.ModelProto, exe: minitvm.Executable) -> list[np.ndarray]:
    inputs = random_inputs(exe, seed=3)
    got = exe.run(inputs)
    want = ort_session(model, 1)(inputs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    return got


def test_a_second_compile_takes_every_kernel_from_the_cache(cache: Path) -> None:
    model = mlp()
    cold = minitvm.compile(model)
    total, hits = counts(cold)
    assert total >= 2 and hits == 0
    entries = sorted(entry_files(cache))
    assert len(entries) == total and not [p for p in entries if p.name.startswith(".tmp")]
    warm = minitvm.compile(model)
    assert counts(warm) == (total, total)
    assert warm.stats["report"].kernel_seconds.get("LLVM", 0.0) == 0.0  # nothing compiled
    inputs = random_inputs(cold, seed=1)
    for a, b in zip(cold.run(inputs), warm.run(inputs), strict=True):
        np.testing.assert_array_equal(a, b)
    check_against_ort(model, warm)


def test_a_model_sharing_kernels_takes_those_from_the_cache(cache: Path) -> None:
    first = minitvm.compile(mlp())
    total, _ = counts(first)
    bigger = mlp(extra_branch=True)
    second = minitvm.compile(bigger)
    assert counts(second) == (total + 1, total)
    check_against_ort(bigger, second)


def test_the_key_changes_with_the_target_the_opt_level_and_the_text() -> None:
    base = kernel_key("text", "znver4", "+avx2,+avx512f", 3)
    others = [
        kernel_key("text ", "znver4", "+avx2,+avx512f", 3),
        kernel_key("text", "sapphirerapids", "+avx2,+avx512f", 3),
        kernel_key("text", "znver4", "+avx2,-avx512f", 3),
        kernel_key("text", "znver4", "+avx2,+avx512f", 2),
    ]
    assert len({base, *others}) == 5
    assert base == kernel_key("text", "znver4", "+avx2,+avx512f", 3)
    assert kernel_symbol(base).startswith("minitvm_k") and len(kernel_symbol(base)) == 33


def test_the_fingerprint_covers_the_compiler_and_not_the_tests() -> None:
    package = Path(minitvm.__file__).parent
    sources = {str(p.relative_to(package)) for p in _compiler_sources()}
    assert {"lowering/jit.py", "passes/loop/vectorize.py", "kernel_build.py", "host.py"} <= sources
    assert not [s for s in sources if s.startswith(("tests/", "bench/", ".venv", ".ci-venv"))]


def test_another_target_misses(cache: Path) -> None:
    """The same model compiled for another target in a subprocess (AVX-512 masked off, or
    where the target has none, BMI2) finds none of this target's kernels."""
    model = mlp()
    total, _ = counts(minitvm.compile(model))
    script = (
        "import sys, onnx, minitvm\n"
        "exe = minitvm.compile(onnx.load(sys.argv[1]))\n"
        "r = exe.stats['report'].op_counts\n"
        "print(r['kernels'], r['kernels from cache'])\n"
    )
    path = cache.parent / "mlp.onnx"
    onnx.save(model, path)
    other = "-avx512*,-amx*" if "avx512f" in enabled_features(host_cpu()[1]) else "-bmi2"
    masked = ",".join(filter(None, [os.environ.get(FEATURES_ENV, ""), other]))
    env = {**os.environ, FEATURES_ENV: masked}
    command = [sys.executable, "-c", script, str(path)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(total), "0"]


@pytest.mark.parametrize("damage", ["truncate", "flip", "header"])
def test_a_damaged_entry_is_a_miss_and_is_written_anew(cache: Path, damage: str) -> None:
    model = mlp()
    minitvm.compile(model)
    victim = max(entry_files(cache), key=lambda p: p.stat().st_size)
    data = bytearray(victim.read_bytes())
    if damage == "truncate":
        del data[len(data) // 2 :]
    elif damage == "flip":
        data[-100] ^= 0xFF
    else:
        data[:1] = b"#"
    victim.write_bytes(bytes(data))
    again = minitvm.compile(model)
    total, hits = counts(again)
    assert hits == total - 1
    check_against_ort(model, again)
    assert KernelObject.from_entry(victim.read_bytes()) is not None  # replaced by a good one


def test_the_cache_off_writes_nothing(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINITVM_CACHE", "off")
    exe = minitvm.compile(mlp())
    assert counts(exe)[1] == 0 and not cache.exists()
    check_against_ort(mlp(), exe)


def test_bad_settings_are_clear_errors(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINITVM_COMPILE_JOBS", "many")
    with pytest.raises(MinitvmError, match="MINITVM_COMPILE_JOBS"):
        minitvm.compile(mlp())
    monkeypatch.delenv("MINITVM_COMPILE_JOBS")
    monkeypatch.setenv("MINITVM_CACHE_MAX_MB", "1e3")
    with pytest.raises(MinitvmError, match="MINITVM_CACHE_MAX_MB"):
        minitvm.compile(mlp())


def test_pruning_removes_the_least_recently_used(tmp_path: Path) -> None:
    store = ObjectCache(tmp_path, max_bytes=10_000)
    keys = [kernel_key(f"k{n}", "cpu", "", 3) for n in range(8)]
    for n, key in enumerate(keys):
        store.put(key, KernelObject(kernel_symbol(key), bytes(2_000), 1, 1, (), False))
        os.utime(store.path(key), (n, n))  # older first
    assert store.get(keys[0]) is not None  # a hit: now the most recently used
    assert store.prune() > 0
    left = [k for k in keys if store.path(k).exists()]
    assert keys[0] in left and keys[1] not in left
    assert sum(store.path(k).stat().st_size for k in left) <= 7_500


def test_pruning_counts_the_entries_only_when_the_estimate_passes_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ObjectCache(tmp_path, max_bytes=10_000)
    keys = [kernel_key(f"k{n}", "cpu", "", 3) for n in range(8)]
    counts: list[int] = []
    full_count = store._prune_now
    monkeypatch.setattr(store, "_prune_now", lambda: counts.append(1) or full_count())
    for n, key in enumerate(keys):
        written = store.put(key, KernelObject(kernel_symbol(key), bytes(2_000), 1, 1, (), False))
        os.utime(store.path(key), (n, n))
        store.prune(written)
    # The first prune counts (no usage yet); the next ones add to the estimate until it
    # passes 10,000 bytes at the fifth entry, which counts and prunes to 7,500.
    assert len(counts) >= 2 and len(counts) < len(keys)
    left = [k for k in keys if store.path(k).exists()]
    assert keys[0] not in left and keys[-1] in left
    total = sum(store.path(k).stat().st_size for k in left)
    assert total <= 10_000 and store._usage() is not None and store._usage()[0] == total
    (tmp_path / ".usage").write_text("damaged")  # a bad record is counted afresh
    store.prune(0)
    assert len(counts) >= 3 and store._usage()[0] == total


def test_a_cache_that_cannot_be_written_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("MINITVM_CACHE_DIR", str(blocker))
    exe = minitvm.compile(mlp())
    check_against_ort(mlp(), exe)


#: Compiles the model at argv[1] (at time argv[2], if given) and prints its kernel counts.
_COMPILE = (
    "import sys, time, onnx, minitvm\n"
    "model = onnx.load(sys.argv[1])\n"
    "time.sleep(max(0.0, float(sys.argv[2]) - time.time()) if len(sys.argv) > 2 else 0.0)\n"
    "r = minitvm.compile(model).stats['report'].op_counts\n"
    "print(r['kernels'], r['kernels from cache'])\n"
)


def test_processes_compiling_at_once_share_one_cache(cache: Path) -> None:
    """Three processes compile the same model into one empty cache at the same moment; all
    succeed, the cache holds whole entries only, and a fourth process finds them all. (Each
    process of one cache directory reads the same measured machine description, which the
    default schedules follow: this test process measured its own, in another directory.)"""
    path = cache.parent / "model.onnx"
    cache.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(mlp(extra_branch=True), path)
    subprocess.run(
        [sys.executable, "-c", "import minitvm.machine as m; m.describe_machine()"], check=True
    )
    start_at = time.time() + 4.0  # past every process's imports
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _COMPILE, str(path), str(start_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for run in runs:
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    files = entry_files(cache)
    assert files and not [p for p in files if p.name.startswith(".tmp")]
    assert all(KernelObject.from_entry(p.read_bytes()) is not None for p in files)
    last = subprocess.run(
        [sys.executable, "-c", _COMPILE, str(path)], capture_output=True, text=True, check=True
    )
    assert last.stdout.split() == [str(len(files))] * 2


# ------------------------------------------------------------------------------ fork_map


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_fork_map_shares_the_items_among_processes() -> None:
    pids = fork_map(_pid_after, [0.2] * 6, jobs=2)
    assert len(pids) == 6 and len(set(pids)) == 2 and os.getpid() in pids


def test_fork_map_keeps_the_order_and_runs_serially_with_one_job() -> None:
    assert fork_map(lambda n: n * n, list(range(20)), jobs=3) == [n * n for n in range(20)]
    assert set(fork_map(_pid_after, [0.0] * 4, jobs=1)) == {os.getpid()}


def _fails_in_children(parent: int) -> int:
    if os.getpid() != parent:
        raise RuntimeError("only the parent may do this")
    return 1


def _dies_in_children(parent: int) -> int:
    time.sleep(0.05)
    if os.getpid() != parent:
        os._exit(9)
    return 2


def test_fork_map_redoes_in_the_parent_what_a_child_failed_or_died_on() -> None:
    parent = os.getpid()
    assert fork_map(_fails_in_children, [parent] * 5, jobs=2) == [1] * 5
    assert fork_map(_dies_in_children, [parent] * 5, jobs=2) == [2] * 5


def _fails(n: int) -> int:
    raise ValueError(f"item {n} is bad")


def test_fork_map_raises_an_items_error_in_the_parent() -> None:
    with pytest.raises(ValueError, match="is bad"):
        fork_map(_fails, [0, 1, 2], jobs=2)
