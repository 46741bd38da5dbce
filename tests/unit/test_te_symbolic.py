"""Symbolic sizes through convert-graph-to-te: ONE te module per model, evaluated by the te
interpreter at several sizes, against ONNX Runtime run at each of them.

The kernels say WHAT they compute for any value of the symbols: result and reduction
extents are symbolic (`te.compute (...) in ["batch", "seq", 64]`), and index arithmetic
that needs a size reads it with `te.size` (a reshape's row length, a mean's count). The te
interpreter takes the symbols' values from its inputs' shapes. Models go through the -O3
graph passes first (layouts, packed weights, fusion), as a compile does."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

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
from tests import models

ONNX_DIR = os.path.join(os.path.dirname(__file__), "..", "models", "onnx")


def te_module(model: onnx.ModelProto, bounds: Mapping[str, Sequence[object]] | None = None) -> ModuleOp:
    """The model imported with its symbols, through the -O3 graph passes, as te kernels."""
    module = from_onnx(model, bounds)  # type: ignore[arg-type]
    ctx = make_context()
    for graph_pass in graph_passes(3):
        graph_pass.apply(ctx, module)
    make_pass("convert-graph-to-te").apply(ctx, module)
    module.verify()
    return module


def feeds_for(model: onnx.ModelProto, shapes: Mapping[str, Sequence[int]], seed: int) -> dict[str, np.ndarray]:
    """Random inputs: floats N(0, 1); token ids below 100; masks and token types 0 or 1."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in model.graph.input:
        dtype = onnx.helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
        shape = shapes[value.name]
        if dtype == np.int64:
            high = 2 if ("mask" in value.name or "type" in value.name) else 100
            feeds[value.name] = rng.integers(0, high, shape).astype(np.int64)
        else:
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


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
        feeds = feeds_for(model, shapes, seed)
        got = run_module(module, [feeds[n] for n in names])
        want = session(feeds)
        for ours, theirs in zip(got, want, strict=True):
            assert ours.shape == theirs.shape, shapes
            scale = float(np.abs(theirs).max())
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol * scale, err_msg=str(shapes))
    return module


CASES: dict[str, tuple[Callable[[], onnx.ModelProto], list[dict[str, tuple[int, ...]]], dict | None]] = {
    "bert_layer": (
        lambda: models.bert_encoder_layer(seq=16, hidden=64, heads=4, ffn=128, dynamic=True),
        [{"hidden_states": (2, 5, 64)}, {"hidden_states": (1, 9, 64)}, {"hidden_states": (3, 1, 64)}],
        None,
    ),
    "resnet18": (
        lambda: models.with_dynamic_dims(models.resnet18(image=64), {"x": ["batch", None, "h", "w"]}),
        [{"x": (1, 3, 32, 40)}, {"x": (2, 3, 37, 29)}],
        None,
    ),
    "mobilenet_v2": (
        lambda: models.with_dynamic_dims(models.mobilenet_v2(image=64), {"x": ["batch", None, "h", "w"]}),
        [{"x": (1, 3, 40, 33)}, {"x": (2, 3, 32, 32)}],
        None,
    ),
    "mlp": (
        lambda: models.with_dynamic_dims(models.mlp(), {"x": ["batch", None]}),
        [{"x": (3, 784)}, {"x": (1, 784)}],
        None,
    ),
    "gpt2_export": (
        lambda: onnx.load(os.path.join(ONNX_DIR, "gpt2_dynamic.onnx")),
        [{"input_ids": (2, 9), "attention_mask": (2, 9)}, {"input_ids": (1, 4), "attention_mask": (1, 4)}],
        None,
    ),
    "bert_export": (
        lambda: onnx.load(os.path.join(ONNX_DIR, "bert_dynamic.onnx")),
        [dict.fromkeys(("input_ids", "attention_mask", "token_type_ids"), s) for s in ((2, 11), (1, 5))],
        dict.fromkeys(("input_ids", "attention_mask", "token_type_ids"), (None, "1..64")),
    ),
    "vit_export": (
        lambda: onnx.load(os.path.join(ONNX_DIR, "vit_dynamic.onnx")),
        [{"pixel_values": (2, 3, 32, 32)}, {"pixel_values": (1, 3, 32, 32)}],
        None,
    ),
}  # fmt: skip


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
