"""Lowering rules of the elementwise graph ops (unary math, broadcasting binary ops)."""

from __future__ import annotations

from minitvm.dialects import graph
from minitvm.dialects.te_expr import Tensor, maximum
from minitvm.lowering.graph_to_te.kernel_builder import KernelBuilder, broadcast_read, lowering


@lowering(graph.ReluOp)
def _relu(kb: KernelBuilder, op: graph.ReluOp, x: Tensor) -> list[Tensor]:
    return [kb.compute(x.shape, x.element_type, lambda *i: maximum(x[i], 0.0))]


@lowering(graph.AddOp)
def _add(kb: KernelBuilder, op: graph.AddOp, a: Tensor, b: Tensor) -> list[Tensor]:
    out = op.result.type
    return [
        kb.compute(
            out.get_shape(), out.element_type, lambda *i: broadcast_read(a, i) + broadcast_read(b, i)
        )
    ]
