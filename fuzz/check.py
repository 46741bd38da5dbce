"""The differential check of one case: ONNX Runtime's outputs against minitvm's, compiled at
opt levels 1 and 3 on 1 and 2 threads (and with Winograd forced). It runs inside sandbox.py's child process: a crash
in generated code kills that child, not the campaign.

Verdicts: "pass"; "discard" (ONNX Runtime itself rejects the graph: not minitvm's failure);
"ort-departs" (minitvm differs from ONNX Runtime but matches ONNX's reference implementation,
`onnx.reference`, at the same tolerance: the spec's side is minitvm's, not a failure; or it
matches that reference run on a float64 copy of the graph, where ONNX Runtime and the
float32 reference do not: they lose precision the computation need not lose, as the spec's
own GroupNormalization does with E[x^2] - E[x]^2 on a group of near-equal values);
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
import onnx

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
    """(within tolerance, max abs error) of one output. Equal values (the same infinity,
    NaN against NaN) match; the scale of the absolute tolerance is that of the finite
    values (an infinity would excuse every error)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return False, float("inf")
    if got.size == 0:
        return True, 0.0
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    same = (got64 == want64) | (np.isnan(got64) & np.isnan(want64))
    with np.errstate(invalid="ignore"):
        error = np.where(same, 0.0, np.abs(got64 - want64))
    error = np.where(np.isnan(error), np.inf, error)  # NaN against a number: as bad as it gets
    if want.dtype.kind in "biu" or exact:
        return bool(np.all(same)), float(error.max())
    finite = np.abs(want64[np.isfinite(want64)])
    atol = ATOL_SCALE * max(1.0, float(finite.max(initial=0.0)))
    with np.errstate(invalid="ignore"):
        ok = bool(np.all(same | (error <= atol + RTOL * np.abs(want64))))
    return ok, float(error.max())


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
                if _matches_float64_reference(case, got):
                    detail = ("minitvm matches a float64 evaluation (ONNX's reference on a "
                              "float64 copy of the graph), ONNX Runtime does not; " + detail)  # fmt: skip
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


def _matches_float64_reference(case: Case, got: Sequence[np.ndarray]) -> bool:
    """Whether minitvm's outputs match ONNX's reference implementation run on a float64
    copy of the case (`as_float64`), rounded back to float32: the closest to exact this
    checker can get."""
    from onnx.reference import ReferenceEvaluator

    model = as_float64(case.model)
    if model is None:
        return False
    feeds = {k: v.astype(np.float64) if v.dtype == np.float32 else v for k, v in case.feeds.items()}
    try:
        want = ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # noqa: BLE001  (an op without a float64 kernel: no arbiter)
        return False
    for g, w, o in zip(got, want, case.model.graph.output, strict=True):
        w = np.asarray(w)
        w = w.astype(np.float32) if w.dtype == np.float64 and g.dtype == np.float32 else w
        if not compare(np.asarray(g), w, o.name in case.exact_outputs)[0]:
            return False
    return True


def as_float64(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """A copy of `model` computing in float64 where it computes in float32: float32 inputs,
    initializers, Constant values and ConstantOfShape fills become float64, Cast to float32
    casts to float64, normalizations keep float64 statistics (stash_type), and the declared
    value types are dropped (the reference infers its own). None if the graph has subgraphs or float16 / bfloat16 values, which
    this does not rewrite."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    f32, f64 = onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE
    for node in graph.node:
        for attr in node.attribute:
            if attr.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
                return None
            if attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type == f32:
                array = onnx.numpy_helper.to_array(attr.t).astype(np.float64)
                attr.t.CopyFrom(onnx.numpy_helper.from_array(array, attr.t.name))
            elif node.op_type in ("Cast",) and attr.name == "to" and attr.i == f32:
                attr.i = f64
        if node.op_type in ("LayerNormalization", "GroupNormalization"):  # their statistics too
            for attr in [a for a in node.attribute if a.name == "stash_type"]:
                node.attribute.remove(attr)
            node.attribute.append(onnx.helper.make_attribute("stash_type", f64))
        if node.op_type == "Constant" and any(a.name == "value_float" for a in node.attribute):
            (value,) = [a for a in node.attribute if a.name == "value_float"]
            node.attribute.remove(value)
            node.attribute.append(onnx.helper.make_attribute(
                "value", onnx.numpy_helper.from_array(np.array(value.f, np.float64))))  # fmt: skip
    for init in graph.initializer:
        if init.data_type in (onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16):
            return None
        if init.data_type == f32:
            array = onnx.numpy_helper.to_array(init).astype(np.float64)
            init.CopyFrom(onnx.numpy_helper.from_array(array, init.name))
    for value in (*graph.input, *graph.output):
        tensor = value.type.tensor_type
        if tensor.elem_type in (onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16):
            return None
        if tensor.elem_type == f32:
            tensor.elem_type = f64
    del graph.value_info[:]
    return copy


def _describe(error: Exception) -> str:
    """The exception, with where it was raised when it is not one of minitvm's own errors
    (then it is a bug, and where it happened matters)."""
    from minitvm.errors import MinitvmError

    text = f"{type(error).__name__}: {error}".replace("\n", " ")
    if not isinstance(error, MinitvmError):
        frame = traceback.extract_tb(error.__traceback__)[-1]
        text += f" (at {frame.filename.rsplit('/minitvm/', 1)[-1]}:{frame.lineno})"
    return text
