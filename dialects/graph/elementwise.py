"""Elementwise graph ops: unary math, binary arithmetic with numpy broadcasting, comparisons.

    %1 = graph.relu %0 : tensor<1x64x56x56xf32>
    %2 = graph.leaky_relu %1 {alpha = 1.000000e-01 : f32} : tensor<1x64x56x56xf32>
    %3 = graph.add %2, %b : (tensor<1x64x56x56xf32>, tensor<64x1x1xf32>) -> tensor<1x64x56x56xf32>
    %4 = graph.less %3, %c : (tensor<1x64x56x56xf32>, tensor<f32>) -> tensor<1x64x56x56xi1>
    %5 = graph.cast %4 : tensor<1x64x56x56xi1> to tensor<1x64x56x56xf32>

These are the ops the fusion passes fold into a producer's epilogue, so they carry no
layout or shape logic beyond broadcasting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import (
    I64,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    f32,
    i1,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
)

from minitvm.dialects.graph.base import (
    GraphOp,
    Props,
    ShapeError,
    as_tensor,
    broadcast_shapes,
    check_elements,
    fmt_shape,
    get_float,
    get_int,
    get_str,
    int_attr,
    is_bool,
    is_float,
    shape_of,
    tensor_type,
)
from minitvm.dialects.graph.constant import NUMPY_DTYPES

# --------------------------------------------------------------------------------------------
# Unary
# --------------------------------------------------------------------------------------------


class UnaryOp(GraphOp):
    """y = f(x) elementwise; the result type equals the operand type."""

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)

    assembly_format = "$input attr-dict `:` type($input)"

    #: The element kind the op is defined on (ELEMENT_KINDS).
    ELEMENTS: ClassVar[str] = "float"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        (type_,) = operand_types
        tensor = as_tensor(cls.name, "input", type_)
        check_elements(cls.name, "input", tensor, cls.ELEMENTS)
        cls.check_props(props)
        return [tensor]

    @classmethod
    def check_props(cls, props: Props) -> None:
        """Hook for ops whose properties have invariants of their own."""


@irdl_op_definition
class ReluOp(UnaryOp):
    """max(x, 0)"""

    name = "graph.relu"


@irdl_op_definition
class SigmoidOp(UnaryOp):
    """1 / (1 + exp(-x))"""

    name = "graph.sigmoid"


@irdl_op_definition
class TanhOp(UnaryOp):
    name = "graph.tanh"


@irdl_op_definition
class ErfOp(UnaryOp):
    name = "graph.erf"


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "graph.exp"


@irdl_op_definition
class LogOp(UnaryOp):
    name = "graph.log"


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "graph.sqrt"


@irdl_op_definition
class ReciprocalOp(UnaryOp):
    name = "graph.reciprocal"


@irdl_op_definition
class NegOp(UnaryOp):
    name = "graph.neg"
    ELEMENTS: ClassVar[str] = "numeric"


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "graph.abs"
    ELEMENTS: ClassVar[str] = "numeric"


@irdl_op_definition
class HardSwishOp(UnaryOp):
    """x * max(0, min(1, x / 6 + 1 / 2))"""

    name = "graph.hard_swish"


@irdl_op_definition
class GeluOp(UnaryOp):
    """x * Phi(x); `approximate = "tanh"` selects the tanh formula instead of erf."""

    name = "graph.gelu"
    approximate = opt_prop_def(StringAttr, default_value=StringAttr("none"))

    @classmethod
    def check_props(cls, props: Props) -> None:
        if (mode := get_str(props, "approximate", "none")) not in ("none", "tanh"):
            raise ShapeError(f"graph.gelu: approximate must be \"none\" or \"tanh\", got \"{mode}\"")


@irdl_op_definition
class LeakyReluOp(UnaryOp):
    """x if x >= 0 else alpha * x"""

    name = "graph.leaky_relu"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(0.01, f32))


@irdl_op_definition
class HardSigmoidOp(UnaryOp):
    """max(0, min(1, alpha * x + beta))"""

    name = "graph.hard_sigmoid"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(0.2, f32))
    beta = opt_prop_def(FloatAttr, default_value=FloatAttr(0.5, f32))


@irdl_op_definition
class ClipOp(UnaryOp):
    """min(max(x, min), max); either bound may be absent."""

    name = "graph.clip"
    min = opt_prop_def(FloatAttr)
    max = opt_prop_def(FloatAttr)
    ELEMENTS: ClassVar[str] = "numeric"


# Float math that maps onto one math-dialect function each.


@irdl_op_definition
class SinOp(UnaryOp):
    name = "graph.sin"


@irdl_op_definition
class CosOp(UnaryOp):
    name = "graph.cos"


@irdl_op_definition
class TanOp(UnaryOp):
    name = "graph.tan"


@irdl_op_definition
class AsinOp(UnaryOp):
    name = "graph.asin"


@irdl_op_definition
class AcosOp(UnaryOp):
    name = "graph.acos"


@irdl_op_definition
class AtanOp(UnaryOp):
    name = "graph.atan"


@irdl_op_definition
class SinhOp(UnaryOp):
    name = "graph.sinh"


@irdl_op_definition
class CoshOp(UnaryOp):
    name = "graph.cosh"


@irdl_op_definition
class AsinhOp(UnaryOp):
    name = "graph.asinh"


@irdl_op_definition
class AcoshOp(UnaryOp):
    name = "graph.acosh"


@irdl_op_definition
class AtanhOp(UnaryOp):
    name = "graph.atanh"


@irdl_op_definition
class CeilOp(UnaryOp):
    name = "graph.ceil"


@irdl_op_definition
class FloorOp(UnaryOp):
    name = "graph.floor"


@irdl_op_definition
class RoundOp(UnaryOp):
    """Round half to even (ONNX Round, numpy's rint)."""

    name = "graph.round"


@irdl_op_definition
class SignOp(UnaryOp):
    """-1, 0 or 1 by the sign of x; NaN stays NaN."""

    name = "graph.sign"
    ELEMENTS: ClassVar[str] = "numeric"


# Activations with a formula of their own (docs/graph_ops.md gives each).


@irdl_op_definition
class SoftplusOp(UnaryOp):
    """log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)) so it neither overflows
    nor loses small results."""

    name = "graph.softplus"


@irdl_op_definition
class SoftsignOp(UnaryOp):
    """x / (1 + |x|)"""

    name = "graph.softsign"


@irdl_op_definition
class MishOp(UnaryOp):
    """x * tanh(softplus(x))"""

    name = "graph.mish"


@irdl_op_definition
class EluOp(UnaryOp):
    """x if x >= 0 else alpha * (exp(x) - 1)"""

    name = "graph.elu"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))


