"""ONNX -> graph dialect: the first step of minitvm's pipeline.

`from_onnx` reads a model, fixes its input shapes, runs ONNX shape inference and converts the
graph node by node into `func.func @main` over shaped tensors (a dimension the model leaves
dynamic is a symbol: `symbolic.py`, `onnx_symbolic.py`). Each node goes to
the converter registered for its op type (`frontend/onnx_ops.py`), except that a node whose
inputs are all known at import time is evaluated right here and becomes a constant: that is
what folds the Shape -> Gather -> Concat -> Reshape chains exporters emit, and why every
shape-like operand of the graph dialect can be a property.

Weights become `graph.constant`s only where a graph op uses them.
"""

from __future__ import annotations

import math
import os
import re
from collections import ChainMap
from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from google.protobuf.message import DecodeError, Message
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Region, SSAValue

import minitvm.frontend.onnx_attention  # noqa: F401  (registers the Attention converter)
import minitvm.frontend.onnx_composite_ops  # noqa: F401  (registers the composite-op converters)
import minitvm.frontend.onnx_control_flow  # noqa: F401  (registers If, Loop and Scan)
import minitvm.frontend.onnx_data_dependent  # noqa: F401  (registers NonZero, Unique, NonMaxSuppression, ...)
import minitvm.frontend.onnx_einsum  # noqa: F401  (registers the Einsum converter)
import minitvm.frontend.onnx_linalg  # noqa: F401  (registers the Det converter)
import minitvm.frontend.onnx_linear_attention  # noqa: F401  (registers LinearAttention)
import minitvm.frontend.onnx_loss  # noqa: F401  (registers the loss converters)
import minitvm.frontend.onnx_ops  # noqa: F401  (registers the compute-op converters)
import minitvm.frontend.onnx_optional  # noqa: F401  (registers the optional ops)
import minitvm.frontend.onnx_quantize  # noqa: F401  (registers the quantization converters)
import minitvm.frontend.onnx_recurrent  # noqa: F401  (registers LSTM, GRU and RNN)
import minitvm.frontend.onnx_sampling  # noqa: F401  (registers the sampling-op converters)
import minitvm.frontend.onnx_sequence  # noqa: F401  (registers the sequence ops)
import minitvm.frontend.onnx_sequence_models  # noqa: F401  (registers the sequence-model ops)
import minitvm.frontend.onnx_signal  # noqa: F401  (registers the DFT and STFT converters)
import minitvm.frontend.onnx_tensor_ops  # noqa: F401  (registers the tensor-op converters)
import minitvm.frontend.onnx_text  # noqa: F401  (registers the TfIdfVectorizer converter)
from minitvm.dialects.graph import ConstantOp
from minitvm.dialects.graph.base import ClampedSize, UnequalSizes, shape_of, tensor_type
from minitvm.errors import FrontendError
from minitvm.frontend import onnx_symbolic
from minitvm.frontend.onnx_node import (
    CONVERTERS,
    AnyValue,
    NodeContext,
    OptionalValue,
    SequenceValue,
    Value,
    element_type,
    node_error,
    onnx_element_type,
    supported_ops,
    tensor_array,
)
from minitvm.runtime.executable import beyond_memory
from minitvm.symbolic import SYMBOL_RANGE, SymbolicError, SymDim, name_from, symbol, symbol_ranges

MIN_OPSET, MAX_OPSET = 7, 28  # 22-28 changed only element types of the ops we support
_DEFAULT_DOMAINS = ("", "ai.onnx")


def from_onnx(
    model: str | os.PathLike[str] | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int] | Sequence[Sequence[int]]] | None = None,
) -> ModuleOp:
    """Import an ONNX model as a graph-dialect module holding `func.func @main`.

    `input_shapes` maps input names to full shapes; it fixes dynamic dimensions (and may
    override static ones). A dimension given as None stays as the model has it (a symbol if
    dynamic), one given as a range `"1..512"` is a symbol bounded to it (the shape rules may
    use the bound; `symbol_bounds` lists them). A sequence input needs the list of its tensors' shapes: it
    becomes one argument per tensor (`io_names`). An optional input is compiled as given
    (its tensor's shape or its sequence's list of shapes; a static tensor's declared shape
    if it is not named) or as empty (None: then it is no argument). Raises `FrontendError`
    for anything the frontend cannot import.
    """
    proto = load_model(model)
    _check_text(proto)
    opset = default_opset(proto)
    shapes = dict(input_shapes or {})
    optionals = _optional_shapes(proto, shapes)
    sequences = _sequence_shapes(proto, shapes)
    structured = set(sequences) | set(optionals)
    tensor_shapes = {n: s for n, s in shapes.items() if n not in structured}
    bounds = _dim_bounds(proto, tensor_shapes)
    proto = _with_input_shapes(proto, tensor_shapes)
    proto = _infer_shapes(proto)
    aliases: dict[str, str] = {}
    needed: dict[str, tuple[int, int]] = {}
    needed_by: dict[str, str] = {}
    while True:
        importer = _Importer(proto.graph, opset, sequences, optionals)
        importer.symbols.aliases, importer.symbols.needed = aliases, needed
        try:
            with symbol_ranges() as ranges:
                importer.symbols.bind(bounds, ranges)
                module = importer.run()
                module.verify()
            break
        except FrontendError as e:
            if not (
                _unify(e, importer.symbols, aliases)
                or _bound(e, importer.symbols, needed, needed_by)
            ):
                raise
    if aliases:
        module.attributes[UNIFIED_DIMS_ATTR] = DictionaryAttr(
            {name: StringAttr(same) for name, same in sorted(aliases.items())}
        )
    if ranges:
        module.attributes[DIM_BOUNDS_ATTR] = DictionaryAttr(
            {name: StringAttr(f"{lo}..{hi}") for name, (lo, hi) in sorted(ranges.items())}
        )
    # a bound is the node's where no given one narrows it
    sources = {name: node for name, node in needed_by.items() if ranges.get(name) == needed[name]}
    if sources:
        module.attributes[BOUND_SOURCES_ATTR] = DictionaryAttr(
            {name: StringAttr(node) for name, node in sorted(sources.items())}
        )
    return module


