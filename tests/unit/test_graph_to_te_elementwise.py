"""convert-graph-to-te on the elementwise graph ops computes what the graph op means.

Each case builds a one-op graph module, lowers it, verifies the te IR, runs it with the te
interpreter (which also checks that every read is in bounds) and compares with the graph
reference (`reference.evaluate`): exactly for integers and booleans, to float rounding for
floats.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, f16, f32, f64, i1, i8, i32, i64
from xdsl.ir import Block, Operation, Region

from minitvm.dialects import graph as g
from minitvm.dialects import te_eval
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import tensor_type
from minitvm.dialects.graph.constant import element_type_of
from minitvm.dialects.te import ComputeOp
from minitvm.lowering.graph_to_te import ConvertGraphToTePass

RNG = np.random.default_rng(11)


def rand(*shape: int, lo: float = -3.0, hi: float = 3.0, dtype=np.float32) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(dtype)


def ints(*shape: int, lo: int = -20, hi: int = 20, dtype=np.int64) -> np.ndarray:
    return RNG.integers(lo, hi, shape).astype(dtype)


def bools(*shape: int) -> np.ndarray:
    return RNG.random(shape) < 0.5


def check(
    make: Callable[..., Operation],
    inputs: list[np.ndarray],
    expected: list[np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Lower the one-op module `make(*args)` and compare the te interpreter with the reference
    (or with `expected`, where the reference cannot say)."""
    block = Block(arg_types=[tensor_type(x.shape, element_type_of(x.dtype)) for x in inputs])
    op = make(*block.args)
    block.add_ops([op, func.ReturnOp(*op.results)])
    module = ModuleOp([func.FuncOp("main", (block.arg_types, [r.type for r in op.results]),
                                   Region(block))])  # fmt: skip
    module.verify()
    if expected is None:
        expected = reference.evaluate(op, inputs)
    # reference.evaluate returns rank-0 results as shape (1,) (np.ascontiguousarray): reshape.
    expected = [e.reshape(r.type.get_shape()) for e, r in zip(expected, op.results)]
    ConvertGraphToTePass().apply(Context(), module)
    module.verify()
    assert any(isinstance(o, ComputeOp) for o in module.walk())
    got = te_eval.run_module(module, inputs)
    assert len(got) == len(expected)
    for n, (a, b) in enumerate(zip(got, expected)):
        assert a.shape == b.shape and a.dtype == b.dtype, (n, a.shape, a.dtype, b.shape, b.dtype)
        if a.dtype.kind == "f":
            tol = 1e-3 if a.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(a, b, rtol=tol, atol=1e-6, err_msg=f"result #{n}")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"result #{n}")
    return got


# --------------------------------------------------------------------------------------------
# Unary
# --------------------------------------------------------------------------------------------

FLOAT_UNARY = [g.ReluOp, g.SigmoidOp, g.TanhOp, g.ErfOp, g.ExpOp, g.NegOp, g.AbsOp, g.HardSwishOp,
               g.GeluOp, g.LeakyReluOp, g.HardSigmoidOp, g.ClipOp]  # fmt: skip
SHAPES = [(), (7,), (2, 3, 5)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("cls", FLOAT_UNARY, ids=lambda c: c.name)
def test_float_unary(cls, shape):
    x = rand(*shape, lo=-6, hi=6)
    expected = None
    if shape == () and cls in (g.ErfOp, g.GeluOp):
        # The reference's erf fails on rank-0 arrays (np.frompyfunc returns a Python float).
        erf = math.erf(float(x))
        value = erf if cls is g.ErfOp else 0.5 * float(x) * (1 + math.erf(float(x) / math.sqrt(2)))
        expected = [np.array(value, np.float32)]
    check(cls.make, [x], expected)


@pytest.mark.parametrize("cls", [g.LogOp, g.SqrtOp, g.ReciprocalOp], ids=lambda c: c.name)
def test_positive_domain_unary(cls):
    check(cls.make, [rand(3, 4, lo=0.05, hi=10)])
    # Outside the domain IEEE values come out (nan, inf), as in the reference.
    check(cls.make, [np.array([-1.0, 0.0, 2.0, np.inf], np.float32)])


def test_sigmoid_tails_and_erf_precision():
    check(g.SigmoidOp.make, [np.array([-100.0, -30.0, -1e-3, 0.0, 20.0, 100.0], np.float32)])
    check(g.ErfOp.make, [np.array([-5.0, -1e-6, 1e-9, 0.3, 0.5, 2.5], np.float64)])
    check(g.ExpOp.make, [rand(4, lo=-3, hi=3, dtype=np.float64)])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8])
