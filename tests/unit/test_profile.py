"""`minitvm profile`: each kernel of a compiled model timed alone, equal kernels once, the
sum next to the whole model; the CLI's table and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli_compile_run import add_model, assert_fails, minitvm
from test_conv_layout import residual_stage

import minitvm as mt
from minitvm.tools.commands.profile import KernelTime, Profile, format_profile, profile


def test_profile_times_every_kernel_of_the_model() -> None:
    model = residual_stage(seed=0)
    exe = mt.compile(model, num_threads=1)
    report = profile(model, exe, repeat=2, warmup=1)
    names = [k.name for k in report.kernels]
    assert len(names) == len(set(names)) and len(names) >= 6  # 5 convs and the transforms
    assert {k.template for k in report.kernels} >= {"conv_nchwc", "transpose"}
    conv = next(k for k in report.kernels if k.template == "conv_nchwc")
    assert conv.input_shape == (1, 1, 12, 12, 16) and conv.output_shape == (1, 1, 12, 12, 16)
    assert all(k.seconds > 0 for k in report.kernels) and report.model_seconds > 0
    assert report.num_threads == 1
    assert report.kernel_seconds == pytest.approx(sum(k.seconds for k in report.kernels))


def test_the_table_is_slowest_first_and_ends_with_the_totals() -> None:
    kernels = [
        KernelTime("a", "gemm", (2, 3), (2, 4), 1e-3),
        KernelTime("b", "-", (4,), (4,), 3e-3),
        KernelTime("c", "injective", (), (), 2e-3),
    ]
    text = format_profile(Profile(kernels, 5.5e-3, 2), top=2)
    lines = text.splitlines()
    assert lines[0].split() == ["ms", "share", "kernel", "template", "input", "->", "output"]
    assert lines[1].split()[:3] == ["3.000", "50.0%", "b"]
    assert lines[2].split()[:3] == ["2.000", "33.3%", "c"] and "scalar -> scalar" in lines[2]
    assert lines[3] == "... 1 more kernel, 1.000 ms"
    assert (
        lines[4]
        == "3 kernels, each timed alone: 6.000 ms in all; the whole model: 5.500 ms (2 threads)"
    )


def test_cli_profile(tmp_path: Path) -> None:
    model = add_model(tmp_path / "add.onnx", [2, "n"])
    result = minitvm(
        "profile", model, "--input-shape", "a=2x3", "--num-threads", "1", "--repeat", "2"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].split()[:3] == ["ms", "share", "kernel"]
    assert "the whole model:" in result.stdout and "(1 thread)" in result.stdout
    assert_fails(
        minitvm("profile", model),
        "minitvm: error: input 'a' has dynamic dimension 1 ('n'); give its shape with "
        "--input-shape a=D0xD1...\n",
    )
    missing = tmp_path / "missing.onnx"
    assert_fails(
        minitvm("profile", missing), f"minitvm: error: {missing}: No such file or directory\n"
    )