#: The module attribute recording the input dimensions taken for one another because an op
#: needs them equal (`h2 = "h1"`: see `_unify`); the run time checks that the inputs agree.
UNIFIED_DIMS_ATTR = "minitvm.unified_dims"


def _unify(error: FrontendError, symbols: _Symbols, aliases: dict[str, str]) -> bool:
    """Whether `error` is an op needing two input dimensions of different names equal (a
    U-Net's skip connection, an Add of two inputs declared [n] and [m]), now recorded in
    `aliases` so that the import, run again, makes the second the first: one size, which
    the run time then checks both inputs' shapes against (as for any symbol two inputs
    share). Only symbols the inputs' dynamic dimensions make are unified; an expression
    (`2*floordiv(h, 2)` against `h`) stays an error."""
    cause = error.__cause__
    if not isinstance(cause, UnequalSizes):
        return False
    first, second = cause.symbols
    made = symbols.made()
    if first not in made or second not in made or second in aliases:
        return False
    aliases[second] = first
    return True


def _bound(
    error: FrontendError,
    symbols: _Symbols,
    needed: dict[str, tuple[int, int]],
    needed_by: dict[str, str],
) -> bool:
    """Whether `error` is an op needing a symbol equal to a clamp of it (`ClampedSize`:
    `sequence` tokens plus `min(64, sequence)` positions), now recorded in `needed` as the
    bound that makes them equal, so that the import, run again, decides the clamp: the model
    runs at the sizes it can run at (ONNX Runtime's too), the run time refusing others as
    it refuses sizes outside a bound `input_shapes` gives. Only a symbol an input's dynamic
    dimension makes is bounded, once; `needed_by` names the node that needs it, for the run
    time's refusal to name."""
    cause = error.__cause__
    if not isinstance(cause, ClampedSize):
        return False
    if cause.symbol not in symbols.made() or cause.symbol in needed:
        return False
    needed[cause.symbol] = cause.bound
    needed_by[cause.symbol] = error.where
    return True


#: The module attribute recording the bounds `input_shapes` gave symbols (`seq = "1..512"`),
#: which the shape rules relied on: the run time must refuse sizes outside them.
DIM_BOUNDS_ATTR = "minitvm.dim_bounds"


#: The module attribute naming, for a bound the model's own shapes need (`_bound`) and no
#: given one narrows, the node that needs it (`seq = "node 'Add_3' (Add, opset 14)"`): the
#: run time's refusal of a size outside it says why the model was compiled for that range.
BOUND_SOURCES_ATTR = "minitvm.dim_bound_sources"


def bound_sources(module: ModuleOp) -> dict[str, str]:
    """The nodes that need the module's bounds, where they do (`BOUND_SOURCES_ATTR`)."""
    attr = module.attributes.get(BOUND_SOURCES_ATTR)
    if not isinstance(attr, DictionaryAttr):
        return {}
    return {name: text.data for name, text in attr.data.items()}  # type: ignore[attr-defined]


def symbol_bounds(module: ModuleOp) -> dict[str, tuple[int, int]]:
    """The bounds of the module's bounded symbols (`DIM_BOUNDS_ATTR`)."""
    attr = module.attributes.get(DIM_BOUNDS_ATTR)
    if not isinstance(attr, DictionaryAttr):
        return {}
    result = {}
    for name, text in attr.data.items():
        lo, hi = text.data.split("..")  # type: ignore[attr-defined]
        result[name] = (int(lo), int(hi))
    return result


_RANGE = re.compile(r"(\d+)\.\.(\d+)")


def _dim_bounds(
    model: onnx.ModelProto, shapes: Mapping[str, Sequence[object]]
) -> dict[tuple[str, int], tuple[int, int]]:
    """(input, axis) -> (lo, hi) for each dimension `input_shapes` gives as `"lo..hi"`."""
    bounds = {}
    for name, shape in shapes.items():
        for axis, dim in enumerate(shape):
            if not isinstance(dim, str):
                continue
            match = _RANGE.fullmatch(dim.strip())
            if not match or not 1 <= int(match[1]) <= int(match[2]) <= SYMBOL_RANGE[1]:
                raise FrontendError(
                    f"input_shapes gives input '{name}' dimension {axis} as '{dim}'; a bound "
                    f"is written 'lo..hi' with 1 <= lo <= hi <= {SYMBOL_RANGE[1]}"
                )
            bounds[(name, axis)] = (int(match[1]), int(match[2]))
    return bounds


