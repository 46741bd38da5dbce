"""The arith dialect as minitvm uses it: xDSL's, plus `arith.remf`, which xDSL 0.75 lacks.

    %r = arith.remf %a, %b : f32

is MLIR's floating-point remainder with the sign of the dividend (C's `fmod`; LLVM `frem`),
what ONNX's Mod with fmod = 1 computes. `ARITH_DIALECT` is xDSL's dialect with it added, so
that te and loop IR holding one prints and parses back.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure


@irdl_op_definition
class RemFOp(arith.FloatingPointLikeBinaryOperation):
    name = "arith.remf"

    traits = traits_def(Pure())


ARITH_DIALECT = Dialect("arith", [*arith.Arith.operations, RemFOp], list(arith.Arith.attributes))
