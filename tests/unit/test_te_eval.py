"""The te interpreter: hand-written te kernels against numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    IndexType,
    ModuleOp,
    TensorType,
    UnitAttr,
    f32,
    f64,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Block, Region

from minitvm.dialects import te_eval
from minitvm.dialects import te_expr as te
from minitvm.dialects.graph import ConstantOp
from minitvm.dialects.te import KERNEL_ATTR
from minitvm.dialects.te_eval import TeEvalError, run_kernel
from minitvm.dialects.te_expr import Tensor, clamp, compute, select

RNG = np.random.default_rng(0)


def t(*shape: int, element=f32) -> TensorType:
    return TensorType(element, list(shape))


def kernel(arg_types, body, name: str = "k") -> func.FuncOp:
    """A te kernel whose computes `body(*tensors)` builds (it returns the computes to return)."""
    block = Block(arg_types=arg_types)
    computes = body(*(Tensor(a) for a in block.args))
    for c in computes:
        block.add_op(c)
    block.add_op(func.ReturnOp(*(c.result for c in computes)))
    fn = func.FuncOp(name, (arg_types, [c.result.type for c in computes]), Region(block))
    fn.attributes[KERNEL_ATTR] = UnitAttr()
    fn.verify()
    return fn


def test_matmul_sum_reduction():
    k = kernel([t(5, 7), t(7, 3)], lambda a, b: [
        compute([5, 3], f32, lambda i, j, r: a[i, r] * b[r, j], reduce=("sum", [7]))
    ])  # fmt: skip
    x, y = RNG.standard_normal((5, 7), np.float32), RNG.standard_normal((7, 3), np.float32)
    (out,) = run_kernel(k, [x, y])
    assert out.dtype == np.float32 and out.shape == (5, 3)
    np.testing.assert_allclose(out, x @ y, rtol=1e-5, atol=1e-6)


def test_batched_matmul_with_two_reduction_axes():
    # out[b, i] = sum_{r0, r1} x[b, r0, r1] * w[r0, r1, i]
    k = kernel([t(2, 3, 4), t(3, 4, 5)], lambda x, w: [
        compute([2, 5], f32, lambda b, i, r0, r1: x[b, r0, r1] * w[r0, r1, i],
                reduce=("sum", [3, 4]))
    ])  # fmt: skip
    x, w = RNG.standard_normal((2, 3, 4), np.float32), RNG.standard_normal((3, 4, 5), np.float32)
    want = np.einsum("brs,rsi->bi", x, w)
    np.testing.assert_allclose(run_kernel(k, [x, w])[0], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind, fn", [("max", np.max), ("min", np.min)])
def test_max_min_reduction(kind, fn):
    k = kernel([t(4, 9)], lambda x: [compute([4], f32, lambda i, r: x[i, r], reduce=(kind, [9]))])
    x = RNG.standard_normal((4, 9), np.float32)
    x[2, 3] = np.nan  # propagates, as np.max does
    np.testing.assert_array_equal(run_kernel(k, [x])[0], fn(x, axis=1))


def test_prod_reduction():
    k = kernel([t(4, 9)], lambda x: [compute([4], f32, lambda i, r: x[i, r], reduce=("prod", [9]))])
    x = RNG.uniform(0.5, 1.5, (4, 9)).astype(np.float32)
    np.testing.assert_allclose(run_kernel(k, [x])[0], np.prod(x, axis=1), rtol=1e-6)
    empty = kernel([t(4, 0)], lambda x: [
        compute([4], i32, lambda i, r: te.cast(x[i, r], i32), reduce=("prod", [0]))
    ])  # fmt: skip
    np.testing.assert_array_equal(run_kernel(empty, [np.zeros((4, 0), np.float32)])[0], [1] * 4)


def test_integer_sum_reduction():
    k = kernel([t(3, 6, element=i32)], lambda x: [
        compute([3], i32, lambda i, r: x[i, r], reduce=("sum", [6]))
    ])  # fmt: skip
    x = RNG.integers(-100, 100, (3, 6)).astype(np.int32)
    out = run_kernel(k, [x])[0]
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, x.sum(axis=1))


def test_select_clamp_padding():
    """Zero padding of 2 on each side of the last dim: a clamped read under a select."""

    def pad(x: Tensor):
        def body(i, j):
            src = j - 2
            inside = (src >= 0) & (src < 5)
            return select(inside, x[i, clamp(src, 0, 4)], 0.0)

        return [compute([3, 9], f32, body)]

    x = RNG.standard_normal((3, 5), np.float32)
    (got,) = run_kernel(kernel([t(3, 5)], pad), [x])
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (2, 2)]))


def test_index_arithmetic_floordiv_mod():
    """A reshape 4x6 -> 3x8: linearize the output index, delinearize with // and %."""
    k = kernel([t(4, 6)], lambda x: [
        compute([3, 8], f32, lambda i, j: x[(i * 8 + j) // 6, (i * 8 + j) % 6])
    ])  # fmt: skip
    x = RNG.standard_normal((4, 6), np.float32)
    np.testing.assert_array_equal(run_kernel(k, [x])[0], x.reshape(3, 8))


def test_signed_division_flavours():
    """divsi truncates, floordivsi floors, remsi takes the dividend's sign, on negative values."""

    def div(kind):
        def body(i, j):
            a, b = te.cast(i, i64) - 7, te.cast(j, i64) - 3
            b = select(b.eq(0), te.const(5, i64), b)
            op = {"divsi": arith.DivSIOp, "floordivsi": arith.FloorDivSIOp, "remsi": arith.RemSIOp,
                  "ceildivsi": arith.CeilDivSIOp}[kind]  # fmt: skip
            return te._emit(op(a.value, b.value))

        return body

    kinds = ["divsi", "floordivsi", "remsi", "ceildivsi"]
    k = kernel([], lambda: [compute([15, 7], i64, div(kind)) for kind in kinds])
    a = np.arange(15)[:, None] - 7
    b = np.arange(7)[None, :] - 3
    b = np.where(b == 0, 5, b)
    want = [
        np.trunc(a / b).astype(np.int64),
        a // b,
        np.fmod(a, b),
        np.ceil(a / b).astype(np.int64),
    ]
    for kind, got, expected in zip(kinds, run_kernel(k, []), want):
        np.testing.assert_array_equal(got, expected, err_msg=kind)


def test_casts():
    x = np.array([-2.7, -0.5, 0.0, 0.4, 1.5, 3.99, -7.0, 100.2], np.float32)
    ints = np.array([-3, 0, 1, 2, 127, -128, 5, 9], np.int64)
    k = kernel([t(8), t(8, element=i64)], lambda f, n: [
        compute([8], i32, lambda i: te.cast(f[i], i32)),
        compute([8], i64, lambda i: te.cast(f[i], i64)),
        compute([8], i1, lambda i: te.cast(f[i], i1)),
        compute([8], f32, lambda i: te.cast(n[i], f32)),
        compute([8], i8, lambda i: te.cast(n[i], i8)),
        compute([8], f32, lambda i: te.cast(te.cast(n[i], i1), f32)),
        compute([8], f64, lambda i: te.cast(f[i], f64)),
        compute([8], f32, lambda i: te.cast(i, f32)),
        compute([8], i32, lambda i: te.cast(te.cast(n[i], i1), i32)),
    ])  # fmt: skip
    outs = run_kernel(k, [x, ints])
    want = [
        x.astype(np.int32), x.astype(np.int64), x != 0, ints.astype(np.float32),
        ints.astype(np.int8), (ints != 0).astype(np.float32), x.astype(np.float64),
        np.arange(8, dtype=np.float32), (ints != 0).astype(np.int32),
    ]  # fmt: skip
    for n, (got, expected) in enumerate(zip(outs, want)):
        assert got.dtype == expected.dtype, n
        np.testing.assert_array_equal(got, expected, err_msg=f"cast #{n}")


def test_unary_math():
    x = np.linspace(-3, 3, 13, dtype=np.float32)
    fns = [
        (te.exp, np.exp), (te.tanh, np.tanh), (te.erf, np.vectorize(math.erf)), (te.abs_, np.abs),
        (te.floor, np.floor), (te.ceil, np.ceil), (te.round_even, np.rint),
        (lambda v: te.fma(v, v, v), lambda v: v * v + v), (lambda v: te.pow_(te.abs_(v), 1.5),
         lambda v: np.abs(v) ** 1.5), (lambda v: te.sqrt(te.abs_(v)), lambda v: np.sqrt(np.abs(v))),
        (lambda v: te.log(te.abs_(v) + 1.0), lambda v: np.log(np.abs(v) + 1)),
        (lambda v: te.maximum(v, 0.5), lambda v: np.maximum(v, 0.5)),
        (lambda v: te.minimum(v, 0.5), lambda v: np.minimum(v, 0.5)),
    ]  # fmt: skip
    k = kernel([t(13)], lambda a: [compute([13], f32, lambda i, f=f: f(a[i])) for f, _ in fns])
    for n, (got, (_, ref)) in enumerate(zip(run_kernel(k, [x]), fns)):
        assert got.dtype == np.float32
        want = ref(x.astype(np.float64))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=f"#{n}")


def test_erf_is_accurate():
    x = np.concatenate([np.geomspace(1e-8, 6, 50), -np.geomspace(1e-8, 6, 50)])
    k = kernel([t(100, element=f64)], lambda a: [compute([100], f64, lambda i: te.erf(a[i]))])
    got = run_kernel(k, [x])[0]
    np.testing.assert_allclose(got, [math.erf(v) for v in x], rtol=1e-7)


def test_rank0_math():
    k = kernel([t(element=f64)], lambda a: [
        compute([], f64, lambda: te.erf(a[()])),
        compute([], f64, lambda: te.exp(a[()]) + 1.0),
    ])  # fmt: skip
    erf, exp = run_kernel(k, [np.array(0.3)])
    assert erf.shape == () and exp.shape == ()
    assert erf == pytest.approx(math.erf(0.3)) and exp == pytest.approx(math.exp(0.3) + 1)


def test_cmpf_ordered_and_unordered_with_nan():
    a = np.array([1.0, np.nan, 2.0, np.nan, 3.0], np.float32)
    b = np.array([1.0, 1.0, np.nan, np.nan, 2.0], np.float32)
    preds = ["oeq", "one", "olt", "ogt", "ord", "ueq", "une", "ult", "uge", "uno", "true", "false"]

    def cmp(x: Tensor, y: Tensor, pred: str):
        return lambda i: te._emit(arith.CmpfOp(x[i].value, y[i].value, pred))

    k = kernel([t(5), t(5)], lambda x, y: [compute([5], i1, cmp(x, y, p)) for p in preds])
    nan = np.isnan(a) | np.isnan(b)
    want = {
        "oeq": a == b, "one": (a != b) & ~nan, "olt": a < b, "ogt": a > b, "ord": ~nan,
        "ueq": (a == b) | nan, "une": a != b, "ult": (a < b) | nan, "uge": (a >= b) | nan,
        "uno": nan, "true": np.ones(5, bool), "false": np.zeros(5, bool),
    }  # fmt: skip
    for pred, got in zip(preds, run_kernel(k, [a, b])):
        np.testing.assert_array_equal(got, want[pred], err_msg=pred)


def test_integer_ops_and_unsigned_compare():
    x = np.array([-5, -1, 0, 3, 7], np.int32)
    k = kernel([t(5, element=i32)], lambda a: [
        compute([5], i32, lambda i: te.abs_(a[i])),
        compute([5], i32, lambda i: te.maximum(a[i], 0) * 3 - a[i]),
        compute([5], i1, lambda i: te._emit(arith.CmpiOp(a[i].value, te.const(3, i32).value,
                                                          "ult"))),
        compute([5], i32, lambda i: select(a[i] < 0, -a[i], a[i] / 2)),
    ])  # fmt: skip
    abs_, lin, ult, sel = run_kernel(k, [x])
    np.testing.assert_array_equal(abs_, np.abs(x))
    np.testing.assert_array_equal(lin, np.maximum(x, 0) * 3 - x)
    np.testing.assert_array_equal(ult, x.astype(np.uint32) < 3)
    np.testing.assert_array_equal(sel, np.where(x < 0, -x, np.trunc(x / 2).astype(np.int32)))


def test_out_of_bounds_read_is_an_error():
    k = kernel([t(4)], lambda x: [compute([4], f32, lambda i: x[i + 1])])
    with pytest.raises(TeEvalError, match="out of bounds.*from 1 to 4"):
        run_kernel(k, [np.zeros(4, np.float32)])
    k = kernel([t(4)], lambda x: [compute([4], f32, lambda i: x[i - 1])])
    with pytest.raises(TeEvalError, match="out of bounds"):
        run_kernel(k, [np.zeros(4, np.float32)])


def test_scalar_and_chained_computes():
    """A rank-0 result, a compute reading an earlier compute, a constant body."""
    k = kernel([t(6)], lambda x: (
        s := compute([], f32, lambda r: x[r], reduce=("sum", [6])),
        c := compute([2, 3], f32, lambda i, j: 2.5),
        compute([2, 3], f32,
                lambda i, j: Tensor(c.result)[i, j] * Tensor(s.result)[()] + x[i * 3 + j]),
    ))  # fmt: skip
    x = RNG.standard_normal(6).astype(np.float32)
    s, c, y = run_kernel(k, [x])
    assert s.shape == () and c.shape == (2, 3)
    np.testing.assert_allclose(s, x.sum(), rtol=1e-6)
    np.testing.assert_array_equal(c, np.full((2, 3), 2.5, np.float32))
    np.testing.assert_allclose(y, 2.5 * x.sum() + x.reshape(2, 3), rtol=1e-6)


def test_large_index_spaces_are_evaluated_in_boxes(monkeypatch):
    monkeypatch.setattr(te_eval, "BOX_LIMIT", 50)
    k = kernel([t(3, 4, 5, 6), t(6, 7)], lambda x, w: [
        compute([3, 4, 5, 7], f32, lambda a, b, c, d, r: x[a, b, c, r] * w[r, d],
                reduce=("sum", [6])),
        compute([3, 4, 5, 6], f32, lambda a, b, c, d: x[a, b, c, d] + 1.0),
    ])  # fmt: skip
    x, w = RNG.standard_normal((3, 4, 5, 6), np.float32), RNG.standard_normal((6, 7), np.float32)
    mm, inc = run_kernel(k, [x, w])
    np.testing.assert_allclose(mm, x @ w, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(inc, x + 1)


def test_run_module_with_constants_and_calls():
    relu = kernel([t(2, 3)], lambda x: [
        compute([2, 3], f32, lambda i, j: te.maximum(x[i, j], 0.0))
    ], name="relu_0")  # fmt: skip
    add = kernel([t(2, 3), t(3)], lambda a, b: [compute([2, 3], f32, lambda i, j: a[i, j] + b[j])],
                 name="add_1")  # fmt: skip
    block = Block(arg_types=[t(2, 3)])
    bias = ConstantOp.from_array(np.array([1.0, -2.0, 3.0], np.float32))
    r = func.CallOp("relu_0", [block.args[0]], [t(2, 3)])
    s = func.CallOp("add_1", [r.results[0], bias.result], [t(2, 3)])
    block.add_ops([bias, r, s, func.ReturnOp(s.results[0])])
    main = func.FuncOp("main", ([t(2, 3)], [t(2, 3)]), Region(block))
    module = ModuleOp([relu, add, main])
    module.verify()
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    (y,) = te_eval.run_module(module, [x])
    np.testing.assert_allclose(y, np.maximum(x, 0) + [1.0, -2.0, 3.0])
    with pytest.raises(TeEvalError, match="input #0 has shape"):
        te_eval.run_module(module, [np.zeros((3, 2), np.float32)])


def test_index_grids_are_int64():
    k = kernel([], lambda: [compute([3, 4], i64, lambda i, j: te.cast(i * 10 - j, i64))])
    np.testing.assert_array_equal(
        run_kernel(k, [])[0], np.arange(3)[:, None] * 10 - np.arange(4)[None, :]
    )
    assert te_eval.dtype_of(IndexType()) == np.int64
