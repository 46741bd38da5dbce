"""arith and math ops -> llvm dialect, on scalars and on vectors alike.

`LOWERINGS` maps an op class to a function `(emitter, op, operands) -> result`, operands and
result being llvm-dialect values. Most ops are one llvm op or intrinsic. The expansions:

- `arith.floordivsi`, `arith.ceildivsi`, `arith.ceildivui`: a division plus a correction
  computed from the remainder (no branches, so they vectorize);
- `arith.maximumf`/`minimumf` -> `llvm.maximum`/`llvm.minimum` (NaN-propagating, as in MLIR);
  `arith.maxnumf`/`minnumf` -> `llvm.intr.maxnum`/`minnum`;
- `arith.cmpf` with predicate `false`/`true` -> a constant;
- `math.erf` on f32 (and f16, through f32): the rational approximation Eigen and XLA use
  (x clamped to [-4, 4], erf = x * P(x^2) / Q(x^2)): at most 4.5e-7 relative error against
  the exact erf, and one code path for scalars and vectors, so vectorizing a loop does not
  change its results. On f64 it calls libm's `erf`.
- `math.tanh` on f32 (and f16, through f32): Cephes' tanhf on the exp below, vector code
  (on f64 the intrinsic).
- `math.tan`, `asin`, `acos`, `atan`, `atan2`, `sinh`, `cosh`, `log10`, `round`,
  `roundeven`, `trunc` -> LLVM intrinsics; `log1p`, `expm1`, `cbrt`, `asinh`, `acosh`,
  `atanh` -> libm calls (one per lane on vectors). Note LLVM itself turns most
  transcendental intrinsics into libm calls, one per lane on vectors (exp, log, tanh, pow...).
- `math.exp` on f32 (and f16, through f32): range reduction to [-ln2/2, ln2/2] and Cephes'
  polynomial, 2^n built in the exponent bits (~1 ulp, subnormal results included),
  again one code path for scalars and vectors; on f64 the intrinsic (libm).
- `math.rsqrt` -> 1 / sqrt.

Index arithmetic gets `nsw` (addresses never wrap) and folds when its operands are known.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects import arith, llvm, math
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    f16,
    f32,
    f64,
    i1,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from minitvm.dialects.arith_ext import RemFOp
from minitvm.dialects.llvm_ext import FCmpOp, FPToSIOp, FPToUIOp, SelectOp, UIToFPOp
from minitvm.lowering.loop_to_llvm.emitter import (
    Emitter,
    LoweringError,
    element_of,
    llvm_type,
    with_element,
)

Lowering = Callable[[Emitter, Any, list[SSAValue]], SSAValue]

LOWERINGS: dict[type[Operation], Lowering] = {}


def lowering(*op_types: type[Operation]) -> Callable[[Lowering], Lowering]:
    def register(fn: Lowering) -> Lowering:
        for op_type in op_types:
            LOWERINGS[op_type] = fn
        return fn

    return register


def _result_type(op: Operation) -> Attribute:
    return llvm_type(op.results[0].type)


def bf16_bits(value: float) -> int:
    """The bits of `value` as a bf16 (rounded to nearest even), as a signed 16-bit integer:
    what an i16 constant standing for a bf16 holds."""
    bits = int(np.array(value, ml_dtypes.bfloat16).view(np.int16))
    return bits


# --------------------------------------------------------------------------------------------
# arith
# --------------------------------------------------------------------------------------------


@lowering(arith.ConstantOp)
def _constant(em: Emitter, op: arith.ConstantOp, args: list[SSAValue]) -> SSAValue:
    type_ = _result_type(op)
    value = op.value
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(
        element_of(op.results[0].type), BFloat16Type
    ):
        bits = [bf16_bits(v) for v in value.get_values()]
        attr: Attribute = DenseIntOrFPElementsAttr.from_list(type_, bits)
    elif isinstance(value, DenseIntOrFPElementsAttr):
        attr = DenseIntOrFPElementsAttr.from_list(type_, list(value.get_values()))
    elif isinstance(value, IntegerAttr):
        attr = IntegerAttr(value.value.data, type_)
    elif isinstance(value, FloatAttr) and isinstance(value.type, BFloat16Type):
        attr = IntegerAttr(bf16_bits(value.value.data), type_)
    elif isinstance(value, FloatAttr):
        attr = FloatAttr(value.value.data, type_)
    else:
        raise LoweringError(f"convert-loop-to-llvm: unsupported constant {value}")
    return em.const_attr(attr, type_)


_OVERFLOW_OPS: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.ShLIOp: llvm.ShlOp,
}
_FOLDING = {arith.AddiOp: Emitter.add, arith.SubiOp: Emitter.sub, arith.MuliOp: Emitter.mul}


@lowering(*_OVERFLOW_OPS)
def _overflow_binop(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    assert isinstance(op, arith.SignlessIntegerBinaryOperationWithOverflow)
    if isinstance(op.result.type, IndexType):
        fold = _FOLDING.get(type(op))
        if fold is not None:
            return fold(em, args[0], args[1])
    flags = {llvm.OverflowFlag(f.value) for f in op.overflow_flags.data}
    if isinstance(element_of(op.result.type), IndexType):
        flags.add(llvm.OverflowFlag.NO_SIGNED_WRAP)
    llvm_op = _OVERFLOW_OPS[type(op)]
    return em.value(llvm_op(args[0], args[1], overflow=llvm.OverflowAttr(sorted(flags) or None)))


_INT_BINOPS: dict[type[Operation], type[Operation]] = {
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.ShRUIOp: llvm.LShrOp,
}


@lowering(*_INT_BINOPS)
def _int_binop(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    return em.value(_INT_BINOPS[type(op)](args[0], args[1]))


def _zext_mask(em: Emitter, mask: SSAValue, type_: Attribute) -> SSAValue:
    return em.value(llvm.ZExtOp(mask, type_))


@lowering(arith.FloorDivSIOp, arith.CeilDivSIOp)
def _signed_round_div(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    # q = a / b truncates toward zero; floor needs q - 1 and ceil q + 1 when the remainder
    # is non-zero and the exact quotient is negative / positive (signs of r and b differ /
    # agree).
    a, b = args
    type_ = a.type
    zero = em.const(0, type_)
    q = em.value(llvm.SDivOp(a, b))
    r = em.value(llvm.SRemOp(a, b))
    inexact = em.value(llvm.ICmpOp(r, zero, icmp_predicate("ne")))
    sign = em.value(llvm.XOrOp(r, b))
    floor = isinstance(op, arith.FloorDivSIOp)
    direction = em.value(llvm.ICmpOp(sign, zero, icmp_predicate("slt" if floor else "sge")))
    adjust = _zext_mask(em, em.value(llvm.AndOp(inexact, direction)), type_)
    return em.value((llvm.SubOp if floor else llvm.AddOp)(q, adjust))


@lowering(arith.CeilDivUIOp)
def _ceildivui(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    a, b = args
    q = em.value(llvm.UDivOp(a, b))
    r = em.value(llvm.URemOp(a, b))
    inexact = em.value(llvm.ICmpOp(r, em.const(0, a.type), icmp_predicate("ne")))
    return em.value(llvm.AddOp(q, _zext_mask(em, inexact, a.type)))


_INT_INTRINSICS = {
    arith.MinSIOp: "smin",
    arith.MaxSIOp: "smax",
    arith.MinUIOp: "umin",
    arith.MaxUIOp: "umax",
    arith.MaximumfOp: "maximum",
    arith.MinimumfOp: "minimum",
}


@lowering(*_INT_INTRINSICS)
def _binary_intrinsic(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    return _call(em, _INT_INTRINSICS[type(op)], args, _result_type(op))


_FLOAT_BINOPS: dict[type[Operation], type[Operation]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
    RemFOp: llvm.FRemOp,  # C's fmod: LLVM calls libm's fmodf (per lane on vectors)
}


@lowering(*_FLOAT_BINOPS)
def _float_binop(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    assert isinstance(op, arith.FloatingPointLikeBinaryOperation)
    fastmath = llvm.FastMathAttr(op.fastmath.data)
    return em.value(_FLOAT_BINOPS[type(op)](args[0], args[1], fastmath))


@lowering(arith.NegfOp)
def _negf(em: Emitter, op: arith.NegfOp, args: list[SSAValue]) -> SSAValue:
    return em.value(llvm.FNegOp(args[0], llvm.FastMathAttr(op.fastmath.data)))


@lowering(arith.MaxnumfOp)
def _maxnumf(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    return em.value(llvm.VectorFMaxOp(args[0], args[1]))


@lowering(arith.MinnumfOp)
def _minnumf(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    return em.value(llvm.VectorFMinOp(args[0], args[1]))


def icmp_predicate(predicate: str) -> IntegerAttr:
    """The `predicate` property of llvm.icmp for a predicate name ("slt", "ne", ...)."""
    return IntegerAttr(llvm.ICmpPredicateFlag(predicate).to_int(), i64)


@lowering(arith.CmpiOp)
def _cmpi(em: Emitter, op: arith.CmpiOp, args: list[SSAValue]) -> SSAValue:
    predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    return em.value(llvm.ICmpOp(args[0], args[1], icmp_predicate(predicate)))


@lowering(arith.CmpfOp)
def _cmpf(em: Emitter, op: arith.CmpfOp, args: list[SSAValue]) -> SSAValue:
    predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    if predicate in ("false", "true"):
        return em.const(predicate == "true", _result_type(op))
    return em.value(FCmpOp(args[0], args[1], predicate))


@lowering(arith.SelectOp)
def _select(em: Emitter, op: arith.SelectOp, args: list[SSAValue]) -> SSAValue:
    return em.value(SelectOp(*args))


def _width(type_: Attribute) -> int:
    element = element_of(type_)
    assert isinstance(element, IntegerType)
    return element.width.data


@lowering(arith.IndexCastOp)
def _index_cast(em: Emitter, op: arith.IndexCastOp, args: list[SSAValue]) -> SSAValue:
    (arg,) = args
    target = _result_type(op)
    if _width(arg.type) == _width(target):
        return arg
    if arg in em.known_ints and not isinstance(target, VectorType):
        return em.const(em.known_ints[arg], target)
    if _width(arg.type) < _width(target):
        return em.value(llvm.SExtOp(arg, target))
    return em.value(llvm.TruncOp(arg, target))


_CASTS: dict[type[Operation], type[Operation]] = {
    arith.FPToSIOp: FPToSIOp,
    arith.FPToUIOp: FPToUIOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.UIToFPOp: UIToFPOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.BitcastOp: llvm.BitcastOp,
}


@lowering(*_CASTS)
def _cast(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    target = _result_type(op)
    if isinstance(op, arith.ExtFOp) and isinstance(element_of(op.operands[0].type), BFloat16Type):
        return _bf16_to_f32(em, args[0], target)
    if isinstance(op, arith.TruncFOp) and isinstance(element_of(op.results[0].type), BFloat16Type):
        return _f32_to_bf16(em, args[0])
    if args[0].type == target:  # e.g. a bitcast between ui8 and i8
        return args[0]
    if isinstance(op, arith.TruncFOp) and _is_f64_to_f16(args[0].type, target):
        # LLVM calls compiler-rt's __truncdfhf2 for this, which MCJIT cannot resolve; via f32
        # both steps are instructions (the double rounding is below f16's precision anyway).
        narrow = with_element(args[0].type, f32)
        args = [em.value(llvm.FPTruncOp(args[0], narrow))]
    return em.value(_CASTS[type(op)](args[0], target))


def _bf16_to_f32(em: Emitter, bits: SSAValue, target: Attribute) -> SSAValue:
    """bf16 is f32's upper 16 bits: widen, shift into place, reinterpret (exact)."""
    wide = em.value(llvm.ZExtOp(bits, with_element(bits.type, i32)))
    shifted = em.value(llvm.ShlOp(wide, em.const(16, wide.type)))
    return em.value(llvm.BitcastOp(shifted, target))