@pytest.mark.parametrize("cls", [g.NegOp, g.AbsOp], ids=lambda c: c.name)
def test_integer_unary(cls, dtype):
    check(cls.make, [ints(3, 5, lo=-100, hi=100, dtype=dtype)])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    check(lambda x: g.GeluOp.make(x, approximate=approximate), [rand(4, 6, lo=-5, hi=5)])


@pytest.mark.parametrize("alpha", [0.01, 0.3, -1.5])
def test_leaky_relu(alpha):
    check(lambda x: g.LeakyReluOp.make(x, alpha=alpha), [rand(3, 7)])


@pytest.mark.parametrize("alpha, beta", [(None, None), (0.5, 0.1), (1 / 6, 0.5)])
def test_hard_sigmoid(alpha, beta):
    check(lambda x: g.HardSigmoidOp.make(x, alpha=alpha, beta=beta), [rand(5, 5, lo=-8, hi=8)])


CLIP_BOUNDS = [(None, None), (-1.0, None), (None, 2.5), (-0.5, 0.5), (-2.5, 3.7), (1.0, -1.0)]


@pytest.mark.parametrize("lo, hi", CLIP_BOUNDS, ids=str)
def test_clip_float(lo, hi):
    x = rand(4, 5)
    x[0, 0] = np.nan
    check(lambda v: g.ClipOp.make(v, min=lo, max=hi), [x])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8])
@pytest.mark.parametrize("lo, hi", [*CLIP_BOUNDS, (-1e30, 1e30)], ids=str)
def test_clip_int(lo, hi, dtype):
    x = ints(4, 5, dtype=dtype)
    expected = None
    if lo == -1e30:
        # Bounds beyond the integer range saturate; the reference's astype is undefined there.
        expected = [x]
    check(lambda v: g.ClipOp.make(v, min=lo, max=hi), [x], expected)


# --------------------------------------------------------------------------------------------
# Cast
# --------------------------------------------------------------------------------------------

CAST_SOURCES = {
    "f32": np.array([-2.7, -1.5, -0.5, -0.0, 0.0, 0.4, 1.5, 3.99, -7.0, 100.2, 1e5], np.float32),
    "f64": np.array([-2.7, -0.5, 0.0, 0.25, 1.5, 3.99, 1e-40, 7.0], np.float64),
    "f16": np.array([-2.5, -0.5, 0.0, 0.25, 1.5, 3.75], np.float16),
    "i64": np.array([-300, -3, -1, 0, 1, 2, 127, 255, 1 << 40], np.int64),
    "i32": np.array([-300, -3, -1, 0, 1, 2, 127, 1 << 20], np.int32),
    "i8": np.array([-128, -3, -1, 0, 1, 127], np.int8),
    "i1": np.array([True, False, True, True, False]),
}
CAST_TARGETS = {"f32": f32, "f64": f64, "f16": f16, "i64": i64, "i32": i32, "i8": i8, "i1": i1}


@pytest.mark.parametrize("target", CAST_TARGETS)
@pytest.mark.parametrize("source", CAST_SOURCES)
def test_cast(source, target):
    x = CAST_SOURCES[source]
    if source.startswith("f") and target == "i8":
        x = x[np.abs(x) < 127]  # out-of-range float -> int is undefined (poison in LLVM)
    check(lambda v: g.CastOp.make(v, to=CAST_TARGETS[target]), [x.reshape(1, -1)])


# --------------------------------------------------------------------------------------------
# Binary
# --------------------------------------------------------------------------------------------

BROADCASTS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1, 5), (3, 1)), ((), (2, 2)),
              ((1,), (3, 1, 2)), ((2, 1), ())]  # fmt: skip
ARITH = [g.AddOp, g.SubOp, g.MulOp, g.DivOp, g.MaxOp, g.MinOp]


@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("cls", ARITH, ids=lambda c: c.name)
def test_float_binary(cls, shapes):
    a, b = rand(*shapes[0]), rand(*shapes[1])
    b = np.where(np.abs(b) < 0.1, 0.5, b).astype(np.float32)
    check(cls.make, [a, b])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("cls", ARITH, ids=lambda c: c.name)
