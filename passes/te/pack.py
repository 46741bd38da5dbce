"""te-pack: copy an operand into a blocked layout once per call, and read the copy instead.

This is the panel packing of OpenBLAS and of TVM's x86 dense schedule: a register-blocked
GEMM reads B[k, j .. j+15] for every k, one cache line per k at a stride of a whole row of
B. Packed as Bp[j / 16, k, j % 16], the 16 columns a vector FMA needs lie next to those of
the next k, so the reduction loop walks Bp contiguously (and the hardware prefetcher with it).

Before:

    %c = te.compute (%i, %j) in [8, 128] sum (%k) in [64] {schedule = [...]} : ... {
      %a = te.read %A[%i, %k] : tensor<8x64xf32>
      %b = te.read %B[%k, %j] : tensor<64x128xf32>
      ...

Call: `minitvm-opt k.mlir -p 'te-pack{kernel=matmul_0 compute=0 operand=1 dim=1 factor=16}'`

After:

    %p = te.compute "packed" (%x, %y, %z) in [8, 64, 16] : tensor<8x64x16xf32> {
      %16 = arith.constant 16 : index
      %x16 = arith.muli %x, %16 : index
      %col = arith.addi %x16, %z : index
      %v = te.read %B[%y, %col] : tensor<64x128xf32>
      te.yield %v : f32
    }
    %c = te.compute (%i, %j) in [8, 128] sum (%k) in [64] {schedule = [...]} : ... {
      %a = te.read %A[%i, %k] : tensor<8x64xf32>
      %c16 = arith.constant 16 : index
      %panel = arith.divui %j, %c16 : index
      %lane = arith.remui %j, %c16 : index
      %b = te.read %p[%panel, %k, %lane] : tensor<8x64x16xf32>
      ...

In general operand T (the `operand`-th tensor the compute reads, in the order of its first
read) is blocked along dimension `dim` (default: the last) by `factor`: T[.., x, ..] becomes
Tp[x / factor, (the other dims, in order), x % factor]. A factor that does not divide the
dimension pads the last block (the padding repeats the last element; no read reaches it).
convert-te-to-loop materializes the packed tensor in a scratch buffer and simplifies the
consumer's `/` and `%` away where the loops decide them (for j split by 64 then 16: j / 16 =
j.o * 4 + j.i.o, j % 16 = j.i.i), so the vectorized loop loads Bp with unit stride.

The copy is made as soon as the operand is complete (at the kernel's start for an argument),
so it has run before any loop that reads it, an epilogue's `#te.compute_at` host included;
a compute that runs inside the loops producing its operand cannot have it packed. Only this
compute's reads change; the result does not. A constant weight is packed on every
call too: for weights, packing once at compile time (a graph-level layout rewrite, as
graph-conv-layout does for the NCHW16c convolutions' weights) saves that copy. A packed GEMM
no longer has the shape the GEMM schedule template recognises: pack after tuning.
(TVM: `te.compute((N // bn, K, bn), lambda x, y, z: B[y, x * bn + z])` in its dense schedule.)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from minitvm.dialects import te
from minitvm.dialects.te_expr import Expr, Tensor, compute, minimum
from minitvm.errors import MinitvmError
from minitvm.passes.te.schedule_pass import computes_of, describe, find_compute


def read_tensors(consumer: te.ComputeOp) -> list[SSAValue]:
    """The tensors `consumer` reads, in the order of their first read."""
    tensors: dict[SSAValue, None] = {}
    for op in consumer.body.walk():
        if isinstance(op, te.ReadOp):
            tensors.setdefault(op.tensor, None)
    return list(tensors)


def packing_compute(tensor: SSAValue, dim: int, factor: int, name: str) -> te.ComputeOp:
    """Tp[x / factor, (other dims), x % factor] = T[.., x, ..] (x along `dim`)."""
    assert isinstance(tensor.type, TensorType)
    shape = tuple(tensor.type.get_shape())
    extent = shape[dim]
    others = [k for k in range(len(shape)) if k != dim]
    packed_shape = [-(-extent // factor), *(shape[k] for k in others), factor]

    def body(block: Expr, *rest: Expr) -> Expr:
        *other_indices, lane = rest
        index = block * factor + lane
        if extent % factor:  # the last block's padding lanes repeat the last element
            index = minimum(index, extent - 1)
        indices: list[Expr] = [index] * len(shape)
        for k, value in zip(others, other_indices):
            indices[k] = value
        return Tensor(tensor)[indices]

    packed = compute(packed_shape, tensor.type.element_type, body)
    packed.properties["name"] = StringAttr(name)
    return packed


def read_packed(read: te.ReadOp, packed: te.ComputeOp, dim: int, factor: int) -> None:
    """Replace `read` of T by the read of Tp at the same element."""
    index = read.indices[dim]
    divisor = arith.ConstantOp(IntegerAttr(factor, IndexType()), IndexType())
    block = arith.DivUIOp(index, divisor.result)
    lane = arith.RemUIOp(index, divisor.result)
    others = [v for k, v in enumerate(read.indices) if k != dim]
    new = te.ReadOp(packed.result, [block.result, *others, lane.result])
    Rewriter.insert_op([divisor, block, lane], InsertPoint.before(read))
    Rewriter.replace_op(read, new)


def loop_nest_of(compute: te.ComputeOp, computes: list[te.ComputeOp]) -> te.ComputeOp:
    """The compute whose loop nest `compute` runs in: its own, or (through `#te.compute_at`)
    its host's."""
    by_label = {c.label: c for c in computes if c.label is not None}
    for _ in computes:
        at = next((p for p in compute.schedule if isinstance(p, te.ComputeAtAttr)), None)
        if at is None or at.producer.data not in by_label:
            break
        compute = by_label[at.producer.data]
    return compute


