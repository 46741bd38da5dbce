"""Shared machinery of the graph dialect: the op base class, property helpers, shape rules.

Every graph op is a pure function of its operands and properties, so its result types can be
computed from them. Each op class states that computation once, in `infer_result_types`; the
same code then serves three purposes (as MLIR's InferTypeOpInterface does):

- `Op.make(*operands, **props)` constructs an op with its result types inferred;
- `verify_` checks that the declared result types equal the inferred ones;
- shape errors surface as `VerifyException`s with a message that names the op and what to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Self

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    VariadicDef,
    irdl_attr_definition,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from minitvm.symbolic import SYMBOL_RANGE, Call, SymbolicError, SymDim, bare_symbol, parse_dim

#: A tensor dimension: an int, or a `SymDim` (an expression of sizes named in the model).
Dim = int | SymDim
Shape = tuple[Dim, ...]
Props = Mapping[str, Attribute]


class ShapeError(VerifyException):
    """An op's operands or properties are inconsistent; the message says how."""


class UnequalSizes(ShapeError):
    """Two sizes an op needs equal are symbols of their own (two inputs' dynamic dimensions
    with different names, a U-Net's skip connection): nothing at compile time says they are
    equal, nor that they are not. The frontend may take the second for the first (`symbols`)
    and leave the run time to check that the inputs agree."""

    def __init__(self, message: str, symbols: tuple[str, str]):
        super().__init__(message)
        self.symbols = symbols


class ClampedSize(ShapeError):
    """Two sizes an op needs equal are a symbol `s` and a clamp of it, `min(c, s)` (or
    `max(c, s)`): equal exactly where `s <= c` (`s >= c`). torch.onnx's BERT slices its 64
    position ids to `min(64, sequence)` and adds them to the tokens' `sequence` rows: a model
    that runs only up to 64 tokens. The frontend may take that bound (`bound`: lo, hi) for
    the symbol and leave the run time to refuse sizes outside it."""

    def __init__(self, message: str, symbol: str, bound: tuple[int, int]):
        super().__init__(message)
        self.symbol, self.bound = symbol, bound


def clamp_bound(dims: Sequence[Dim]) -> tuple[str, tuple[int, int]] | None:
    """(s, (lo, hi)) when `dims` are two sizes, a symbol s and `min(c, s)` (hi = c) or
    `max(c, s)` (lo = c), in either order; else None (see `ClampedSize`)."""
    distinct = list(dict.fromkeys(dims))
    if len(distinct) != 2:
        return None
    for plain, clamped in (distinct, distinct[::-1]):
        name = bare_symbol(plain)
        if name is None or not isinstance(clamped, SymDim) or len(clamped.terms) != 1:
            continue
        (monomial, coefficient), = clamped.terms
        call = monomial[0] if len(monomial) == 1 else None
        if coefficient != 1 or not isinstance(call, Call) or call.fn not in ("min", "max"):
            continue
        limits = [a for a in call.args if isinstance(a, int)]
        if len(call.args) == 2 and len(limits) == 1 and plain in call.args:
            limit = limits[0]
            return name, ((1, limit) if call.fn == "min" else (limit, SYMBOL_RANGE[1]))
    return None


def unequal_sizes(message: str, dims: Sequence[Dim]) -> ShapeError:
    """The error for an op needing `dims` equal, which they are not at compile time: one the
    frontend can act on where they are two input symbols (`UnequalSizes`) or a symbol and a
    clamp of it (`ClampedSize`), else a plain ShapeError."""
    if pair := unequal_symbols(dims):
        return UnequalSizes(message, pair)
    if clamp := clamp_bound(dims):
        return ClampedSize(message, *clamp)
    return ShapeError(message)


def unequal_symbols(dims: Sequence[Dim]) -> tuple[str, str] | None:
    """The two symbols of `dims` when they are two different bare symbols, else None."""
    names = list(dict.fromkeys(bare_symbol(d) for d in dims))
    if len(names) == 2 and None not in names and len(set(dims)) == 2:
        return names[0], names[1]  # type: ignore[return-value]
    return None


# --------------------------------------------------------------------------------------------
# Property construction and access
# --------------------------------------------------------------------------------------------


def ints_attr(values: Sequence[Dim]) -> DenseArrayBase | SizesAttr:
    """An `array<i64: ...>` property, or a `#graph.sizes<...>` one if an entry is symbolic."""
    if any(isinstance(v, SymDim) for v in values):
        return SizesAttr.of(values)
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def int_attr(value: int) -> IntegerAttr:
    return IntegerAttr(int(value), i64)


def float_attr(value: float) -> FloatAttr:
    return FloatAttr(float(value), f32)