def test_int_binary(cls, dtype):
    """Integer Div truncates toward zero: -7 / 2 = -3 (numpy's // would give -4)."""
    a = ints(4, 6, lo=-50, hi=50, dtype=dtype)
    b = ints(6, lo=-7, hi=7, dtype=dtype)
    b[b == 0] = 3
    check(cls.make, [a, b])
    check(cls.make, [np.array([-7, 7, -7, 7, 0, -1], dtype), np.array([2, -2, -2, 2, 5, 3], dtype)])


def test_max_min_propagate_nan():
    a = np.array([np.nan, 1.0, 2.0, np.nan], np.float32)
    b = np.array([0.0, np.nan, 1.0, np.nan], np.float32)
    for cls in (g.MaxOp, g.MinOp):
        out = check(cls.make, [a, b])[0]
        assert np.isnan(out[[0, 1, 3]]).all()


@pytest.mark.parametrize("shapes", BROADCASTS[:4], ids=str)
def test_pow(shapes):
    check(g.PowOp.make, [rand(*shapes[0], lo=0.1, hi=4), rand(*shapes[1], lo=-2, hi=2)])


def test_pow_special_exponents():
    a = np.array([-2.0, -3.0, 0.0, 2.0, 4.0, -1.5], np.float32)
    check(g.PowOp.make, [a, np.array([2.0, 3.0, 0.0, -1.0, 0.5, 2.0], np.float32)])


COMPARES = [g.EqualOp, g.LessOp, g.GreaterOp]


@pytest.mark.parametrize("shapes", BROADCASTS[:4], ids=str)
@pytest.mark.parametrize("cls", COMPARES, ids=lambda c: c.name)
def test_float_compare(cls, shapes):
    # Few distinct values, so that equal elements actually occur; plus a NaN (never equal).
    a = RNG.integers(-2, 3, shapes[0]).astype(np.float32)
    b = RNG.integers(-2, 3, shapes[1]).astype(np.float32)
    if a.size > 1:
        a.flat[0] = np.nan
    check(cls.make, [a, b])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("cls", COMPARES, ids=lambda c: c.name)
def test_int_and_bool_compare(cls, dtype):
    if dtype == np.bool_:
        a, b = bools(3, 4), bools(4)
    else:
        a, b = ints(3, 4, lo=-3, hi=3, dtype=dtype), ints(4, lo=-3, hi=3, dtype=dtype)
    check(cls.make, [a, b])


@pytest.mark.parametrize(
    "x_shape, slope_shape",
    [((2, 3, 4, 4), (3, 1, 1)), ((2, 3, 4), (1,)), ((2, 5), (2, 5)), ((3, 4), (4,)), ((4,), ())],
    ids=str,
)
def test_prelu(x_shape, slope_shape):
    check(g.PReluOp.make, [rand(*x_shape), rand(*slope_shape, lo=-1, hi=1)])


@pytest.mark.parametrize(
    "shapes, dtype",
    [
        (((2, 3), (2, 3), (2, 3)), np.float32),
        (((2, 1, 4), (3, 1), ()), np.float32),
        (((4,), (3, 1), (1, 4)), np.int64),
        (((), (2, 2), (2, 2)), np.int32),
        (((3, 1), (3, 2), (2,)), np.bool_),
    ],
    ids=str,
)
def test_where(shapes, dtype):
    c, a, b = shapes
    if dtype == np.bool_:
        values = [bools(*a), bools(*b)]
    elif dtype == np.float32:
        values = [rand(*a), rand(*b)]
    else:
        values = [ints(*a, dtype=dtype), ints(*b, dtype=dtype)]
    check(g.WhereOp.make, [bools(*c), *values])


# --------------------------------------------------------------------------------------------
# Math, activations, logic and bits (issue 20's elementwise ops)
# --------------------------------------------------------------------------------------------

ANY_FLOAT = [g.SinOp, g.CosOp, g.TanOp, g.AtanOp, g.SinhOp, g.CoshOp, g.AsinhOp, g.CeilOp,
             g.FloorOp, g.RoundOp, g.SignOp, g.SoftplusOp, g.SoftsignOp, g.MishOp, g.EluOp,
             g.SeluOp, g.CeluOp, g.ThresholdedReluOp, g.ShrinkOp]  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("cls", ANY_FLOAT, ids=lambda c: c.name)