#: The module attribute naming @main's arguments and results after the ONNX values they
#: are, where those are not one-to-one with the graph's inputs and outputs: a sequence input
#: or output `x` of n tensors is n of them, named `x[0]` ... `x[n-1]` (`io_names`); an
#: optional input or output is its element's, or none when it is empty ("absent" lists the
#: empty outputs: `absent_outputs`).
IO_NAMES_ATTR = "minitvm.io_names"


def sequence_item_name(name: str, index: int) -> str:
    """The name of the `index`-th tensor of sequence input or output `name` at run time."""
    return f"{name}[{index}]"


def io_names(module: ModuleOp) -> tuple[list[str], list[str]] | None:
    """The names of @main's arguments and results recorded by `from_onnx` (None when they
    are the graph's own inputs and outputs, one to one)."""
    names = module.attributes.get(IO_NAMES_ATTR)
    if not isinstance(names, DictionaryAttr):
        return None
    inputs, outputs = names.data["inputs"], names.data["outputs"]
    assert isinstance(inputs, ArrayAttr) and isinstance(outputs, ArrayAttr)
    return [s.data for s in inputs.data], [s.data for s in outputs.data]  # type: ignore[attr-defined]


def absent_outputs(module: ModuleOp) -> tuple[str, ...]:
    """The optional graph outputs that are empty as compiled (no result of @main)."""
    names = module.attributes.get(IO_NAMES_ATTR)
    absent = names.data.get("absent") if isinstance(names, DictionaryAttr) else None
    return tuple(s.data for s in absent.data) if isinstance(absent, ArrayAttr) else ()  # type: ignore[attr-defined]


def _sequence_shapes(
    model: onnx.ModelProto, shapes: dict[str, Sequence[int]]
) -> dict[str, list[tuple[int, ...]]]:
    """The shapes of the tensors of each sequence input, which `input_shapes` must give as a
    list of shapes (a sequence's length is part of what is compiled, as a tensor's shape
    is)."""
    initializers = {t.name for t in model.graph.initializer}
    result = {}
    for value in model.graph.input:
        if value.name in initializers or not value.type.HasField("sequence_type"):
            continue
        given = shapes.get(value.name)
        if given is None or not all(isinstance(s, Sequence) for s in given):
            raise FrontendError(
                f"input '{value.name}' is a sequence of tensors; give the shape of each with "
                f"input_shapes={{'{value.name}': [(...), (...), ...]}}"
            )
        result[value.name] = [tuple(int(d) for d in s) for s in given]  # type: ignore[union-attr]
    return result


#: An optional input as compiled: None (empty), its tensor's shape, or its sequence's shapes.
OptionalShape = tuple[int, ...] | list[tuple[int, ...]] | None


def _optional_shapes(
    model: onnx.ModelProto, shapes: dict[str, object]
) -> dict[str, OptionalShape]:
    """How each optional input is compiled (`from_onnx`): given, with which shapes, or empty."""
    initializers = {t.name for t in model.graph.initializer}
    result: dict[str, OptionalShape] = {}
    for value in model.graph.input:
        if value.name in initializers or not value.type.HasField("optional_type"):
            continue
        elem = value.type.optional_type.elem_type
        given = shapes.get(value.name, ())
        if value.name in shapes and given is None:
            result[value.name] = None
        elif elem.HasField("sequence_type"):
            if value.name not in shapes or not all(isinstance(s, Sequence) for s in given):  # type: ignore[union-attr]
                raise FrontendError(
                    f"input '{value.name}' is an optional sequence; give the shape of each of "
                    f"its tensors with input_shapes={{'{value.name}': [(...), ...]}}, or None "
                    "for an empty one"
                )
            result[value.name] = [tuple(int(d) for d in s) for s in given]  # type: ignore[union-attr]
        elif elem.HasField("tensor_type"):
            if value.name in shapes:
                result[value.name] = tuple(int(d) for d in given)  # type: ignore[union-attr]
                continue
            dims = elem.tensor_type.shape.dim
            if not elem.tensor_type.HasField("shape") or not all(d.HasField("dim_value") for d in dims):
                raise FrontendError(
                    f"input '{value.name}' is an optional tensor of unknown shape; give it with "
                    f"input_shapes={{'{value.name}': (...)}}, or None for an empty one"
                )
            result[value.name] = tuple(d.dim_value for d in dims)
        else:
            raise FrontendError(f"input '{value.name}' is an optional of neither a tensor nor a sequence")
    return result


#: Float initializers of more bytes than this go to ONNX's shape inference without their data:
#: their shapes are all it reads of them (the float tensors whose values it reads, Resize's
#: scales or Pad's value, are a few numbers), and copying a model's weights to C++ and back
#: took 0.3 s of a 0.7 s ResNet-50 import.
_SHAPE_ONLY_BYTES = 1 << 16
_FLOAT_TYPES = (
    onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16,
    onnx.TensorProto.BFLOAT16,
)  # fmt: skip


