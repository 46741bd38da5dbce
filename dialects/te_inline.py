"""Apply `#te.inline`: substitute the computes marked with it into the computes that read them.

The te-inline pass runs this on every kernel; convert-te-to-loop runs it first of all, and
the schedule code runs it on copies of kernels to see the loop nests a schedule will give
(see `passes/te/inline.py` for the before and after).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from minitvm.dialects import te
from minitvm.errors import MinitvmError


def is_marked_inline(compute: te.ComputeOp) -> bool:
    return any(isinstance(p, te.InlineAttr) for p in compute.schedule)


def _inline_reads_of(compute: te.ComputeOp) -> None:
    """Replace every `te.read` of `compute`'s result by a copy of its body."""
    body = compute.body.block
    for use in list(compute.result.uses):
        read = use.operation
        if not isinstance(read, te.ReadOp):
            continue
        mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, read.indices))
        value: SSAValue | None = None
        for op in body.ops:
            if isinstance(op, te.YieldOp):
                value = mapping.get(op.value, op.value)
                break
            clone = op.clone(mapping)
            Rewriter.insert_op(clone, InsertPoint.before(read))
            mapping.update(zip(op.results, clone.results))
        assert value is not None
        Rewriter.replace_op(read, [], [value])


def inline_computes(kernel: func.FuncOp) -> None:
    """Apply every `#te.inline` in `kernel`, producers first."""
    for compute in [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]:
        if not is_marked_inline(compute):
            continue
        if compute.reduce_kind is not None:
            raise MinitvmError(
                f"schedule: cannot inline the reduction '{compute.label or compute.result.name_hint}'"
            )
        _inline_reads_of(compute)
        if not compute.result.uses:
            Rewriter.erase_op(compute)
        else:  # still a kernel result: materialize it, without the hint
            rest = [p for p in compute.schedule if not isinstance(p, te.InlineAttr)]
            compute.attributes[te.SCHEDULE_ATTR] = ArrayAttr(rest)