def test_float_math(cls, shape, dtype):
    x = rand(*shape, lo=-4, hi=4, dtype=dtype)
    if x.size > 2:
        x.flat[:2] = [2.5, -0.5]  # halves: round goes to even
    check(cls.make, [x])


@pytest.mark.parametrize(
    "cls, lo, hi",
    [(g.AsinOp, -0.99, 0.99), (g.AcosOp, -0.99, 0.99), (g.AtanhOp, -0.95, 0.95),
     (g.AcoshOp, 1.0, 9.0)],
    ids=lambda v: getattr(v, "name", str(v)),
)
def test_bounded_domain_math(cls, lo, hi):
    check(cls.make, [rand(3, 5, lo=lo, hi=hi)])


def test_softplus_and_mish_tails():
    """No overflow at large |x|, and the tiny results of very negative x keep their digits
    (log(1 + exp(x)) would round them to 0)."""
    x = np.array([-100.0, -30.0, -17.0, -1e-3, 0.0, 15.0, 89.0, 100.0], np.float32)
    out = check(g.SoftplusOp.make, [x])[0]
    assert out[1] > 0 and np.isfinite(out).all()
    check(g.MishOp.make, [x])


@pytest.mark.parametrize(
    "cls, props",
    [(g.EluOp, {"alpha": 0.3}), (g.SeluOp, {"alpha": 2.0, "gamma": 3.0}), (g.CeluOp, {"alpha": 2.5}),
     (g.ThresholdedReluOp, {"alpha": -0.5}), (g.ShrinkOp, {"bias": 1.5, "lambd": 1.0})],
    ids=lambda v: getattr(v, "name", str(v)),
)
def test_activation_attributes(cls, props):
    check(lambda x: cls.make(x, **props), [rand(4, 6)])


INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda d: np.dtype(d).name)
def test_integer_sign_and_shrink(dtype):
    lo = 0 if np.dtype(dtype).kind == "u" else -9
    x = ints(3, 7, lo=lo, hi=10, dtype=dtype)
    check(g.SignOp.make, [x])
    check(lambda v: g.ShrinkOp.make(v, bias=1.5, lambd=2.0), [x])


def test_sign_keeps_nan_and_zero():
    check(g.SignOp.make, [np.array([np.nan, -0.0, 0.0, -3.0, 1e-30, np.inf], np.float32)])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("positive, negative", [(1, 1), (1, 0), (0, 1), (0, 0)])
def test_is_nan_is_inf(positive, negative, dtype):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 3.0, np.finfo(dtype).max], dtype)
    check(g.IsNaNOp.make, [x])
    check(lambda v: g.IsInfOp.make(v, detect_positive=positive, detect_negative=negative), [x])


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda d: np.dtype(d).name)
def test_bitwise(dtype):
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, (3, 4), dtype=dtype, endpoint=True)
    b = RNG.integers(info.min, info.max, (4,), dtype=dtype, endpoint=True)
    for cls in (g.BitwiseAndOp, g.BitwiseOrOp, g.BitwiseXorOp):
        check(cls.make, [a, b])
    check(g.BitwiseNotOp.make, [a])


def test_logical():
    a, b = bools(3, 4), bools(4)
    for cls in (g.AndOp, g.OrOp, g.XorOp):
        check(cls.make, [a, b])
    check(g.NotOp.make, [a])