@irdl_op_definition
class SeluOp(UnaryOp):
    """gamma * (x if x > 0 else alpha * (exp(x) - 1))"""

    name = "graph.selu"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(1.67326319217681884765625, f32))
    gamma = opt_prop_def(FloatAttr, default_value=FloatAttr(1.05070102214813232421875, f32))


@irdl_op_definition
class CeluOp(UnaryOp):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha must not be 0."""

    name = "graph.celu"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))

    @classmethod
    def check_props(cls, props: Props) -> None:
        if get_float(props, "alpha", 1.0) == 0.0:
            raise ShapeError("graph.celu: alpha must not be 0 (the formula divides by it)")


@irdl_op_definition
class ThresholdedReluOp(UnaryOp):
    """x if x > alpha else 0"""

    name = "graph.thresholded_relu"
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))


@irdl_op_definition
class ShrinkOp(UnaryOp):
    """x + bias if x < -lambd, x - bias if x > lambd, else 0 (on any numeric type)."""

    name = "graph.shrink"
    bias = opt_prop_def(FloatAttr, default_value=FloatAttr(0.0, f32))
    lambd = opt_prop_def(FloatAttr, default_value=FloatAttr(0.5, f32))
    ELEMENTS: ClassVar[str] = "numeric"


# Logic and bits on one operand.


@irdl_op_definition
class NotOp(UnaryOp):
    """Logical not of a boolean tensor."""

    name = "graph.not"
    ELEMENTS: ClassVar[str] = "bool"


@irdl_op_definition
class BitwiseNotOp(UnaryOp):
    name = "graph.bitwise_not"
    ELEMENTS: ClassVar[str] = "integer"


class UnaryPredicateOp(GraphOp):
    """A per-element test of a float tensor; the result is a boolean (i1) tensor."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        (type_,) = operand_types
        tensor = as_tensor(cls.name, "input", type_)
        check_elements(cls.name, "input", tensor, "float")
        return [tensor_type(shape_of(tensor), i1)]


