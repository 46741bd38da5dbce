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
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType, ModuleOp, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import is_side_effect_free

from minitvm.dialects import loop
from minitvm.dialects.arith_values import constant_int

_ACCESSES = (loop.LoadOp, loop.StoreOp, loop.VectorLoadOp, loop.VectorStoreOp)


def _hoist_invariant_indices(for_op: loop.ForOp, inside: set[SSAValue]) -> None:
    """Move pure arith ops of the body whose operands are all defined outside the loop
    before it, in order (so that chains of them move too); `inside` follows."""
    parent = for_op.parent_block()
    assert parent is not None
    for op in list(for_op.body.block.ops):
        if (
            op.name.startswith("arith.")
            and not op.regions
            and is_side_effect_free(op)
            and not any(o in inside for o in op.operands)
        ):
            op.detach()
            parent.insert_op_before(op, for_op)
            inside.difference_update(op.results)


class _Indices:
    """Index values as (base, constant) pairs, base being a structural key: two values
    computed the same way from the same values get the same key. Memoized: a kernel's
    unrolled blocks repeat the same index arithmetic many times."""

    def __init__(self) -> None:
        self.keys: dict[SSAValue, object] = {}
        self.offsets: dict[SSAValue, tuple[object, int]] = {}

    def key(self, value: SSAValue) -> object:
        if value not in self.keys:
            owner = value.owner
            if isinstance(owner, Operation) and not owner.regions and is_side_effect_free(owner):
                self.keys[value] = (
                    owner.name,
                    value.index,  # pyright: ignore[reportAttributeAccessIssue]
                    str(owner.properties),
                    tuple(self.key(o) for o in owner.operands),
                )
            else:
                self.keys[value] = ("value", id(value))
        return self.keys[value]

    def offset(self, value: SSAValue) -> tuple[object, int]:
        """`value` as (base key, constant) with value = base + constant, folding sums and
        products of constants (an unrolled copy's `j_o * 64 + 1 * 16`); a constant has
        base None."""
        if value in self.offsets:
            return self.offsets[value]
        number = constant_int(value)
        result: tuple[object, int] | None = None if number is None else (None, number)
        owner = value.owner
        if result is None and isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            (base_l, off_l), (base_r, off_r) = self.offset(owner.lhs), self.offset(owner.rhs)
            if isinstance(owner, arith.MuliOp):
                if base_l is None and base_r is None:
                    result = (None, off_l * off_r)
            elif base_r is None:
                result = (
                    base_l,
                    off_l + off_r if isinstance(owner, arith.AddiOp) else off_l - off_r,
                )
            elif base_l is None and isinstance(owner, arith.AddiOp):
                result = (base_r, off_l + off_r)
        if result is None:
            result = (self.key(value), 0)
        self.offsets[value] = result
        return result

    def difference(self, a: SSAValue, b: SSAValue) -> int | None:
        """a - b when it is a known constant."""
        (base_a, off_a), (base_b, off_b) = self.offset(a), self.offset(b)
        return off_a - off_b if base_a == base_b else None

    def disjoint(self, a: Operation, b: Operation) -> bool:
        """Whether accesses `a` and `b` (same buffer) provably touch different elements:
        in some dim their indices differ by a known constant, by at least the width of the
        access with the lower index there (a vector's lanes in the last dim, else 1)."""
        ia, ib = list(a.indices), list(b.indices)  # type: ignore[attr-defined]
        for n, (x, y) in enumerate(zip(ia, ib)):
            delta = self.difference(x, y)
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
    for_op: loop.ForOp, accesses: Sequence[Operation], inside: set[SSAValue], indices: _Indices
) -> list[_Accumulator] | None:
    """The accumulators of one buffer's `accesses` in the loop, or None if they cannot be
    promoted."""
    body = for_op.body.block
    accumulators: dict[object, _Accumulator] = {}
    for op in accesses:
        index_values = list(op.indices)  # type: ignore[attr-defined]
        if op.parent is not body or any(i in inside for i in index_values):
            return None
        place = (_width(op), tuple(indices.offset(i) for i in index_values))
        if place in accumulators:
            accumulators[place].accesses.append(op)
        elif all(indices.disjoint(acc.first, op) for acc in accumulators.values()):
            accumulators[place] = _Accumulator([op])
        else:
            return None
    stored = any(isinstance(op, loop.StoreOp | loop.VectorStoreOp) for op in accesses)
    return list(accumulators.values()) if stored else None


