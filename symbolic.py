"""Symbolic dimensions: sizes known by name at compile time and by value only at run time.

A model exported with a `batch` or `sequence` axis has tensors whose sizes are expressions of
those names: `seq`, `12*seq`, `batch*seq`, `seq + 1`, `floordiv(h - 1, 2) + 1` after a strided
conv. A `SymDim` is such an expression, and it behaves like an int in the shape arithmetic
the graph dialect's shape rules already do (`+`, `-`, `*`, `//`, `%`, `==`, hashing, `max`),
so one rule serves static and symbolic shapes alike, as PyTorch's SymInt does. Only what
cannot be decided without the run-time values raises `SymbolicError`: converting to an int,
or comparing where the answer depends on the values.

Normal form: a sum of monomials with integer coefficients; a monomial is a product of atoms;
an atom is a symbol name or a call that does not simplify (`floordiv`, `mod`, `max`, `min`).
Two expressions are equal when their normal forms are; an expression that normalizes to a
constant is a plain int (the constructors return `int | SymDim`).

Symbols are assumed to lie in `SYMBOL_RANGE`: at least 1 (the run time refuses 0 for a
dimension compiled as a symbol) and below 2^31, which decides the comparisons shape rules
make, such as `seq + 1 > seq`, `max(seq, 1) = seq` or `seq < 2^63 - 1`. Broadcasting treats a symbol as not 1, as TVM and ONNX Runtime's shape
inference do.

The text form (`str`, `parse_dim`) is what the graph dialect prints in a type's `#graph.dims`:
`12*seq`, `batch*seq + 1`, `floordiv(h - 1, 2) + 1`.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction

#: A product of atoms (a symbol's name, or a `Call` that does not simplify), sorted by text.
Monomial = tuple


class SymbolicError(ValueError):
    """A symbolic dimension was used where its run-time value is needed."""


@dataclass(frozen=True)
class Call:
    """`fn(args...)` for fn in floordiv, mod, max, min, as an atom of a monomial."""

    fn: str
    args: tuple  # of int | SymDim

    def __str__(self) -> str:
        return f"{self.fn}({', '.join(str(a) for a in self.args)})"

    def evaluate(self, env: Mapping[str, int]) -> int:
        values = [evaluate(a, env) for a in self.args]
        match self.fn:
            case "floordiv":
                return values[0] // values[1]
            case "mod":
                return values[0] % values[1]
            case "max":
                return max(values)
            case _:
                return min(values)

    def bounds(self) -> tuple[int | None, int | None]:
        """The range of the call's value over the symbols' ranges (None: unbounded)."""
        ranges = [bounds(a) for a in self.args]
        (lo, hi), divisor = ranges[0], self.args[1]
        match self.fn:
            case "floordiv" if isinstance(divisor, int) and divisor > 0:
                return (None if lo is None else lo // divisor, None if hi is None else hi // divisor)
            case "mod" if isinstance(divisor, int) and divisor > 0:
                return 0, divisor - 1
            case "max":
                lows = [r[0] for r in ranges]
                highs = [r[1] for r in ranges]
                low = max((v for v in lows if v is not None), default=None)
                return low, None if None in highs else max(highs)  # type: ignore[type-var]
            case "min":
                lows = [r[0] for r in ranges]
                highs = [r[1] for r in ranges]
                high = min((v for v in highs if v is not None), default=None)
                return None if None in lows else min(lows), high  # type: ignore[type-var]
        return None, None


def _atom_key(atom: object) -> str:
    return atom if isinstance(atom, str) else f"~{atom}"  # symbols before calls


class SymDim:
    """A dimension that is an expression of named run-time sizes (see the module docstring).

    Build one with `symbol(name)` and arithmetic; results that normalize to a constant are
    plain ints."""

    __slots__ = ("_hash", "terms")

    terms: tuple[tuple[Monomial, int], ...]  # sorted by monomial text; no zero coefficient

    def __init__(self, terms: tuple[tuple[Monomial, int], ...]):
        self.terms = terms
        self._hash = hash(terms)

    # -- construction ------------------------------------------------------------------------

    @staticmethod
    def _from(terms: Mapping[Monomial, int]) -> int | SymDim:
        kept = {m: c for m, c in terms.items() if c}
        if not kept:
            return 0
        if list(kept) == [()]:
            return kept[()]
        ordered = sorted(kept.items(), key=lambda mc: (len(mc[0]) == 0, [_atom_key(a) for a in mc[0]]))
        return SymDim(tuple(ordered))

    # -- queries -------------------------------------------------------------------------------

    @property
    def constant(self) -> int:
        return dict(self.terms).get((), 0)

    @property
    def symbols(self) -> frozenset[str]:
        return symbols_of(self)

    def evaluate(self, env: Mapping[str, int]) -> int:
        total = 0
        for monomial, coefficient in self.terms:
            value = coefficient
            for atom in monomial:
                value *= env_value(atom, env)
            total += value
        return total

    # -- arithmetic ----------------------------------------------------------------------------

    def __add__(self, other: object) -> int | SymDim:
        if not _is_dim(other):
            return NotImplemented
        terms = dict(self.terms)
        for monomial, coefficient in _terms(other):
            terms[monomial] = terms.get(monomial, 0) + coefficient
        return SymDim._from(terms)

    __radd__ = __add__

    def __neg__(self) -> int | SymDim:
        return SymDim._from({m: -c for m, c in self.terms})

    def __pos__(self) -> SymDim:
        return self

    def __sub__(self, other: object) -> int | SymDim:
        if not _is_dim(other):
            return NotImplemented
        return self + (-other)  # type: ignore[operator]

    def __rsub__(self, other: object) -> int | SymDim:
        if not _is_dim(other):
            return NotImplemented
        return (-self) + other

    def __mul__(self, other: object) -> int | SymDim:
        other = _number(other)
        if isinstance(other, float):
            return _scaled(self, other)  # type: ignore[return-value]
        if not _is_dim(other):
            return NotImplemented
        terms: dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in _terms(other):
                monomial = tuple(sorted(m1 + m2, key=_atom_key))
                terms[monomial] = terms.get(monomial, 0) + c1 * c2
        return SymDim._from(terms)

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> int | SymDim | ScaledDim:
        """A fraction of a size (ONNX's Range computes its length as ceil(extent / delta))."""
        other = _number(other)
        if isinstance(other, float):
            return _scaled(self, 1.0 / other)
        if not isinstance(other, int) or other == 0:
            raise SymbolicError(f"{self} / {other}: only a division by a nonzero number is known")
        if all(c % other == 0 for _, c in self.terms):  # exact: a size again
            return SymDim._from({m: c // other for m, c in self.terms})
        return ScaledDim(self, other) if other > 0 else ScaledDim(-self, -other)

    def __rtruediv__(self, other: object) -> object:
        raise SymbolicError(f"{other} / {self}: a division by a size known only at run time")

    def __floordiv__(self, other: object) -> int | SymDim:
        if not _is_dim(other):
            return NotImplemented
        return floordiv(self, other)  # type: ignore[arg-type]

    def __rfloordiv__(self, other: object) -> int | SymDim:
        if not _is_dim(other):
            return NotImplemented
        return floordiv(other, self)  # type: ignore[arg-type]

    def __mod__(self, other: object) -> int | SymDim:
        if not _is_dim(other):
            return NotImplemented
        return mod(self, other)  # type: ignore[arg-type]

    def __rmod__(self, other: object) -> int | SymDim:
        if not _is_dim(other):
            return NotImplemented
        return mod(other, self)  # type: ignore[arg-type]

    # -- comparison --------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SymDim):
            return self.terms == other.terms
        if isinstance(other, int):
            return False  # a SymDim never normalizes to a constant
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: object) -> bool:
        return _decide_negative(self - other, f"{self} < {other}")  # type: ignore[operator]

    def __gt__(self, other: object) -> bool:
        return _decide_negative(other - self, f"{self} > {other}")  # type: ignore[operator]

    def __le__(self, other: object) -> bool:
        return not self.__gt__(other)

    def __ge__(self, other: object) -> bool:
        return not self.__lt__(other)

    def __bool__(self) -> bool:
        return not _decide_zero(self)

    # -- where a value is needed -----------------------------------------------------------

    def __int__(self) -> int:
        raise SymbolicError(f"dimension '{self}' is only known at run time")

    __index__ = __int__

    def __float__(self) -> float:
        raise SymbolicError(f"dimension '{self}' is only known at run time")

    # -- text ------------------------------------------------------------------------------------

    def __str__(self) -> str:
        parts: list[str] = []
        for monomial, coefficient in self.terms:
            magnitude = abs(coefficient)
            atoms = "*".join(str(a) for a in monomial)
            body = atoms if magnitude == 1 and atoms else (f"{magnitude}*{atoms}" if atoms else str(magnitude))
            if not parts:
                parts.append(f"-{body}" if coefficient < 0 else body)
            else:
                parts.append(f"{'-' if coefficient < 0 else '+'} {body}")
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"SymDim({str(self)!r})"


@dataclass(frozen=True)
class ScaledDim:
    """`numerator / denominator`: a size times a float scale (Resize's `floor(size * scale)`),
    which only rounding turns back into a size."""

    numerator: int | SymDim
    denominator: int

    def __floor__(self) -> int | SymDim:
        return floordiv(self.numerator, self.denominator)

    def __ceil__(self) -> int | SymDim:
        return ceildiv(self.numerator, self.denominator)

    def __trunc__(self) -> int | SymDim:
        return self.__floor__() if lower_bound(self.numerator) is not None and lower_bound(self.numerator) >= 0 else -floordiv(-self.numerator, self.denominator)  # type: ignore[operator]

    def __mul__(self, other: object) -> ScaledDim:
        if not isinstance(other, int | float):
            return NotImplemented
        return _scaled(self.numerator, float(Fraction(other) / self.denominator))

    __rmul__ = __mul__

    def __int__(self) -> int:
        raise SymbolicError(f"{self} is a fraction of a size only known at run time; round it first")

    __index__ = __int__

    def __str__(self) -> str:
        return f"({self.numerator})/{self.denominator}"


#: The largest denominator of a float scale a symbolic size may be multiplied by exactly.
MAX_SCALE_DENOMINATOR = 1 << 20


def _scaled(value: int | SymDim, scale: float) -> ScaledDim:
    if not math.isfinite(scale):
        raise SymbolicError(f"size {value} scaled by {scale}")
    fraction = Fraction(scale)
    if fraction.denominator > MAX_SCALE_DENOMINATOR:
        raise SymbolicError(
            f"size {value} scaled by {scale}, which is no fraction of a small denominator; "
            "the rounded size is not known before run time"
        )
    return ScaledDim(value * fraction.numerator, fraction.denominator)


def _number(value: object) -> object:
    """A numpy scalar as the Python int or float it is; anything else unchanged."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        kind = value.dtype.kind  # type: ignore[attr-defined]
        return int(value) if kind in "iu" else float(value) if kind == "f" else value  # type: ignore[arg-type]
    return value


def _is_dim(value: object) -> bool:
    return isinstance(value, int | SymDim) and not isinstance(value, bool) or _is_np_int(value)


def _is_np_int(value: object) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "dtype") and value.dtype.kind in "iu"  # type: ignore[attr-defined]


def _terms(value: int | SymDim) -> tuple[tuple[Monomial, int], ...]:
    if isinstance(value, SymDim):
        return value.terms
    return (((), int(value)),) if int(value) else ()


def bare_symbol(dim: object) -> str | None:
    """The symbol's name if `dim` is just one symbol (`seq`, not `seq + 1` or `2*seq`): a
    dimension whose size at run time gives that symbol its value."""
    if not isinstance(dim, SymDim) or len(dim.terms) != 1:
        return None
    ((monomial, coefficient),) = dim.terms
    if coefficient == 1 and len(monomial) == 1 and isinstance(monomial[0], str):
        return monomial[0]
    return None


def name_from(text: str) -> str:
    """A valid dimension name made from any text (an ONNX dim_param, a value's name): other
    characters become `_`, and a leading `_` where it would start with neither letter nor `_`."""
    name = re.sub(r"[^A-Za-z0-9_.]", "_", text)
    return name if name[:1].isalpha() or name[:1] == "_" else f"_{name}"


def capacity(size: str) -> str:
    """The name of the capacity of a size found as the model runs that no shape bounds
    (`graph.iota`'s): `<size>_cap`, a size the runtime supplies (buffers are planned for it)
    and raises when a run needs more."""
    return f"{size}_cap"


def symbol(name: str) -> SymDim:
    """The dimension named `name`."""
    if not _NAME.fullmatch(name):
        raise SymbolicError(f"'{name}' is not a valid dimension name (a letter or _, then letters, digits, _ or .)")
    return SymDim((((name,), 1),))


def is_symbolic(value: object) -> bool:
    return isinstance(value, SymDim)


def symbols_of(value: object) -> frozenset[str]:
    """The symbol names an expression (or an iterable of them) depends on."""
    if isinstance(value, SymDim):
        names: set[str] = set()
        for monomial, _ in value.terms:
            for atom in monomial:
                names |= {atom} if isinstance(atom, str) else symbols_of(atom.args)
        return frozenset(names)
    if isinstance(value, tuple | list):
        return frozenset().union(*(symbols_of(v) for v in value))
    return frozenset()


def env_value(atom: object, env: Mapping[str, int]) -> int:
    if isinstance(atom, str):
        if atom not in env:
            raise SymbolicError(f"no value for dimension '{atom}'")
        return int(env[atom])
    return atom.evaluate(env)  # type: ignore[attr-defined]


def evaluate(value: int | SymDim, env: Mapping[str, int]) -> int:
    """The value of a dimension given every symbol's value."""
    return value.evaluate(env) if isinstance(value, SymDim) else int(value)


def straight_line(
    value: int | SymDim,
    symbol_text: Callable[[str], str],
    call_text: Callable[[str, list[str]], str],
) -> tuple[list[tuple[str, str]], str]:
    """`value` as straight-line code: assignments (name, expression) computing each distinct
    symbol and call once (`symbol_text` of a symbol's name, `call_text` of a call's function
    and argument texts), and the result's expression over them. What `evaluator` runs as
    Python and `minitvm export` writes as C (deploy/c_sizes.py)."""
    lines: list[tuple[str, str]] = []
    names: dict[object, str] = {}

    def atom_code(atom: object) -> str:
        key = atom if isinstance(atom, str) else ("call", str(atom))
        if key not in names:
            if isinstance(atom, str):
                text = symbol_text(atom)
            else:
                assert isinstance(atom, Call)
                text = call_text(atom.fn, [code(a) for a in atom.args])
            names[key] = f"v{len(names)}"
            lines.append((names[key], text))
        return names[key]

    def code(v: int | SymDim) -> str:
        if not isinstance(v, SymDim):
            return str(int(v))
        terms = ["*".join([str(c), *(atom_code(a) for a in monomial)]) for monomial, c in v.terms]
        return " + ".join(terms) or "0"

    result = code(value)
    return lines, result


def _python_call(fn: str, args: list[str]) -> str:
    if fn == "floordiv":
        return f"({args[0]}) // ({args[1]})"
    if fn == "mod":
        return f"({args[0]}) % ({args[1]})"
    return f"{fn}({', '.join(args)})"


def evaluator(value: int | SymDim) -> Callable[[Mapping[str, int]], int]:
    """`evaluate(value, env)` as a Python function compiled once, each distinct symbol and
    call computed once: for an expression evaluated at every run, such as an arena's size (a
    sum of slot sizes, each a `max` of its buffers': thousands of atoms, 2.5 ms through
    `evaluate`, 1000x less this way)."""
    if not isinstance(value, SymDim):
        constant = int(value)
        return lambda env: constant
    lines, result = straight_line(value, lambda name: f"int(env[{name!r}])", _python_call)
    body = "".join(f"    {name} = {text}\n" for name, text in lines)
    namespace: dict[str, object] = {}
    exec("def compiled(env):\n" + body + f"    return {result}\n", namespace)  # noqa: S102
    compiled = namespace["compiled"]

    def evaluate_compiled(env: Mapping[str, int]) -> int:
        try:
            return compiled(env)  # type: ignore[operator]
        except KeyError as e:
            raise SymbolicError(f"no value for dimension '{e.args[0]}'") from None

    return evaluate_compiled


def substitute(value: int | SymDim, env: Mapping[str, int | SymDim]) -> int | SymDim:
    """`value` with the symbols of `env` replaced (by ints or expressions)."""
    if not isinstance(value, SymDim):
        return value
    total: int | SymDim = 0
    for monomial, coefficient in value.terms:
        product: int | SymDim = coefficient
        for atom in monomial:
            if isinstance(atom, str):
                product = product * env.get(atom, symbol(atom))
            else:
                args = [substitute(a, env) for a in atom.args]
                product = product * _CALLS[atom.fn](*args)
        total = total + product
    return total


#: The range a symbol is assumed to take: at least 1 (the run time refuses 0 for a symbolic
#: dimension) and below 2^31 (tensor sizes), which decides comparisons such as
#: `seq < 2^63 - 1`, the "to the end" bound exporters give Slice. A user's bound narrows it
#: (`symbol_ranges`).
SYMBOL_RANGE = (1, 2**31 - 1)

_RANGES: ContextVar[dict[str, tuple[int, int]] | None] = ContextVar("minitvm_symbol_ranges", default=None)


@contextmanager
def symbol_ranges(ranges: Mapping[str, tuple[int, int]] | None = None) -> Iterator[dict[str, tuple[int, int]]]:
    """Decide comparisons with these symbols' ranges (a user's bounds, `seq` in 1..512) while
    the block runs; the dict it yields may be filled as symbols are met (the importer does)."""
    merged = dict(_RANGES.get() or {})
    merged.update(ranges or {})
    token = _RANGES.set(merged)
    try:
        yield merged
    finally:
        _RANGES.reset(token)


def symbol_range(name: str) -> tuple[int, int]:
    """The range symbol `name` takes: its bound in `symbol_ranges`, else `SYMBOL_RANGE`."""
    ranges = _RANGES.get()
    return ranges.get(name, SYMBOL_RANGE) if ranges else SYMBOL_RANGE

Interval = tuple[int | None, int | None]


def _scale(interval: Interval, factor: int) -> Interval:
    lo, hi = interval
    lo2 = None if lo is None else lo * factor
    hi2 = None if hi is None else hi * factor
    return (lo2, hi2) if factor >= 0 else (hi2, lo2)


def _times(a: Interval, b: Interval) -> Interval:
    """The product of two intervals of non-negative values (None above: unbounded)."""
    if a[0] is None or b[0] is None or a[0] < 0 or b[0] < 0:
        return None, None
    return a[0] * b[0], None if a[1] is None or b[1] is None else a[1] * b[1]


def bounds(value: int | SymDim) -> Interval:
    """The range of `value` when every symbol is in `SYMBOL_RANGE` (None: unbounded).

    Interval arithmetic over the normal form: exact for the sums of products of symbols
    shape rules make, conservative where a call or a sign makes it so."""
    if not isinstance(value, SymDim):
        return int(value), int(value)
    low: int | None = 0
    high: int | None = 0
    for monomial, coefficient in value.terms:
        term: Interval = (1, 1)
        for atom in monomial:
            term = _times(term, symbol_range(atom) if isinstance(atom, str) else atom.bounds())
        lo, hi = _scale(term, coefficient)
        low = None if low is None or lo is None else low + lo
        high = None if high is None or hi is None else high + hi
    return low, high


def lower_bound(value: int | SymDim) -> int | None:
    """The least value `value` can take (see `bounds`), or None if unknown."""
    return bounds(value)[0]


def _decide_negative(diff: int | SymDim, what: str) -> bool:
    """Whether `diff < 0`, if the symbols' ranges decide it (or, under `size_hints`, as it
    is at the hinted sizes)."""
    low, high = bounds(diff)
    if low is not None and low >= 0:
        return False
    if high is not None and high < 0:
        return True
    guess = _at_hints(diff)
    if guess is not None:
        return guess < 0
    raise SymbolicError(f"cannot decide whether {what} before run time")


def _decide_zero(value: SymDim) -> bool:
    low, high = bounds(value)
    if (low is not None and low > 0) or (high is not None and high < 0):
        return False
    guess = _at_hints(value)
    if guess is not None:
        return guess == 0
    raise SymbolicError(f"cannot decide whether {value} is 0 before run time")


#: The size a symbol is taken to have under `size_hints` when no hint names it (clamped to
#: its range): a middling sequence length or image side.
DEFAULT_HINT = 128

_HINTS: ContextVar[dict[str, int] | None] = ContextVar("minitvm_size_hints", default=None)


@contextmanager
def size_hints(hints: Mapping[str, int] | None = None) -> Iterator[None]:
    """Decide what the symbols' ranges cannot as if each symbol had its hinted size
    (`DEFAULT_HINT` if none): for heuristics only, such as a schedule template's choice of
    blocks, whose result is correct at every size (a split of a symbolic extent is guarded)."""
    token = _HINTS.set(dict(hints or {}))
    try:
        yield
    finally:
        _HINTS.reset(token)


def hinted(value: int | SymDim) -> int:
    """`value` as it is at the hinted sizes (`size_hints`; `DEFAULT_HINT` for a symbol no
    hint names, and outside `size_hints`), clamped to the symbols' ranges: for heuristics."""
    if isinstance(value, int):
        return value
    with size_hints(_HINTS.get()):
        result = _at_hints(value)
    assert result is not None
    return result


def _at_hints(value: SymDim) -> int | None:
    hints = _HINTS.get()
    if hints is None:
        return None
    env = {}
    for name in value.symbols:
        lo, hi = symbol_range(name)
        env[name] = min(max(hints.get(name, DEFAULT_HINT), lo), hi)
    return value.evaluate(env)


# --------------------------------------------------------------------------------------------
# Calls that simplify where they can
# --------------------------------------------------------------------------------------------


def _split_divisible(value: SymDim, divisor: int) -> tuple[int | SymDim, int | SymDim]:
    """(quotient, remainder) with value = divisor * quotient + remainder, the quotient made
    of the terms whose coefficients `divisor` divides."""
    quotient = {m: c // divisor for m, c in value.terms if c % divisor == 0}
    remainder = {m: c for m, c in value.terms if c % divisor}
    return SymDim._from(quotient), SymDim._from(remainder)


def _monomial_quotient(value: int | SymDim, divisor: SymDim) -> int | SymDim | None:
    """value / divisor when the divisor is one term dividing every term of value exactly."""
    if len(divisor.terms) != 1:
        return None
    (d_monomial, d_coefficient), = divisor.terms
    result: dict[Monomial, int] = {}
    for monomial, coefficient in _terms(value):
        rest = list(monomial)
        for atom in d_monomial:
            if atom not in rest:
                return None
            rest.remove(atom)
        if coefficient % d_coefficient:
            return None
        result[tuple(rest)] = coefficient // d_coefficient
    return SymDim._from(result)


def floordiv(a: int | SymDim, b: int | SymDim) -> int | SymDim:
    """a // b (floor), simplified where the division is exact term by term."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    if isinstance(b, int):
        if b == 0:
            raise ZeroDivisionError("division of a dimension by zero")
        if b == 1:
            return a
        if b > 0:
            quotient, remainder = _split_divisible(a, b)  # type: ignore[arg-type]
            if isinstance(remainder, int):
                return quotient + remainder // b
            low = lower_bound(remainder)
            if quotient != 0 and low is not None and low >= 0:
                return quotient + _call("floordiv", remainder, b)
        return _call("floordiv", a, b)
    exact = _monomial_quotient(a, b)
    if exact is not None:
        return exact
    return _call("floordiv", a, b)


def mod(a: int | SymDim, b: int | SymDim) -> int | SymDim:
    """a % b (floor), simplified where `floordiv` is exact."""
    if isinstance(a, int) and isinstance(b, int):
        return a % b
    if isinstance(b, int) and b > 0:
        _, remainder = _split_divisible(a, b)  # type: ignore[arg-type]
        if isinstance(remainder, int):
            return remainder % b
        return _call("mod", remainder, b)
    if isinstance(b, SymDim) and _monomial_quotient(a, b) is not None:
        return 0
    return _call("mod", a, b)


def ceildiv(a: int | SymDim, b: int | SymDim) -> int | SymDim:
    """ceil(a / b), as floordiv(a + b - 1, b) for a positive number b."""
    if isinstance(b, int) and b > 0:
        return floordiv(a + (b - 1), b)
    return -floordiv(-a, b)  # type: ignore[operator]


def sym_max(*values: int | SymDim) -> int | SymDim:
    """max(), decided where the symbols' ranges decide it, else a `max` call."""
    return _extremum("max", values)


def sym_min(*values: int | SymDim) -> int | SymDim:
    return _extremum("min", values)


def _extremum(fn: str, values: Iterable[int | SymDim]) -> int | SymDim:
    kept: list[int | SymDim] = []
    for value in values:
        for i, other in enumerate(kept):
            first, second = (value, other) if fn == "max" else (other, value)
            if _decided(operator.ge, first, second):
                kept[i] = value
            elif not _decided(operator.le, first, second):
                continue
            break
        else:
            kept.append(value)
    unique = list(dict.fromkeys(kept))
    if len(unique) == 1:
        return unique[0]
    return _call(fn, *sorted(unique, key=str))


def _decided(comparison: Callable[[object, object], bool], a: object, b: object) -> bool:
    """comparison(a, b), False where the symbols' ranges do not decide it."""
    try:
        return comparison(a, b)
    except SymbolicError:
        return False


def _call(fn: str, *args: int | SymDim) -> SymDim:
    return SymDim((((Call(fn, tuple(args)),), 1),))


_CALLS = {"floordiv": floordiv, "mod": mod, "max": sym_max, "min": sym_min}


# --------------------------------------------------------------------------------------------
# Parsing the text form
# --------------------------------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_.]*)|(\S))")


def parse_dim(text: str) -> int | SymDim:
    """The dimension `str()` printed: `12*seq`, `batch*seq + 1`, `floordiv(h - 1, 2)`."""
    tokens = [m.group(m.lastindex) for m in _TOKEN.finditer(text) if m.lastindex]
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take(expected: str | None = None) -> str:
        nonlocal pos
        token = peek()
        if token is None or (expected is not None and token != expected):
            raise SymbolicError(f"bad dimension '{text}': expected {expected or 'more'}, got {token or 'the end'}")
        pos += 1
        return token

    def expr() -> int | SymDim:
        value = term()
        while peek() in ("+", "-"):
            value = value + term() if take() == "+" else value - term()
        return value

    def term() -> int | SymDim:
        value = factor()
        while peek() == "*":
            take()
            value = value * factor()
        return value

    def factor() -> int | SymDim:
        token = take()
        if token == "-":
            return -factor()
        if token == "(":
            value = expr()
            take(")")
            return value
        if token.isdigit():
            return int(token)
        if _NAME.fullmatch(token):
            if peek() == "(" and token in _CALLS:
                take("(")
                args = [expr()]
                while peek() == ",":
                    take()
                    args.append(expr())
                take(")")
                return _CALLS[token](*args)
            return symbol(token)
        raise SymbolicError(f"bad dimension '{text}': unexpected '{token}'")

    value = expr()
    if peek() is not None:
        raise SymbolicError(f"bad dimension '{text}': unexpected '{peek()}'")
    return value


def product(values: Iterable[int | SymDim]) -> int | SymDim:
    """The product of dimensions (math.prod for symbolic ones)."""
    result: int | SymDim = 1
    for value in values:
        result = result * value
    return result


__all__ = [
    "Call",
    "SymDim",
    "SymbolicError",
    "bare_symbol",
    "bounds",
    "ceildiv",
    "evaluate",
    "floordiv",
    "hinted",
    "is_symbolic",
    "lower_bound",
    "mod",
    "parse_dim",
    "product",
    "size_hints",
    "substitute",
    "sym_max",
    "sym_min",
    "symbol",
    "symbol_range",
    "symbol_ranges",
    "symbols_of",
]  # fmt: skip
