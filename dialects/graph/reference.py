"""The graph dialect's executable semantics: every op as a numpy function (ONNX semantics).

This module is the spec of what each graph op computes, stated as code:

- `evaluate(op, inputs)` runs one op on numpy arrays; the constant folder
  (`graph-fold-constants`) uses it to replace ops on constants by their value;
- `run_module(module, inputs)` interprets `func.func @main` op by op; tests use it as the
  oracle that every later stage (fusion, lowering, generated code) must agree with.

Semantics follow the ONNX operator of the same name with the properties that the frontend has
already normalized (explicit pads, non-negative axes, clamped slice bounds; see
docs/graph_ops.md). The code favours clarity over speed, but avoids per-element Python loops:
convolution is im2col + matmul, pooling uses strided window views, resize is separable.
Inputs an op is undefined on (an index out of range) raise `EvaluationError`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, bf16
from xdsl.ir import Block, Operation, SSAValue

from minitvm.dialects.graph import elementwise as ew
from minitvm.dialects.graph import nn
from minitvm.dialects.graph import sampling as sp
from minitvm.dialects.graph import tensor as tn
from minitvm.dialects.graph import winograd as wg
from minitvm.dialects.graph.base import get_float, get_int, get_ints, get_str, shape_of
from minitvm.dialects.graph.constant import NUMPY_DTYPES, ConstantOp, numpy_dtype_of
from minitvm.dialects.graph.control import IfOp, LoopOp
from minitvm.dialects.graph.fused import YieldOp
from minitvm.errors import MinitvmError

Arrays = list[np.ndarray]
Kernel = Callable[[Operation, Arrays], Arrays]


class EvaluationError(MinitvmError):
    """The reference interpreter cannot evaluate this op (an unsupported mode or input)."""


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


def evaluate(op: Operation, inputs: Sequence[np.ndarray]) -> Arrays:
    """Compute `op`'s results from its operand values.

    Results have exactly the dtypes and shapes of the op's result types (a mismatch is a bug
    in this module or in the op's shape inference, and raises).
    """
    kernel = _KERNELS.get(type(op))
    if kernel is None:
        raise EvaluationError(f"{op.name}: no reference implementation")
    if len(inputs) != len(op.operands):
        raise ValueError(f"{op.name}: expected {len(op.operands)} inputs, got {len(inputs)}")
    # bf16 is computed in f32 and rounded once per op, as the compiled code does
    # (graph-widen-bf16); numpy's bf16 (ml_dtypes) also lacks the dtype kind numpy checks.
    arrays = [_widen_bf16(np.asarray(x)) for x in inputs]
    # Overflow, 0/0 and log(-1) are values (inf, nan) in IEEE arithmetic, as in ONNX Runtime.
    with np.errstate(all="ignore"):
        outputs = kernel(op, arrays)
    results: Arrays = []
    for result, value in zip(op.results, outputs, strict=True):
        type_ = result.type
        assert isinstance(type_, TensorType)
        shape = shape_of(type_)  # (a size known only at run time takes any value)
        value = np.asarray(value)
        if len(value.shape) != len(shape) or any(
            isinstance(d, int) and d != n for d, n in zip(shape, value.shape)
        ):
            raise AssertionError(
                f"{op.name}: reference produced shape {value.shape}, the op declares {shape}"
            )
        results.append(np.array(value, dtype=numpy_dtype_of(type_.element_type), order="C"))
    return results


def _widen_bf16(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32) if x.dtype == NUMPY_DTYPES[bf16] else x


def run_module(
    module: ModuleOp, inputs: Mapping[str | int, np.ndarray] | Sequence[np.ndarray]
) -> Arrays:
    """Interpret `func.func @main` of `module`; returns the values `func.return` returns.

    `inputs` gives each argument's value by the argument's name hint (the frontend's
    sanitized ONNX input name, as printed: `%data`) or position, or is a list in argument
    order.
    """
    main = next(
        (op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"),
        None,
    )
    if main is None:
        raise EvaluationError("the module has no func.func @main")
    block = main.body.block
    if not isinstance(inputs, Mapping):
        inputs = dict(enumerate(inputs))
    names = [arg.name_hint for arg in block.args]
    unknown = [k for k in inputs if k not in names and k not in range(len(names))]
    if unknown:
        raise EvaluationError(
            f"inputs {unknown} name no argument of @main (arguments: "
            f"{', '.join(n or f'#{i}' for i, n in enumerate(names))})"
        )
    env: dict[SSAValue, np.ndarray] = {}
    for i, arg in enumerate(block.args):
        key: str | int = arg.name_hint if arg.name_hint in inputs else i
        if key not in inputs:
            raise EvaluationError(f"no input given for argument #{i} ({arg.name_hint or 'unnamed'})")
        type_ = arg.type
        assert isinstance(type_, TensorType)
        value = np.asarray(inputs[key], dtype=numpy_dtype_of(type_.element_type))
        if value.shape != tuple(type_.get_shape()):
            raise EvaluationError(
                f"input {key!r} has shape {value.shape}, the module expects {type_}"
            )
        env[arg] = value
    return _run_block(block, env)


def _run_block(block: Block, env: dict[SSAValue, np.ndarray]) -> Arrays:
    """Run the ops of `block` (@main's body, a graph.if branch) on the values in `env`; the
    values its terminator (func.return, graph.yield) gives back."""
    for op in block.ops:
        if isinstance(op, func.ReturnOp | YieldOp):
            return [env[v] for v in op.operands]
        if isinstance(op, IfOp):
            values = _run_block(op.branch(bool(env[op.cond].reshape(-1)[0])), env)
        elif isinstance(op, LoopOp):
            values = _run_loop(op, env)
        else:
            values = evaluate(op, [env[v] for v in op.operands])
        env.update(zip(op.results, values))
    raise EvaluationError("a block of @main does not end with func.return or graph.yield")


def _run_loop(op: LoopOp, env: dict[SSAValue, np.ndarray]) -> Arrays:
    trip = int(env[op.trip].reshape(-1)[0])
    cond = bool(env[op.cond].reshape(-1)[0])
    carried = [env[v] for v in op.inits]
    block = op.body.block
    i = 0
    while i < trip and cond:
        env.update(zip(block.args, [np.array(i, np.int64), np.array(cond), *carried]))
        cond_out, *carried = _run_block(block, env)
        cond = bool(cond_out.reshape(-1)[0])
        i += 1
    return carried


# --------------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------------

_erf = np.frompyfunc(math.erf, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """Exact erf (numpy has none); `math.erf` per element is slow but this is the oracle."""
    return _erf(x.astype(np.float64)).astype(np.float64)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp(-log(1 + exp(-x))) neither overflows for large |x| nor loses the tails.
    return np.exp(-np.logaddexp(0, -x))


def _gelu(op: Operation, x: np.ndarray) -> np.ndarray:
    if get_str(op.properties, "approximate", "none") == "tanh":
        inner = np.sqrt(2 / np.pi) * (x + 0.044715 * x.astype(np.float64) ** 3)
        return 0.5 * x * (1 + np.tanh(inner))
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def _clip(op: Operation, x: np.ndarray) -> np.ndarray:
    lo = op.properties.get("min")
    hi = op.properties.get("max")
    if lo is not None:
        x = np.maximum(x, np.asarray(get_float(op.properties, "min")).astype(x.dtype))
    if hi is not None:
        x = np.minimum(x, np.asarray(get_float(op.properties, "max")).astype(x.dtype))
    return x


def _unary(fn: Callable[[np.ndarray], np.ndarray]) -> Kernel:
    return lambda op, xs: [fn(xs[0])]


def _unary_op(fn: Callable[[Operation, np.ndarray], np.ndarray]) -> Kernel:
    return lambda op, xs: [fn(op, xs[0])]


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Kernel:
    return lambda op, xs: [fn(xs[0], xs[1])]


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ONNX Div: integer division truncates toward zero (numpy's // floors)."""
    if np.issubdtype(a.dtype, np.integer):
        quotient = np.abs(a) // np.abs(b)
        return np.where((a < 0) != (b < 0), -quotient, quotient)
    return a / b


def _leaky_relu(op: Operation, x: np.ndarray) -> np.ndarray:
    return np.where(x >= 0, x, get_float(op.properties, "alpha", 0.01) * x)


def _hard_sigmoid(op: Operation, x: np.ndarray) -> np.ndarray:
    alpha = get_float(op.properties, "alpha", 0.2)
    beta = get_float(op.properties, "beta", 0.5)
    return np.clip(alpha * x + beta, 0, 1)


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def _elu(op: Operation, x: np.ndarray) -> np.ndarray:
    return np.where(x >= 0, x, get_float(op.properties, "alpha", 1.0) * np.expm1(x))


def _selu(op: Operation, x: np.ndarray) -> np.ndarray:
    alpha = get_float(op.properties, "alpha", 1.67326319217681884765625)
    gamma = get_float(op.properties, "gamma", 1.05070102214813232421875)
    return gamma * np.where(x > 0, x, alpha * np.expm1(x))


def _celu(op: Operation, x: np.ndarray) -> np.ndarray:
    alpha = get_float(op.properties, "alpha", 1.0)
    return np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha))


