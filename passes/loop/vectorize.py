"""loop-vectorize: turn a `loop.for` marked `vectorize` into straight-line vector code.

The `vectorize` hint comes from a `#te.vectorize<"axis">` schedule primitive. A loop whose
trip count is a lane count (4, 8, 16 or 32) becomes one vector body of that many lanes; one
whose trip count is another multiple of 16 is first strip-mined into a scalar loop over
16-lane vector bodies. Any other trip count of at least 4 is covered in order by 16-lane
strips, then one 8-lane and one 4-lane body where what is left allows, then copies of the
scalar body for the last 1-3 iterations (`vector_pieces`: 49 = 3 x 16 + 1, 196 = 12 x 16 + 4;
a reduction carries its value from piece to piece). A loop to a run-time bound
(`loop.for %i = 0 to %n (at most N)`, step 1, N >= 16) becomes a loop over (n - lower) / 16
vector bodies, then a scalar loop over the 0-15 iterations left. Here `C[i, j0 + j] += A[i, k] *
B[k, j0 + j]` over 16 lanes of j:

    loop.for %j = 0 to 16 step 1 {
      %col = arith.addi %j0, %j : index
      %a = loop.load %A[%i, %k] : memref<64x64xf32> -> f32
      %b = loop.load %B[%k, %col] : memref<64x64xf32> -> f32
      %p = arith.mulf %a, %b : f32
      %c = loop.load %C[%i, %col] : memref<64x64xf32> -> f32
      %s = arith.addf %c, %p : f32
      loop.store %s, %C[%i, %col] : f32, memref<64x64xf32>
    } {vectorize}

becomes

    %j = arith.constant 0 : index
    %col = arith.addi %j0, %j : index                        // lane 0's column
    %a = loop.load %A[%i, %k] : memref<64x64xf32> -> f32     // the same for every lane
    %b = loop.vload %B[%k, %col] : memref<64x64xf32> -> vector<16xf32>
    %a_1 = loop.broadcast %a : f32 -> vector<16xf32>         // where a vector needs it
    %c = loop.vload %C[%i, %col] : memref<64x64xf32> -> vector<16xf32>
    %s = math.fma %a_1, %b, %c : vector<16xf32>             // the mulf feeding the addf
    loop.vstore %s, %C[%i, %col] : vector<16xf32>, memref<64x64xf32>

The analysis walks the body once, in order, classifying every value as
- uniform: defined outside the loop, or computed from uniform values only (constants, pure
  ops, loads whose indices are all uniform). It stays a scalar, computed once; it is
  broadcast (`loop.broadcast`) where a vector needs it.
- an affine index: the induction variable (lane stride = step) and `arith.addi`/`subi` of
  affine and uniform indices, `arith.muli` by a constant. It stays a scalar holding lane 0's
  value (the body cloned with the induction variable at its first value); lane l's value is
  lane 0's plus l * stride. An affine index used in any other way (`index_cast`, a
  division by a non-constant, a comparison) makes the loop unvectorizable.
- a split fused index: an affine index divided (`divui`, `divsi`, `floordivsi`) or reduced
  (`remui`, `remsi`) by a constant W, plus uniform values: how a loop fusing two dims sees
  them (`h = p / W`, `w = p % W`). An access `buf[..., p / W + u, p % W + v]` whose last dim
  is W, with p of stride 1, reads or writes consecutive elements (its row-major offset is
  p + u * W + v, across row ends too): it becomes a vector access at lane 0's indices. Any
  other use of such a value makes the loop unvectorizable.
- varying: everything else computed from varying values or affine indices. It becomes a
  `vector<lanes x T>`: a load whose last index is affine with stride 1 and whose other
  indices are uniform becomes `loop.vload`, such a store `loop.vstore`; `arith`/`math` ops
  become the same op on vectors (when their verifier accepts vectors), except comparisons,
  selects on a varying condition and the int<->float casts, whose xDSL ops verify scalars
  only: they become `loop.vcmpf`/`loop.vcmpi`/`loop.vselect`/`loop.vcast`. With `fma`
  (default on), a vector `arith.addf` of a single-use vector `arith.mulf` becomes `math.fma`
  (LLVM would need `contract` flags to fuse them; TVM's LLVM backend fuses too).
- loop-carried values (iter_args) must be reductions: each carried value is used once, by an
  `arith` op of a `loop.vreduce` kind (addf, maximumf, addi, ori, ...) whose result is
  yielded and used nowhere else. With one vector body the reduced values are computed as a
  vector and folded into the initial value by `loop.vreduce` (for addf/mulf in lane order,
  exactly the scalar loop's order); a strip-mined loop carries a vector accumulator, starting
  at the kind's identity, and folds it once after the loop (this reassociates a float sum).

Memory is safe to vectorize when no lane reads what another lane writes: every buffer the
loop stores to must be accessed only by vector accesses with the same indices (each lane
then reads and writes only its own element, in program order), so a read-modify-write of
the same elements is fine; buffers that are only read are unrestricted. Distinct buffers do
not overlap (kernels' buffer arguments are `noalias`, allocations are disjoint).

Anything else leaves the loop scalar, without the hint and with nothing emitted (the reason
is a debug-level log record of `minitvm.passes.loop.vectorize`): a gather or scatter
(a varying index in a non-last dimension, or a stride other than 1), a store to a uniform
address, a nested loop or `loop.if`, an op with side effects or without a vector form, an
iter_arg that is not a reduction, a trip count below 4, a step other than 1 on a
non-unit-stride access, or a memory dependence between lanes.

A loop whose body still holds loops marked `unroll` is left for later, hint and all: the
pipeline runs this pass before loop-unroll, so that a vector loop inside unrolled ones
becomes vector code once rather than once per copy (a Winograd transform's 16 positions),
and again after it, when the unrolled inner loops of the rest are straight-line code. The
LLVM IR that comes out is the same, byte for byte, for every model of `minitvm bench`; light
ResNet-50 compiles in 0.91x the time (AMD EPYC Zen 4, 2 processes: 6.93-7.23 s against
7.70-7.95). Together they make register blocking out of a
schedule: split i by 4 and j by 64 (= 4 x 16), order
(i.o, j.o, k, i.i, j.i.o, j.i.i), unroll i.i and j.i.o, vectorize j.i.i, and the k loop's
body is 16 of the blocks above. C's vload/vstore pairs there are loop-invariant, and with
`noalias` kernel arguments LLVM's LICM keeps the 16 accumulators in registers across the k
loop (the loop then holds 4 vector loads of B, 4 broadcasts of A and 16 FMAs per k). Not always,
though: in a batched matmul whose K equals its N, [16, 784, 64] x [16, 64, 64], LICM left
the accumulators of a block of 2 or more rows in memory, a load and a store around every
FMA. `loop-promote-accumulators`, which runs after this pass, makes them loop-carried
values itself.
MLIR counterpart: `affine-super-vectorize` (plus its reduction support), restricted to full
vectors of one loop.
"""

