"""Op specs of the data-movement ops: Reshape, Flatten, Transpose, Squeeze, Unsqueeze,
Concat, Split, Slice, Gather, GatherElements, Pad, Resize, Expand, Tile, Identity, Dropout,
CumSum, DepthToSpace, SpaceToDepth and Trilu.

They move values without computing new ones, so they keep the input's bound and exactness
(except CumSum, which sums, and Resize's interpolating modes). Their shape-like operands
(Reshape's shape, Slice's starts, Pad's pads...) are initializers, as exporters write them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from minitvm.fuzz.graph import MAX_ELEMS, GraphBuilder, Reject, Value, join_bits
from minitvm.fuzz.spec import Spec, register


def any_value(b: GraphBuilder) -> Value:
    """A value of any dtype (data movement does not care), mostly a float."""
    return b.pick(lambda v: True, lambda: b.input(b.shape()))


def same(x: Value) -> tuple[float, float, int | None]:
    return x.lo, x.hi, x.bits


def factorize(b: GraphBuilder, total: int, rank: int) -> list[int]:
    """`rank` dims whose product is `total`, the factors dealt out at random."""
    dims = [1] * rank
    n, p = total, 2
    while n > 1:
        while n % p:
            p += 1
        dims[int(b.rng.integers(rank))] *= p
        n //= p
    return dims


@dataclass
class Reshape(Spec):
    """A new shape of as many elements, written with a -1 or a 0 (copy) now and then."""

    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        dims = factorize(b, x.size, int(b.rng.integers(1, 5)))
        written: list[int] = list(dims)
        for i, d in enumerate(dims):
            if i < x.rank and x.shape[i] == d and b.coin(0.3):
                written[i] = 0
        if b.coin(0.4):
            written[int(b.rng.integers(len(written)))] = -1
        if written.count(-1) and 0 in written and b.coin(0.5):
            written = list(dims)
        b.emit("Reshape", [x.name, b.param(written)], [same(x)])


@dataclass
class Flatten(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        b.emit("Flatten", [x.name], [same(x)], axis=int(b.rng.integers(-x.rank, x.rank + 1)))


@dataclass
class Transpose(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = b.pick(lambda v: v.rank >= 2, lambda: b.input(b.shape(min_rank=2)))
        perm = [int(p) for p in b.rng.permutation(x.rank)] if b.coin(0.85) else None
        b.emit("Transpose", [x.name], [same(x)], perm=perm)


@dataclass
class Squeeze(Spec):
    """Squeeze of some unit dims (axes as an input) or, without axes, of all of them."""

    def build(self, b: GraphBuilder) -> None:
        def make() -> Value:
            shape = list(b.shape(max_rank=3))
            shape.insert(int(b.rng.integers(len(shape) + 1)), 1)
            return b.input(shape)

        x = b.pick(lambda v: 1 in v.shape and v.rank >= 2, make)
        ones = [i for i, d in enumerate(x.shape) if d == 1]
        operands = [x.name]
        if b.coin(0.7):
            axes = [int(a) for a in b.rng.choice(ones, size=int(b.rng.integers(1, len(ones) + 1)),
                                                 replace=False)]  # fmt: skip
            operands.append(b.param([a - x.rank if b.coin(0.3) else a for a in axes]))
        b.emit("Squeeze", operands, [same(x)])


@dataclass
class Unsqueeze(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = b.pick(lambda v: v.rank <= 3, lambda: b.input(b.shape(max_rank=3)))
        out_rank = x.rank + int(b.rng.integers(1, 5 - x.rank))
        axes = [int(a) for a in b.rng.choice(out_rank, size=out_rank - x.rank, replace=False)]
        axes = [a - out_rank if b.coin(0.3) else a for a in axes]
        b.emit("Unsqueeze", [x.name, b.param(axes)], [same(x)])


@dataclass
class Concat(Spec):
    """Two to four values, equal but along the axis (existing ones where they fit)."""

    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        axis = int(b.rng.integers(-x.rank, x.rank))
        parts = [x]
        for _ in range(int(b.rng.integers(1, 4))):

            def fits(v: Value) -> bool:
                return v.dtype == x.dtype and v.rank == x.rank and all(
                    d == e for i, (d, e) in enumerate(zip(v.shape, x.shape, strict=True))
                    if i != axis % x.rank)  # fmt: skip

            def make() -> Value:
                shape = list(x.shape)
                shape[axis] = int(b.rng.integers(1, 5))
                if x.dtype == "float32":
                    return b.weight(shape) if b.coin(0.3) else b.input(shape)
                return b.input(shape, -3, 3, dtype=x.dtype)

            parts.append(b.pick(fits, make, p_fresh=0.4))
        lo, hi = min(p.lo for p in parts), max(p.hi for p in parts)
        bits = None if any(p.bits is None for p in parts) else max(p.bits or 0 for p in parts)
        b.emit("Concat", [p.name for p in parts], [(lo, hi, bits)], axis=axis)


@dataclass
class Split(Spec):
    """Two or three parts along an axis: sizes as an input, or num_outputs (uneven last)."""

    def build(self, b: GraphBuilder) -> None:
        x = b.pick(lambda v: max(v.shape) >= 2, lambda: b.input(b.shape()))
        splittable = [i for i, d in enumerate(x.shape) if d >= 2]
        if not splittable:  # a fresh input of unit dims
            raise Reject("nothing to split")
        axis = int(b.choice(splittable))
        dim = x.shape[axis]
        parts = int(b.rng.integers(2, min(dim, 3) + 1))
        written_axis = axis - x.rank if b.coin(0.3) else axis
        if b.coin(0.5):
            cuts = sorted(int(c) for c in b.rng.choice(np.arange(1, dim), parts - 1, replace=False))
            sizes = np.diff([0, *cuts, dim]).tolist()
            b.emit("Split", [x.name, b.param(sizes)], [same(x)] * parts, axis=written_axis)
        else:
            if math.ceil(dim / parts) * (parts - 1) >= dim:
                raise Reject("num_outputs leaves an empty part")
            b.emit("Split", [x.name], [same(x)] * parts, axis=written_axis, num_outputs=parts)


@dataclass
class Slice(Spec):
    """Starts and ends (negative, past the end), steps (negative too) on some axes."""

    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        axes = [int(a) for a in b.rng.choice(x.rank, int(b.rng.integers(1, x.rank + 1)),
                                             replace=False)]  # fmt: skip
        starts, ends, steps = [], [], []
        for a in axes:
            d = x.shape[a]
            step = int(b.choice([1, 1, 1, 2, -1, -2]))
            lo, hi = sorted(int(v) for v in b.rng.integers(0, d + 1, size=2))
            if lo == hi:
                hi = lo + 1 if lo < d else lo
                lo = hi - 1
            start, end = (lo, hi) if step > 0 else (hi - 1, lo - 1)
            if end < 0:  # a negative end would count from the back: "before the start"
                end = -d - 1 - int(b.rng.integers(0, 3))
            elif b.coin(0.2) and step > 0 and end == d:
                end = int(b.choice([2**31, 2**62]))
            if b.coin(0.3) and 0 <= start < d:
                start -= d
            starts.append(start), ends.append(end), steps.append(step)
        operands = [x.name, b.param(starts), b.param(ends)]
        written_axes = [a - x.rank if b.coin(0.3) else a for a in axes]
        if b.coin(0.8) or any(s != 1 for s in steps):
            operands.append(b.param(written_axes))
            if b.coin(0.8) or any(s != 1 for s in steps):
                operands.append(b.param(steps))
        elif axes != list(range(len(axes))):
            raise Reject("no axes: only a prefix of the axes is sliced")
        b.emit("Slice", operands, [same(x)])


def indices(b: GraphBuilder, shape: tuple[int, ...], dim: int) -> str:
    """An int64 initializer of indices in [-dim, dim) (negative ones count from the back)."""
    return b.param(b.rng.integers(-dim, dim, size=shape))


@dataclass
class Gather(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        axis = int(b.rng.integers(-x.rank, x.rank))
        shape = b.shape(rank=int(b.rng.integers(0, 3)), max_dim=4)
        b.emit("Gather", [x.name, indices(b, shape, x.shape[axis])], [same(x)], axis=axis)


@dataclass
class GatherElements(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        axis = int(b.rng.integers(-x.rank, x.rank))
        shape = tuple(int(b.rng.integers(1, d + 1)) if i != axis % x.rank
                      else int(b.rng.integers(1, 5)) for i, d in enumerate(x.shape))  # fmt: skip
        b.emit("GatherElements", [x.name, indices(b, shape, x.shape[axis])], [same(x)], axis=axis)


@dataclass
class Pad(Spec):
    """constant (with a value or 0), reflect and edge padding, negative pads (crops) in
    constant mode, on all axes or those of an axes input."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats()
        mode = str(b.choice(["constant", "constant", "reflect", "edge"]))
        axes = list(range(x.rank))
        if b.coin(0.3):
            axes = [int(a) for a in b.rng.choice(x.rank, int(b.rng.integers(1, x.rank + 1)),
                                                 replace=False)]  # fmt: skip
        pads = []
        for a in axes * 2:
            d = x.shape[a]
            top = d - 1 if mode == "reflect" else 3
            pad = int(b.rng.integers(0, top + 1)) if b.coin(0.6) else 0
            if mode == "constant" and b.coin(0.1) and d > 2:
                pad = -1
            pads.append(pad)
        operands = [x.name, b.param(pads)]
        lo, hi, bits = x.lo, x.hi, x.bits
        if mode == "constant":
            value = float(b.rng.integers(-16, 17) / 8) if b.coin(0.5) else 0.0
            operands.append(b.param(value, np.float32) if value or b.coin(0.5) else "")
            lo, hi = min(lo, value), max(hi, value)
        if len(axes) != x.rank or b.coin(0.2):
            operands += [""] * (3 - len(operands)) + [b.param(axes)]
        while operands[-1] == "":
            operands.pop()
        b.emit("Pad", operands, [(lo, hi, bits)], mode=mode)


