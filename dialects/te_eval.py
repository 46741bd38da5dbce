"""The te dialect's executable semantics: an interpreter vectorized with numpy.

This is the oracle between the graph reference (`graph/reference.py`) and generated code:
after `convert-graph-to-te`, `run_module` must agree with the graph reference, and after
`te_to_loop`/`loop_to_llvm` the compiled kernels must agree with `run_kernel`.

A `te.compute` body is evaluated ONCE over the whole index space, not per element: each
index argument becomes an integer grid (`np.arange` along its own axis, size 1 elsewhere, so
grids broadcast against each other like `np.ogrid`), `arith`/`math` ops become numpy ufuncs
on those arrays, `te.read` becomes fancy indexing, and the trailing reduction axes are
reduced at the end. Very large index spaces are cut into boxes along the leading result
dims so memory stays bounded.

Every `te.read` is bounds-checked over every point of the index space: the te dialect
requires bodies to read in bounds (padding is a clamped read under a select), so an
out-of-bounds index is a lowering bug and raises `TeEvalError` naming the read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import ml_dtypes
import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from minitvm.dialects.arith_ext import RemFOp
from minitvm.dialects.graph.base import Dim, shape_of
from minitvm.dialects.graph.constant import ConstantOp
from minitvm.dialects.te import ComputeOp, ReadOp, SizeOp, YieldOp
from minitvm.symbolic import SymbolicError, bare_symbol, evaluate

#: Index-space elements evaluated at once (result points x reduction points).
BOX_LIMIT = 1 << 22


class TeEvalError(RuntimeError):
    """A te kernel cannot be evaluated: an out-of-bounds read, an unsupported op, bad input.

    Not a user error: te IR comes from our own lowerings, so this signals a compiler bug.
    """


Env = dict[SSAValue, np.ndarray]


# --------------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------------


def dtype_of(type_: Attribute) -> np.dtype:
    """The numpy dtype holding values of a scalar type (index -> int64, i1 -> bool)."""
    if isinstance(type_, IndexType):
        return np.dtype(np.int64)
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width not in (8, 16, 32, 64):
            raise TeEvalError(f"te_eval: integer width {width} is not supported")
        kind = "uint" if type_.signedness.data == Signedness.UNSIGNED else "int"
        return np.dtype(f"{kind}{width}")
    if isinstance(type_, BFloat16Type):
        return np.dtype(ml_dtypes.bfloat16)
    if isinstance(type_, AnyFloat):
        return np.dtype(f"float{type_.bitwidth}")
    raise TeEvalError(f"te_eval: no numpy dtype for type {type_}")


def _width(type_: Attribute) -> int:
    if isinstance(type_, IndexType):
        return 64
    assert isinstance(type_, IntegerType), type_
    return type_.width.data


def _signed(a: np.ndarray, type_: Attribute) -> np.ndarray:
    """An integer value as int64 under the signed interpretation (i1 true is -1)."""
    if a.dtype == np.bool_:
        return -a.astype(np.int64)
    return a.astype(np.int64)


def _unsigned(a: np.ndarray, type_: Attribute) -> np.ndarray:
    """An integer value as uint64 under the unsigned interpretation."""
    width = _width(type_)
    if a.dtype == np.bool_:
        return a.astype(np.uint64)
    u = a.astype(np.int64).astype(np.uint64)
    return u if width == 64 else u & np.uint64((1 << width) - 1)


def _wrap(a: np.ndarray, type_: Attribute) -> np.ndarray:
    """Store an integer (any dtype) into `type_`, wrapping like two's complement."""
    dtype = dtype_of(type_)
    if dtype == np.bool_:
        return (np.asarray(a).astype(np.int64) & 1).astype(np.bool_)
    return np.asarray(a).astype(dtype)


# --------------------------------------------------------------------------------------------
# Scalar ops (applied elementwise to whole arrays)
# --------------------------------------------------------------------------------------------

Impl = Callable[[Operation, list[np.ndarray]], np.ndarray]
_IMPLS: dict[type[Operation], Impl] = {}


def _impl(*classes: type[Operation]) -> Callable[[Impl], Impl]:
    def register(fn: Impl) -> Impl:
        for cls in classes:
            _IMPLS[cls] = fn
        return fn

    return register


def _res_type(op: Operation) -> Attribute:
    return op.results[0].type