def to_attr(value: object) -> Attribute:
    """Turn a Python property value into its attribute form (ints, floats, strings, lists)."""
    match value:
        case Attribute():
            return value
        case bool():
            return int_attr(int(value))
        case int():
            return int_attr(value)
        case float():
            return float_attr(value)
        case str():
            return StringAttr(value)
        case list() | tuple():
            return ints_attr(value)  # type: ignore[arg-type]
        case _:
            raise TypeError(f"cannot turn {value!r} into a graph property")


def get_ints(props: Props, name: str, default: Sequence[int] | None = None) -> Shape:
    """An int-array property's entries (`SymDim`s where it is a `#graph.sizes`)."""
    attr = props.get(name)
    if attr is None:
        if default is None:
            raise ShapeError(f"missing property '{name}'")
        return tuple(default)
    if isinstance(attr, SizesAttr):
        return attr.values
    assert isinstance(attr, DenseArrayBase)
    return tuple(int(v) for v in attr.get_values())


def get_int(props: Props, name: str, default: int | None = None) -> int:
    attr = props.get(name)
    if attr is None:
        if default is None:
            raise ShapeError(f"missing property '{name}'")
        return default
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def get_float(props: Props, name: str, default: float | None = None) -> float:
    attr = props.get(name)
    if attr is None:
        if default is None:
            raise ShapeError(f"missing property '{name}'")
        return default
    assert isinstance(attr, FloatAttr)
    return attr.value.data


def get_str(props: Props, name: str, default: str | None = None) -> str:
    attr = props.get(name)
    if attr is None:
        if default is None:
            raise ShapeError(f"missing property '{name}'")
        return default
    assert isinstance(attr, StringAttr)
    return attr.data


# --------------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------------


@irdl_attr_definition
class SizesAttr(ParametrizedAttribute):
    """An int-array property with symbolic entries, where an `array<i64: ...>` would do for
    numbers: `#graph.sizes<0, "seq", 1>` (a slice's ends to a run-time length). `get_ints`
    reads both forms; `ints_attr` makes this one only when an entry is symbolic."""

    name = "graph.sizes"

    entries: ArrayAttr[Attribute]  # IntegerAttr (numbers) or StringAttr (SymDim text)

    @staticmethod
    def of(values: Sequence[Dim]) -> SizesAttr:
        return SizesAttr(ArrayAttr([
            StringAttr(str(v)) if isinstance(v, SymDim) else IntegerAttr(int(v), i64) for v in values
        ]))  # fmt: skip

    @property
    def values(self) -> tuple[Dim, ...]:
        return tuple(
            parse_dim(e.data) if isinstance(e, StringAttr) else e.value.data  # type: ignore[attr-defined]
            for e in self.entries.data
        )

    def verify(self) -> None:
        for entry in self.entries.data:
            if isinstance(entry, StringAttr):
                problem = dims_problem(entry.data)
                if problem:
                    raise VerifyException(f"#graph.sizes: {problem}")
            elif not isinstance(entry, IntegerAttr):
                raise VerifyException(f"#graph.sizes: {entry} is neither a number nor a size")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        entries = parser.parse_comma_separated_list(
            parser.Delimiter.ANGLE, lambda: parse_size(parser, "#graph.sizes")
        )
        return [ArrayAttr(entries)]

    def print_parameters(self, printer: Printer) -> None:
        def print_entry(entry: Attribute) -> None:
            if isinstance(entry, StringAttr):
                printer.print_string_literal(entry.data)
            else:
                printer.print_string(str(entry.value.data))  # type: ignore[attr-defined]

        with printer.in_angle_brackets():
            printer.print_list(self.entries.data, print_entry)


@irdl_attr_definition
class DimsAttr(ParametrizedAttribute):
    """The sizes of a tensor's `?` dimensions, in order, as expressions of named sizes
    (`symbolic.py`): `tensor<?x?x768xf32, #graph.dims<"batch", "seq">>`. The
    tensor type's encoding, so that types with the same symbolic shape are equal."""

    name = "graph.dims"

    exprs: ArrayAttr[StringAttr]

    @property
    def dims(self) -> tuple[Dim, ...]:
        return tuple(parse_dim(e.data) for e in self.exprs.data)

    def verify(self) -> None:
        for expr in self.exprs.data:
            problem = dims_problem(expr.data)
            if problem:
                raise VerifyException(f"#graph.dims: {problem}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        def parse_expr() -> Attribute:
            start = parser.pos
            size = parse_size(parser, "#graph.dims")
            if not isinstance(size, StringAttr):
                parser.raise_error("#graph.dims: a number belongs in the shape, not here", start, parser.pos)
            return size

        return [ArrayAttr(parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_expr))]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(self.exprs.data, lambda e: printer.print_string_literal(e.data))