from __future__ import annotations

import logging
import math as pymath
from dataclasses import dataclass, field, replace

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from minitvm.dialects import loop
from minitvm.dialects.arith_ext import is_pure
from minitvm.dialects.arith_values import constant_int
from minitvm.dialects.index_analysis import DIVISIONS, REMAINDERS, ValueKeys, combined_stride

#: Trip counts vectorized as one body of that many lanes.
LANE_COUNTS = (4, 8, 16, 32)

#: Lanes of the vector body of a strip-mined loop (trip count a multiple of it).
STRIP_LANES = 16

#: Vector bodies that cover what is left of a trip count after the 16-lane strips.
TAIL_LANES = (8, 4)


def vector_pieces(trip: int) -> list[tuple[int, int]]:
    """How a loop of `trip` iterations is vectorized, in iteration order: (lanes, bodies)
    pieces, lanes 1 being scalar iterations. A lane count is one body; otherwise strips of
    16 lanes, then one body of 8 and one of 4 where what is left allows, then what is left
    as scalar iterations (49 = 3 x 16 + 1, 196 = 12 x 16 + 4, 1000 = 62 x 16 + 8)."""
    if trip in LANE_COUNTS:
        return [(trip, 1)]
    if trip < min(LANE_COUNTS):
        raise NotVectorizable(f"{trip} iterations are fewer than {min(LANE_COUNTS)} lanes")
    strips, left = divmod(trip, STRIP_LANES)
    pieces = [(STRIP_LANES, strips)] if strips else []
    for lanes in TAIL_LANES:
        if left >= lanes:
            pieces.append((lanes, 1))
            left -= lanes
    if left:
        pieces.append((1, left))
    return pieces

