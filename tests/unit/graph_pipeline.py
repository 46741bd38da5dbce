"""Test helpers: a model's graph after the default graph pipeline, and op counts in it."""

from __future__ import annotations

import onnx
from xdsl.dialects.builtin import ModuleOp

from minitvm.frontend import from_onnx
from minitvm.ir import make_context
from minitvm.pipeline import graph_passes


def optimized(model: onnx.ModelProto, opt_level: int = 3, winograd: str = "never") -> ModuleOp:
    """`model`'s graph after the graph passes of `opt_level` (layout, packing, fusion), 3x3
    convs direct unless `winograd` says otherwise (test_winograd.py tests the rewrite)."""
    module = from_onnx(model)
    ctx = make_context()
    for graph_pass in graph_passes(opt_level, winograd=winograd):
        graph_pass.apply(ctx, module)
    return module


def count(module: ModuleOp, kind: type) -> int:
    return sum(isinstance(op, kind) for op in module.walk())
