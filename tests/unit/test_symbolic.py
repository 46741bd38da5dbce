"""Symbolic dimensions (symbolic.py): arithmetic in normal form that agrees with
integer arithmetic at every value of the symbols, decisions only where the symbols' ranges
make them, and a text form that parses back to the same expression."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minitvm.symbolic import (
    SYMBOL_RANGE,
    SymbolicError,
    SymDim,
    bounds,
    ceildiv,
    evaluate,
    evaluator,
    floordiv,
    mod,
    parse_dim,
    product,
    substitute,
    sym_max,
    sym_min,
    symbol,
    symbols_of,
)

seq, batch = symbol("seq"), symbol("batch")


def test_normal_form_makes_equal_expressions_equal() -> None:
    assert seq * 12 == 12 * seq and hash(seq * 12) == hash(12 * seq)
    assert (seq + 1) - seq == 1 and isinstance((seq + 1) - seq, int)
    assert batch * seq == seq * batch
    assert 2 * seq - seq == seq
    assert seq * (batch + 1) == seq * batch + seq
    assert seq != batch and seq != 1 and seq + 1 != seq
    assert {seq, symbol("seq"), 1} == {seq, 1}


def test_division_simplifies_where_exact_term_by_term() -> None:
    assert (12 * seq) // 12 == seq
    assert (12 * seq) // seq == 12
    assert (batch * seq * 768) // (seq * 768) == batch
    assert (2 * seq + 1) // 2 == seq  # floor((2s + 1) / 2) = s for every integer s
    assert (4 * seq) % 4 == 0 and (4 * seq + 3) % 4 == 3
    assert str((seq - 1) // 2 + 1) == "floordiv(seq - 1, 2) + 1"
    assert str(seq % 4) == "mod(seq, 4)"
    assert ceildiv(2 * seq, 2) == seq


def test_comparisons_are_decided_by_the_symbol_range() -> None:
    assert seq + 1 > seq and seq >= 1 and not seq < 1
    assert seq < 2**63 - 1  # the "to the end" bound of a Slice
    assert min(2**63 - 1, seq) == seq and max(0, seq) == seq
    assert sym_max(seq, 1) == seq and sym_max(0, seq - 1) == seq - 1
    assert str(sym_max(seq, batch)) == "max(batch, seq)"
    assert str(sym_min(seq, 512)) == "min(512, seq)"
    assert bool(seq) and bounds(seq % 4) == (0, 3)
    with pytest.raises(SymbolicError, match="cannot decide whether seq < batch"):
        _ = seq < batch
    with pytest.raises(SymbolicError, match="cannot decide whether seq - 1 is 0"):
        bool(seq - 1)


def test_a_value_where_a_number_is_needed_is_a_clear_error() -> None:
    with pytest.raises(SymbolicError, match="dimension 'seq' is only known at run time"):
        int(seq)
    with pytest.raises(SymbolicError):
        range(seq)  # type: ignore[call-overload]
    with pytest.raises(SymbolicError):
        np.zeros((seq, 3))


def test_numpy_object_arrays_compute_with_them() -> None:
    shape = np.array([batch, seq, 768], dtype=object)
    assert np.prod(shape) == 768 * batch * seq
    assert list(shape[1:] * 2) == [2 * seq, 1536]
    assert product([batch, seq, 12, 64]) == 768 * batch * seq


def test_evaluate_substitute_and_symbols() -> None:
    expr = floordiv(seq - 1, 2) + batch * seq
    assert evaluate(expr, {"seq": 9, "batch": 3}) == 4 + 27
    assert substitute(expr, {"seq": 9}) == 4 + 9 * batch
    assert substitute(expr, {"seq": batch}) == floordiv(batch - 1, 2) + batch * batch
    assert symbols_of(expr) == {"seq", "batch"}
    with pytest.raises(SymbolicError, match="no value for dimension 'batch'"):
        evaluate(expr, {"seq": 9})


def test_a_compiled_evaluator_computes_a_shared_call_once() -> None:
    """An arena's size repeats its buffers' sizes in many `max`es: `evaluator` computes each
    distinct symbol and call once, and agrees with `evaluate`."""
    slot = sym_max(floordiv(seq - 1, 2) * 64, batch * seq * 4)
    total = sum((slot * k + k for k in range(1, 200)), start=symbol("n.x"))
    env = {"seq": 9, "batch": 3, "n.x": 5}
    assert evaluator(total)(env) == evaluate(total, env)
    assert evaluator(7)({}) == 7
    with pytest.raises(SymbolicError, match="no value for dimension 'batch'"):
        evaluator(total)({"seq": 9, "n.x": 1})


@pytest.mark.parametrize(
    "text", ["seq", "12*seq", "batch*seq + 1", "-seq + 3", "floordiv(h - 1, 2) + 1",
             "mod(seq, 4)", "max(batch, seq)", "2*h*w - 7"],
)  # fmt: skip
def test_text_round_trips(text: str) -> None:
    dim = parse_dim(text)
    assert isinstance(dim, SymDim) and str(dim) == text and parse_dim(str(dim)) == dim


@pytest.mark.parametrize("text", ["seq +", "3 % seq", "f(seq)", "seq)", "1seq"])
def test_bad_text_is_an_error(text: str) -> None:
    with pytest.raises(SymbolicError, match="bad dimension"):
        parse_dim(text)


# -- property: symbolic arithmetic agrees with integer arithmetic at every value ---------------

_NAMES = ("a", "b", "c")


@st.composite
def _expressions(draw: st.DrawFn, depth: int = 3) -> tuple[object, object]:
    """(symbolic expression, function of an environment giving its integer value)."""
    if depth == 0 or draw(st.booleans()):
        if draw(st.booleans()):
            n = draw(st.integers(-20, 20))
            return n, lambda env, n=n: n
        name = draw(st.sampled_from(_NAMES))
        return symbol(name), lambda env, name=name: env[name]
    op = draw(st.sampled_from(["+", "-", "*", "//", "%", "max", "min"]))
    (x, fx), (y, fy) = draw(_expressions(depth - 1)), draw(_expressions(depth - 1))
    if op in ("//", "%"):
        d = draw(st.integers(1, 7))
        fn = floordiv if op == "//" else mod
        return fn(x, d), lambda env: (fx(env) // d if op == "//" else fx(env) % d)  # type: ignore[arg-type]
    combine = {
        "+": (lambda p, q: p + q), "-": (lambda p, q: p - q), "*": (lambda p, q: p * q),
        "max": sym_max, "min": sym_min,
    }[op]  # fmt: skip
    concrete = {"max": max, "min": min}.get(op, combine)
    return combine(x, y), lambda env: concrete(fx(env), fy(env))  # type: ignore[operator]


@settings(max_examples=300, deadline=None)
@given(_expressions(), st.fixed_dictionaries({n: st.integers(*SYMBOL_RANGE).filter(lambda v: v < 50) for n in _NAMES}))
def test_symbolic_arithmetic_agrees_with_integers(
    built: tuple[object, object], env: dict[str, int]
) -> None:
    expr, value = built
    assert evaluate(expr, env) == value(env)  # type: ignore[arg-type, operator]
    assert evaluate(parse_dim(str(expr)), env) == value(env)  # type: ignore[operator]
    assert evaluator(expr)(env) == value(env)  # type: ignore[arg-type, operator]
    low, high = bounds(expr)  # type: ignore[arg-type]
    assert (low is None or low <= value(env)) and (high is None or value(env) <= high)  # type: ignore[operator]