def _f32_to_bf16(em: Emitter, x: SSAValue) -> SSAValue:
    """f32 -> bf16 bits, rounding to nearest even (add 0x7FFF plus the lowest kept bit, keep
    the upper half); a NaN becomes the quiet NaN 0x7FC0, as numpy's ml_dtypes does. No
    branches, so scalars and vectors share it."""
    i32_type = with_element(x.type, i32)
    bits = em.value(llvm.BitcastOp(x, i32_type))
    odd = em.value(llvm.AndOp(em.value(llvm.LShrOp(bits, em.const(16, i32_type))),
                              em.const(1, i32_type)))  # fmt: skip
    bias = em.value(llvm.AddOp(odd, em.const(0x7FFF, i32_type)))
    rounded = em.value(llvm.LShrOp(em.value(llvm.AddOp(bits, bias)), em.const(16, i32_type)))
    nan = em.value(FCmpOp(x, x, "uno"))
    kept = em.value(SelectOp(nan, em.const(0x7FC0, i32_type), rounded))
    return em.value(llvm.TruncOp(kept, with_element(x.type, i16)))


def _is_f64_to_f16(source: Attribute, target: Attribute) -> bool:
    return element_of(source) == f64 and element_of(target) == f16


# --------------------------------------------------------------------------------------------
# math
# --------------------------------------------------------------------------------------------

