"""ONNX control flow: If, Loop and Scan, resolved into straight-line graph ops where the
frontend can decide their course, and into graph.if / graph.loop where it is known only at
run time:

    If     the condition is known at import time (a constant, or folded from shapes, as the
           `if x.shape[0] > 1` of scripted models is): the chosen branch is inlined. Known
           only at run time: a graph.if, each branch converted into its region (both must
           give the same types).
    Loop   the trip count and every iteration's condition are known at import time: the body
           is unrolled, iteration by iteration (at most MAX_UNROLLED iterations); scan
           outputs are stacked along a new leading axis. A trip count or first condition
           known only at run time: a graph.loop, the body converted once into its region
           (loop-carried tensors keep their types).
    Scan   shapes are static, so the number of iterations always is: the body is unrolled
           over the slices of the scan inputs, forward or backward, and the per-iteration
           outputs are stacked along their axes (opset 9 and later; opset 8's batched form
           is unrolled per batch element).

What neither can compile is an error naming the node: a run-time Loop with scan outputs or a
loop-carried sequence (their lengths would be known only at run time), an unrolled Loop
whose body computes its condition at run time. Those are NonConstantOperandErrors, so ONNX's
node-test backend can specialize on the input they need. Subgraphs read outer-scope values
by name; each conversion of a body gets a scope of its own (NodeContext.convert_subgraph).
"""

from __future__ import annotations

from collections.abc import Sequence

import math

import numpy as np
import onnx
from xdsl.dialects.builtin import TensorType, i1, i64
from xdsl.ir import Block, Region, SSAValue

from minitvm.dialects import graph as g
from minitvm.errors import NonConstantOperandError
from minitvm.frontend.onnx_node import (
    AnyValue,
    NodeContext,
    OptionalValue,
    SequenceValue,
    Value,
    converter,
)

#: The most iterations a Loop is unrolled into: every iteration is a copy of the body in the
#: compiled graph, so more would make compile time, not run time, the problem.
MAX_UNROLLED = 1024


def _known(ctx: NodeContext, i: int, what: str, why: str) -> np.ndarray:
    """ctx.const with a message saying why control flow needs the value now."""
    try:
        return ctx.const(i, what)
    except NonConstantOperandError as e:
        raise NonConstantOperandError(f"{e}; {why}", e.value_name) from None


def _graph_attr(ctx: NodeContext, name: str) -> onnx.GraphProto:
    body = ctx.attr(name)
    if not isinstance(body, onnx.GraphProto):
        raise ctx.error(f"missing graph attribute '{name}'")
    return body


def _outputs_count(ctx: NodeContext, outputs: Sequence[Value], body: onnx.GraphProto) -> None:
    if len(outputs) != len(ctx.node.output):
        raise ctx.error(
            f"subgraph '{body.name}' has {len(outputs)} outputs; the node has "
            f"{len(ctx.node.output)}"
        )


@converter("If", folds=True)
def convert_if(ctx: NodeContext) -> list[AnyValue]:
    if not ctx.is_const(0):
        return _runtime_if(ctx)
    cond = ctx.const(0, "cond")
    if cond.size != 1:
        raise ctx.error(f"cond must hold one element, got shape {cond.shape}")
    branch = _graph_attr(ctx, "then_branch" if bool(cond.reshape(-1)[0]) else "else_branch")
    outputs = ctx.convert_subgraph(branch, {})
    _outputs_count(ctx, outputs, branch)
    return outputs


def _runtime_if(ctx: NodeContext) -> list[AnyValue]:
    """A condition known only at run time: a graph.if with each branch converted into its
    region. The branches must give tensors of the same types (static shapes)."""
    cond = ctx.tensor(0)
    if math.prod(cond.type.get_shape()) != 1:  # type: ignore[attr-defined]
        raise ctx.error(f"cond must hold one element, got {cond.type}")
    regions, yielded = [], []
    for attr in ("then_branch", "else_branch"):
        branch = _graph_attr(ctx, attr)
        block = Block()
        outputs = ctx.convert_subgraph(branch, {}, block)
        _outputs_count(ctx, outputs, branch)
        if any(isinstance(v, SequenceValue | OptionalValue) for v in outputs):
            message = ctx.error(f"{attr} gives a sequence or an optional, whose items must be "
                                "known at import time: its condition must be too")  # fmt: skip
            raise NonConstantOperandError(str(message), ctx.input_name(0))
        values = [
            v if isinstance(v, SSAValue) else ctx.materialize(v, f"{ctx.node.output[0]}_{attr}")
            for v in outputs
        ]
        block.add_op(g.YieldOp(*values))
        regions.append(Region(block))
        yielded.append([v.type for v in values])
    if yielded[0] != yielded[1]:
        raise ctx.error(
            "the branches give different types (then: "
            f"{', '.join(map(str, yielded[0]))}; else: {', '.join(map(str, yielded[1]))}): "
            "with a condition known only at run time both must be the same (static shapes)"
        )
    return list(ctx.emit(g.IfOp(cond, yielded[0], *regions)).results)