def insertion_point(kernel: func.FuncOp, consumer: te.ComputeOp, tensor: SSAValue) -> InsertPoint:
    """Where the packing compute goes: right after the operand is complete (the kernel's
    start for an argument), so that it has run before any loop that reads the copy."""
    where = describe(kernel, consumer)
    if any(isinstance(p, te.InlineAttr) for p in consumer.schedule):
        raise MinitvmError(f"{where} is inlined into its readers: pack the operand of one of those")
    producer = tensor.owner
    if not isinstance(producer, te.ComputeOp):
        return InsertPoint.at_start(kernel.body.block)
    computes = computes_of(kernel)
    runs_in = loop_nest_of(consumer, computes)
    if computes.index(runs_in) <= computes.index(producer):
        raise MinitvmError(
            f"{where} runs in the loops of {describe(kernel, runs_in)}, before its operand is "
            "complete: the operand cannot be packed in between"
        )
    return InsertPoint.after(producer)


def unique_label(kernel: func.FuncOp, label: str) -> str:
    taken = {c.label for c in computes_of(kernel)}
    name, n = label, 0
    while name in taken:
        n += 1
        name = f"{label}_{n}"
    return name


@dataclass(frozen=True)
class PackPass(ModulePass):
    """Read operand `operand` of the selected compute from a copy blocked along `dim`."""

    name = "te-pack"

    #: The te kernel (its function's name).
    kernel: str
    #: The reading compute: its `name` or its index among the kernel's computes.
    compute: str | int
    #: Which tensor the compute reads: its index in the order of first reads.
    operand: int
    #: The block size along `dim`.
    factor: int
    #: The dimension of the operand to block (negative counts from the last).
    dim: int = -1
    #: The `name` of the packing compute (made unique with a suffix if taken).
    packed_name: str = "packed"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernel, consumer = find_compute(op, self.kernel, self.compute)
        tensor, dim = self.operand_and_dim(kernel, consumer)
        packed = packing_compute(tensor, dim, self.factor, unique_label(kernel, self.packed_name))
        Rewriter.insert_op(packed, insertion_point(kernel, consumer, tensor))
        reads = [r for r in consumer.body.walk() if isinstance(r, te.ReadOp) and r.tensor is tensor]
        for read in reads:
            read_packed(read, packed, dim, self.factor)

    def operand_and_dim(self, kernel: func.FuncOp, consumer: te.ComputeOp) -> tuple[SSAValue, int]:
        """The tensor to pack and the dimension to block (`dim` made non-negative), checked."""
        where = describe(kernel, consumer)
        tensors = read_tensors(consumer)
        if not 0 <= self.operand < len(tensors):
            known = ", ".join(f"{n} ({t.type})" for n, t in enumerate(tensors))
            raise MinitvmError(f"{where} reads no operand {self.operand} (operands: {known})")
        tensor = tensors[self.operand]
        assert isinstance(tensor.type, TensorType)
        shape = tuple(tensor.type.get_shape())
        dim = self.dim + len(shape) if self.dim < 0 else self.dim
        if not 0 <= dim < len(shape):
            raise MinitvmError(
                f"{where}: operand {self.operand} ({tensor.type}) has no dim {self.dim}"
            )
        if not 1 <= self.factor <= shape[dim]:
            raise MinitvmError(
                f"{where}: the pack factor must be between 1 and the dim's extent {shape[dim]}, "
                f"got {self.factor}"
            )
        return tensor, dim
