"""Symbolic sizes through convert-graph-to-te: ONE te module per model, evaluated by the te
interpreter at several sizes, against ONNX Runtime run at each of them.

The kernels say WHAT they compute for any value of the symbols: result and reduction
extents are symbolic (`te.compute (...) in ["batch", "seq", 64]`), and index arithmetic
that needs a size reads it with `te.size` (a reshape's row length, a mean's count). The te
interpreter takes the symbols' values from its inputs' shapes. Models go through the -O3
graph passes first (layouts, packed weights, fusion), as a compile does."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import models
import numpy as np
import onnx
import pytest
from xdsl.dialects.builtin import ModuleOp

from minitvm.dialects.te import SizeOp
from minitvm.dialects.te_eval import TeEvalError, run_module
from minitvm.frontend import from_onnx
from minitvm.ir import make_context, parse_module
from minitvm.passes.registry import make_pass
from minitvm.pipeline import graph_passes
from minitvm.runtime.ort import ort_session

ONNX_DIR = models.ONNX_DIR


def te_module(model: onnx.ModelProto, bounds: Mapping[str, Sequence[object]] | None = None) -> ModuleOp:
    """The model imported with its symbols, through the -O3 graph passes, as te kernels."""
    module = from_onnx(model, bounds)  # type: ignore[arg-type]
    ctx = make_context()
    for graph_pass in graph_passes(3):
        graph_pass.apply(ctx, module)
    make_pass("convert-graph-to-te").apply(ctx, module)
    module.verify()
    return module


def assert_runs_at(
    model: onnx.ModelProto,
    shapes_list: Sequence[Mapping[str, Sequence[int]]],
    bounds: Mapping[str, Sequence[object]] | None = None,
    rtol: float = 1e-4,
) -> ModuleOp:
    module = te_module(model, bounds)
    session = ort_session(model, num_threads=1)
    names = [v.name for v in model.graph.input]
    for seed, shapes in enumerate(shapes_list):
        feeds = models.random_feeds(model, shapes, seed)
        got = run_module(module, [feeds[n] for n in names])
        want = session(feeds)
        for ours, theirs in zip(got, want, strict=True):
            assert ours.shape == theirs.shape, shapes
            scale = float(np.abs(theirs).max())
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol * scale, err_msg=str(shapes))
    return module


CASES = models.SYMBOLIC_CASES


@pytest.mark.parametrize("name", CASES)
def test_one_te_module_runs_at_every_size(name: str) -> None:
    build, shapes_list, bounds = CASES[name]
    module = assert_runs_at(build(), shapes_list, bounds)
    text = str(module)
    assert '#graph.dims<"' in text  # the kernels are symbolic, not specialized
    assert str(parse_module(text)) == text  # and their text round-trips


def test_sizes_the_index_arithmetic_needs_are_te_size_reads() -> None:
    """A reshape of [batch, seq, 64] into [batch * seq, 64] reads the row count it divides
    by with te.size; a mean over a symbolic axis divides by its size the same way."""
    module = te_module(models.bert_encoder_layer(seq=16, hidden=64, heads=4, ffn=128, dynamic=True))
    sizes = {op.size.data for op in module.walk() if isinstance(op, SizeOp)}
    resnet = te_module(models.with_dynamic_dims(models.resnet18(image=64), {"x": ["batch", None, "h", "w"]}))
    counts = {op.size.data for op in resnet.walk() if isinstance(op, SizeOp)}
    assert any("floordiv" in c for c in counts), counts  # the global pool's H * W
    assert sizes <= {"seq", "batch", "batch*seq"}, sizes


def test_inputs_that_disagree_on_a_symbol_are_refused() -> None:
    """`sequence` takes its value from the first input dimension named so (input_ids'), and
    every other input must agree with it."""
    module = te_module(onnx.load(os.path.join(ONNX_DIR, "gpt2_dynamic.onnx")))
    ids, mask = np.zeros((2, 9), np.int64), np.ones((2, 7), np.int64)
    with pytest.raises(TeEvalError, match=r"input #1 has shape \(2, 7\), expected tensor<\?x\?xi64"):
        run_module(module, [ids, mask])