# --------------------------------------------------------------------------------------------
# Stacking per-iteration values
# --------------------------------------------------------------------------------------------


def _stack(ctx: NodeContext, parts: Sequence[Value], axis: int) -> Value:
    """The parts (equal shapes) stacked along a new `axis` (numpy's np.stack)."""
    if all(isinstance(p, np.ndarray) for p in parts):
        return np.stack(parts, axis=axis)  # type: ignore[arg-type]
    pieces = []
    for part in parts:
        value = part if isinstance(part, SSAValue) else ctx.materialize(part, ctx.node.output[0])
        shape = list(value.type.get_shape())  # type: ignore[attr-defined]
        pieces.append(ctx.make1(g.ReshapeOp, value, shape=[*shape[:axis], 1, *shape[axis:]]))
    return pieces[0] if len(pieces) == 1 else ctx.make1(g.ConcatOp, pieces, axis=axis)


def _slice(ctx: NodeContext, value: Value, axis: int, index: int) -> Value:
    """value[..., index, ...] along `axis`, the axis removed."""
    if isinstance(value, np.ndarray):
        return np.take(value, index, axis=axis)
    shape = list(value.type.get_shape())  # type: ignore[attr-defined]
    starts, ends = [0] * len(shape), list(shape)
    starts[axis], ends[axis] = index, index + 1
    piece = ctx.make1(g.SliceOp, value, starts=starts, ends=ends, steps=[1] * len(shape))
    return ctx.make1(g.ReshapeOp, piece, shape=shape[:axis] + shape[axis + 1 :])


def _rank(value: Value) -> int:
    if isinstance(value, np.ndarray):
        return value.ndim
    return len(value.type.get_shape())  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------
# Loop
# --------------------------------------------------------------------------------------------


@converter("Loop", folds=True)
def convert_loop(ctx: NodeContext) -> list[AnyValue]:
    """Inputs (M?, cond?, v_initial...); body (iteration_num, cond_in, v_in...) ->
    (cond_out, v_out..., scan_output...); outputs (v_final..., scan_outputs...)."""
    body = _graph_attr(ctx, "body")
    if any(ctx.has_input(i) and not ctx.is_const(i) for i in (0, 1)):
        return _runtime_loop(ctx, body)  # M or cond known only at run time
    why = "minitvm unrolls Loop, so its trip count and condition must be known at import time"
    trip = _known(ctx, 0, "M", why) if ctx.has_input(0) else None
    cond = _known(ctx, 1, "cond", why) if ctx.has_input(1) else np.array(True)
    if trip is None and not ctx.has_input(1):
        raise ctx.error("has neither a trip count M nor a condition: it would never end")
    carried: list[AnyValue] = [ctx.any_value(i) for i in range(2, len(ctx.inputs))]
    _check_body_inputs(ctx, body, carried)
    scans: list[list[AnyValue]] = [[] for _ in range(len(body.output) - 1 - len(carried))]
    limit = None if trip is None else int(trip.reshape(-1)[0])
    iteration = 0
    while (limit is None or iteration < limit) and bool(np.asarray(cond).reshape(-1)[0]):
        if iteration == MAX_UNROLLED:
            raise ctx.error(f"runs more than {MAX_UNROLLED} iterations; minitvm unrolls Loop")
        bindings = {body.input[0].name: np.array(iteration, np.int64),
                    body.input[1].name: np.asarray(cond, np.bool_)}  # fmt: skip
        bindings.update({v.name: c for v, c in zip(body.input[2:], carried)})
        outputs = ctx.convert_subgraph(body, bindings)
        cond = outputs[0]
        if not isinstance(cond, np.ndarray):
            name = body.output[0].name
            message = ctx.error(f"the body's condition '{name}' is computed at run time; {why}")
            raise NonConstantOperandError(str(message), name)
        carried = list(outputs[1 : 1 + len(carried)])
        for parts, value in zip(scans, outputs[1 + len(carried) :]):
            parts.append(value)
        iteration += 1
    if scans and iteration == 0:
        raise ctx.error("runs no iteration, so its scan outputs would be empty (zero-size "
                        "tensors are not supported)")  # fmt: skip
    return [*carried, *(_stack(ctx, _tensors(ctx, parts), 0) for parts in scans)]


