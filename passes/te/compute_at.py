"""te-compute-at: run a compute inside a loop of the compute it reads (a fused epilogue).

Before (a matmul, then a relu reading it; two loop nests, the relu's after the matmul's):

    %c = te.compute "mm" (%i, %j) in [4, 16] sum (%k) in [8] : tensor<4x16xf32> {...}
    %r = te.compute (%i, %j) in [4, 16] : tensor<4x16xf32> {
      %v = te.read %c[%i, %j] : tensor<4x16xf32>
      ...
    }

Call: `minitvm-opt k.mlir -p 'te-compute-at{kernel=matmul_relu compute=1 target=mm axis=i0}'`

After:

    %r = te.compute (%i, %j) in [4, 16] {schedule = [#te.compute_at<"mm", "i0">]} ...

convert-te-to-loop then emits the relu's remaining loops (j) inside the matmul's loop i0,
after the matmul's own loops there: each row is finished while it is in cache, and a
pointwise epilogue updates the matmul's buffer in place. The loops up to `axis` must be
unsplit (or fused) spatial loops the two computes share. (TVM's `compute_at`, seen from the
consumer.)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.errors import MinitvmError
from minitvm.passes.te.schedule_pass import SchedulePass, loop_name


@dataclass(frozen=True)
class ComputeAtPass(SchedulePass):
    name = "te-compute-at"

    #: The `name` of the compute to run inside.
    target: str
    #: The loop of `target` to run inside.
    axis: str

    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        block = compute.parent_block()
        assert block is not None
        computes = [op for op in block.ops if isinstance(op, te.ComputeOp)]
        producer = next((c for c in computes if c.label == self.target), None)
        if producer is None:
            names = ", ".join(f'"{c.label}"' for c in computes if c.label) or "none"
            raise MinitvmError(
                f'no compute named "{self.target}" to run inside (named computes: {names})'
            )
        return [te.compute_at(self.target, loop_name(producer, self.axis))]
