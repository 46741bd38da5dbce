"""What an ONNX op converter sees: one node, its inputs, and the table converters register in.

The importer (`frontend/onnx.py`) walks the ONNX graph in order and hands each node to the
converter registered for its op type, wrapped in a `NodeContext`. Inputs arrive as `Value`s:
either an SSA value of the function being built, or a numpy array when the value is known at
import time (initializers, Constants, anything folded). Arrays stay arrays until a graph op
needs one as an operand; only then does `tensor()` materialize a `graph.constant`, so the
shape-like tensors of a model (Reshape targets, Slice bounds, ...) never reach the IR.

A converter returns one `Value` per ONNX output (None for an output it does not produce).

ONNX sequences (SequenceConstruct, SplitToSequence, a Loop's SequenceInsert, ...) exist only
at import time: a `SequenceValue` is the tuple of its tensors, each a `Value`, so every
position and length is known and the sequence ops (`frontend/onnx_sequence.py`) reduce to
picking, stacking and slicing tensors. A converter that takes tensors gets a clear error
naming the node if it is handed a sequence (`NodeContext.value`).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import onnx
from xdsl.dialects.builtin import TensorType, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from minitvm.dialects.graph.base import GraphOp, Shape, shape_of
from minitvm.dialects.graph.constant import NUMPY_DTYPES, element_type_of, numpy_dtype_of
from minitvm.dialects.graph.tensor import SizesOp
from minitvm.errors import FrontendError, NonConstantOperandError

#: A value during import: computed at run time (SSA) or known now (numpy).
Value = SSAValue | np.ndarray


@dataclass(frozen=True)
class SequenceValue:
    """An ONNX sequence during import: its tensors in order (each computed at run time or
    known now) and, for an empty one, the element type it was declared with."""

    items: tuple[Value, ...]
    dtype: np.dtype

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class OptionalValue:
    """An ONNX optional during import: the tensor or sequence it holds, or None when it is
    empty. Whether it holds one is known at import time, as a sequence's length is (an
    optional graph input is compiled for being given or not: `from_onnx`'s input_shapes)."""

    element: Value | SequenceValue | None


#: Anything a node input or output can be while the graph is imported.
AnyValue = Value | SequenceValue | OptionalValue

Converter = Callable[["NodeContext"], Sequence[AnyValue | None]]

OpT = TypeVar("OpT", bound=GraphOp)


@dataclass(frozen=True)
class ConverterInfo:
    """A registered converter; `folds` says it computes its own result from constant inputs
    (so the importer need not evaluate the node with the ONNX reference implementation)."""

    fn: Converter
    folds: bool


CONVERTERS: dict[str, ConverterInfo] = {}


def converter(*op_types: str, folds: bool = False) -> Callable[[Converter], Converter]:
    """Register the decorated function as the converter of `op_types`."""

    def register(fn: Converter) -> Converter:
        for op_type in op_types:
            assert op_type not in CONVERTERS, f"two converters for {op_type}"
            CONVERTERS[op_type] = ConverterInfo(fn, folds)
        return fn

    return register


def supported_ops() -> list[str]:
    return sorted(CONVERTERS)


def tensor_array(tensor: onnx.TensorProto, what: str) -> np.ndarray:
    """A TensorProto's value; a FrontendError naming `what` (e.g. "initializer 'w'") when its
    data does not fit its dims or element type, as in a damaged or hand-made file."""
    kinds = onnx.TensorProto.DataType
    if tensor.data_type not in kinds.values() or tensor.data_type == onnx.TensorProto.UNDEFINED:
        raise FrontendError(f"{what}: unknown ONNX element type {tensor.data_type}")
    try:
        return onnx.numpy_helper.to_array(tensor)
    # (OSError, ValidationError: external data that is missing or outside the model's folder)
    except (ValueError, TypeError, KeyError, OverflowError, OSError, onnx.checker.ValidationError) as e:
        dims = "x".join(map(str, tensor.dims)) or "a scalar"
        raise FrontendError(
            f"{what}: its data ({_data_fields(tensor)}) does not match its shape {dims} and "
            f"element type {kinds.Name(tensor.data_type)} ({e})"
        ) from None