def dims_problem(text: str) -> str | None:
    """What is wrong with `text` as a `#graph.dims` expression (None: nothing)."""
    try:
        dim = parse_dim(text)
    except SymbolicError as e:
        return str(e)
    if not isinstance(dim, SymDim):
        return f"'{text}' is the number {dim}: write it in the shape, not as a symbol"
    if str(dim) != text:
        return f"'{text}' is not in normal form (write '{dim}')"
    return None


def parse_size(parser: AttrParser, what: str) -> Attribute:
    """A size in an attribute's text: a number (an IntegerAttr) or a quoted expression of
    named sizes (a StringAttr), which must be in normal form; errors point at it."""
    start = parser.pos
    text = parser.parse_optional_str_literal()
    if text is None:
        return IntegerAttr(parser.parse_integer(), i64)
    problem = dims_problem(text)
    if problem:
        parser.raise_error(f"{what}: {problem}", start, parser.pos)
    return StringAttr(text)


def tensor_type(shape: Sequence[Dim], element_type: Attribute = f32) -> TensorType:
    """The tensor type of a shape; symbolic dimensions are `?` with their expressions in a
    `#graph.dims` encoding."""
    symbolic = [d for d in shape if isinstance(d, SymDim)]
    if not symbolic:
        return TensorType(element_type, [int(d) for d in shape])
    sizes = [DYNAMIC_INDEX if isinstance(d, SymDim) else int(d) for d in shape]
    return TensorType(element_type, sizes, DimsAttr(ArrayAttr([StringAttr(str(d)) for d in symbolic])))


def is_shaped(type_: Attribute) -> bool:
    """Whether a tensor's every dimension is known: as a number or as a symbolic size."""
    if not isinstance(type_, TensorType):
        return False
    if isinstance(type_.encoding, DimsAttr):
        return list(type_.get_shape()).count(DYNAMIC_INDEX) == len(type_.encoding.exprs)
    return type_.has_static_shape()


def as_tensor(op_name: str, what: str, type_: Attribute) -> TensorType:
    if not is_shaped(type_):
        raise ShapeError(f"{op_name}: {what} must be a tensor of known shape, got {type_}")
    return type_  # type: ignore[return-value]


def shape_of(type_: TensorType) -> Shape:
    """A tensor's shape, symbolic dimensions as `SymDim`s."""
    shape = type_.get_shape()
    if not isinstance(type_.encoding, DimsAttr):
        return tuple(shape)
    symbolic = iter(type_.encoding.dims)
    return tuple(next(symbolic) if d == DYNAMIC_INDEX else d for d in shape)


def is_static(type_: Attribute) -> bool:
    """Whether a tensor type has only numeric dimensions."""
    return isinstance(type_, TensorType) and type_.has_static_shape() and not isinstance(type_.encoding, DimsAttr)


def is_float(type_: Attribute) -> bool:
    return isinstance(type_, AnyFloat)


def is_bool(type_: Attribute) -> bool:
    return isinstance(type_, IntegerType) and type_.width.data == 1


# --------------------------------------------------------------------------------------------
# Element kinds an op accepts
# --------------------------------------------------------------------------------------------

#: What each element kind admits, how a message names it, and what to do about a mismatch.
#: ONNX types its ops by such classes (float math, integer bit operations, boolean logic);
#: "numeric" is any type but i1.
ELEMENT_KINDS: dict[str, tuple[Callable[[Attribute], bool], str, str]] = {
    "float": (lambda t: is_float(t), "float", " (cast it to a float type first)"),
    "integer": (
        lambda t: isinstance(t, IntegerType) and not is_bool(t), "integer (not i1)", ""
    ),
    "bool": (lambda t: is_bool(t), "boolean (i1)", " (compare or cast to i1 first)"),
    "numeric": (lambda t: not is_bool(t), "numeric", " (cast the booleans first)"),
    "any": (lambda t: True, "any", ""),
}


def check_elements(op_name: str, what: str, tensor: TensorType, kind: str) -> None:
    """Raise a ShapeError unless `tensor`'s element type is of `kind` (ELEMENT_KINDS)."""
    accepts, description, hint = ELEMENT_KINDS[kind]
    if not accepts(tensor.element_type):
        article = "an" if description[0] in "aeiou" else "a"
        raise ShapeError(
            f"{op_name}: {what} must be {article} {description} tensor, got {tensor}{hint}"
        )


def fmt_shape(shape: Sequence[Dim]) -> str:
    """`2x3x4`, or `[batch, seq + 1, 8]` where dimensions are symbolic."""
    if not shape:
        return "scalar"
    if any(isinstance(d, SymDim) for d in shape):
        return f"[{', '.join(str(d) for d in shape)}]"
    return "x".join(str(d) for d in shape)