def _shrink(op: Operation, x: np.ndarray) -> np.ndarray:
    bias = get_float(op.properties, "bias", 0.0)
    lambd = get_float(op.properties, "lambd", 0.5)
    wide = x.astype(np.float64)
    return np.where(wide < -lambd, wide + bias, np.where(wide > lambd, wide - bias, 0))


def _is_inf(op: Operation, x: np.ndarray) -> np.ndarray:
    positive = (x == np.inf) & bool(get_int(op.properties, "detect_positive", 1))
    negative = (x == -np.inf) & bool(get_int(op.properties, "detect_negative", 1))
    return positive | negative


def _pow(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """An integer base is raised in f64 and truncated back, as ONNX Runtime does; a float
    base takes the exponent in its own type."""
    if np.issubdtype(base.dtype, np.integer):
        return np.trunc(np.power(base.astype(np.float64), exponent.astype(np.float64)))
    return np.power(base, exponent.astype(base.dtype))


def _mod(op: Operation, xs: Arrays) -> Arrays:
    a, b = xs
    if get_int(op.properties, "fmod", 0):
        return [np.fmod(a, b)]
    if np.issubdtype(a.dtype, np.floating):
        return [np.mod(a, b)]
    return [np.where(b == 0, 0, np.mod(a, np.where(b == 0, 1, b)))]


def _bit_shift(op: Operation, xs: Arrays) -> Arrays:
    """Shifts by the bit width or more give 0 (or -1 for a negative x shifted right)."""
    x, amount = np.broadcast_arrays(*xs)
    bits = x.dtype.itemsize * 8
    in_range = (amount >= 0) & (amount < bits)
    safe = np.where(in_range, amount, 0).astype(x.dtype)
    zero = np.zeros_like(x)
    if get_str(op.properties, "direction", "left") == "left":
        return [np.where(in_range, np.left_shift(x, safe), zero)]
    sign = np.right_shift(x, np.full_like(x, bits - 1)) if x.dtype.kind == "i" else zero
    return [np.where(in_range, np.right_shift(x, safe), sign)]


def _cast(op: Operation, xs: Arrays) -> Arrays:
    type_ = op.results[0].type
    assert isinstance(type_, TensorType)
    target = numpy_dtype_of(type_.element_type)
    x = xs[0]
    if target == np.bool_:
        return [x != 0]
    return [x.astype(target)]


def _bitcast(op: Operation, xs: Arrays) -> Arrays:
    """The same bytes viewed as the result type (a bool as a byte: 0 or 1; true if not 0)."""
    type_ = op.results[0].type
    assert isinstance(type_, TensorType)
    target = numpy_dtype_of(type_.element_type)
    source = op.operands[0].type
    assert isinstance(source, TensorType)
    x = xs[0].astype(numpy_dtype_of(source.element_type))  # bf16 arrives widened to f32
    if target == np.bool_:
        return [x != 0]
    if x.dtype == np.bool_:
        return [x.astype(target)]
    return [np.ascontiguousarray(x).view(target)]


# --------------------------------------------------------------------------------------------
# Windows: the shared machinery of convolution and pooling
# --------------------------------------------------------------------------------------------


def _windows(
    x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
    out: Sequence[int],
) -> np.ndarray:
    """A strided view of `x` (N, C, *spatial, already padded) of shape (N, C, *out, *kernel):
    element [n, c, *o, *k] is x[n, c, *(o * stride + k * dilation)]."""
    spatial = len(kernel)
    need = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out, strides, kernel, dilations)]
    assert all(n <= size for n, size in zip(need, x.shape[2:])), "window view out of bounds"
    sn, sc, *ss = x.strides
    return np.lib.stride_tricks.as_strided(
        x,
        shape=(*x.shape[:2], *out, *kernel),
        strides=(sn, sc, *(ss[i] * strides[i] for i in range(spatial)),
                 *(ss[i] * dilations[i] for i in range(spatial))),
        writeable=False,
    )


def _pad_spatial(
    x: np.ndarray, begins: Sequence[int], ends: Sequence[int], value: float
) -> np.ndarray:
    widths = [(0, 0), (0, 0), *zip(begins, ends)]
    return np.pad(x, widths, constant_values=value)


def _range(op: tn.RangeOp) -> np.ndarray:
    dtype = numpy_dtype_of(op.result.type.element_type)  # type: ignore[attr-defined]
    (count,) = _out_shape(op)
    return (op.start_value + np.arange(count) * op.delta_value).astype(dtype)


def _argsort(x: np.ndarray, descending: bool) -> np.ndarray:
    """Stable: equal elements keep their order (in float64, exact for every int up to 2^53)."""
    keys = x.astype(np.float64)
    return np.argsort(-keys if descending else keys, axis=-1, kind="stable").astype(np.int64)


def _check(op: tn.CheckOp, xs: Sequence[np.ndarray]) -> list[np.ndarray]:
    if not bool(xs[0]):
        raise EvaluationError(op.message.data)
    return []


def _sizes(op: tn.SizesOp) -> np.ndarray:
    values = op.values.values
    if not all(isinstance(v, int) for v in values):
        raise MinitvmError(f"{op.name}: {list(map(str, values))} are sizes known only at run time")
    dtype = numpy_dtype_of(op.result.type.element_type)  # type: ignore[attr-defined]
    return np.array(values, dtype).reshape(_out_shape(op))


def _iota_count(op: tn.IotaOp, count: int) -> int:
    """graph.iota's count: at least 0, at most its `most` where that is a number (a bound in
    terms of sizes is one the shapes of the run keep)."""
    most = op.bound if op.most is not None else None
    return max(count, 0) if not isinstance(most, int) else min(max(count, 0), most)


def _out_shape(op: Operation, index: int = 0) -> tuple[int, ...]:
    type_ = op.results[index].type
    assert isinstance(type_, TensorType)
    return tuple(type_.get_shape())


def _widened(xs: Arrays) -> Arrays:
    """An integer contraction's operands in i32, the type of its products and sums (float
    operands as they are)."""
    return [x.astype(np.int32) if np.issubdtype(x.dtype, np.integer) else x for x in xs]


def _conv(op: Operation, xs: Arrays) -> Arrays:
    assert isinstance(op, nn.ConvOp)
    x, w, *b = _widened(xs)
    return [_convolve(x, w, b[0] if b else None, op.window, op.groups, _out_shape(op)[2:])]


