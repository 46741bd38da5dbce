"""Shape arithmetic on symbolic sizes, done at import time.

Exporters compute reshape targets from the input's shape: `Shape -> Gather -> Unsqueeze ->
Concat -> Reshape`, with a `Mul` or a `Div` for attention heads. With static shapes those
chains are constants the importer folds with ONNX's reference implementation. With a
symbolic dimension (`symbolic.py`) `Shape` gives an array of dtype object holding
`SymDim`s, and the reference cannot compute on it; this module evaluates the ops such chains
use on those arrays (numpy's object arithmetic calls SymDim's operators), so the Reshape at
the end gets a target such as `[batch, seq, 12, 64]` and the graph dialect a symbolic type.

An op outside this set, or an answer the symbols' ranges do not decide (`seq == 7`), is a
FrontendError naming the node: the model then needs `input_shapes` until the graph dialect
can carry such values at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from minitvm.symbolic import SymbolicError, SymDim, floordiv, mod, sym_max, sym_min
from minitvm.frontend.onnx_node import NodeContext

#: A node's outputs computed on import-time arrays; None leaves the node to its converter.
SymbolicFolder = Callable[[NodeContext, list[np.ndarray]], list[np.ndarray] | None]

FOLDERS: dict[str, SymbolicFolder] = {}


def is_symbolic(value: object) -> bool:
    """Whether `value` is an import-time array that holds symbolic sizes."""
    return isinstance(value, np.ndarray) and value.dtype == object


def finish(values: np.ndarray | Sequence[object], dtype: np.dtype | type = np.int64) -> np.ndarray:
    """An array of `dtype`, or of dtype object if any element is still symbolic."""
    array = np.asarray(values, dtype=object)
    if any(isinstance(v, SymDim) for v in array.reshape(-1)):
        return array
    return np.asarray(array.tolist(), dtype=dtype).reshape(array.shape)


def fold(ctx: NodeContext) -> list[np.ndarray] | None:
    """The outputs of a node whose inputs are import-time arrays, some symbolic (None: the
    node's converter builds ops that compute them at run time)."""
    folder = FOLDERS.get(ctx.op_type)
    if folder is None:
        names = ", ".join(sorted(FOLDERS))
        raise ctx.error(
            "this op computes on symbolic sizes (a shape known only at run time), which the "
            f"importer supports for {names}; fix the input dimensions with input_shapes"
        )
    arrays = [np.asarray(v) for v in ctx.inputs if v is not None]
    try:
        return folder(ctx, arrays)
    except SymbolicError as e:
        raise ctx.error(f"{e}; fix the input dimensions with input_shapes") from None


def _folder(*op_types: str) -> Callable[[SymbolicFolder], SymbolicFolder]:
    def register(fn: SymbolicFolder) -> SymbolicFolder:
        for op_type in op_types:
            FOLDERS[op_type] = fn
        return fn

    return register


def _elementwise(fn: Callable[..., object], *arrays: np.ndarray) -> np.ndarray:
    return np.frompyfunc(fn, len(arrays), 1)(*arrays)


def _trunc_div(a: object, b: object) -> object:
    """ONNX's integer Div truncates toward zero."""
    if isinstance(a, SymDim) or isinstance(b, SymDim):
        if (a >= 0) == (b > 0):  # type: ignore[operator]
            return floordiv(a, b)  # type: ignore[arg-type]
        return -floordiv(-a, b)  # type: ignore[operator, arg-type]
    return int(a / b) if isinstance(a, int | np.integer) else a / b  # type: ignore[operator]


def _equal(a: object, b: object) -> bool:
    if isinstance(a, SymDim) or isinstance(b, SymDim):
        diff = a - b  # type: ignore[operator]
        # (bool() of a SymDim raises SymbolicError where the ranges do not decide it)
        return diff == 0 if isinstance(diff, int) else not bool(diff)
    return bool(a == b)


_BINARY: dict[str, Callable[[object, object], object]] = {
    "Add": lambda a, b: a + b,  # type: ignore[operator]
    "Sub": lambda a, b: a - b,  # type: ignore[operator]
    "Mul": lambda a, b: a * b,  # type: ignore[operator]
    "Div": _trunc_div,
    "Mod": lambda a, b: mod(a, b),  # type: ignore[arg-type]
    "Max": lambda a, b: sym_max(a, b),  # type: ignore[arg-type]
    "Min": lambda a, b: sym_min(a, b),  # type: ignore[arg-type]
}
_COMPARE: dict[str, Callable[[object, object], bool]] = {
    "Equal": _equal,
    "Less": lambda a, b: bool(a < b),  # type: ignore[operator]
    "LessOrEqual": lambda a, b: bool(a <= b),  # type: ignore[operator]
    "Greater": lambda a, b: bool(a > b),  # type: ignore[operator]
    "GreaterOrEqual": lambda a, b: bool(a >= b),  # type: ignore[operator]
}


@_folder(*_BINARY)
def _binary(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray]:
    fn = _BINARY[ctx.op_type]
    result = arrays[0]
    for other in arrays[1:]:  # Max and Min are variadic
        result = _elementwise(fn, result, other)
    return [finish(result, _int_dtype(arrays))]


@_folder(*_COMPARE)
def _compare(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(_elementwise(_COMPARE[ctx.op_type], *arrays), dtype=np.bool_)]


@_folder("Neg")
def _neg(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray]:
    return [finish(_elementwise(lambda a: -a, arrays[0]), _int_dtype(arrays))]


@_folder("Abs")
def _abs(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray]:
    return [finish(_elementwise(lambda a: a if a >= 0 else -a, arrays[0]), _int_dtype(arrays))]


@_folder("Where")
def _where(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray]:
    condition, a, b = arrays
    return [finish(np.where(condition.astype(bool), a, b), _int_dtype(arrays[1:]))]


@_folder("Cast")
def _cast(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray] | None:
    """Sizes stay sizes through a cast to an integer type; their float or boolean values
    are computed at run time (graph.sizes, then graph.cast: None leaves it to the converter)."""
    import onnx

    target = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(ctx.attr_int("to", 0)))
    if target.kind not in "iu":
        return None
    return [finish(arrays[0], target)]