_log = logging.getLogger(__name__)

_CASTS: dict[type[Operation], str] = {
    arith.SIToFPOp: "sitofp",
    arith.UIToFPOp: "uitofp",
    arith.FPToSIOp: "fptosi",
    arith.FPToUIOp: "fptoui",
    arith.ExtSIOp: "extsi",
    arith.ExtUIOp: "extui",
    arith.TruncIOp: "trunci",
}


class NotVectorizable(Exception):
    """Why a loop stays scalar."""


@dataclass
class Reduction:
    """`carried` is combined with `value` by `combine` (an arith op of kind `kind`)."""

    kind: str
    init: SSAValue
    carried: BlockArgument
    combine: Operation
    value: SSAValue


def find_reductions(op: loop.ForOp) -> list[Reduction]:
    block = op.body.block
    terminator = block.last_op
    assert isinstance(terminator, loop.YieldOp)
    reductions = []
    for init, carried, yielded in zip(op.inits, op.carried, terminator.values, strict=True):
        combine = yielded.owner
        uses = list(carried.uses)
        if (
            not isinstance(combine, Operation)
            or combine.parent is not block
            or len(uses) != 1
            or uses[0].operation is not combine
            or len(combine.operands) != 2
            or len(list(yielded.uses)) != 1
            or not combine.name.startswith("arith.")
            or combine.name.removeprefix("arith.") not in loop.VREDUCE_KINDS
        ):
            raise NotVectorizable(f"the carried value %{carried.name_hint} is not a reduction")
        kind = combine.name.removeprefix("arith.")
        if loop.VREDUCE_KINDS[kind] != isinstance(carried.type, AnyFloat):
            raise NotVectorizable(f"no {kind} reduction of {carried.type}")
        lhs, rhs = combine.operands
        value = rhs if lhs is carried else lhs
        if value is carried:
            raise NotVectorizable(f"the carried value %{carried.name_hint} is combined with itself")
        reductions.append(Reduction(kind, init, carried, combine, value))
    return reductions


def identity(kind: str, type_: Attribute) -> Attribute:
    """x . identity = x for the reduction `kind` on `type_` (the vector accumulator's start)."""
    if isinstance(type_, AnyFloat):
        value = {
            "addf": -0.0, "mulf": 1.0, "maximumf": -pymath.inf, "minimumf": pymath.inf,
            "maxnumf": pymath.nan, "minnumf": pymath.nan,
        }[kind]  # fmt: skip
        return FloatAttr(value, type_)
    assert isinstance(type_, IntegerType)
    width = type_.width.data
    value = {
        "addi": 0, "muli": 1, "andi": -1, "ori": 0, "xori": 0, "maxui": 0, "minui": -1,
        "maxsi": -(1 << (width - 1)), "minsi": (1 << (width - 1)) - 1,
    }[kind]  # fmt: skip
    if width == 1 and kind in ("maxsi", "minsi"):  # i1 is signed: true (-1) < false (0)
        value = {"maxsi": -1, "minsi": 0}[kind]
    return IntegerAttr(value, type_)


@dataclass
class Access:
    buffer: SSAValue
    indices: tuple[SSAValue, ...]
    vector: bool


