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