def _in_type(op: Operation, n: int = 0) -> Attribute:
    return op.operands[n].type


@_impl(arith.ConstantOp)
def _constant(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    assert isinstance(op, arith.ConstantOp)
    value, type_ = op.value, _res_type(op)
    if isinstance(value, FloatAttr):
        return np.asarray(value.value.data, dtype=dtype_of(type_))
    if isinstance(value, IntegerAttr):
        v = value.value.data
        return np.asarray(v != 0) if dtype_of(type_) == np.bool_ else _wrap(np.asarray(v), type_)
    raise TeEvalError(f"te_eval: unsupported constant {value}")


def _float_binary(ufunc: Callable[..., np.ndarray]) -> Impl:
    return lambda op, args: np.asarray(ufunc(args[0], args[1])).astype(dtype_of(_res_type(op)))


for _cls, _fn in [
    (arith.AddfOp, np.add), (arith.SubfOp, np.subtract), (arith.MulfOp, np.multiply),
    (arith.DivfOp, np.divide), (arith.MaximumfOp, np.maximum), (arith.MinimumfOp, np.minimum),
    (arith.MaxnumfOp, np.fmax), (arith.MinnumfOp, np.fmin), (xmath.PowFOp, np.power),
    (xmath.CopySignOp, np.copysign), (xmath.Atan2Op, np.arctan2),
    (RemFOp, np.fmod),
]:  # fmt: skip
    _IMPLS[_cls] = _float_binary(_fn)



def _signed_binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Impl:
    def impl(op: Operation, args: list[np.ndarray]) -> np.ndarray:
        t = _res_type(op)
        return _wrap(fn(_signed(args[0], t), _signed(args[1], t)), t)

    return impl


def _unsigned_binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Impl:
    def impl(op: Operation, args: list[np.ndarray]) -> np.ndarray:
        t = _res_type(op)
        return _wrap(fn(_unsigned(args[0], t), _unsigned(args[1], t)).astype(np.int64), t)

    return impl


def _div_trunc(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C/LLVM sdiv: truncate toward zero (numpy's // floors)."""
    q = np.floor_divide(a, b)
    return q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)))


for _cls, _fn in [
    (arith.AddiOp, np.add), (arith.SubiOp, np.subtract), (arith.MuliOp, np.multiply),
    (arith.DivSIOp, _div_trunc), (arith.FloorDivSIOp, np.floor_divide),
    (arith.CeilDivSIOp, lambda a, b: -np.floor_divide(-a, b)), (arith.RemSIOp, np.fmod),
    (arith.MaxSIOp, np.maximum), (arith.MinSIOp, np.minimum),
    (arith.AndIOp, np.bitwise_and), (arith.OrIOp, np.bitwise_or), (arith.XOrIOp, np.bitwise_xor),
    (arith.ShLIOp, np.left_shift), (arith.ShRSIOp, np.right_shift),
]:  # fmt: skip
    _IMPLS[_cls] = _signed_binary(_fn)