def _data_fields(tensor: onnx.TensorProto) -> str:
    """Where a TensorProto's data is, e.g. "47 bytes of raw_data" or "2 values in float_data"."""
    fields = [
        f"{len(tensor.raw_data)} bytes of raw_data" if field == "raw_data"
        else f"{len(getattr(tensor, field))} values in {field}"
        for field in ("raw_data", "float_data", "double_data", "int32_data", "int64_data",
                      "uint64_data", "string_data")
        if len(getattr(tensor, field))
    ]  # fmt: skip
    return ", ".join(fields) or "none"


def node_label(node: onnx.NodeProto, index: int) -> str:
    """How errors name a node: its name, else its first output, else its position."""
    if node.name:
        return node.name
    outputs = [o for o in node.output if o]
    return f"#{index} -> {outputs[0]}" if outputs else f"#{index}"


def node_error(node: onnx.NodeProto, index: int, opset: int, message: str) -> FrontendError:
    where = f"node '{node_label(node, index)}' ({node.op_type}, opset {opset})"
    return FrontendError(f"{where}: {message}", where)


def element_type(dtype: np.dtype, what: str) -> Attribute:
    """The graph element type of a numpy dtype, as a FrontendError if it has none."""
    try:
        return element_type_of(dtype)
    except ValueError as e:
        raise FrontendError(f"{what}: {e}") from e


def onnx_element_type(elem_type: int, what: str) -> Attribute:
    """The graph element type of an ONNX `TensorProto.DataType`."""
    try:
        dtype = onnx.helper.tensor_dtype_to_np_dtype(elem_type)
    except KeyError as e:
        raise FrontendError(f"{what}: unknown ONNX element type {elem_type}") from e
    return element_type(dtype, what)


_SIZE_OPERANDS_AT_RUN_TIME: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "size_operands_at_run_time", default=True
)


@contextlib.contextmanager
def size_operands_at_import() -> Iterator[None]:
    """Imports within it refuse size operands computed as the model runs (a
    NonConstantOperandError naming the value), as `const` does: for a caller that would
    rather fix them (the ONNX backend freezes the inputs they come from, where the ops after
    them need their sizes known)."""
    token = _SIZE_OPERANDS_AT_RUN_TIME.set(False)
    try:
        yield
    finally:
        _SIZE_OPERANDS_AT_RUN_TIME.reset(token)


