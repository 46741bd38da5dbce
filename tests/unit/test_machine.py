"""machine.py: the description read from the system (sysfs caches, /proc/cpuinfo, LLVM's
features), what follows from the features, the measurements, and their cache on disk."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from minitvm import machine as m
from minitvm.host import enabled_features


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


def fake_cpu(root: Path, caches: list[tuple[int, str, str, int, str]]) -> Path:
    for n, (level, kind, size, line, shared) in enumerate(caches):
        index = root / "cache" / f"index{n}"
        for name, value in (("level", level), ("type", kind), ("size", size),
                            ("coherency_line_size", line), ("shared_cpu_list", shared)):  # fmt: skip
            write(index / name, str(value))
    return root


def test_caches_are_read_from_sysfs(tmp_path: Path) -> None:
    cpu = fake_cpu(tmp_path, [(1, "Data", "48K", 64, "0"), (1, "Instruction", "32K", 64, "0"),
                              (2, "Unified", "2048K", 64, "0"), (3, "Unified", "105M", 64, "0-3,8")])  # fmt: skip
    caches = m.read_caches(cpu)
    assert caches == (
        m.Cache(1, "data", 48 << 10, 64, 1),
        m.Cache(1, "instruction", 32 << 10, 64, 1),
        m.Cache(2, "unified", 2 << 20, 64, 1),
        m.Cache(3, "unified", 105 << 20, 64, 5),
    )
    machine = m.Machine("x", "y", ("avx2",), 2, caches)
    assert machine.cache(1) == caches[0]
    assert machine.cache(2) == caches[2]  # a unified cache holds data
    assert machine.cache(4) is None
    assert m.read_caches(tmp_path / "nothing") == ()


def test_model_name_from_cpuinfo(tmp_path: Path) -> None:
    write(tmp_path / "cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\n")
    assert m.cpu_model(tmp_path / "cpuinfo") == "Intel(R) Xeon(R) Processor"
    assert m.cpu_model(tmp_path / "missing") == "unknown CPU"


@pytest.mark.parametrize(
    ("flags", "bits", "registers"),
    [
        ("+avx,+avx2,+fma,+avx512f,+avx512bw,-amx-tile", 512, 32),
        ("+avx,+avx2,+fma,-avx512f,-avx512bw", 256, 16),  # AVX-512 masked out
        ("+sse4.2,-avx,-avx2", 128, 16),
    ],
)
def test_the_register_file_follows_from_the_features(flags: str, bits: int, registers: int) -> None:
    features = enabled_features(flags)
    assert "amx-tile" not in features  # `-` features are the ones it lacks
    machine = m.Machine("cpu", "llvm", features, 1, ())
    assert (machine.vector_bits, machine.vector_registers) == (bits, registers)
    assert machine.f32_lanes == bits // 32


def test_the_key_changes_with_what_was_read() -> None:
    a = m.Machine("cpu", "znver4", ("avx2", "avx512f"), 2, (m.Cache(1, "data", 32768, 64, 1),))
    assert a.key == replace(a).key
    assert a.key != replace(a, features=("avx2",)).key
    assert a.key != replace(a, cores=1).key
    assert a.key != replace(a, caches=()).key


def test_the_measurements_are_of_this_machine() -> None:
    machine = m.read_machine()
    gflops, chains = m.measure_fma(machine, seconds=0.002)
    assert chains == min(24, machine.vector_registers - 4)
    # a core does at least one vector FMA per 8 cycles at 1 GHz, and at most 4 per cycle at 6
    lanes = machine.f32_lanes
    assert 2 * lanes / 8 < gflops < 6 * 4 * 2 * lanes
    gbs, size = m.measure_bandwidth(machine)
    assert size >= 64 << 20
    assert 0.5 < gbs < 1000 and math.isfinite(gbs)
    l2 = m.measure_l2_bandwidth(machine, seconds=0.001)
    if machine.cache(2) is None:
        assert l2 is None
    else:  # an L2 delivers more than memory does, and less than 4 KiB a cycle at 6 GHz
        assert l2 is not None and gbs < l2 < 6 * 4096


def test_no_l2_bandwidth_without_an_l2() -> None:
    machine = m.read_machine()
    without = m.Machine(machine.model, machine.llvm_cpu, machine.features, machine.cores,
                        tuple(c for c in machine.caches if c.level != 2))  # fmt: skip
    assert m.measure_l2_bandwidth(without) is None


def test_measurements_are_cached_per_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINITVM_CACHE_DIR", str(tmp_path))
    calls = []
    fake = m.Measured(100.0, 24, 20.0, 64 << 20, "2026-01-01T00:00:00")
    monkeypatch.setattr(m, "measure", lambda machine: calls.append(machine) or fake)
    first = m.describe_machine()
    assert first.measured == fake and len(calls) == 1
    path = m.cache_path(first)
    assert json.loads(path.read_text())["measured"]["fma_gflops"] == 100.0
    again = m.describe_machine()
    assert again.measured == fake and len(calls) == 1  # from the cache
    m.describe_machine(remeasure=True)
    assert len(calls) == 2
    path.write_text("not json")
    assert m.describe_machine().measured == fake and len(calls) == 3  # a broken cache: anew
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_minitvm_info(tmp_path: Path) -> None:
    env = {"MINITVM_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    run = [sys.executable, "-m", "minitvm.tools.cli", "info"]
    result = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert {"CPU", "vectors", "ISA", "caches", "FMA", "memory", "L2", "measured", "cache"} <= set(lines)
    assert "GFLOP/s fp32 per core" in lines["FMA"]
    assert "GB/s read, one core" in lines["L2"]
    described = subprocess.run([*run, "--json"], capture_output=True, text=True, env=env, timeout=120)
    data = json.loads(described.stdout)
    assert data["vector_registers"] in (16, 32) and data["measured"]["fma_gflops"] > 0
    assert data["measured"] == json.loads(next(tmp_path.iterdir()).read_text())["measured"]
