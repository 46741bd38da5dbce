"""Op specs of the compute-heavy ops: MatMul, Gemm, Conv, ConvTranspose, the pools, the
normalizations, Softmax and friends, the reductions and ArgMax/ArgMin.

Weights are initializers most of the time (the weight passes and constant folding see them)
and now and then graph values. Bounds: a dot product of K terms is K times the largest
corner product; normalized values are at most sqrt(n) in magnitude.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from minitvm.fuzz.graph import GraphBuilder, Reject, Value, join_bits
from minitvm.fuzz.spec import Spec, register


def dot_bound(x: Value, w: Value, terms: int) -> tuple[float, float, int | None]:
    """(lo, hi, bits) of a sum of `terms` products of x's and w's elements."""
    corners = [p * q for p in (x.lo, x.hi) for q in (w.lo, w.hi)]
    bits = None if x.bits is None or w.bits is None else x.bits + w.bits
    return terms * min(*corners, 0.0), terms * max(*corners, 0.0), bits


def operand(b: GraphBuilder, shape: tuple[int, ...], p_weight: float = 0.7) -> Value:
    """A fresh weight (mostly) or graph input of `shape`."""
    return b.weight(shape) if b.coin(p_weight) else b.input(shape, -1.0, 1.0)



def _group_count(b: GraphBuilder, channels: int) -> int:
    """A group count the channels divide into (Conv, ConvTranspose, GroupNormalization)."""
    return int(b.choice([g for g in range(1, channels + 1) if channels % g == 0]))

@dataclass
class MatMul(Spec):
    """x (..., M, K) @ y (..., K, N), batch dims broadcasting; 1-D operands now and then."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats(lambda v: v.rank >= 1)
        k = x.shape[-1]
        n = int(b.rng.integers(1, 41 if b.coin(0.3) else 9))
        if x.rank == 1 or b.coin(0.1):
            shape: tuple[int, ...] = (k,) if b.coin(0.5) and x.rank > 1 else (k, n)
        else:
            batch = tuple(1 if b.coin(0.3) else d for d in x.shape[:-2])
            shape = (*batch[int(b.rng.integers(len(batch) + 1)):], k, n)
        y = b.pick(lambda v: v.is_float and v.shape == shape, lambda: operand(b, shape))
        b.emit("MatMul", [x.name, y.name], [dot_bound(x, y, k)])


@dataclass
class Gemm(Spec):
    """alpha * A' B' + beta * C, A and B transposed or not, C broadcasting or absent."""

    def build(self, b: GraphBuilder) -> None:
        a = b.floats(lambda v: v.rank == 2, shape=lambda: b.shape(rank=2, max_dim=12))
        trans_a, trans_b = int(b.coin(0.3)), int(b.coin(0.5))
        m, k = a.shape[::-1] if trans_a else a.shape
        n = int(b.rng.integers(1, 41 if b.coin(0.3) else 13))
        w = operand(b, (n, k) if trans_b else (k, n))
        alpha, beta = float(b.choice([1.0, 0.5, 2.0])), float(b.choice([1.0, 0.5, -1.0]))
        lo, hi, bits = dot_bound(a, w, k)
        lo, hi = alpha * lo, alpha * hi
        operands = [a.name, w.name]
        if b.coin(0.7):
            c = operand(b, b.choice([(m, n), (n,), (1, n), (m, 1), (1,)]))
            operands.append(c.name)
            lo, hi = min(lo, hi) - abs(beta) * c.mag, max(lo, hi) + abs(beta) * c.mag
            bits = join_bits(bits, c.bits) if beta != 0.5 else None
        if alpha == 0.5:
            bits = None
        b.emit("Gemm", operands, [(min(lo, hi), max(lo, hi), bits)], alpha=alpha, beta=beta,
               transA=trans_a, transB=trans_b)  # fmt: skip


def spatial_input(b: GraphBuilder, min_rank: int = 3) -> Value:
    """An (N, C, spatial...) float value with one or two spatial dims."""
    return b.floats(lambda v: min_rank <= v.rank <= 4 and v.shape[0] <= 2,
                    shape=lambda: (int(b.rng.integers(1, 3)), *b.shape(min_rank=min_rank - 1,
                                                                        max_rank=3)))  # fmt: skip