@irdl_op_definition
class IsNaNOp(UnaryPredicateOp):
    name = "graph.is_nan"


@irdl_op_definition
class IsInfOp(UnaryPredicateOp):
    """Whether x is +inf (if detect_positive) or -inf (if detect_negative)."""

    name = "graph.is_inf"
    detect_positive = opt_prop_def(IntegerAttr[I64], default_value=int_attr(1))
    detect_negative = opt_prop_def(IntegerAttr[I64], default_value=int_attr(1))


class ElementConversionOp(GraphOp):
    """An op that keeps the shape and changes the element type (`make(x, to=type)`); both
    types must be graph element types."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    @classmethod
    def make(cls, input: SSAValue, *, to: Attribute) -> Self:  # type: ignore[override]
        source = as_tensor(cls.name, "input", input.type)
        return cls.create_with([input], [tensor_type(shape_of(source), to)], {})

    def verify_(self) -> None:
        source = as_tensor(self.name, "input", self.input.type)
        target = as_tensor(self.name, "result", self.result.type)
        if shape_of(source) != shape_of(target):
            raise ShapeError(
                f"{self.name}: cannot change the shape ({fmt_shape(shape_of(source))} to "
                f"{fmt_shape(shape_of(target))}); use graph.reshape"
            )
        for type_ in (source.element_type, target.element_type):
            if type_ not in NUMPY_DTYPES:
                raise ShapeError(f"{self.name}: element type {type_} is not supported")


@irdl_op_definition
class CastOp(ElementConversionOp):
    """Convert the element type; the shape is unchanged.

    %1 = graph.cast %0 : tensor<4xi64> to tensor<4xf32>
    """

    name = "graph.cast"


def storage_bits(type_: Attribute) -> int | None:
    """The bits an element of `type_` is stored in (an i1 in one byte, as ONNX stores a
    bool), or None for a type with no width."""
    if is_bool(type_):
        return 8
    width = getattr(type_, "bitwidth", None)
    return width if isinstance(width, int) else None


@irdl_op_definition
class BitcastOp(ElementConversionOp):
    """Reinterpret each element's bits as another type of the same width (ONNX BitCast):
    f32 <-> i32 <-> ui32, f16 <-> i16, i8 <-> ui8, ... An i1 is a byte, 0 or 1, as ONNX
    stores a bool; a byte read as i1 is true when it is not zero.

    %1 = graph.bitcast %0 : tensor<4xf32> to tensor<4xi32>
    """

    name = "graph.bitcast"

    def verify_(self) -> None:
        super().verify_()
        source, target = self.input.type, self.result.type
        bits = [storage_bits(t.element_type) for t in (source, target)]  # type: ignore[attr-defined]
        if bits[0] != bits[1]:
            raise ShapeError(
                f"graph.bitcast: {source.element_type} has {bits[0]} bits but "
                f"{target.element_type} has {bits[1]}; the widths must agree"
            )


# --------------------------------------------------------------------------------------------
# Binary, numpy broadcasting
# --------------------------------------------------------------------------------------------


class BinaryOp(GraphOp):
    """z = f(x, y) elementwise with numpy broadcasting; both operands share an element type."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    ELEMENTS: ClassVar[str] = "any"

    @classmethod
    def result_element_type(cls, operand_element_type: Attribute) -> Attribute:
        return operand_element_type

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        lhs, rhs = (as_tensor(cls.name, n, t) for n, t in zip(("lhs", "rhs"), operand_types))
        if lhs.element_type != rhs.element_type:
            raise ShapeError(
                f"{cls.name}: operands have different element types "
                f"({lhs.element_type} and {rhs.element_type}); insert a graph.cast"
            )
        check_elements(cls.name, "each operand", lhs, cls.ELEMENTS)
        cls.check_props(props)
        shape = broadcast_shapes(cls.name, shape_of(lhs), shape_of(rhs))
        return [tensor_type(shape, cls.result_element_type(lhs.element_type))]

    @classmethod
    def check_props(cls, props: Props) -> None:
        """Hook for ops whose properties have invariants of their own."""