@dataclass
class LoopVectorizer:
    """Builds the vector form of one loop into detached blocks (`build`), or raises
    NotVectorizable; nothing of the input is changed."""

    for_op: loop.ForOp
    fma: bool
    lanes: int = 0
    #: old value -> new scalar: uniform values, and lane 0's value of affine indices.
    scalar: dict[SSAValue, SSAValue] = field(default_factory=dict)
    #: old varying value -> new vector.
    vector: dict[SSAValue, SSAValue] = field(default_factory=dict)
    #: old affine index -> its difference between neighbouring lanes.
    stride: dict[SSAValue, int] = field(default_factory=dict)
    #: old index -> ("row" or "column", a, W): a fused index `a` split into a / W or a % W
    #: (plus uniform offsets), as the loops of a fused pair see it.
    collapsed: dict[SSAValue, tuple[str, SSAValue, int]] = field(default_factory=dict)
    #: old single-use vector mulf result -> its vector operands, awaiting an addf to fuse into.
    deferred: dict[SSAValue, tuple[SSAValue, SSAValue, arith.MulfOp]] = field(default_factory=dict)
    splats: dict[SSAValue, SSAValue] = field(default_factory=dict)
    accesses: list[Access] = field(default_factory=list)
    stored: set[SSAValue] = field(default_factory=set)
    #: which indices are equal (the same value or computed the same way)
    keys: ValueKeys = field(default_factory=ValueKeys)
    #: where new ops go
    target: Block = field(default_factory=Block)

    # ---------------------------------------------------------------- the whole loop

    def build(self) -> tuple[Block, list[SSAValue]]:
        """The ops replacing the loop (a detached block), and the values of its results."""
        pieces = vector_pieces(self.for_op.trip_count)
        reductions = find_reductions(self.for_op)
        out = self.target
        values = [r.init for r in reductions]
        start = 0
        try:
            for lanes, bodies in pieces:
                piece = LoopVectorizer(
                    self.for_op, self.fma, lanes=lanes, target=out, keys=self.keys
                )
                if lanes == 1:
                    values = piece.scalar_iterations(start, bodies, values)
                else:
                    running = [replace(r, init=v) for r, v in zip(reductions, values)]
                    values = piece.vector_bodies(start, bodies, running)
                    piece.check_dependences()
                start += lanes * bodies
        except (NotVectorizable, VerifyException):
            discard(out)
            raise
        return out, values

    def build_dynamic(self) -> tuple[Block, list[SSAValue]]:
        """A loop to a run-time bound `%n` (step 1): as many 16-lane bodies as fit, in a loop
        of (n - lower) / 16 iterations carrying vector accumulators, then what is left (at
        most 15 iterations) as a scalar loop carrying the folded values."""
        lower, upper, step = self.for_op.bounds
        n = self.for_op.upper_value
        assert n is not None
        if step != 1:
            raise NotVectorizable("a run-time trip count with a step other than 1")
        if upper - lower < STRIP_LANES:
            raise NotVectorizable(f"a run-time trip count of at most {upper - lower}")
        reductions = find_reductions(self.for_op)
        out = self.target
        try:
            index = IndexType()
            first = self.emit(arith.ConstantOp(IntegerAttr(lower, index))).result if lower else None
            zero = self.emit(arith.ConstantOp(IntegerAttr(0, index))).result
            width = self.emit(arith.ConstantOp(IntegerAttr(STRIP_LANES, index))).result
            count = self.emit(arith.SubiOp(n, first)).result if first is not None else n
            count = self.emit(arith.MaxSIOp(count, zero)).result  # (a bound below `lower`)
            strips = self.emit(arith.DivUIOp(count, width)).result
            piece = LoopVectorizer(self.for_op, self.fma, lanes=STRIP_LANES, target=out, keys=self.keys)
            piece.stride[self.for_op.induction_var] = step
            values = piece.build_strip_mined(
                lower, strips, reductions, at_most=(upper - lower) // STRIP_LANES
            )
            piece.check_dependences()
            covered = self.emit(arith.MuliOp(strips, width)).result
            rest = self.emit(arith.SubiOp(count, covered)).result
            start = self.emit(arith.AddiOp(covered, first)).result if first is not None else covered
            values = self.scalar_loop(start, rest, values, at_most=min(STRIP_LANES - 1, upper - lower))
        except (NotVectorizable, VerifyException):
            discard(out)
            raise
        return out, values

    def scalar_loop(
        self, start: SSAValue, count: SSAValue, values: list[SSAValue], at_most: int
    ) -> list[SSAValue]:
        """Iterations start .. start + count - 1 (a run-time count) of the scalar body, as a
        loop carrying `values`; the values after."""
        iv = self.for_op.induction_var
        tail = self.emit(loop.ForOp(0, at_most, 1, values, upper_value=count))
        body = tail.body.block
        body.args[0].name_hint = f"{iv.name_hint}_t" if iv.name_hint else None
        index = arith.AddiOp(start, body.args[0])
        index.result.name_hint = iv.name_hint
        body.add_op(index)
        mapping: dict[SSAValue, SSAValue] = {iv: index.result}
        mapping.update(zip(self.for_op.carried, body.args[1:]))
        for op in self.for_op.body.block.ops:
            body.add_op(op.clone(mapping))
        return list(tail.results)

    def vector_bodies(self, start: int, bodies: int, reductions: list[Reduction]) -> list[SSAValue]:
        """`bodies` vector bodies of `self.lanes` lanes from iteration `start` on: straight
        line for one, else a strip-mined loop; each reduction folded into its init value."""
        lower, _, step = self.for_op.bounds
        iv = self.for_op.induction_var
        self.stride[iv] = step
        if bodies > 1:
            return self.build_strip_mined(lower + start * step, bodies, reductions)
        first = self.emit(arith.ConstantOp(IntegerAttr(lower + start * step, IndexType())))
        first.result.name_hint = iv.name_hint
        self.scalar[iv] = first.result
        self.widen_body(skip={r.combine for r in reductions})
        return [self.fold(r, self.vec(r.value)) for r in reductions]

    def scalar_iterations(self, start: int, count: int, values: list[SSAValue]) -> list[SSAValue]:
        """Iterations start .. start + count - 1 as copies of the scalar body (the tail of
        a trip count that whole vectors do not cover), carrying `values`; the values after."""
        lower, _, step = self.for_op.bounds
        iv = self.for_op.induction_var
        block = self.for_op.body.block
        for n in range(start, start + count):
            index = self.emit(arith.ConstantOp(IntegerAttr(lower + n * step, IndexType())))
            index.result.name_hint = iv.name_hint
            mapping: dict[SSAValue, SSAValue] = {iv: index.result}
            mapping.update(zip(self.for_op.carried, values))
            for op in block.ops:
                if isinstance(op, loop.YieldOp):
                    values = [mapping.get(v, v) for v in op.values]
                else:
                    self.emit(op.clone(mapping))
        return values

    def build_strip_mined(
        self, first_index: int, outer: int | SSAValue, reductions: list[Reduction], at_most: int = 0
    ) -> list[SSAValue]:
        """for %o = 0 to outer iter_args(vector accumulators): a vector body at lane 0's
        index first_index + o * lanes * step; then each accumulator folded into its init.
        `outer` known at run time: a loop to it, at most `at_most` iterations."""
        _, _, step = self.for_op.bounds
        iv = self.for_op.induction_var
        out = self.target
        inits = []
        for r in reductions:
            start = self.emit(arith.ConstantOp(identity(r.kind, r.carried.type)))
            inits.append(self.emit(loop.BroadcastOp(start.result, self.lanes)).result)
            inits[-1].name_hint = f"{r.carried.name_hint}_init" if r.carried.name_hint else None
        if isinstance(outer, int):
            strip = self.emit(loop.ForOp(0, outer, 1, inits))
        else:
            strip = self.emit(loop.ForOp(0, at_most, 1, inits, upper_value=outer))
        body = strip.body.block
        body.args[0].name_hint = f"{iv.name_hint}_o" if iv.name_hint else None
        self.target = body
        width = self.emit(arith.ConstantOp(IntegerAttr(self.lanes * step, IndexType())))
        first = self.emit(arith.MuliOp(body.args[0], width.result)).result
        if first_index:
            offset = self.emit(arith.ConstantOp(IntegerAttr(first_index, IndexType())))
            first = self.emit(arith.AddiOp(first, offset.result)).result
        first.name_hint = iv.name_hint
        self.scalar[iv] = first
        for r, accumulator in zip(reductions, body.args[1:]):
            accumulator.name_hint = r.carried.name_hint
            self.vector[r.carried] = accumulator
        self.widen_body(skip=set())
        self.emit(loop.YieldOp(*(self.vec(r.combine.results[0]) for r in reductions)))
        self.target = out
        for r, accumulator in zip(reductions, strip.results):
            accumulator.name_hint = r.carried.name_hint
        return [self.fold(r, acc) for r, acc in zip(reductions, strip.results)]

    def fold(self, reduction: Reduction, vector: SSAValue) -> SSAValue:
        """The loop's result: the reduced lanes folded into the initial value."""
        fold = self.emit(loop.VectorReduceOp(reduction.kind, reduction.init, vector))
        index = list(self.for_op.carried).index(reduction.carried)
        fold.results[0].name_hint = self.for_op.results[index].name_hint
        return fold.results[0]

    def widen_body(self, skip: set[Operation]) -> None:
        for op in self.for_op.body.block.ops:
            if isinstance(op, loop.YieldOp) or op in skip:
                continue
            if op.regions:
                raise NotVectorizable(f"{op.name} inside the loop")
            if isinstance(op, loop.LoadOp):
                self.load(op)
            elif isinstance(op, loop.StoreOp):
                self.store(op)
            elif any(o in self.stride for o in op.operands):
                self.affine_index(op)
            elif any(o in self.collapsed for o in op.operands):
                self.collapsed_index(op)
            elif any(o in self.vector or o in self.deferred for o in op.operands):
                self.widen(op)
            elif is_pure(op):
                self.emit(op.clone(self.scalar))
            else:
                raise NotVectorizable(f"{op.name} has side effects")

    def check_dependences(self) -> None:
        """Every buffer stored to is accessed only by vector accesses at the same indices."""
        for buffer in self.stored:
            accesses = [a for a in self.accesses if a.buffer is buffer]
            first = accesses[0]
            for access in accesses:
                if not access.vector or not all(
                    self.keys.same(x, y) for x, y in zip(access.indices, first.indices)
                ):
                    raise NotVectorizable(
                        f"lanes may depend on each other through %{buffer.name_hint or 'buffer'}"
                    )

    # ---------------------------------------------------------------- one op

    def emit(self, op: Operation) -> Operation:
        self.target.add_op(op)
        return op

    def vec(self, value: SSAValue) -> SSAValue:
        """The vector of `value`'s lanes (a uniform value broadcast)."""
        if value in self.vector:
            return self.vector[value]
        if value in self.deferred:
            lhs, rhs, mul = self.deferred.pop(value)
            product = self.emit(arith.MulfOp(lhs, rhs, mul.fastmath)).results[0]
            product.name_hint = value.name_hint
            self.vector[value] = product
            return product
        if value in self.stride:
            raise NotVectorizable("the induction variable is used as data")
        scalar = self.scalar.get(value, value)
        if scalar not in self.splats:
            self.splats[scalar] = self.emit(loop.BroadcastOp(scalar, self.lanes)).result
            self.splats[scalar].name_hint = value.name_hint
        return self.splats[scalar]

    def access_indices(
        self, buffer: SSAValue, indices: tuple[SSAValue, ...]
    ) -> tuple[bool, list[SSAValue]]:
        """(is it a unit-stride vector access, lane 0's indices); raises for a gather."""
        new = [self.scalar.get(i, i) for i in indices]
        if any(i in self.collapsed for i in indices):
            return self.collapsed_access(buffer, indices), new
        strides = [self.stride.get(i, 0) for i in indices]
        if not any(strides):
            return False, new
        if strides[-1] == 1 and not any(strides[:-1]):
            return True, new
        raise NotVectorizable(f"gather/scatter (lane strides {strides})")

    def collapsed_access(self, buffer: SSAValue, indices: tuple[SSAValue, ...]) -> bool:
        """Whether buffer[..., a / W + u, a % W + v] with W the buffer's last dim (the
        access of a loop fusing its two innermost dims) walks consecutive elements: its
        row-major offset is a + (u * W + v), so lanes are contiguous where a has stride 1,
        across row ends too. Anything else with a split index raises."""
        assert isinstance(buffer.type, MemRefType)
        width = buffer.type.get_shape()[-1] if indices else None
        parts = [self.collapsed.get(i) for i in indices[-2:]]
        if (
            len(parts) == 2
            and parts[0] is not None
            and parts[1] is not None
            and (parts[0][0], parts[1][0]) == ("row", "column")
            and self.keys.same(parts[0][1], parts[1][1])
            and parts[0][2] == parts[1][2] == width
            and self.stride.get(parts[0][1]) == 1
            and not any(i in self.stride or i in self.collapsed for i in indices[:-2])
        ):
            return True
        raise NotVectorizable("a fused index that does not walk the buffer's last two dims")

    def load(self, op: loop.LoadOp) -> None:
        vector, indices = self.access_indices(op.buffer, op.indices)
        self.accesses.append(Access(op.buffer, tuple(op.indices), vector))
        if vector:
            new = self.emit(loop.VectorLoadOp(op.buffer, indices, self.lanes))
            self.vector[op.result] = new.results[0]
        else:
            new = self.emit(loop.LoadOp(op.buffer, indices))
            self.scalar[op.result] = new.results[0]
        new.results[0].name_hint = op.result.name_hint

    def store(self, op: loop.StoreOp) -> None:
        vector, indices = self.access_indices(op.buffer, op.indices)
        if not vector:
            raise NotVectorizable("store to the same address from every lane")
        self.accesses.append(Access(op.buffer, tuple(op.indices), True))
        self.stored.add(op.buffer)
        self.emit(loop.VectorStoreOp(self.vec(op.value), op.buffer, indices))

    def affine_index(self, op: Operation) -> None:
        if isinstance(op, DIVISIONS | REMAINDERS) and op.operands[0] in self.stride:
            width = constant_int(op.operands[1])
            if width is None or width <= 0:
                raise NotVectorizable(f"the induction variable flows into {op.name}")
            part = "column" if isinstance(op, REMAINDERS) else "row"
            self.emit(op.clone(self.scalar))
            self.collapsed[op.results[0]] = (part, op.operands[0], width)
            return
        if not isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp) or not isinstance(
            op.result.type, IndexType
        ):
            raise NotVectorizable(f"the induction variable flows into {op.name}")
        stride = combined_stride(op, self.stride.get(op.lhs, 0), self.stride.get(op.rhs, 0))
        if stride is None:
            raise NotVectorizable("an index scaled by a non-constant")
        if stride == 0:
            raise NotVectorizable("an index in which the induction variable cancels")
        self.emit(op.clone(self.scalar))
        self.stride[op.result] = stride

    def collapsed_index(self, op: Operation) -> None:
        """A split fused index plus a uniform value (or minus one) keeps its part."""
        varying = [
            o for o in op.operands if o in self.collapsed or o in self.stride or o in self.vector
        ]
        split = varying[0] if len(varying) == 1 else None
        if (
            split not in self.collapsed
            or not isinstance(op, arith.AddiOp | arith.SubiOp)
            or (isinstance(op, arith.SubiOp) and op.operands[0] is not split)
        ):
            raise NotVectorizable(f"a split fused index flows into {op.name}")
        self.emit(op.clone(self.scalar))
        self.collapsed[op.results[0]] = self.collapsed[split]

    def widen(self, op: Operation) -> None:
        """The vector form of an op with a varying operand."""
        if (
            len(op.results) != 1
            or not op.name.startswith(("arith.", "math."))
            or not is_pure(op)
            or isinstance(op.results[0].type, VectorType | IndexType)
        ):
            raise NotVectorizable(f"no vector form of {op.name}")
        result = op.results[0]
        vector_type = VectorType(result.type, [self.lanes])
        vec = self.vec
        match op:
            case arith.MulfOp() if self.fma and _fusable_product(op):
                self.deferred[result] = (vec(op.lhs), vec(op.rhs), op)
                return
            case arith.AddfOp() if op.lhs in self.deferred or op.rhs in self.deferred:
                product, addend = (op.lhs, op.rhs) if op.lhs in self.deferred else (op.rhs, op.lhs)
                lhs, rhs, _ = self.deferred.pop(product)
                new: Operation = math.FmaOp(lhs, rhs, vec(addend))
            case arith.CmpfOp():
                predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
                new = loop.VectorCmpfOp(predicate, vec(op.lhs), vec(op.rhs))
            case arith.CmpiOp():
                predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
                new = loop.VectorCmpiOp(predicate, vec(op.lhs), vec(op.rhs))
            case arith.SelectOp() if op.cond in self.vector:
                new = loop.VectorSelectOp(vec(op.cond), vec(op.lhs), vec(op.rhs))
            case arith.SelectOp():
                cond = self.scalar.get(op.cond, op.cond)
                new = arith.SelectOp(cond, vec(op.lhs), vec(op.rhs))
            case _ if type(op) in _CASTS:
                new = loop.VectorCastOp(_CASTS[type(op)], vec(op.operands[0]), vector_type)
            case _:
                new = type(op).create(
                    operands=[vec(o) for o in op.operands],
                    result_types=[vector_type],
                    properties=dict(op.properties),
                    attributes=dict(op.attributes),
                )
        try:
            new.verify()  # detached: its constraints only, not the block it will end up in
        except VerifyException as error:
            Rewriter.erase_op(new)  # never inserted: only its uses of the body's values go
            raise NotVectorizable(f"no vector form of {op.name}: {error}") from None
        self.emit(new)
        new.results[0].name_hint = result.name_hint
        self.vector[result] = new.results[0]


