"""Op specs of the elementwise ops: unary math and activations, binary arithmetic with
broadcasting, comparisons and logic, Where, Clip, Cast and the variadic ops.

Each spec picks inputs whose bound lies in the op's domain (or makes a fresh input drawn in
it), draws the attributes, and gives the bound of the result: for unary ops the image of the
input interval sampled densely (then widened a little), for binary ops the extremes over the
corners (every binary op here is monotonic in each operand over its domain).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from minitvm.fuzz.graph import MAX_ELEMS, GraphBuilder, Reject, Value, join_bits
from minitvm.fuzz.spec import Spec, register

_erf = np.vectorize(math.erf, otypes=[np.float64])
Fn = Callable[[np.ndarray], np.ndarray]


def image(fn: Fn, lo: float, hi: float) -> tuple[float, float]:
    """A bound on fn over [lo, hi]: fn sampled at 513 points, widened by 1% plus a little."""
    with np.errstate(all="ignore"):
        ys = fn(np.linspace(lo, hi, 513))
    if not np.all(np.isfinite(ys)):
        raise Reject("not finite on the interval")
    ylo, yhi = float(ys.min()), float(ys.max())
    pad = 0.01 * (yhi - ylo) + 1e-3
    return ylo - pad, yhi + pad


def broadcast_variant(b: GraphBuilder, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts with `shape`: some dims 1, leading dims dropped or added."""
    dims = [1 if b.coin(0.3) else d for d in shape]
    if dims and b.coin(0.3):
        dims = dims[int(b.rng.integers(len(dims) + 1)):]
    elif len(dims) < 4 and b.coin(0.15):
        dims = [int(b.rng.integers(1, 4)), *dims]
    return tuple(dims)


def broadcasts(a: tuple[int, ...], c: tuple[int, ...]) -> bool:
    try:
        return math.prod(np.broadcast_shapes(a, c)) <= MAX_ELEMS
    except ValueError:
        return False


def partner(b: GraphBuilder, x: Value, accept: Callable[[Value], bool], lo: float, hi: float,
            exact: bool = False) -> Value:  # fmt: skip
    """A second float operand broadcasting with x: an existing one or a fresh input or weight
    of a broadcast variant of x's shape, in [lo, hi]."""
    return b.floats(lambda v: broadcasts(x.shape, v.shape) and accept(v),
                    shape=lambda: broadcast_variant(b, x.shape), lo=lo, hi=hi, exact=exact,
                    weight=b.coin(0.3), scalars=True)  # fmt: skip


def inside(lo: float, hi: float) -> Callable[[Value], bool]:
    return lambda v: lo <= v.lo and v.hi <= hi


@dataclass
class Unary(Spec):
    """A float -> float elementwise op: fn is its numpy meaning for the bound; inputs in
    [lo, hi]; `keeps_exact` if it cannot round; `needs_exact` if it is discontinuous."""

    fn: Fn = np.negative
    lo: float = -math.inf
    hi: float = math.inf
    keeps_exact: bool = False
    needs_exact: bool = False
    attrs: Callable[[GraphBuilder], dict[str, object]] = field(default=lambda b: {})
    #: fn given the drawn attributes (for ops whose meaning depends on them)
    fn_of: Callable[[dict[str, object]], Fn] | None = None

    def build(self, b: GraphBuilder) -> None:
        fresh_lo, fresh_hi = max(self.lo, -2.0), min(self.hi, 2.0)
        x = b.floats(inside(self.lo, self.hi), lo=fresh_lo, hi=fresh_hi, exact=self.needs_exact,
                     scalars=True)
        attrs = self.attrs(b)
        fn = self.fn_of(attrs) if self.fn_of else self.fn
        lo, hi = image(fn, x.lo, x.hi)
        b.emit(self.op_type, [x.name], [(lo, hi, x.bits if self.keeps_exact else None)], **attrs)


def _alpha(*choices: float) -> Callable[[GraphBuilder], dict[str, object]]:
    return lambda b: {"alpha": float(b.choice(choices))}


def _gelu(attrs: dict[str, object]) -> Fn:
    if attrs["approximate"] == "tanh":
        return lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _elu(attrs: dict[str, object]) -> Fn:
    a = float(attrs["alpha"])  # type: ignore[arg-type]
    return lambda x: np.where(x > 0, x, a * (np.exp(np.minimum(x, 0)) - 1))


