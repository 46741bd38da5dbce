"""bench/conv_layouts.py: every config of one conv, measured under several channel blocks."""

from __future__ import annotations

import re
from pathlib import Path

import onnx
import pytest
from test_schedule_templates import conv_model

from minitvm.bench.conv_layouts import main


def test_measures_the_same_conv_under_each_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "conv.onnx"
    onnx.save(conv_model(channels=32, size=8), str(path))
    assert main([str(path), "--blocks", "16", "32"]) == 0
    out = capsys.readouterr().out
    # the same kernel, its output blocked [1, 2, 8, 8, 16] and then [1, 1, 8, 8, 32]
    assert re.search(r"NCHW16c  fused_conv_nchwc_\d+ .*-> 1x2x8x8x16: \d+ configs, default", out)
    assert re.search(r"NCHW32c  fused_conv_nchwc_\d+ .*-> 1x1x8x8x32: \d+ configs, default", out)
    near, total = map(int, re.search(r"all blocks: best .*; (\d+) of (\d+) configs", out).groups())  # type: ignore[union-attr]
    assert 1 <= near <= total


def test_a_model_without_convs_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_schedule_templates import add_relu_model

    path = tmp_path / "add.onnx"
    onnx.save(add_relu_model(), str(path))
    assert main([str(path), "--blocks", "16"]) == 1
    assert "error: no conv_nchwc task" in capsys.readouterr().err