def _convolve(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, window: nn.Window, group: int,
    out: Sequence[int],
) -> np.ndarray:
    """im2col: gather every window into a column, then one batched matmul over groups."""
    strides, pads, dilations = window.strides, window.pads, window.dilations
    n = x.shape[0]
    m, cg, *kernel = w.shape
    spatial = len(kernel)
    padded = _pad_spatial(x, pads[:spatial], pads[spatial:], 0)
    win = _windows(padded, kernel, strides, dilations, out)  # N, C, *out, *k
    # Columns (N, G, Cg * K, P): output positions innermost, so that the copy out of the
    # window view streams along input rows.
    order = (0, 1, *range(2 + spatial, 2 + 2 * spatial), *range(2, 2 + spatial))
    taps = cg * math.prod(kernel)
    cols = win.transpose(order).reshape(n, group, taps, math.prod(out))
    weights = w.reshape(group, m // group, taps)  # G, Mg, Cg * K
    y = np.matmul(weights, cols).reshape(n, m, *out)  # N, G, Mg, P
    if bias is not None:
        y = y + bias.reshape(m, *[1] * spatial)
    return y


def _conv_transpose(op: Operation, xs: Arrays) -> Arrays:
    """Each input pixel scatters input * kernel into the output: one matmul, then one strided
    add per kernel tap (col2im), then the pads crop the full output."""
    assert isinstance(op, nn.ConvTransposeOp)
    x, w, *b = xs
    n, c, *size = x.shape
    _, mg, *kernel = w.shape
    spatial = len(kernel)
    group = op.groups
    window = op.window
    strides, pads, dilations = window.strides, window.pads, window.dilations
    out = _out_shape(op)[2:]
    cg = c // group
    # cols[n, g, mg, *k, *size] = sum_c x[n, g, c, *size] * w[g, c, mg, *k]
    xg = x.reshape(n, group, cg, math.prod(size))
    wg = w.reshape(group, cg, mg * math.prod(kernel))
    cols = np.matmul(wg.transpose(0, 2, 1)[None], xg).reshape(n, group, mg, *kernel, *size)
    full = [
        max((s - 1) * st + (k - 1) * d + 1, o + p)
        for s, st, k, d, o, p in zip(size, strides, kernel, dilations, out, pads[:spatial])
    ]
    y = np.zeros((n, group, mg, *full), dtype=np.result_type(x, w))
    for tap in np.ndindex(*kernel):
        where = tuple(
            slice(t * d, t * d + (s - 1) * st + 1, st)
            for t, d, s, st in zip(tap, dilations, size, strides)
        )
        y[(..., *where)] += cols[(slice(None),) * 3 + tap]
    crop = tuple(slice(p, p + o) for p, o in zip(pads[:spatial], out))
    y = y[(..., *crop)].reshape(n, group * mg, *out)
    if b:
        y = y + b[0].reshape(-1, *[1] * spatial)
    return [y]


# --------------------------------------------------------------------------------------------
# The blocked NCHW[x]c layout
# --------------------------------------------------------------------------------------------


def relayout(x: np.ndarray, src_block: int | None, dst_block: int | None) -> np.ndarray:
    """`x` from NCHW (block None) or NCHW{src_block}c to NCHW or NCHW{dst_block}c, through
    NCHW: blocked [N, C/b, H, W, b] holds channel c at [c // b, ..., c % b]."""
    if src_block is not None:
        n, co, h, w, ci = x.shape
        x = x.transpose(0, 1, 4, 2, 3).reshape(n, co * ci, h, w)
    if dst_block is not None:
        n, c, h, w = x.shape
        x = x.reshape(n, c // dst_block, dst_block, h, w).transpose(0, 1, 3, 4, 2)
    return x


def unblock_weight(w: np.ndarray) -> np.ndarray:
    """graph.conv_nchwc's weight [M/mb, C/cb, KH, KW, cb, mb] as graph.conv's [M, C, KH, KW]:
    W[m, c, kh, kw] = w[m // mb, c // cb, kh, kw, c % cb, m % mb]."""
    mo, co, kh, kw, ci, mi = w.shape
    return w.transpose(0, 5, 1, 4, 2, 3).reshape(mo * mi, co * ci, kh, kw)


def unpack_panels(w: np.ndarray) -> np.ndarray:
    """graph.matmul_packed's rhs [..., N/nb, K, nb] as graph.matmul's [..., K, N]:
    B[..., k, n] = w[..., n // nb, k, n % nb]."""
    *batch, panels, k, nb = w.shape
    rank = len(batch)
    order = (*range(rank), rank + 1, rank, rank + 2)
    return w.transpose(order).reshape(*batch, k, panels * nb)


def _layout_transform(op: Operation, xs: Arrays) -> Arrays:
    src = nn.parse_layout(get_str(op.properties, "src_layout"))
    dst = nn.parse_layout(get_str(op.properties, "dst_layout"))
    return [relayout(xs[0], src, dst)]


def _conv_nchwc(op: Operation, xs: Arrays) -> Arrays:
    """graph.conv on the unblocked input and weight, the result blocked by mb."""
    assert isinstance(op, nn.ConvNchwcOp)
    x, w, *b = _widened(xs)
    out = _out_shape(op)
    y = _convolve(relayout(x, x.shape[4], None), unblock_weight(w), b[0] if b else None,
                  op.window, op.groups, out[2:4])  # fmt: skip
    return [relayout(y, None, out[4])]


def _winograd_input(op: Operation, xs: Arrays) -> Arrays:
    """B^T d B of every tile's input patch d (zeros outside the input), tiles in (n, i, j)
    order, then the zero rows up to `rows`."""
    x = relayout(xs[0], xs[0].shape[4], None)  # N, C, H, W
    n, c = x.shape[:2]
    top, left = get_ints(op.properties, "pads")
    t = wg.transforms(wg.tile_of(op.properties))
    th, tw = wg.tile_grid(*get_ints(op.properties, "output"), t.tile)
    patch, step = t.patch, t.tile
    rows, cols = step * (th - 1) + patch, step * (tw - 1) + patch
    padded = np.zeros((n, c, rows, cols), dtype=x.dtype)
    h, w = min(x.shape[2], rows - top), min(x.shape[3], cols - left)
    padded[:, :, top : top + h, left : left + w] = x[:, :, :h, :w]
    view = np.lib.stride_tricks.sliding_window_view(padded, (patch, patch), axis=(2, 3))
    d = view[:, :, ::step, ::step]  # N, C, th, tw, patch, patch
    bt = t.input.astype(x.dtype)
    v = np.einsum("ua,ncijab,vb->uvnijc", bt, d, bt).reshape(t.positions, n * th * tw, c)
    out = np.zeros(_out_shape(op), dtype=x.dtype)
    out[:, : v.shape[1]] = v
    return [out]


def _winograd_output(op: Operation, xs: Arrays) -> Arrays:
    """A^T m A of every tile (the tiles' pixels past the output dropped), plus the bias."""
    m, *b = xs
    n, height, width = get_ints(op.properties, "output")
    t = wg.transforms(wg.tile_of(op.properties))
    th, tw = wg.tile_grid(height, width, t.tile)
    k = m.shape[2]
    tiles = m[:, : n * th * tw].reshape(t.patch, t.patch, n, th, tw, k)
    at = t.output.astype(m.dtype)
    y = np.einsum("au,uvnijk,bv->nkiajb", at, tiles, at)
    y = y.reshape(n, k, th * t.tile, tw * t.tile)[:, :, :height, :width]
    if b:
        y = y + b[0].reshape(k, 1, 1)
    return [relayout(y, None, get_int(op.properties, "block"))]


def _pool(op: Operation, xs: Arrays) -> Arrays:
    assert isinstance(op, nn.PoolOp)
    x = xs[0]
    window = op.window
    kernel, strides, pads, dilations = window.kernel, window.strides, window.pads, window.dilations
    spatial = len(kernel)
    out = _out_shape(op)[2:]
    begins = pads[:spatial]
    # Ceil mode may let the last window run past the end padding: pad that far too.
    ends = [
        max(pe, (o - 1) * s + (k - 1) * d + 1 - size - pb)
        for o, s, k, d, size, pb, pe in zip(out, strides, kernel, dilations, x.shape[2:], begins,
                                            pads[spatial:])
    ]
    axes = tuple(range(-spatial, 0))
    if isinstance(op, nn.MaxPoolOp):
        padded = _pad_spatial(x, begins, ends, lowest(x.dtype))
        return [_windows(padded, kernel, strides, dilations, out).max(axis=axes)]
    if isinstance(op, nn.MaxPoolIndicesOp):
        return [_max_pool_indices(op, x, begins, ends, out)]
    assert isinstance(op, nn.AvgPoolOp)
    padded = _pad_spatial(x, begins, ends, 0)
    total = _windows(padded, kernel, strides, dilations, out).sum(axis=axes)
    # The divisor counts the window's taps on the input, plus those on the explicit pads when
    # count_include_pad is set (never those past the pads, which only ceil mode reaches).
    mask = np.ones((1, 1, *x.shape[2:]), dtype=np.float64)
    if op.includes_pad:
        mask = _pad_spatial(mask, begins, pads[spatial:], 1)
        mask = _pad_spatial(mask, [0] * spatial, [e - p for e, p in zip(ends, pads[spatial:])], 0)
    else:
        mask = _pad_spatial(mask, begins, ends, 0)
    count = _windows(mask, kernel, strides, dilations, out).sum(axis=axes)
    return [total / count]


def lowest(dtype: np.dtype) -> float | int:
    """What a max pool pads with: -inf, or an integer type's least value."""
    return int(np.iinfo(dtype).min) if np.issubdtype(dtype, np.integer) else -np.inf


def _max_pool_indices(
    op: nn.MaxPoolIndicesOp, x: np.ndarray, begins: Sequence[int], ends: Sequence[int],
    out: Sequence[int],
) -> np.ndarray:
    """The flat index of each window's first maximum (a NaN, if there is one) among its taps
    on the input."""
    window = op.window
    kernel, strides, dilations = window.kernel, window.strides, window.dilations
    spatial = len(kernel)
    n, c, *size = x.shape
    positions = np.indices(size)  # spatial dim d's coordinate at each position
    order = range(spatial) if op.column_major else reversed(range(spatial))
    within, step = np.zeros(size, dtype=np.int64), 1
    for d in order:  # the fastest-moving dim first
        within += positions[d] * step
        step *= size[d]
    planes = np.arange(n * c, dtype=np.int64).reshape(n, c, *[1] * spatial) * math.prod(size)
    flat = _pad_spatial(planes + within, begins, ends, -1)
    values = _pad_spatial(x, begins, ends, lowest(x.dtype))
    taps = _windows(values, kernel, strides, dilations, out).reshape(n, c, *out, -1)
    where = _windows(flat, kernel, strides, dilations, out).reshape(n, c, *out, -1)
    best = taps.max(axis=-1, keepdims=True)
    hits = (taps == best) & (where >= 0)
    if np.issubdtype(x.dtype, np.floating):
        hits |= np.isnan(taps) & (where >= 0)
    first = np.argmax(hits, axis=-1)[..., None]
    return np.take_along_axis(where, first, axis=-1)[..., 0]


def _max_unpool(op: Operation, xs: Arrays) -> Arrays:
    """Each element at pooled position q to its index, if that lies in q's window (the last
    element of an index wins), in a zero tensor of the inferred size; then that tensor at
    the start of the result."""
    assert isinstance(op, nn.MaxUnpoolOp)
    x, indices = xs
    window = op.window
    kernel, strides, pads = window.kernel, window.strides, window.pads
    n, c, *size = x.shape
    spatial = len(size)
    inferred = nn.MaxUnpoolOp.unpooled_sizes(op.properties, tuple(size))
    plane = math.prod(inferred)
    target = indices.reshape(n * c, -1)
    position = np.unravel_index(np.clip(target % plane, 0, plane - 1), inferred)
    pooled = np.unravel_index(np.arange(math.prod(size)), size)
    ok = target // plane == np.arange(n * c)[:, None]
    for d in range(spatial):
        offset = position[d] - (pooled[d] * strides[d] - pads[d])
        ok &= (offset >= 0) & (offset < kernel[d])
    winner = np.full(n * c * plane, -1, dtype=np.int64)
    ordinals = np.arange(x.size, dtype=np.int64).reshape(n * c, -1)
    np.maximum.at(winner, target[ok], ordinals[ok])
    unpooled = np.zeros(n * c * plane, dtype=x.dtype)
    unpooled[winner >= 0] = x.reshape(-1)[winner[winner >= 0]]
    y = np.zeros(_out_shape(op), dtype=x.dtype)
    y[(slice(None), slice(None), *(slice(0, s) for s in inferred))] = unpooled.reshape(
        n, c, *inferred
    )
    return [y]


# --------------------------------------------------------------------------------------------
# Normalization
# --------------------------------------------------------------------------------------------


def _batch_norm(op: Operation, xs: Arrays) -> Arrays:
    x, scale, bias, mean, var = xs
    eps = get_float(op.properties, "epsilon", 1e-5)
    shape = (-1, *[1] * (x.ndim - 2))
    inv = scale / np.sqrt(var + np.asarray(eps, var.dtype))
    return [(x - mean.reshape(shape)) * inv.reshape(shape) + bias.reshape(shape)]


def _layer_norm(op: Operation, xs: Arrays) -> Arrays:
    x, scale, *bias = xs
    axis = get_int(op.properties, "axis", -1)
    eps = get_float(op.properties, "epsilon", 1e-5)
    axes = tuple(range(axis, x.ndim))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    inv_std = 1 / np.sqrt(((x64 - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    y = (x64 - mean) * inv_std * scale
    if bias:
        y = y + bias[0]
    return [y, mean, inv_std]


def _lrn(op: Operation, xs: Arrays) -> Arrays:
    """y = x / (bias + alpha / size * sum of x^2 over a window of `size` channels)^beta."""
    x = xs[0]
    props = op.properties
    size = get_int(props, "size")
    alpha, beta = get_float(props, "alpha", 1e-4), get_float(props, "beta", 0.75)
    bias = get_float(props, "bias", 1.0)
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    squares = np.pad(x.astype(np.float64) ** 2, [(0, 0), (before, after)] + [(0, 0)] * (x.ndim - 2))
    cumsum = np.concatenate([np.zeros_like(squares[:, :1]), np.cumsum(squares, axis=1)], axis=1)
    channels = x.shape[1]
    window = cumsum[:, size : size + channels] - cumsum[:, :channels]
    return [x / (bias + alpha / size * window) ** beta]


def _softmax(op: Operation, xs: Arrays) -> Arrays:
    x = xs[0]
    axis = get_int(op.properties, "axis")
    shifted = x - x.max(axis=axis, keepdims=True)
    log_sum = np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    if isinstance(op, nn.LogSoftmaxOp):
        return [shifted - log_sum]
    return [np.exp(shifted - log_sum)]


# --------------------------------------------------------------------------------------------
# Data movement
# --------------------------------------------------------------------------------------------


def _slice(op: Operation, xs: Arrays) -> Arrays:
    x = xs[0]
    props = op.properties
    index = []
    for lo, hi, step in zip(*(get_ints(props, n) for n in ("starts", "ends", "steps"))):
        r = range(lo, hi, step)
        if not r:
            index.append(slice(0, 0))
        else:
            stop = r[-1] + (1 if step > 0 else -1)
            index.append(slice(r[0], stop if stop >= 0 else None, step))
    return [x[tuple(index)]]


def _gather(op: Operation, xs: Arrays) -> Arrays:
    data, indices = xs
    axis = get_int(op.properties, "axis")
    size = data.shape[axis]
    indices = indices.astype(np.int64)
    if indices.size and not (-size <= indices.min() and indices.max() < size):
        raise EvaluationError(
            f"graph.gather: indices must be in [{-size}, {size}) for dim {axis} of size {size}, "
            f"got values in [{indices.min()}, {indices.max()}]"
        )
    return [np.take(data, np.where(indices < 0, indices + size, indices), axis=axis)]


def wrap_indices(op_name: str, indices: np.ndarray, sizes: int | np.ndarray) -> np.ndarray:
    """`indices` with negative entries counted from the end of their dim (`sizes`, broadcast
    against them: one size, or one per tuple entry); an entry outside [-size, size) raises."""
    indices = indices.astype(np.int64)
    sizes = np.asarray(sizes, dtype=np.int64)
    bad = (indices < -sizes) | (indices >= sizes)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        size = int(np.broadcast_to(sizes, indices.shape)[where])
        raise EvaluationError(
            f"{op_name}: index {int(indices[where])} at position {list(where)} is outside "
            f"[{-size}, {size})"
        )
    return np.where(indices < 0, indices + sizes, indices)


def _gather_elements(op: Operation, xs: Arrays) -> Arrays:
    data, indices = xs
    axis = get_int(op.properties, "axis")
    # take_along_axis broadcasts the other dims: cut the data down to the indices' extent.
    window = tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(indices.shape))
    wrapped = wrap_indices(op.name, indices, data.shape[axis])
    return [np.take_along_axis(data[window], wrapped, axis=axis)]


def _gather_nd(op: Operation, xs: Arrays) -> Arrays:
    data, indices = xs
    b = get_int(op.properties, "batch_dims", 0)
    k = indices.shape[-1]
    batch = math.prod(data.shape[:b])
    tuples = wrap_indices(op.name, indices.reshape(batch, -1, k), np.array(data.shape[b : b + k]))
    rows = np.arange(batch)[:, None]
    picked = data.reshape(batch, *data.shape[b:])[(rows, *np.moveaxis(tuples, -1, 0))]
    return [picked.reshape((*indices.shape[:-1], *data.shape[b + k :]))]


def scatter_elements_targets(
    data_shape: Sequence[int], indices: np.ndarray, axis: int
) -> np.ndarray:
    """Where ScatterElements writes each update (row-major order): its flat position in the
    data. Out-of-range indices raise EvaluationError."""
    grid = list(np.indices(indices.shape, sparse=True))
    grid[axis] = wrap_indices("graph.scatter_elements", indices, data_shape[axis])
    full = np.broadcast_arrays(*grid)
    return np.ravel_multi_index(tuple(full), tuple(data_shape)).reshape(-1)


def scatter_nd_targets(data_shape: Sequence[int], indices: np.ndarray) -> np.ndarray:
    """Where ScatterND writes each update element (row-major order): its flat position in
    the data. Out-of-range indices raise EvaluationError."""
    k = indices.shape[-1]
    tuples = wrap_indices("graph.scatter_nd", indices.reshape(-1, k), np.array(data_shape[:k]))
    rows = np.ravel_multi_index(tuple(tuples.T), tuple(data_shape[:k]))
    inner = math.prod(data_shape[k:])
    return (rows[:, None] * inner + np.arange(inner)[None, :]).reshape(-1)


def last_writes(targets: np.ndarray, size: int) -> np.ndarray:
    """For each of `size` data positions, the last update (its position in `targets`) that
    writes there, or -1: the "none" reduction with duplicate indices, as ONNX Runtime's
    in-order loop leaves it."""
    source = np.full(size, -1, dtype=np.int64)
    np.maximum.at(source, targets, np.arange(targets.size, dtype=np.int64))
    return source


def _scatter(op: Operation, xs: Arrays) -> Arrays:
    data, indices, updates = xs
    if isinstance(op, tn.ScatterElementsOp):
        targets = scatter_elements_targets(data.shape, indices, get_int(op.properties, "axis"))
    else:
        targets = scatter_nd_targets(data.shape, indices)
    out, values = data.reshape(-1).copy(), updates.reshape(-1)
    reduction = get_str(op.properties, "reduction", "none")
    if reduction == "none":
        source = last_writes(targets, out.size)
        hit = source >= 0
        out[hit] = values[source[hit]]
    else:  # ufunc.at applies duplicates one after the other, in order, as ONNX Runtime does
        combine = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
        combine[reduction].at(out, targets, values)
    return [out.reshape(data.shape)]


def _cumulative(op: Operation, xs: Arrays) -> Arrays:
    x = xs[0]
    axis = get_int(op.properties, "axis")
    exclusive = get_int(op.properties, "exclusive", 0)
    reverse = get_int(op.properties, "reverse", 0)
    # In the element type (integers wrap as generated code does), f16 in f32 as its lowering.
    dtype = np.float32 if x.dtype == np.float16 else x.dtype
    y = np.flip(x, axis) if reverse else x
    product = isinstance(op, tn.CumProdOp)
    y = (np.cumprod if product else np.cumsum)(y, axis=axis, dtype=dtype)
    if exclusive and x.shape[axis]:
        first = np.full_like(np.take(y, [0], axis=axis), 1 if product else 0)
        y = np.concatenate([first, np.take(y, np.arange(x.shape[axis] - 1), axis=axis)], axis)
    return [np.flip(y, axis) if reverse else y]


def _reverse_sequence(op: Operation, xs: Arrays) -> Arrays:
    x, lens = xs
    batch_axis, time_axis = (get_int(op.properties, n) for n in ("batch_axis", "time_axis"))
    steps = x.shape[time_axis]
    lens = lens.astype(np.int64)
    if lens.size and not (lens.min() >= 0 and lens.max() <= steps):
        raise EvaluationError(
            f"graph.reverse_sequence: sequence_lens must be in [0, {steps}] (dim {time_axis}), "
            f"got values in [{lens.min()}, {lens.max()}]"
        )
    t = np.arange(steps)[None, :]
    source = np.where(t < lens[:, None], lens[:, None] - 1 - t, t)  # [batch, time]
    if batch_axis == 1:
        source = source.T
    source = source.reshape(*source.shape, *[1] * (x.ndim - 2))
    return [np.take_along_axis(x, np.broadcast_to(source, x.shape), axis=time_axis)]


def _pad(op: Operation, xs: Arrays) -> Arrays:
    x = xs[0]
    pads = get_ints(op.properties, "pads")
    widths = list(zip(pads[: x.ndim], pads[x.ndim :]))
    mode = get_str(op.properties, "mode", "constant")
    if mode == "constant":
        value = np.asarray(get_float(op.properties, "value", 0.0)).astype(x.dtype)
        return [np.pad(x, widths, constant_values=value)]
    return [np.pad(x, widths, mode=mode)]


def _split(op: Operation, xs: Arrays) -> Arrays:
    axis = get_int(op.properties, "axis")
    cuts = np.cumsum(get_ints(op.properties, "sizes"))[:-1]
    return list(np.split(xs[0], cuts, axis=axis))


def _reduce(fn: Callable[..., np.ndarray]) -> Kernel:
    def kernel(op: Operation, xs: Arrays) -> Arrays:
        axes = get_ints(op.properties, "axes")
        keepdims = bool(get_int(op.properties, "keepdims", 1))
        return [fn(xs[0], axis=axes, keepdims=keepdims)]

    return kernel


def _extreme(fn: Callable[..., np.ndarray], lowest: bool) -> Callable[..., np.ndarray]:
    """np.max / np.min, giving the identity (-inf / +inf, or the integer type's bound) over
    empty axes instead of raising. NaN propagates, as in np.maximum."""

    def reduce(x: np.ndarray, axis: Sequence[int], keepdims: bool) -> np.ndarray:
        if x.dtype == np.bool_:
            initial: object = lowest  # min starts from True, max from False
        elif x.dtype.kind == "f":
            initial = np.inf if lowest else -np.inf
        else:
            initial = np.iinfo(x.dtype).max if lowest else np.iinfo(x.dtype).min
        return fn(x, axis=tuple(axis), keepdims=keepdims, initial=initial)

    return reduce


def _mean(x: np.ndarray, axis: Sequence[int], keepdims: bool) -> np.ndarray:
    """np.mean, but an integer mean over no elements is 0 (the empty sum; the spec leaves it
    undefined), as convert-graph-to-te computes it, not numpy's NaN cast to an integer."""
    if x.dtype.kind in "iu" and not math.prod(x.shape[a] for a in axis):
        return np.sum(x, axis=tuple(axis), keepdims=keepdims)
    return np.mean(x, axis=tuple(axis), keepdims=keepdims)


def _log_sum_exp(x: np.ndarray, axis: Sequence[int], keepdims: bool) -> np.ndarray:
    """ONNX Runtime's stable form: m + log(sum(exp(x - m))), m the max (0 where infinite)."""
    m = _extreme(np.max, lowest=False)(x, axis, True)
    m = np.where(np.isinf(m), np.zeros_like(m), m)
    y = np.log(np.sum(np.exp(x - m), axis=tuple(axis), keepdims=True)) + m
    return y if keepdims else np.squeeze(y, axis=tuple(axis))


def _arg_extreme(op: Operation, xs: Arrays) -> Arrays:
    """The first (or last) index of the max (min) along `axis`, as ONNX Runtime's scan finds
    it: a NaN at index 0 gives 0, other NaNs are never chosen."""
    x = xs[0]
    axis = get_int(op.properties, "axis")
    largest = isinstance(op, tn.ArgMaxOp)
    floats = x.dtype.kind == "f"
    nan = np.isnan(x) if floats else np.zeros(x.shape, np.bool_)
    ignore = -np.inf if largest else np.inf
    values = np.where(nan, ignore, x) if floats else x
    best = (np.max if largest else np.min)(values, axis=axis, keepdims=True)
    hit = x == best
    if get_int(op.properties, "select_last_index", 0):
        index = x.shape[axis] - 1 - np.argmax(np.flip(hit, axis), axis=axis)
    else:
        index = np.argmax(hit, axis=axis)
    index = np.where(np.take(nan, 0, axis=axis), 0, index)
    return [np.expand_dims(index, axis) if get_int(op.properties, "keepdims", 1) else index]


def _global_pool(fn: Callable[..., np.ndarray]) -> Kernel:
    return lambda op, xs: [fn(xs[0], axis=tuple(range(2, xs[0].ndim)), keepdims=True)]


def _gemm(op: Operation, xs: Arrays) -> Arrays:
    a, b, *c = xs
    props = op.properties
    a = a.T if get_int(props, "trans_a", 0) else a
    b = b.T if get_int(props, "trans_b", 0) else b
    y = get_float(props, "alpha", 1.0) * (a @ b)
    if c:
        y = y + get_float(props, "beta", 1.0) * c[0]
    return [y]


# Resize: separable, one axis at a time (each mode's filter is a product over the axes)
# --------------------------------------------------------------------------------------------


def _source_coordinates(
    mode: str, out: int, size: int, scale: float, roi: tuple[float, float] = (0.0, 1.0)
) -> np.ndarray:
    """ONNX's coordinate_transformation_mode: where output index i samples the input.

    `length_resized` in the spec's formulas is `scale * size` unrounded (in float32), as in
    the ONNX reference implementation and backend tests; ONNX Runtime uses the rounded output
    length instead for align_corners and tf_crop_and_resize, so the two differ when
    `scale * size` is not an integer. pytorch_half_pixel's "length_resized > 1" test uses the
    output length, as PyTorch and ONNX Runtime do. `roi` is tf_crop_and_resize's box along
    this dim (start, end).
    """
    i = np.arange(out, dtype=np.float64)
    length = float(np.float32(scale) * np.float32(size))
    if mode == "half_pixel":
        return (i + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (i + 0.5) / scale - 0.5 if out > 1 else np.zeros_like(i)
    if mode == "half_pixel_symmetric":
        offset = size / 2 * (1 - out / length)
        return offset + (i + 0.5) / scale - 0.5
    if mode == "align_corners":
        return i * (size - 1) / (length - 1) if length != 1 else np.zeros_like(i)
    if mode == "tf_crop_and_resize":
        width, offset, single = crop_terms(roi, size)
        if length == 1:
            return np.full_like(i, single)
        return i * width * (size - 1) / (length - 1) + offset
    assert mode == "asymmetric", mode
    return i / scale


def crop_terms(roi: tuple[float, float], size: int) -> tuple[float, float, float]:
    """tf_crop_and_resize along a dim of `size` with box `roi` = (start, end): x(i) = i *
    width * (size - 1) / (length - 1) + offset, or `single` for an output length of 1. The
    box's width and offset are float32, as ONNX's reference computes them from its float32
    roi (numpy's scalar rules); a source exactly between two elements, where nearest mode's
    rounding turns, depends on that."""
    start, end = np.float32(roi[0]), np.float32(roi[1])
    width, offset = end - start, start * np.float32(size - 1)
    single = float(np.float32(width * np.float32(size - 1)) / np.float32(2)) + float(offset)
    return float(width), float(offset), single


def crop_range(sampling: tn.Sampling, axis: int, size: int, out: int) -> tuple[int, int]:
    """The output indices [first, last] along `axis` whose tf_crop_and_resize source lies
    inside the input (the others get extrapolation_value); (out, -1) if none does. The
    source is affine in the index, so those indices are one range."""
    coords = _source_coordinates(
        sampling.coordinate_mode, out, size, sampling.scales[axis], sampling.roi_of(axis)
    )
    inside = np.flatnonzero((coords >= 0) & (coords <= size - 1))
    return (int(inside[0]), int(inside[-1])) if inside.size else (out, -1)


def _nearest_index(mode: str, coords: np.ndarray, size: int) -> np.ndarray:
    if mode == "round_prefer_floor":
        index = np.where(coords - np.floor(coords) == 0.5, np.floor(coords), np.round(coords))
    elif mode == "round_prefer_ceil":
        index = np.where(coords - np.floor(coords) == 0.5, np.ceil(coords), np.round(coords))
    elif mode == "floor":
        index = np.floor(coords)
    else:
        index = np.ceil(coords)
    return np.clip(index, 0, size - 1).astype(np.int64)


def cubic_filter(a: float, distance: np.ndarray) -> np.ndarray:
    """Keys' cubic convolution kernel with coefficient `a` (ONNX's cubic_coeff_a)."""
    d = np.abs(distance)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def _filter_taps(
    sampling: tn.Sampling, axis: int, coords: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The input indices (clamped into the input) and weights, [out, taps], with which each
    output index along `axis` combines the input (linear and cubic modes; see Sampling)."""
    low = np.floor(coords)
    offsets = np.array(sampling.taps(axis))
    index = low.astype(np.int64)[:, None] + offsets[None, :]
    distance = (offsets[None, :] - (coords - low)[:, None]) * sampling.filter_scale(axis)
    if sampling.mode == "linear":
        weight = np.clip(1 - np.abs(distance), 0, 1)
    else:
        weight = cubic_filter(sampling.cubic_coeff_a, distance)
    if sampling.antialias:
        weight = weight / weight.sum(axis=1, keepdims=True)
    if sampling.exclude_outside:
        weight = np.where((index < 0) | (index >= size), 0.0, weight)
        total = weight.sum(axis=1, keepdims=True)
        weight = weight / np.where(total == 0, 1.0, total)
    return np.clip(index, 0, size - 1), weight


def _resize(op: Operation, xs: Arrays) -> Arrays:
    """In float64, as ONNX's reference computes it, one resampled axis at a time."""
    assert isinstance(op, tn.ResizeOp)
    y = xs[0].astype(np.float64)
    sampling = op.sampling
    for axis, (size, out) in enumerate(zip(y.shape, _out_shape(op))):
        if not sampling.resamples(axis, size, out):
            continue
        coords = _source_coordinates(sampling.coordinate_mode, out, size,
                                     sampling.scales[axis], sampling.roi_of(axis))  # fmt: skip
        along = [-1 if d == axis else 1 for d in range(y.ndim)]
        if sampling.mode == "nearest":
            y = np.take(y, _nearest_index(sampling.nearest_mode, coords, size), axis=axis)
        else:
            index, weight = _filter_taps(sampling, axis, coords, size)
            taps = np.take(y, index, axis=axis)  # the axis becomes (out, taps)
            weight = weight.reshape(*along[: axis + 1], weight.shape[1], *along[axis + 1 :])
            y = (taps * weight).sum(axis=axis + 1)
        if sampling.coordinate_mode == "tf_crop_and_resize":
            first, last = crop_range(sampling, axis, size, out)
            i = np.arange(out).reshape(along)
            y = np.where((i < first) | (i > last), sampling.extrapolation_value, y)
    return [y]


# --------------------------------------------------------------------------------------------
# Sampling: grid_sample, roi_align, col2im (ONNX's reference implementation, vectorized)
# --------------------------------------------------------------------------------------------


def reflect(x: np.ndarray, low: float, high: float) -> np.ndarray:
    """x mirrored at `low` and `high` (repeatedly) until it lies between them: GridSample's
    reflection padding (PyTorch's reflect_coordinates)."""
    span = high - low
    if span == 0:
        return np.full_like(x, low)
    below = x < low
    excess = np.where(below, low - x, x - high)
    folds = np.trunc(excess / span)
    rest = excess - folds * span
    even = folds % 2 == 0
    from_low, from_high = np.where(even, low + rest, high - rest), np.where(even, high - rest, low + rest)
    return np.where(below, from_low, np.where(x > high, from_high, x))


def _grid_sample(op: Operation, xs: Arrays) -> Arrays:
    """Coordinates in float32 as ONNX's reference computes them (nearest mode's ties depend
    on that rounding), the interpolation in float64."""
    x, grid = xs
    props = op.properties
    mode = get_str(props, "mode", "linear")
    padding = get_str(props, "padding_mode", "zeros")
    align = bool(get_int(props, "align_corners", 0))
    spatial = x.shape[2:]
    taps_per_dim: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = []
    for d, size in enumerate(spatial):
        n = grid[..., len(spatial) - 1 - d].astype(np.float32)
        low, high = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
        c = (n + 1) / 2 * (size - 1) if align else ((n + 1) * size - 1) / 2
        if mode == "nearest":
            c = np.rint(c)
        outside = (c < low) | (c > high)
        if padding == "border":
            c = np.where(outside, np.clip(c, 0, size - 1), c)
        elif padding == "reflection":
            c = np.where(outside, reflect(c.astype(np.float64), low, high), c).astype(np.float32)
        base = np.floor(c)
        t = (c - base).astype(np.float64)
        if mode == "nearest":
            offsets, weights = [0], [np.ones_like(t)]
            base = np.trunc(c)
        elif mode == "linear":
            offsets, weights = [0, 1], [1 - t, t]
        else:
            offsets = [-1, 0, 1, 2]
            weights = [cubic_filter(-0.75, j - t) for j in offsets]
        taps = []
        for j, w in zip(offsets, weights):
            index = base.astype(np.int64) + j
            valid = (index >= 0) & (index < size)
            if padding == "reflection":
                index = np.trunc(reflect(index.astype(np.float64), low, high)).astype(np.int64)
            taps.append((np.clip(index, 0, size - 1), valid | (padding != "zeros"), w))
        taps_per_dim.append(taps)
    batch = np.arange(x.shape[0]).reshape(-1, *[1] * (grid.ndim - 2))
    total = np.zeros((*grid.shape[:-1], x.shape[1]))
    for combo in itertools.product(*taps_per_dim):
        weight, valid = np.ones(grid.shape[:-1]), np.ones(grid.shape[:-1], np.bool_)
        for _, ok, w in combo:
            weight, valid = weight * w, valid & ok
        values = x[(batch, slice(None), *(index for index, _, _ in combo))].astype(np.float64)
        total += np.where(valid, weight, 0.0)[..., None] * values
    return [np.moveaxis(total, -1, 1)]


def _nms_corners(boxes: np.ndarray, centers: bool) -> np.ndarray:
    """[batch, 5, n]: x0, y0, x1, y1 and the area of graph.greedy_nms's [batch, n, 4] boxes,
    in float32 as the compiled code computes them."""
    c = [boxes[:, :, k].astype(np.float32) for k in range(4)]
    if centers:  # [x_center, y_center, width, height]
        w, h = c[2] * np.float32(0.5), c[3] * np.float32(0.5)
        x0, x1, y0, y1 = c[0] - w, c[0] + w, c[1] - h, c[1] + h
    else:  # [y1, x1, y2, x2], either order
        y0, y1 = np.minimum(c[0], c[2]), np.maximum(c[0], c[2])
        x0, x1 = np.minimum(c[1], c[3]), np.maximum(c[1], c[3])
    return np.stack([x0, y0, x1, y1, (x1 - x0) * (y1 - y0)], axis=1)


def _greedy_nms(op: Operation, xs: Arrays) -> Arrays:
    """graph.greedy_nms box by box, in float32 as the compiled code computes it."""
    assert isinstance(op, sp.GreedyNmsOp)
    boxes, scores = _nms_corners(xs[0], op.has_centers), xs[1]
    most, iou, threshold = int(xs[2]), np.float32(xs[3]), np.float32(xs[4])
    batch, classes, n = scores.shape
    keep = np.zeros(scores.shape, np.bool_)
    order = np.full(scores.shape, -1, np.int64)
    zero = np.float32(0)
    for b, c in itertools.product(range(batch), range(classes)):
        row = scores[b, c]
        ranked = _argsort(row[None, :], descending=True)[0]
        if op.is_thresholded:
            ranked = ranked[row[ranked] > threshold]
        kept: list[int] = []
        for t, p in enumerate(ranked.tolist()):
            if len(kept) >= most:
                break
            order[b, c, t] = p
            q = np.array(kept, np.int64)
            x0, y0, x1, y1, area = (boxes[b, k, q] for k in range(5))
            px0, py0, px1, py1, parea = (boxes[b, k, p] for k in range(5))
            ix = np.minimum(px1, x1) - np.maximum(px0, x0)
            iy = np.minimum(py1, y1) - np.maximum(py0, y0)
            inter = ix * iy
            union = (parea + area) - inter
            with np.errstate(divide="ignore", invalid="ignore"):
                over = inter / union > iou
            for positive in (ix, iy, inter, area, union):
                over &= positive > zero
            if not (parea > zero and over.any()):
                kept.append(p)
                keep[b, c, t] = True
    return [keep, order]


def _roi_axis(start: np.float32, bin_size: np.float32, bins: int, grid: int, size: int):
    """Along one dim of a box: per bin and sample point, whether it counts (not more than a
    pixel outside), its low and high input indices and their weights (float32, ONNX's)."""
    i = np.arange(bins, dtype=np.float32)[:, None]
    j = np.arange(max(grid, 0), dtype=np.float32)[None, :]
    p = start + i * bin_size + (j + np.float32(0.5)) * bin_size / np.float32(grid)
    valid = (p >= -1) & (p <= size)
    p = np.maximum(p, np.float32(0))
    low = np.floor(p).astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    p = np.where(edge, low.astype(np.float32), p)
    high = np.where(edge, low, low + 1)
    frac = (p - low).astype(np.float32)
    return valid, low, high, np.float32(1) - frac, frac


def _roi_align(op: Operation, xs: Arrays) -> Arrays:
    x, rois, batch_indices = xs
    props = op.properties
    out_h, out_w = get_int(props, "output_height"), get_int(props, "output_width")
    ratio = get_int(props, "sampling_ratio", 0)
    scale = np.float32(get_float(props, "spatial_scale", 1.0))
    half_pixel = get_str(props, "coordinate_transformation_mode", "half_pixel") == "half_pixel"
    max_mode = get_str(props, "mode", "avg") == "max"
    n, channels, height, width = x.shape
    batch = batch_indices.astype(np.int64)
    if batch.size and not (0 <= batch.min() and batch.max() < n):
        raise EvaluationError(
            f"{op.name}: batch_indices must be in [0, {n}), got values in [{batch.min()}, "
            f"{batch.max()}]"
        )
    result = np.zeros((len(rois), channels, out_h, out_w))
    for r, box in enumerate(rois.astype(np.float32)):
        x1, y1, x2, y2 = box * scale - np.float32(0.5 if half_pixel else 0.0)
        box_h, box_w = y2 - y1, x2 - x1
        if not half_pixel:
            box_h, box_w = max(box_h, np.float32(1)), max(box_w, np.float32(1))
        bin_h, bin_w = box_h / np.float32(out_h), box_w / np.float32(out_w)
        grid_h = ratio if ratio > 0 else int(np.ceil(bin_h))
        grid_w = ratio if ratio > 0 else int(np.ceil(bin_w))
        if grid_h <= 0 or grid_w <= 0:
            continue  # no sample points: 0
        vy, yl, yh, wyl, wyh = (a[:, :, None, None] for a in _roi_axis(y1, bin_h, out_h, grid_h, height))
        vx, xl, xh, wxl, wxh = (a[None, None] for a in _roi_axis(x1, bin_w, out_w, grid_w, width))
        image = x[batch[r]]
        # [C, out_h, grid_h, out_w, grid_w] for each of the four corners
        terms = [w * image[:, yi, xi] for w, yi, xi in (
            (wyl * wxl, yl, xl), (wyl * wxh, yl, xh), (wyh * wxl, yh, xl), (wyh * wxh, yh, xh)
        )]  # fmt: skip
        valid = vy & vx
        if max_mode:
            value = np.where(valid, np.maximum.reduce(terms), 0.0).max(axis=(2, 4))
        else:
            value = np.where(valid, sum(terms), 0.0).sum(axis=(2, 4)) / max(grid_h * grid_w, 1)
        result[r] = value
    return [result]


def _col2im(op: Operation, xs: Arrays) -> Arrays:
    """Each kernel offset's columns added at their (strided) image positions in a padded
    image, which is then cropped."""
    assert isinstance(op, sp.Col2ImOp)
    (x,) = xs
    window, blocks = op.window, op.blocks
    image = get_ints(op.properties, "image_shape")
    block = math.prod(window.kernel)
    n, rows, _ = x.shape
    wide = np.float64 if x.dtype.kind == "f" else np.int64
    cols = x.astype(wide).reshape(n, rows // block, block, *blocks)
    padded = np.zeros((n, rows // block, *(
        s + b + e for s, b, e in zip(image, window.pad_begins, window.pad_ends))), wide)  # fmt: skip
    for k, offset in enumerate(np.ndindex(*window.kernel)):
        region = tuple(
            slice(o * d, o * d + (nb - 1) * s + 1, s)
            for o, d, nb, s in zip(offset, window.dilations, blocks, window.strides)
        )
        padded[(slice(None), slice(None), *region)] += cols[:, :, k]
    crop = tuple(slice(b, b + s) for b, s in zip(window.pad_begins, image))
    return [padded[(slice(None), slice(None), *crop)]]


# --------------------------------------------------------------------------------------------
# The dispatch table: one entry per op class
# --------------------------------------------------------------------------------------------

_KERNELS: dict[type[Operation], Kernel] = {
    ConstantOp: lambda op, xs: [op.numpy()],  # type: ignore[attr-defined]
    # unary
    ew.ReluOp: _unary(lambda x: np.maximum(x, 0)),
    ew.SigmoidOp: _unary(_sigmoid),
    ew.TanhOp: _unary(np.tanh),
    ew.ErfOp: _unary(erf),
    ew.ExpOp: _unary(np.exp),
    ew.LogOp: _unary(np.log),
    ew.SqrtOp: _unary(np.sqrt),
    ew.ReciprocalOp: _unary(np.reciprocal),
    ew.NegOp: _unary(np.negative),
    ew.AbsOp: _unary(np.abs),
    ew.HardSwishOp: _unary(lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    ew.GeluOp: _unary_op(_gelu),
    ew.LeakyReluOp: _unary_op(_leaky_relu),
    ew.HardSigmoidOp: _unary_op(_hard_sigmoid),
    ew.ClipOp: _unary_op(_clip),
    ew.SinOp: _unary(np.sin),
    ew.CosOp: _unary(np.cos),
    ew.TanOp: _unary(np.tan),
    ew.AsinOp: _unary(np.arcsin),
    ew.AcosOp: _unary(np.arccos),
    ew.AtanOp: _unary(np.arctan),
    ew.SinhOp: _unary(np.sinh),
    ew.CoshOp: _unary(np.cosh),
    ew.AsinhOp: _unary(np.arcsinh),
    ew.AcoshOp: _unary(np.arccosh),
    ew.AtanhOp: _unary(np.arctanh),
    ew.CeilOp: _unary(np.ceil),
    ew.FloorOp: _unary(np.floor),
    ew.RoundOp: _unary(np.rint),
    ew.SignOp: _unary(np.sign),
    ew.SoftplusOp: _unary(_softplus),
    ew.SoftsignOp: _unary(lambda x: x / (1 + np.abs(x))),
    ew.MishOp: _unary(lambda x: x * np.tanh(_softplus(x))),
    ew.EluOp: _unary_op(_elu),
    ew.SeluOp: _unary_op(_selu),
    ew.CeluOp: _unary_op(_celu),
    ew.ThresholdedReluOp: _unary_op(
        lambda op, x: np.where(x > get_float(op.properties, "alpha", 1.0), x, 0)
    ),
    ew.ShrinkOp: _unary_op(_shrink),
    ew.NotOp: _unary(np.logical_not),
    ew.BitwiseNotOp: _unary(np.invert),
    ew.IsNaNOp: _unary(np.isnan),
    ew.IsInfOp: _unary_op(_is_inf),
    ew.CastOp: _cast,
    ew.BitcastOp: _bitcast,
    # binary
    ew.AddOp: _binary(np.add),
    ew.SubOp: _binary(np.subtract),
    ew.MulOp: _binary(np.multiply),
    ew.DivOp: _binary(_div),
    ew.PowOp: _binary(_pow),
    ew.ModOp: _mod,
    ew.MaxOp: _binary(np.maximum),
    ew.MinOp: _binary(np.minimum),
    ew.EqualOp: _binary(np.equal),
    ew.LessOp: _binary(np.less),
    ew.GreaterOp: _binary(np.greater),
    ew.GreaterEqualOp: _binary(np.greater_equal),
    ew.LessEqualOp: _binary(np.less_equal),
    ew.AndOp: _binary(np.logical_and),
    ew.OrOp: _binary(np.logical_or),
    ew.XorOp: _binary(np.logical_xor),
    ew.BitwiseAndOp: _binary(np.bitwise_and),
    ew.BitwiseOrOp: _binary(np.bitwise_or),
    ew.BitwiseXorOp: _binary(np.bitwise_xor),
    ew.BitShiftOp: _bit_shift,
    ew.PReluOp: _binary(lambda x, slope: np.where(x < 0, slope * x, x)),
    ew.WhereOp: lambda op, xs: [np.where(xs[0], xs[1], xs[2])],
    # nn
    nn.MatMulOp: lambda op, xs: [np.matmul(*_widened(xs))],
    nn.GemmOp: _gemm,
    nn.ConvOp: _conv,
    nn.ConvTransposeOp: _conv_transpose,
    nn.BatchNormOp: _batch_norm,
    nn.LayerNormOp: _layer_norm,
    nn.LRNOp: _lrn,
    nn.SoftmaxOp: _softmax,
    nn.LogSoftmaxOp: _softmax,
    nn.MaxPoolOp: _pool,
    nn.MaxPoolIndicesOp: _pool,
    nn.MaxUnpoolOp: _max_unpool,
    nn.AvgPoolOp: _pool,
    nn.GlobalAvgPoolOp: _global_pool(np.mean),
    nn.GlobalMaxPoolOp: _global_pool(np.max),
    nn.LayoutTransformOp: _layout_transform,
    nn.ConvNchwcOp: _conv_nchwc,
    nn.MatMulPackedOp: lambda op, xs: [np.matmul(*_widened([xs[0], unpack_panels(xs[1])]))[..., : _out_shape(op)[-1]]],
    wg.WinogradInputOp: _winograd_input,
    wg.WinogradOutputOp: _winograd_output,
    # tensor
    tn.ReshapeOp: lambda op, xs: [xs[0].reshape(_out_shape(op))],
    tn.ExpandOp: lambda op, xs: [np.broadcast_to(xs[0], _out_shape(op))],
    tn.RangeOp: lambda op, xs: [_range(op)],
    tn.SizesOp: lambda op, xs: [_sizes(op)],
    tn.FlatNonzeroOp: lambda op, xs: [np.flatnonzero(xs[0]).astype(np.int64)],
    tn.IotaOp: lambda op, xs: [np.arange(_iota_count(op, int(xs[0])), dtype=np.int64)],
    tn.ReshapeToSizesOp: lambda op, xs: [xs[0].reshape([len(v) for v in xs[1:]])],
    tn.CheckOp: _check,
    tn.ArgSortOp: lambda op, xs: [_argsort(xs[0], op.is_descending)[:, : _out_shape(op)[1]]],
    tn.InvertPermutationOp: lambda op, xs: [np.argsort(xs[0], kind="stable").astype(np.int64)],
    tn.ResizeOp: _resize,
    tn.TransposeOp: lambda op, xs: [xs[0].transpose(get_ints(op.properties, "perm"))],
    tn.ConcatOp: lambda op, xs: [np.concatenate(xs, axis=get_int(op.properties, "axis"))],
    tn.SplitOp: _split,
    tn.SliceOp: _slice,
    tn.GatherOp: _gather,
    tn.GatherElementsOp: _gather_elements,
    tn.GatherNDOp: _gather_nd,
    tn.ScatterElementsOp: _scatter,
    tn.ScatterNDOp: _scatter,
    tn.CumSumOp: _cumulative,
    tn.CumProdOp: _cumulative,
    tn.ReverseSequenceOp: _reverse_sequence,
    tn.PadOp: _pad,
    tn.TileOp: lambda op, xs: [np.tile(xs[0], get_ints(op.properties, "repeats"))],
    tn.ReduceSumOp: _reduce(np.sum),
    tn.ReduceMeanOp: _reduce(_mean),
    tn.ReduceMaxOp: _reduce(_extreme(np.max, lowest=False)),
    tn.ReduceMinOp: _reduce(_extreme(np.min, lowest=True)),
    tn.ReduceProdOp: _reduce(np.prod),
    tn.ReduceL1Op: _reduce(lambda x, **kw: np.sum(np.abs(x), **kw)),
    tn.ReduceL2Op: _reduce(lambda x, **kw: np.sqrt(np.sum(x * x, **kw))),
    tn.ReduceSumSquareOp: _reduce(lambda x, **kw: np.sum(x * x, **kw)),
    tn.ReduceLogSumOp: _reduce(lambda x, **kw: np.log(np.sum(x, **kw))),
    tn.ReduceLogSumExpOp: _reduce(_log_sum_exp),
    tn.ArgMaxOp: _arg_extreme,
    tn.ArgMinOp: _arg_extreme,
    # sampling
    sp.GridSampleOp: _grid_sample,
    sp.RoiAlignOp: _roi_align,
    sp.Col2ImOp: _col2im,
    sp.GreedyNmsOp: _greedy_nms,
}


def supported_ops() -> list[type[Operation]]:
    """The op classes `evaluate` implements (all of the graph dialect's)."""
    return list(_KERNELS)
