"""ONNX -> graph dialect: the first step of minitvm's pipeline.

`from_onnx` reads a model, fixes its input shapes, runs ONNX shape inference and converts the
graph node by node into `func.func @main` over statically shaped tensors. Each node goes to
the converter registered for its op type (`frontend/onnx_ops.py`), except that a node whose
inputs are all known at import time is evaluated right here and becomes a constant: that is
what folds the Shape -> Gather -> Concat -> Reshape chains exporters emit, and why every
shape-like operand of the graph dialect can be a property.

Weights become `graph.constant`s only where a graph op uses them.
"""

from __future__ import annotations

import os
import re
from collections import ChainMap
from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from google.protobuf.message import DecodeError, Message
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region, SSAValue

import minitvm.frontend.onnx_attention  # noqa: F401  (registers the Attention converter)
import minitvm.frontend.onnx_composite_ops  # noqa: F401  (registers the composite-op converters)
import minitvm.frontend.onnx_control_flow  # noqa: F401  (registers If, Loop and Scan)
import minitvm.frontend.onnx_einsum  # noqa: F401  (registers the Einsum converter)
import minitvm.frontend.onnx_linalg  # noqa: F401  (registers the Det converter)
import minitvm.frontend.onnx_linear_attention  # noqa: F401  (registers LinearAttention)
import minitvm.frontend.onnx_loss  # noqa: F401  (registers the loss converters)
import minitvm.frontend.onnx_ops  # noqa: F401  (registers the compute-op converters)
import minitvm.frontend.onnx_quantize  # noqa: F401  (registers the quantization converters)
import minitvm.frontend.onnx_recurrent  # noqa: F401  (registers LSTM, GRU and RNN)
import minitvm.frontend.onnx_sampling  # noqa: F401  (registers the sampling-op converters)
import minitvm.frontend.onnx_sequence_models  # noqa: F401  (registers the sequence-model ops)
import minitvm.frontend.onnx_signal  # noqa: F401  (registers the DFT and STFT converters)
import minitvm.frontend.onnx_tensor_ops  # noqa: F401  (registers the tensor-op converters)
import minitvm.frontend.onnx_text  # noqa: F401  (registers the TfIdfVectorizer converter)
from minitvm.dialects.graph import ConstantOp
from minitvm.errors import FrontendError
from minitvm.frontend.onnx_node import (
    CONVERTERS,
    NodeContext,
    Value,
    element_type,
    node_error,
    onnx_element_type,
    supported_ops,
    tensor_array,
)

MIN_OPSET, MAX_OPSET = 7, 28  # 22-28 changed only element types of the ops we support
_DEFAULT_DOMAINS = ("", "ai.onnx")


def from_onnx(
    model: str | os.PathLike[str] | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
) -> ModuleOp:
    """Import an ONNX model as a graph-dialect module holding `func.func @main`.

    `input_shapes` maps input names to full shapes; it fixes dynamic dimensions (and may
    override static ones). Raises `FrontendError` for anything the frontend cannot import.
    """
    proto = _load(model)
    opset = default_opset(proto)
    proto = _with_input_shapes(proto, dict(input_shapes or {}))
    proto = _infer_shapes(proto)
    module = _Importer(proto.graph, opset).run()
    module.verify()
    return module


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


def _load(model: str | os.PathLike[str] | onnx.ModelProto) -> onnx.ModelProto:
    if isinstance(model, onnx.ModelProto):
        return model
    try:
        return onnx.load(os.fspath(model))
    except (OSError, DecodeError) as e:
        raise FrontendError(f"cannot read ONNX model '{os.fspath(model)}': {e}") from e


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
        if value.name not in initializers:
            _check_static(value)
    return model


def _set_shape(value: onnx.ValueInfoProto, shape: Sequence[int]) -> None:
    tensor = value.type.tensor_type
    old = tensor.shape.dim if tensor.HasField("shape") else None
    if old is not None and len(old) != len(shape):
        raise FrontendError(
            f"input_shapes gives input '{value.name}' rank {len(shape)} ({tuple(shape)}), but "
            f"the model declares rank {len(old)}"
        )
    if any(int(d) < 1 for d in shape):
        raise FrontendError(
            f"input_shapes gives input '{value.name}' a non-positive dimension: {tuple(shape)}"
        )
    tensor.ClearField("shape")
    tensor.shape.SetInParent()
    for d in shape:
        tensor.shape.dim.add().dim_value = int(d)


