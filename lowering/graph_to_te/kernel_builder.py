"""What a graph-to-te lowering rule works with: a kernel under construction and a rule table.

A rule states one graph op's semantics as te computes:

    @lowering(graph.ReluOp)
    def _relu(kb: KernelBuilder, op: graph.ReluOp, x: Tensor) -> list[Tensor]:
        return [kb.compute(x.shape, x.element_type, lambda *i: maximum(x[i], 0.0))]

Rules receive their operands as `Tensor`s (kernel arguments or earlier computes) and return
one `Tensor` per op result. Because a rule only appends computes to a `KernelBuilder`,
several rules can fill one kernel: that is how fused groups become a single kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import f16, f32
from xdsl.ir import Attribute, Block, Operation

from minitvm.dialects.graph.base import Dim
from minitvm.dialects.te_expr import Expr, Tensor, cast, compute, widened_half_reads

Rule = Callable[..., Sequence[Tensor]]

#: graph op class -> the rule lowering it.
LOWERINGS: dict[type[Operation], Rule] = {}


def lowering(*op_classes: type[Operation]) -> Callable[[Rule], Rule]:
    """Register a rule for the given graph op classes."""

    def register(rule: Rule) -> Rule:
        for cls in op_classes:
            LOWERINGS[cls] = rule
        return rule

    return register


class KernelBuilder:
    """Appends te computes to the body of one kernel function."""

    def __init__(self, block: Block):
        self.block = block

    def compute(
        self,
        shape: Sequence[Dim],
        element_type: Attribute,
        body: Callable[..., Expr | float | int],
        *,
        reduce: tuple[str, Sequence[Dim]] | None = None,
    ) -> Tensor:
        if reduce is not None and element_type == f16 and reduce[0] in ("sum", "prod"):
            # Sums of f16 terms are computed in f32 (terms and accumulator) and round once,
            # as ONNX Runtime's f16 kernels do: an f16 accumulator loses a long sum's terms.
            with widened_half_reads():
                wide = self.compute(shape, f32, body, reduce=reduce)
            return self.compute(shape, f16, lambda *i: cast(wide[i], f16))
        op = compute(shape, element_type, body, reduce=reduce)
        self.block.add_op(op)
        return Tensor(op.result)


def broadcast_read(tensor: Tensor, index: Sequence[Expr]) -> Expr:
    """Read `tensor` at an index of a (numpy-)broadcast result: dims of size 1 read index 0,
    missing leading dims are dropped."""
    rank = len(tensor.shape)
    tail = index[len(index) - rank :] if rank else ()
    return tensor[tuple(0 if size == 1 else i for size, i in zip(tensor.shape, tail))]
