"""The graph builder the op specs draw into: the values a new node may consume, with what is
known of each (shape, dtype, a bound on its values, whether it is exact), and the ONNX graph
they make.

A value's interval `[lo, hi]` is a sound bound on every element: specs keep magnitudes under
`MAX_MAG` (so nothing overflows and the comparison tolerance stays meaningful) and choose
inputs whose interval lies in the op's domain (Log of positive values, Div by values away from
zero). `bits` says a float value is exact: every element is a multiple of 2^-bits small
enough that float32 holds it and every sum or product of such values without rounding, so
any correct implementation computes it bit for bit, whatever order it sums in. Graph inputs
and weights are multiples of 1/16; ops that cannot round (Add, Mul, MatMul, Max, data
movement...) keep exactness, the others (Div, Exp, Sigmoid...) drop it. Ops with a
discontinuity (Floor, comparisons, ArgMax, Cast to int) take only exact inputs, so that an
ulp of legitimate rounding upstream cannot flip their result. Output shapes come from ONNX's
own shape inference of the node, in strict mode, which also rejects a draw that breaks an
op's constraints.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

#: Opset of the generated models: LayerNormalization (17), reductions' axes as inputs (18)
#: and Gelu (20) are in it.
OPSET = 21
#: No value has more elements than this, so a graph compiles in a second or two.
MAX_ELEMS = 4096
#: No value's bound exceeds this in magnitude.
MAX_MAG = 1e4
#: Graph inputs and weights are multiples of 2^-INPUT_BITS.
INPUT_BITS = 4
#: Exact values need at most this many significant bits (float32 has 24, one spare).
_EXACT_BITS = 23

#: The model property that lists the outputs to compare exactly.
EXACT_PROP = "minitvm.fuzz.exact_outputs"

_DTYPES = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64, "bool": TensorProto.BOOL}
_NAMES = {code: name for name, code in _DTYPES.items()}


class Reject(Exception):
    """A draw broke a constraint (a shape too big, an interval out of range, a shape ONNX
    rejects): the builder undoes it and the generator draws again."""


@dataclass(frozen=True)
class Value:
    """A tensor a node may consume: a graph input, a weight or a node's output."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    lo: float
    hi: float
    bits: int | None  # exact on a 2^-bits grid, or None

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def mag(self) -> float:
        return max(abs(self.lo), abs(self.hi))

    @property
    def is_float(self) -> bool:
        return self.dtype == "float32"

    @property
    def exact(self) -> bool:
        return self.bits is not None


def exact_bits(bits: int | None, lo: float, hi: float) -> int | None:
    """`bits` if values in [lo, hi] on a 2^-bits grid still fit float32 exactly, else None."""
    if bits is None:
        return None
    mag = max(abs(lo), abs(hi), 1.0)
    return bits if bits + math.ceil(math.log2(mag + 1)) <= _EXACT_BITS else None


def join_bits(*bits: int | None) -> int | None:
    """The grid of a sum of exact values (None when one is not exact)."""
    return None if any(b is None for b in bits) else max(b for b in bits if b is not None)


def quantized(rng: np.random.Generator, shape: Sequence[int], lo: float, hi: float) -> np.ndarray:
    """float32 multiples of 2^-INPUT_BITS drawn uniformly from [lo, hi]."""
    step = 2.0**-INPUT_BITS
    first, last = math.ceil(lo / step), math.floor(hi / step)
    if first > last:
        raise Reject(f"no multiple of {step} in [{lo}, {hi}]")
    return (rng.integers(first, last + 1, size=tuple(shape)) * step).astype(np.float32)


@dataclass
class Case:
    """A generated test: the model, its inputs, and which outputs are exact."""

    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    exact_outputs: frozenset[str] = frozenset()

    @property
    def op_types(self) -> list[str]:
        return [node.op_type for node in self.model.graph.node]


