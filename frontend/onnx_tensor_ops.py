"""ONNX converters for data-movement and shape ops: reshape family, slicing, padding, resize,
element gathers and scatters, running sums, sequence reversal, and the ops the frontend folds
away entirely (Constant, ConstantOfShape, Shape, Range, Identity, Dropout).

Shape-like operands (target shapes, axes, pads, bounds, scales) must be known at import time;
`ctx.const` raises a FrontendError naming the node and input when one is not. Converters
registered with `folds=True` also run when their inputs are constants and then return numpy
arrays: reshapes of weights stay cheap views (ConstantOfShape weights are never expanded).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.utils.exceptions import VerifyException

from minitvm.dialects import graph as g
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import Dim, ShapeError, broadcast_shapes, fmt_shape, tensor_type
from minitvm.frontend.onnx_data_dependent import slice_at_run_time
from minitvm.frontend.onnx_node import AnyValue, NodeContext, Value, converter, element_type
from minitvm.frontend.onnx_run_time_shapes import (
    expand_at_run_time,
    range_at_run_time,
    reshape_at_run_time,
    tile_at_run_time,
)
from minitvm.frontend.onnx_symbolic import finish
from minitvm.symbolic import SymDim, ceildiv, product, sym_max, sym_min


def _ints(array: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(array).reshape(-1)]


def _dims(array: np.ndarray) -> list[Dim]:
    """A shape operand's entries: ints, or symbolic sizes (`onnx_symbolic`)."""
    return [v if isinstance(v, SymDim) else int(v) for v in np.asarray(array).reshape(-1)]


# --------------------------------------------------------------------------------------------
# Folded away: values known at import time
# --------------------------------------------------------------------------------------------


@converter("Constant", folds=True)
def convert_constant(ctx: NodeContext) -> list[Value]:
    """One of value (tensor), value_float(s), value_int(s); strings and sparse tensors are
    not supported."""
    if ctx.has_attr("value"):
        return [ctx.tensor_attr("value")]  # type: ignore[list-item]
    variants = {
        "value_float": np.float32, "value_floats": np.float32,
        "value_int": np.int64, "value_ints": np.int64,
    }  # fmt: skip
    for name, dtype in variants.items():
        if ctx.has_attr(name):
            return [np.array(ctx.attr(name), dtype=dtype)]
    given = ", ".join(a.name for a in ctx.node.attribute) or "none"
    raise ctx.error(
        f"unsupported value attribute ({given}); supported: value, value_float, value_floats, "
        "value_int, value_ints"
    )


@converter("ConstantOfShape", folds=True)
def convert_constant_of_shape(ctx: NodeContext) -> list[Value]:
    """A broadcast view: a 100M-element splat weight costs nothing until it is printed."""
    shape = _dims(ctx.const(0, "input"))
    if any(d < 0 for d in shape):
        raise ctx.error(f"negative dimension in shape {shape}")
    value = ctx.tensor_attr("value")
    fill = np.zeros((), np.float32) if value is None else value
    if any(isinstance(d, SymDim) for d in shape):  # a size known at run time: broadcast there
        scalar = ctx.materialize(fill.reshape(()), f"{ctx.node.output[0]}_value")
        return [ctx.make1(g.ExpandOp, scalar, shape=shape)]
    return [np.broadcast_to(fill.reshape(()), shape)]


@converter("Shape", folds=True)
def convert_shape(ctx: NodeContext) -> list[Value]:
    """Shapes are known at import time, so Shape always folds (to an array of dtype object
    where sizes are symbolic: `onnx_symbolic`); start/end (opset 15) slice it, clamped."""
    shape = finish(ctx.shape(0))
    if ctx.opset < 15:
        return [shape]
    end = ctx.attr("end")
    return [shape[ctx.attr_int("start", 0) : None if end is None else int(end)]]  # type: ignore[arg-type]


@converter("Size", folds=True)
def convert_size(ctx: NodeContext) -> list[Value]:
    """The element count, an int64 scalar: static like Shape."""
    return [finish(product(ctx.shape(0)))]


