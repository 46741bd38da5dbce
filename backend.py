"""ONNX's backend API over minitvm: `MinitvmBackend.prepare(model).run(inputs)`.

Tools written against `onnx.backend.base.Backend` (ONNX's own backend test runner among
them) drive minitvm through this module; it sits beside `compiler.py` and only calls it.

A model whose inputs have symbolic dimensions (`batch`, `seq`, or unnamed) is compiled once,
at its first run, for every shape they allow: later runs of other sizes reuse it. A model the
frontend cannot compile that way (an op that needs its shape known), and a run the dynamic
compile does not take (a size of 0, or beyond a bound), get a compile for the run's shapes.

The one mismatch it bridges: ONNX node tests pass shape-like operands (Reshape's shape,
Slice's bounds, Pad's pads, Resize's scales, Reduce axes, Range's arguments, ...) as graph
inputs fed at run time, while minitvm compiles for static shapes and its frontend wants those
operands known at import time (a FrontendError otherwise). So a `MinitvmRep` compiles at its
first run, not in `prepare`: the graph inputs that feed such an operand become initializers
holding that run's values, and the Executable is cached under those values and the run's
input shapes; a run with other values compiles again.

Which inputs must be constant is the frontend's knowledge, so the rep asks it: it imports with
the inputs found so far frozen, and each "must be a constant known at import time" error names
a value; the graph inputs that value is computed from (walking back through the graph, but not
through Shape, whose result the frontend knows from static shapes alone) are frozen too, until
the import succeeds. The set depends only on the graph, so it is found once per rep (at the
first run; a later run can only add to it).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from minitvm.compiler import compile as compile_model
from minitvm.compiler import load_model
from minitvm.errors import FrontendError, MinitvmError, NonConstantOperandError
from minitvm.frontend.onnx import MAX_OPSET, default_opset, names_used, sequence_item_name
from minitvm.frontend.onnx_node import size_operands_at_import, supported_ops
from minitvm.runtime import Executable

#: Ops whose result depends on their input's (static) shape only, never on its values.
_SHAPE_ONLY_OPS = frozenset({"Shape"})

_DEFAULT_DOMAINS = ("", "ai.onnx")


class MinitvmRep(BackendRep):
    """A prepared model. `run(inputs)` takes the inputs in graph order (a sequence, as ONNX's
    runner passes them) or by name (a mapping) and returns the outputs in graph order, as a
    namedtuple also indexable by output name."""

    def __init__(
        self,
        model: onnx.ModelProto,
        opt_level: int = 3,
        num_threads: int | None = None,
        cache_size: int = 8,
    ):
        self.model = model
        initializers = {t.name for t in model.graph.initializer}
        self.input_names = [v.name for v in model.graph.input if v.name not in initializers]
        self.output_names = [v.name for v in model.graph.output]
        self._declared = {v.name: _declared_shape(v) for v in model.graph.input}
        #: Inputs that are sequences: given as lists of arrays, one argument per item.
        self._sequences = {v.name for v in model.graph.input if v.type.HasField("sequence_type")}
        #: Optional inputs: None (empty), or their element (a tensor, or a sequence's list).
        self._optional_sequences = {v.name for v in model.graph.input if v.type.HasField("optional_type")
                                    and v.type.optional_type.elem_type.HasField("sequence_type")}  # fmt: skip
        self._optionals = {v.name for v in model.graph.input if v.type.HasField("optional_type")}
        self._compile_options = {"opt_level": opt_level, "num_threads": num_threads}
        self._cache_size = cache_size
        #: The graph inputs found to feed an operand the frontend needs at import time (frozen
        #: into initializers at every run); None until the first compile.
        self.constant_inputs: tuple[str, ...] | None = None
        self._executables: OrderedDict[tuple[object, ...], Executable] = OrderedDict()
        #: Executables compiled so far (a run with new values of frozen inputs compiles).
        self.compile_count = 0
        #: Whether size operands computed as the model runs (Reshape's shape, Range's bounds)
        #: are frozen like other import-time operands: where taking them at run time left
        #: sizes that the ops after them need known.
        self._sizes_at_import = False
        self._outputs_type = namedtupledict("Outputs", self.output_names)

    def run(self, inputs: Sequence[Any] | Mapping[str, Any], **kwargs: Any) -> tuple[Any, ...]:
        arrays = self._named(inputs)
        executable = self._cached(arrays) or self._compile(arrays)
        given: dict[str, Any] = dict(arrays)
        for name in self._sequences | self._optional_sequences:
            items = arrays[name] or ()
            given.update({sequence_item_name(name, i): a for i, a in enumerate(items)})
        try:
            results = executable.run({name: given[name] for name in executable.input_names})
        except MinitvmError:
            if not executable.symbols:
                raise
            # a shape the dynamic compile does not take (a size of 0): this run's own
            executable = self._compile(arrays, pinned=True)
            results = executable.run({name: given[name] for name in executable.input_names})
        absent = executable.stats.get("absent_outputs", ())
        return self._outputs_type(
            *_grouped(self.output_names, executable.output_names, results, absent)
        )

    def _named(self, inputs: Sequence[Any] | Mapping[str, Any]) -> dict[str, Any]:
        if isinstance(inputs, Mapping):
            given = dict(inputs)
        else:
            if len(inputs) != len(self.input_names):
                raise MinitvmError(
                    f"got {len(inputs)} inputs; the model takes {len(self.input_names)} "
                    f"({', '.join(self.input_names)})"
                )
            given = dict(zip(self.input_names, inputs, strict=True))
        unknown = sorted(set(given) - set(self.input_names))
        missing = [n for n in self.input_names if n not in given]
        if unknown or missing:
            raise MinitvmError(
                f"missing inputs {missing} / unknown inputs {unknown}; the model takes "
                f"{', '.join(self.input_names)}"
            )
        return {name: self._array(name, given[name]) for name in self.input_names}

    def _array(self, name: str, value: Any) -> Any:
        """An input as compiled: an array, a sequence's list of arrays, or (an empty
        optional) None."""
        if value is None and name in self._optionals:
            return None
        if name in self._sequences or name in self._optional_sequences:
            return [np.asarray(a) for a in value]
        return np.asarray(value)

    def _frozen(self, arrays: dict[str, np.ndarray]) -> tuple[str, ...]:
        """The inputs frozen for this run: those found to feed an import-time operand."""
        known = set(self.constant_inputs or ())
        return tuple(n for n in arrays if n in known and n not in self._structured)

    @property
    def _structured(self) -> set[str]:
        """The inputs that are sequences or optionals (compiled for their shapes, never
        frozen)."""
        return self._sequences | self._optionals

    def _key(self, arrays: dict[str, Any], frozen: Sequence[str], pinned: bool = True) -> tuple[object, ...]:
        """What an Executable is cached under: the inputs' element types and shapes (only
        their ranks where the model's dimensions are left to run time, unless `pinned`) and
        the values of the frozen ones."""
        return tuple(
            (name, None) if a is None
            else (name, tuple((i.dtype.str, i.shape) for i in a)) if isinstance(a, list)
            else (name, a.dtype.str, a.shape if pinned or not self._is_dynamic(name, frozen) else a.ndim,
                  a.tobytes() if name in frozen else None)
            for name, a in arrays.items()
        )  # fmt: skip

    def _is_dynamic(self, name: str, frozen: Sequence[str]) -> bool:
        """An input compiled with the model's own symbolic dimensions (not this run's)."""
        return (
            self._declared[name] is None and name not in frozen and name not in self._structured
        )

    def _cached(self, arrays: dict[str, np.ndarray]) -> Executable | None:
        frozen = self._frozen(arrays)
        for key in (self._key(arrays, frozen), self._key(arrays, frozen, pinned=False)):
            executable = self._executables.get(key)
            if executable is not None:
                self._executables.move_to_end(key)
                return executable
        return None

    def _compile(self, arrays: dict[str, np.ndarray], pinned: bool = False) -> Executable:
        """Compile for this run, freezing more inputs as the frontend asks for them: once for
        every shape the model's symbolic dimensions allow, else (a model that needs them
        known, or a run the dynamic compile does not take) for this run's shapes."""
        asked = pinned
        while True:
            frozen = self._frozen(arrays)
            pinned = asked
            try:
                executable = None
                dynamic = [n for n in arrays if self._is_dynamic(n, frozen)]
                if not pinned and dynamic and all(arrays[n].size for n in dynamic):
                    try:
                        executable = self._compile_frozen(arrays, frozen, pinned=False)
                    except NonConstantOperandError:
                        raise
                    except Exception:  # noqa: BLE001  (whatever stops it, a compile for shapes may not)
                        pinned = True  # this model compiles for shapes only
                if executable is None:
                    pinned = True
                    executable = self._compile_frozen(arrays, frozen)
                break
            except NonConstantOperandError as error:
                feeding = self._feeding_inputs(error.value_name)
                if not feeding - set(frozen):
                    raise
                known = feeding | set(self.constant_inputs or ())
                self.constant_inputs = tuple(n for n in self.input_names if n in known)
                self._executables.clear()  # their keys lack the newly frozen values
            except Exception:
                if self._sizes_at_import:
                    raise
                # size operands taken at run time (a Reshape's shape fed as an input) may
                # leave sizes that the ops after them need known: freeze their inputs instead
                self._sizes_at_import = True
        if self.constant_inputs is None:
            self.constant_inputs = ()
        self._executables[self._key(arrays, frozen, pinned)] = executable
        while len(self._executables) > self._cache_size:
            self._executables.popitem(last=False)
        return executable

    def _compile_frozen(
        self, arrays: dict[str, np.ndarray], frozen: Sequence[str], pinned: bool = True
    ) -> Executable:
        model = _freeze(self.model, {n: arrays[n] for n in frozen})
        shapes: dict[str, Any] = {
            name: array.shape
            for name, array in arrays.items()
            if name not in frozen and name not in self._structured
            and self._declared[name] != array.shape
            and (pinned or not self._is_dynamic(name, frozen))
        }  # fmt: skip
        for name in self._structured:
            value = arrays[name]
            shapes[name] = (None if value is None else [a.shape for a in value]
                            if isinstance(value, list) else value.shape)  # fmt: skip
        with size_operands_at_import() if self._sizes_at_import else contextlib.nullcontext():
            executable = compile_model(model, input_shapes=shapes or None, **self._compile_options)
        self.compile_count += 1
        return executable

    def _feeding_inputs(self, value: str) -> set[str]:
        """The graph inputs whose values `value` is computed from (through subgraphs too: a
        value inside an If branch or Loop body, and a node reading outer values from its
        subgraphs)."""
        producers = {
            out: node for node in _all_nodes(self.model.graph) for out in node.output if out
        }
        inputs = set(self.input_names)
        found, seen, stack = set(), set(), [value]
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in inputs:
                found.add(name)
                continue
            node = producers.get(name)
            if node is not None and node.op_type not in _SHAPE_ONLY_OPS:
                stack.extend(n for n in node.input if n)
                for graph in _subgraphs(node):
                    stack.extend(names_used(graph))
        return found


