"""A small Python DSL that builds te.compute bodies: write the math, get the ops.

    relu = compute(x_type, lambda i, j: maximum(X[i, j], 0.0))
    mm = compute(c_type, lambda i, j, k: A[i, k] * B[k, j], reduce=("sum", [K]))

`Expr` wraps an SSA value and appends `arith`/`math`/`te.read` ops to the body being built;
Python numbers become constants of the other operand's type. Index expressions (`index`
type) and scalar expressions share the class; operators pick integer or float ops by type.
This is how `graph_to_te` states each graph op's semantics in a line or two.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import Iterator

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    bf16,
    f16,
    f32,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from minitvm.dialects.arith_ext import RemFOp
from minitvm.dialects.graph.base import Dim, shape_of, tensor_type
from minitvm.symbolic import SymDim
from minitvm.dialects.te import ComputeOp, ReadOp, SizeOp, YieldOp

_blocks: list[Block] = []


def _block() -> Block:
    if not _blocks:
        raise RuntimeError("te expressions can only be built inside compute()")
    return _blocks[-1]


def _emit(op: Operation) -> Expr:
    _block().add_op(op)
    return Expr(op.results[0])


def is_float_type(type_: Attribute) -> bool:
    return isinstance(type_, AnyFloat)


def is_index_type(type_: Attribute) -> bool:
    return isinstance(type_, IndexType)


def is_unsigned(type_: Attribute) -> bool:
    """ui8 and i1 (booleans) compare, divide, widen and convert as unsigned numbers."""
    return isinstance(type_, IntegerType) and (
        type_.signedness.data == Signedness.UNSIGNED or type_.width.data == 1
    )


_UNSIGNED_PREDICATES = {"slt": "ult", "sle": "ule", "sgt": "ugt", "sge": "uge"}


def const(value: float | int | bool | SymDim, type_: Attribute) -> Expr:
    """A constant of `type_` (float, integer, index or i1); a size known only at run time
    is a `te.size`, converted to `type_`."""
    if isinstance(value, SymDim):
        size = _emit(SizeOp(value))
        return size if is_index_type(type_) else cast(size, type_)
    if is_float_type(type_):
        attr = FloatAttr(float(value), type_)  # type: ignore[arg-type]
    elif is_index_type(type_):
        attr = IntegerAttr(int(value), IndexType())
    else:
        assert isinstance(type_, IntegerType)
        if type_.signedness.data == Signedness.UNSIGNED:
            # arith.constant takes signless integers only: the same bits, then a bitcast.
            signless = IntegerType(type_.width.data)
            bits = int(value) % (1 << type_.width.data)
            constant = _emit(arith.ConstantOp(IntegerAttr(bits, signless), signless))
            return _emit(arith.BitcastOp(constant.value, type_))
        attr = IntegerAttr(int(value), type_)
    return _emit(arith.ConstantOp(attr, type_))


Operand = "Expr | float | int | bool"


class Expr:
    """A scalar (or index) value inside a compute body, with Python operators."""

    __slots__ = ("value",)

    def __init__(self, value: SSAValue):
        self.value = value

    @property
    def type(self) -> Attribute:
        return self.value.type

    @property
    def is_float(self) -> bool:
        return is_float_type(self.type)

    def _lift(self, other: Expr | float | int | bool | SymDim) -> Expr:
        return other if isinstance(other, Expr) else const(other, self.type)

    def _binary(self, other, float_op, int_op, *, reverse: bool = False) -> Expr:
        lhs, rhs = self, self._lift(other)
        if reverse:
            lhs, rhs = rhs, lhs
        op = float_op if self.is_float else int_op
        return _emit(op(lhs.value, rhs.value))

    def __add__(self, o): return self._binary(o, arith.AddfOp, arith.AddiOp)
    def __radd__(self, o): return self._binary(o, arith.AddfOp, arith.AddiOp, reverse=True)
    def __sub__(self, o): return self._binary(o, arith.SubfOp, arith.SubiOp)
    def __rsub__(self, o): return self._binary(o, arith.SubfOp, arith.SubiOp, reverse=True)
    def __mul__(self, o): return self._binary(o, arith.MulfOp, arith.MuliOp)
    def __rmul__(self, o): return self._binary(o, arith.MulfOp, arith.MuliOp, reverse=True)
    def _div(self) -> type:
        return arith.DivUIOp if is_unsigned(self.type) else arith.DivSIOp

    def __truediv__(self, o): return self._binary(o, arith.DivfOp, self._div())
    def __rtruediv__(self, o): return self._binary(o, arith.DivfOp, self._div(), reverse=True)

    def __floordiv__(self, o) -> Expr:
        """Floor division on integers/indices (index maps); float floor(a / b)."""
        if self.is_float:
            return floor(self / o)
        if is_unsigned(self.type):
            return _emit(arith.DivUIOp(self.value, self._lift(o).value))
        return _emit(arith.FloorDivSIOp(self.value, self._lift(o).value))

    def __mod__(self, o) -> Expr:
        """Remainder with the sign of the divisor (Python's %), for index maps."""
        rhs = self._lift(o)
        return self - (self // rhs) * rhs

    def __neg__(self) -> Expr:
        if self.is_float:
            return _emit(arith.NegfOp(self.value))
        return const(0, self.type) - self

    # Comparisons build i1 values (they are not Python booleans).
    def _compare(self, other, float_pred: str, int_pred: str) -> Expr:
        rhs = self._lift(other)
        if self.is_float:
            return _emit(arith.CmpfOp(self.value, rhs.value, float_pred))
        if is_unsigned(self.type):
            int_pred = _UNSIGNED_PREDICATES.get(int_pred, int_pred)
        return _emit(arith.CmpiOp(self.value, rhs.value, int_pred))

    def __lt__(self, o): return self._compare(o, "olt", "slt")
    def __le__(self, o): return self._compare(o, "ole", "sle")
    def __gt__(self, o): return self._compare(o, "ogt", "sgt")
    def __ge__(self, o): return self._compare(o, "oge", "sge")
    def eq(self, o): return self._compare(o, "oeq", "eq")
    def ne(self, o): return self._compare(o, "une", "ne")

    def __and__(self, o): return _emit(arith.AndIOp(self.value, self._lift(o).value))
    def __or__(self, o): return _emit(arith.OrIOp(self.value, self._lift(o).value))
    def __xor__(self, o): return _emit(arith.XOrIOp(self.value, self._lift(o).value))
    def __lshift__(self, o): return _emit(arith.ShLIOp(self.value, self._lift(o).value))

    def __rshift__(self, o) -> Expr:
        """Logical for unsigned types, arithmetic for signed ones."""
        shift = arith.ShRUIOp if is_unsigned(self.type) else arith.ShRSIOp
        return _emit(shift(self.value, self._lift(o).value))

    def __invert__(self) -> Expr:
        """Every bit flipped (logical not of an i1)."""
        assert isinstance(self.type, IntegerType), self.type
        width = self.type.width.data
        return self ^ ((1 << width) - 1 if is_unsigned(self.type) else -1)

    def rem(self, o) -> Expr:
        """The remainder with the sign of the dividend (C's % and fmod)."""
        int_op = arith.RemUIOp if is_unsigned(self.type) else arith.RemSIOp
        return self._binary(o, RemFOp, int_op)

    def cast(self, type_: Attribute) -> Expr:
        return cast(self, type_)


class Tensor:
    """A tensor SSA value read elementwise in a compute body: `X[i, j]`."""

    def __init__(self, value: SSAValue):
        assert isinstance(value.type, TensorType), value.type
        self.value = value

    @property
    def type(self) -> TensorType:
        return self.value.type  # type: ignore[return-value]

    @property
    def shape(self) -> tuple[Dim, ...]:
        return shape_of(self.type)

    @property
    def element_type(self) -> Attribute:
        return self.type.element_type

    def __getitem__(self, indices: Expr | int | Sequence[Expr | int]) -> Expr:
        if not isinstance(indices, tuple | list):
            indices = (indices,)
        values = [i.value if isinstance(i, Expr) else const(i, IndexType()).value for i in indices]
        value = _emit(ReadOp(self.value, values))
        return cast(value, f32) if _widening and value.type == f16 else value


#: Set while a body is built under `widened_half_reads`: f16 reads come back as f32.
_widening: list[bool] = []


@contextmanager
def widened_half_reads() -> Iterator[None]:
    """Build a compute body whose f16 reads are widened to f32 right away, so that all of
    its arithmetic (the products of a sum, not only the sum) is f32's."""
    _widening.append(True)
    try:
        yield
    finally:
        _widening.pop()


def _coerce(a: Expr | float | int | bool, like: Expr) -> Expr:
    return a if isinstance(a, Expr) else const(a, like.type)


def _pair(a, b) -> tuple[Expr, Expr]:
    if isinstance(a, Expr):
        return a, _coerce(b, a)
    assert isinstance(b, Expr), "one operand must be an expression"
    return _coerce(a, b), b


def select(cond: Expr, a: Expr | float | int, b: Expr | float | int) -> Expr:
    a, b = _pair(a, b)
    return _emit(arith.SelectOp(cond.value, a.value, b.value))


def maximum(a, b) -> Expr:
    a, b = _pair(a, b)
    if a.is_float:
        return _emit(arith.MaximumfOp(a.value, b.value))
    return _emit((arith.MaxUIOp if is_unsigned(a.type) else arith.MaxSIOp)(a.value, b.value))


def minimum(a, b) -> Expr:
    a, b = _pair(a, b)
    if a.is_float:
        return _emit(arith.MinimumfOp(a.value, b.value))
    return _emit((arith.MinUIOp if is_unsigned(a.type) else arith.MinSIOp)(a.value, b.value))


def clamp(x: Expr, lo: Expr | int, hi: Expr | int) -> Expr:
    """min(max(x, lo), hi): keeps an index inside a dimension (padding, resize)."""
    return minimum(maximum(x, lo), hi)


def _unary(op_class) -> Callable[[Expr], Expr]:
    def build(x: Expr) -> Expr:
        return _emit(op_class(x.value))

    build.__name__ = op_class.__name__
    return build


exp = _unary(math.ExpOp)
log = _unary(math.LogOp)
sqrt = _unary(math.SqrtOp)
tanh = _unary(math.TanhOp)
erf = _unary(math.ErfOp)
floor = _unary(math.FloorOp)
ceil = _unary(math.CeilOp)
round_even = _unary(math.RoundEvenOp)
trunc = _unary(math.TruncOp)
log1p = _unary(math.Log1pOp)
sin = _unary(math.SinOp)
cos = _unary(math.CosOp)
tan = _unary(math.TanOp)
asin = _unary(math.AsinOp)
acos = _unary(math.AcosOp)
atan = _unary(math.AtanOp)
sinh = _unary(math.SinhOp)
cosh = _unary(math.CoshOp)
asinh = _unary(math.AsinhOp)
acosh = _unary(math.AcoshOp)
atanh = _unary(math.AtanhOp)


def is_nan(x: Expr) -> Expr:
    """x != x: the unordered comparison of x with itself."""
    return _emit(arith.CmpfOp(x.value, x.value, "uno"))


def abs_(x: Expr) -> Expr:
    return _emit(math.AbsFOp(x.value) if x.is_float else math.AbsIOp(x.value))


def pow_(a, b) -> Expr:
    a, b = _pair(a, b)
    return _emit(math.PowFOp(a.value, b.value))


def fma(a: Expr, b: Expr, c: Expr) -> Expr:
    return _emit(math.FmaOp(a.value, b.value, c.value))


def cast(x: Expr, type_: Attribute) -> Expr:
    """Convert between float, integer, index and i1 (ONNX Cast semantics: float->int
    truncates toward zero, anything->bool is `!= 0`)."""
    src = x.type
    if src == type_:
        return x
    if bf16 in (src, type_) and f32 not in (src, type_):
        # bf16 converts to and from f32 only (its code is f32's upper half): via f32.
        return cast(cast(x, f32), type_)
    if type_ == i1:
        return x.ne(0)
    if src == i1:
        x = _emit(arith.ExtUIOp(x.value, IntegerType(8)))
        src = x.type
        if src == type_:
            return x
    if is_index_type(src) or is_index_type(type_):
        if is_float_type(type_) or is_float_type(src) or is_unsigned(src) or is_unsigned(type_):
            return cast(cast(x, IntegerType(64)), type_)
        return _emit(arith.IndexCastOp(x.value, type_))
    if is_float_type(src) and is_float_type(type_):
        wider = type_.bitwidth > src.bitwidth  # type: ignore[attr-defined]
        return _emit((arith.ExtFOp if wider else arith.TruncFOp)(x.value, type_))
    if is_float_type(src):
        return _emit((arith.FPToUIOp if is_unsigned(type_) else arith.FPToSIOp)(x.value, type_))
    if is_float_type(type_):
        return _emit((arith.UIToFPOp if is_unsigned(src) else arith.SIToFPOp)(x.value, type_))
    assert isinstance(src, IntegerType) and isinstance(type_, IntegerType)
    if type_.width.data > src.width.data:
        return _emit((arith.ExtUIOp if is_unsigned(src) else arith.ExtSIOp)(x.value, type_))
    if type_.width.data == src.width.data:  # i8 <-> ui8: same bits
        return _emit(arith.BitcastOp(x.value, type_))
    return _emit(arith.TruncIOp(x.value, type_))


def bitcast(x: Expr, type_: Attribute) -> Expr:
    """The same bits as `type_`, of the same width (arith.bitcast): f32 <-> i32, ... An i1 is
    a byte, as ONNX stores a bool: i1 -> i8 is 0 or 1, i8 -> i1 is `!= 0`."""
    if x.type == type_:
        return x
    if type_ == i1 or x.type == i1:
        return cast(x, type_)
    return _emit(arith.BitcastOp(x.value, type_))


@contextmanager
def emit_into(block: Block) -> Iterator[None]:
    """Make expressions built inside the `with` append their ops to `block` (also used by
    te_to_loop for index arithmetic in loop bodies)."""
    _blocks.append(block)
    try:
        yield
    finally:
        _blocks.pop()


def compute(
    shape: Sequence[Dim],
    element_type: Attribute,
    body: Callable[..., Expr | float | int],
    *,
    reduce: tuple[str, Sequence[Dim]] | None = None,
) -> ComputeOp:
    """Build `te.compute` of `shape`: `body(*spatial_indices, *reduction_indices)` is the
    element (or the term reduced with `reduce = (kind, extents)`)."""
    kind, extents = reduce if reduce is not None else (None, ())
    result_type = tensor_type(shape, element_type)
    block = Block(arg_types=[IndexType()] * (len(shape) + len(extents)))
    for n, arg in enumerate(block.args):
        # Named as the schedule refers to the loops: i0.. for result dims, r0.. for reductions.
        arg.name_hint = f"i{n}" if n < len(shape) else f"r{n - len(shape)}"
    with emit_into(block):
        value = body(*(Expr(a) for a in block.args))
        if not isinstance(value, Expr):
            value = const(value, element_type)
        if value.type != element_type:
            value = cast(value, element_type)
        block.add_op(YieldOp(value.value))
    return ComputeOp(result_type, Region(block), kind, extents)


__all__ = [
    "Expr", "Tensor", "compute", "emit_into", "const", "select", "maximum", "minimum", "clamp", "exp", "log",
    "sqrt", "tanh", "erf", "floor", "ceil", "round_even", "trunc", "log1p", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "is_nan", "abs_", "pow_", "fma", "cast",
    "bitcast", "i1",
]  # fmt: skip
