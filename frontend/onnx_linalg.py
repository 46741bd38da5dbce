"""ONNX Det (opsets 11, 22) as Gaussian elimination with partial pivoting, unrolled over the
static matrix size; no graph op of its own.

Step j works on the trailing (n - j) x (n - j) block B of every matrix in the batch at once:

    p     = graph.arg_max |B[:, 0]|                 the pivot row (first of equal maxima)
    prow  = graph.gather_elements B at row p        the pivot row's entries
    rest  = graph.where(row == p, B[0], B[1:])      rows 1.. after swapping rows 0 and p
    B'    = rest[:, 1:] - (rest[:, 0] / prow[0]) · prow[1:]
    det  *= prow[0], negated when p != 0

which is LAPACK's getrf (numpy's det) step for step, without its blocking. A zero pivot
column (a singular matrix) gives factor 0 instead of 0/0, and a zero determinant.

The graph grows by ~20 ops per step, so the size is capped at `MAX_SIZE` (see there). f16
and bf16 matrices are eliminated in f32.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.constant import element_type_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter

#: The largest matrix Det accepts. Each of the n - 1 elimination steps adds ~20 graph ops
#: (kernels after fusion: a handful), so compile time grows linearly in n; 32 keeps it to
#: seconds. The determinants models take (affine and 3-D geometry, small covariance
#: matrices) are 2x2 to 6x6.
MAX_SIZE = 32


@converter("Det")
def convert_det(ctx: NodeContext) -> list[Value]:
    shape = ctx.shape(0)
    dtype = ctx.dtype(0)
    if dtype.kind != "f" and dtype.name != "bfloat16":
        raise ctx.error(f"X must be a float tensor, got {dtype}")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ctx.error(f"X must be [..., M, M] (square matrices), got {list(shape)}")
    n, batch = shape[-1], list(shape[:-2])
    if n > MAX_SIZE:
        raise ctx.error(f"matrices of size {n} are not supported: Det is unrolled elimination, "
                        f"at most {MAX_SIZE}x{MAX_SIZE}")  # fmt: skip
    if n == 0:
        return [np.ones(batch, dtype)]
    work = dtype if dtype == np.float64 else np.dtype(np.float32)
    x = ctx.tensor(0)
    if work != dtype:
        x = ctx.make1(g.CastOp, x, to=element_type_of(work))
    count = math.prod(batch)
    b = ctx.make1(g.ReshapeOp, x, shape=[count, n, n])
    name = ctx.node.output[0]

    def scalar(value: int, dtype: np.dtype, tag: str) -> SSAValue:
        return ctx.materialize(np.array(value, dtype), f"{name}_{tag}")

    scalars = _Scalars(scalar(0, work, "zero"), scalar(1, work, "one"),
                       scalar(0, np.dtype(np.int64), "zero_index"))  # fmt: skip
    det: SSAValue | None = None
    for m in range(n, 0, -1):
        b, pivot, swapped = _eliminate(ctx, b, m, scalars)
        step = pivot if swapped is None else ctx.make1(
            g.WhereOp, swapped, ctx.make1(g.NegOp, pivot), pivot
        )  # fmt: skip
        det = step if det is None else ctx.make1(g.MulOp, det, step)
    assert det is not None
    if work != dtype:
        det = ctx.make1(g.CastOp, det, to=element_type_of(dtype))
    return [ctx.make1(g.ReshapeOp, det, shape=batch)]


class _Scalars(NamedTuple):
    zero: SSAValue
    one: SSAValue
    zero_index: SSAValue


def _eliminate(
    ctx: NodeContext, b: SSAValue, m: int, scalars: _Scalars
) -> tuple[SSAValue, SSAValue, SSAValue | None]:
    """One step on the [N, m, m] block b: the next block [N, m-1, m-1], the pivot [N, 1, 1],
    and whether rows were swapped ([N, 1, 1] i1; None for the last 1x1 step)."""
    count = b.type.get_shape()[0]  # type: ignore[attr-defined]

    def part(x: SSAValue, rows: tuple[int, int], cols: tuple[int, int]) -> SSAValue:
        return ctx.make1(g.SliceOp, x, starts=[0, rows[0], cols[0]],
                         ends=[count, rows[1], cols[1]], steps=[1, 1, 1])  # fmt: skip

    if m == 1:
        return b, b, None
    column = part(b, (0, m), (0, 1))
    p = ctx.make1(g.ArgMaxOp, ctx.make1(g.AbsOp, column), axis=1, keepdims=1)  # [N, 1, 1]
    prow = ctx.make1(g.GatherElementsOp, b, ctx.make1(g.ExpandOp, p, shape=[count, 1, m]),
                     axis=1)  # fmt: skip
    pivot = part(prow, (0, 1), (0, 1))
    # Rows 1.. after swapping rows 0 and p: row p (if p > 0) becomes the old row 0.
    rows = np.arange(1, m, dtype=np.int64).reshape(m - 1, 1)
    rows = ctx.materialize(rows, f"{ctx.node.output[0]}_rows")
    rest = ctx.make1(g.WhereOp, ctx.make1(g.EqualOp, p, rows), part(b, (0, 1), (0, m)),
                     part(b, (1, m), (0, m)))  # fmt: skip
    singular = ctx.make1(g.EqualOp, pivot, scalars.zero)  # the column is 0: so is the det
    safe = ctx.make1(g.WhereOp, singular, scalars.one, pivot)
    factor = ctx.make1(g.DivOp, part(rest, (0, m - 1), (0, 1)), safe)
    update = ctx.make1(g.MulOp, factor, part(prow, (0, 1), (1, m)))
    nxt = ctx.make1(g.SubOp, part(rest, (0, m - 1), (1, m)), update)
    swapped = ctx.make1(g.GreaterOp, p, scalars.zero_index)
    return nxt, pivot, swapped