def _infer_shapes(proto: onnx.ModelProto) -> onnx.ModelProto:
    """ONNX's shape inference (with data propagation) of `proto`, which it leaves as it is:
    run on a copy whose large float initializers and Constant values have their shapes but
    no data, which the result then gets back."""
    graph = proto.graph
    heavy_inits = {n: t for n, t in enumerate(graph.initializer) if _heavy(t)}
    heavy_nodes = {
        n: node.attribute[0].t
        for n, node in enumerate(graph.node)
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx")
        and len(node.attribute) == 1 and node.attribute[0].name == "value"
        and _heavy(node.attribute[0].t)
    }  # fmt: skip
    light = proto
    if heavy_inits or heavy_nodes:
        light = onnx.ModelProto()
        _copy_fields(proto, light, skip="graph")
        _copy_fields(graph, light.graph, skip=("initializer", "node"))
        for n, init in enumerate(graph.initializer):
            if n in heavy_inits:
                light.graph.initializer.append(_shape_only(init))
            else:
                light.graph.initializer.add().CopyFrom(init)
        for n, node in enumerate(graph.node):
            copy = light.graph.node.add()
            if n in heavy_nodes:
                _copy_fields(node, copy, skip=("attribute",))
                copy.attribute.add(name="value", type=onnx.AttributeProto.TENSOR)
                copy.attribute[0].t.CopyFrom(_shape_only(heavy_nodes[n]))
            else:
                copy.CopyFrom(node)
    try:
        inferred = onnx.shape_inference.infer_shapes(light, data_prop=True)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as e:
        raise FrontendError(f"ONNX shape inference failed: {e}") from e
    for n, tensor in heavy_inits.items():
        inferred.graph.initializer[n].CopyFrom(tensor)
    for n, tensor in heavy_nodes.items():
        inferred.graph.node[n].attribute[0].t.CopyFrom(tensor)
    return inferred


def _heavy(tensor: onnx.TensorProto) -> bool:
    return tensor.data_type in _FLOAT_TYPES and tensor.ByteSize() > _SHAPE_ONLY_BYTES


def _shape_only(tensor: onnx.TensorProto) -> onnx.TensorProto:
    return onnx.TensorProto(name=tensor.name, dims=tensor.dims, data_type=tensor.data_type)


def _copy_fields(source: Message, target: Message, skip: str | tuple[str, ...]) -> None:
    """Copy every field set in `source` but those named in `skip` into the empty `target`."""
    for descriptor, value in source.ListFields():
        if descriptor.name in ((skip,) if isinstance(skip, str) else skip):
            continue
        field = getattr(target, descriptor.name)
        if descriptor.is_repeated:
            field.extend(value)
        elif descriptor.type == descriptor.TYPE_MESSAGE:
            field.CopyFrom(value)
        else:
            setattr(target, descriptor.name, value)


def load_model(model: str | os.PathLike[str] | onnx.ModelProto) -> onnx.ModelProto:
    """`model` itself, or the model in the file it names; a FrontendError for a file that is
    missing, unreadable, or not an ONNX model (truncated, corrupted, empty, another format)."""
    if isinstance(model, onnx.ModelProto):
        return model
    path = os.fspath(model)
    try:
        proto = onnx.load(path)
    except DecodeError:
        raise FrontendError(f"{path} is not an ONNX model (it does not parse as one)") from None
    except onnx.checker.ValidationError as e:  # e.g. external data outside the model's folder
        raise FrontendError(f"cannot read ONNX model '{path}': {e}") from None
    except OSError as e:  # a missing file, a directory, missing external data
        raise FrontendError(f"cannot read ONNX model '{path}': {e.strerror or e}") from None
    if not proto.HasField("graph"):
        raise FrontendError(f"{path} is not an ONNX model (it has no graph)")
    return proto


def _check_text(message: Message, path: str = "") -> None:
    """A FrontendError for a name or other text field that is not UTF-8 (protobuf hands such
    a field to Python as bytes, which no code downstream expects: a damaged file)."""
    for field, value in message.ListFields():
        if field.type not in (field.TYPE_STRING, field.TYPE_MESSAGE):
            continue
        for n, item in enumerate(value if field.is_repeated else [value]):
            where = f"{path}.{field.name}" if path else field.name
            where += f"[{n}]" if field.is_repeated else ""
            if isinstance(item, bytes):
                raise FrontendError(f"the model's {where} is not UTF-8 text ({item[:40]!r})")
            if field.type == field.TYPE_MESSAGE:
                _check_text(item, where)


def default_opset(model: onnx.ModelProto) -> int:
    """The model's opset of the default ONNX domain, checked against what we support."""
    versions = [o.version for o in model.opset_import if o.domain in _DEFAULT_DOMAINS]
    if not versions:
        raise FrontendError("the model imports no default-domain (ai.onnx) opset")
    opset = versions[0]
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise FrontendError(
            f"model opset {opset} is not supported; supported opsets: {MIN_OPSET} to {MAX_OPSET}"
        )
    return opset


def _with_input_shapes(model: onnx.ModelProto, shapes: dict[str, Sequence[int]]) -> onnx.ModelProto:
    """A copy of `model` whose inputs have the given shapes (and every other input static)."""
    graph = model.graph
    initializers = {t.name for t in graph.initializer}
    inputs = {i.name: i for i in graph.input if i.name not in initializers}
    unknown = sorted(set(shapes) - set(inputs))
    if unknown:
        raise FrontendError(
            f"input_shapes names {', '.join(repr(n) for n in unknown)}, which are not model "
            f"inputs; the inputs are: {', '.join(repr(n) for n in inputs)}"
        )
    if shapes:
        model = onnx.ModelProto.FromString(model.SerializeToString())
        graph = model.graph
        # Annotations computed for the old shapes would contradict the new ones.
        del graph.value_info[:]
        for output in graph.output:
            output.type.tensor_type.ClearField("shape")
        for value in graph.input:
            if value.name in shapes:
                _set_shape(value, shapes[value.name])
    for value in graph.input:
        structured = value.type.HasField("sequence_type") or value.type.HasField("optional_type")
        if value.name not in initializers and not structured:
            _check_tensor(value)  # (sequences and optionals: _sequence_shapes, _optional_shapes)
    return model


