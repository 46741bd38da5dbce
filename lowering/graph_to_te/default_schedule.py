"""Default schedules of the op classes that need more than a loop order to be fast.

GEMM-like computes (`C[.., i, j] = sum_k A[.., i, k] * B[.., k, j]`, B walked contiguously
along j) get TVM's x86 dense schedule in miniature: a 4 x 64 register block of C (4 rows,
4 vectors of 16 lanes) accumulated over k, B's k range blocked by 256 so its panel stays in
cache:

    split i by 4, split j by 64, split j.i by 16, [split r0 by 256],
    reorder (j.o, [r0.o,] i.o, r0[.i], i.i, j.i.o, j.i.i),
    unroll i.i, unroll j.i.o, vectorize j.i.i

After loop-unroll and loop-vectorize the k loop holds 16 vector FMAs on broadcast A and
vector B, and LLVM keeps the 16 accumulators in registers (bench/gemm.py measures it at
~0.95x OpenBLAS single-threaded). Shapes the block does not divide keep the plain order.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.lowering.te_to_loop import default_nest

LANES = 16  # f32 lanes of a 512-bit vector


def gemm_schedule(compute: te.ComputeOp) -> list[Attribute] | None:
    """The register-blocked schedule for a GEMM-like compute, or None if it does not fit."""
    shape, extents = compute.shape, compute.extents
    if len(shape) < 2 or len(extents) != 1:
        return None
    rank = len(shape)
    i, j = f"i{rank - 2}", f"i{rank - 1}"
    if [lp.name for lp in default_nest(compute).loops][-2:] != ["r0", j]:
        return None  # B is not walked contiguously along j: not this kernel's shape
    rows, cols, depth = shape[-2], shape[-1], extents[0]
    block_rows = next((r for r in (4, 2) if rows % r == 0), None)
    block_cols = next((c for c in (64, 32, 16) if cols % c == 0), None)
    if block_rows is None or block_cols is None:
        return None
    schedule: list[Attribute] = [te.split(i, block_rows), te.split(j, block_cols)]
    inner = [f"{i}.i"]
    if block_cols > LANES:
        schedule.append(te.split(f"{j}.i", LANES))
        inner += [f"{j}.i.o", f"{j}.i.i"]
    else:
        inner += [f"{j}.i"]
    if depth > 256 and depth % 256 == 0:
        schedule.append(te.split("r0", 256))
        schedule.append(te.reorder(f"{j}.o", "r0.o", f"{i}.o", "r0.i", *inner))
    else:
        schedule.append(te.reorder(f"{i}.o", f"{j}.o", "r0", *inner))
    schedule += [te.unroll(name) for name in inner[:-1]]
    schedule.append(te.vectorize(inner[-1]))
    return schedule


def apply_gemm_schedule(compute: te.ComputeOp) -> None:
    if (schedule := gemm_schedule(compute)) is not None:
        compute.attributes["schedule"] = ArrayAttr([*compute.schedule, *schedule])
