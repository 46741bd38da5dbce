"""ONNX graph surgery for `minitvm debug`: the model with every node output made a graph
output, its prefixes, and subgraphs whose inputs are given values.

All of them are new ModelProtos (the user's model is never changed) that keep the original's
opsets, IR version and local functions, so that ONNX Runtime and minitvm read them as they
read the original. Value types come from ONNX shape inference on the model with its input
shapes fixed (`value_types`), so every exposed or cut value has a typed ValueInfo.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import helper, numpy_helper

from minitvm.errors import MinitvmError
from minitvm.frontend.onnx import names_used


@dataclass(frozen=True)
class NodeOutput:
    """One output of one top-level node: what a row of the debugger's table is about."""

    index: int  # the node's position in the graph
    node: onnx.NodeProto
    name: str  # the output's value name

    @property
    def label(self) -> str:
        """The node as errors and tables name it: its name, else '#index'."""
        return self.node.name or f"#{self.index}"


def node_outputs(model: onnx.ModelProto) -> list[NodeOutput]:
    """Every named output of every top-level node, in graph order."""
    return [
        NodeOutput(n, node, name)
        for n, node in enumerate(model.graph.node)
        for name in node.output
        if name
    ]


def value_types(
    model: onnx.ModelProto, input_shapes: Mapping[str, Sequence[int]] | None
) -> dict[str, onnx.TypeProto]:
    """The type of every value ONNX shape inference can type, the inputs' shapes fixed."""
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    for value in fixed.graph.input:
        shape = (input_shapes or {}).get(value.name)
        if shape is not None:
            tensor = value.type.tensor_type
            tensor.ClearField("shape")
            tensor.shape.SetInParent()
            for d in shape:
                tensor.shape.dim.add().dim_value = int(d)
    del fixed.graph.value_info[:]
    try:
        inferred = onnx.shape_inference.infer_shapes(fixed, data_prop=True)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as e:
        raise MinitvmError(f"ONNX shape inference failed: {e}") from None
    graph = inferred.graph
    types = {v.name: v.type for v in (*graph.input, *graph.value_info, *graph.output)}
    for init in graph.initializer:
        types.setdefault(init.name, helper.make_tensor_type_proto(init.data_type, init.dims))
    return types


def _value_info(name: str, types: Mapping[str, onnx.TypeProto]) -> onnx.ValueInfoProto:
    if name in types:
        value = onnx.ValueInfoProto(name=name)
        value.type.CopyFrom(types[name])
        return value
    return helper.make_empty_tensor_value_info(name)


def _model(
    original: onnx.ModelProto,
    nodes: Iterable[onnx.NodeProto],
    inputs: Sequence[onnx.ValueInfoProto],
    outputs: Sequence[onnx.ValueInfoProto],
    initializers: Sequence[onnx.TensorProto],
    name: str,
) -> onnx.ModelProto:
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs), list(initializers))
    model = helper.make_model(graph, opset_imports=list(original.opset_import))
    model.ir_version = original.ir_version
    model.functions.extend(original.functions)
    return model


def with_outputs(
    model: onnx.ModelProto, names: Sequence[str], types: Mapping[str, onnx.TypeProto]
) -> onnx.ModelProto:
    """`model` whose graph outputs are its own followed by `names` (those not already
    outputs): every one of them must then be computed and returned."""
    exposed = onnx.ModelProto()
    exposed.CopyFrom(model)
    present = {o.name for o in exposed.graph.output}
    for name in names:
        if name not in present:
            exposed.graph.output.append(_value_info(name, types))
            present.add(name)
    return exposed


#: Ops whose outputs minitvm knows at import time whatever their inputs: shapes are static.
_KNOWN_OPS = ("Constant", "Shape", "Size")


def constant_values(model: onnx.ModelProto) -> set[str]:
    """The values known before the model runs: initializers, Constant outputs, shapes, and
    the outputs of nodes whose inputs are all such values (what minitvm's frontend folds at
    import time: Shape -> Gather -> Reshape chains). A cut subgraph keeps them as
    initializers, since shape-like operands (Reshape's shape, Slice's bounds) must be known
    when it compiles."""
    known = {init.name for init in model.graph.initializer}
    for node in model.graph.node:
        present = [name for name in node.input if name]
        if node.op_type in _KNOWN_OPS or (present and all(n in known for n in present)):
            known.update(name for name in node.output if name)
    return known


def prefix(
    model: onnx.ModelProto,
    count: int,
    types: Mapping[str, onnx.TypeProto],
    outputs: Sequence[str] | None = None,
) -> onnx.ModelProto:
    """The first `count` nodes of `model`, returning `outputs`; by default the original
    outputs they produce and every value they produce that none of them reads (so that
    nothing of them is dead code)."""
    nodes = list(model.graph.node[:count])
    if outputs is None:
        read = {name for node in nodes for name in reads(node)}
        wanted = {o.name for o in model.graph.output}
        produced = [name for node in nodes for name in node.output if name]
        outputs = [n for n in produced if n in wanted or n not in read]
    return _model(
        model, nodes, model.graph.input, [_value_info(n, types) for n in outputs],
        model.graph.initializer, f"{model.graph.name}_prefix{count}",
    )  # fmt: skip


def subgraph(
    model: onnx.ModelProto,
    indices: Collection[int],
    outputs: Sequence[str],
    values: Mapping[str, np.ndarray],
    constants: Collection[str],
    types: Mapping[str, onnx.TypeProto],
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The nodes at `indices` (in graph order) as a model returning `outputs`, and its feeds.

    A value they read but do not produce is an initializer when it is one in `model` or is
    a `constants` value (holding its value from `values`), else a graph input fed its value
    from `values`."""
    nodes = [node for n, node in enumerate(model.graph.node) if n in indices]
    produced = {name for node in nodes for name in node.output if name}
    originals = {init.name: init for init in model.graph.initializer}
    inputs, initializers, feeds = [], [], {}
    for node in nodes:
        for name in reads(node):
            if name in produced or name in feeds or (name not in values and name not in originals):
                continue  # (a name a subgraph defines for itself)
            if name in originals:
                if all(init.name != name for init in initializers):
                    initializers.append(originals[name])
            elif name in constants:
                if all(init.name != name for init in initializers):
                    initializers.append(numpy_helper.from_array(values[name], name))
            else:
                feeds[name] = values[name]
                array = values[name]
                elem = helper.np_dtype_to_tensor_dtype(array.dtype)
                inputs.append(helper.make_tensor_value_info(name, elem, array.shape))
    return (
        _model(
            model, nodes, inputs, [_value_info(n, types) for n in outputs], initializers,
            f"{model.graph.name}_subgraph",
        ),  # fmt: skip
        feeds,
    )


def reads(node: onnx.NodeProto) -> list[str]:
    """The values `node` reads: its inputs, and the outer values its subgraphs (If branches,
    Loop and Scan bodies) read, which are not among its inputs."""
    names = [name for name in node.input if name]
    for attr in node.attribute:
        for graph in (attr.g, *attr.graphs) if attr.HasField("g") else attr.graphs:
            names.extend(sorted(names_used(graph) - set(names)))
    return names


def producers(
    model: onnx.ModelProto, indices: Collection[int], constants: Collection[str]
) -> set[int]:
    """The nodes outside `indices` that produce a run-time value the nodes at `indices` read."""
    wanted = {
        name
        for n in indices
        for name in reads(model.graph.node[n])
        if name not in constants
    }
    return {
        n
        for n, node in enumerate(model.graph.node)
        if n not in indices and any(name in wanted for name in node.output)
    }
