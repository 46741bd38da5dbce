"""dialects/index_analysis: what the loop passes prove about index expressions."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue

from minitvm.dialects.index_analysis import (
    ValueKeys,
    combined_stride,
    exact_division,
    factored_division,
    linear_form,
    linear_in_arguments,
)


class _Builder:
    """Index arithmetic over two block arguments i, j, appended to one block."""

    def __init__(self) -> None:
        self.block = Block(arg_types=[IndexType(), IndexType()])
        self.i, self.j = self.block.args

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def c(self, value: int) -> SSAValue:
        return self.add(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add(arith.MuliOp(a, b))

    def plus(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add(arith.AddiOp(a, b))


def test_linear_form_looks_through_sums_and_constant_products():
    b = _Builder()
    value = b.plus(b.mul(b.i, b.c(4)), b.add(arith.SubiOp(b.j, b.c(3))))  # 4i + j - 3
    form = linear_form(value)
    assert form.terms == {b.i: 4, b.j: 1} and form.constant == -3
    assert form.bounds({b.i: (0, 7), b.j: (0, 3)}) == (-3, 28)
    product = b.mul(b.i, b.j)  # not linear: an atom, and not linear in the arguments
    assert linear_form(product).terms == {product: 1}
    assert linear_in_arguments(b.plus(product, b.i)) is None
    assert linear_in_arguments(value) is not None


def test_divisions_the_ranges_decide():
    b = _Builder()
    index = b.plus(b.mul(b.i, b.c(16)), b.j)  # 16 i + j, j in [0, 16)
    ranges = {b.i: (0, 3), b.j: (0, 15)}
    quotient = exact_division(index, b.c(16), ranges, quotient=True)
    remainder = exact_division(index, b.c(16), ranges, quotient=False)
    assert quotient is not None and quotient.terms == {b.i: 1} and quotient.constant == 0
    assert remainder is not None and remainder.terms == {b.j: 1}
    assert exact_division(index, b.c(16), {b.i: (0, 3), b.j: (0, 16)}, True) is None
    # o = 4 o_o + o_i: o / 68 = o_o / 17 (68 = 4 x 17)
    channel = b.plus(b.mul(b.i, b.c(4)), b.j)
    factored = factored_division(channel, b.c(68), {b.i: (0, 16), b.j: (0, 3)})
    assert factored is not None
    outer, rest, divisor = factored
    assert (outer.terms, rest.terms, divisor) == ({b.i: 1}, {b.j: 1}, 17)


def test_combined_stride():
    b = _Builder()
    four = b.c(4)
    assert combined_stride(arith.AddiOp(b.i, b.j), 1, 2) == 3
    assert combined_stride(arith.SubiOp(b.i, b.j), 1, 1) == 0
    assert combined_stride(arith.MuliOp(b.i, four), 1, 0) == 4
    assert combined_stride(arith.MuliOp(b.i, b.j), 1, 0) is None  # scaled by a non-constant
    assert combined_stride(arith.MuliOp(b.i, b.j), 0, 0) == 0


def test_value_keys_equal_values_and_distances():
    b = _Builder()
    keys = ValueKeys()
    first = b.plus(b.mul(b.i, b.c(64)), b.c(16))
    again = b.plus(b.mul(b.i, b.c(64)), b.c(16))  # computed the same way
    other = b.plus(b.mul(b.j, b.c(64)), b.c(16))
    assert keys.same(first, again) and not keys.same(first, other)
    assert keys.difference(b.plus(again, b.c(16)), first) == 16
    assert keys.difference(other, first) is None