def _subgraphs(node: onnx.NodeProto) -> list[onnx.GraphProto]:
    return [g for a in node.attribute for g in ((a.g,) if a.HasField("g") else a.graphs)]


def _all_nodes(graph: onnx.GraphProto) -> list[onnx.NodeProto]:
    """The nodes of `graph` and of its subgraphs, at any depth."""
    nodes = []
    for node in graph.node:
        nodes.append(node)
        for sub in _subgraphs(node):
            nodes.extend(_all_nodes(sub))
    return nodes


class MinitvmBackend(Backend):
    """`onnx.backend.base.Backend` for minitvm (CPU only). Keyword arguments of `prepare`
    (`opt_level`, `num_threads`) go to `minitvm.compile`."""

    @classmethod
    def supports_device(cls, device: str) -> bool:
        try:
            return Device(device).type == DeviceType.CPU
        except (AttributeError, ValueError):
            return False

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        try:
            check_supported(model)
        except FrontendError:
            return False
        return cls.supports_device(device)

    @classmethod
    def prepare(
        cls, model: onnx.ModelProto | str, device: str = "CPU", **kwargs: Any
    ) -> MinitvmRep:
        """Check the model (a FrontendError for what minitvm cannot compile) and return a rep
        that compiles at its first run."""
        if not cls.supports_device(device):
            raise MinitvmError(f"device '{device}' is not supported; minitvm compiles for CPU")
        proto = load_model(model)
        check_supported(proto)
        return MinitvmRep(proto, **kwargs)

    @classmethod
    def run_model(
        cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any
    ) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls,
        node: onnx.NodeProto,
        inputs: Any,
        device: str = "CPU",
        outputs_info: Sequence[tuple[np.dtype, tuple[int, ...]]] | None = None,
        **kwargs: Any,
    ) -> tuple[Any, ...]:
        """Run one node: a one-node model over `inputs` (in the node's input order, omitted
        optional inputs skipped; or a mapping by input name). `opset_version` picks the
        opset (default: the newest the frontend supports)."""
        opset = kwargs.pop("opset_version", min(onnx.defs.onnx_opset_version(), MAX_OPSET))
        names = [n for n in node.input if n]
        arrays = (
            [np.asarray(inputs[n]) for n in names]
            if isinstance(inputs, Mapping)
            else [np.asarray(a) for a in inputs]
        )
        if len(arrays) != len(names):
            raise MinitvmError(f"node {node.op_type} takes {len(names)} inputs, got {len(arrays)}")
        helper = onnx.helper
        graph_inputs = [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in zip(names, arrays)
        ]
        outputs = [n for n in node.output if n]
        if outputs_info is None:
            graph_outputs = [helper.make_empty_tensor_value_info(n) for n in outputs]
        else:
            graph_outputs = [
                helper.make_tensor_value_info(
                    n, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), shape
                )
                for n, (dtype, shape) in zip(outputs, outputs_info)
            ]
        graph = helper.make_graph([node], f"{node.op_type}_node", graph_inputs, graph_outputs)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        return cls.prepare(model, device, **kwargs).run(arrays)


