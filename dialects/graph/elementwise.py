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
from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, StringAttr, TensorType, f32, i1
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
    fmt_shape,
    get_str,
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

    #: Whether the op is only defined on floating-point tensors.
    FLOAT_ONLY: ClassVar[bool] = True

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        (type_,) = operand_types
        tensor = as_tensor(cls.name, "input", type_)
        if cls.FLOAT_ONLY and not is_float(tensor.element_type):
            raise ShapeError(f"{cls.name}: input must be a float tensor, got {tensor}")
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
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "graph.abs"
    FLOAT_ONLY: ClassVar[bool] = False


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
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class CastOp(GraphOp):
    """Convert the element type; the shape is unchanged.

    %1 = graph.cast %0 : tensor<4xi64> to tensor<4xf32>
    """

    name = "graph.cast"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    @classmethod
    def make(cls, input: SSAValue, *, to: Attribute) -> CastOp:  # type: ignore[override]
        source = as_tensor(cls.name, "input", input.type)
        return cls.create_with([input], [tensor_type(shape_of(source), to)], {})

    def verify_(self) -> None:
        source = as_tensor(self.name, "input", self.input.type)
        target = as_tensor(self.name, "result", self.result.type)
        if shape_of(source) != shape_of(target):
            raise ShapeError(
                f"graph.cast: cannot change the shape ({fmt_shape(shape_of(source))} to "
                f"{fmt_shape(shape_of(target))}); use graph.reshape"
            )
        for type_ in (source.element_type, target.element_type):
            if type_ not in NUMPY_DTYPES:
                raise ShapeError(f"graph.cast: element type {type_} is not supported")


# --------------------------------------------------------------------------------------------
# Binary, numpy broadcasting
# --------------------------------------------------------------------------------------------


class BinaryOp(GraphOp):
    """z = f(x, y) elementwise with numpy broadcasting; both operands share an element type."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    FLOAT_ONLY: ClassVar[bool] = False

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
        if cls.FLOAT_ONLY and not is_float(lhs.element_type):
            raise ShapeError(f"{cls.name}: operands must be float tensors, got {lhs}")
        shape = broadcast_shapes(cls.name, shape_of(lhs), shape_of(rhs))
        return [tensor_type(shape, cls.result_element_type(lhs.element_type))]


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
    name = "graph.pow"
    FLOAT_ONLY: ClassVar[bool] = True


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
            raise ShapeError(f"graph.prelu: input and slope must be float tensors of one type")
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
    HardSwishOp, GeluOp, LeakyReluOp, HardSigmoidOp, ClipOp, CastOp,
    AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, EqualOp, LessOp, GreaterOp,
    PReluOp, WhereOp,
]  # fmt: skip