@_folder("Gather")
def _gather(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray]:
    data, indices = arrays
    axis = ctx.axis(ctx.attr_int("axis", 0), data.ndim)
    indices = np.where(indices < 0, indices + data.shape[axis], indices)
    return [finish(np.take(data, indices, axis=axis), _int_dtype([data]))]


@_folder("Concat")
def _concat(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray]:
    axis = ctx.axis(ctx.attr_int("axis", 0), arrays[0].ndim)
    return [finish(np.concatenate([a.astype(object) for a in arrays], axis=axis), _int_dtype(arrays))]


@_folder("Slice")
def _slice(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray] | None:
    from minitvm.frontend.onnx_tensor_ops import slice_bounds

    data = arrays[0]
    bounds = slice_bounds(ctx, data.shape)
    if any(isinstance(b, SymDim) for bound in bounds for b in bound):
        return None  # numbers sliced to a run-time length: graph.slice of a constant
    index = tuple(slice(*bound) for bound in bounds)
    return [finish(data[index], _int_dtype([data]))]


@_folder("Expand")
def _expand(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray] | None:
    """Sizes broadcast at import time; numbers broadcast to a symbolic shape are a tensor
    of run-time size, which the Expand converter makes (None: leave it to the converter)."""
    data, shape = arrays
    if data.dtype != object and is_symbolic(shape):
        return None
    target = [int(d) for d in shape.reshape(-1)]
    return [finish(np.broadcast_to(data, np.broadcast_shapes(data.shape, tuple(target))), _int_dtype([data]))]


@_folder("ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin")
def _reduce(ctx: NodeContext, arrays: list[np.ndarray]) -> list[np.ndarray]:
    data = arrays[0]
    axes = ctx.attr_ints("axes")
    if len(arrays) > 1:
        axes = [int(a) for a in arrays[1].reshape(-1)]
    keepdims = bool(ctx.attr_int("keepdims", 1))
    fn = {"ReduceProd": np.multiply, "ReduceSum": np.add, "ReduceMax": np.frompyfunc(sym_max, 2, 1),
          "ReduceMin": np.frompyfunc(sym_min, 2, 1)}[ctx.op_type]  # fmt: skip
    axis = None if not axes else tuple(ctx.axes(axes, data.ndim))
    result = fn.reduce(data, axis=axis, keepdims=keepdims)
    return [finish(result, _int_dtype([data]))]


def _int_dtype(arrays: Sequence[np.ndarray]) -> np.dtype:
    """The integer dtype of the result: that of the first non-object operand, else int64."""
    for array in arrays:
        if array.dtype != object:
            return array.dtype
    return np.dtype(np.int64)