def check_supported(model: onnx.ModelProto) -> None:
    """What can be checked before the inputs are known: the opset, every op type, and that the
    inputs and outputs are tensors. A FrontendError names everything unsupported; attribute
    values and shapes are checked by the import at the first run."""
    default_opset(model)
    unsupported = sorted(
        {
            n.op_type if n.domain in _DEFAULT_DOMAINS else f"{n.domain}.{n.op_type}"
            for n in model.graph.node
            if n.domain not in _DEFAULT_DOMAINS or n.op_type not in supported_ops()
        }
    )
    if unsupported:
        raise FrontendError(
            f"unsupported op(s) {', '.join(unsupported)}; supported ops: "
            f"{', '.join(supported_ops())}"
        )
    for kind, values in (("input", model.graph.input), ("output", model.graph.output)):
        for value in values:
            what = value.type.WhichOneof("value")  # None: left to shape inference
            if what not in (None, "tensor_type", "sequence_type", "optional_type"):
                raise FrontendError(
                    f"graph {kind} '{value.name}' has {what.removesuffix('_type')} type; "
                    "only tensors, sequences of tensors and optionals of these are supported"
                )


def _grouped(
    names: Sequence[str],
    flat_names: Sequence[str],
    results: Sequence[np.ndarray],
    absent: Sequence[str] = (),
) -> list[np.ndarray | list[np.ndarray] | None]:
    """The Executable's `results` (one per tensor, named `flat_names`) as the graph's outputs
    `names`: a sequence output `y` is the list of its items `y[0]`, `y[1]`, ...; an empty
    optional output (`absent`) is None."""
    by_name = dict(zip(flat_names, results, strict=True))
    grouped: list[np.ndarray | list[np.ndarray] | None] = []
    for name in names:
        if name in absent:
            grouped.append(None)
            continue
        if name in by_name:
            grouped.append(by_name[name])
            continue
        items = []
        while (item := sequence_item_name(name, len(items))) in by_name:
            items.append(by_name[item])
        grouped.append(items)
    return grouped


def _declared_shape(value: onnx.ValueInfoProto) -> tuple[int, ...] | None:
    """The input's static shape, None if its rank or a dimension is unknown."""
    tensor = value.type.tensor_type
    if not tensor.HasField("shape"):
        return None
    dims = tensor.shape.dim
    if not all(d.HasField("dim_value") for d in dims):
        return None
    return tuple(d.dim_value for d in dims)


def _freeze(model: onnx.ModelProto, values: Mapping[str, np.ndarray]) -> onnx.ModelProto:
    """A copy of `model` whose inputs named in `values` are initializers holding them."""
    if not values:
        return model
    frozen = onnx.ModelProto()
    frozen.CopyFrom(model)
    graph = frozen.graph
    kept = [v for v in graph.input if v.name not in values]
    del graph.input[:]
    graph.input.extend(kept)
    graph.initializer.extend(onnx.numpy_helper.from_array(a, n) for n, a in values.items())
    return frozen


prepare = MinitvmBackend.prepare
run_model = MinitvmBackend.run_model
run_node = MinitvmBackend.run_node
supports_device = MinitvmBackend.supports_device
