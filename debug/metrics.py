"""How far one tensor minitvm computed is from ONNX Runtime's: the figures `minitvm debug`
prints per ONNX node output, and its verdict (numpy's allclose, as ONNX's test runner uses).

Max abs and rel error say how big the difference is; ULPs (float32 only) say how many
representable floats lie between the two values, so an error of 1 ULP is rounding and one of
10^6 is a wrong formula whatever the magnitude; cosine similarity says whether the tensor
still points the same way (a layout mix-up scrambles it, a scale error does not).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Metrics:
    """minitvm's tensor against the reference's: `within` is allclose at (rtol, atol);
    `ulps` is None for tensors that are not float32, `shape_ok` False when the shapes differ."""

    max_abs: float
    max_rel: float
    ulps: int | None
    cosine: float
    within: bool
    shape_ok: bool = True


def compare(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> Metrics:
    """The metrics of `got` against `want` (NaN where both are NaN counts as equal)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return Metrics(math.inf, math.inf, None, math.nan, False, shape_ok=False)
    if got.size == 0:
        return Metrics(0.0, 0.0, 0 if got.dtype == np.float32 else None, 1.0, True)
    g, w = _as_float64(got), _as_float64(want)
    error = np.abs(g - w)
    both_nan = np.isnan(g) & np.isnan(w)
    error[both_nan] = 0.0
    error[np.isnan(error)] = math.inf  # one NaN, or inf - inf of opposite signs
    error[(g == w)] = 0.0  # equal infinities
    bound = atol + rtol * np.abs(np.nan_to_num(w, posinf=0.0, neginf=0.0))
    significant = np.abs(w) > atol
    rel = float(np.max(error[significant] / np.abs(w[significant]), initial=0.0))
    ulps = _max_ulps(got, want) if got.dtype == np.float32 and want.dtype == np.float32 else None
    return Metrics(
        float(np.max(error)), rel, ulps, _cosine(g, w), bool(np.all(error <= bound))
    )


def _as_float64(array: np.ndarray) -> np.ndarray:
    return array.astype(np.float64).reshape(-1)


def _ordered(array: np.ndarray) -> np.ndarray:
    """float32 bit patterns as integers in the order of the floats they encode (-0 == +0)."""
    bits = array.reshape(-1).view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(2**31) - bits, bits)


def _max_ulps(got: np.ndarray, want: np.ndarray) -> int:
    distance = np.abs(_ordered(np.ascontiguousarray(got)) - _ordered(np.ascontiguousarray(want)))
    nan = np.isnan(got.reshape(-1)) | np.isnan(want.reshape(-1))
    both = np.isnan(got.reshape(-1)) & np.isnan(want.reshape(-1))
    distance[both] = 0
    distance[nan & ~both] = 2**32  # farther than any two floats
    return int(distance.max())


def _cosine(g: np.ndarray, w: np.ndarray) -> float:
    finite = np.isfinite(g) & np.isfinite(w)
    if not finite.all():
        return math.nan
    norms = float(np.linalg.norm(g) * np.linalg.norm(w))
    if norms == 0.0:
        return 1.0 if not g.any() and not w.any() else 0.0
    return float(np.dot(g, w) / norms)