def _check_static(value: onnx.ValueInfoProto) -> None:
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
    for i, dim in enumerate(tensor.shape.dim):
        if not dim.HasField("dim_value") or dim.dim_value < 1:
            what = f"'{dim.dim_param}'" if dim.HasField("dim_param") else "unknown"
            raise FrontendError(
                f"input '{value.name}' has a dynamic dimension {i} ({what}); fix it with "
                f"input_shapes={{'{value.name}': (...)}}"
            )


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

    def __init__(self, graph: onnx.GraphProto, opset: int):
        self.graph = graph
        self.opset = opset
        self.block = Block()
        # One scope per subgraph being converted (If branches, Loop and Scan bodies): a
        # subgraph sees the names of the scopes around it; its own names stay inside.
        self.values: ChainMap[str, Value] = ChainMap()
        # Materialized constants, by array identity (arrays are kept alive alongside).
        self.constants: dict[int, tuple[np.ndarray, SSAValue]] = {}
        self.used = names_used(graph)
        self.inferred = {v.name: v.type for v in (*graph.value_info, *graph.output)}

    def run(self) -> ModuleOp:
        self._add_inputs()
        for index, node in enumerate(self.graph.node):
            self._convert(node, index)
        results = [self._output(o.name) for o in self.graph.output]
        self.block.add_op(ReturnOp(*results))
        arg_types = [arg.type for arg in self.block.args]
        func = FuncOp("main", (arg_types, [r.type for r in results]), Region(self.block))
        return ModuleOp([func])

    def _add_inputs(self) -> None:
        initializers = {t.name: t for t in self.graph.initializer}
        for name, tensor in initializers.items():
            self.values[name] = tensor_array(tensor, f"initializer '{name}'")
        for value in self.graph.input:
            if value.name in initializers:
                continue  # an input with an initializer is a constant (a frozen weight)
            tensor = value.type.tensor_type
            elem = onnx_element_type(tensor.elem_type, f"input '{value.name}'")
            shape = [d.dim_value for d in tensor.shape.dim]
            arg = self.block.insert_arg(TensorType(elem, shape), len(self.block.args))
            arg.name_hint = name_hint(value.name)
            self.values[value.name] = arg

    def _output(self, name: str) -> SSAValue:
        if name not in self.values:
            raise FrontendError(f"graph output '{name}' is not produced by any node")
        value = self.values[name]
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
        ctx = NodeContext(
            node, index, self.opset, inputs, self.block, self._materialize,
            self.used.__contains__, self._subgraph,
        )  # fmt: skip
        present = [v for v in inputs if v is not None]
        folded = None
        if not info.folds and present and all(isinstance(v, np.ndarray) for v in present):
            folded = self._fold(ctx)
        outputs: list[Value | None] = list(folded if folded is not None else info.fn(ctx))
        for i, name in enumerate(node.output):
            if not name:
                continue
            value = outputs[i] if i < len(outputs) else None
            if value is None:
                if name in self.used:
                    raise ctx.error(f"output {i} ('{name}') is not supported")
                continue
            self._check_inferred(ctx, name, value)
            if isinstance(value, SSAValue) and value.name_hint is None:
                value.name_hint = name_hint(name)
            self.values[name] = value

    def _subgraph(self, graph: onnx.GraphProto, inputs: dict[str, Value]) -> list[Value]:
        """Convert `graph`'s nodes in a new scope holding its initializers and `inputs`;
        its outputs, looked up before the scope closes."""
        scope: dict[str, Value] = {
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

    def _lookup(self, node: onnx.NodeProto, index: int, name: str) -> Value | None:
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
        indices smaller than the data, which the spec allows): the node is converted and
        compiled as any other then, and a node that is truly wrong is refused there."""
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
        return [next(produced) if n else None for n in node.output]  # type: ignore[misc]

    def _check_inferred(self, ctx: NodeContext, name: str, value: Value) -> None:
        """Compare with ONNX shape inference. A disagreement means a wrong shape annotation in
        the model or a frontend bug; either way it is caught here, not as a wrong answer at run
        time."""
        inferred = self.inferred.get(name)
        if inferred is None or not inferred.HasField("tensor_type"):
            return
        dims = inferred.tensor_type.shape.dim
        if not inferred.tensor_type.HasField("shape"):
            return
        if not all(d.HasField("dim_value") for d in dims):
            return
        want = tuple(d.dim_value for d in dims)
        type_ = value.type if isinstance(value, SSAValue) else None
        got = tuple(type_.get_shape()) if isinstance(type_, TensorType) else tuple(np.shape(value))
        if want != got:
            if _ceil_mode_pool(ctx.node):
                # ONNX's shape inference (1.23) keeps a ceil_mode window that would start in
                # the end padding; the spec and ONNX Runtime drop it, as we do. The shapes it
                # inferred downstream are off by as much: check no more against them.
                self.inferred = {}
                return
            raise ctx.error(
                f"output '{name}' has shape {got}, but the model's shapes (after ONNX shape "
                f"inference) say {want}"
            )

    # -- constants -------------------------------------------------------------------------------

    def _materialize(self, array: np.ndarray, onnx_name: str) -> SSAValue:
        """The graph.constant holding `array`, created at its first use."""
        cached = self.constants.get(id(array))
        if cached is not None:
            return cached[1]
        op = _constant_op(array, onnx_name)
        self.block.add_op(op)
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
