"""What an SSA value is known to be at compile time, for passes that reason about indices."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue


def constant_int(value: SSAValue) -> int | None:
    """The integer (or index) an `arith.constant` defines `value` as, or None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None