def _check_body_inputs(ctx: NodeContext, body: onnx.GraphProto, carried: Sequence[object]) -> None:
    if len(body.input) != 2 + len(carried):
        raise ctx.error(
            f"body takes {len(body.input)} inputs; the node gives {len(carried)} loop-carried "
            "values (plus iteration number and condition)"
        )


#: The trip count of a Loop without one: ONNX's "no limit" (the condition ends it).
NO_LIMIT = np.iinfo(np.int64).max


def _runtime_loop(ctx: NodeContext, body: onnx.GraphProto) -> list[AnyValue]:
    """A trip count or condition known only at run time: a graph.loop, the body converted
    once into its region. Without scan outputs only (their length would be known only at
    run time): a Loop that has them needs its course at import time."""
    carried_any = [ctx.any_value(i) for i in range(2, len(ctx.inputs))]
    _check_body_inputs(ctx, body, carried_any)
    why = None
    if len(body.output) != 1 + len(carried_any):
        why = "it has scan outputs, whose length"
    elif any(isinstance(v, SequenceValue | OptionalValue) for v in carried_any):
        why = "it carries a sequence or an optional, whose length or presence"
    if why is not None:
        name = ctx.input_name(0) if ctx.has_input(0) and not ctx.is_const(0) else ctx.input_name(1)
        message = ctx.error(f"its course is known only at run time, but {why} minitvm needs at "
                            "import time (it unrolls such a Loop)")  # fmt: skip
        raise NonConstantOperandError(str(message), name)
    carried = [ctx.value(i) for i in range(2, len(ctx.inputs))]
    trip = ctx.tensor(0) if ctx.has_input(0) else ctx.materialize(
        np.array(NO_LIMIT, np.int64), f"{ctx.node.output[0]}_no_limit")  # fmt: skip
    cond = ctx.tensor(1) if ctx.has_input(1) else ctx.materialize(
        np.array(True), f"{ctx.node.output[0]}_always")  # fmt: skip
    inits = [v if isinstance(v, SSAValue) else ctx.materialize(v, ctx.input_name(n + 2))
             for n, v in enumerate(carried)]  # fmt: skip
    block = Block(arg_types=[TensorType(i64, []), TensorType(i1, []), *(v.type for v in inits)])
    bindings: dict[str, AnyValue] = {v.name: a for v, a in zip(body.input, block.args)}
    for value, arg in zip(body.input, block.args):
        arg.name_hint = value.name or None
    outputs = ctx.convert_subgraph(body, bindings, block)
    if any(isinstance(v, SequenceValue | OptionalValue) for v in outputs):
        raise ctx.error("its body gives a sequence or an optional; a Loop on a run-time course "
                        "carries tensors")  # fmt: skip
    values = [v if isinstance(v, SSAValue) else ctx.materialize(v, f"{ctx.node.output[0]}_{n}")
              for n, v in enumerate(outputs)]  # fmt: skip
    carried_types = [v.type for v in inits]
    if [v.type for v in values[1:]] != carried_types:
        raise ctx.error(
            f"the body gives ({', '.join(str(v.type) for v in values[1:])}) for loop-carried "
            f"values of types ({', '.join(map(str, carried_types))}): with a course known only "
            "at run time they must keep their types (static shapes)"
        )
    block.add_op(g.YieldOp(*values))
    return list(ctx.emit(g.LoopOp(trip, cond, inits, Region(block))).results)


def _tensors(ctx: NodeContext, values: Sequence[AnyValue]) -> list[Value]:
    """`values`, which a scan output stacks: tensors, not sequences."""
    if any(isinstance(v, SequenceValue | OptionalValue) for v in values):
        raise ctx.error("a scan output of the body is a sequence or an optional; only tensors "
                        "are stacked")  # fmt: skip
    return list(values)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Scan
# --------------------------------------------------------------------------------------------


def _per_input(ctx: NodeContext, name: str, count: int, default: int) -> list[int]:
    values = ctx.attr_ints(name, [default] * count)
    assert values is not None
    if len(values) != count:
        raise ctx.error(f"{name} has {len(values)} entries for {count} values")
    return values


@converter("Scan", folds=True)
def convert_scan(ctx: NodeContext) -> list[Value]:
    body = _graph_attr(ctx, "body")
    num_scan = ctx.attr_int("num_scan_inputs", 0)
    if ctx.opset < 9:
        return _scan_batched(ctx, body, num_scan)
    inputs = [ctx.value(i) for i in range(len(ctx.inputs))]
    return _scan(ctx, body, inputs, num_scan)


