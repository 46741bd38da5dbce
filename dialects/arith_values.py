"""What an SSA value is known to be at compile time, for passes that reason about indices."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter


def constant_int(value: SSAValue) -> int | None:
    """The integer (or index) an `arith.constant` defines `value` as, or None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


_INT_FOLDS: dict[type[Operation], Callable[[int, int], int]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.FloorDivSIOp: lambda a, b: a // b if b else None,  # type: ignore[dict-item]
    arith.MaxSIOp: max,
    arith.MinSIOp: min,
    arith.AndIOp: lambda a, b: a & b,
    arith.OrIOp: lambda a, b: a | b,
}

#: arith.cmpi's predicates by number (eq, ne, slt, sle, sgt, sge; the unsigned ones on the
#: non-negative values folded here alike).
_COMPARISONS: tuple[Callable[[int, int], bool], ...] = (
    lambda a, b: a == b, lambda a, b: a != b,
    lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a >= b,
    lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a >= b,
)  # fmt: skip

_FLOAT_FOLDS: dict[type[Operation], Callable[[float, float], float]] = {
    arith.AddfOp: lambda a, b: a + b,
    arith.SubfOp: lambda a, b: a - b,
    arith.MulfOp: lambda a, b: a * b,
}


def constant_float(value: SSAValue) -> float | None:
    """The float an `arith.constant` defines `value` as, or None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, FloatAttr):
        return owner.value.value.data
    return None


def folded(op: Operation) -> SSAValue | int | float | None:
    """What `op` computes when its operands are constants: an int or float for integer,
    index, comparison and float arithmetic, the chosen operand for a select on a constant
    condition; None if it is none of those or an operand is not known. The integer ops fold
    exactly only where no value wraps (the index arithmetic of unrolled loops)."""
    if isinstance(op, arith.SelectOp):
        condition = constant_int(op.cond)
        if condition is None:
            return None
        return op.lhs if condition else op.rhs
    if type(op) in _INT_FOLDS or isinstance(op, arith.CmpiOp):
        a, b = (constant_int(v) for v in op.operands)
        if a is None or b is None:
            return None
        if isinstance(op, arith.CmpiOp):
            return int(_COMPARISONS[op.predicate.value.data](a, b))
        return _INT_FOLDS[type(op)](a, b)
    if type(op) in _FLOAT_FOLDS:
        x, y = (constant_float(v) for v in op.operands)
        if x is None or y is None:
            return None
        return _FLOAT_FOLDS[type(op)](x, y)
    return None


Replace = Callable[[Operation, Sequence[Operation], Sequence[SSAValue]], object]
Erase = Callable[[Operation], object]


def fold_constants(
    ops: Iterable[Operation],
    replace: Replace = Rewriter.replace_op,
    erase: Erase = Rewriter.erase_op,
    keep: Iterable[SSAValue] = (),
) -> dict[SSAValue, SSAValue]:
    """Replace each of `ops` (and the ops nested in them, in order) that `folded` computes by
    a constant, or a select by its chosen operand, through `replace(op, new ops, new
    results)` (a pattern rewriter's `replace` inside a pattern), then `erase` the arith ops
    among them left unused (but those defining `keep`): what an unrolled copy of a loop body,
    its induction variable now a constant, no longer needs to compute at run time (a Winograd
    transform's 16 positions: 3350 loop ops before folding, 2470 after). Returns each
    replaced result's replacement."""
    ops = list(ops)
    replaced: dict[SSAValue, SSAValue] = {}
    for top in ops:
        for op in list(top.walk()):
            value = folded(op)
            if value is None:
                continue
            if isinstance(value, SSAValue):
                new: list[Operation] = []
            else:
                type_ = op.results[0].type
                is_float = isinstance(value, float)
                attr = FloatAttr(value, type_) if is_float else IntegerAttr(value, type_)
                new = [arith.ConstantOp(attr, type_)]
                value = new[0].results[0]
            replaced[op.results[0]] = value
            replace(op, new, [value])
    kept = {replaced.get(v, v) for v in keep}
    for top in reversed(ops):
        for op in reversed(list(top.walk())):
            used = any(r.uses or r in kept for r in op.results)
            if op.dialect_name() == "arith" and not used:
                erase(op)
    return replaced