def _leaky(attrs: dict[str, object]) -> Fn:
    a = float(attrs["alpha"])  # type: ignore[arg-type]
    return lambda x: np.where(x >= 0, x, a * x)


def _hard_sigmoid(attrs: dict[str, object]) -> Fn:
    a, c = float(attrs["alpha"]), float(attrs["beta"])  # type: ignore[arg-type]
    return lambda x: np.clip(a * x + c, 0, 1)


def _thresholded(attrs: dict[str, object]) -> Fn:
    a = float(attrs["alpha"])  # type: ignore[arg-type]
    return lambda x: np.where(x > a, x, 0)


def _celu(attrs: dict[str, object]) -> Fn:
    a = float(attrs["alpha"])  # type: ignore[arg-type]
    return lambda x: np.maximum(x, 0) + np.minimum(0, a * (np.exp(np.minimum(x, 0) / a) - 1))


def _shrink(attrs: dict[str, object]) -> Fn:
    lambd, bias = float(attrs["lambd"]), float(attrs["bias"])  # type: ignore[arg-type]
    return lambda x: np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


for _spec in [
    Unary("Relu", lambda x: np.maximum(x, 0), keeps_exact=True),
    Unary("Neg", np.negative, keeps_exact=True),
    Unary("Abs", np.abs, keeps_exact=True),
    Unary("Sigmoid", _sigmoid),
    Unary("Tanh", np.tanh),
    Unary("Exp", np.exp, hi=6.0),
    Unary("Log", np.log, lo=0.1),
    Unary("Sqrt", np.sqrt, lo=0.0),
    Unary("Reciprocal", np.reciprocal, lo=0.25),
    Unary("Sin", np.sin, lo=-8.0, hi=8.0),
    Unary("Cos", np.cos, lo=-8.0, hi=8.0),
    Unary("Atan", np.arctan),
    Unary("Erf", _erf),
    Unary("Softplus", lambda x: np.log1p(np.exp(x)), hi=20.0),
    Unary("Softsign", lambda x: x / (1 + np.abs(x))),
    Unary("Mish", lambda x: x * np.tanh(np.log1p(np.exp(x))), hi=20.0),
    Unary("HardSwish", lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    Unary("Floor", np.floor, keeps_exact=True, needs_exact=True),
    Unary("Ceil", np.ceil, keeps_exact=True, needs_exact=True),
    Unary("Round", np.round, keeps_exact=True, needs_exact=True),
    Unary("Sign", np.sign, keeps_exact=True, needs_exact=True),
    Unary("Gelu", attrs=lambda b: {"approximate": b.choice(["none", "tanh"])}, fn_of=_gelu),
    Unary("Elu", attrs=_alpha(1.0, 0.5, 2.0), fn_of=_elu),
    Unary("Selu", lambda x: 1.0507 * np.where(x > 0, x, 1.6733 * (np.exp(np.minimum(x, 0)) - 1))),
    Unary("LeakyRelu", attrs=_alpha(0.01, 0.1, 0.5), fn_of=_leaky),
    Unary("HardSigmoid", fn_of=_hard_sigmoid,
          attrs=lambda b: {"alpha": float(b.choice([0.2, 0.5])), "beta": float(b.choice([0.5, 0.25]))}),
    Unary("ThresholdedRelu", attrs=_alpha(1.0, 0.5, 0.0), fn_of=_thresholded, needs_exact=True),
    Unary("Tan", np.tan, lo=-1.2, hi=1.2),
    Unary("Asin", np.arcsin, lo=-0.9, hi=0.9),
    Unary("Acos", np.arccos, lo=-0.9, hi=0.9),
    Unary("Sinh", np.sinh, lo=-5.0, hi=5.0),
    Unary("Cosh", np.cosh, lo=-5.0, hi=5.0),
    Unary("Asinh", np.arcsinh),
    Unary("Acosh", np.arccosh, lo=1.1),
    Unary("Atanh", np.arctanh, lo=-0.9, hi=0.9),
    Unary("Celu", attrs=_alpha(1.0, 0.5, 2.0), fn_of=_celu),
    Unary("Shrink", fn_of=_shrink, needs_exact=True, keeps_exact=True,
          attrs=lambda b: {"lambd": float(b.choice([0.5, 1.0])), "bias": float(b.choice([0.0, 0.5]))}),
]:  # fmt: skip
    register(_spec)


@dataclass
class Binary(Spec):
    """A broadcasting float op. The second operand lies in [-hi, hi] and, with `away`, keeps
    that far from zero (Div); the first is at least x_lo (Pow's base)."""

    fn: Callable[[float, float], float] = lambda a, c: a + c
    keeps_exact: bool = False
    hi: float = math.inf
    away: float = 0.0
    x_lo: float = -math.inf

    def build(self, b: GraphBuilder) -> None:
        x = b.floats(lambda v: v.lo >= self.x_lo, lo=max(self.x_lo, -2.0), scalars=True)

        def fits(v: Value) -> bool:
            return v.mag <= self.hi and (v.lo >= self.away or v.hi <= -self.away)

        sign = -1.0 if self.away and b.coin(0.3) else 1.0
        fresh = sorted((sign * self.away, sign * min(self.hi, 2.0))) if self.away else (-2.0, 2.0)
        y = partner(b, x, fits, *fresh)
        if b.coin(0.5):
            x, y = (y, x) if self.op_type in {"Add", "Mul", "Max", "Min"} else (x, y)
        corners = [self.fn(p, q) for p in (x.lo, x.hi) for q in (y.lo, y.hi)]
        bits = None
        if self.keeps_exact:
            bits = (None if x.bits is None or y.bits is None else x.bits + y.bits) \
                if self.op_type == "Mul" else join_bits(x.bits, y.bits)  # fmt: skip
        b.emit(self.op_type, [x.name, y.name], [(min(corners), max(corners), bits)])


register(Binary("Add", lambda a, c: a + c, keeps_exact=True))
register(Binary("Sub", lambda a, c: a - c, keeps_exact=True))
register(Binary("Mul", lambda a, c: a * c, keeps_exact=True))
register(Binary("Div", lambda a, c: a / c, away=0.5))
register(Binary("Pow", lambda a, c: a**c, hi=2.0, x_lo=0.25))


@dataclass
class Mod(Spec):
    """fmod of exact floats (exact itself: IEEE fmod does not round), divisors away from
    zero; or the integer Mod (sign of the divisor) of int64 inputs."""

    def build(self, b: GraphBuilder) -> None:
        if b.coin(0.5):
            x = b.floats(exact=True, scalars=True)
            y = partner(b, x, lambda v: v.lo >= 0.5 or v.hi <= -0.5, 0.5, 2.0, exact=True)
            b.emit("Mod", [x.name, y.name], [(-y.mag, y.mag, join_bits(x.bits, y.bits))], fmod=1)
            return
        x = b.input(b.shape(), -20, 20, dtype="int64")
        sign = int(b.choice([1, -1]))  # divisors of either sign, never 0
        y = b.input(broadcast_variant(b, x.shape), min(sign, 7 * sign), max(sign, 7 * sign),
                    dtype="int64")  # fmt: skip
        b.emit("Mod", [x.name, y.name], [(-7.0, 7.0, 0)])


register(Mod("Mod"))


@dataclass
class Variadic(Spec):
    """Sum, Max, Min, Mean of one to three broadcasting operands."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats()
        operands = [x]
        for _ in range(int(b.rng.integers(0, 3))):
            operands.append(partner(b, x, lambda v: all(broadcasts(o.shape, v.shape)
                                                       for o in operands), -2.0, 2.0))  # fmt: skip
        los, his = [v.lo for v in operands], [v.hi for v in operands]
        if self.op_type == "Sum":
            lo, hi, bits = sum(los), sum(his), join_bits(*(v.bits for v in operands))
        elif self.op_type == "Mean":
            lo, hi, bits = min(los), max(his), None
        else:
            pick = max if self.op_type == "Max" else min
            lo, hi, bits = pick(los), pick(his), join_bits(*(v.bits for v in operands))
        b.emit(self.op_type, [v.name for v in operands], [(lo, hi, bits)])


for _op in ("Sum", "Max", "Min", "Mean"):
    register(Variadic(_op))


@dataclass
class Compare(Spec):
    """A comparison of exact operands (a discontinuity), giving bool."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats(exact=True)
        y = partner(b, x, lambda v: True, -2.0, 2.0, exact=True)
        b.emit(self.op_type, [x.name, y.name], [(0.0, 1.0, 0)])


for _op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"):
    register(Compare(_op))


def bools(b: GraphBuilder, accept: Callable[[Value], bool] = lambda v: True,
          shape: tuple[int, ...] | None = None) -> Value:  # fmt: skip
    """A bool value, or a fresh bool input."""
    return b.pick(lambda v: v.dtype == "bool" and accept(v),
                  lambda: b.input(shape if shape is not None else b.shape(), dtype="bool"))


@dataclass
class Logic(Spec):
    """And, Or, Xor of broadcasting bools; Not."""

    def build(self, b: GraphBuilder) -> None:
        x = bools(b)
        operands = [x.name]
        if self.op_type != "Not":
            operands.append(bools(b, lambda v: broadcasts(x.shape, v.shape),
                                  broadcast_variant(b, x.shape)).name)  # fmt: skip
        b.emit(self.op_type, operands, [(0.0, 1.0, 0)])


for _op in ("And", "Or", "Xor", "Not"):
    register(Logic(_op))


@dataclass
class Where(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = b.floats()
        y = partner(b, x, lambda v: True, -2.0, 2.0)
        both = np.broadcast_shapes(x.shape, y.shape)
        cond = bools(b, lambda v: broadcasts(both, v.shape), broadcast_variant(b, both))
        operands = [cond.name, x.name, y.name]
        b.emit("Where", operands, [(min(x.lo, y.lo), max(x.hi, y.hi), join_bits(x.bits, y.bits))])


register(Where("Where"))


@dataclass
class Clip(Spec):
    """Clip with a min, a max, both or neither (constant scalars)."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats()
        low, high = sorted(float(v) for v in b.rng.integers(-24, 25, size=2) / 8)
        operands, lo, hi = [x.name], x.lo, x.hi
        if b.coin(0.7):
            operands.append(b.param(low, np.float32))
            lo, hi = max(lo, low), max(hi, low)
        elif b.coin(0.5):
            operands.append("")
        if b.coin(0.7):
            operands.append(b.param(high, np.float32))
            lo, hi = min(lo, high), min(hi, high)
        while operands[-1] == "":
            operands.pop()
        b.emit("Clip", operands, [(min(lo, hi), max(lo, hi), x.bits)])


register(Clip("Clip"))


@dataclass
class PRelu(Spec):
    """PRelu with a slope that broadcasts to x (unidirectionally): a weight mostly."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats()
        shape = tuple(d if b.coin(0.5) else 1 for d in x.shape)
        shape = shape[int(b.rng.integers(len(shape) + 1)):]
        slope = b.weight(shape, -1.0, 1.0) if b.coin(0.7) else b.input(shape, -1.0, 1.0)
        corners = [p * (1 if p >= 0 else q) for p in (x.lo, x.hi, 0.0) for q in (slope.lo, slope.hi)]
        bits = None if x.bits is None or slope.bits is None else x.bits + slope.bits
        b.emit("PRelu", [x.name, slope.name], [(min(corners), max(corners), bits)])


register(PRelu("PRelu"))


@dataclass
class Cast(Spec):
    """float (exact) -> int64 (truncation), int64 or bool -> float32, float -> bool."""

    def build(self, b: GraphBuilder) -> None:
        x = b.pick(lambda v: v.exact or not v.is_float, lambda: b.input(b.shape(), -4.0, 4.0))
        if x.is_float:
            to = b.choice(["int64", "bool", "float32"])
        else:
            to = "float32"
        code = {"float32": 1, "int64": 7, "bool": 9}[to]
        lo, hi = (math.trunc(x.lo), math.trunc(x.hi)) if to != "bool" else (0.0, 1.0)
        if to == "float32" and x.is_float:
            lo, hi = x.lo, x.hi
        b.emit("Cast", [x.name], [(float(lo), float(hi), x.bits if x.is_float else 0)], to=code)


register(Cast("Cast"))