def _scan(
    ctx: NodeContext, body: onnx.GraphProto, inputs: list[Value], num_scan: int
) -> list[Value]:
    """Opset 9+ Scan over `inputs` (states..., scan inputs...)."""
    states, scan_inputs = inputs[: len(inputs) - num_scan], inputs[len(inputs) - num_scan :]
    if num_scan <= 0 or len(body.input) != len(inputs):
        raise ctx.error(f"num_scan_inputs {num_scan} does not fit {len(inputs)} inputs and a "
                        f"body of {len(body.input)}")  # fmt: skip
    axes = [ctx.axis(a, _rank(v)) for a, v in zip(
        _per_input(ctx, "scan_input_axes", num_scan, 0), scan_inputs)]  # fmt: skip
    directions = _per_input(ctx, "scan_input_directions", num_scan, 0)
    lengths = {int(np.shape(v)[a]) if isinstance(v, np.ndarray) else v.type.get_shape()[a]  # type: ignore[attr-defined]
               for v, a in zip(scan_inputs, axes)}  # fmt: skip
    if len(lengths) != 1:
        raise ctx.error(f"scan inputs have different lengths {sorted(lengths)} along their axes")
    (length,) = lengths
    num_outputs = len(body.output) - len(states)
    parts: list[list[Value]] = [[] for _ in range(num_outputs)]
    for step in range(length):
        bindings = {v.name: s for v, s in zip(body.input, states)}
        for v, x, axis, backward in zip(body.input[len(states) :], scan_inputs, axes, directions):
            bindings[v.name] = _slice(ctx, x, axis, length - 1 - step if backward else step)
        outputs = ctx.convert_subgraph(body, bindings)
        states = list(outputs[: len(states)])
        for collected, value in zip(parts, outputs[len(states) :]):
            collected.append(value)
    out_axes = _per_input(ctx, "scan_output_axes", num_outputs, 0)
    out_directions = _per_input(ctx, "scan_output_directions", num_outputs, 0)
    stacked = []
    for collected, axis, backward in zip(parts, out_axes, out_directions):
        axis = ctx.axis(axis, _rank(collected[0]) + 1)
        stacked.append(_stack(ctx, collected[::-1] if backward else collected, axis))
    return [*states, *stacked]


def _scan_batched(ctx: NodeContext, body: onnx.GraphProto, num_scan: int) -> list[Value]:
    """Opset 8: (sequence_lens?, states..., scan inputs...) with a leading batch axis and the
    sequence on axis 1: each batch element scanned as opset 9's Scan, results stacked."""
    if ctx.has_input(0):
        lens = _known(ctx, 0, "sequence_lens", "minitvm unrolls Scan")
        first = ctx.value(1)
        full = (
            int(np.shape(first)[1]) if isinstance(first, np.ndarray) else first.type.get_shape()[1]
        )  # type: ignore[attr-defined]
        if np.any(lens != full):
            raise ctx.error("sequence_lens shorter than the sequence are not supported")
    inputs = [ctx.value(i) for i in range(1, len(ctx.inputs))]
    batch = (
        int(np.shape(inputs[0])[0])
        if isinstance(inputs[0], np.ndarray)
        else inputs[0].type.get_shape()[0]
    )  # type: ignore[attr-defined]
    directions = _per_input(ctx, "directions", num_scan, 0)
    results: list[list[Value]] = []
    for b in range(batch):
        per = [_slice(ctx, v, 0, b) for v in inputs]
        results.append(_scan_directions(ctx, body, per, num_scan, directions))
    return [_stack(ctx, [r[i] for r in results], 0) for i in range(len(results[0]))]


def _scan_directions(
    ctx: NodeContext, body: onnx.GraphProto, inputs: list[Value], num_scan: int,
    directions: list[int],
) -> list[Value]:  # fmt: skip
    """One batch element of an opset-8 Scan: opset 9's loop with opset 8's `directions`."""
    states, scan_inputs = inputs[: len(inputs) - num_scan], inputs[len(inputs) - num_scan :]
    (length,) = {int(np.shape(x)[0]) if isinstance(x, np.ndarray) else x.type.get_shape()[0]  # type: ignore[attr-defined]
                 for x in scan_inputs}  # fmt: skip
    parts: list[list[Value]] = [[] for _ in range(len(body.output) - len(states))]
    for step in range(length):
        bindings = {v.name: s for v, s in zip(body.input, states)}
        for v, x, backward in zip(body.input[len(states) :], scan_inputs, directions):
            bindings[v.name] = _slice(ctx, x, 0, length - 1 - step if backward else step)
        outputs = ctx.convert_subgraph(body, bindings)
        states = list(outputs[: len(states)])
        for collected, value in zip(parts, outputs[len(states) :]):
            collected.append(value)
    return [*states, *(_stack(ctx, collected, 0) for collected in parts)]