@converter("Range", folds=True)
def convert_range(ctx: NodeContext) -> list[Value]:
    """Folds to a constant; with a symbolic limit (`Range(0, seq, 1)`) the values are made
    at run time (graph.range), their count a symbolic size; with operands computed as the
    model runs, so is the count (`onnx_run_time_shapes`)."""
    if any([ctx.at_run_time(i, what) for i, what in enumerate(("start", "limit", "delta"))]):
        return [range_at_run_time(ctx)]
    start, limit, delta = (ctx.const(i, what) for i, what in enumerate(("start", "limit", "delta")))
    if delta.reshape(()) == 0:
        raise ctx.error("delta is 0")
    if any(v.dtype == object for v in (start, limit, delta)):
        return [_symbolic_range(ctx, start.reshape(()), limit.reshape(()), delta.reshape(()))]
    count = max(math.ceil((limit.reshape(()) - start.reshape(())) / delta.reshape(())), 0)
    return [(start.reshape(()) + np.arange(count) * delta.reshape(())).astype(start.dtype)]


def _symbolic_range(ctx: NodeContext, start: np.ndarray, limit: np.ndarray, delta: np.ndarray) -> Value:
    first, step, end = start.item(), delta.item(), limit.item()
    if isinstance(first, SymDim) or isinstance(step, SymDim):
        raise ctx.error(
            f"a range from {first} by {step} (symbolic) is not supported: only its limit may "
            "be a size known at run time; fix the input dimensions with input_shapes"
        )
    count = sym_max(ceildiv(end - first, step) if step > 0 else ceildiv(first - end, -step), 0)
    dtype = next((d for d in (ctx.dtype(0), ctx.dtype(2)) if d != object), np.dtype(np.int64))
    element = element_type(dtype, f"node '{ctx.node.name}'")
    return ctx.make1(g.RangeOp, start=first, delta=step, length=count, element_type=element)


@converter("Identity", folds=True)
def convert_identity(ctx: NodeContext) -> list[AnyValue]:
    """A tensor or a sequence, passed through."""
    return [ctx.any_value(0)]


@converter("Dropout", folds=True)
def convert_dropout(ctx: NodeContext) -> list[Value]:
    """Inference: output = input, and the mask (if consumed) is all true. Before opset 12
    the spec leaves an inference mask undefined (ONNX Runtime returns all false, typed like the
    input in opset 7), so a consumed mask is an error there."""
    if ctx.opset >= 12 and ctx.has_input(2) and bool(ctx.const(2, "training_mode").reshape(())):
        raise ctx.error("training_mode=true is not supported; export the model for inference")
    if not ctx.output_used(1):
        return [ctx.any_value(0)]
    if ctx.opset < 12:
        raise ctx.error("the mask output is not supported before opset 12; supported: output 0")
    return [ctx.value(0), np.broadcast_to(np.True_, ctx.shape(0))]


# --------------------------------------------------------------------------------------------
# The reshape family
# --------------------------------------------------------------------------------------------


def reshape(ctx: NodeContext, i: int, shape: Sequence[Dim]) -> Value:
    """Input `i` with a new shape: an array stays an array, the same shape is no op."""
    value = ctx.value(i)
    shape = [d if isinstance(d, SymDim) else int(d) for d in shape]
    if isinstance(value, np.ndarray):
        return value.reshape(shape)
    if tuple(shape) == ctx.shape(i):
        return value
    return ctx.make1(g.ReshapeOp, value, shape=shape)


@converter("Reshape", folds=True)
def convert_reshape(ctx: NodeContext) -> list[Value]:
    """To a shape known now (numbers, symbolic sizes) or computed as the model runs."""
    allowzero = ctx.attr_int("allowzero", 0)
    if ctx.at_run_time(1, "shape"):
        return [reshape_at_run_time(ctx, allowzero)]
    target = _dims(ctx.const(1, "shape"))
    return [reshape(ctx, 0, resolve_reshape(ctx, ctx.shape(0), target, allowzero))]


