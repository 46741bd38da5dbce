"""The arith dialect as minitvm uses it: xDSL's, plus `arith.remf`, which xDSL 0.75 lacks.

    %r = arith.remf %a, %b : f32

is MLIR's floating-point remainder with the sign of the dividend (C's `fmod`; LLVM `frem`),
what ONNX's Mod with fmod = 1 computes. `ARITH_DIALECT` is xDSL's dialect with it added, so
that te and loop IR holding one prints and parses back.

xDSL 0.75 also declares `arith.extsi` without the Pure trait its siblings (extui, trunci)
have, so xDSL's `is_side_effect_free` calls it effectful; `is_pure` is that query with the
op counted as what it is, for the loop passes that hoist and vectorize pure ops.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Dialect, Operation
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure, is_side_effect_free

#: Ops without memory effects that xDSL 0.75 does not mark so (MLIR's are Pure).
_PURE_UNMARKED = (arith.ExtSIOp,)


def is_pure(op: Operation) -> bool:
    """`xdsl.traits.is_side_effect_free`, but true of arith.extsi too."""
    return isinstance(op, _PURE_UNMARKED) or is_side_effect_free(op)


@irdl_op_definition
class RemFOp(arith.FloatingPointLikeBinaryOperation):
    name = "arith.remf"

    traits = traits_def(Pure())


ARITH_DIALECT = Dialect("arith", [*arith.Arith.operations, RemFOp], list(arith.Arith.attributes))