_UNARY_OPS: dict[type[Operation], Callable[[SSAValue], Operation]] = {
    math.AbsFOp: lambda x: llvm.FAbsOp(x, x.type),
    math.Exp2Op: llvm.FExp2Op,
    math.LogOp: llvm.FLogOp,
    math.Log2Op: llvm.FLog2Op,
    math.SqrtOp: llvm.FSqrtOp,
    math.FloorOp: llvm.FFloorOp,
    math.CeilOp: llvm.FCeilOp,
    math.SinOp: llvm.FSinOp,
    math.CosOp: llvm.FCosOp,
}


@lowering(*_UNARY_OPS)
def _unary(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    return em.value(_UNARY_OPS[type(op)](args[0]))


_BINARY_OPS: dict[type[Operation], Callable[[SSAValue, SSAValue], Operation]] = {
    math.PowFOp: llvm.FPowOp,
    math.CopySignOp: llvm.FCopySignOp,
}


@lowering(*_BINARY_OPS)
def _binary(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    return em.value(_BINARY_OPS[type(op)](args[0], args[1]))


@lowering(math.FmaOp)
def _fma(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    return em.value(llvm.FMAOp(*args))


_INTRINSICS: dict[type[Operation], str] = {
    math.TanOp: "tan",
    math.AsinOp: "asin",
    math.AcosOp: "acos",
    math.AtanOp: "atan",
    math.Atan2Op: "atan2",
    math.SinhOp: "sinh",
    math.CoshOp: "cosh",
    math.Log10Op: "log10",
    math.RoundOp: "round",
    math.RoundEvenOp: "roundeven",
    math.TruncOp: "trunc",
    math.CtPopOp: "ctpop",
}


@lowering(*_INTRINSICS)
def _intrinsic(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    return _call(em, _INTRINSICS[type(op)], args, _result_type(op))


_POISON_FLAG_INTRINSICS: dict[type[Operation], str] = {
    math.AbsIOp: "abs",
    math.CountLeadingZerosOp: "ctlz",
    math.CountTrailingZerosOp: "cttz",
}


@lowering(*_POISON_FLAG_INTRINSICS)
def _int_intrinsic(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    # The i1 operand says whether INT_MIN (abs) or zero (ctlz/cttz) is poison: it is not.
    flag = em.const(0, i1)
    return _call(em, _POISON_FLAG_INTRINSICS[type(op)], [args[0], flag], _result_type(op))


@lowering(math.FPowIOp)
def _fpowi(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    base, exponent = args
    if _width(exponent.type) != 32:
        exponent = em.value(
            (llvm.TruncOp if _width(exponent.type) > 32 else llvm.SExtOp)(
                exponent, with_element(exponent.type, i32)
            )
        )
    result = em.intrinsic("powi", [base, exponent], base.type, [base.type, exponent.type])
    assert result is not None
    return result


_LIBM: dict[type[Operation], str] = {
    math.Log1pOp: "log1p",
    math.ExpM1Op: "expm1",
    math.CbrtOp: "cbrt",
    math.AsinhOp: "asinh",
    math.AcoshOp: "acosh",
    math.AtanhOp: "atanh",
}


@lowering(*_LIBM)
def _libm(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    return em.libm(_LIBM[type(op)], args)


@lowering(math.RsqrtOp)
def _rsqrt(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    (x,) = args
    return em.value(llvm.FDivOp(em.const(1.0, x.type), em.value(llvm.FSqrtOp(x))))


# erf(x) ~ x * P(x^2) / Q(x^2) on [-4, 4] (Eigen's generic_fast_erf_float, also XLA and TVM).
_ERF_P = (
    -2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
    -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02,
)  # fmt: skip
_ERF_Q = (
    -1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03,
    -1.42647390514189e-02,
)  # fmt: skip


def _horner(em: Emitter, x: SSAValue, coefficients: tuple[float, ...]) -> SSAValue:
    acc = em.const(coefficients[0], x.type)
    for c in coefficients[1:]:
        acc = em.value(llvm.FMAOp(acc, x, em.const(c, x.type)))
    return acc


@lowering(math.ErfOp)
def _erf(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    (x,) = args
    element = element_of(x.type)
    if isinstance(element, Float64Type):
        return em.libm("erf", [x])
    if not isinstance(element, Float32Type):
        assert isinstance(element, Float16Type)
        wide = em.value(llvm.FPExtOp(x, with_element(x.type, f32)))
        return em.value(llvm.FPTruncOp(_erf(em, op, [wide]), x.type))
    # llvm.maximum/minimum keep NaN (erf(NaN) = NaN); beyond 4, erf is 1 to f32 precision.
    clamped = _call(em, "maximum", [x, em.const(-4.0, x.type)], x.type)
    clamped = _call(em, "minimum", [clamped, em.const(4.0, x.type)], x.type)
    x2 = em.value(llvm.FMulOp(clamped, clamped))
    p = em.value(llvm.FMulOp(clamped, _horner(em, x2, _ERF_P)))
    return em.value(llvm.FDivOp(p, _horner(em, x2, _ERF_Q)))


# exp(x) = 2^n * exp(r), n = round(x / ln 2), r = x - n ln 2 (ln 2 split in two for an exact
# product), exp(r) on [-ln2/2, ln2/2] by Cephes' degree-7 polynomial (expf's, also in Eigen's
# pexp): ~1 ulp. 2^n is built in the exponent bits.
_EXP_P = (
    1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
    5.0000001201e-1,
)  # fmt: skip
_LN2_HI, _LN2_LO = 0.693359375, -2.12194440e-4
_EXP_MAX = 88.72283905206835  # above: +inf
_EXP_MIN = -103.97208  # below: 0 (under half the smallest subnormal)


@lowering(math.ExpOp)
def _exp(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    """exp without libm: libm's expf is one call per lane of a vector (softmax and sigmoid
    were bound by it); this is straight-line vector code, the same for scalars and vectors."""
    (x,) = args
    element = element_of(x.type)
    if isinstance(element, Float64Type):
        return em.value(llvm.FExpOp(x))
    if not isinstance(element, Float32Type):
        assert isinstance(element, Float16Type)
        wide = em.value(llvm.FPExtOp(x, with_element(x.type, f32)))
        return em.value(llvm.FPTruncOp(_exp(em, op, [wide]), x.type))
    clamped = _call(em, "maximum", [x, em.const(_EXP_MIN, x.type)], x.type)
    clamped = _call(em, "minimum", [clamped, em.const(_EXP_MAX, x.type)], x.type)
    n = em.value(llvm.FFloorOp(em.value(llvm.FMAOp(clamped, em.const(1.4426950408889634, x.type), em.const(0.5, x.type)))))
    r = em.value(llvm.FMAOp(n, em.const(-_LN2_HI, x.type), clamped))
    r = em.value(llvm.FMAOp(n, em.const(-_LN2_LO, x.type), r))
    p = em.value(llvm.FMulOp(em.value(llvm.FMulOp(r, r)), _horner(em, r, _EXP_P)))
    p = em.value(llvm.FAddOp(em.value(llvm.FAddOp(p, r)), em.const(1.0, x.type)))
    # 2^n as 2^h * 2^(n-h), h = n >> 1: both factors stay normal for n in [-150, 128], so
    # results near the overflow edge stay finite and subnormal results come out right.
    ints = with_element(x.type, i32)
    whole = em.value(FPToSIOp(n, ints))
    half = em.value(llvm.AShrOp(whole, em.const(1, ints)))
    y = p
    for part in (half, em.value(llvm.SubOp(whole, half))):
        bits = em.value(llvm.ShlOp(em.value(llvm.AddOp(part, em.const(127, ints))), em.const(23, ints)))
        y = em.value(llvm.FMulOp(y, em.value(llvm.BitcastOp(bits, x.type))))
    # What the clamp cut off becomes inf and 0 again; NaN (whose 2^n was meaningless) stays NaN.
    y = em.value(SelectOp(em.value(FCmpOp(x, em.const(_EXP_MAX, x.type), "ogt")), em.const(float("inf"), x.type), y))
    y = em.value(SelectOp(em.value(FCmpOp(x, em.const(_EXP_MIN, x.type), "olt")), em.const(0.0, x.type), y))
    return em.value(SelectOp(em.value(FCmpOp(x, x, "uno")), x, y))


#: Cephes' tanhf polynomial for |x| < 0.625: tanh x = x + x^3 P(x^2).
_TANH_P = (-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1,
           -3.33332819422e-1)  # fmt: skip


@lowering(math.TanhOp)
def _tanh(em: Emitter, op: Operation, args: list[SSAValue]) -> SSAValue:
    """tanh without libm on f32 (f16 through f32): LLVM's intrinsic is one libm call per
    lane, 38x ONNX Runtime's time on a vector of 16K (an LSTM step spent most of its gate
    math there). Cephes' tanhf: 1 - 2 / (exp(2|x|) + 1) with the sign of x where |x| >= 0.625,
    x + x^3 P(x^2) below (where the first form would cancel); both computed, one selected,
    so scalars and vectors run the same code. Large |x| gives +-1 (exp overflows to inf),
    NaN stays NaN. f64 calls libm."""
    (x,) = args
    element = element_of(x.type)
    if isinstance(element, Float64Type):
        return _call(em, "tanh", [x], x.type)
    if not isinstance(element, Float32Type):
        assert isinstance(element, Float16Type)
        wide = em.value(llvm.FPExtOp(x, with_element(x.type, f32)))
        return em.value(llvm.FPTruncOp(_tanh(em, op, [wide]), x.type))
    magnitude = _call(em, "fabs", [x], x.type)
    z = _exp(em, op, [em.value(llvm.FAddOp(magnitude, magnitude))])
    two = em.const(2.0, x.type)
    large = em.value(llvm.FSubOp(em.const(1.0, x.type),
                                 em.value(llvm.FDivOp(two, em.value(llvm.FAddOp(z, em.const(1.0, x.type)))))))  # fmt: skip
    square = em.value(llvm.FMulOp(magnitude, magnitude))
    small = em.value(llvm.FMAOp(em.value(llvm.FMulOp(_horner(em, square, _TANH_P), square)),
                                magnitude, magnitude))  # fmt: skip
    near_zero = em.value(FCmpOp(magnitude, em.const(0.625, x.type), "olt"))
    # both forms computed on |x|, the sign put back last (tanh(-0) = -0)
    return em.value(llvm.FCopySignOp(em.value(SelectOp(near_zero, small, large)), x))


def _call(em: Emitter, name: str, args: list[SSAValue], result_type: Attribute) -> SSAValue:
    result = em.intrinsic(name, args, result_type)
    assert result is not None
    return result
