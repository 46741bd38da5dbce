"""ONNX DFT (opsets 17, 20) and STFT (opset 17) as products with constant DFT matrices; no
graph op of their own.

A transform of length L along one axis is a matrix W over (input index j, real/imaginary
part) x (output index k, part), entries cos and sin of 2πjk/L, built here in float64 and
cast to the input's type. DFT moves its axis next to the trailing [re, im] dim and runs
one graph.matmul:

    x [..., n, ..., c]  --transpose-->  [M, n·c]  --matmul W [n·c, K·c']-->  [M, K·c']
                        --reshape, transpose-->  y [..., K, ..., c']

STFT is a strided graph.conv whose 2K output channels are W's columns (frame_length taps,
frame_step stride: the framing comes free), the window multiplied into the taps.

The variants are all in W: zero-padding to dft_length drops nothing (W has only the
input's rows), truncation gives the rows past L no entries, onesided forward keeps the
columns k <= L/2, the inverse conjugates and divides by L after the product, and the
one-sided inverse (IRFFT) weights the bins 0 < k < L/2 twice (their mirror images) and
returns the real part. Angles are reduced exactly ((j·k) mod L) and the table is exactly
symmetric, with exact zeros at multiples of π/2, so the imaginary part of a real signal's
DC and Nyquist bins is exactly 0 as in the reference; an FFT does O(n log n) work, W
O(n²), which for the frame and signal lengths models transform is still one fast GEMM.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.constant import element_type_of, numpy_dtype_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter


def _angle_table(length: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2πm/L for m in 0..L-1: exact at multiples of π/2 and exactly mirrored
    (cos(L - m) = cos m, sin(L - m) = -sin m)."""
    m = np.arange(length)
    cos, sin = np.cos(2 * np.pi * m / length), np.sin(2 * np.pi * m / length)
    quarter = (4 * m) % length == 0
    exact = (4 * m[quarter]) // length  # 0, 1, 2, 3: the quarter turns
    cos[quarter] = np.array([1.0, 0.0, -1.0, 0.0])[exact]
    sin[quarter] = np.array([0.0, 1.0, 0.0, -1.0])[exact]
    mirror = m[1 : (length + 1) // 2]
    cos[length - mirror], sin[length - mirror] = cos[mirror], -sin[mirror]
    return cos, sin


def dft_matrix(
    rows: int, complex_in: bool, length: int, inverse: bool, onesided: bool
) -> np.ndarray:
    """The float64 matrix [rows·c, bins·c'] of a length-`length` DFT of `rows` input
    points with c = 2 (re, im) if `complex_in` else 1, flattened point-major. Forward: bins
    = L (onesided: L // 2 + 1), c' = 2. Inverse: unnormalized (divide by L after); onesided
    (IRFFT) gives c' = 1, the real signal, from the first L // 2 + 1 bins."""
    irfft = inverse and onesided
    used = min(rows, length // 2 + 1 if irfft else length)
    bins = length // 2 + 1 if onesided and not inverse else length
    out_parts = 1 if irfft else 2
    cos_table, sin_table = _angle_table(length)
    angle = (np.arange(used)[:, None] * np.arange(bins)[None, :]) % length
    cos, sin = cos_table[angle], sin_table[angle]
    if not inverse:
        sin = -sin  # e^{-iθ}
    if irfft:  # bins 0 < k < L/2 stand for their mirror images too
        k = np.arange(used)[:, None]
        weight = np.where((k == 0) | (2 * k == length), 1.0, 2.0)
        cos, sin = cos * weight, sin * weight
    # (re + i·im)(cos + i·sin) = re·cos - im·sin + i·(re·sin + im·cos)
    w = np.zeros((rows, 2 if complex_in else 1, bins, out_parts))
    w[:used, 0, :, 0] = cos
    if out_parts == 2:
        w[:used, 0, :, 1] = sin
    if complex_in:
        w[:used, 1, :, 0] = -sin
        if out_parts == 2:
            w[:used, 1, :, 1] = cos
    return w.reshape(rows * w.shape[1], bins * out_parts)


def _shape(x: SSAValue) -> tuple[int, ...]:
    assert isinstance(x.type, TensorType)
    return tuple(x.type.get_shape())


def _scalar(ctx: NodeContext, i: int, what: str) -> int:
    value = ctx.const(i, what)
    if value.size != 1 or value.dtype.kind not in "iu":
        raise ctx.error(f"{what} must be an integer scalar, got {value.dtype} of shape "
                        f"{list(value.shape)}")  # fmt: skip
    return int(value.reshape(()))


def _cast(ctx: NodeContext, x: SSAValue, dtype: np.dtype) -> SSAValue:
    assert isinstance(x.type, TensorType)
    if numpy_dtype_of(x.type.element_type) == dtype:
        return x
    return ctx.make1(g.CastOp, x, to=element_type_of(dtype))


def _work_type(dtype: np.dtype) -> np.dtype:
    """f16 and bf16 transforms run in f32 and round once, as numpy's FFT (the reference's)
    computes them: a 16-bit DFT matrix would cost three digits."""
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)


def _float_signal(ctx: NodeContext, what: str) -> np.dtype:
    dtype = ctx.dtype(0)
    if dtype.kind != "f" and dtype.name != "bfloat16":
        raise ctx.error(f"{what} must be a float tensor, got {dtype}")
    parts = ctx.shape(0)[-1] if ctx.rank(0) else 0
    if parts not in (1, 2):
        raise ctx.error(f"the last dim of {what} must be 1 (real) or 2 (complex), got "
                        f"shape {list(ctx.shape(0))}")  # fmt: skip
    return dtype


# --------------------------------------------------------------------------------------------
# DFT
# --------------------------------------------------------------------------------------------


@converter("DFT")
def convert_dft(ctx: NodeContext) -> list[Value]:
    """The DFT along `axis` (attribute before opset 20, input 2 from it; default 1, then -2)
    as one graph.matmul with the constant matrix of `dft_matrix`."""
    dtype = _float_signal(ctx, "input")
    shape = ctx.shape(0)
    rank = len(shape)
    if ctx.opset >= 20:
        axis = _scalar(ctx, 2, "axis") if ctx.has_input(2) else -2
    else:
        axis = ctx.attr_int("axis", 1)
    if not (-rank <= axis <= -2 or 0 <= axis <= rank - 2):
        raise ctx.error(f"axis {axis} is out of range for rank {rank} (the last dim holds the "
                        "real and imaginary parts)")  # fmt: skip
    axis %= rank
    inverse, onesided = bool(ctx.attr_int("inverse", 0)), bool(ctx.attr_int("onesided", 0))
    n, parts = shape[axis], shape[-1]
    if ctx.has_input(1):
        length = _scalar(ctx, 1, "dft_length")
    else:
        length = 2 * (n - 1) if inverse and onesided else n
    if length < 1:
        raise ctx.error(f"dft_length must be positive, got {length}")
    w = dft_matrix(n, parts == 2, length, inverse, onesided)

    # [others..., n, parts] with the transform axis next to the parts
    others = [d for d in range(rank - 1) if d != axis]
    perm = [*others, axis, rank - 1]
    work = _work_type(dtype)
    x = _cast(ctx, ctx.tensor(0), work)
    if perm != list(range(rank)):
        x = ctx.make1(g.TransposeOp, x, perm=perm)
    rows = int(np.prod([shape[d] for d in others], dtype=np.int64))
    x = ctx.make1(g.ReshapeOp, x, shape=[rows, n * parts])
    name = ctx.node.output[0]
    y = ctx.make1(g.MatMulOp, x, ctx.materialize(w.astype(work), f"{name}_dft_matrix"))
    if inverse:
        scale = ctx.materialize(np.array(length, work), f"{name}_length")
        y = ctx.make1(g.DivOp, y, scale)
    out_parts = 1 if inverse and onesided else 2
    bins = w.shape[1] // out_parts
    y = ctx.make1(g.ReshapeOp, y, shape=[*(shape[d] for d in others), bins, out_parts])
    if perm != list(range(rank)):
        y = ctx.make1(g.TransposeOp, y, perm=[int(p) for p in np.argsort(perm)])
    return [_cast(ctx, y, dtype)]


# --------------------------------------------------------------------------------------------
# STFT
# --------------------------------------------------------------------------------------------


@converter("STFT")
def convert_stft(ctx: NodeContext) -> list[Value]:
    """Frames of frame_length samples every frame_step, each windowed and transformed: one
    graph.conv over the signal [B, parts, length] with stride frame_step and weight [bins·2,
    parts, frame_length] (the DFT matrix's columns, times the window), then [B, frames,
    bins, 2]."""
    dtype = _float_signal(ctx, "signal")
    shape = ctx.shape(0)
    if len(shape) != 3:
        raise ctx.error(f"signal must be [batch, length, 1 or 2], got {list(shape)}")
    batch, samples, parts = shape
    step = _scalar(ctx, 1, "frame_step")
    if ctx.has_input(2) and (ctx.rank(2) != 1 or ctx.dtype(2) != dtype):
        raise ctx.error(f"window must be a 1-D {dtype} tensor, got {ctx.dtype(2)} of shape "
                        f"{list(ctx.shape(2))}")  # fmt: skip
    window_length = ctx.shape(2)[0] if ctx.has_input(2) else None
    if ctx.has_input(3):
        length = _scalar(ctx, 3, "frame_length")
        if window_length is not None and window_length != length:
            raise ctx.error(f"the window has {window_length} samples, frame_length is {length}")
    else:
        length = samples if window_length is None else window_length
    if step < 1 or not 1 <= length <= samples:
        raise ctx.error(f"frame_step {step} must be positive and frame_length {length} within "
                        f"the signal's {samples} samples")  # fmt: skip
    onesided = bool(ctx.attr_int("onesided", 1))
    w = dft_matrix(length, parts == 2, length, inverse=False, onesided=onesided)
    bins = w.shape[1] // 2
    # [length·parts, bins·2] -> conv weight [bins·2, parts, length]
    taps = w.reshape(length, parts, bins * 2).transpose(2, 1, 0)
    name = ctx.node.output[0]
    if ctx.has_input(2) and ctx.is_const(2):
        taps = taps * ctx.const(2, "window").astype(np.float64)
    work = _work_type(dtype)
    weight = ctx.materialize(np.ascontiguousarray(taps).astype(work), f"{name}_dft_taps")
    if ctx.has_input(2) and not ctx.is_const(2):
        window = ctx.make1(g.ReshapeOp, _cast(ctx, ctx.tensor(2), work), shape=[1, 1, length])
        weight = ctx.make1(g.MulOp, weight, window)
    x = _cast(ctx, ctx.tensor(0), work)
    x = (ctx.make1(g.ReshapeOp, x, shape=[batch, 1, samples]) if parts == 1
         else ctx.make1(g.TransposeOp, x, perm=[0, 2, 1]))  # fmt: skip
    y = ctx.make1(g.ConvOp, x, weight, None, strides=[step], pads=[0, 0], dilations=[1], group=1)
    frames = _shape(y)[2]
    y = ctx.make1(g.ReshapeOp, y, shape=[batch, bins, 2, frames])
    return [_cast(ctx, ctx.make1(g.TransposeOp, y, perm=[0, 3, 1, 2]), dtype)]