def _set_shape(value: onnx.ValueInfoProto, shape: Sequence[int | str | None]) -> None:
    """Give `value` the numbers of `shape`; a None or bounded ("lo..hi") entry keeps the
    model's dimension, named `<input>_<axis>` if it has no name (a symbol: `_Symbols`)."""
    tensor = value.type.tensor_type
    old = list(tensor.shape.dim) if tensor.HasField("shape") else None
    if old is not None and len(old) != len(shape):
        raise FrontendError(
            f"input_shapes gives input '{value.name}' rank {len(shape)} ({tuple(shape)}), but "
            f"the model declares rank {len(old)}"
        )
    if old is None and any(not isinstance(d, int) for d in shape):
        raise FrontendError(
            f"input_shapes gives input '{value.name}' of unknown rank a dimension that is not "
            f"a number: {tuple(shape)}"
        )
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise FrontendError(
            f"input_shapes gives input '{value.name}' a negative dimension: {tuple(shape)}"
        )
    kept = [onnx.TensorShapeProto.Dimension() for _ in shape]
    for axis, d in enumerate(shape):
        if isinstance(d, int):
            kept[axis].dim_value = int(d)
        else:
            assert old is not None
            given = old[axis]
            keep = given.HasField("dim_param") or not given.HasField("dim_value")
            kept[axis].dim_param = given.dim_param if keep else f"{value.name}_{axis}"
    tensor.ClearField("shape")
    tensor.shape.SetInParent()
    tensor.shape.dim.extend(kept)


def _check_tensor(value: onnx.ValueInfoProto) -> None:
    """A graph input must be a tensor of known rank; its dimensions may be dynamic (named by
    a dim_param, or unknown): they become symbols (`input_dims`)."""
    tensor = value.type.tensor_type
    if not value.type.HasField("tensor_type"):
        raise FrontendError(
            f"input '{value.name}' is not a tensor; only tensor inputs are supported"
        )
    if not tensor.HasField("shape"):
        raise FrontendError(
            f"input '{value.name}' has an unknown rank; give its shape with "
            f"input_shapes={{'{value.name}': (...)}}"
        )




class _Symbols:
    """The symbols of a model's dynamic input dimensions: a dim_param names one (the same
    name in two inputs is the same size), an unnamed dimension gets `<input>_<axis>`. Names
    are made valid symbol names (`symbolic.py`) without merging two of them."""

    def __init__(self) -> None:
        self.by_name: dict[str, SymDim] = {}
        self.bounds: Mapping[tuple[str, int], tuple[int, int]] = {}
        self.ranges: dict[str, tuple[int, int]] = {}
        #: symbol -> the symbol it is taken for (`_unify`)
        self.aliases: Mapping[str, str] = {}
        #: symbol -> the bound the model's own shapes need (`_bound`)
        self.needed: Mapping[str, tuple[int, int]] = {}

    def bind(
        self, bounds: Mapping[tuple[str, int], tuple[int, int]], ranges: dict[str, tuple[int, int]]
    ) -> None:
        """Bound the symbols of these (input, axis) dimensions, writing each symbol's range
        (the intersection of its dimensions' bounds) into `ranges` as it is made."""
        self.bounds, self.ranges = bounds, ranges

    def made(self) -> set[str]:
        """The names of the symbols made so far (each a dynamic input dimension's)."""
        return {str(s) for s in self.by_name.values()}

    def dim(self, value: str, axis: int, dim: onnx.TensorShapeProto.Dimension) -> int | SymDim:
        if dim.HasField("dim_value") and dim.dim_value >= 0:
            return dim.dim_value
        name = dim.dim_param if dim.HasField("dim_param") and dim.dim_param else f"{value}_{axis}"
        if name not in self.by_name:
            text = name_from(name)
            taken = self.made()
            unique, n = text, 1
            while unique in taken:
                unique, n = f"{text}_{n}", n + 1
            self.by_name[name] = symbol(unique)
        found = self.by_name[name]
        while str(found) in self.aliases:
            found = symbol(self.aliases[str(found)])
        key = str(found)
        # (a bound the shapes need overlaps any given: one that did not would decide the
        # clamp that asked for it)
        for bound in (self.bounds.get((value, axis)), self.needed.get(key)):
            if bound is None:
                continue
            lo, hi = self.ranges.get(key, (bound[0], bound[1]))
            lo, hi = max(lo, bound[0]), min(hi, bound[1])
            if lo > hi:
                raise FrontendError(
                    f"input_shapes bounds dimension '{key}' to ranges that do not overlap "
                    f"(input '{value}' dimension {axis}: {bound[0]}..{bound[1]})"
                )
            self.ranges[key] = (lo, hi)
        return found


def _nbytes(shape: Sequence[int], elem_type: int) -> int:
    """Bytes of a tensor of `shape` and ONNX element type (1 per element if unknown)."""
    try:
        itemsize = onnx.helper.tensor_dtype_to_np_dtype(elem_type).itemsize
    except KeyError:
        itemsize = 1
    return math.prod(shape) * itemsize


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------

_INVALID_NAME_CHARS = re.compile(r"[^\w$.-]")
_NUMBERED_SUFFIX = re.compile(r"_\d+$")