@pytest.mark.parametrize("dtype", [*INT_TYPES, np.float32, np.bool_], ids=lambda d: np.dtype(d).name)
def test_greater_equal_less_equal(dtype):
    if dtype == np.bool_:
        a, b = bools(3, 4), bools(4)
    else:
        lo = 0 if np.dtype(dtype).kind in "ub" else -3
        a, b = ints(3, 4, lo=lo, hi=3, dtype=dtype), ints(4, lo=lo, hi=3, dtype=dtype)
        if dtype == np.float32:
            a.flat[0] = np.nan  # compares false both ways
    for cls in (g.GreaterEqualOp, g.LessEqualOp):
        check(cls.make, [a, b])


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint64])
def test_integer_mod(dtype, fmod):
    """Both sign conventions; a zero divisor gives 0 and INT_MIN % -1 does not trap."""
    signed = np.dtype(dtype).kind == "i"
    a = ints(5, 6, lo=-40 if signed else 0, hi=40, dtype=dtype)
    b = ints(6, lo=-7 if signed else 0, hi=7, dtype=dtype)
    check(lambda x, y: g.ModOp.make(x, y, fmod=fmod), [a, b])
    if signed:
        edge = np.array([np.iinfo(dtype).min, -7, 7, -7, 7, 0], dtype)
        divisor = np.array([-1, 2, -2, -2, 0, 3], dtype)
        check(lambda x, y: g.ModOp.make(x, y, fmod=fmod), [edge, divisor])


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_mod(dtype, fmod):
    a = np.array([-4.3, 7.2, 5.0, 4.3, -7.2, 8.0, 0.0, -0.0, np.inf, 3.0, np.nan, 1.0], dtype)
    b = np.array([2.1, -3.4, 8.0, -2.1, 3.4, 5.0, 2.0, 3.0, 2.0, np.inf, 1.0, 0.0], dtype)
    check(lambda x, y: g.ModOp.make(x, y, fmod=fmod), [a, b])
    check(lambda x, y: g.ModOp.make(x, y, fmod=fmod), [rand(3, 4, lo=-20, hi=20, dtype=dtype),
                                                        rand(4, lo=0.5, hi=4, dtype=dtype)])


@pytest.mark.parametrize("direction", ["left", "right"])
@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda d: np.dtype(d).name)
def test_bit_shift(dtype, direction):
    """In-range amounts shift; amounts at or past the width (and negative ones) give 0, or
    the sign bit everywhere for a signed right shift."""
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, info.max, (2, 8), dtype=dtype, endpoint=True)
    lo = -2 if info.min < 0 else 0
    amount = np.array([0, 1, 3, bits - 1, bits, bits + 5, lo, 2], dtype)
    check(lambda v, s: g.BitShiftOp.make(v, s, direction=direction), [x, amount])


@pytest.mark.parametrize(
    "base, exponent",
    [(np.array([1, 2, 3, -2, 5], np.int32), np.array([4, 5, 6, 3, 0], np.int32)),
     (np.array([1, 2, 3, 4, 9], np.int64), np.array([4.0, 5.0, 0.5, 0.5, 1.5], np.float32)),
     (np.array([1.5, 2.0, 3.0], np.float32), np.array([2, -1, 3], np.int64)),
     (np.array([1.5, 2.0, 3.0], np.float32), np.array([2.0, -1.0, 0.5], np.float64))],
    ids=["i32^i32", "i64^f32", "f32^i64", "f32^f64"],
)
def test_pow_mixed_types(base, exponent):
    check(g.PowOp.make, [base, exponent])


@pytest.mark.parametrize("source, target", [
    (np.array([1.0, -2.5, np.inf, np.nan, -0.0], np.float32), np.int32),
    (np.array([0, -1, 0x7F800000, 0x3F800000], np.int32), np.float32),
    (np.array([-1, 7, 1 << 62], np.int64), np.float64),
    (np.array([-2.0, 1e300], np.float64), np.uint64),
    (np.array([1.5, -65504.0], np.float16), np.int16),
    (np.array([0, 255, 128, 7], np.uint8), np.int8),
    (np.array([-1, 300, 0], np.int16), np.uint16),
    (np.array([True, False, True]), np.uint8),
    (np.array([0, 3, 1], np.uint8), np.bool_),
], ids=lambda v: str(v.dtype) if isinstance(v, np.ndarray) else np.dtype(v).name)  # fmt: skip
def test_bitcast(source, target):
    to = element_type_of(np.dtype(target))
    want = source != 0 if target == np.bool_ else source.astype(target) if source.dtype == np.bool_ \
        else source.view(target)  # fmt: skip
    check(lambda v: g.BitcastOp.make(v, to=to), [source.reshape(1, -1)], [want.reshape(1, -1)])


NEW_INTS = {"i16": np.int16, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}


@pytest.mark.parametrize("target", ["f32", "f64", "i64", "i8", "i1"])
@pytest.mark.parametrize("source", NEW_INTS)
def test_cast_new_integer_widths(source, target):
    x = np.array([0, 1, 7, 100, 127], NEW_INTS[source])
    check(lambda v: g.CastOp.make(v, to=CAST_TARGETS[target]), [x.reshape(1, -1)])
    back = element_type_of(np.dtype(NEW_INTS[source]))
    check(lambda v: g.CastOp.make(v, to=back), [CAST_SOURCES["i8"][1:].reshape(1, -1).astype(
        np.int64 if target == "i64" else np.int8)])