@dataclass
class Resize(Spec):
    """Resize of the spatial dims of an (N, C, H[, W]) value by scales or to sizes: nearest
    (every nearest_mode), linear and cubic, with the usual coordinate transformations."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats(lambda v: 3 <= v.rank <= 4)
        # ONNX Runtime interpolates 2-D images only (with N and C unscaled)
        mode = str(b.choice(["nearest", "linear", "cubic"] if x.rank == 4 else ["nearest"]))
        spatial = x.shape[2:]
        if b.coin(0.5):
            scales = [1.0, 1.0] + [float(b.choice([0.5, 1.0, 1.5, 2.0, 3.0])) for _ in spatial]
            operands = [x.name, "", b.param(scales, np.float32)]
        else:
            sizes = [*x.shape[:2], *(int(b.rng.integers(1, 2 * d + 2)) for d in spatial)]
            operands = [x.name, "", "", b.param(sizes)]
        transform = str(b.choice(["half_pixel", "asymmetric", "align_corners",
                                  "pytorch_half_pixel"]))  # fmt: skip
        attrs: dict[str, object] = {"mode": mode, "coordinate_transformation_mode": transform}
        lo, hi, bits = x.lo, x.hi, x.bits
        if mode == "nearest":
            attrs["nearest_mode"] = b.choice(["round_prefer_floor", "round_prefer_ceil", "floor",
                                              "ceil"])  # fmt: skip
        else:
            bits = None
            if mode == "cubic":  # cubic overshoots: at most (1 + 2|A|) ... bounded by 2x here
                attrs["cubic_coeff_a"] = float(b.choice([-0.75, -0.5]))
                lo, hi = lo - (hi - lo), hi + (hi - lo)
        b.emit("Resize", operands, [(lo, hi, bits)], **attrs)


@dataclass
class Expand(Spec):
    """Broadcast to a shape: unit dims grown, leading dims added, some written as 1."""

    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        target = [int(b.rng.integers(2, 5)) if d == 1 and b.coin(0.6) else
                  (1 if b.coin(0.1) else d) for d in x.shape]  # fmt: skip
        if len(target) < 4 and b.coin(0.4):
            target.insert(0, int(b.rng.integers(1, 4)))
        if math.prod(max(t, d) for t, d in zip(target[::-1], x.shape[::-1])) > MAX_ELEMS:
            raise Reject("too large")
        b.emit("Expand", [x.name, b.param(target)], [same(x)])


@dataclass
class Tile(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        repeats = [int(b.rng.integers(1, 4)) if b.coin(0.4) else 1 for _ in x.shape]
        b.emit("Tile", [x.name, b.param(repeats)], [same(x)])


@dataclass
class Identity(Spec):
    """Identity, and Dropout (inference: the identity too)."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats() if self.op_type == "Dropout" else any_value(b)
        b.emit(self.op_type, [x.name], [same(x)])