def name_hint(onnx_name: str) -> str | None:
    """A valid, stable SSA name hint for an ONNX value name (None if nothing readable is left).

    xDSL drops a trailing `_<digits>` from hints (it uses that suffix to disambiguate), so we
    drop all of them here: a hint must survive print -> parse unchanged.
    """
    hint = _INVALID_NAME_CHARS.sub("_", onnx_name).strip("_")
    while _NUMBERED_SUFFIX.search(hint):
        hint = _NUMBERED_SUFFIX.sub("", hint)
    if not hint or hint[0].isdigit():
        return None
    return hint


# --------------------------------------------------------------------------------------------
# The importer
# --------------------------------------------------------------------------------------------


class _Importer:
    """Converts one ONNX graph into the body of `func.func @main`."""

    def __init__(
        self,
        graph: onnx.GraphProto,
        opset: int,
        sequences: Mapping[str, Sequence[tuple[int, ...]]] | None = None,
        optionals: Mapping[str, OptionalShape] | None = None,
    ):
        self.graph = graph
        self.opset = opset
        self.sequences = dict(sequences or {})
        self.optionals = dict(optionals or {})
        self.body = Block()  # @main's
        self.block = self.body  # where converted nodes go: the body, or a graph.if branch
        # One scope per subgraph being converted (If branches, Loop and Scan bodies): a
        # subgraph sees the names of the scopes around it; its own names stay inside.
        self.values: ChainMap[str, AnyValue] = ChainMap()
        # @main's arguments and results by ONNX name (a sequence is several: IO_NAMES_ATTR).
        self.arg_names: list[str] = []
        self.result_names: list[str] = []
        self.absent_outputs: list[str] = []  # empty optionals: no result at all
        # Materialized constants, by array identity (arrays are kept alive alongside).
        self.constants: dict[int, tuple[np.ndarray, SSAValue]] = {}
        self.used = names_used(graph)
        self.symbols = _Symbols()
        self.inferred = {v.name: v.type for v in (*graph.value_info, *graph.output)}

    def run(self) -> ModuleOp:
        self._add_inputs()
        for index, node in enumerate(self.graph.node):
            self._convert(node, index)
        results = [r for o in self.graph.output for r in self._output(o.name)]
        self.body.add_op(ReturnOp(*results))
        arg_types = [arg.type for arg in self.body.args]
        func = FuncOp("main", (arg_types, [r.type for r in results]), Region(self.body))
        module = ModuleOp([func])
        if (self.sequences or self.optionals or self.absent_outputs
                or self.result_names != [o.name for o in self.graph.output]):  # fmt: skip
            names = {
                "inputs": ArrayAttr([StringAttr(n) for n in self.arg_names]),
                "outputs": ArrayAttr([StringAttr(n) for n in self.result_names]),
            }
            if self.absent_outputs:
                names["absent"] = ArrayAttr([StringAttr(n) for n in self.absent_outputs])
            module.attributes[IO_NAMES_ATTR] = DictionaryAttr(names)
        return module

    def _add_arg(self, name: str, elem: Attribute, shape: Sequence[int | SymDim]) -> SSAValue:
        arg = self.body.insert_arg(tensor_type(shape, elem), len(self.body.args))
        arg.name_hint = name_hint(name)
        self.arg_names.append(name)
        return arg

    def _add_inputs(self) -> None:
        initializers = {t.name: t for t in self.graph.initializer}
        for name, tensor in initializers.items():
            self.values[name] = tensor_array(tensor, f"initializer '{name}'")
        for value in self.graph.input:
            if value.name in initializers:
                continue  # an input with an initializer is a constant (a frozen weight)
            if value.name in self.sequences:
                elem = value.type.sequence_type.elem_type
                shapes = self.sequences[value.name]
                self.values[value.name] = self._sequence_input(value.name, elem, shapes)
                continue
            if value.name in self.optionals:
                self.values[value.name] = self._optional_input(value)
                continue
            tensor = value.type.tensor_type
            elem = onnx_element_type(tensor.elem_type, f"input '{value.name}'")
            shape = [self.symbols.dim(value.name, i, d) for i, d in enumerate(tensor.shape.dim)]
            static = [d for d in shape if isinstance(d, int)]
            problem = beyond_memory(_nbytes(static, tensor.elem_type))
            if problem:
                raise FrontendError(f"input '{value.name}' of shape {tuple(shape)} {problem}")
            self.values[value.name] = self._add_arg(value.name, elem, shape)

    def _sequence_input(
        self, name: str, elem_type: onnx.TypeProto, shapes: Sequence[tuple[int, ...]]
    ) -> SequenceValue:
        """A sequence input: one argument per tensor, named `name[i]`."""
        if not elem_type.HasField("tensor_type"):
            raise FrontendError(f"input '{name}' is a sequence of non-tensors")
        onnx_type = elem_type.tensor_type.elem_type
        elem = onnx_element_type(onnx_type, f"input '{name}'")
        items = tuple(
            self._add_arg(sequence_item_name(name, i), elem, shape)
            for i, shape in enumerate(shapes)
        )
        return SequenceValue(items, np.dtype(onnx.helper.tensor_dtype_to_np_dtype(onnx_type)))

    def _optional_input(self, value: onnx.ValueInfoProto) -> OptionalValue:
        """An optional input as `_optional_shapes` has it: empty (no argument), a tensor (an
        argument named as the input) or a sequence (one per tensor, `name[i]`)."""
        shape = self.optionals[value.name]
        elem_type = value.type.optional_type.elem_type
        if shape is None:
            return OptionalValue(None)
        if isinstance(shape, list):
            return OptionalValue(self._sequence_input(value.name, elem_type.sequence_type.elem_type, shape))
        onnx_type = elem_type.tensor_type.elem_type
        elem = onnx_element_type(onnx_type, f"input '{value.name}'")
        problem = beyond_memory(_nbytes(shape, onnx_type))
        if problem:
            raise FrontendError(f"input '{value.name}' of shape {shape} {problem}")
        return OptionalValue(self._add_arg(value.name, elem, shape))

    def _output(self, name: str) -> list[SSAValue]:
        """The results graph output `name` is: one tensor, or a sequence's tensors."""
        if name not in self.values:
            raise FrontendError(f"graph output '{name}' is not produced by any node")
        value = self.values[name]
        if isinstance(value, OptionalValue):
            if value.element is None:
                self.absent_outputs.append(name)
                return []
            value = value.element
        if isinstance(value, SequenceValue):
            self.result_names += [sequence_item_name(name, i) for i in range(len(value))]
            return [self._tensor(item, name) for item in value.items]
        self.result_names.append(name)
        return [self._tensor(value, name)]

    def _tensor(self, value: Value, name: str) -> SSAValue:
        return self._materialize(value, name) if isinstance(value, np.ndarray) else value

    # -- nodes -----------------------------------------------------------------------------------

    def _convert(self, node: onnx.NodeProto, index: int) -> None:
        default_domain = node.domain in _DEFAULT_DOMAINS
        info = CONVERTERS.get(node.op_type) if default_domain else None
        if info is None:
            op_type = node.op_type if default_domain else f"{node.domain}.{node.op_type}"
            raise node_error(
                node,
                index,
                self.opset,
                f"unsupported op {op_type}; supported ops: {', '.join(supported_ops())}",
            )
        inputs = [self._lookup(node, index, name) for name in node.input]
        self._check_sizes(node, index)
        ctx = NodeContext(
            node, index, self.opset, inputs, self.block, self._materialize,
            self.used.__contains__, self._subgraph,
        )  # fmt: skip
        present = [v for v in inputs if v is not None]
        folded = None
        try:
            if not info.folds and present and all(isinstance(v, np.ndarray) for v in present):
                symbolic = any(v.dtype == object for v in present)  # type: ignore[union-attr]
                folded = onnx_symbolic.fold(ctx) if symbolic else self._fold(ctx)
            outputs: list[AnyValue | None] = list(folded if folded is not None else info.fn(ctx))
        except SymbolicError as e:  # a size known only at run time where a number is needed
            raise ctx.error(f"{e}; fix the input dimensions with input_shapes") from None
        for i, name in enumerate(node.output):
            if not name:
                continue
            value = outputs[i] if i < len(outputs) else None
            if value is None:
                if name in self.used:
                    raise ctx.error(f"output {i} ('{name}') is not supported")
                continue
            if name in self.values.maps[0]:
                raise ctx.error(
                    f"output '{name}' is already defined (by an earlier node, an input or an "
                    "initializer); an ONNX graph defines each name once"
                )
            self._check_inferred(ctx, name, value)
            if isinstance(value, SSAValue) and value.name_hint is None:
                value.name_hint = name_hint(name)
            self.values[name] = value

    def _subgraph(
        self, graph: onnx.GraphProto, inputs: dict[str, AnyValue], block: Block | None = None
    ) -> list[AnyValue]:
        """Convert `graph`'s nodes in a new scope holding its initializers and `inputs`;
        its outputs, looked up before the scope closes. With `block`, the nodes' ops go
        there (a region of graph.if) instead of the function's body."""
        if block is not None:
            outer, self.block = self.block, block
            try:
                return self._subgraph(graph, inputs)
            finally:
                self.block = outer
        scope: dict[str, AnyValue] = {
            t.name: tensor_array(t, f"initializer '{t.name}' of subgraph '{graph.name}'")
            for t in graph.initializer
        }
        scope.update(inputs)
        self.values = self.values.new_child(scope)
        try:
            for index, node in enumerate(graph.node):
                self._convert(node, index)
            missing = [o.name for o in graph.output if o.name not in self.values]
            if missing:
                raise FrontendError(
                    f"subgraph '{graph.name}' output '{missing[0]}' is not produced by any node"
                )
            return [self.values[o.name] for o in graph.output]
        finally:
            self.values = self.values.parents

    def _lookup(self, node: onnx.NodeProto, index: int, name: str) -> AnyValue | None:
        if not name:
            return None  # an omitted optional input
        try:
            return self.values[name]
        except KeyError:
            raise node_error(
                node, index, self.opset, f"input '{name}' is not defined before use"
            ) from None

    def _fold(self, ctx: NodeContext) -> list[np.ndarray] | None:
        """Evaluate a node whose inputs are all constants with ONNX's reference implementation;
        None where the reference cannot (it has no GlobalLpPool, and refuses GatherElements
        indices smaller than the data, which the spec allows) or gives a shape ONNX's shape
        inference does not (its GlobalMaxPool of a 3-D input drops the channel axis): the node
        is converted and compiled as any other then, and a node that is truly wrong is refused
        there."""
        helper, node = onnx.helper, ctx.node
        names = [n for n in node.input if n]
        # (np.ascontiguousarray would turn scalars into 1-element vectors.)
        arrays = [np.asarray(v, order="C") for v in ctx.inputs if v is not None]
        inputs = [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in zip(names, arrays, strict=True)
        ]
        outputs = [helper.make_empty_tensor_value_info(n) for n in node.output if n]
        graph = helper.make_graph([node], "fold", inputs, outputs)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", ctx.opset)])
        try:
            results = ReferenceEvaluator(model).run(None, dict(zip(names, arrays, strict=True)))
        except Exception:  # noqa: BLE001  (it raises whatever numpy raises, or that it has no kernel)
            return None
        produced = iter(np.asarray(r) for r in results)
        folded = [next(produced) if n else None for n in node.output]
        for name, value in zip(node.output, folded):
            shape = self._inferred_shape(name)
            if value is not None and shape is not None and shape != value.shape:
                return None
        return folded  # type: ignore[return-value]

    def _inferred_shape(self, name: str) -> tuple[int, ...] | None:
        """The static shape ONNX's shape inference gives value `name` (None: it gives none)."""
        shape = self._inferred_dims(name)
        return None if shape is None or None in shape else shape  # type: ignore[return-value]

    def _inferred_dims(self, name: str) -> tuple[int | None, ...] | None:
        """The shape ONNX's shape inference gives value `name`, None for a dimension it
        does not know as a number (None for all: it gives no shape)."""
        inferred = self.inferred.get(name)
        if inferred is None or not inferred.HasField("tensor_type"):
            return None
        tensor = inferred.tensor_type
        if not tensor.HasField("shape"):
            return None
        return tuple(d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim)

    def _check_sizes(self, node: onnx.NodeProto, index: int) -> None:
        """A FrontendError, before the node is converted or folded, if ONNX shape inference
        says one of its outputs would not fit in the machine's memory (an Expand,
        ConstantOfShape or Reshape to 2^40 elements): numpy would fail to allocate it here, or
        a later pass or the run would."""
        for name in node.output:
            inferred = self.inferred.get(name)
            if inferred is None or not inferred.HasField("tensor_type"):
                continue
            tensor = inferred.tensor_type
            dims = tensor.shape.dim
            if not tensor.HasField("shape") or not all(d.HasField("dim_value") for d in dims):
                continue
            shape = [d.dim_value for d in dims]
            problem = beyond_memory(_nbytes(shape, tensor.elem_type))
            if problem:
                raise node_error(
                    node, index, self.opset, f"output '{name}' of shape {tuple(shape)} {problem}"
                )

    def _check_inferred(self, ctx: NodeContext, name: str, value: AnyValue) -> None:
        """Compare with ONNX shape inference. A disagreement means a wrong shape annotation in
        the model or a frontend bug; either way it is caught here, not as a wrong answer at run
        time."""
        want = self._inferred_dims(name)
        if want is None:
            return
        type_ = value.type if isinstance(value, SSAValue) else None
        got = shape_of(type_) if isinstance(type_, TensorType) else tuple(np.shape(value))
        if len(want) != len(got) or any(
            w is not None and isinstance(d, int) and w != d for w, d in zip(want, got)
        ):
            if _ceil_mode_pool(ctx.node) or (ctx.op_type == "NonZero" and not ctx.shape(0)):
                # ONNX's shape inference (1.23) keeps a ceil_mode window that would start in
                # the end padding; the spec and ONNX Runtime drop it, as we do. It gives a
                # scalar's NonZero 0 rows; ONNX Runtime (and numpy) 1, as we do. The shapes it
                # inferred downstream are off by as much: check no more against them.
                self.inferred = {}
                return
            raise ctx.error(
                f"output '{name}' has shape {got}, but the model's shapes (after ONNX shape "
                f"inference) say {want}"
            )

    # -- constants -------------------------------------------------------------------------------

    def _materialize(self, array: np.ndarray, onnx_name: str) -> SSAValue:
        """The graph.constant holding `array`, created at its first use, in the function's
        body (also when a graph.if branch uses it first: it may be used after the if)."""
        cached = self.constants.get(id(array))
        if cached is not None:
            return cached[1]
        op = _constant_op(array, onnx_name)
        self.body.add_op(op)
        result = op.result
        result.name_hint = name_hint(onnx_name)
        self.constants[id(array)] = (array, result)
        return result


def _ceil_mode_pool(node: onnx.NodeProto) -> bool:
    return node.op_type in ("MaxPool", "AveragePool", "LpPool") and any(
        a.name == "ceil_mode" and a.i for a in node.attribute
    )


def names_used(graph: onnx.GraphProto) -> set[str]:
    """Every value name read by a node of `graph` or of its subgraphs (at any depth), and
    its outputs: a value read only inside an If branch or a Loop body is used."""
    used = {o.name for o in graph.output}
    for node in graph.node:
        used.update(name for name in node.input if name)
        for attr in node.attribute:
            for sub in (attr.g, *attr.graphs) if attr.HasField("g") else attr.graphs:
                used |= names_used(sub)
    return used


def _constant_op(array: np.ndarray, onnx_name: str) -> ConstantOp:
    """`ConstantOp.from_array`, with an unsupported element type as a FrontendError.

    Arrays from ConstantOfShape are broadcast views (all strides 0); from_array turns them
    into splats without expanding them (VGG's 400 MB of weights are such splats)."""
    element_type(array.dtype, f"constant '{onnx_name}'")
    return ConstantOp.from_array(array, name_hint=onnx_name)