def _promote(for_op: loop.ForOp, accumulators: Sequence[_Accumulator]) -> loop.ForOp:
    """`for_op` rebuilt to carry the accumulators (loaded before it, stored after it)."""
    parent = for_op.parent_block()
    assert parent is not None
    inits = []
    for acc in accumulators:
        first = acc.first
        indices = list(first.indices)  # type: ignore[attr-defined]
        if isinstance(first, loop.VectorLoadOp | loop.VectorStoreOp):
            load: Operation = loop.VectorLoadOp(first.buffer, indices, _width(first))  # type: ignore[attr-defined]
        else:
            load = loop.LoadOp(first.buffer, indices)  # type: ignore[attr-defined]
        parent.insert_op_before(load, for_op)
        inits.append(load.results[0])
    # the body block moves to the new loop, with an argument per accumulator
    block = for_op.body.detach_block(0)
    current: list[SSAValue] = [block.insert_arg(v.type, len(block.args)) for v in inits]
    for arg, acc in zip(current, accumulators):
        arg.name_hint = acc.first.results[0].name_hint if acc.first.results else None
    index_of = {id(op): n for n, acc in enumerate(accumulators) for op in acc.accesses}
    for op in list(block.ops):
        n = index_of.get(id(op))
        if n is None:
            continue
        if isinstance(op, loop.LoadOp | loop.VectorLoadOp):
            op.results[0].replace_all_uses_with(current[n])
        else:
            current[n] = op.value  # type: ignore[attr-defined]
        block.erase_op(op)
    old_yield = block.last_op
    assert isinstance(old_yield, loop.YieldOp)
    yielded = [*old_yield.values, *current]
    block.erase_op(old_yield)
    block.add_op(loop.YieldOp(*yielded))
    lower, upper, step = for_op.bounds
    new = loop.ForOp(lower, upper, step, [*for_op.inits, *inits], block)
    new.attributes.update(for_op.attributes)
    parent.insert_op_before(new, for_op)
    for old_result, new_result in zip(for_op.results, new.results):
        old_result.replace_all_uses_with(new_result)
    stores: list[Operation] = []
    for acc, result in zip(accumulators, new.results[len(for_op.results) :]):
        indices = list(acc.first.indices)  # type: ignore[attr-defined]
        if isinstance(result.type, VectorType):
            stores.append(loop.VectorStoreOp(result, acc.first.buffer, indices))  # type: ignore[attr-defined]
        else:
            stores.append(loop.StoreOp(result, acc.first.buffer, indices))  # type: ignore[attr-defined]
    parent.insert_ops_after(stores, new)
    parent.erase_op(for_op)
    return new


def promote_loop(for_op: loop.ForOp, indices: _Indices | None = None) -> loop.ForOp:
    """`for_op` with its accumulators carried (itself if it has none)."""
    if for_op.trip_count < 1 or loop.PARALLEL_HINT in for_op.attributes:
        return for_op
    body = for_op.body.block.ops
    if not any(isinstance(op, loop.StoreOp | loop.VectorStoreOp) for op in body):
        return for_op  # an accumulator is stored directly in the body
    inside = loop.defined_within(for_op)
    _hoist_invariant_indices(for_op, inside)
    indices = indices or _Indices()
    by_buffer: dict[SSAValue, list[Operation]] = {}
    opaque: set[SSAValue] = set()  # passed to something else (a call, a copy): left alone
    for op in for_op.walk():
        if isinstance(op, _ACCESSES):
            by_buffer.setdefault(op.buffer, []).append(op)
        else:
            opaque.update(o for o in op.operands if isinstance(o.type, MemRefType))
    promoted: list[_Accumulator] = []
    for buffer, accesses in by_buffer.items():
        if buffer not in inside and buffer not in opaque:
            promoted += _accumulators(for_op, accesses, inside, indices) or []
    return _promote(for_op, promoted) if promoted else for_op


@dataclass(frozen=True)
class PromoteAccumulatorsPass(ModulePass):
    """Carry loop-invariant read-modify-write accesses in registers (see the docstring)."""

    name = "loop-promote-accumulators"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # innermost loops first: what moves out of one may be promoted by the next
        loops = [o for o in op.walk() if isinstance(o, loop.ForOp)]
        indices = _Indices()
        for for_op in reversed(loops):
            promote_loop(for_op, indices)
