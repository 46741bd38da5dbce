"""Lowering rules of the elementwise graph ops (unary math, broadcasting binary ops).

Each op becomes one te.compute over its result shape; binary ops read their operands with
`broadcast_read` (numpy broadcasting: size-1 dims read index 0, missing leading dims are
dropped). The formulas are those of `graph/reference.py`, which the tests compare against.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects.builtin import IntegerType, TensorType, f16, f32, f64, i1
from xdsl.ir import Attribute, Operation

from minitvm.dialects import graph
from minitvm.dialects.graph.base import get_float, get_int, get_str, shape_of
from minitvm.dialects.te_expr import (
    Expr,
    Tensor,
    abs_,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    bitcast,
    cast,
    ceil,
    clamp,
    const,
    cos,
    cosh,
    erf,
    exp,
    floor,
    is_float_type,
    is_nan,
    is_unsigned,
    log,
    log1p,
    maximum,
    minimum,
    pow_,
    round_even,
    select,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
)
from minitvm.lowering.graph_to_te.kernel_builder import KernelBuilder, broadcast_read, lowering


def _result_type(op: Operation, n: int = 0) -> TensorType:
    type_ = op.results[n].type
    assert isinstance(type_, TensorType)
    return type_


# --------------------------------------------------------------------------------------------
# Unary
# --------------------------------------------------------------------------------------------


def in_f32_if_half(fn: Callable[[Expr], Expr]) -> Callable[[Expr], Expr]:
    """`fn` computed in f32 on an f16 value and rounded once at the end, as ONNX Runtime
    computes f16 math: rounding each step to f16 would lose the small results of formulas
    like exp(x) - 1."""

    def wrapped(x: Expr) -> Expr:
        return cast(fn(cast(x, f32)), f16) if x.type == f16 else fn(x)

    return wrapped


def _unary(fn: Callable[[Operation, Expr], Expr]) -> Callable[..., list[Tensor]]:
    """A rule computing `fn(op, x[i])` at every index of x."""

    def rule(kb: KernelBuilder, op: Operation, x: Tensor) -> list[Tensor]:
        body = in_f32_if_half(lambda v: fn(op, v))
        return [kb.compute(x.shape, x.element_type, lambda *i: body(x[i]))]

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
    if is_unsigned(type_):
        lo, hi = 0, (1 << width) - 1
    else:
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


def _softplus(x: Expr) -> Expr:
    # max(x, 0) + log1p(exp(-|x|)): exp never overflows and small results keep their digits.
    return maximum(x, 0.0) + log1p(exp(-abs_(x)))


def _sign(op: Operation, x: Expr) -> Expr:
    # A NaN compares false both ways and comes out as itself.
    if is_unsigned(x.type):
        return select(x > 0, 1, x)
    return select(x > 0, 1, select(x < 0, -1, x))


def _elu(op: Operation, x: Expr) -> Expr:
    return select(x >= 0.0, x, get_float(op.properties, "alpha", 1.0) * (exp(x) - 1.0))


def _selu(op: Operation, x: Expr) -> Expr:
    alpha = get_float(op.properties, "alpha", 1.67326319217681884765625)
    gamma = get_float(op.properties, "gamma", 1.05070102214813232421875)
    return gamma * select(x > 0.0, x, alpha * (exp(x) - 1.0))


def _celu(op: Operation, x: Expr) -> Expr:
    alpha = get_float(op.properties, "alpha", 1.0)
    return maximum(x, 0.0) + minimum(alpha * (exp(x * (1.0 / alpha)) - 1.0), 0.0)


def _thresholded_relu(op: Operation, x: Expr) -> Expr:
    return select(x > get_float(op.properties, "alpha", 1.0), x, 0.0)


def _shrink(op: Operation, x: Expr) -> Expr:
    """On an integer type the formula runs in f64 (bias and lambd are floats) and the result
    converts back, truncating, as ONNX Runtime's cast does."""
    bias = get_float(op.properties, "bias", 0.0)
    lambd = get_float(op.properties, "lambd", 0.5)
    v = x if x.is_float else cast(x, f64)
    shrunk = select(v < -lambd, v + bias, select(v > lambd, v - bias, 0.0))
    return shrunk if x.is_float else cast(shrunk, x.type)


def _is_inf(op: Operation, x: Expr) -> Expr:
    positive = get_int(op.properties, "detect_positive", 1)
    negative = get_int(op.properties, "detect_negative", 1)
    if positive and negative:
        return abs_(x).eq(math.inf)
    if positive or negative:
        return x.eq(math.inf if positive else -math.inf)
    return const(False, i1)


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
    graph.SinOp: lambda op, x: sin(x),
    graph.CosOp: lambda op, x: cos(x),
    graph.TanOp: lambda op, x: tan(x),
    graph.AsinOp: lambda op, x: asin(x),
    graph.AcosOp: lambda op, x: acos(x),
    graph.AtanOp: lambda op, x: atan(x),
    graph.SinhOp: lambda op, x: sinh(x),
    graph.CoshOp: lambda op, x: cosh(x),
    graph.AsinhOp: lambda op, x: asinh(x),
    graph.AcoshOp: lambda op, x: acosh(x),
    graph.AtanhOp: lambda op, x: atanh(x),
    graph.CeilOp: lambda op, x: ceil(x),
    graph.FloorOp: lambda op, x: floor(x),
    graph.RoundOp: lambda op, x: round_even(x),
    graph.SignOp: _sign,
    graph.SoftplusOp: lambda op, x: _softplus(x),
    graph.SoftsignOp: lambda op, x: x / (1.0 + abs_(x)),
    graph.MishOp: lambda op, x: x * tanh(_softplus(x)),
    graph.EluOp: _elu,
    graph.SeluOp: _selu,
    graph.CeluOp: _celu,
    graph.ThresholdedReluOp: _thresholded_relu,
    graph.ShrinkOp: _shrink,
    graph.NotOp: lambda op, x: ~x,
    graph.BitwiseNotOp: lambda op, x: ~x,
}
for _cls, _fn in _UNARY.items():
    lowering(_cls)(_unary(_fn))