@irdl_op_definition
class AddOp(BinaryOp):
    name = "graph.add"


@irdl_op_definition
class SubOp(BinaryOp):
    name = "graph.sub"


@irdl_op_definition
class MulOp(BinaryOp):
    name = "graph.mul"


@irdl_op_definition
class DivOp(BinaryOp):
    """x / y; integer division truncates toward zero, as ONNX specifies."""

    name = "graph.div"


@irdl_op_definition
class PowOp(BinaryOp):
    """x ** y; the exponent may have its own numeric element type (ONNX's Pow does), the
    result has the base's. An integer base is raised in f64 and truncated back."""

    name = "graph.pow"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        base, exponent = (
            as_tensor(cls.name, n, t) for n, t in zip(("base", "exponent"), operand_types)
        )
        check_elements(cls.name, "base", base, "numeric")
        check_elements(cls.name, "exponent", exponent, "numeric")
        shape = broadcast_shapes(cls.name, shape_of(base), shape_of(exponent))
        return [tensor_type(shape, base.element_type)]


@irdl_op_definition
class MaxOp(BinaryOp):
    name = "graph.max"


@irdl_op_definition
class MinOp(BinaryOp):
    name = "graph.min"


class CompareOp(BinaryOp):
    """A broadcasting comparison; the result is a boolean (i1) tensor."""

    @classmethod
    def result_element_type(cls, operand_element_type: Attribute) -> Attribute:
        return i1


@irdl_op_definition
class EqualOp(CompareOp):
    name = "graph.equal"


@irdl_op_definition
class LessOp(CompareOp):
    name = "graph.less"


@irdl_op_definition
class GreaterOp(CompareOp):
    name = "graph.greater"


@irdl_op_definition
class GreaterEqualOp(CompareOp):
    name = "graph.greater_equal"


@irdl_op_definition
class LessEqualOp(CompareOp):
    name = "graph.less_equal"


@irdl_op_definition
class ModOp(BinaryOp):
    """Remainder of x / y, on any numeric type. fmod = 0: with the sign of the divisor
    (Python's %, numpy's mod); fmod = 1: with the sign of the dividend (C's fmod). An
    integer remainder by 0 is 0 (numpy's), where C would trap."""

    name = "graph.mod"
    fmod = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    ELEMENTS: ClassVar[str] = "numeric"

    @classmethod
    def check_props(cls, props: Props) -> None:
        if get_int(props, "fmod", 0) not in (0, 1):
            raise ShapeError(f"graph.mod: fmod must be 0 or 1, got {get_int(props, 'fmod')}")


class LogicalOp(BinaryOp):
    """Elementwise boolean logic on i1 tensors."""

    ELEMENTS: ClassVar[str] = "bool"


