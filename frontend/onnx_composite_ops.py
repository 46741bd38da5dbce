"""ONNX converters for ops that are compositions of graph ops: no graph op of their own.

Each op here is exactly a short chain of existing graph ops (a reshape-transpose-reshape, a
mask known at import time and a select, a slice then a pad), so it gets their schedules and
fuses like them; a graph op of its own would add a lowering rule that computes the same loop
nest. ONNX defines most of them by such a function body too.

    DepthToSpace / SpaceToDepth   reshape, transpose, reshape
    Trilu                         where(constant triangle, x, 0)
    EyeLike                       a constant (shapes are static)
    CenterCropPad                 slice, then pad with zeros
    OneHot                        where(equal(indices, arange(depth)), on, off)
    Hardmax                       equal(arg_max, arange), cast
    TopK (k known at import)      k rounds of arg_max, gather_elements, mask the winner
                                  (k at run time: onnx_data_dependent.py)
    window functions, mel banks   constants (their inputs set the shape), folded at import
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.constant import element_type_of, numpy_dtype_of
from minitvm.frontend.onnx_data_dependent import index_scalar, top_k_by_sort
from minitvm.frontend.onnx_node import NodeContext, Value, converter
from minitvm.frontend.onnx_run_time_shapes import check
from minitvm.symbolic import SymDim

# --------------------------------------------------------------------------------------------
# Depth <-> space
# --------------------------------------------------------------------------------------------


def _block_size(ctx: NodeContext) -> int:
    if ctx.rank(0) != 4:
        raise ctx.error(f"input must be 4-D (N, C, H, W), got rank {ctx.rank(0)}")
    block = ctx.attr_int("blocksize", 0)
    if block <= 0:
        raise ctx.error(f"blocksize must be positive, got {block}")
    return block


@converter("DepthToSpace")
def convert_depth_to_space(ctx: NodeContext) -> list[Value]:
    """[N, C, H, W] -> [N, C/b², H·b, W·b]; DCR mode takes the channels as (b, b, C/b²),
    CRD as (C/b², b, b)."""
    b = _block_size(ctx)
    n, c, h, w = ctx.shape(0)
    if c % (b * b):
        raise ctx.error(f"the {c} channels are not a multiple of blocksize² = {b * b}")
    mode = ctx.attr_choice("mode", "DCR", ("DCR", "CRD"))
    if mode == "DCR":
        split, perm = [n, b, b, c // (b * b), h, w], [0, 3, 4, 1, 5, 2]
    else:
        split, perm = [n, c // (b * b), b, b, h, w], [0, 1, 4, 2, 5, 3]
    x = ctx.make1(g.ReshapeOp, ctx.tensor(0), shape=split)
    x = ctx.make1(g.TransposeOp, x, perm=perm)
    return [ctx.make1(g.ReshapeOp, x, shape=[n, c // (b * b), h * b, w * b])]


@converter("SpaceToDepth")
def convert_space_to_depth(ctx: NodeContext) -> list[Value]:
    """[N, C, H, W] -> [N, C·b², H/b, W/b]; the new channels are (b, b, C) in DCR mode (the
    default) and (C, b, b) in CRD mode (opset 26's attribute)."""
    b = _block_size(ctx)
    n, c, h, w = ctx.shape(0)
    if h % b or w % b:
        raise ctx.error(f"height {h} and width {w} must be multiples of blocksize {b}")
    mode = ctx.attr_choice("mode", "DCR", ("DCR", "CRD"))
    x = ctx.make1(g.ReshapeOp, ctx.tensor(0), shape=[n, c, h // b, b, w // b, b])
    x = ctx.make1(
        g.TransposeOp, x, perm=[0, 3, 5, 1, 2, 4] if mode == "DCR" else [0, 1, 3, 5, 2, 4]
    )
    return [ctx.make1(g.ReshapeOp, x, shape=[n, c * b * b, h // b, w // b])]


# --------------------------------------------------------------------------------------------
# Masks known at import time
# --------------------------------------------------------------------------------------------


def _zero_like_input(ctx: NodeContext) -> SSAValue:
    return ctx.materialize(np.zeros((), ctx.dtype(0)), f"{ctx.node.output[0]}_zero")


@converter("Trilu")
def convert_trilu(ctx: NodeContext) -> list[Value]:
    """The upper (upper=1, default) or lower triangle of the last two dims, from diagonal k
    (input 1, default 0); the rest is zero."""
    shape = ctx.shape(0)
    if len(shape) < 2:
        raise ctx.error(f"input must have rank >= 2, got rank {len(shape)}")
    given = ctx.optional_const(1, "k")
    k = 0 if given is None else int(given.reshape(()))
    rows, cols = shape[-2:]
    upper = bool(ctx.attr_int("upper", 1))
    keep = (np.triu if upper else np.tril)(np.ones((rows, cols), np.bool_), k)
    if ctx.is_const(0):
        return [np.where(keep, ctx.const(0, "input"), np.zeros((), ctx.dtype(0)))]
    mask = ctx.materialize(keep, f"{ctx.node.output[0]}_mask")
    return [ctx.make1(g.WhereOp, mask, ctx.tensor(0), _zero_like_input(ctx))]


@converter("EyeLike", folds=True)
def convert_eye_like(ctx: NodeContext) -> list[Value]:
    """Ones on diagonal k of a 2-D shape: a constant, since the shape is static."""
    shape = ctx.shape(0)
    if len(shape) != 2:
        raise ctx.error(f"input must be 2-D, got rank {len(shape)}")
    dtype = ctx.dtype(0)
    if ctx.has_attr("dtype"):
        dtype = numpy_dtype_of(ctx.element_type(ctx.attr_int("dtype", 1), "'dtype'"))
    return [np.eye(shape[0], shape[1], ctx.attr_int("k", 0), dtype=dtype)]


# --------------------------------------------------------------------------------------------
# Crops and one-hot
# --------------------------------------------------------------------------------------------


@converter("CenterCropPad")
def convert_center_crop_pad(ctx: NodeContext) -> list[Value]:
    """Each axis of `axes` (default all) cropped or zero-padded to its size in `shape`
    (input 1), centered; the odd element goes to the end for a crop and to the start for a
    pad, as ONNX's function body places it."""
    dims = ctx.shape(0)
    rank = len(dims)
    target = [int(v) for v in ctx.const(1, "shape").reshape(-1)]
    axes = ctx.attr_ints("axes", list(range(rank)))
    assert axes is not None
    axes = [ctx.axis(a, rank) for a in axes]
    if len(target) != len(axes):
        raise ctx.error(f"shape has {len(target)} entries for {len(axes)} axes")
    starts, ends = [0] * rank, list(dims)
    pads = [0] * (2 * rank)
    for axis, size in zip(axes, target):
        if size < 0:
            raise ctx.error(f"shape {target} has a negative size")
        if size < dims[axis]:
            starts[axis] = (dims[axis] - size) // 2
            ends[axis] = starts[axis] + size
        elif size > dims[axis]:
            total = size - dims[axis]
            pads[axis], pads[rank + axis] = total // 2, total - total // 2
    x = ctx.tensor(0)
    if starts != [0] * rank or ends != list(dims):
        x = ctx.make1(g.SliceOp, x, starts=starts, ends=ends, steps=[1] * rank)
    if any(pads):
        x = ctx.make1(g.PadOp, x, pads=pads, mode="constant")
    return [x]


@converter("OneHot")
def convert_one_hot(ctx: NodeContext) -> list[Value]:
    """out[..., j, ...] = on if indices[...] == j (negative indices count from depth) else off,
    with j on a new `axis`. depth must be known at import time (it sets the shape)."""
    depth_value = ctx.const(1, "depth").reshape(-1)
    if depth_value.size != 1:
        raise ctx.error(f"depth must be a scalar or one element, got shape {depth_value.shape}")
    depth = int(depth_value[0])
    if depth <= 0:
        raise ctx.error(f"depth must be positive, got {depth}")
    shape = ctx.shape(0)
    rank = len(shape) + 1
    axis = ctx.axis(ctx.attr_int("axis", -1), rank)
    values = ctx.const(2, "values").reshape(-1)
    if values.size != 2:
        raise ctx.error(f"values must hold [off, on], got {values.size} elements")
    indices, index_dtype = ctx.tensor(0), ctx.dtype(0)
    if not np.issubdtype(index_dtype, np.integer):  # float indices truncate toward zero
        index_dtype = np.dtype(np.int64)
        indices = ctx.make1(g.CastOp, indices, to=element_type_of(index_dtype))
    name = ctx.node.output[0]
    # indices [..., 1 at axis, ...] against arange(depth) along axis; negatives wrap once.
    expanded = ctx.make1(g.ReshapeOp, indices, shape=[*shape[:axis], 1, *shape[axis:]])
    depth_c = ctx.materialize(np.array(depth, index_dtype), f"{name}_depth")
    zero = ctx.materialize(np.array(0, index_dtype), f"{name}_zero")
    wrapped = ctx.make1(
        g.WhereOp, ctx.make1(g.LessOp, expanded, zero),
        ctx.make1(g.AddOp, expanded, depth_c), expanded,
    )  # fmt: skip
    positions = np.arange(depth, dtype=index_dtype).reshape([depth] + [1] * (rank - 1 - axis))
    hot = ctx.make1(g.EqualOp, wrapped, ctx.materialize(positions, f"{name}_positions"))
    off, on = (ctx.materialize(np.array(v, values.dtype), f"{name}_{n}") for v, n in
               zip(values, ("off", "on")))  # fmt: skip
    return [ctx.make1(g.WhereOp, hot, on, off)]


@converter("Hardmax")
def convert_hardmax(ctx: NodeContext) -> list[Value]:
    """1 at the first maximum along `axis`, 0 elsewhere: equal(arg_max, positions). Before
    opset 13 the input is seen as 2-D, flattened at `axis` (default 1), as for Softmax. An
    input without elements has no maximum to find (arg_max of an empty axis has none): its
    result is as empty."""
    shape = ctx.shape(0)
    if math.prod(shape) == 0:
        return [np.zeros(shape, ctx.dtype(0))]
    x = ctx.tensor(0)
    if ctx.opset >= 13:
        axis, work_shape = ctx.axis(ctx.attr_int("axis", -1), len(shape)), list(shape)
    else:
        split = ctx.axis(ctx.attr_int("axis", 1), len(shape)) if shape else 0
        axis, work_shape = 1, [math.prod(shape[:split]), math.prod(shape[split:])]
        x = ctx.make1(g.ReshapeOp, x, shape=work_shape)
    index = ctx.make1(g.ArgMaxOp, x, axis=axis, keepdims=1)
    dim = work_shape[axis]
    positions = np.arange(dim, dtype=np.int64).reshape([dim] + [1] * (len(work_shape) - axis - 1))
    hot = ctx.make1(g.EqualOp, index, ctx.materialize(positions, f"{ctx.node.output[0]}_positions"))
    y = ctx.make1(g.CastOp, hot, to=element_type_of(ctx.dtype(0)))
    return [y if work_shape == list(shape) else ctx.make1(g.ReshapeOp, y, shape=list(shape))]


# --------------------------------------------------------------------------------------------
# Ops whose inputs set their output shape: constants, folded by ONNX's reference
# --------------------------------------------------------------------------------------------

#: Op type -> its inputs, each of which sets the output's shape or values.
_SHAPE_SETTING = {
    "HannWindow": ("size",),
    "HammingWindow": ("size",),
    "BlackmanWindow": ("size",),
    "MelWeightMatrix": (
        "num_mel_bins",
        "dft_length",
        "sample_rate",
        "lower_edge_hertz",
        "upper_edge_hertz",
    ),
}


@converter(*_SHAPE_SETTING)
def convert_import_time_only(ctx: NodeContext) -> list[Value]:
    """The importer folds these with ONNX's reference implementation when every input is a
    constant (window functions, mel filter banks). This runs only when one is not: its value
    sets the output shape, so it must be known at import time (ctx.const says so, in the
    error the backend and --input-shape users act on)."""
    for i, what in enumerate(_SHAPE_SETTING[ctx.op_type]):
        ctx.const(i, what)
    raise AssertionError("unreachable: all inputs constant means the importer folded the node")


# --------------------------------------------------------------------------------------------
# TopK with a k known at import time
# --------------------------------------------------------------------------------------------



@converter("TopK")
def convert_top_k(ctx: NodeContext) -> list[Value]:
    """The k largest (or smallest) elements along `axis` and their indices, in order, ties
    to the lower index, selected or sorted per row (`top_k_by_sort`). k comes from the
    attribute (opset < 10) or input 1; one known only at run time is a size found as it
    runs. k = 0 (the spec
    asks for a positive k; ONNX's reference and ONNX Runtime give empty results) gives empty
    results."""
    shape = ctx.shape(0)
    axis = ctx.axis(ctx.attr_int("axis", -1), len(shape))
    largest = bool(ctx.attr_int("largest", 1))
    if ctx.opset >= 10 and not ctx.is_const(1):
        return top_k_by_sort(ctx, axis, largest, None)
    k = ctx.attr_int("k", 0) if ctx.opset < 10 else int(ctx.const(1, "K").reshape(-1)[0])
    length = shape[axis]
    if isinstance(length, SymDim) and k >= 0:  # (checked when the length is known)
        within = ctx.make1(g.LessEqualOp, ctx.materialize(np.array(k, np.int64), f"{ctx.node.output[0]}_k"),
                           index_scalar(ctx, length, f"{ctx.node.output[0]}_length"))  # fmt: skip
        check(ctx, within, f"k = {k} is more than the axis length")
    elif not 0 <= k <= length:
        raise ctx.error(f"k = {k} must be in [0, {length}] (the axis length)")
    if k == 0:
        empty = [*shape[:axis], 0, *shape[axis + 1 :]]
        return [np.zeros(empty, ctx.dtype(0)), np.zeros(empty, np.int64)]
    return top_k_by_sort(ctx, axis, largest, k)
