"""loop-promote-accumulators: keep what a loop reads and writes back at the same place in
registers, as loop-carried values.

After loop-unroll and loop-vectorize, a register-blocked reduction reads each accumulator
of its block from the output buffer, adds to it and writes it back at every step of the
reduction loop, at indices the loop does not change:

    loop.for %k = 0 to 64 step 1 {
      %b = loop.vload %B[%k, %j] : memref<64x64xf32> -> vector<16xf32>
      %c = loop.vload %C[%i, %j] : memref<64x64xf32> -> vector<16xf32>
      %s = math.fma %a, %b, %c : vector<16xf32>
      loop.vstore %s, %C[%i, %j] : vector<16xf32>, memref<64x64xf32>
    }

becomes

    %c0 = loop.vload %C[%i, %j] : memref<64x64xf32> -> vector<16xf32>
    %r = loop.for %k = 0 to 64 step 1 iter_args(%c = %c0) -> (vector<16xf32>) {
      %b = loop.vload %B[%k, %j] : memref<64x64xf32> -> vector<16xf32>
      %s = math.fma %a, %b, %c : vector<16xf32>
      loop.yield %s : vector<16xf32>
    }
    loop.vstore %r, %C[%i, %j] : vector<16xf32>, memref<64x64xf32>

LLVM's LICM does the same where it can prove it safe, and usually does; but in a batched
matmul whose K equals its N ([16, 784, 64] x [16, 64, 64]) it left the accumulators of a
block of 2 or more rows in memory, a load and a store around every FMA: 2.0 ms, against 1.1
with them in registers. Here it is decided on buffers, which never overlap (kernel
arguments are `noalias`, allocations disjoint), and on index values:

- the loop has constant bounds, at least one iteration, and no `parallel` mark (its
  iterations run in order on one thread);
- index arithmetic in its body that uses only values defined outside it moves out first
  (what unrolling left inside: `%r1 = arith.addi %i, %c1`);
- a buffer is promoted when every access to it inside the loop is a load or store directly
  in the loop's body at indices defined outside the loop (nothing else, a call or a copy,
  gets it), at least one is a store, and
  accesses at different indices are provably disjoint: in some dim their indices differ by
  a constant at least the width of the access (a vector's lanes along the last dim, 1
  elsewhere). Accesses at equal indices (the same value, or computed the same
  way) are one accumulator, loaded once before the loop and stored once after it.

Anything else stays as it is. MLIR counterpart: `affine-scalrep` plus LICM's promotion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from minitvm.dialects import loop
from minitvm.dialects.arith_ext import is_pure
from minitvm.dialects.index_analysis import ValueKeys

_ACCESSES = (loop.LoadOp, loop.StoreOp, loop.VectorLoadOp, loop.VectorStoreOp)


def _hoist_invariant_indices(
    for_op: loop.ForOp, inside: set[SSAValue], rewriter: PatternRewriter
) -> None:
    """Move pure arith ops of the body whose operands are all defined outside the loop
    before it, in order (so that chains of them move too); `inside` follows."""
    hoisted: list[Operation] = []
    for op in list(for_op.body.block.ops):
        if (
            op.name.startswith("arith.")
            and not op.regions
            and is_pure(op)
            and not any(o in inside for o in op.operands)
        ):
            hoisted.append(op)
            inside.difference_update(op.results)
    # xDSL 0.75's rewriter has no call that moves an op (MLIR's moveOpBefore): they are
    # unlinked and inserted again through the rewriter, as xDSL's licm does, rather than
    # copied (a ResNet-50 hoists 37,000 ops: copies cost seconds)
    for op in hoisted:
        op.detach()
    rewriter.insert(hoisted, InsertPoint.before(for_op))


def _disjoint(a: Operation, b: Operation, keys: ValueKeys) -> bool:
    """Whether accesses `a` and `b` (same buffer) provably touch different elements: in
    some dim their indices differ by a known constant, by at least the width of the access
    with the lower index there (a vector's lanes in the last dim, else 1)."""
    ia, ib = list(a.indices), list(b.indices)  # type: ignore[attr-defined]
    for n, (x, y) in enumerate(zip(ia, ib)):
        delta = keys.difference(x, y)
        if delta is None:
            continue
        last = n == len(ia) - 1
        if delta >= (_width(b) if last else 1) or -delta >= (_width(a) if last else 1):
            return True
    return False


def _width(op: Operation) -> int:
    """Elements an access covers along the last dim."""
    if isinstance(op, loop.VectorLoadOp):
        result_type = op.results[0].type
        assert isinstance(result_type, VectorType)
        return result_type.get_shape()[0]
    if isinstance(op, loop.VectorStoreOp):
        value_type = op.value.type
        assert isinstance(value_type, VectorType)
        return value_type.get_shape()[0]
    return 1


@dataclass
class _Accumulator:
    """Accesses at one place of a buffer (same indices, same width)."""

    accesses: list[Operation]

    @property
    def first(self) -> Operation:
        return self.accesses[0]


def _accumulators(
    for_op: loop.ForOp, accesses: Sequence[Operation], inside: set[SSAValue], keys: ValueKeys
) -> list[_Accumulator] | None:
    """The accumulators of one buffer's `accesses` in the loop, or None if they cannot be
    promoted."""
    body = for_op.body.block
    accumulators: dict[object, _Accumulator] = {}
    for op in accesses:
        index_values = list(op.indices)  # type: ignore[attr-defined]
        if op.parent is not body or any(i in inside for i in index_values):
            return None
        place = (_width(op), tuple(keys.offset(i) for i in index_values))
        if place in accumulators:
            accumulators[place].accesses.append(op)
        elif all(_disjoint(acc.first, op, keys) for acc in accumulators.values()):
            accumulators[place] = _Accumulator([op])
        else:
            return None
    stored = any(isinstance(op, loop.StoreOp | loop.VectorStoreOp) for op in accesses)
    return list(accumulators.values()) if stored else None


def _promote(
    for_op: loop.ForOp, accumulators: Sequence[_Accumulator], rewriter: PatternRewriter
) -> None:
    """Replace `for_op` by a loop that carries the accumulators (loaded before it, stored
    after it)."""
    inits = []
    for acc in accumulators:
        first = acc.first
        indices = list(first.indices)  # type: ignore[attr-defined]
        if isinstance(first, loop.VectorLoadOp | loop.VectorStoreOp):
            load: Operation = loop.VectorLoadOp(first.buffer, indices, _width(first))  # type: ignore[attr-defined]
        else:
            load = loop.LoadOp(first.buffer, indices)  # type: ignore[attr-defined]
        rewriter.insert(load, InsertPoint.before(for_op))
        inits.append(load.results[0])
    # the body moves to the new loop, with an argument per accumulator
    body = rewriter.move_region_contents_to_new_regions(for_op.body)
    block = body.block
    current: list[SSAValue] = [
        rewriter.insert_block_argument(block, len(block.args), v.type) for v in inits
    ]
    for arg, acc in zip(current, accumulators):
        arg.name_hint = acc.first.results[0].name_hint if acc.first.results else None
    index_of = {id(op): n for n, acc in enumerate(accumulators) for op in acc.accesses}
    for op in list(block.ops):
        n = index_of.get(id(op))
        if n is None:
            continue
        if isinstance(op, loop.LoadOp | loop.VectorLoadOp):
            rewriter.replace_all_uses_with(op.results[0], current[n])
        else:
            current[n] = op.value  # type: ignore[attr-defined]
        rewriter.erase(op)
    old_yield = block.last_op
    assert isinstance(old_yield, loop.YieldOp)
    rewriter.replace(old_yield, loop.YieldOp(*old_yield.values, *current))
    lower, upper, step = for_op.bounds
    new = loop.ForOp(lower, upper, step, [*for_op.inits, *inits], body, upper_value=for_op.upper_value)
    new.attributes.update(for_op.attributes)
    rewriter.insert(new, InsertPoint.before(for_op))
    for old_result, new_result in zip(for_op.results, new.results):
        rewriter.replace_all_uses_with(old_result, new_result)
    stores: list[Operation] = []
    for acc, result in zip(accumulators, new.results[len(for_op.results) :]):
        indices = list(acc.first.indices)  # type: ignore[attr-defined]
        if isinstance(result.type, VectorType):
            stores.append(loop.VectorStoreOp(result, acc.first.buffer, indices))  # type: ignore[attr-defined]
        else:
            stores.append(loop.StoreOp(result, acc.first.buffer, indices))  # type: ignore[attr-defined]
    rewriter.insert(stores, InsertPoint.after(new))
    rewriter.erase(for_op)


@dataclass
class PromoteAccumulatorsPattern(RewritePattern):
    """Carry the accumulators of one `loop.for` (see the module docstring)."""

    #: shared by all loops of the walk: unrolled blocks repeat the same index arithmetic
    keys: ValueKeys = field(default_factory=ValueKeys)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: loop.ForOp, rewriter: PatternRewriter) -> None:
        if op.trip_count < 1 or loop.PARALLEL_HINT in op.attributes:
            return
        body = op.body.block.ops
        if not any(isinstance(inner, loop.StoreOp | loop.VectorStoreOp) for inner in body):
            return  # an accumulator is stored directly in the body
        inside = loop.defined_within(op)
        _hoist_invariant_indices(op, inside, rewriter)
        by_buffer: dict[SSAValue, list[Operation]] = {}
        opaque: set[SSAValue] = set()  # passed to something else (a call, a copy): left alone
        for inner in op.walk():
            if isinstance(inner, _ACCESSES):
                by_buffer.setdefault(inner.buffer, []).append(inner)
            else:
                opaque.update(o for o in inner.operands if isinstance(o.type, MemRefType))
        promoted: list[_Accumulator] = []
        for buffer, accesses in by_buffer.items():
            if buffer not in inside and buffer not in opaque:
                promoted += _accumulators(op, accesses, inside, self.keys) or []
        if promoted:
            _promote(op, promoted, rewriter)


@dataclass(frozen=True)
class PromoteAccumulatorsPass(ModulePass):
    """Carry loop-invariant read-modify-write accesses in registers (see the docstring)."""

    name = "loop-promote-accumulators"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # innermost loops first: what moves out of one may be promoted by the next; a new
        # loop is not looked at again (it has nothing left to promote)
        PatternRewriteWalker(
            PromoteAccumulatorsPattern(), walk_regions_first=True, apply_recursively=False
        ).rewrite_module(op)
