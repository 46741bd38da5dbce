"""`minitvm profile`: each kernel of a compiled model timed alone, equal kernels once, the
sum next to the whole model; the CLI's table and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli_compile_run import add_model, assert_fails, minitvm
from test_conv_layout import residual_stage

import minitvm as mt
from minitvm.machine import Machine, Measured
from minitvm.pipeline import CONV_BLOCK
from minitvm.tools.commands.profile import KernelTime, Profile, format_profile, profile


def test_profile_times_every_kernel_of_the_model() -> None:
    model = residual_stage(seed=0)
    exe = mt.compile(model, num_threads=1, winograd="never")
    report = profile(model, exe, repeat=2, warmup=1, winograd="never")
    names = [k.name for k in report.kernels]
    assert len(names) == len(set(names)) and len(names) >= 6  # 5 convs and the transforms
    assert {k.template for k in report.kernels} >= {"conv_nchwc", "transpose"}
    conv = next(k for k in report.kernels if k.template == "conv_nchwc")
    nchwc = (1, 16 // CONV_BLOCK, 12, 12, CONV_BLOCK)  # 16 channels in NCHW16c (AVX2: 8c)
    assert conv.input_shape == nchwc and conv.output_shape == nchwc
    assert all(k.seconds > 0 for k in report.kernels) and report.model_seconds > 0
    assert report.num_threads == 1
    assert report.kernel_seconds == pytest.approx(sum(k.seconds for k in report.kernels))


def test_an_instrumented_compile_is_also_timed_as_the_model_runs() -> None:
    """Each kernel's seconds in the model's runs (its clock's median), every kernel of the
    model a site of; the kernels, one after another on one thread, within the run."""
    model = residual_stage(seed=0)
    exe = mt.compile(model, num_threads=1, winograd="never", instrument=True)
    report = profile(model, exe, repeat=3, warmup=1, winograd="never")
    assert report.in_model
    assert all(k.in_model is not None and k.in_model > 0 for k in report.kernels)
    assert all(k.calls == 1 and k.time == k.in_model for k in report.kernels)
    assert report.kernel_seconds <= 1.05 * report.model_seconds
    lines = format_profile(report).splitlines()
    assert lines[0].split()[:3] == ["ms", "alone", "share"]
    assert lines[-1].startswith(f"{len(report.kernels)} kernels: ")
    assert " ms as the model runs them, " in lines[-1] and " ms each timed alone; " in lines[-1]


def test_the_in_model_time_orders_the_table_and_counts_every_call() -> None:
    kernels = [
        # timed alone 1 ms a call, called 3 times a run, 3.6 ms of each run
        KernelTime("a", "gemm", (2,), (2,), 1e-3, flops=10**9, bytes=0, in_model=3.6e-3, calls=3),
        KernelTime("b", "-", (4,), (4,), 2e-3, in_model=2.4e-3),
    ]
    measured = Measured(100.0, 24, 20.0, 64 << 20, "2026-01-01T00:00:00")
    report = Profile(kernels, 6.5e-3, 1, Machine("cpu", "llvm", ("avx2",), 1, (), measured))
    assert report.kernel_seconds == pytest.approx(6e-3)
    # 3 GFLOP a run in 3.6 ms: 833 GFLOP/s, the least time (30 ms at 100) 833% of the roof
    assert report.roof(kernels[0]) == pytest.approx(30e-3 / 3.6e-3)
    lines = format_profile(report).splitlines()
    assert lines[1].split()[:4] == ["3.600", "3.000", "60.0%", "833.3"]
    assert lines[2].split()[:3] == ["2.400", "2.000", "40.0%"]
    assert lines[3] == (
        "2 kernels: 6.000 ms as the model runs them, 5.000 ms each timed alone; "
        "the whole model: 6.500 ms (1 thread)"
    )


def test_a_dynamic_compile_is_profiled_at_the_sizes_given(tmp_path: Path) -> None:
    """The kernels of the compile that runs (loops to run-time sizes), timed at `sizes`; their
    shapes and flops at those sizes."""
    model = str(add_model(tmp_path / "add.onnx", [2, "n"]))
    exe = mt.compile(model, num_threads=1)
    assert exe.symbols == ["n"]
    report = profile(model, exe, repeat=2, warmup=1, sizes={"n": 300})
    (kernel,) = report.kernels
    assert kernel.input_shape == (2, 300) and kernel.output_shape == (2, 300)
    assert kernel.flops == 600 and kernel.bytes == 3 * 600 * 4 and kernel.seconds > 0


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
    header = ["ms", "alone", "share", "GFLOP/s", "GB/s", "flop/B", "roof", "kernel"]
    assert result.stdout.splitlines()[0].split()[:8] == header
    assert "the whole model:" in result.stdout and "(1 thread)" in result.stdout
    assert "roofline (1 thread, minitvm info):" in result.stdout
    # A dimension left dynamic stays so: the dynamic compile is profiled at its smallest size
    # (each kernel timed alone, at sizes), and says so.
    result = minitvm("profile", model, "--num-threads", "1", "--repeat", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "sizes n = 1 (dynamic: compiled for any size, profiled at the smallest; --input-shape sets them)\n"
    )
    assert " 2x1 -> 2x1\n" in result.stdout
    missing = tmp_path / "missing.onnx"
    assert_fails(
        minitvm("profile", missing), f"minitvm: error: {missing}: No such file or directory\n"
    )


def test_kernels_are_placed_on_the_machines_roofline() -> None:
    measured = Measured(100.0, 24, 20.0, 64 << 20, "2026-01-01T00:00:00")
    machine = Machine("cpu", "llvm", ("avx2",), 2, (), measured)
    kernels = [
        # 2 GFLOP in 25 ms at 2 threads (peak 200): the least time is 10 ms, 40% of the roof
        KernelTime("conv", "conv_nchwc", (1,), (1,), 25e-3, flops=2 * 10**9, bytes=10**6),
        # 80 MB and no flops in 4 ms at 40 GB/s: the least time is 2 ms
        KernelTime("copy", "transpose", (1,), (1,), 4e-3, flops=0, bytes=80 * 10**6),
    ]
    report = Profile(kernels, 30e-3, 2, machine)
    assert report.peak_gflops == 200.0 and report.peak_gbs == 40.0
    assert report.roof(kernels[0]) == pytest.approx(0.4)
    assert report.roof(kernels[1]) == pytest.approx(0.5)
    lines = format_profile(report).splitlines()
    assert lines[1].split()[:6] == ["25.000", "86.2%", "80.0", "0.0", "2000.0", "40%"]
    assert lines[2].split()[:6] == ["4.000", "13.8%", "0.0", "20.0", "0.0", "50%"]
    assert lines[-1] == (
        "roofline (2 threads, minitvm info): 200.0 GFLOP/s, 40.0 GB/s; the kernels: "
        "69.0 GFLOP/s, 34% of the peak"
    )


def test_cli_profile_draws_the_roofline(tmp_path: Path) -> None:
    model = add_model(tmp_path / "add.onnx", [64, 64])
    plot = tmp_path / "roofline.png"
    result = minitvm("profile", model, "--num-threads", "1", "--repeat", "2", "--plot", plot)
    assert result.returncode == 0, result.stderr
    assert plot.read_bytes().startswith(b"\x89PNG") and f"roofline plot: {plot}" in result.stdout