@dataclass
class NodeContext:
    """One ONNX node during conversion, with helpers that raise errors naming the node."""

    node: onnx.NodeProto
    index: int
    opset: int
    inputs: list[AnyValue | None]
    block: Block
    materialize: Callable[[np.ndarray, str], SSAValue]
    is_used: Callable[[str], bool]
    #: Convert a subgraph (an If branch, a Loop or Scan body) in a scope of its own, its
    #: inputs bound to the given values and outer names visible; returns its outputs.
    subgraph: Callable[..., list[AnyValue]] | None = None
    _attrs: dict[str, object] = field(init=False)

    def __post_init__(self) -> None:
        self._attrs = {}
        for attribute in self.node.attribute:
            try:
                value = onnx.helper.get_attribute_value(attribute)
            except ValueError:  # an attribute type ONNX does not know: a damaged file
                raise self.error(
                    f"attribute '{attribute.name}' has no valid type ({attribute.type})"
                ) from None
            if value is None:  # UNDEFINED: a type that holds no value
                raise self.error(f"attribute '{attribute.name}' has no value")
            self._attrs[attribute.name] = value

    # -- identity and errors -------------------------------------------------------------------

    @property
    def op_type(self) -> str:
        return self.node.op_type

    def error(self, message: str) -> FrontendError:
        return node_error(self.node, self.index, self.opset, message)

    # -- attributes ------------------------------------------------------------------------------

    def has_attr(self, name: str) -> bool:
        return name in self._attrs

    def tensor_attr(self, name: str) -> np.ndarray | None:
        """A tensor attribute's value (None if absent), checked against its shape."""
        value = self._attrs.get(name)
        if value is None:
            return None
        try:
            return tensor_array(value, f"attribute '{name}'")  # type: ignore[arg-type]
        except FrontendError as e:
            raise self.error(str(e)) from None

    def attr(self, name: str, default: object = None) -> object:
        value = self._attrs.get(name, default)
        return value.decode() if isinstance(value, bytes) else value

    def attr_int(self, name: str, default: int) -> int:
        value = self.attr(name, default)
        if not isinstance(value, (int, np.integer)):
            raise self._attr_type_error(name, "an integer", value)
        return int(value)

    def attr_float(self, name: str, default: float) -> float:
        value = self.attr(name, default)
        if not isinstance(value, (int, float, np.integer, np.floating)):
            raise self._attr_type_error(name, "a number", value)
        return float(value)

    def attr_ints(self, name: str, default: Sequence[int] | None = None) -> list[int] | None:
        value = self.attr(name, default)
        if value is None:
            return None
        if not isinstance(value, (list, tuple)) or not all(
            isinstance(v, (int, np.integer)) for v in value
        ):
            raise self._attr_type_error(name, "a list of integers", value)
        return [int(v) for v in value]

    def _attr_type_error(self, name: str, expected: str, value: object) -> FrontendError:
        shown = repr(value) if len(repr(value)) <= 40 else f"{repr(value)[:40]}..."
        return self.error(f"attribute '{name}' must be {expected}, got {shown}")

    def attr_choice(self, name: str, default: str, supported: Sequence[str]) -> str:
        """A string attribute that must take one of the `supported` values."""
        value = str(self.attr(name, default))
        if value not in supported:
            raise self.error(
                f"unsupported {name} '{value}'; supported: {', '.join(repr(s) for s in supported)}"
            )
        return value

    def convert_subgraph(
        self, graph: onnx.GraphProto, inputs: dict[str, AnyValue], block: Block | None = None
    ) -> list[AnyValue]:
        """The outputs of subgraph `graph` (an attribute of this node) with its inputs bound
        to `inputs`, its nodes converted into the function being built (into `block`, a
        region of an op being built, when given)."""
        assert self.subgraph is not None, "this NodeContext was made without an importer"
        return self.subgraph(graph, inputs, block)

    # -- inputs ------------------------------------------------------------------------------

    def input_name(self, i: int) -> str:
        return self.node.input[i]

    def has_input(self, i: int) -> bool:
        return i < len(self.inputs) and self.inputs[i] is not None

    def is_const(self, i: int) -> bool:
        return isinstance(self.inputs[i], np.ndarray)

    def any_value(self, i: int) -> AnyValue:
        """Input `i`, a tensor or a sequence (for ops that pass either through)."""
        value = self.inputs[i] if i < len(self.inputs) else None
        if value is None:
            raise self.error(f"missing required input {i}")
        return value

    def value(self, i: int) -> Value:
        """Input `i`, which must be a tensor."""
        value = self.any_value(i)
        if isinstance(value, SequenceValue | OptionalValue):
            kind = "a sequence" if isinstance(value, SequenceValue) else "an optional"
            raise self.error(f"input {i} ('{self.input_name(i)}') is {kind}; this op takes a tensor")
        return value

    def sequence(self, i: int) -> SequenceValue:
        """Input `i`, which must be a sequence."""
        value = self.any_value(i)
        if not isinstance(value, SequenceValue):
            kind = "an optional" if isinstance(value, OptionalValue) else "a tensor"
            raise self.error(f"input {i} ('{self.input_name(i)}') is {kind}; this op takes a sequence")
        return value

    def tensor(self, i: int) -> SSAValue:
        """Input `i` as an SSA value, materializing a graph.constant if it is known now."""
        value = self.value(i)
        if isinstance(value, np.ndarray):
            if value.dtype == object:  # sizes known at run time, used as data
                op = SizesOp.make(values=list(value.reshape(-1)), shape=value.shape, element_type=i64)
                return self.emit(op).results[0]
            return self.materialize(value, self.input_name(i))
        return value

    def const(self, i: int, what: str) -> np.ndarray:
        """Input `i`, which must be known at import time (a shape, axes, pads, ...)."""
        value = self.value(i)
        if not isinstance(value, np.ndarray):
            message = str(self.error(
                f"input {i} ('{what}', value '{self.input_name(i)}') must be a constant known "
                "at import time, but it is computed at run time"
            ))  # fmt: skip
            raise NonConstantOperandError(message, self.input_name(i))
        return value

    def at_run_time(self, i: int, what: str) -> bool:
        """Whether size operand `i` (a shape, repeats, a range's bound) is computed as the
        model runs, for the converter to take it so (`onnx_run_time_shapes`). Within
        `size_operands_at_import()` such an operand is an error instead, as `const` gives."""
        if isinstance(self.value(i), np.ndarray):
            return False
        if not _SIZE_OPERANDS_AT_RUN_TIME.get():
            self.const(i, what)  # raises
        return True

    def optional_const(self, i: int, what: str) -> np.ndarray | None:
        return self.const(i, what) if self.has_input(i) else None

    def shape(self, i: int) -> Shape:
        """Input `i`'s shape; a dimension known only at run time is a `SymDim`."""
        value = self.value(i)
        if isinstance(value, np.ndarray):
            return tuple(value.shape)
        type_ = value.type
        assert isinstance(type_, TensorType)
        return shape_of(type_)

    def rank(self, i: int) -> int:
        return len(self.shape(i))

    def dtype(self, i: int) -> np.dtype:
        value = self.value(i)
        if isinstance(value, np.ndarray):
            return value.dtype
        type_ = value.type
        assert isinstance(type_, TensorType)
        return numpy_dtype_of(type_.element_type)

    def element_type(self, onnx_type: int, what: str) -> Attribute:
        """The graph element type of an ONNX data type the node names (Cast's `to`, ...)."""
        try:
            return element_type_of(onnx.helper.tensor_dtype_to_np_dtype(onnx_type))
        except (KeyError, ValueError):
            known = onnx_type in onnx.TensorProto.DataType.values()
            name = onnx.TensorProto.DataType.Name(onnx_type) if known else str(onnx_type)
            supported = ", ".join(str(d) for d in NUMPY_DTYPES.values())
            raise self.error(f"unsupported {what} type {name}; supported: {supported}") from None

    def output_used(self, i: int) -> bool:
        return (
            i < len(self.node.output)
            and bool(self.node.output[i])
            and self.is_used(self.node.output[i])
        )

    # -- axes ----------------------------------------------------------------------------------

    def axis(self, axis: int, rank: int, what: str = "axis") -> int:
        """Normalize a possibly negative axis of a rank-`rank` tensor."""
        if not -rank <= axis < rank:
            raise self.error(f"{what} {axis} is out of range for rank {rank}")
        return axis + rank if axis < 0 else axis

    def axes(self, axes: Sequence[int], rank: int, what: str = "axes") -> list[int]:
        """Normalize, check distinct and sort a list of axes."""
        normalized = [self.axis(int(a), rank, what) for a in axes]
        if len(set(normalized)) != len(normalized):
            raise self.error(f"{what} {list(axes)} repeat an axis")
        return sorted(normalized)

    # -- building ------------------------------------------------------------------------------

    def emit(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def make(
        self, cls: type[OpT], *operands: SSAValue | Sequence[SSAValue] | None, **props: object
    ) -> OpT:
        """Build `cls` with inferred result types and append it; a shape error from the
        dialect names this node (the model's shapes do not fit the op)."""
        try:
            op = cls.make(*operands, **props)
            op.verify()  # ops with a declared result shape check it only here
        except VerifyException as e:
            hint = ""
            if "min(" in str(e) or "max(" in str(e):  # a clamp the symbols' range left open
                hint = (
                    "; a bound on the input's dynamic dimension may decide it: "
                    "input_shapes={'name': (..., 'lo..hi')}"
                )
            raise self.error(f"{e}{hint}") from e
        self.block.add_op(op)
        return op

    def make1(
        self, cls: type[GraphOp], *operands: SSAValue | Sequence[SSAValue] | None, **props: object
    ) -> SSAValue:
        """`make` for the common single-result op; returns the result."""
        return self.make(cls, *operands, **props).results[0]