def resolve_reshape(
    ctx: NodeContext, source: Sequence[Dim], target: Sequence[Dim], allowzero: int
) -> list[Dim]:
    """ONNX's target shape to an explicit one: 0 copies the input dim (unless allowzero),
    one -1 takes what is left."""
    out, inferred = [], None
    for i, d in enumerate(target):
        if d == 0 and not allowzero:
            if i >= len(source):
                raise ctx.error(
                    f"shape {list(target)} copies dim {i}, but the input has rank {len(source)}"
                )
            d = source[i]
        if d == -1:
            if inferred is not None:
                raise ctx.error(f"shape {list(target)} has more than one -1")
            inferred = i
            d = 1
        elif d < 0:
            raise ctx.error(f"shape {list(target)} has a negative dimension")
        out.append(d)
    total, known = product(source), product(out)
    if inferred is not None:
        if known == 0 or total % known:
            raise ctx.error(f"cannot reshape {fmt_shape(source)} to [{', '.join(map(str, target))}]")
        out[inferred] = total // known
    if product(out) != total:
        raise ctx.error(
            f"cannot reshape {fmt_shape(source)} ({total} elements) to [{', '.join(map(str, target))}]"
        )
    return out


@converter("Flatten", folds=True)
def convert_flatten(ctx: NodeContext) -> list[Value]:
    shape = ctx.shape(0)
    axis = ctx.attr_int("axis", 1)
    if not -len(shape) <= axis <= len(shape):
        raise ctx.error(f"axis {axis} is out of range for rank {len(shape)}")
    axis = axis + len(shape) if axis < 0 else axis
    return [reshape(ctx, 0, [product(shape[:axis]), product(shape[axis:])])]


def _axes_operand(ctx: NodeContext, input_from: int) -> list[int] | None:
    """`axes`: an attribute before opset `input_from`, an optional input from then on."""
    if ctx.opset >= input_from:
        given = ctx.optional_const(1, "axes")
        return None if given is None else _ints(given)
    return ctx.attr_ints("axes")


@converter("Squeeze", folds=True)
def convert_squeeze(ctx: NodeContext) -> list[Value]:
    shape = ctx.shape(0)
    axes = _axes_operand(ctx, 13)
    if axes is None:
        drop = [i for i, d in enumerate(shape) if d == 1]
    else:
        drop = ctx.axes(axes, len(shape))
        if bad := [a for a in drop if shape[a] != 1]:
            raise ctx.error(f"cannot squeeze axes {bad} of shape {shape}: they are not 1")
    return [reshape(ctx, 0, [d for i, d in enumerate(shape) if i not in drop])]


@converter("Unsqueeze", folds=True)
def convert_unsqueeze(ctx: NodeContext) -> list[Value]:
    shape = list(ctx.shape(0))
    axes = _axes_operand(ctx, 13)
    if axes is None:
        raise ctx.error("missing axes")
    for axis in ctx.axes(axes, len(shape) + len(axes)):
        shape.insert(axis, 1)
    return [reshape(ctx, 0, shape)]


# --------------------------------------------------------------------------------------------
# Layout and data movement
# --------------------------------------------------------------------------------------------


@converter("Transpose")
def convert_transpose(ctx: NodeContext) -> list[Value]:
    rank = ctx.rank(0)
    perm = ctx.attr_ints("perm", list(range(rank))[::-1])
    assert perm is not None
    perm = [ctx.axis(p, rank, "perm") for p in perm]
    if sorted(perm) != list(range(rank)):
        raise ctx.error(f"perm {perm} is not a permutation of 0..{rank - 1}")
    if perm == list(range(rank)):
        return [ctx.tensor(0)]
    return [ctx.make1(g.TransposeOp, ctx.tensor(0), perm=perm)]


@converter("Concat")
def convert_concat(ctx: NodeContext) -> list[Value]:
    operands = [ctx.tensor(i) for i in range(len(ctx.inputs)) if ctx.has_input(i)]
    if len(operands) == 1:
        return operands
    axis = ctx.axis(ctx.attr_int("axis", 1 if ctx.opset < 4 else 0), ctx.rank(0))
    return [ctx.make1(g.ConcatOp, operands, axis=axis)]


