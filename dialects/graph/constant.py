"""Constants of the graph dialect, with weights kept out of line.

A model's weights would make the IR unreadable (ResNet-50: 100 MB of floats), so large
constants refer to a blob by key, MLIR-style:

    %w = graph.constant #graph.weights<conv1_w_5d1c0a7b> : tensor<64x3x7x7xf32>
    %b = graph.constant dense<0.000000e+00> : tensor<64xf32>
    ...
    {-#
      dialect_resources: {
        graph: {
          conv1_w_5d1c0a7b: "0x04000000..."
        }
      }
    #-}

Blob keys end in a digest of the bytes, so two equal blobs share a key and two different ones
never collide, whichever model or parse produced them. The blobs live in the graph dialect's
`WeightStore` (xDSL keeps dialect resources on the dialect object); the printer writes the
section for every key it printed and the parser fills it back, so text round-trips exactly.
Small constants stay inline as `dense<...>`; splats (all elements equal, as in ONNX's
ConstantOfShape) are one value, `#graph.splat<0.000000e+00 : f32>`, never N copies of it
(xDSL's dense attribute would expand VGG-19's splat weights to 550 MB).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterable
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    Signedness,
    StringAttr,
    TensorType,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

ui8 = IntegerType(8, Signedness.UNSIGNED)
ui16 = IntegerType(16, Signedness.UNSIGNED)
ui32 = IntegerType(32, Signedness.UNSIGNED)
ui64 = IntegerType(64, Signedness.UNSIGNED)

#: Element types the graph dialect accepts, and their numpy counterparts.
NUMPY_DTYPES: dict[Attribute, np.dtype] = {
    f32: np.dtype(np.float32),
    f64: np.dtype(np.float64),
    f16: np.dtype(np.float16),
    bf16: np.dtype(ml_dtypes.bfloat16),
    i64: np.dtype(np.int64),
    i32: np.dtype(np.int32),
    i16: np.dtype(np.int16),
    i8: np.dtype(np.int8),
    ui64: np.dtype(np.uint64),
    ui32: np.dtype(np.uint32),
    ui16: np.dtype(np.uint16),
    ui8: np.dtype(np.uint8),
    i1: np.dtype(np.bool_),
}
_ELEMENT_TYPES = {dtype: attr for attr, dtype in NUMPY_DTYPES.items()}

#: Constants with at most this many elements print inline; larger ones go to a blob.
INLINE_LIMIT = 64

# MLIR writes a blob as hex of a little-endian u32 alignment followed by the raw bytes.
_BLOB_ALIGNMENT = (8).to_bytes(4, "little")


def element_type_of(dtype: np.dtype) -> Attribute:
    try:
        return _ELEMENT_TYPES[np.dtype(dtype)]
    except KeyError:
        supported = ", ".join(str(d) for d in _ELEMENT_TYPES)
        raise ValueError(f"unsupported element type {dtype} (supported: {supported})") from None


def numpy_dtype_of(element_type: Attribute) -> np.dtype:
    try:
        return NUMPY_DTYPES[element_type]
    except KeyError:
        raise ValueError(f"element type {element_type} has no numpy counterpart") from None


@functools.cache
def _hash_function() -> Callable[[bytes], Any]:
    """sha256 where this CPU has SHA instructions (1.8 GB/s on Zen 4, twice blake2b's 0.9),
    blake2b elsewhere (sha256 in software is the slower of the two): a compile hashes every
    weight after each pass that makes one (415 MB for ResNet-50). A key stands for its bytes
    in the process that made it and in the IR text it is printed to, so keys made on
    different machines need not agree."""
    from minitvm.host import enabled_features, native_cpu  # llvmlite: only once weights come

    if "sha" in enabled_features(native_cpu()[1]):
        return hashlib.sha256
    return functools.partial(hashlib.blake2b, digest_size=6)


def _digest(data: bytes) -> str:
    return _hash_function()(data).hexdigest()[:12]


class WeightStore(OpAsmDialectInterface):
    """The graph dialect's blob storage: key -> raw little-endian bytes."""

    def __init__(self) -> None:
        super().__init__()
        self._blobs: dict[str, bytes] = {}

    def add(self, array: np.ndarray, name_hint: str = "w") -> str:
        """Store `array`'s bytes and return its content-addressed key."""
        data = np.ascontiguousarray(array).tobytes()
        digest = _digest(data)
        stem = re.sub(r"[^A-Za-z0-9_]", "_", name_hint).strip("_")[:40] or "w"
        if not stem[0].isalpha():
            stem = "w_" + stem
        key = f"{stem}_{digest}"
        self._blobs.setdefault(key, data)
        return key

    def get(self, key: str) -> bytes:
        try:
            return self._blobs[key]
        except KeyError:
            raise KeyError(f"weights blob '{key}' has no data (missing dialect_resources entry)")

    def nbytes(self, key: str) -> int | None:
        data = self._blobs.get(key)
        return None if data is None else len(data)

    # OpAsmDialectInterface: how the parser and printer reach the blobs.
    def declare_resource(self, key: str) -> str:
        # Keys name their content, so a key seen before denotes the same bytes: no renaming.
        return key

    def parse_resource(self, key: str, val: str) -> None:
        if not val.startswith("0x") or len(val) < 10:
            raise ValueError(f"blob '{key}' must be a hex string 0x<alignment><bytes>")
        self._blobs[key] = bytes.fromhex(val[10:])

    def lookup(self, key: str) -> str | None:
        data = self._blobs.get(key)
        return None if data is None else "0x" + _BLOB_ALIGNMENT.hex() + data.hex()

    def build_resources(self, keys: Iterable[str]) -> dict[str, str]:
        return {key: text for key in keys if (text := self.lookup(key)) is not None}


@irdl_attr_definition
class WeightsAttr(ParametrizedAttribute):
    """A reference to a blob in the graph dialect's WeightStore: `#graph.weights<key>`."""

    name = "graph.weights"

    key: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            # xDSL's parser records the handle so that the file's resource section can fill it.
            key = parser._parse_dialect_resource_handle("graph", weight_store(parser))  # pyright: ignore[reportPrivateUsage]
        return [StringAttr(key)]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_resource_handle("graph", self.key.data)


@irdl_attr_definition
class SplatAttr(ParametrizedAttribute):
    """A tensor whose elements all equal `value`: `#graph.splat<1.000000e+00 : f32>`."""

    name = "graph.splat"

    value: FloatAttr | IntegerAttr


ElementsAttr = DenseIntOrFPElementsAttr | WeightsAttr | SplatAttr


def elements_array(value: Attribute, type_: TensorType | MemRefType) -> np.ndarray:
    """The elements `value` denotes for a tensor/buffer of `type_`, without copying where it
    can (a blob is a read-only view of its bytes, a splat a broadcast of one scalar)."""
    dtype = numpy_dtype_of(type_.element_type)
    shape = tuple(type_.get_shape())
    if isinstance(value, WeightsAttr):
        return np.frombuffer(weight_store().get(value.key.data), dtype).reshape(shape)
    if isinstance(value, SplatAttr):
        return np.broadcast_to(np.asarray(value.value.value.data, dtype=dtype), shape)
    assert isinstance(value, DenseIntOrFPElementsAttr), value
    if dtype == np.bool_:  # xDSL stores i1 as one byte per element, true as -1
        array = np.frombuffer(value.data.data, np.int8) != 0
    else:
        array = np.frombuffer(value.data.data, dtype)
    if array.size == 1 and int(np.prod(shape)) != 1:
        return np.broadcast_to(array.reshape(()), shape)
    return array.reshape(shape)


def verify_elements(op_name: str, value: Attribute, type_: Attribute) -> None:
    """Check that a constant's `value` can hold the elements of `type_` (a static tensor or
    buffer): same type for dense values, the element type for splats, the size for blobs."""
    if not isinstance(type_, TensorType | MemRefType) or not type_.has_static_shape():
        raise VerifyException(f"{op_name}: result must have a static shape, got {type_}")
    if type_.element_type not in NUMPY_DTYPES:
        raise VerifyException(f"{op_name}: element type {type_.element_type} is not supported")
    shape = list(type_.get_shape())
    if isinstance(value, DenseIntOrFPElementsAttr):
        if value.type.element_type != type_.element_type or list(value.type.get_shape()) != shape:
            raise VerifyException(f"{op_name}: value has type {value.type} but the result is {type_}")
    elif isinstance(value, SplatAttr):
        if value.value.type != type_.element_type:
            raise VerifyException(
                f"{op_name}: splat of {value.value.type} for elements of {type_.element_type}"
            )
    elif isinstance(value, WeightsAttr):
        key = value.key.data
        size = weight_store().nbytes(key)
        want = type_.element_count() * numpy_dtype_of(type_.element_type).itemsize
        if size is None:
            raise VerifyException(f"{op_name}: weights blob '{key}' has no data in dialect_resources")
        if size != want:
            raise VerifyException(
                f"{op_name}: weights blob '{key}' holds {size} bytes but {type_} needs {want}"
            )


def scalar_attr(value: object, element_type: Attribute) -> FloatAttr | IntegerAttr:
    if isinstance(element_type, IntegerType):
        return IntegerAttr(int(value), element_type)  # type: ignore[arg-type]
    return FloatAttr(float(value), element_type)  # type: ignore[arg-type]


def weight_store(parser: AttrParser | None = None) -> WeightStore:
    """The WeightStore of the graph dialect (the one the parser's context loaded, if given)."""
    if parser is not None:
        store = parser.ctx.get_dialect("graph").get_interface(WeightStore)
    else:
        from minitvm.dialects.graph import Graph

        store = Graph.get_interface(WeightStore)
    assert store is not None
    return store


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A constant tensor: inline `dense<...>` for small or splat values, a blob otherwise.

        %0 = graph.constant dense<[1, 2]> : tensor<2xi64>
        %1 = graph.constant #graph.weights<fc_w_0a1b2c3d4e5f> : tensor<1000x2048xf32>
    """

    name = "graph.constant"

    value = prop_def(ElementsAttr)
    result = result_def(TensorType)

    traits = traits_def(ConstantLike(), NoMemoryEffect())

    def __init__(self, value: ElementsAttr, type_: TensorType):
        super().__init__(properties={"value": value}, result_types=[type_])

    @staticmethod
    def from_array(array: np.ndarray, name_hint: str = "w") -> ConstantOp:
        """Inline for small arrays, a splat when all elements are equal, a blob otherwise."""
        array = np.asarray(array)
        element = element_type_of(array.dtype)
        type_ = TensorType(element, list(array.shape))
        flat = array.reshape(-1) if array.size <= INLINE_LIMIT or any(array.strides) else None
        # A broadcast array (all strides 0) is a splat without looking at its elements.
        if array.size > 1 and (flat is None or bool(np.all(flat == flat[0]))):
            return ConstantOp(SplatAttr(scalar_attr(array.flat[0], element)), type_)
        if array.size <= INLINE_LIMIT:
            values = array.reshape(-1).astype(np.int64) if array.dtype == np.bool_ else array.reshape(-1)
            return ConstantOp(DenseIntOrFPElementsAttr.from_list(type_, values.tolist()), type_)
        return ConstantOp(WeightsAttr(StringAttr(weight_store().add(array, name_hint))), type_)

    def numpy(self) -> np.ndarray:
        """The constant's value as a numpy array (a read-only view for blobs and splats)."""
        return elements_array(self.value, self.result.type)

    def is_splat(self) -> bool:
        return isinstance(self.value, SplatAttr)

    def verify_(self) -> None:
        verify_elements(self.name, self.value, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        value = parser.parse_attribute()
        if isinstance(value, DenseIntOrFPElementsAttr):
            type_ = value.type
        else:
            parser.parse_punctuation(":")
            type_ = parser.parse_type()
        if not isinstance(value, ElementsAttr):
            parser.raise_error(
                "graph.constant expects dense<...>, #graph.splat<...> or #graph.weights<key>"
            )
        if not isinstance(type_, TensorType):
            parser.raise_error(f"graph.constant expects a tensor type, got {type_}")
        attrs = parser.parse_optional_attr_dict()
        op = cls(value, type_)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        if not isinstance(self.value, DenseIntOrFPElementsAttr):
            printer.print_string(" : ")
            printer.print_attribute(self.result.type)
        printer.print_op_attributes(self.attributes)