for _cls, _fn in [
    (arith.DivUIOp, np.floor_divide), (arith.RemUIOp, np.remainder),
    (arith.CeilDivUIOp, lambda a, b: (a + b - np.uint64(1)) // b),
    (arith.MaxUIOp, np.maximum), (arith.MinUIOp, np.minimum), (arith.ShRUIOp, np.right_shift),
]:  # fmt: skip
    _IMPLS[_cls] = _unsigned_binary(_fn)


def _isnan_either(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.isnan(a) | np.isnan(b)


_CMPF: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "false": lambda a, b: np.zeros(np.broadcast_shapes(a.shape, b.shape), np.bool_),
    "oeq": np.equal,
    "ogt": np.greater,
    "oge": np.greater_equal,
    "olt": np.less,
    "ole": np.less_equal,
    "one": lambda a, b: np.not_equal(a, b) & ~_isnan_either(a, b),
    "ord": lambda a, b: ~_isnan_either(a, b),
    "ueq": lambda a, b: np.equal(a, b) | _isnan_either(a, b),
    "ugt": lambda a, b: ~np.less_equal(a, b),
    "uge": lambda a, b: ~np.less(a, b),
    "ult": lambda a, b: ~np.greater_equal(a, b),
    "ule": lambda a, b: ~np.greater(a, b),
    "une": np.not_equal,
    "uno": _isnan_either,
    "true": lambda a, b: np.ones(np.broadcast_shapes(a.shape, b.shape), np.bool_),
}


@_impl(arith.CmpfOp)
def _cmpf(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    assert isinstance(op, arith.CmpfOp)
    predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    return np.asarray(_CMPF[predicate](args[0], args[1]))


_CMPI: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": np.equal, "ne": np.not_equal,
    "slt": np.less, "sle": np.less_equal, "sgt": np.greater, "sge": np.greater_equal,
    "ult": np.less, "ule": np.less_equal, "ugt": np.greater, "uge": np.greater_equal,
}  # fmt: skip


@_impl(arith.CmpiOp)
def _cmpi(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    assert isinstance(op, arith.CmpiOp)
    predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    t = _in_type(op)
    convert = _unsigned if predicate.startswith("u") else _signed
    return np.asarray(_CMPI[predicate](convert(args[0], t), convert(args[1], t)))


@_impl(arith.SelectOp)
def _select(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.where(args[0], args[1], args[2]).astype(dtype_of(_res_type(op)), copy=False)


@_impl(arith.NegfOp)
def _negf(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.negative(args[0])


# Casts ---------------------------------------------------------------------------------------


@_impl(arith.SIToFPOp)
def _sitofp(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return _signed(args[0], _in_type(op)).astype(dtype_of(_res_type(op)))


@_impl(arith.UIToFPOp)
def _uitofp(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return _unsigned(args[0], _in_type(op)).astype(dtype_of(_res_type(op)))


@_impl(arith.FPToSIOp, arith.FPToUIOp)
def _fptoi(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    # Truncation toward zero; out-of-range values (and NaN) are poison in LLVM: anything goes.
    return _wrap(np.trunc(args[0]).astype(np.float64).astype(np.int64), _res_type(op))


@_impl(arith.ExtFOp, arith.TruncFOp)
def _fcast(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return args[0].astype(dtype_of(_res_type(op)))


@_impl(arith.ExtSIOp, arith.TruncIOp, arith.IndexCastOp)
def _sext(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return _wrap(_signed(args[0], _in_type(op)), _res_type(op))


@_impl(arith.BitcastOp)
def _bitcast(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    """The same bits as the result type: between integers (i8 <-> ui8, index <-> i64) a
    wrap, with a float on either side a view of the bytes."""
    source, target = _in_type(op), _res_type(op)
    if not isinstance(source, AnyFloat) and not isinstance(target, AnyFloat):
        return _wrap(_signed(args[0], source), target)
    data = np.ascontiguousarray(np.asarray(args[0]).astype(dtype_of(source)))
    return data.view(dtype_of(target))


@_impl(arith.ExtUIOp)
def _zext(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return _wrap(_unsigned(args[0], _in_type(op)).astype(np.int64), _res_type(op))


# math ----------------------------------------------------------------------------------------

_math_erf = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    # numpy has no erf; math.erf per element is exact and fast enough for an oracle.
    return np.asarray(_math_erf(x.astype(np.float64)), dtype=np.float64)  # 0-d gives a float


def _round_half_away(x: np.ndarray) -> np.ndarray:
    r = np.trunc(x + np.copysign(0.5, x))
    # x + 0.5 can round up for the largest float below 0.5: fall back to x there.
    return np.where(np.abs(x) < 0.5, np.copysign(0.0, x), r)


def _float_unary(fn: Callable[[np.ndarray], np.ndarray]) -> Impl:
    return lambda op, args: np.asarray(fn(args[0])).astype(dtype_of(_res_type(op)))


for _cls, _fn in [
    (xmath.ExpOp, np.exp), (xmath.Exp2Op, np.exp2), (xmath.ExpM1Op, np.expm1),
    (xmath.LogOp, np.log), (xmath.Log2Op, np.log2), (xmath.Log10Op, np.log10),
    (xmath.Log1pOp, np.log1p), (xmath.SqrtOp, np.sqrt), (xmath.RsqrtOp, lambda x: 1 / np.sqrt(x)),
    (xmath.CbrtOp, np.cbrt), (xmath.TanhOp, np.tanh), (xmath.SinhOp, np.sinh),
    (xmath.CoshOp, np.cosh), (xmath.SinOp, np.sin), (xmath.CosOp, np.cos), (xmath.TanOp, np.tan),
    (xmath.AtanOp, np.arctan), (xmath.AsinOp, np.arcsin), (xmath.AcosOp, np.arccos),
    (xmath.AsinhOp, np.arcsinh), (xmath.AcoshOp, np.arccosh), (xmath.AtanhOp, np.arctanh),
    (xmath.ErfOp, _erf), (xmath.FloorOp, np.floor), (xmath.CeilOp, np.ceil),
    (xmath.RoundEvenOp, np.rint), (xmath.RoundOp, _round_half_away), (xmath.TruncOp, np.trunc),
    (xmath.AbsFOp, np.abs),
]:  # fmt: skip
    _IMPLS[_cls] = _float_unary(_fn)


@_impl(xmath.AbsIOp)
def _absi(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return _wrap(np.abs(_signed(args[0], _res_type(op))), _res_type(op))


@_impl(xmath.FmaOp)
def _fma(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    a, b, c = (x.astype(np.float64) for x in args)
    return (a * b + c).astype(dtype_of(_res_type(op)))


@_impl(xmath.FPowIOp)
def _fpowi(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.power(args[0], _signed(args[1], _in_type(op, 1)).astype(args[0].dtype))


# --------------------------------------------------------------------------------------------
# te.compute
# --------------------------------------------------------------------------------------------


def _compact(a: np.ndarray) -> np.ndarray:
    """The distinct data of a broadcast view (its zero-stride dims cut to size 1)."""
    return a[tuple(slice(0, 1) if s == 0 else slice(None) for s in a.strides)]


def _read(op: ReadOp, tensor: np.ndarray, indices: list[np.ndarray]) -> np.ndarray:
    for d, (index, size) in enumerate(zip(indices, tensor.shape)):
        values = _compact(index)
        if values.size == 0:
            continue
        lo, hi = int(values.min()), int(values.max())
        if lo < 0 or hi >= size:
            raise TeEvalError(
                f"te.read out of bounds: dimension {d} of a {tensor.shape} tensor is read at "
                f"indices from {lo} to {hi} (valid: 0..{size - 1}); the lowering must clamp "
                f"or select so that every point of the index space reads in bounds"
            )
    return np.asarray(tensor[tuple(indices)])


def _boxes(shape: Sequence[int], reduce_size: int) -> Iterator[list[tuple[int, int]]]:
    """Cut the result index space into boxes of at most BOX_LIMIT points (times the reduction):
    the leading dims one index at a time, then one dim in chunks, the rest whole."""
    rank = len(shape)
    k, inner = rank, reduce_size  # inner = points per index of dim k-1 ... whole dims after k
    while k > 0 and inner * shape[k - 1] <= BOX_LIMIT:
        k -= 1
        inner *= shape[k]
    if k == 0:
        yield [(0, s) for s in shape]
        return
    # Dims < k-1 one at a time; dim k-1 in chunks; dims >= k whole.
    chunk = max(1, BOX_LIMIT // inner)
    for outer in np.ndindex(*shape[: k - 1]):
        for lo in range(0, shape[k - 1], chunk):
            yield [
                *((i, i + 1) for i in outer),
                (lo, min(lo + chunk, shape[k - 1])),
                *((0, s) for s in shape[k:]),
            ]


def _sizes_of(dims: Sequence[Dim]) -> tuple[int, ...]:
    """Dims as numbers: symbolic ones take the values `_bind` found for their symbols."""
    sizes = _SIZES.get() or {}
    try:
        return tuple(evaluate(d, sizes) for d in dims)
    except SymbolicError as e:
        raise TeEvalError(f"te_eval: {e} (bound from no input's shape)") from None


def _eval_box(op: ComputeOp, env: Env, box: list[tuple[int, int]]) -> np.ndarray:
    extents = _sizes_of(op.extents)
    ranges = [*box, *((0, e) for e in extents)]
    rank = len(ranges)
    local: Env = {}
    for n, (arg, (lo, hi)) in enumerate(zip(op.body.block.args, ranges)):
        grid_shape = [1] * rank
        grid_shape[n] = hi - lo
        local[arg] = np.arange(lo, hi, dtype=np.int64).reshape(grid_shape)

    def value(v: SSAValue) -> np.ndarray:
        if v in local:
            return local[v]
        if v in env:
            return env[v]
        raise TeEvalError(f"te_eval: value {v.name_hint or v} used in {op.name} has no value")

    for inner in op.body.block.ops:
        if isinstance(inner, YieldOp):
            full = tuple(hi - lo for lo, hi in ranges)
            return _reduce(op, np.broadcast_to(value(inner.value), full), len(extents))
        args = [value(o) for o in inner.operands]
        if isinstance(inner, ReadOp):
            local[inner.result] = _read(inner, args[0], args[1:])
            continue
        impl = _IMPLS.get(type(inner))
        if impl is None:
            raise TeEvalError(f"te_eval: {inner.name} is not supported in te.compute bodies")
        local[inner.results[0]] = np.asarray(impl(inner, args))
    raise TeEvalError("te.compute: body does not end in te.yield")


def _reduce(op: ComputeOp, value: np.ndarray, count: int) -> np.ndarray:
    dtype = dtype_of(op.result.type.element_type)
    if count == 0:
        return value.astype(dtype)
    axes = tuple(range(value.ndim - count, value.ndim))
    kind = op.reduce_kind.data if op.reduce_kind else "sum"
    if kind in ("sum", "prod"):
        # Float sums and products accumulate in float64 so the oracle is not the noisiest
        # party; integers wrap around as the generated code's do.
        acc = np.float64 if dtype.kind == "f" else np.int64
        if dtype == np.bool_:  # i1: sum is "any", prod is "all" (te_to_loop's ori, andi)
            return (np.any if kind == "sum" else np.all)(value, axis=axes)
        fn = np.sum if kind == "sum" else np.prod
        return fn(value, axis=axes, dtype=acc).astype(dtype)
    if value.size == 0:  # empty reduction axes: the identity
        ident = (-np.inf if kind == "max" else np.inf) if dtype.kind == "f" else (
            np.iinfo(dtype).min if kind == "max" else np.iinfo(dtype).max
        )
        return np.full(value.shape[: value.ndim - count], ident, dtype)
    fn = np.max if kind == "max" else np.min
    return fn(value, axis=axes).astype(dtype)


def evaluate_compute(op: ComputeOp, env: dict[SSAValue, np.ndarray]) -> np.ndarray:
    """The tensor `op` defines; `env` holds the values of the tensors its body reads."""
    shape, extents = _sizes_of(op.shape), _sizes_of(op.extents)
    dtype = dtype_of(op.result.type.element_type)
    reduce_size = math.prod(extents)
    if math.prod(shape) == 0:
        return np.empty(shape, dtype)  # the body is never executed: nothing to check either
    if extents and reduce_size == 0:
        return _reduce(op, np.empty((*shape, *extents), dtype), len(extents))
    with np.errstate(all="ignore"):
        boxes = list(_boxes(shape, max(reduce_size, 1)))
        if len(boxes) == 1:
            return np.array(_eval_box(op, env, boxes[0]), dtype=dtype, order="C")
        out = np.empty(shape, dtype)
        for box in boxes:
            out[tuple(slice(lo, hi) for lo, hi in box)] = _eval_box(op, env, box)
        return out


# --------------------------------------------------------------------------------------------
# Kernels and modules
# --------------------------------------------------------------------------------------------


def _bind(args: Sequence[SSAValue], inputs: Sequence[np.ndarray], what: str) -> Env:
    """The arguments' values; a symbol that is a dimension of an argument takes the input's
    size there (in `_SIZES`, which the caller scopes), and every shape must then agree."""
    if len(args) != len(inputs):
        raise TeEvalError(f"{what}: expected {len(args)} inputs, got {len(inputs)}")
    env: Env = {}
    sizes = _SIZES.get()
    assert sizes is not None, "_bind runs in a _symbol_scope"
    arrays = []
    for i, (arg, value) in enumerate(zip(args, inputs)):
        type_ = arg.type
        if not isinstance(type_, TensorType):
            raise TeEvalError(f"{what}: argument #{i} is not a tensor ({type_})")
        array = np.asarray(value, dtype=dtype_of(type_.element_type))
        dims = shape_of(type_)
        for dim, size in zip(dims, array.shape):
            if (name := bare_symbol(dim)) is not None:
                sizes.setdefault(name, size)
        arrays.append((i, arg, array, dims))
    for i, arg, array, dims in arrays:
        if len(array.shape) != len(dims) or array.shape != _sizes_of(dims):
            raise TeEvalError(f"{what}: input #{i} has shape {array.shape}, expected {arg.type}")
        env[arg] = array
    return env


#: The values of the symbols of the kernel or module being evaluated (`_bind` finds them).
_SIZES: ContextVar[dict[str, int] | None] = ContextVar("te_eval_sizes", default=None)


@contextmanager
def _symbol_scope() -> Iterator[None]:
    """A scope for symbol values: a kernel called from @main knows @main's."""
    token = _SIZES.set(dict(_SIZES.get() or {}))
    try:
        yield
    finally:
        _SIZES.reset(token)


@_impl(SizeOp)
def _size(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    return np.asarray(_sizes_of([op.value])[0], np.int64)  # type: ignore[attr-defined]


def run_kernel(kernel: func.FuncOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Evaluate a `te.kernel` function: its computes in order, then what func.return returns.
    Symbolic sizes take their values from the inputs' shapes."""
    with _symbol_scope():
        return _run_kernel(kernel, inputs)


def _run_kernel(kernel: func.FuncOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    name = f"te kernel @{kernel.sym_name.data}"
    env = _bind(kernel.body.block.args, inputs, name)
    for op in kernel.body.block.ops:
        if isinstance(op, ComputeOp):
            env[op.result] = evaluate_compute(op, env)
        elif isinstance(op, func.ReturnOp):
            return [env[v] for v in op.arguments]
        elif type(op) in _IMPLS:
            with np.errstate(all="ignore"):
                env[op.results[0]] = np.asarray(_IMPLS[type(op)](op, [env[o] for o in op.operands]))
        else:
            raise TeEvalError(f"{name}: {op.name} is not supported in a te kernel")
    raise TeEvalError(f"{name}: does not end with func.return")


def run_module(module: ModuleOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Evaluate `func.func @main` of a module after convert-graph-to-te: graph.constants,
    calls of te kernels, func.return. Symbolic sizes take their values from the inputs'
    shapes (one compiled module, any sizes)."""
    with _symbol_scope():
        return _run_module(module, inputs)


#: The graph ops convert-graph-to-te leaves in @main, for convert-te-to-loop to write as loops
#: there (found sizes, checks, sorts, scans) or as views (reshapes, splits, slices, concats in
#: place: lowering/views.py): run on their reference semantics.
MAIN_LEVEL_GRAPH_OPS = frozenset({
    "graph.flat_nonzero", "graph.iota", "graph.check", "graph.argsort", "graph.cum_sum", "graph.cum_prod",
    "graph.greedy_nms", "graph.invert_permutation", "graph.reshape", "graph.split", "graph.slice",
    "graph.concat",
})  # fmt: skip


def _run_module(module: ModuleOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    main = funcs.get("main")
    if main is None:
        raise TeEvalError("te_eval: the module has no func.func @main")
    env = _bind(main.body.block.args, inputs, "@main")
    for op in main.body.block.ops:
        if isinstance(op, ConstantOp):
            env[op.result] = op.numpy()
        elif isinstance(op, func.CallOp):
            callee = op.callee.root_reference.data
            if callee not in funcs:
                raise TeEvalError(f"@main calls @{callee}, which the module does not define")
            results = run_kernel(funcs[callee], [env[a] for a in op.arguments])
            for result, value in zip(op.results, results, strict=True):
                env[result] = value
        elif isinstance(op, func.ReturnOp):
            return [env[v] for v in op.arguments]
        elif op.name == "graph.reshape":  # (its result's sizes may be the symbols' values)
            env[op.results[0]] = env[op.operands[0]].reshape(_sizes_of(shape_of(op.results[0].type)))  # type: ignore[arg-type]
        elif op.name in MAIN_LEVEL_GRAPH_OPS:
            from minitvm.dialects.graph import reference

            for result, value in zip(op.results, reference.evaluate(op, [env[a] for a in op.operands]), strict=True):
                env[result] = value
        else:
            raise TeEvalError(f"@main: {op.name} is not supported (run convert-graph-to-te first)")
    raise TeEvalError("@main does not end with func.return")


__all__ = ["TeEvalError", "dtype_of", "evaluate_compute", "run_kernel", "run_module"]
