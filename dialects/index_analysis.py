"""What the loop passes know about index expressions: linear forms, strides, equal values.

convert-te-to-loop, loop-vectorize, loop-vectorize-transpose and loop-promote-accumulators
all reason about `arith` ops on `index` values: whether an index is a linear form of loop
variables, how far it moves per step of a loop, whether two indices are the same value or
a known constant apart, whether a division by a constant can be decided at compile time.
Each pass used to carry its own copy of these analyses, with small differences in what
they accepted; they live here once, so that the passes agree on what they prove and a fix
to one is a fix to all. Nothing here changes IR: every function only reads the ops that
define a value. (The MLIR counterparts are `AffineExpr` flattening and
`ValueBoundsOpInterface`; our indices are plain `arith` ops, so the analyses walk those.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from minitvm.dialects.arith_ext import is_pure
from minitvm.dialects.arith_values import constant_int

#: Index divisions by a constant that mean the same for a dividend >= 0.
DIVISIONS = arith.DivUIOp | arith.DivSIOp | arith.FloorDivSIOp
#: Index remainders by a constant that mean the same for a dividend >= 0.
REMAINDERS = arith.RemUIOp | arith.RemSIOp

#: Inclusive value ranges of index values, where known (a loop variable's [0, extent - 1]).
Ranges = dict[SSAValue, tuple[int, int]]


# --------------------------------------------------------------------------------------------
# Linear forms: sum(coefficient * atom) + constant
# --------------------------------------------------------------------------------------------


@dataclass
class LinearForm:
    """sum(coefficient * atom) + constant; atoms are index values the form does not look
    into (loop variables, products of two variables, divisions, ...)."""

    terms: dict[SSAValue, int]
    constant: int

    def scaled(self, factor: int) -> LinearForm:
        return LinearForm({a: c * factor for a, c in self.terms.items()}, self.constant * factor)

    def plus(self, other: LinearForm) -> LinearForm:
        terms = dict(self.terms)
        for atom, c in other.terms.items():
            terms[atom] = terms.get(atom, 0) + c
        return LinearForm({a: c for a, c in terms.items() if c}, self.constant + other.constant)

    def bounds(self, ranges: Ranges) -> tuple[int, int] | None:
        """The form's smallest and largest value over the atoms' ranges; None when an atom's
        range is unknown."""
        lo = hi = self.constant
        for atom, c in self.terms.items():
            if atom not in ranges:
                return None
            a, b = ranges[atom]
            lo, hi = lo + min(c * a, c * b), hi + max(c * a, c * b)
        return lo, hi


def linear_form(value: SSAValue, ranges: Ranges | None = None) -> LinearForm:
    """`value` as a linear form, looking through `arith.addi`, `subi` and `muli` by a
    constant; anything else becomes an atom. With `ranges`, an atom that divides (or
    reduces) a dividend of known range >= 0 by a constant gets its range recorded there, so
    that an enclosing division can use it (`(p / 16) / 4` over a known p)."""
    if (number := constant_int(value)) is not None:
        return LinearForm({}, number)
    owner = value.owner
    if isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MuliOp):
        lhs, rhs = linear_form(owner.lhs, ranges), linear_form(owner.rhs, ranges)
        if isinstance(owner, arith.AddiOp):
            return lhs.plus(rhs)
        if isinstance(owner, arith.SubiOp):
            return lhs.plus(rhs.scaled(-1))
        if not rhs.terms or not lhs.terms:
            return lhs.scaled(rhs.constant) if not rhs.terms else rhs.scaled(lhs.constant)
    elif ranges is not None and isinstance(owner, DIVISIONS | REMAINDERS) and value not in ranges:
        d = constant_int(owner.rhs)
        dividend = linear_form(owner.lhs, ranges).bounds(ranges)
        if d is not None and d > 0 and dividend is not None and dividend[0] >= 0:
            lo, hi = dividend
            quotient = isinstance(owner, DIVISIONS)
            ranges[value] = (lo // d, hi // d) if quotient else (0, min(hi, d - 1))
    return LinearForm({value: 1}, 0)


def linear_in_arguments(value: SSAValue) -> LinearForm | None:
    """`value` as a linear form whose atoms are all block arguments (loop variables), or
    None when some part of it is not linear in them."""
    form = linear_form(value)
    if any(isinstance(atom.owner, Operation) for atom in form.terms):
        return None
    return form


# --------------------------------------------------------------------------------------------
# Divisions by constants that the ranges of loop variables decide
# --------------------------------------------------------------------------------------------


def exact_division(
    lhs: SSAValue, rhs: SSAValue, ranges: Ranges, quotient: bool
) -> LinearForm | None:
    """lhs / rhs (or lhs % rhs) as a linear form free of the division, when `rhs` is a
    constant d and lhs = d * q + r with every term of q a multiple of d and 0 <= r < d over
    the atoms' ranges (then q and r are the quotient and remainder, for every division
    kind: lhs >= 0). None when that cannot be shown."""
    d = constant_int(rhs)
    if d is None or d <= 0:
        return None
    form = linear_form(lhs, ranges)
    if not form.terms or (bounds := form.bounds(ranges)) is None or bounds[0] < 0:
        return None
    q = LinearForm({a: c // d for a, c in form.terms.items() if c % d == 0}, form.constant // d)
    r = LinearForm({a: c for a, c in form.terms.items() if c % d}, form.constant % d)
    r_bounds = r.bounds(ranges)
    if r_bounds is None or r_bounds[0] < 0 or r_bounds[1] >= d:
        return None
    return q if quotient else r


def factored_division(
    lhs: SSAValue, rhs: SSAValue, ranges: Ranges
) -> tuple[LinearForm, LinearForm, int] | None:
    """(x, r, d / k) with lhs = k * x + r, when `rhs` is a constant d, k is a factor of d,
    0 <= r < k and x >= 0 over the atoms' ranges (the largest such k): then
    lhs / d = x / (d / k) and lhs % d = k * (x % (d / k)) + r. That is an output channel of
    a split loop, o = 4 * o_o + o_i, finding its group of 68 channels: o / 68 = o_o / 17,
    one value for the whole unrolled block. None otherwise."""
    d = constant_int(rhs)
    if d is None or d <= 1:
        return None
    form = linear_form(lhs, ranges)
    bounds = form.bounds(ranges)
    if not form.terms or bounds is None or bounds[0] < 0:
        return None
    small = (k for k in range(2, math.isqrt(d) + 1) if d % k == 0)
    factors = {f for k in small for f in (k, d // k)} - {d}
    for k in sorted(factors, reverse=True):
        big = {a: c // k for a, c in form.terms.items() if c % k == 0}
        outer = LinearForm(big, form.constant // k)
        rest = LinearForm({a: c for a, c in form.terms.items() if c % k}, form.constant % k)
        rest_bounds, outer_bounds = rest.bounds(ranges), outer.bounds(ranges)
        if (
            not outer.terms
            or rest_bounds is None
            or outer_bounds is None
            or rest_bounds[0] < 0
            or rest_bounds[1] >= k
            or outer_bounds[0] < 0
        ):
            continue
        return outer, rest, d // k
    return None


# --------------------------------------------------------------------------------------------
# Strides: how far an index moves per step of one loop variable
# --------------------------------------------------------------------------------------------


def combined_stride(
    op: arith.AddiOp | arith.SubiOp | arith.MuliOp, lhs: int, rhs: int
) -> int | None:
    """The stride of `op`'s result given its operands' strides along one loop variable;
    None for a product that is not a moving index times a constant."""
    if isinstance(op, arith.AddiOp):
        return lhs + rhs
    if isinstance(op, arith.SubiOp):
        return lhs - rhs
    if not lhs and not rhs:
        return 0
    factor = constant_int(op.rhs if lhs else op.lhs)
    if (lhs and rhs) or factor is None:
        return None
    return (lhs or rhs) * factor


# --------------------------------------------------------------------------------------------
# Equal values and constant distances
# --------------------------------------------------------------------------------------------


class ValueKeys:
    """Index values as structural keys: two values computed the same way (same pure ops,
    properties and attributes) from the same values get the same key, and an offset form
    (base key, constant). Memoized: a kernel's unrolled blocks repeat the same index
    arithmetic many times, and a vector loop compares the indices of all its accesses."""

    def __init__(self) -> None:
        self.keys: dict[SSAValue, object] = {}
        self.offsets: dict[SSAValue, tuple[object, int]] = {}

    def key(self, value: SSAValue) -> object:
        if value not in self.keys:
            owner = value.owner
            if isinstance(owner, Operation) and not owner.regions and is_pure(owner):
                self.keys[value] = (
                    owner.name,
                    value.index,  # pyright: ignore[reportAttributeAccessIssue]
                    tuple(sorted(owner.properties.items())),
                    tuple(sorted(owner.attributes.items())),
                    tuple(self.key(o) for o in owner.operands),
                )
            else:
                self.keys[value] = ("value", id(value))
        return self.keys[value]

    def same(self, a: SSAValue, b: SSAValue) -> bool:
        """`a` and `b` are the same value, or computed the same way by pure ops."""
        return a is b or self.key(a) == self.key(b)

    def offset(self, value: SSAValue) -> tuple[object, int]:
        """`value` as (base key, constant) with value = base + constant, folding sums and
        products of constants (an unrolled copy's `j_o * 64 + 1 * 16`); a constant has
        base None. Coarser than `linear_form` on purpose: two indices are a constant apart
        only where they add constants to one and the same base."""
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