def _fusable_product(op: arith.MulfOp) -> bool:
    """A product whose only use is an addf in the same block: fma(a, b, c) replaces both."""
    uses = list(op.result.uses)
    return (
        len(uses) == 1
        and isinstance(uses[0].operation, arith.AddfOp)
        and uses[0].operation.parent is op.parent
    )


def discard(block: Block) -> None:
    """Erase a detached block's ops (and their uses of values outside it), last first."""
    for op in reversed(list(block.ops)):
        Rewriter.erase_op(op)


class VectorizeLoopPattern(RewritePattern):
    """Vectorize one `loop.for {vectorize}`, or drop the hint if it cannot be done."""

    def __init__(self, fma: bool):
        self.fma = fma

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: loop.ForOp, rewriter: PatternRewriter) -> None:
        if loop.VECTORIZE_HINT not in op.attributes:
            return
        if any(
            isinstance(inner, loop.ForOp) and loop.UNROLL_HINT in inner.attributes
            for inner in op.body.walk()
        ):
            return  # (straight-line code once loop-unroll has run)
        try:
            vectorizer = LoopVectorizer(op, self.fma)
            block, results = vectorizer.build_dynamic() if op.is_dynamic else vectorizer.build()
        except (NotVectorizable, VerifyException) as reason:
            _log.debug(
                "loop-vectorize: loop %%%s stays scalar: %s", op.induction_var.name_hint, reason
            )
            del op.attributes[loop.VECTORIZE_HINT]
            rewriter.notify_op_modified(op)
            return
        rewriter.inline_block(block, InsertPoint.before(op))
        rewriter.replace(op, (), results)


@dataclass(frozen=True)
class VectorizePass(ModulePass):
    """Vectorize loops marked `vectorize` (see the module docstring for what qualifies)."""

    name = "loop-vectorize"

    #: Fuse a vector multiply feeding an add into `math.fma`.
    fma: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            VectorizeLoopPattern(self.fma), walk_regions_first=True
        ).rewrite_module(op)