@dataclass
class CumSum(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = b.floats()
        axis = int(b.rng.integers(-x.rank, x.rank))
        n = x.shape[axis]
        b.emit("CumSum", [x.name, b.param(axis)], [(n * min(x.lo, 0), n * max(x.hi, 0), x.bits)],
               exclusive=int(b.coin(0.3)), reverse=int(b.coin(0.3)))  # fmt: skip


@dataclass
class DepthToSpace(Spec):
    """DepthToSpace (DCR and CRD) and SpaceToDepth of a 4-D value."""

    def build(self, b: GraphBuilder) -> None:
        block = int(b.choice([2, 3]))
        if self.op_type == "DepthToSpace":
            x = b.pick(lambda v: v.rank == 4 and v.shape[1] % (block * block) == 0,
                       lambda: b.input((1, block * block * int(b.rng.integers(1, 3)),
                                        *b.shape(rank=2, max_dim=4))))  # fmt: skip
            attrs = {"mode": b.choice(["DCR", "CRD"])}
        else:
            x = b.pick(lambda v: v.rank == 4 and v.shape[2] % block == 0 and v.shape[3] % block == 0,
                       lambda: b.input((1, int(b.rng.integers(1, 4)), block * int(b.rng.integers(1, 4)),
                                        block * int(b.rng.integers(1, 4)))))  # fmt: skip
            attrs = {}
        b.emit(self.op_type, [x.name], [same(x)], blocksize=block, **attrs)


@dataclass
class Trilu(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = b.floats(lambda v: v.rank >= 2, shape=lambda: b.shape(min_rank=2))
        operands = [x.name]
        if b.coin(0.6):
            operands.append(b.param(int(b.rng.integers(-3, 4))))
        lo, hi = min(x.lo, 0.0), max(x.hi, 0.0)
        b.emit("Trilu", operands, [(lo, hi, x.bits)], upper=int(b.coin(0.5)))


@dataclass
class GatherND(Spec):
    """Index tuples of length q <= rank into the leading dims (batch_dims 0 or 1)."""

    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        batch = int(b.coin(0.3)) if x.rank >= 2 else 0
        q = int(b.rng.integers(1, x.rank - batch + 1))
        lead = (x.shape[0],) if batch else b.shape(rank=int(b.rng.integers(0, 3)), max_dim=4)
        dims = x.shape[batch:batch + q]
        index = np.stack([b.rng.integers(-d, d, size=lead) for d in dims], axis=-1)
        b.emit("GatherND", [x.name, b.param(index)], [same(x)], batch_dims=batch)


def distinct_indices(b: GraphBuilder, shape: tuple[int, ...], axis: int, dim: int) -> np.ndarray:
    """Indices along `axis` (size `shape[axis]` <= dim) that differ from each other in every
    line along it, so that a scatter writes no element twice (which ONNX leaves undefined)."""
    full = list(shape)
    full[axis] = dim
    order = np.argsort(b.rng.random(full), axis=axis)
    return np.take(order, np.arange(shape[axis]), axis=axis) - (dim if b.coin(0.3) else 0)


@dataclass
class ScatterElements(Spec):
    """Updates written at distinct indices along an axis (reduction none, or max/min/add)."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats()
        axis = int(b.rng.integers(x.rank))
        shape = tuple(int(b.rng.integers(1, d + 1)) for d in x.shape)
        updates = b.floats(lambda v: v.shape == shape, shape=lambda: shape)
        reduction = str(b.choice(["none", "none", "add", "max", "min"]))
        lo, hi = min(x.lo, updates.lo), max(x.hi, updates.hi)
        if reduction == "add":
            lo, hi = x.lo + min(updates.lo, 0.0), x.hi + max(updates.hi, 0.0)
        bits = join_bits(x.bits, updates.bits)
        written = axis - x.rank if b.coin(0.3) else axis
        index = distinct_indices(b, shape, axis, x.shape[axis])
        b.emit("ScatterElements", [x.name, b.param(index), updates.name], [(lo, hi, bits)],
               axis=written, reduction=reduction)  # fmt: skip


@dataclass
class ScatterND(Spec):
    """Slices of the leading q dims replaced at distinct index tuples."""

    def build(self, b: GraphBuilder) -> None:
        x = b.floats()
        q = int(b.rng.integers(1, x.rank + 1))
        cells = math.prod(x.shape[:q])
        count = int(b.rng.integers(1, min(cells, 6) + 1))
        flat = b.rng.choice(cells, size=count, replace=False)
        index = np.stack(np.unravel_index(flat, x.shape[:q]), axis=-1).astype(np.int64)
        shape = (count, *x.shape[q:])
        updates = b.floats(lambda v: v.shape == shape, shape=lambda: shape)
        b.emit("ScatterND", [x.name, b.param(index), updates.name],
               [(min(x.lo, updates.lo), max(x.hi, updates.hi), join_bits(x.bits, updates.bits))])


@dataclass
class ReverseSequence(Spec):
    def build(self, b: GraphBuilder) -> None:
        x = b.pick(lambda v: v.rank >= 2, lambda: b.input(b.shape(min_rank=2)))
        time_axis = int(b.coin(0.5))
        batch_axis = 1 - time_axis
        lengths = b.rng.integers(1, x.shape[time_axis] + 1, size=x.shape[batch_axis])
        b.emit("ReverseSequence", [x.name, b.param(lengths)], [same(x)], time_axis=time_axis,
               batch_axis=batch_axis)  # fmt: skip


@dataclass
class OneHot(Spec):
    """One-hot rows of constant indices (negative ones too), off/on values a weight."""

    def build(self, b: GraphBuilder) -> None:
        depth = int(b.rng.integers(1, 9))
        index = b.rng.integers(-depth, depth, size=b.shape(max_rank=3, max_dim=5))
        values = b.weight((2,), -2.0, 2.0)
        rank = index.ndim + 1
        b.emit("OneHot", [b.param(index), b.param(depth), values.name],
               [(values.lo, values.hi, values.bits)], axis=int(b.rng.integers(-rank, rank)))


@dataclass
class Shape(Spec):
    """The shape (or a slice of it) as an int64 value: folded at import time."""

    def build(self, b: GraphBuilder) -> None:
        x = any_value(b)
        attrs = {}
        if b.coin(0.4):
            attrs = {"start": int(b.rng.integers(-x.rank, x.rank)), "end": x.rank}
        b.emit("Shape", [x.name], [(0.0, float(max(x.shape)), 0)], **attrs)


for _spec in [
    Reshape("Reshape"), Flatten("Flatten"), Transpose("Transpose"), Squeeze("Squeeze"),
    Unsqueeze("Unsqueeze"), Concat("Concat"), Split("Split"), Slice("Slice"), Gather("Gather"),
    GatherElements("GatherElements"), Pad("Pad"), Resize("Resize"), Expand("Expand"),
    Tile("Tile"), Identity("Identity"), Identity("Dropout"), CumSum("CumSum"),
    DepthToSpace("DepthToSpace"), DepthToSpace("SpaceToDepth"), Trilu("Trilu"),
    GatherND("GatherND"), ScatterElements("ScatterElements"), ScatterND("ScatterND"),
    ReverseSequence("ReverseSequence"), OneHot("OneHot"), Shape("Shape"),
]:  # fmt: skip
    register(_spec)