@dataclass
class GraphBuilder:
    """Values, nodes, inputs and initializers of the graph being drawn; `mark`/`rollback`
    undo a rejected draw."""

    rng: np.random.Generator
    values: list[Value] = field(default_factory=list)
    nodes: list[onnx.NodeProto] = field(default_factory=list)
    inputs: list[Value] = field(default_factory=list)
    feeds: dict[str, np.ndarray] = field(default_factory=dict)
    initializers: dict[str, np.ndarray] = field(default_factory=dict)
    _count: int = 0

    # -- names, marks ------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def mark(self) -> tuple[int, int, int, int, int]:
        return (len(self.values), len(self.nodes), len(self.inputs), len(self.feeds),
                len(self.initializers))  # fmt: skip

    def rollback(self, mark: tuple[int, int, int, int, int]) -> None:
        values, nodes, inputs, feeds, inits = mark
        del self.values[values:], self.nodes[nodes:], self.inputs[inputs:]
        for key in list(self.feeds)[feeds:]:
            del self.feeds[key]
        for key in list(self.initializers)[inits:]:
            del self.initializers[key]

    # -- drawing ------------------------------------------------------------------------------

    def coin(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def choice(self, options: Sequence):  # noqa: ANN201  (any element type)
        return options[int(self.rng.integers(len(options)))]

    def shape(self, rank: int | None = None, min_rank: int = 1, max_rank: int = 4,
              max_dim: int | None = None) -> tuple[int, ...]:  # fmt: skip
        """A random shape of `rank` (or min_rank..max_rank) dims with at most MAX_ELEMS / 4
        elements, so that ops that grow it still fit. Dims are small (up to 6) mostly and
        now and then up to 24, so that vectorized schedules see full vectors too."""
        rank = int(self.rng.integers(min_rank, max_rank + 1)) if rank is None else rank
        if max_dim is None:
            max_dim = 24 if self.coin(0.2) else 6
        while True:
            shape = tuple(int(d) for d in self.rng.integers(1, max_dim + 1, size=rank))
            if math.prod(shape) <= MAX_ELEMS // 4:
                return shape

    def pick(self, accept: Callable[[Value], bool], make: Callable[[], Value],
             p_fresh: float = 0.15, scalars: bool = False) -> Value:  # fmt: skip
        """An existing value that `accept`s, later ones likelier (deep graphs), or now and
        then (and when there is none) the value `make` builds. Rank-0 values only for ops
        that take `scalars` (elementwise ones)."""
        candidates = [v for v in self.values if (scalars or v.rank > 0) and accept(v)]
        if not candidates or self.coin(p_fresh):
            return make()
        weights = np.arange(1, len(candidates) + 1, dtype=np.float64)
        return candidates[int(self.rng.choice(len(candidates), p=weights / weights.sum()))]

    def floats(self, accept: Callable[[Value], bool] = lambda v: True, *,
               shape: Callable[[], tuple[int, ...]] | None = None, lo: float = -2.0,
               hi: float = 2.0, exact: bool = False, weight: bool = False,
               scalars: bool = False) -> Value:  # fmt: skip
        """A float value that `accept`s (exact if asked), or a fresh input (or weight) in
        [lo, hi] of a shape `shape` draws."""
        make_shape = shape or self.shape

        def make() -> Value:
            fresh_shape = make_shape()
            return self.weight(fresh_shape, lo, hi) if weight else self.input(fresh_shape, lo, hi)

        return self.pick(lambda v: v.is_float and (v.exact or not exact) and accept(v), make,
                         scalars=scalars)

    def input(self, shape: Sequence[int], lo: float = -2.0, hi: float = 2.0,
              dtype: str = "float32") -> Value:  # fmt: skip
        """A fresh graph input with data drawn now (floats quantized in [lo, hi])."""
        name = self.fresh("in")
        if dtype == "float32":
            data = quantized(self.rng, shape, lo, hi)
        elif dtype == "bool":
            data = self.rng.random(tuple(shape)) < 0.5
        else:
            data = self.rng.integers(int(lo), int(hi) + 1, size=tuple(shape)).astype(np.int64)
        data = np.asarray(data)  # a rank-0 draw is a numpy scalar
        self.feeds[name] = data
        value = self._known(name, data, dtype)
        self.inputs.append(value)
        return value

    def weight(self, shape: Sequence[int], lo: float = -1.0, hi: float = 1.0) -> Value:
        """A fresh float initializer: constant folding and weight passes see it."""
        name = self.fresh("w")
        data = quantized(self.rng, shape, lo, hi)
        self.initializers[name] = data
        return self._known(name, data, "float32")

    def _known(self, name: str, data: np.ndarray, dtype: str) -> Value:
        lo, hi = (float(data.min()), float(data.max())) if data.size else (0.0, 0.0)
        bits = INPUT_BITS if dtype == "float32" else 0
        value = Value(name, tuple(data.shape), dtype, lo, hi, bits)
        self.values.append(value)
        return value

    def param(self, data: Sequence[int] | np.ndarray | int, dtype=np.int64) -> str:  # noqa: ANN001
        """An initializer that is an operand, not data (Reshape's shape, Slice's starts):
        it is not offered to other ops."""
        name = self.fresh("p")
        self.initializers[name] = np.asarray(data, dtype=dtype)
        return name

    # -- emitting -----------------------------------------------------------------------------

    def emit(self, op_type: str, inputs: Sequence[str], ranges: Sequence[tuple[float, float, int | None]],
             like: Value | None = None, **attrs: object) -> list[Value]:  # fmt: skip
        """Add a node whose outputs have the given (lo, hi, bits); their shapes and dtypes
        are ONNX's shape inference of the node (or, for an op it infers nothing for, those
        of `like`). Raises Reject if ONNX rejects it, a shape is not static and positive or
        too large, or a bound is beyond MAX_MAG."""
        outputs = [self.fresh("v") for _ in ranges]
        node = helper.make_node(op_type, list(inputs), outputs, name=self.fresh(f"{op_type}_"),
                                **{k: v for k, v in attrs.items() if v is not None})  # fmt: skip
        inferred = self._infer(node, like)
        made = []
        for name, (lo, hi, bits) in zip(outputs, ranges, strict=True):
            shape, dtype = inferred[name]
            if any(d <= 0 for d in shape) or math.prod(shape) > MAX_ELEMS:
                raise Reject(f"{op_type}: output shape {shape}")
            if not (math.isfinite(lo) and math.isfinite(hi)) or max(-lo, hi) > MAX_MAG:
                raise Reject(f"{op_type}: bound [{lo}, {hi}]")
            if dtype != "float32":
                bits = 0
            made.append(Value(name, shape, dtype, lo, hi, exact_bits(bits, lo, hi)))
        self.nodes.append(node)
        self.values.extend(made)
        return made

    def _infer(self, node: onnx.NodeProto,
               like: Value | None) -> dict[str, tuple[tuple[int, ...], str]]:  # fmt: skip
        known = {v.name: v for v in self.values}
        value_infos, initializers = [], []
        for name in node.input:
            if name in known:
                value_infos.append(value_info(known[name]))
            elif name:
                initializers.append(numpy_helper.from_array(self.initializers[name], name))
        graph = helper.make_graph([node], "node", value_infos, [], initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        try:
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
        except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as e:
            raise Reject(str(e)) from None
        found = {info.name: info for info in inferred.graph.value_info}
        result = {}
        for name in node.output:
            info = found.get(name)
            if info is None and like is not None:
                result[name] = (like.shape, like.dtype)
                continue
            tensor = info.type.tensor_type if info is not None else None
            if tensor is None or not tensor.HasField("shape") or tensor.elem_type not in _NAMES:
                raise Reject(f"{node.op_type}: no static type for {name}")
            dims = tensor.shape.dim
            if any(not d.HasField("dim_value") for d in dims):
                raise Reject(f"{node.op_type}: no static shape for {name}")
            result[name] = (tuple(int(d.dim_value) for d in dims), _NAMES[tensor.elem_type])
        return result

    # -- the model ----------------------------------------------------------------------------

    def case(self, p_extra_output: float = 0.1) -> Case:
        """The graph as a Case: its outputs are the node outputs nothing consumes, and now and
        then one that something does."""
        consumed = {name for node in self.nodes for name in node.input}
        produced = [v for v in self.values if v.name not in self.feeds
                    and v.name not in self.initializers]  # fmt: skip
        outputs = [v for v in produced if v.name not in consumed or self.coin(p_extra_output)]
        return make_case(self.nodes, self.inputs, outputs, self.initializers, self.feeds)


def make_case(nodes: Sequence[onnx.NodeProto], inputs: Sequence[Value], outputs: Sequence[Value],
              initializers: dict[str, np.ndarray], feeds: dict[str, np.ndarray]) -> Case:  # fmt: skip
    used = {name for node in nodes for name in node.input}
    graph = helper.make_graph(
        list(nodes), "fuzz", [value_info(v) for v in inputs], [value_info(v) for v in outputs],
        [numpy_helper.from_array(a, n) for n, a in initializers.items() if n in used],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="minitvm-fuzz")  # fmt: skip
    model.ir_version = 10
    exact = frozenset(v.name for v in outputs if v.exact)
    helper.set_model_props(model, {EXACT_PROP: ",".join(sorted(exact))})
    return Case(model, {v.name: feeds[v.name] for v in inputs}, exact)


def exact_outputs(model: onnx.ModelProto) -> frozenset[str]:
    """The outputs a fuzzer's model says are exact (its metadata, written by make_case)."""
    props = {p.key: p.value for p in model.metadata_props}
    return frozenset(name for name in props.get(EXACT_PROP, "").split(",") if name)


def value_info(v: Value) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(v.name, _DTYPES[v.dtype], v.shape)


def value_of(info: onnx.ValueInfoProto) -> Value:
    """The Value a model's input or output declares (no bound known: the widest)."""
    tensor = info.type.tensor_type
    shape = tuple(int(d.dim_value) for d in tensor.shape.dim)
    return Value(info.name, shape, _NAMES[tensor.elem_type], -MAX_MAG, MAX_MAG, None)