@irdl_op_definition
class AndOp(LogicalOp):
    name = "graph.and"


@irdl_op_definition
class OrOp(LogicalOp):
    name = "graph.or"


@irdl_op_definition
class XorOp(LogicalOp):
    name = "graph.xor"


class BitwiseOp(BinaryOp):
    """Elementwise bit operations on integer tensors."""

    ELEMENTS: ClassVar[str] = "integer"


@irdl_op_definition
class BitwiseAndOp(BitwiseOp):
    name = "graph.bitwise_and"


@irdl_op_definition
class BitwiseOrOp(BitwiseOp):
    name = "graph.bitwise_or"


@irdl_op_definition
class BitwiseXorOp(BitwiseOp):
    name = "graph.bitwise_xor"


@irdl_op_definition
class BitShiftOp(BitwiseOp):
    """x << y or x >> y (`direction` "left" or "right"); a right shift of a signed type is
    arithmetic, and a shift by the bit width or more gives 0 (or -1 for a negative signed x
    shifted right), as ONNX Runtime does."""

    name = "graph.bit_shift"
    direction = opt_prop_def(StringAttr, default_value=StringAttr("left"))

    @classmethod
    def check_props(cls, props: Props) -> None:
        if (direction := get_str(props, "direction", "left")) not in ("left", "right"):
            raise ShapeError(f'graph.bit_shift: direction must be "left" or "right", got "{direction}"')


@irdl_op_definition
class PReluOp(GraphOp):
    """x if x >= 0 else slope * x; slope broadcasts to x's shape (not the other way)."""

    name = "graph.prelu"
    input = operand_def(TensorType)
    slope = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$input `,` $slope attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x, slope = (as_tensor(cls.name, n, t) for n, t in zip(("input", "slope"), operand_types))
        if not is_float(x.element_type) or slope.element_type != x.element_type:
            raise ShapeError("graph.prelu: input and slope must be float tensors of one type")
        if broadcast_shapes(cls.name, shape_of(x), shape_of(slope)) != shape_of(x):
            raise ShapeError(
                f"graph.prelu: slope of shape {fmt_shape(shape_of(slope))} does not broadcast "
                f"to the input's shape {fmt_shape(shape_of(x))}"
            )
        return [x]


@irdl_op_definition
class WhereOp(GraphOp):
    """cond ? x : y elementwise, broadcasting all three operands."""

    name = "graph.where"
    condition = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        cond, x, y = (
            as_tensor(cls.name, n, t) for n, t in zip(("condition", "lhs", "rhs"), operand_types)
        )
        if not is_bool(cond.element_type):
            raise ShapeError(f"graph.where: condition must be an i1 tensor, got {cond}")
        if x.element_type != y.element_type:
            raise ShapeError(
                f"graph.where: branches have different element types "
                f"({x.element_type} and {y.element_type})"
            )
        shape = broadcast_shapes(cls.name, shape_of(cond), shape_of(x), shape_of(y))
        return [tensor_type(shape, x.element_type)]


ELEMENTWISE_OPS = [
    ReluOp, SigmoidOp, TanhOp, ErfOp, ExpOp, LogOp, SqrtOp, ReciprocalOp, NegOp, AbsOp,
    HardSwishOp, GeluOp, LeakyReluOp, HardSigmoidOp, ClipOp,
    SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp,
    CeilOp, FloorOp, RoundOp, SignOp, SoftplusOp, SoftsignOp, MishOp, EluOp, SeluOp, CeluOp,
    ThresholdedReluOp, ShrinkOp, NotOp, BitwiseNotOp, IsNaNOp, IsInfOp, CastOp, BitcastOp,
    AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, ModOp,
    EqualOp, LessOp, GreaterOp, GreaterEqualOp, LessEqualOp,
    AndOp, OrOp, XorOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, BitShiftOp,
    PReluOp, WhereOp,
]  # fmt: skip
