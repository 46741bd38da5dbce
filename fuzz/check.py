"""The differential check of one case: ONNX Runtime's outputs against minitvm's, compiled at
opt levels 1 and 3 on 1 and 2 threads (and with Winograd forced). It runs inside sandbox.py's child process: a crash
in generated code kills that child, not the campaign.

Verdicts: "pass"; "discard" (ONNX Runtime itself rejects the graph: not minitvm's failure);
"ort-departs" (minitvm differs from ONNX Runtime but matches ONNX's reference implementation,
`onnx.reference`, at the same tolerance: the spec's side is minitvm's, not a failure);
"compile-error" (minitvm.compile raised, a MinitvmError refusal included: the generator draws
only what minitvm claims to support, so a refusal is a failure too); "run-error" (the
compiled model raised when run); "mismatch" (an output differs); "crash" and "hang" come from
the sandbox.

The tolerance, per output: int and bool outputs, and float outputs the generator knows to be
exact (graph.py: every value a multiple of 2^-bits that float32 holds, whatever the order of
summation), must be equal. Other float outputs pass where |got - want| <= atol + rtol |want|,
with ONNX's node-test rtol of 1e-3 and an atol of 1e-4 x max(1, max |want|): ONNX's 1e-7 is
for single ops on unit-scale values, these are chains of up to a few dozen ops whose values
reach 1e4, and a wrong index or constant still shows as an error of the values' own scale.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from minitvm.fuzz.graph import Case

RTOL = 1e-3
ATOL_SCALE = 1e-4


class Config(NamedTuple):
    """One compile of the case: `minitvm.compile`'s opt level, threads and Winograd mode."""

    opt_level: int
    threads: int
    winograd: str = "auto"

    @property
    def label(self) -> str:
        text = f"O{self.opt_level}/{self.threads}t"
        return text if self.winograd == "auto" else f"{text}/winograd={self.winograd}"


#: Each compile, in the order tried: -O3 and -O1 on 1 and 2 threads, and -O3 with Winograd
#: forced on every 3x3 conv it can take (the cost model picks it only for large convs, which
#: fuzzed graphs are not).
CONFIGS: tuple[Config, ...] = (Config(3, 1), Config(1, 1), Config(3, 2), Config(1, 2),
                               Config(3, 1, "always"))  # fmt: skip
FAILURES = ("crash", "hang", "compile-error", "run-error", "mismatch")


@dataclass(frozen=True)
class Verdict:
    """What one check found; for a failure, the compile it happened in and what failed."""

    kind: str
    config: Config | None = None
    detail: str = ""
    error_type: str = ""  # the exception's type, for compile and run errors
    output: str = ""  # the output that differs, for a mismatch
    max_error: float = 0.0

    @property
    def failed(self) -> bool:
        return self.kind in FAILURES

    @property
    def where(self) -> str:
        return self.config.label if self.config else "-"

    def same_failure(self, other: Verdict) -> bool:
        """The same class of failure (for errors, the same exception type): what reduction
        must keep."""
        return self.kind == other.kind and self.error_type == other.error_type

    def summary(self) -> str:
        text = f"{self.kind} {self.where}"
        if self.output:
            text += f" output={self.output} max_error={self.max_error:.3g}"
        if self.detail:
            text += f": {self.detail.splitlines()[0][:200]}"
        return text


def reference(case: Case) -> list[np.ndarray] | str:
    """ONNX Runtime's outputs, or why it rejects the case."""
    from minitvm.runtime.ort import ort_errors, ort_session

    try:
        return ort_session(case.model, 1)(case.feeds)
    except ort_errors() as e:
        return str(e).splitlines()[0]


def compare(got: np.ndarray, want: np.ndarray, exact: bool) -> tuple[bool, float]:
    """(within tolerance, max abs error) of one output."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return False, float("inf")
    if got.size == 0:
        return True, 0.0
    if want.dtype.kind in "biu" or exact:
        error = np.abs(got.astype(np.float64) - want.astype(np.float64))
        return bool(np.array_equal(got, want, equal_nan=True)), float(np.nanmax(error))
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    atol = ATOL_SCALE * max(1.0, float(np.nanmax(np.abs(want64), initial=0.0)))
    both_nan = np.isnan(got64) & np.isnan(want64)
    error = np.where(both_nan, 0.0, np.abs(got64 - want64))
    ok = bool(np.all(error <= atol + RTOL * np.abs(want64)))
    return ok, float(np.nanmax(error)) if not np.all(np.isnan(error)) else float("inf")


def check(case: Case, configs: Sequence[Config] = CONFIGS) -> Verdict:
    """Compile and run `case` in each config, stopping at the first failure."""
    import minitvm

    want = reference(case)
    if isinstance(want, str):
        return Verdict("discard", detail=want)
    names = [o.name for o in case.model.graph.output]
    for config in configs:
        try:
            exe = minitvm.compile(case.model, opt_level=config.opt_level,
                                  num_threads=config.threads, winograd=config.winograd)  # fmt: skip
        except Exception as e:  # noqa: BLE001  (any exception is this case's verdict)
            return Verdict("compile-error", config, _describe(e), type(e).__name__)
        try:
            got = exe.run(dict(case.feeds))
        except Exception as e:  # noqa: BLE001
            return Verdict("run-error", config, _describe(e), type(e).__name__)
        for name, g, w in zip(names, got, want, strict=True):
            ok, error = compare(np.asarray(g), np.asarray(w), name in case.exact_outputs)
            if not ok:
                detail = f"{g.dtype}{list(g.shape)} vs ORT's {w.dtype}{list(w.shape)}"
                if _matches_onnx_reference(case, got):
                    detail = "minitvm matches ONNX's reference implementation; " + detail
                    return Verdict("ort-departs", config, detail, output=name, max_error=error)
                return Verdict("mismatch", config, detail, output=name, max_error=error)
    return Verdict("pass")


def _matches_onnx_reference(case: Case, got: Sequence[np.ndarray]) -> bool:
    """Whether minitvm's outputs match ONNX's own reference implementation (onnx.reference)
    where they differ from ONNX Runtime's: then the spec is on minitvm's side (ONNX Runtime's
    Resize downsampling with align_corners is one such place)."""
    from onnx.reference import ReferenceEvaluator

    try:
        want = ReferenceEvaluator(case.model).run(None, dict(case.feeds))
    except Exception:  # noqa: BLE001  (no reference kernel, or it fails: no arbiter)
        return False
    return all(compare(np.asarray(g), np.asarray(w), o.name in case.exact_outputs)[0]
               for g, w, o in zip(got, want, case.model.graph.output, strict=True))  # fmt: skip


def _describe(error: Exception) -> str:
    """The exception, with where it was raised when it is not one of minitvm's own errors
    (then it is a bug, and where it happened matters)."""
    from minitvm.errors import MinitvmError

    text = f"{type(error).__name__}: {error}".replace("\n", " ")
    if not isinstance(error, MinitvmError):
        frame = traceback.extract_tb(error.__traceback__)[-1]
        text += f" (at {frame.filename.rsplit('/minitvm/', 1)[-1]}:{frame.lineno})"
    return text
