"""bench/busy_core.py: each case idle and with a core taken, both runtimes, one table."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from minitvm.bench.busy_core import busy_core

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "busy_core.py"


def test_prints_idle_and_busy_figures_of_both_runtimes() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "gemm64", "--repeat", "1", "--warmup", "0"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    number = r"\d+\.\d+"
    row = rf"^gemm64 +{number} +{number} +{number}x +{number} +{number} +{number}x +{number}x +{number}x$"
    assert re.search(row, result.stdout, re.MULTILINE), result.stdout
    assert result.stdout.startswith("2 threads;")
    assert "gemm64: one core busy" in result.stderr


def test_unknown_case_is_one_line_and_exit_1() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "nosuchcase"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "unknown case 'nosuchcase'" in result.stderr


def test_the_busy_process_runs_only_inside_the_block() -> None:
    with busy_core() as spinner:
        assert spinner.is_alive()
    assert not spinner.is_alive()
