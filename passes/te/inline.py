"""te-inline: substitute computes marked `#te.inline` into the computes that read them.

Before:

    %p = te.compute (%i0) in [8] {schedule = [#te.inline]} : tensor<8xf32> {
      %a = te.read %x[%i0] : tensor<8xf32>
      %b = arith.addf %a, %a : f32
      te.yield %b : f32
    }
    %q = te.compute (%i0) in [8] : tensor<8xf32> {
      %v = te.read %p[%i0] : tensor<8xf32>
      %r = math.exp %v : f32
      te.yield %r : f32
    }

After: `%p` is gone and `%q`'s body computes `exp(x[i0] + x[i0])` directly. This is TVM's
`compute_inline`: no buffer and no loop nest for the inlined tensor, at the price of
recomputing it per read. A reduction cannot be inlined; a kernel result marked inline is still
materialized for the caller (and inlined into its readers too).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
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


@dataclass(frozen=True)
class InlinePass(ModulePass):
    name = "te-inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.ops:
            if isinstance(kernel, func.FuncOp) and te.KERNEL_ATTR in kernel.attributes:
                inline_computes(kernel)
