"""What every schedule-primitive pass shares: pick a compute, append primitives, check them.

The te-split, te-tile, te-reorder, te-fuse, te-vectorize, te-unroll, te-parallel,
te-prefetch, te-compute-at and te-mark-inline passes are each a `SchedulePass`: options `kernel` (the
te kernel's function name) and `compute` (the compute's `name`, e.g. "anchor", or its index
among the kernel's computes) select one compute, and the pass says which primitives to
append to its `schedule`:

    minitvm-opt k.mlir -p 'te-split{kernel=matmul_0 compute=0 axis=i0 factor=4}'

Loop names are those of the compute's loop nest after its current schedule (i0.., r0..,
`X.o`/`X.i` after a split, `X.Y.fused` after a fuse). Pass options cannot hold a `.` unquoted,
so `axis="i1.i"` and `axis=i1_i` (the name loop IR gives that loop's variable) both name
loop i1.i. The new schedule is checked before the kernel is changed, on a copy of the kernel
that te-inline has run on, with the loop nests convert-te-to-loop would build from it
(`dialects/te_nest.py`): a kernel, compute or loop that does not exist, or a primitive that
does not apply, is a `MinitvmError` naming what does exist (`minitvm-opt` prints it as
`error: ...`).

This is the passes' shared selection and checking, not a pass; te-pack (which rewrites the
kernel rather than appending a primitive) uses `find_compute` too.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass

from minitvm.dialects import te
from minitvm.dialects.te_inline import inline_computes
from minitvm.dialects.te_nest import kernel_nests, scheduled_nest
from minitvm.errors import MinitvmError


def computes_of(kernel: func.FuncOp) -> list[te.ComputeOp]:
    return [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]


def describe(kernel: func.FuncOp, compute: te.ComputeOp) -> str:
    """How messages name a compute: `@matmul_0 compute 1 ("anchor")`."""
    index = computes_of(kernel).index(compute)
    label = f' ("{compute.label}")' if compute.label is not None else ""
    return f"@{kernel.sym_name.data} compute {index}{label}"


def find_compute(
    module: ModuleOp, kernel: str, compute: str | int
) -> tuple[func.FuncOp, te.ComputeOp]:
    """The te kernel named `kernel` and its compute named (or numbered) `compute`."""
    kernels = [
        op for op in module.ops if isinstance(op, func.FuncOp) and te.KERNEL_ATTR in op.attributes
    ]
    found = next((k for k in kernels if k.sym_name.data == kernel), None)
    if found is None:
        known = ", ".join(f"@{k.sym_name.data}" for k in kernels) or "none"
        raise MinitvmError(f"no te kernel @{kernel} (te kernels: {known})")
    computes = computes_of(found)
    known = ", ".join(f'{n} ("{c.label}")' if c.label else str(n) for n, c in enumerate(computes))
    if isinstance(compute, int):
        if not 0 <= compute < len(computes):
            raise MinitvmError(f"@{kernel} has no compute {compute} (computes: {known})")
        return found, computes[compute]
    named = [c for c in computes if c.label == compute]
    if len(named) != 1:
        problem = "no compute" if not named else f"{len(named)} computes"
        raise MinitvmError(f'@{kernel} has {problem} named "{compute}" (computes: {known})')
    return found, named[0]


def loop_name(compute: te.ComputeOp, name: str) -> str:
    """`name` as a loop of `compute`'s scheduled nest, accepting `i1_i` for `i1.i`."""
    loops = [lp.name for lp in scheduled_nest(compute).loops]
    if name in loops:
        return name
    aliases = [lp for lp in loops if lp.replace(".", "_") == name]
    if len(aliases) == 1:
        return aliases[0]
    raise MinitvmError(f"schedule: no loop named '{name}' (loops: {', '.join(loops)})")


def append_schedule(
    kernel: func.FuncOp, compute: te.ComputeOp, primitives: Sequence[Attribute]
) -> None:
    """Append `primitives` to `compute`'s schedule once a copy of the kernel with them has
    loop nests (as convert-te-to-loop sees it: inlined first)."""
    schedule = ArrayAttr([*compute.schedule, *primitives])
    copy = kernel.clone()
    twin = computes_of(copy)[computes_of(kernel).index(compute)]
    twin.attributes[te.SCHEDULE_ATTR] = schedule
    try:
        inline_computes(copy)
        kernel_nests(copy)
    except MinitvmError as error:
        raise MinitvmError(f"{describe(kernel, compute)}: {error}") from None
    compute.attributes[te.SCHEDULE_ATTR] = schedule


@dataclass(frozen=True)
class SchedulePass(ModulePass, ABC):
    """Append `primitives(compute)` to the schedule of the compute `kernel`/`compute` select."""

    #: The te kernel (its function's name, e.g. matmul_0).
    kernel: str
    #: The compute: its `name` (e.g. anchor) or its index among the kernel's computes.
    compute: str | int

    @abstractmethod
    def primitives(self, compute: te.ComputeOp) -> list[Attribute]:
        """The primitives to append (loop names resolved with `loop_name`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernel, compute = find_compute(op, self.kernel, self.compute)
        te.refuse_symbolic(kernel, self.name)
        try:
            primitives = self.primitives(compute)
        except MinitvmError as error:
            raise MinitvmError(f"{describe(kernel, compute)}: {error}") from None
        append_schedule(kernel, compute, primitives)