def window_attrs(b: GraphBuilder, spatial: tuple[int, ...], dilate: bool,
                 pad_below_kernel: bool = False) -> dict[str, object]:  # fmt: skip
    """kernel_shape, strides, pads, dilations that give every spatial dim at least one output
    (a Reject from shape inference covers the rest)."""
    kernel = [int(b.rng.integers(1, min(d, 4) + 1)) for d in spatial]
    dilations = [int(b.rng.integers(1, 3)) if dilate and b.coin(0.3) else 1 for _ in spatial]
    strides = [int(b.rng.integers(1, 4)) if b.coin(0.4) else 1 for _ in spatial]
    limit = [k if pad_below_kernel else k * d for k, d in zip(kernel, dilations, strict=True)]
    pads = [int(b.rng.integers(0, lim)) if b.coin(0.5) else 0 for lim in limit * 2]
    rank = len(spatial)
    for i, (size, k, d) in enumerate(zip(spatial, kernel, dilations, strict=True)):
        # A dilated window wider than the padded input has floor(...) = 0 outputs by the
        # spec's formula, 1 by ONNX's shape inference and ONNX Runtime (C's truncation)
        if (k - 1) * d + 1 > size + pads[i] + pads[i + rank]:
            raise Reject("the dilated window is wider than the padded input")
    attrs: dict[str, object] = {"kernel_shape": kernel, "strides": strides}
    if b.coin(0.15):
        attrs["auto_pad"] = b.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])
        if attrs["auto_pad"] != "VALID":  # ONNX Runtime has no dilated SAME padding
            dilations = [1] * len(spatial)
        for d, k, s, dil in zip(spatial, kernel, strides, dilations, strict=True):
            if attrs["auto_pad"] != "VALID" and (-(-d // s) - 1) * s + (k - 1) * dil + 1 < d:
                raise Reject("SAME padding would be negative (ONNX Runtime refuses it)")
    else:
        attrs["pads"] = pads
    if dilate:
        attrs["dilations"] = dilations
    return attrs


@dataclass
class Conv(Spec):
    """Conv1d/2d with groups (depthwise too), strides, pads or auto_pad, dilations, bias."""

    def build(self, b: GraphBuilder) -> None:
        if b.coin(0.3):  # channels the blocked NCHW8c/16c layout takes (graph-conv-layout)
            x = b.floats(lambda v: v.rank == 4 and v.shape[1] % 8 == 0 and v.shape[0] <= 2,
                         shape=lambda: (1, int(b.choice([8, 16])), *b.shape(rank=2, max_dim=10)))  # fmt: skip
        else:
            x = spatial_input(b)
        c = x.shape[1]
        if c % 8 == 0 and b.coin(0.6):  # one group of 8 or 16 outputs, or depthwise
            groups = int(b.choice([1, c]))
            out = int(b.choice([8, 16])) if groups == 1 else c
        else:
            groups = _group_count(b, c)
            out = groups * int(b.rng.integers(1, 17 if groups == 1 and b.coin(0.3) else 5))
        attrs = window_attrs(b, x.shape[2:], dilate=True)
        if b.coin(0.3) and x.rank == 4:  # 3x3, stride 1: what graph-winograd takes
            attrs.update(kernel_shape=[3, 3], strides=[1, 1], dilations=[1, 1])
            if "pads" in attrs:
                attrs["pads"] = [int(b.rng.integers(0, 2))] * 4
        kernel = attrs["kernel_shape"]
        w = operand(b, (out, c // groups, *kernel), p_weight=0.85)  # type: ignore[misc]
        operands = [x.name, w.name]
        lo, hi, bits = dot_bound(x, w, c // groups * math.prod(kernel))  # type: ignore[arg-type]
        if b.coin(0.6):
            bias = operand(b, (out,), p_weight=0.9)
            operands.append(bias.name)
            lo, hi, bits = lo - bias.mag, hi + bias.mag, join_bits(bits, bias.bits)
        if "auto_pad" in attrs:
            del attrs["kernel_shape"]  # inferred from the weight, as exporters often leave it
        b.emit("Conv", operands, [(lo, hi, bits)], group=groups, **attrs)


@dataclass
class ConvTranspose(Spec):
    """ConvTranspose 1d/2d: groups, strides, pads, output_padding (< stride), dilations."""

    def build(self, b: GraphBuilder) -> None:
        x = spatial_input(b)
        c = x.shape[1]
        groups = _group_count(b, c)
        out_per_group = int(b.rng.integers(1, 4))
        spatial = x.shape[2:]
        kernel = [int(b.rng.integers(1, 4)) for _ in spatial]
        strides = [int(b.rng.integers(1, 3)) for _ in spatial]
        dilations = [int(b.rng.integers(1, 3)) if b.coin(0.2) else 1 for _ in spatial]
        pads = [int(b.rng.integers(0, k)) if b.coin(0.4) else 0 for k in kernel * 2]
        output_padding = [int(b.rng.integers(0, s)) if b.coin(0.3) else 0 for s in strides]
        w = operand(b, (c, out_per_group, *kernel), p_weight=0.9)
        terms = c // groups * math.prod(kernel)
        b.emit("ConvTranspose", [x.name, w.name], [dot_bound(x, w, terms)], group=groups,
               kernel_shape=kernel, strides=strides, dilations=dilations, pads=pads,
               output_padding=output_padding)  # fmt: skip


@dataclass
class Pool(Spec):
    """MaxPool (dilations) and AveragePool (count_include_pad), both with ceil_mode."""

    def build(self, b: GraphBuilder) -> None:
        x = spatial_input(b)
        is_max = self.op_type == "MaxPool"
        attrs = window_attrs(b, x.shape[2:], dilate=is_max, pad_below_kernel=True)
        if b.coin(0.3) and "pads" in attrs:
            attrs["ceil_mode"] = 1
            _check_ceil_windows(x.shape[2:], attrs)
        lo, hi, bits = x.lo, x.hi, x.bits
        if not is_max:
            bits = None
            if b.coin(0.5):
                attrs["count_include_pad"] = 1
                lo, hi = min(lo, 0.0), max(hi, 0.0)
        b.emit(self.op_type, [x.name], [(lo, hi, bits)], **attrs)


def _check_ceil_windows(spatial: tuple[int, ...], attrs: dict[str, object]) -> None:
    """Reject a ceil_mode draw whose last window would start in the end padding: the ONNX
    spec, ONNX Runtime and minitvm drop that window, ONNX 1.23's shape inference counts it,
    and the builder takes its shapes from that inference (test_fuzz_found.py has the case)."""
    pads: list[int] = attrs["pads"]  # type: ignore[assignment]
    kernel: list[int] = attrs["kernel_shape"]  # type: ignore[assignment]
    strides: list[int] = attrs["strides"]  # type: ignore[assignment]
    dilations: list[int] = attrs.get("dilations", [1] * len(spatial))  # type: ignore[assignment]
    rank = len(spatial)
    for i, d in enumerate(spatial):
        span = d + pads[i] + pads[i + rank] - dilations[i] * (kernel[i] - 1) - 1
        out = -(-span // strides[i]) + 1
        if (out - 1) * strides[i] >= d + pads[i]:
            raise Reject("ceil_mode: the last window starts in the padding")


@dataclass
class GlobalPool(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = spatial_input(b)
        bits = x.bits if self.op_type == "GlobalMaxPool" else None
        b.emit(self.op_type, [x.name], [(x.lo, x.hi, bits)])


@dataclass
class BatchNormalization(Spec):
    """Inference BatchNormalization; its scale, bias, mean and variance are weights."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats(lambda v: v.rank >= 2, shape=lambda: b.shape(min_rank=2))
        c = x.shape[1]
        scale, bias, mean = (b.weight((c,), -1.5, 1.5) for _ in range(3))
        var = b.weight((c,), 0.25, 2.0)
        eps = float(b.choice([1e-5, 1e-3]))
        bound = (x.mag + mean.mag) / math.sqrt(0.25) * scale.mag + bias.mag
        b.emit("BatchNormalization", [x.name, scale.name, bias.name, mean.name, var.name],
               [(-bound, bound, None)], epsilon=eps)  # fmt: skip


def normalized_bound(n: int, scale: Value, bias: Value | None) -> float:
    """|(x - mean) / std| <= sqrt(n - 1) over n elements; then scale and bias."""
    return math.sqrt(max(n - 1, 1)) * scale.mag + (bias.mag if bias is not None else 0.0)


@dataclass
class LayerNormalization(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = b.floats(lambda v: v.rank >= 1)
        axis = int(b.rng.integers(-x.rank, x.rank))
        shape = x.shape[axis:]
        scale = operand(b, shape, p_weight=0.9)
        bias = operand(b, shape, p_weight=0.9) if b.coin(0.7) else None
        bound = normalized_bound(math.prod(shape), scale, bias)
        operands = [x.name, scale.name] + ([bias.name] if bias else [])
        b.emit("LayerNormalization", operands, [(-bound, bound, None)], axis=axis,
               epsilon=float(b.choice([1e-5, 1e-3])))  # fmt: skip


@dataclass
class InstanceNormalization(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = spatial_input(b)
        c = x.shape[1]
        scale, bias = b.weight((c,)), b.weight((c,))
        bound = normalized_bound(math.prod(x.shape[2:]), scale, bias)
        b.emit("InstanceNormalization", [x.name, scale.name, bias.name], [(-bound, bound, None)],
               epsilon=float(b.choice([1e-5, 1e-3])))  # fmt: skip


@dataclass
class Softmax(Spec):
    """Softmax, LogSoftmax (continuous) and Hardmax (exact input: ties go to the first)."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats(exact=self.op_type == "Hardmax")
        axis = int(b.rng.integers(-x.rank, x.rank))
        if self.op_type == "LogSoftmax":
            lo, hi = x.lo - x.hi - math.log(x.shape[axis]) - 1e-3, 0.0
        else:
            lo, hi = 0.0, 1.0
        bits = 0 if self.op_type == "Hardmax" else None
        b.emit(self.op_type, [x.name], [(lo, hi, bits)], axis=axis)


def draw_axes(b: GraphBuilder, rank: int) -> list[int]:
    """A non-empty random subset of the axes, each written positive or negative."""
    count = int(b.rng.integers(1, rank + 1))
    axes = sorted(int(a) for a in b.rng.choice(rank, size=count, replace=False))
    return [a - rank if b.coin(0.3) else a for a in axes]


@dataclass
class Reduce(Spec):
    """The Reduce* ops over a random subset of axes (an input since opset 18), or all of
    them (no axes), keepdims or not."""

    def build(self, b: GraphBuilder) -> None:
        op = self.op_type
        positive = op == "ReduceLogSum"
        x = b.floats(lambda v: v.lo >= 0.1 if positive else True, lo=0.1 if positive else -2.0)
        axes = draw_axes(b, x.rank) if b.coin(0.8) else None
        n = math.prod(x.shape[a] for a in axes) if axes is not None else x.size
        lo, hi, bits = self._bound(x, n)
        operands = [x.name] + ([b.param(axes)] if axes is not None else [])
        b.emit(op, operands, [(lo, hi, bits)], keepdims=int(b.coin(0.5)))

    def _bound(self, x: Value, n: int) -> tuple[float, float, int | None]:
        op, m = self.op_type, x.mag
        if op in ("ReduceMax", "ReduceMin"):
            return x.lo, x.hi, x.bits
        if op == "ReduceMean":
            return x.lo, x.hi, None
        if op == "ReduceSum":
            return n * min(x.lo, 0.0), n * max(x.hi, 0.0), x.bits
        if op == "ReduceL1":
            return 0.0, n * m, x.bits
        if op == "ReduceSumSquare":
            return 0.0, n * m * m, None if x.bits is None else 2 * x.bits
        if op == "ReduceL2":
            return 0.0, math.sqrt(n) * m + 1e-3, None
        if op == "ReduceProd":
            if m**n > 1e4:
                raise Reject("product too large")
            return -(m**n), m**n, None if x.bits is None else n * x.bits
        if op == "ReduceLogSumExp":
            if x.hi > 50:
                raise Reject("exp overflow")
            return x.lo - 1e-3, x.hi + math.log(n) + 1e-3, None
        return math.log(n * x.lo) - 1e-3, math.log(n * x.hi) + 1e-3, None  # ReduceLogSum


@dataclass
class ArgReduce(Spec):
    """ArgMax/ArgMin of an exact input: ties (which quantized inputs make) go to the first or,
    with select_last_index, the last."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats(exact=True)
        axis = int(b.rng.integers(-x.rank, x.rank))
        b.emit(self.op_type, [x.name], [(0.0, float(x.shape[axis] - 1), 0)], axis=axis,
               keepdims=int(b.coin(0.5)), select_last_index=int(b.coin(0.3)))  # fmt: skip


@dataclass
class GroupNormalization(Spec):
    """GroupNormalization (opset 21: scale and bias per channel)."""

    def build(self, b: GraphBuilder) -> None:
        x = spatial_input(b)
        c = x.shape[1]
        groups = _group_count(b, c)
        scale, bias = b.weight((c,)), b.weight((c,))
        bound = normalized_bound(c // groups * math.prod(x.shape[2:]), scale, bias)
        b.emit("GroupNormalization", [x.name, scale.name, bias.name], [(-bound, bound, None)],
               like=x, num_groups=groups, epsilon=float(b.choice([1e-5, 1e-3])))  # fmt: skip


@dataclass
class LRN(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = b.floats(lambda v: v.rank == 4, shape=lambda: (1, *b.shape(rank=3)))
        b.emit("LRN", [x.name], [(min(x.lo, 0.0), max(x.hi, 0.0), None)],
               size=int(b.choice([1, 3, 5])), alpha=float(b.choice([1e-4, 1e-2])),
               beta=float(b.choice([0.75, 0.5])), bias=float(b.choice([1.0, 2.0])))  # fmt: skip


@dataclass
class LpNormalization(Spec):
    """x / ||x||_p along an axis, of positive values (no slice is all zeros)."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats(lambda v: v.lo >= 0.1, lo=0.1)
        axis = int(b.rng.integers(-x.rank, x.rank))
        b.emit("LpNormalization", [x.name], [(0.0, 1.0 + 1e-3, None)], axis=axis,
               p=int(b.choice([1, 2])))  # fmt: skip


@dataclass
class LpPool(Spec):
    """LpPool (p 1 or 2, pads, strides) and GlobalLpPool."""

    def build(self, b: GraphBuilder) -> None:
        x = spatial_input(b)
        p = int(b.choice([1, 2]))
        if self.op_type == "GlobalLpPool":
            attrs: dict[str, object] = {}
            n = math.prod(x.shape[2:])
        else:
            attrs = window_attrs(b, x.shape[2:], dilate=False, pad_below_kernel=True)
            n = math.prod(attrs["kernel_shape"])  # type: ignore[arg-type]
        bound = x.mag * (n if p == 1 else math.sqrt(n)) + 1e-3
        b.emit(self.op_type, [x.name], [(0.0, bound, None)], p=p, **attrs)


@dataclass
class TopK(Spec):
    """The k largest or smallest of an exact input along an axis, sorted: values and their
    indices (ties, which quantized inputs make, go to the lower index)."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats(exact=True)
        axis = int(b.rng.integers(-x.rank, x.rank))
        k = int(b.rng.integers(1, x.shape[axis] + 1))
        b.emit("TopK", [x.name, b.param([k])], [(x.lo, x.hi, x.bits), (0.0, x.shape[axis], 0)],
               axis=axis, largest=int(b.coin(0.7)))  # fmt: skip


#: Einsum equations: (equation, operand ranks); letters that leave are summed over.
_EINSUM = [("ij,jk->ik", (2, 2)), ("bij,bjk->bik", (3, 3)), ("ij->ji", (2,)), ("ij->i", (2,)),
           ("i,j->ij", (1, 1)), ("ij,ij->ij", (2, 2)), ("ii->i", (2,)), ("bij->bji", (3,)),
           ("ij,kj->ik", (2, 2)), ("ijk->", (3,))]  # fmt: skip


@dataclass
class Einsum(Spec):
    def build(self, b: GraphBuilder) -> None:
        equation, ranks = b.choice(_EINSUM)
        inputs, outputs = equation.split("->")
        letters = sorted(set(inputs.replace(",", "")))
        sizes = {c: int(b.rng.integers(1, 7)) for c in letters}
        terms = inputs.split(",")
        shapes = [tuple(sizes[c] for c in term) for term in terms]
        first = b.pick(lambda v: v.is_float and v.shape == shapes[0],
                       lambda: b.input(shapes[0]))  # fmt: skip
        operands = [first] + [operand(b, shape) for shape in shapes[1:]]
        summed = math.prod(sizes[c] for c in letters if c not in outputs)
        if len(operands) == 2 and "," in inputs and terms[0] != terms[1]:
            lo, hi, bits = dot_bound(operands[0], operands[1], summed)
        elif len(operands) == 2:
            lo, hi, bits = dot_bound(operands[0], operands[1], 1)
        else:
            x = operands[0]
            lo, hi, bits = summed * min(x.lo, 0.0), summed * max(x.hi, 0.0), x.bits
            if summed == 1:
                lo, hi = x.lo, x.hi
        b.emit("Einsum", [v.name for v in operands], [(lo, hi, bits)], equation=equation)


for _spec in [
    MatMul("MatMul"), Gemm("Gemm"), Conv("Conv"), ConvTranspose("ConvTranspose"),
    Pool("MaxPool"), Pool("AveragePool"), GlobalPool("GlobalAveragePool"),
    GlobalPool("GlobalMaxPool"), BatchNormalization("BatchNormalization"),
    LayerNormalization("LayerNormalization"), InstanceNormalization("InstanceNormalization"),
    Softmax("Softmax"), Softmax("LogSoftmax"), Softmax("Hardmax"),
    ArgReduce("ArgMax"), ArgReduce("ArgMin"), GroupNormalization("GroupNormalization"),
    LRN("LRN"), LpNormalization("LpNormalization"), LpPool("LpPool"),
    LpPool("GlobalLpPool"), TopK("TopK"), Einsum("Einsum"),
    *(Reduce(op) for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                            "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp",
                            "ReduceLogSum")),
]:  # fmt: skip
    register(_spec)