_PREDICATES: dict[type[Operation], Callable[[Operation, Expr], Expr]] = {
    graph.IsNaNOp: lambda op, x: is_nan(x),
    graph.IsInfOp: _is_inf,
}


@lowering(*_PREDICATES)
def _predicate(kb: KernelBuilder, op: Operation, x: Tensor) -> list[Tensor]:
    return [kb.compute(x.shape, i1, lambda *i: _PREDICATES[type(op)](op, x[i]))]


@lowering(graph.CastOp)
def _cast(kb: KernelBuilder, op: graph.CastOp, x: Tensor) -> list[Tensor]:
    to = _result_type(op).element_type
    return [kb.compute(x.shape, to, lambda *i: cast(x[i], to))]


@lowering(graph.BitcastOp)
def _bitcast(kb: KernelBuilder, op: graph.BitcastOp, x: Tensor) -> list[Tensor]:
    to = _result_type(op).element_type
    return [kb.compute(x.shape, to, lambda *i: bitcast(x[i], to))]


# --------------------------------------------------------------------------------------------
# Binary, with numpy broadcasting
# --------------------------------------------------------------------------------------------


def _pow(base: Expr, exponent: Expr) -> Expr:
    """A float base takes the exponent in its own type; an integer base is raised in f64
    and truncated back (graph.pow's semantics)."""
    if base.is_float:
        return pow_(base, cast(exponent, base.type))
    return cast(trunc(pow_(cast(base, f64), cast(exponent, f64))), base.type)


def _safe_divisor(b: Expr) -> Expr:
    """An integer divisor with 0 and -1 replaced by 1: x86 traps on x % 0 and INT_MIN % -1,
    and x % 1 == x % -1 == 0 is the result numpy gives for both."""
    unsafe = b.eq(0) if is_unsigned(b.type) else b.eq(0) | b.eq(-1)
    return select(unsafe, 1, b)


def _mod(op: Operation, a: Expr, b: Expr) -> Expr:
    if not a.is_float:
        b = _safe_divisor(b)
    r = a.rem(b)
    if get_int(op.properties, "fmod", 0) or is_unsigned(a.type):
        return r
    # Python's %: a nonzero remainder whose sign differs from the divisor's moves by b.
    return select(r.ne(0) & ((r < 0) ^ (b < 0)), r + b, r)


def _bit_shift(op: Operation, x: Expr, amount: Expr) -> Expr:
    """Shifts by the bit width or more give 0 (-1 for a negative signed x shifted right);
    LLVM would make them poison, so the amount is kept in range first."""
    assert isinstance(x.type, IntegerType)
    width = x.type.width.data
    in_range = amount < width if is_unsigned(x.type) else (amount >= 0) & (amount < width)
    if get_str(op.properties, "direction", "left") == "left":
        return select(in_range, x << select(in_range, amount, 0), 0)
    if is_unsigned(x.type):
        return select(in_range, x >> select(in_range, amount, 0), 0)
    return x >> select(in_range, amount, width - 1)  # past the width: the sign bit fills


_BINARY: dict[type[Operation], Callable[[Expr, Expr], Expr]] = {
    graph.AddOp: lambda a, b: a + b,
    graph.SubOp: lambda a, b: a - b,
    graph.MulOp: lambda a, b: a * b,
    graph.DivOp: lambda a, b: a / b,  # divf, or divsi: ONNX's integer Div truncates
    graph.PowOp: _pow,
    graph.MaxOp: maximum,  # maximumf propagates NaN, as np.maximum does
    graph.MinOp: minimum,
    # Comparisons of i1 are unsigned (true > false): Expr compares i1 as unsigned.
    graph.EqualOp: lambda a, b: a.eq(b),
    graph.LessOp: lambda a, b: a < b,
    graph.GreaterOp: lambda a, b: a > b,
    graph.GreaterEqualOp: lambda a, b: a >= b,
    graph.LessEqualOp: lambda a, b: a <= b,
    graph.AndOp: lambda a, b: a & b,
    graph.OrOp: lambda a, b: a | b,
    graph.XorOp: lambda a, b: a ^ b,
    graph.BitwiseAndOp: lambda a, b: a & b,
    graph.BitwiseOrOp: lambda a, b: a | b,
    graph.BitwiseXorOp: lambda a, b: a ^ b,
}

#: Binary rules that read the op's properties.
_BINARY_OP: dict[type[Operation], Callable[[Operation, Expr, Expr], Expr]] = {
    graph.ModOp: _mod,
    graph.BitShiftOp: _bit_shift,
}


def _binary(fn: Callable[[Operation, Expr, Expr], Expr]) -> Callable[..., list[Tensor]]:
    def rule(kb: KernelBuilder, op: Operation, a: Tensor, b: Tensor) -> list[Tensor]:
        out = _result_type(op)
        return [
            kb.compute(
                shape_of(out),
                out.element_type,
                lambda *i: fn(op, broadcast_read(a, i), broadcast_read(b, i)),
            )
        ]

    return rule


for _cls, _bfn in _BINARY.items():
    lowering(_cls)(_binary(lambda op, a, b, fn=_bfn: fn(a, b)))
for _cls, _ofn in _BINARY_OP.items():
    lowering(_cls)(_binary(_ofn))


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
            shape_of(out),
            out.element_type,
            lambda *i: select(broadcast_read(cond, i), broadcast_read(a, i), broadcast_read(b, i)),
        )
    ]