@converter("Split")
def convert_split(ctx: NodeContext) -> list[Value]:
    """Sizes: the `split` attribute before opset 13, an optional input from then on; else an
    equal split into the outputs (from opset 18 `num_outputs`, the last piece smaller)."""
    shape = ctx.shape(0)
    axis = ctx.axis(ctx.attr_int("axis", 0), len(shape))
    dim = shape[axis]
    if ctx.opset >= 13:
        given = ctx.optional_const(1, "split")
        sizes = None if given is None else _ints(given)
    else:
        sizes = ctx.attr_ints("split")
    if not sizes:
        count = ctx.attr_int("num_outputs", len(ctx.node.output))
        if ctx.opset >= 18 and ctx.has_attr("num_outputs"):
            piece = -(-dim // count)
            sizes = [min(piece, dim - k * piece) for k in range(count)]
        elif dim % count:
            raise ctx.error(f"cannot split dim {axis} of size {dim} into {count} equal parts")
        else:
            sizes = [dim // count] * count
    if sum(sizes) != dim or any(s < 0 for s in sizes):
        raise ctx.error(f"split sizes {sizes} do not add up to dim {axis} of size {dim}")
    return list(ctx.make(g.SplitOp, ctx.tensor(0), axis=axis, sizes=sizes).results)


@converter("Slice")
def convert_slice(ctx: NodeContext) -> list[Value]:
    """ONNX's clamping is applied here so that graph.slice sees Python-range bounds; starts
    and ends known only at run time take `slice_at_run_time`."""
    shape = ctx.shape(0)
    if ctx.opset >= 10 and not (ctx.is_const(1) and ctx.is_const(2)):
        given_axes, given_steps = ctx.optional_const(3, "axes"), ctx.optional_const(4, "steps")
        count = ctx.shape(1)[0] if ctx.shape(1) else 1
        if not isinstance(count, int):
            raise ctx.error("starts must have a length known at import time")
        axes = list(range(count)) if given_axes is None else [ctx.axis(a, len(shape)) for a in _ints(given_axes)]
        steps = [1] * count if given_steps is None else _ints(given_steps)
        if len(set(axes)) != len(axes) or len(steps) != len(axes) or 0 in steps:
            raise ctx.error(f"axes {axes} and steps {steps} must be as many, distinct and non-zero")
        return [slice_at_run_time(ctx, shape, axes, steps)]
    bounds = slice_bounds(ctx, shape)
    full_starts, full_ends, full_steps = (list(b) for b in zip(*bounds)) if bounds else ([], [], [])
    if full_starts == [0] * len(shape) and full_ends == list(shape) and set(full_steps) <= {1}:
        return [ctx.tensor(0)]
    return [
        ctx.make1(g.SliceOp, ctx.tensor(0), starts=full_starts, ends=full_ends, steps=full_steps)
    ]


def slice_bounds(ctx: NodeContext, shape: Sequence[Dim]) -> list[tuple[Dim, Dim, int]]:
    """(start, end, step) of a Slice node along every axis of an input of `shape`, as Python
    range bounds. Bounds are attributes before opset 10 and inputs from then on."""
    if ctx.opset < 10:
        starts, ends = ctx.attr_ints("starts"), ctx.attr_ints("ends")
        axes, steps = ctx.attr_ints("axes"), None
        if starts is None or ends is None:
            raise ctx.error("missing starts or ends")
    else:
        starts, ends = _dims(ctx.const(1, "starts")), _dims(ctx.const(2, "ends"))
        given_axes, given_steps = ctx.optional_const(3, "axes"), ctx.optional_const(4, "steps")
        axes = None if given_axes is None else _ints(given_axes)
        steps = None if given_steps is None else _ints(given_steps)
    axes = list(range(len(starts))) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise ctx.error("starts, ends, axes and steps must have the same length")
    bounds = [(0, d, 1) for d in shape]
    normalized = [ctx.axis(a, len(shape)) for a in axes]
    if len(set(normalized)) != len(normalized):
        raise ctx.error(f"axes {axes} repeat an axis")
    for axis, start, end, step in zip(normalized, starts, ends, steps):
        if step == 0:
            raise ctx.error(f"step of axis {axis} is 0")
        bounds[axis] = (*clamp_slice(start, end, step, shape[axis]), step)
    return bounds


def clamp_slice(start: int, end: int, step: int, dim: int) -> tuple[int, int]:
    """ONNX Slice bounds -> Python range bounds: negatives count from the end, then clamp to
    [0, dim] for positive steps and [-1, dim - 1] for negative ones."""
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    if step > 0:
        return sym_min(sym_max(start, 0), dim), sym_min(sym_max(end, 0), dim)
    return sym_min(sym_max(start, 0), dim - 1), sym_min(sym_max(end, -1), dim - 1)


@converter("Gather")
def convert_gather(ctx: NodeContext) -> list[Value]:
    axis = ctx.axis(ctx.attr_int("axis", 0), ctx.rank(0))
    if ctx.dtype(1) not in (np.dtype(np.int64), np.dtype(np.int32)):
        raise ctx.error(f"indices must be int32 or int64, got {ctx.dtype(1)}")
    return [ctx.make1(g.GatherOp, ctx.tensor(0), ctx.tensor(1), axis=axis)]


@converter("Expand")
def convert_expand(ctx: NodeContext) -> list[Value]:
    """To a shape known now (numbers, symbolic sizes) or computed as the model runs."""
    if ctx.at_run_time(1, "shape"):
        return [expand_at_run_time(ctx)]
    shape = ctx.shape(0)
    target = _dims(ctx.const(1, "shape"))
    try:
        result = list(broadcast_shapes("Expand", shape, tuple(target)))
    except ShapeError:
        raise ctx.error(f"shape {target} does not broadcast with the input's {shape}") from None
    if tuple(result) == shape:
        return [ctx.tensor(0)]
    return [ctx.make1(g.ExpandOp, ctx.tensor(0), shape=result)]


@converter("Tile")
def convert_tile(ctx: NodeContext) -> list[Value]:
    """Repeats known now or computed as the model runs."""
    if ctx.at_run_time(1, "repeats"):
        return [tile_at_run_time(ctx)]
    repeats = _ints(ctx.const(1, "repeats"))
    if len(repeats) != ctx.rank(0):
        raise ctx.error(f"repeats {repeats} needs {ctx.rank(0)} entries (the input rank)")
    if all(r == 1 for r in repeats):
        return [ctx.tensor(0)]
    return [ctx.make1(g.TileOp, ctx.tensor(0), repeats=repeats)]


@converter("Pad")
def convert_pad(ctx: NodeContext) -> list[Value]:
    """pads/value are attributes before opset 11, inputs after (axes from 18). Negative pads
    crop: they become a slice before the (non-negative) pad. Mode "wrap" is opset 19's."""
    modes = ("constant", "reflect", "edge") + (("wrap",) if ctx.opset >= 19 else ())
    mode = ctx.attr_choice("mode", "constant", modes)
    shape = ctx.shape(0)
    rank = len(shape)
    if ctx.opset < 11:
        pads = ctx.attr_ints("pads") or []
        value = ctx.attr_float("value", 0.0)
    else:
        pads = _ints(ctx.const(1, "pads"))
        given_value = ctx.optional_const(2, "constant_value")
        value = 0.0 if given_value is None or not given_value.size else float(given_value.flat[0])
        given_axes = ctx.optional_const(3, "axes")
        if given_axes is not None:
            pads = _scatter_pads(ctx, pads, _ints(given_axes), rank)
    if len(pads) != 2 * rank:
        raise ctx.error(f"pads has {len(pads)} entries; expected {2 * rank}")
    x = ctx.tensor(0)
    if any(p < 0 for p in pads):
        starts = [max(0, -p) for p in pads[:rank]]
        ends = [d - max(0, -p) for d, p in zip(shape, pads[rank:])]
        x = ctx.make1(g.SliceOp, x, starts=starts, ends=ends, steps=[1] * rank)
        pads = [max(0, p) for p in pads]
    if not any(pads):
        return [x]
    return [ctx.make1(g.PadOp, x, pads=pads, mode=mode, value=value)]


def _scatter_pads(ctx: NodeContext, pads: list[int], axes: list[int], rank: int) -> list[int]:
    """Pads given for some axes (opset 18) -> pads for all of them."""
    if len(pads) != 2 * len(axes):
        raise ctx.error(f"pads has {len(pads)} entries for {len(axes)} axes")
    full = [0] * (2 * rank)
    for k, axis in enumerate(ctx.axis(a, rank) for a in axes):
        full[axis], full[rank + axis] = pads[k], pads[len(axes) + k]
    return full


# --------------------------------------------------------------------------------------------
# Element gathers, scatters, running sums, sequence reversal
# --------------------------------------------------------------------------------------------


def _check_index_type(ctx: NodeContext, i: int, what: str = "indices") -> None:
    if ctx.dtype(i) not in (np.dtype(np.int64), np.dtype(np.int32)):
        raise ctx.error(f"{what} must be int32 or int64, got {ctx.dtype(i)}")


@converter("GatherElements")
def convert_gather_elements(ctx: NodeContext) -> list[Value]:
    _check_index_type(ctx, 1)
    axis = ctx.axis(ctx.attr_int("axis", 0), ctx.rank(0))
    return [ctx.make1(g.GatherElementsOp, ctx.tensor(0), ctx.tensor(1), axis=axis)]


@converter("GatherND")
def convert_gather_nd(ctx: NodeContext) -> list[Value]:
    """batch_dims from opset 12 (0 before)."""
    _check_index_type(ctx, 1)
    batch_dims = ctx.attr_int("batch_dims", 0)
    return [ctx.make1(g.GatherNDOp, ctx.tensor(0), ctx.tensor(1), batch_dims=batch_dims)]


def _scatter_reduction(ctx: NodeContext) -> str:
    """`reduction`: none only before opset 16, add and mul from 16, max and min from 18."""
    allowed = ["none"] + ["add", "mul"] * (ctx.opset >= 16) + ["max", "min"] * (ctx.opset >= 18)
    return ctx.attr_choice("reduction", "none", allowed)


@converter("ScatterElements", "Scatter")
def convert_scatter_elements(ctx: NodeContext) -> list[Value]:
    """Scatter (opsets 9-10; removed in 11) is ScatterElements without `reduction`."""
    if ctx.op_type == "Scatter" and ctx.opset >= 11:
        raise ctx.error("Scatter was removed in opset 11: use ScatterElements")
    _check_index_type(ctx, 1)
    axis = ctx.axis(ctx.attr_int("axis", 0), ctx.rank(0))
    props: dict[str, int | str] = {"axis": axis, "reduction": _scatter_reduction(ctx)}
    return [_scatter(ctx, g.ScatterElementsOp, props)]


@converter("ScatterND")
def convert_scatter_nd(ctx: NodeContext) -> list[Value]:
    _check_index_type(ctx, 1)
    return [_scatter(ctx, g.ScatterNDOp, {"reduction": _scatter_reduction(ctx)})]


def _scatter(ctx: NodeContext, cls: type[g.ScatterOp], props: dict[str, int | str]) -> Value:
    """The scatter op, or for indices known now (and, with a reduction, no index written
    twice) a gather and a where: O(data) at run time where the op is O(data x updates)."""
    types = [
        tensor_type(ctx.shape(i), element_type(ctx.dtype(i), f"input {i}")) for i in range(3)
    ]
    try:
        cls.infer_result_types(types, cls.normalized_props(props))
    except VerifyException as e:
        raise ctx.error(str(e)) from e
    if not ctx.is_const(1):
        return ctx.make1(cls, ctx.tensor(0), ctx.tensor(1), ctx.tensor(2), **props)
    shape, indices = ctx.shape(0), ctx.const(1, "indices")
    try:
        if cls is g.ScatterElementsOp:
            targets = reference.scatter_elements_targets(shape, indices, int(props["axis"]))
        else:
            targets = reference.scatter_nd_targets(shape, indices)
    except reference.EvaluationError as e:
        raise ctx.error(str(e)) from e
    reduction = str(props["reduction"])
    if reduction != "none" and np.unique(targets).size != targets.size:
        return ctx.make1(cls, ctx.tensor(0), ctx.tensor(1), ctx.tensor(2), **props)
    return _scatter_by_gather(ctx, targets, reduction)


_COMBINE: dict[str, type[g.GraphOp]] = {"add": g.AddOp, "mul": g.MulOp, "max": g.MaxOp, "min": g.MinOp}


def _scatter_by_gather(ctx: NodeContext, targets: np.ndarray, reduction: str) -> Value:
    """result = where(written, combine(data, updates.flat[source]), data), `written` and
    `source` (the update each element receives) computed from the constant targets."""
    shape = ctx.shape(0)
    if not targets.size:
        return ctx.value(0)
    source = reference.last_writes(targets, math.prod(shape))
    written = (source >= 0).reshape(shape)
    source = np.maximum(source, 0).reshape(shape)
    flat = reshape(ctx, 2, [targets.size])
    out = ctx.node.output[0]
    if isinstance(flat, np.ndarray):
        picked = ctx.materialize(flat[source], f"{out}_updates")
    else:
        positions = ctx.materialize(source, f"{out}_source")
        picked = ctx.make1(g.GatherOp, flat, positions, axis=0)
    if reduction != "none":
        picked = ctx.make1(_COMBINE[reduction], ctx.tensor(0), picked)
    if written.all():
        return picked
    mask = ctx.materialize(written, f"{out}_written")
    return ctx.make1(g.WhereOp, mask, picked, ctx.tensor(0))


@converter("CumSum", "CumProd")
def convert_cumulative(ctx: NodeContext) -> list[Value]:
    """CumSum (opsets 11, 14), CumProd (26): `axis` is input 1, a scalar that must be known
    at import time; `exclusive` and `reverse` are 0 or 1."""
    given = ctx.const(1, "axis")
    if given.size != 1 or given.dtype.kind not in "iu":
        raise ctx.error(f"axis must be an integer scalar, got {given.dtype} of shape {list(given.shape)}")
    axis = ctx.axis(int(given.reshape(())), ctx.rank(0))
    cls = g.CumSumOp if ctx.op_type == "CumSum" else g.CumProdOp
    flags = {flag: ctx.attr_int(flag, 0) for flag in ("exclusive", "reverse")}
    return [ctx.make1(cls, ctx.tensor(0), axis=axis, **flags)]


@converter("ReverseSequence")
def convert_reverse_sequence(ctx: NodeContext) -> list[Value]:
    """batch_axis (default 1) and time_axis (default 0) are 0 and 1; sequence_lens may be
    computed at run time."""
    axes = {"batch_axis": ctx.attr_int("batch_axis", 1), "time_axis": ctx.attr_int("time_axis", 0)}
    return [ctx.make1(g.ReverseSequenceOp, ctx.tensor(0), ctx.tensor(1), **axes)]


# --------------------------------------------------------------------------------------------
# Resize
# --------------------------------------------------------------------------------------------

_COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
_NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


@converter("Resize")
def convert_resize(ctx: NodeContext) -> list[Value]:
    """Opset 10: (X, scales), modes nearest and linear, with asymmetric coordinates and
    floor rounding (what ONNX's version converter maps it to). Opset 11+: (X, roi, scales,
    sizes), the coordinate attributes and mode cubic; tf_crop_and_resize reads roi (known at
    import time); opset 18 adds axes, antialias (linear and cubic modes) and
    keep_aspect_ratio_policy."""
    shape = ctx.shape(0)
    if ctx.opset < 11:
        mode = ctx.attr_choice("mode", "nearest", ("nearest", "linear"))
        scales = [float(s) for s in ctx.const(1, "scales").reshape(-1)]
        return [
            _resize(
                ctx,
                scales,
                [math.floor(d * s) for d, s in zip(shape, scales)],
                mode=mode,
                coordinate_transformation_mode="asymmetric",
                nearest_mode="floor",
            )
        ]
    mode = ctx.attr_choice("mode", "nearest", ("nearest", "linear", "cubic"))
    scales, sizes = _resize_target(ctx, shape)
    transform = ctx.attr_choice("coordinate_transformation_mode", "half_pixel", _COORDINATE_MODES)
    return [_resize(
        ctx, scales, sizes, mode=mode, coordinate_transformation_mode=transform,
        nearest_mode=ctx.attr_choice("nearest_mode", "round_prefer_floor", _NEAREST_MODES),
        cubic_coeff_a=ctx.attr_float("cubic_coeff_a", -0.75),
        exclude_outside=ctx.attr_int("exclude_outside", 0),
        extrapolation_value=ctx.attr_float("extrapolation_value", 0.0),
        antialias=_antialias(ctx, mode),
        roi=_resize_roi(ctx, len(shape)) if transform == "tf_crop_and_resize" else None,
    )]  # fmt: skip


@converter("Upsample")
def convert_upsample(ctx: NodeContext) -> list[Value]:
    """Resize before Resize existed (opsets 7-9): scales as an attribute (7-8) or input 1
    (9), asymmetric coordinates with floor rounding, as opset 10's Resize."""
    mode = ctx.attr_choice("mode", "nearest", ("nearest", "linear", "bilinear"))
    shape = ctx.shape(0)
    given = ctx.attr("scales") if ctx.opset < 9 else ctx.const(1, "scales").reshape(-1)
    if given is None:
        raise ctx.error("missing scales")
    scales = [float(v) for v in given]  # type: ignore[union-attr]
    if len(scales) != len(shape):
        raise ctx.error(f"scales {scales} needs {len(shape)} entries (the input rank)")
    return [_resize(
        ctx, scales, [math.floor(d * v) for d, v in zip(shape, scales)],
        mode="nearest" if mode == "nearest" else "linear",
        coordinate_transformation_mode="asymmetric", nearest_mode="floor",
    )]  # fmt: skip


def _resize_target(ctx: NodeContext, shape: Sequence[int]) -> tuple[list[float], list[int]]:
    """Full-rank scales and output sizes from whichever of scales/sizes the node gives."""
    rank = len(shape)
    axes = _resize_axes(ctx, rank)
    given_scales = ctx.optional_const(2, "scales") if ctx.has_input(2) else None
    given_sizes = ctx.optional_const(3, "sizes") if ctx.has_input(3) else None
    scales, sizes = [1.0] * rank, list(shape)
    if given_scales is not None and given_scales.size:
        if given_sizes is not None and given_sizes.size:
            raise ctx.error("give either scales or sizes, not both")
        for axis, s in zip(axes, given_scales.reshape(-1), strict=True):
            scales[axis], sizes[axis] = float(s), math.floor(shape[axis] * float(s))
        return scales, sizes
    if given_sizes is None or not given_sizes.size:
        raise ctx.error("needs scales or sizes")
    wanted = dict(zip(axes, _ints(given_sizes), strict=True))
    policy = ctx.attr_choice(
        "keep_aspect_ratio_policy", "stretch", ("stretch", "not_larger", "not_smaller")
    )
    if policy != "stretch":
        ratios = [wanted[a] / shape[a] for a in axes]
        common = min(ratios) if policy == "not_larger" else max(ratios)
        wanted = {a: math.floor(common * shape[a] + 0.5) for a in axes}  # ONNX rounds half up
        for a in axes:
            scales[a], sizes[a] = common, wanted[a]
        return scales, sizes
    for axis, size in wanted.items():
        scales[axis], sizes[axis] = size / shape[axis], size
    return scales, sizes


def _antialias(ctx: NodeContext, mode: str) -> int:
    antialias = ctx.attr_int("antialias", 0)
    if antialias not in (0, 1):
        raise ctx.error(f"antialias must be 0 or 1, got {antialias}")
    if antialias and mode == "nearest":
        # (ONNX Runtime and ONNX's reference reject it too: nearest has no filter to stretch.)
        raise ctx.error("antialias=1 applies to modes 'linear' and 'cubic', not 'nearest'")
    return antialias


def _resize_axes(ctx: NodeContext, rank: int) -> list[int]:
    """The dims scales, sizes and roi refer to (opset 18's axes; all dims by default)."""
    axes = [ctx.axis(a, rank) for a in ctx.attr_ints("axes", list(range(rank))) or []]
    if len(set(axes)) != len(axes):
        raise ctx.error(f"axes {axes} repeat an axis")
    return axes


def _resize_roi(ctx: NodeContext, rank: int) -> list[float]:
    """tf_crop_and_resize's box as starts then ends of every dim, from input 1's entries for
    `axes` (the other dims keep [0, 1])."""
    given = ctx.optional_const(1, "roi")
    axes = _resize_axes(ctx, rank)
    values = [] if given is None else [float(v) for v in given.reshape(-1)]
    if len(values) != 2 * len(axes):
        raise ctx.error(
            f"tf_crop_and_resize needs roi with {2 * len(axes)} entries (starts, then ends, of "
            f"axes {axes}), got {len(values)}"
        )
    roi = [0.0] * rank + [1.0] * rank
    for n, axis in enumerate(axes):
        roi[axis], roi[rank + axis] = values[n], values[len(axes) + n]
    return roi


def _resize(ctx: NodeContext, scales: list[float], sizes: list[int], **props: object) -> Value:
    return ctx.make(g.ResizeOp, ctx.tensor(0), sizes=sizes, scales=scales, **props).results[0]
