"""Which of @main's graph ops are views: results whose elements are a contiguous run of the
input's, in the same row-major order, so they need no kernel and no copy.

    graph.reshape                      any reshape (the same elements, another shape)
    graph.split along axis a           where the dims before a are 1: piece k starts at
                                       sum(sizes[:k]) x (the dims after a)
    graph.slice                        where it keeps one run: step 1, the axes after the
                                       last one it cuts whole, those before it kept at size 1

A concat is the other way round: where its inputs are runs of rows of its result, each
written by a kernel, the kernels write them there (`in_place_concat`): @main allocates the
concat's buffer and hands each kernel a view of it as the input's buffer.

convert-graph-to-te leaves such an op in @main, instead of making it a kernel (a copy:
an LSTM's split of its input projection into 64 steps copied 256 KiB four times a run, on
one thread), and convert-te-to-loop writes a `loop.view` per result (per input, for a
concat). A piece must start at a multiple of 64 bytes (every buffer's alignment, which
kernels' vector accesses rely on), and a split, slice or concat must be of static shape;
the rest stay kernels. Views are made in @main's own block only, not in a graph.if's
branches or a graph.loop's body: the body copies its yields into the loop's state buffers,
and a view of one of those would change under its readers.
"""

from __future__ import annotations

import math

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue

from minitvm.dialects import graph, loop
from minitvm.dialects.graph.base import get_int, get_ints, shape_of
from minitvm.runtime.abi import ALIGNMENT


def view_starts(op: Operation) -> list[int] | None:
    """The element at which each of `op`'s results starts in its input, where `op` is a
    view (module doc); None where it needs a kernel."""
    if isinstance(op, graph.ReshapeOp):
        return [0]
    if not isinstance(op, graph.SplitOp | graph.SliceOp):
        return None
    input_type = op.operands[0].type
    assert isinstance(input_type, TensorType)
    shape = shape_of(input_type)
    if not all(isinstance(d, int) for d in shape) or not math.prod(shape):  # type: ignore[arg-type]
        return None
    starts = _split_starts(op, shape) if isinstance(op, graph.SplitOp) else _slice_start(op, shape)  # type: ignore[arg-type]
    width = loop.element_bytes(input_type.element_type)
    if starts is None or any(start * width % ALIGNMENT for start in starts):
        return None
    return starts


def in_place_concat(
    op: Operation, block: Block, claimed: set[SSAValue], returned: set[SSAValue]
) -> list[int] | None:
    """Where each input of `op`, a graph.concat in `block`, starts in the concat's buffer if
    the kernels that compute the inputs can write them there, so that the concat is no
    kernel and no copy; None where it needs a kernel. The concat's pieces must be runs of
    rows, as a split's (static shape, the dims before its axis 1, each piece at a multiple of
    64 bytes), each input written by a kernel call of `block` (not an input, a constant, a
    view: their bytes are elsewhere), and once: not returned by the model (its output
    buffer is elsewhere), not twice in `op`, not in another concat in place (`claimed`,
    which this adds `op`'s inputs to)."""
    if not isinstance(op, graph.ConcatOp) or len(op.inputs) < 2:
        return None
    result_type = op.result.type
    assert isinstance(result_type, TensorType)
    shape = shape_of(result_type)
    if not all(isinstance(d, int) for d in shape) or not math.prod(shape):  # type: ignore[arg-type]
        return None
    axis = get_int(op.properties, "axis")
    sizes = [shape_of(v.type)[axis] for v in op.inputs]  # type: ignore[arg-type]
    starts = _row_runs(shape, axis, sizes)  # type: ignore[arg-type]
    width = loop.element_bytes(result_type.element_type)
    inputs = set(op.inputs)
    if (
        starts is None
        or any(start * width % ALIGNMENT for start in starts)
        or len(inputs) != len(op.inputs)
        or inputs & (claimed | returned)
        or not all(isinstance(v.owner, func.CallOp) and v.owner.parent is block for v in op.inputs)
    ):
        return None
    claimed |= inputs
    return starts


def _row_runs(shape: tuple[int, ...], axis: int, sizes: list[int]) -> list[int] | None:
    """Where pieces of `sizes` along `axis` of a tensor of `shape` start (elements), if each
    is a run of rows: the dims before `axis` are 1."""
    if any(d != 1 for d in shape[:axis]):
        return None
    row = math.prod(shape[axis + 1 :])
    starts, at = [], 0
    for size in sizes:
        starts.append(at * row)
        at += size
    return starts


def _split_starts(op: graph.SplitOp, shape: tuple[int, ...]) -> list[int] | None:
    return _row_runs(shape, get_int(op.properties, "axis"), list(get_ints(op.properties, "sizes")))  # type: ignore[arg-type]


def _slice_start(op: graph.SliceOp, shape: tuple[int, ...]) -> list[int] | None:
    starts, ends, steps = (get_ints(op.properties, n) for n in ("starts", "ends", "steps"))
    if not all(isinstance(v, int) for v in (*starts, *ends)) or any(s != 1 for s in steps):
        return None
    kept = [max(0, e - s) for s, e in zip(starts, ends)]  # type: ignore[operator]
    cut = [k for k, (size, dim) in enumerate(zip(kept, shape)) if size != dim]
    if not cut or 0 in kept:
        return None  # all of it (canonicalize's), or nothing
    if any(kept[k] != 1 for k in range(cut[-1])):
        return None  # rows of the last axis it cuts, but more than one of them
    strides = [math.prod(shape[k + 1 :]) for k in range(len(shape))]
    return [sum(s * stride for s, stride in zip(starts, strides))]  # type: ignore[misc]