def normalize_axis(op_name: str, axis: int, rank: int, *, extra: int = 0) -> int:
    """Map a possibly negative axis into [0, rank + extra)."""
    bound = rank + extra
    if not -bound <= axis < bound:
        raise ShapeError(f"{op_name}: axis {axis} is out of range for rank {rank}")
    return axis + bound if axis < 0 else axis


def surely_below(a: Dim, b: Dim) -> bool:
    """`a < b` where the symbols' ranges decide it, False where they do not: a check of a
    shape rule that cannot fail at compile time is left to the run time's shape checks."""
    try:
        return bool(a < b)
    except SymbolicError:
        return False


def broadcast_shapes(op_name: str, *shapes: Shape) -> Shape:
    """Numpy-style multidirectional broadcasting, as ONNX uses it."""
    rank = max(len(s) for s in shapes)
    out: list[int] = []
    for i in range(rank):
        dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            pretty = ", ".join(fmt_shape(s) for s in shapes)
            message = f"{op_name}: shapes {pretty} do not broadcast (dimension {i})"
            in_order = [s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0]
            raise unequal_sizes(message, [d for d in in_order if d != 1])
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def broadcasts_to(shape: Shape, target: Shape) -> bool:
    """Whether `shape` broadcasts (numpy rules) to exactly `target`."""
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(shape, target[len(target) - len(shape) :]))


# --------------------------------------------------------------------------------------------
# The op base class
# --------------------------------------------------------------------------------------------


class GraphOp(IRDLOperation):
    """Base of every graph op except constants: pure, with inferable result types."""

    traits = traits_def(NoMemoryEffect())
    # Properties print inside the attribute dictionary, as MLIR's `prop-dict` would.
    irdl_options = (ParsePropInAttrDict(),)

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], props: Props
    ) -> list[TensorType]:
        """The result types implied by the operand types and properties."""
        raise NotImplementedError(f"{cls.name} does not infer its result types")

    @classmethod
    def make(cls, *operands: SSAValue | Sequence[SSAValue] | None, **props: object) -> Self:
        """Construct the op from operands and Python-valued properties, inferring results.

        Operands follow the op definition's order: `None` for an absent optional operand, a
        sequence for a variadic one. Properties given as None are left unset (defaults apply).
        """
        values = cls.normalized_props(props)
        flat = [v for o in operands for v in _as_values(o)]
        types = cls.infer_result_types([v.type for v in flat], values)
        return cls.create_with(operands, types, values)

    @classmethod
    def normalized_props(cls, props: Mapping[str, object]) -> dict[str, Attribute]:
        """Attribute-valued properties, leaving out unset ones and those equal to their default
        (the custom form elides defaults, so storing them would make the two forms differ)."""
        defs = cls.get_irdl_definition().properties
        values = {}
        for name, value in props.items():
            if value is None:
                continue
            attr = to_attr(value)
            if name in defs and defs[name].default_value == attr:
                continue
            values[name] = attr
        return values

    @classmethod
    def create_with(
        cls,
        operands: Sequence[SSAValue | Sequence[SSAValue] | None],
        result_types: Sequence[Attribute],
        props: Props,
    ) -> Self:
        """Construct from operands grouped as in `make`, explicit result types and properties."""
        op_def = cls.get_irdl_definition()
        grouped: list[SSAValue | list[SSAValue]] = []
        for (_, odef), operand in zip(op_def.operands, operands, strict=False):
            grouped.append(_as_values(operand) if isinstance(odef, VariadicDef) else operand)  # type: ignore[arg-type]
        grouped.extend([] for _ in op_def.operands[len(grouped):])
        results: list[Attribute | list[Attribute]] = list(result_types)
        if op_def.results and isinstance(op_def.results[-1][1], VariadicDef):
            fixed = len(op_def.results) - 1
            results = [*result_types[:fixed], list(result_types[fixed:])]
        return cls(operands=grouped, result_types=results, properties=dict(props))

    def verify_(self) -> None:
        inferred = type(self).infer_result_types(
            [o.type for o in self.operands], self.properties
        )
        declared = [r.type for r in self.results]
        if len(inferred) != len(declared):
            raise ShapeError(
                f"{self.name}: expected {len(inferred)} results but the op has {len(declared)}"
            )
        for i, (want, got) in enumerate(zip(inferred, declared)):
            if want != got:
                which = "result" if len(declared) == 1 else f"result #{i}"
                raise ShapeError(f"{self.name}: {which} should be {want} but is declared {got}")


def _as_values(operand: SSAValue | Sequence[SSAValue] | None) -> list[SSAValue]:
    if operand is None:
        return []
    if isinstance(operand, SSAValue):
        return [operand]
    return list(operand)
