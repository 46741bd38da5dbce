"""The work and the traffic of a te kernel: floating-point operations, and the bytes of its
arguments and results. With a kernel's time they place it on the roofline (`minitvm
profile`): GFLOP/s against the machine's FMA peak, GB/s against its memory bandwidth, and the
arithmetic intensity (flops per byte) that says which of the two bounds it.

Flops are counted as the kernel runs them once its `#te.inline`s are applied (an inlined
compute is recomputed at each read): per element of each compute, its body's float
arithmetic and math ops, plus one for the reduction's own combine, times the reduction's
extent. A GEMM's `sum_k a[i, k] * b[k, j]` is 2 flops per (i, j, k), the usual 2MNK. Selects,
comparisons, index arithmetic and reads cost nothing. Bytes are the kernel's arguments
(weights included) and results, each counted once: the least traffic that can compute it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ShapedType
from xdsl.ir import Operation

from minitvm.dialects import te
from minitvm.dialects.graph.base import shape_of
from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.dialects.te_inline import inline_computes
from minitvm.symbolic import evaluate, product

#: Float arithmetic that counts as one flop per element (FMAs do not appear at this level).
_FLOP_OPS = (
    arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp, arith.MinimumfOp,
    arith.MaxnumfOp, arith.MinnumfOp, arith.NegfOp,
)  # fmt: skip


@dataclass(frozen=True)
class KernelCost:
    flops: int
    bytes: int

    @property
    def intensity(self) -> float:
        """Flops per byte of traffic."""
        return self.flops / self.bytes if self.bytes else math.inf


def _is_flop(op: Operation) -> bool:
    return isinstance(op, _FLOP_OPS) or op.name.startswith("math.")


def _bytes(type_: object) -> int:
    """A tensor's bytes as the runtime holds it (`numpy_dtype_of`: an i1 is a byte)."""
    if not isinstance(type_, ShapedType):
        return 0
    return product(shape_of(type_)) * numpy_dtype_of(type_.get_element_type()).itemsize


def compute_flops(compute: te.ComputeOp) -> int:
    """Flops of one compute (see the module docstring)."""
    per_point = sum(1 for op in compute.body.walk() if _is_flop(op))
    per_point += 1 if compute.reduce_kind is not None else 0
    return product(compute.shape) * product(compute.extents) * per_point


def kernel_cost(kernel: func.FuncOp, sizes: Mapping[str, int] | None = None) -> KernelCost:
    """The flops and bytes of a te kernel (it is not changed: a copy is inlined); a kernel of
    symbolic sizes at the symbols' values `sizes`."""
    copy = kernel.clone()
    inline_computes(copy)
    flops = sum(compute_flops(op) for op in copy.body.block.ops if isinstance(op, te.ComputeOp))
    types = [*kernel.function_type.inputs.data, *kernel.function_type.outputs.data]
    traffic = sum(_bytes(t) for t in types)
    if sizes is not None:
        flops, traffic = evaluate(flops, sizes), evaluate(traffic, sizes)
    return KernelCost(flops, traffic)
