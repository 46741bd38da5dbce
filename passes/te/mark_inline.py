"""te-mark-inline: mark one compute `#te.inline` (TVM's `compute_inline`).

Before (an elementwise producer read by an elementwise consumer):

    %p = te.compute (%i0) in [8] : tensor<8xf32> {...}
    %q = te.compute (%i0) in [8] : tensor<8xf32> { %v = te.read %p[%i0] ... }

Call: `minitvm-opt k.mlir -p 'te-mark-inline{kernel=chain compute=0}'`

After:

    %p = te.compute (%i0) in [8] {schedule = [#te.inline]} : tensor<8xf32> {...}

The mark is applied by te-inline (or by convert-te-to-loop, which runs it first): the body of
`%p` replaces every read of it, and `%p` gets no buffer and no loop nest. A reduction cannot
be inlined.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.passes.te.schedule_pass import SchedulePass


@dataclass(frozen=True)
class MarkInlinePass(SchedulePass):
    name = "te-mark-inline"

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        return [te.inline()]
