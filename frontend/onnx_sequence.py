"""ONNX sequence ops, resolved at import time into the tensors they hold.

A sequence is a `SequenceValue` (`frontend/onnx_node.py`): a tuple of tensors whose length
and positions the frontend knows, as it knows every shape. So the sequence ops build no graph
op of their own:

    SequenceConstruct, SequenceEmpty, SequenceInsert, SequenceErase   a new tuple
    SequenceAt, SequenceLength                                        a tuple's item, its length
    ConcatFromSequence                                                graph.concat of the items
                                                                      (stacked: reshaped first)
    SplitToSequence                                                   graph.slice per part
    SequenceMap                                                       the body converted once
                                                                      per position

Positions must be known at import time (an error naming the node otherwise, which ONNX's
node-test backend answers by specializing on the input that computes them). Sequences that
are graph inputs or outputs are one tensor per item at run time (`frontend/onnx.py`,
`io_names`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx

from minitvm.dialects import graph as g
from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.frontend.onnx_control_flow import _stack
from minitvm.frontend.onnx_node import AnyValue, NodeContext, SequenceValue, Value, converter


def _dtype(value: Value, ctx: NodeContext) -> np.dtype:
    if isinstance(value, np.ndarray):
        return value.dtype
    return numpy_dtype_of(value.type.element_type)  # type: ignore[attr-defined]


def _shape(value: Value) -> tuple[int, ...]:
    if isinstance(value, np.ndarray):
        return tuple(value.shape)
    return tuple(value.type.get_shape())  # type: ignore[attr-defined]


def _position(ctx: NodeContext, i: int, length: int, default: int, end_ok: bool) -> int:
    """Input `i`, a position in a sequence of `length` (negative counts from the back; with
    `end_ok` the position just past the last item is allowed, as for an insertion)."""
    if not ctx.has_input(i):
        return default
    position = ctx.const(i, "position")
    if position.size != 1 or position.dtype.kind not in "iu":
        raise ctx.error(f"position must be one integer, got {position.dtype}{list(position.shape)}")
    index = int(position.reshape(-1)[0])
    high = length if end_ok else length - 1
    if not -length <= index <= high:
        raise ctx.error(f"position {index} is out of range for a sequence of {length} tensors")
    return index + length if index < 0 else index


def _check_item(ctx: NodeContext, sequence: SequenceValue, item: Value) -> None:
    if sequence.items and _dtype(item, ctx) != sequence.dtype:
        raise ctx.error(
            f"the tensor is {_dtype(item, ctx)} but the sequence holds {sequence.dtype}"
        )


@converter("SequenceEmpty", folds=True)
def convert_sequence_empty(ctx: NodeContext) -> list[AnyValue]:
    onnx_type = ctx.attr_int("dtype", onnx.TensorProto.FLOAT)
    ctx.element_type(onnx_type, "dtype")  # a clear error for a type we do not have
    return [SequenceValue((), np.dtype(onnx.helper.tensor_dtype_to_np_dtype(onnx_type)))]


@converter("SequenceConstruct", folds=True)
def convert_sequence_construct(ctx: NodeContext) -> list[AnyValue]:
    items = tuple(ctx.value(i) for i in range(len(ctx.inputs)))
    if not items:
        raise ctx.error("needs at least one tensor")
    dtypes = {_dtype(item, ctx) for item in items}
    if len(dtypes) != 1:
        raise ctx.error(f"the tensors have different element types: {sorted(map(str, dtypes))}")
    return [SequenceValue(items, dtypes.pop())]


@converter("SequenceInsert", folds=True)
def convert_sequence_insert(ctx: NodeContext) -> list[AnyValue]:
    sequence, item = ctx.sequence(0), ctx.value(1)
    _check_item(ctx, sequence, item)
    at = _position(ctx, 2, len(sequence), len(sequence), end_ok=True)
    items = (*sequence.items[:at], item, *sequence.items[at:])
    return [SequenceValue(items, _dtype(item, ctx))]


@converter("SequenceErase", folds=True)
def convert_sequence_erase(ctx: NodeContext) -> list[AnyValue]:
    sequence = ctx.sequence(0)
    if not sequence.items:
        raise ctx.error("cannot erase from an empty sequence")
    at = _position(ctx, 1, len(sequence), len(sequence) - 1, end_ok=False)
    return [SequenceValue((*sequence.items[:at], *sequence.items[at + 1 :]), sequence.dtype)]


@converter("SequenceAt", folds=True)
def convert_sequence_at(ctx: NodeContext) -> list[AnyValue]:
    sequence = ctx.sequence(0)
    if not ctx.has_input(1):
        raise ctx.error("missing required input 1 (position)")
    return [sequence.items[_position(ctx, 1, len(sequence), 0, end_ok=False)]]


@converter("SequenceLength", folds=True)
def convert_sequence_length(ctx: NodeContext) -> list[AnyValue]:
    return [np.array(len(ctx.sequence(0)), dtype=np.int64)]


@converter("ConcatFromSequence", folds=True)
def convert_concat_from_sequence(ctx: NodeContext) -> list[AnyValue]:
    sequence = ctx.sequence(0)
    if not sequence.items:
        raise ctx.error("cannot concatenate an empty sequence")
    if not ctx.has_attr("axis"):
        raise ctx.error("missing required attribute 'axis'")
    new_axis = ctx.attr_int("new_axis", 0)
    rank = len(_shape(sequence.items[0]))
    axis = ctx.axis(ctx.attr_int("axis", 0), rank + 1 if new_axis else rank)
    if new_axis:
        shapes = {_shape(item) for item in sequence.items}
        if len(shapes) != 1:
            raise ctx.error(f"stacking needs tensors of one shape, got {sorted(shapes)}")
        return [_stack(ctx, sequence.items, axis)]
    return [_concat(ctx, sequence.items, axis)]


def _concat(ctx: NodeContext, items: Sequence[Value], axis: int) -> Value:
    if all(isinstance(item, np.ndarray) for item in items):
        return np.concatenate(items, axis=axis)  # type: ignore[arg-type]
    if len(items) == 1:
        return items[0]
    operands = [
        ctx.materialize(item, ctx.input_name(0)) if isinstance(item, np.ndarray) else item
        for item in items
    ]
    return ctx.make1(g.ConcatOp, operands, axis=axis)


@converter("SplitToSequence", folds=True)
def convert_split_to_sequence(ctx: NodeContext) -> list[AnyValue]:
    value = ctx.value(0)
    shape = _shape(value)
    axis = ctx.axis(ctx.attr_int("axis", 0), len(shape))
    length = shape[axis]
    split = ctx.optional_const(1, "split")
    squeeze = False
    if split is None:  # one part per element, its axis kept or dropped
        sizes, squeeze = [1] * length, ctx.attr_int("keepdims", 1) == 0
    elif split.ndim == 0:  # parts of `split` elements, the last one shorter
        chunk = int(split)
        if chunk < 1:
            raise ctx.error(f"split {chunk} must be positive")
        sizes = [min(chunk, length - start) for start in range(0, length, chunk)]
    else:
        sizes = [int(s) for s in split.reshape(-1)]
        if any(s < 0 for s in sizes) or sum(sizes) != length:
            raise ctx.error(f"split {sizes} does not divide the {length} elements of axis {axis}")
    parts: list[Value] = []
    start = 0
    for size in sizes:
        parts.append(_part(ctx, value, shape, axis, start, size, squeeze))
        start += size
    return [SequenceValue(tuple(parts), _dtype(value, ctx))]


def _part(
    ctx: NodeContext, value: Value, shape: tuple[int, ...], axis: int, start: int, size: int,
    squeeze: bool,
) -> Value:  # fmt: skip
    """value[..., start:start+size, ...] along `axis`; with `squeeze`, that axis removed."""
    out_shape = [*shape[:axis], *([] if squeeze else [size]), *shape[axis + 1 :]]
    if isinstance(value, np.ndarray):
        return np.take(value, range(start, start + size), axis=axis).reshape(out_shape)
    starts, ends = [0] * len(shape), list(shape)
    starts[axis], ends[axis] = start, start + size
    part = ctx.make1(g.SliceOp, value, starts=starts, ends=ends, steps=[1] * len(shape))
    return ctx.make1(g.ReshapeOp, part, shape=out_shape) if squeeze else part


@converter("SequenceMap", folds=True)
def convert_sequence_map(ctx: NodeContext) -> list[AnyValue]:
    """The body applied to each position: sequence inputs give their item at it, tensor
    inputs the same tensor every time; each body output collected into a sequence."""
    body = ctx.attr("body")
    if not isinstance(body, onnx.GraphProto):
        raise ctx.error("missing graph attribute 'body'")
    inputs = [ctx.any_value(i) for i in range(len(ctx.inputs))]
    if len(body.input) != len(inputs):
        raise ctx.error(f"body takes {len(body.input)} inputs; the node gives {len(inputs)}")
    lengths = {len(v) for v in inputs if isinstance(v, SequenceValue)}
    if not isinstance(inputs[0], SequenceValue) or len(lengths) != 1:
        raise ctx.error("input 0 must be a sequence, and every sequence input of one length")
    (length,) = lengths
    collected: list[list[Value]] = [[] for _ in body.output]
    for position in range(length):
        bindings = {
            v.name: value.items[position] if isinstance(value, SequenceValue) else value
            for v, value in zip(body.input, inputs, strict=True)
        }
        outputs = ctx.convert_subgraph(body, bindings)
        for items, output in zip(collected, outputs, strict=True):
            if isinstance(output, SequenceValue):
                raise ctx.error("a body output is a sequence; SequenceMap collects tensors")
            items.append(output)
    dtypes = [_body_dtype(ctx, out) for out in body.output]
    return [
        SequenceValue(tuple(items), _dtype(items[0], ctx) if items else dtype)
        for items, dtype in zip(collected, dtypes, strict=True)
    ]


def _body_dtype(ctx: NodeContext, output: onnx.ValueInfoProto) -> np.dtype:
    """The element type the body declares for an output (an empty sequence's type)."""
    tensor = output.type.tensor_type if output.type.HasField("tensor_type") else None
    if tensor is None or not tensor.elem_type:
        return np.dtype(np.float32)
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type))
