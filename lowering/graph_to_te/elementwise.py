"""Lowering rules of the elementwise graph ops (unary math, broadcasting binary ops).

Each op becomes one te.compute over its result shape; binary ops read their operands with
`broadcast_read` (numpy broadcasting: size-1 dims read index 0, missing leading dims are
dropped). The formulas are those of `graph/reference.py`, which the tests compare against.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute, Operation

from minitvm.dialects import graph
from minitvm.dialects.graph.base import get_float, get_str
from minitvm.dialects.te_expr import (
    Expr,
    Tensor,
    _emit,
    abs_,
    cast,
    clamp,
    erf,
    exp,
    is_float_type,
    log,
    maximum,
    minimum,
    pow_,
    select,
    sqrt,
    tanh,
)
from minitvm.lowering.graph_to_te.kernel_builder import KernelBuilder, broadcast_read, lowering


def _result_type(op: Operation, n: int = 0) -> TensorType:
    type_ = op.results[n].type
    assert isinstance(type_, TensorType)
    return type_


# --------------------------------------------------------------------------------------------
# Unary
# --------------------------------------------------------------------------------------------


def _unary(fn: Callable[[Operation, Expr], Expr]) -> Callable[..., list[Tensor]]:
    """A rule computing `fn(op, x[i])` at every index of x."""

    def rule(kb: KernelBuilder, op: Operation, x: Tensor) -> list[Tensor]:
        return [kb.compute(x.shape, x.element_type, lambda *i: fn(op, x[i]))]

    return rule


_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def _gelu(op: Operation, x: Expr) -> Expr:
    if get_str(op.properties, "approximate", "none") == "tanh":
        return 0.5 * x * (1.0 + tanh(_SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))))
    return 0.5 * x * (1.0 + erf(x * _SQRT_HALF))


def _leaky_relu(op: Operation, x: Expr) -> Expr:
    return select(x >= 0.0, x, get_float(op.properties, "alpha", 0.01) * x)


def _hard_sigmoid(op: Operation, x: Expr) -> Expr:
    alpha = get_float(op.properties, "alpha", 0.2)
    beta = get_float(op.properties, "beta", 0.5)
    return clamp(alpha * x + beta, 0.0, 1.0)


def scalar_of(value: float, type_: Attribute) -> float | int | bool:
    """A float property as a value of element type `type_`, converted as numpy's astype
    does (ints truncate toward zero and saturate at infinities; bool is `!= 0`)."""
    if is_float_type(type_):
        return value
    assert isinstance(type_, IntegerType), type_
    width = type_.width.data
    if width == 1:
        return value != 0
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if math.isnan(value):
        return 0
    return int(min(max(value, lo), hi))


def _clip(op: Operation, x: Expr) -> Expr:
    # Clip on a NaN keeps the NaN: maximumf/minimumf propagate it, as np.maximum does.
    for name, bound in (("min", maximum), ("max", minimum)):
        if name in op.properties:
            x = bound(x, scalar_of(get_float(op.properties, name), x.type))
    return x


_UNARY: dict[type[Operation], Callable[[Operation, Expr], Expr]] = {
    graph.ReluOp: lambda op, x: maximum(x, 0.0),
    graph.SigmoidOp: lambda op, x: 1.0 / (1.0 + exp(-x)),
    graph.TanhOp: lambda op, x: tanh(x),
    graph.ErfOp: lambda op, x: erf(x),
    graph.ExpOp: lambda op, x: exp(x),
    graph.LogOp: lambda op, x: log(x),
    graph.SqrtOp: lambda op, x: sqrt(x),
    graph.ReciprocalOp: lambda op, x: 1.0 / x,
    graph.NegOp: lambda op, x: -x,
    graph.AbsOp: lambda op, x: abs_(x),
    graph.HardSwishOp: lambda op, x: x * clamp(x / 6.0 + 0.5, 0.0, 1.0),
    graph.GeluOp: _gelu,
    graph.LeakyReluOp: _leaky_relu,
    graph.HardSigmoidOp: _hard_sigmoid,
    graph.ClipOp: _clip,
}
for _cls, _fn in _UNARY.items():
    lowering(_cls)(_unary(_fn))


@lowering(graph.CastOp)
def _cast(kb: KernelBuilder, op: graph.CastOp, x: Tensor) -> list[Tensor]:
    to = _result_type(op).element_type
    return [kb.compute(x.shape, to, lambda *i: cast(x[i], to))]


# --------------------------------------------------------------------------------------------
# Binary, with numpy broadcasting
# --------------------------------------------------------------------------------------------


def _bool_compare(a: Expr, b: Expr, predicate: str) -> Expr:
    """Booleans compare unsigned (true > false); `Expr`'s operators compare signed."""
    return _emit(arith.CmpiOp(a.value, b.value, predicate))


def _is_bool(type_: Attribute) -> bool:
    return isinstance(type_, IntegerType) and type_.width.data == 1


def _less(a: Expr, b: Expr) -> Expr:
    return _bool_compare(a, b, "ult") if _is_bool(a.type) else a < b


def _greater(a: Expr, b: Expr) -> Expr:
    return _bool_compare(a, b, "ugt") if _is_bool(a.type) else a > b


_BINARY: dict[type[Operation], Callable[[Expr, Expr], Expr]] = {
    graph.AddOp: lambda a, b: a + b,
    graph.SubOp: lambda a, b: a - b,
    graph.MulOp: lambda a, b: a * b,
    graph.DivOp: lambda a, b: a / b,  # divf, or divsi: ONNX's integer Div truncates
    graph.PowOp: pow_,
    graph.MaxOp: maximum,  # maximumf propagates NaN, as np.maximum does
    graph.MinOp: minimum,
    graph.EqualOp: lambda a, b: a.eq(b),
    graph.LessOp: _less,
    graph.GreaterOp: _greater,
}


def _binary(fn: Callable[[Expr, Expr], Expr]) -> Callable[..., list[Tensor]]:
    def rule(kb: KernelBuilder, op: Operation, a: Tensor, b: Tensor) -> list[Tensor]:
        out = _result_type(op)
        return [
            kb.compute(
                out.get_shape(),
                out.element_type,
                lambda *i: fn(broadcast_read(a, i), broadcast_read(b, i)),
            )
        ]

    return rule


for _cls, _bfn in _BINARY.items():
    lowering(_cls)(_binary(_bfn))


@lowering(graph.PReluOp)
def _prelu(kb: KernelBuilder, op: graph.PReluOp, x: Tensor, slope: Tensor) -> list[Tensor]:
    def body(*i: Expr) -> Expr:
        v = x[i]
        return select(v < 0.0, broadcast_read(slope, i) * v, v)

    return [kb.compute(x.shape, x.element_type, body)]


@lowering(graph.WhereOp)
def _where(
    kb: KernelBuilder, op: graph.WhereOp, cond: Tensor, a: Tensor, b: Tensor
) -> list[Tensor]:
    out = _result_type(op)
    return [
        kb.compute(
            out.get_shape(),
            out.element_type,
            lambda *i: select(broadcast_read(cond, i), broadcast_read(a, i), broadcast_read(b, i)),
        )
    ]

