"""`minitvm debug`: where a compiled model first departs from ONNX Runtime, and why.

    report = debug(model, feeds, DebugOptions(rtol=1e-3, atol=1e-5))

What is compared. ONNX Runtime runs the model with every node output made a graph output.
minitvm fuses kernels (a conv's bias, BN and ReLU run in its epilogue), folds BN into
weights and changes layouts (NCHW16c, packed GEMM panels, Winograd tiles), so most node
outputs never exist as a buffer of the compiled program. Rather than reading kernels'
scratch memory and guessing its layout, the debugger asks the compiler for them: it compiles
the model with every node output also marked as a graph output (`graphs.with_outputs`), and
graph outputs are in ONNX's layout and must be materialised. That is ONE compile, and every
row of the table is a value that compiled program computed.

The trade-off: marking a value as an output ends a fusion group there and keeps BN from
folding into a conv whose raw output is returned, so the instrumented program is not the
one the user runs: the same kernels and templates, layouts and weight packing, but fewer
epilogues fused. So the model is also compiled as it is, and its own outputs are compared;
if they diverge while every instrumented row matches (a bug that needs the fusion), the first
divergent node is found by compiling prefixes of the graph as they are (`graphs.prefix`:
the prefix's last node is an output, everything before it compiles and fuses as in the full
model), in graph order, and the note says so. A value fused away is thus always recomputed
by a program minitvm compiled from the model's own nodes, never reconstructed by hand.

Local vs carried error. For the first divergent node (and up to `max_local` later ones), the
node is compiled alone, its inputs being graph inputs fed ONNX Runtime's values of them
(weights and import-time constants stay initializers, as in the model): the error of that
run is made by the node itself (local); the error of its row in the full run is what it
made plus what reached it (carried). A later node whose local error is within tolerance only
carries an earlier error.

The kernel. The node alone is lowered to te kernels with the compile's options; each kernel's
name, schedule template, its anchor compute's schedule and any tuned config are reported.

The repro. Starting from the first divergent node alone, the subgraph grows backwards (the
producers of its run-time inputs, one layer at a time) until minitvm's output of that node
differs from ONNX Runtime's on the subgraph itself; its inputs are ONNX Runtime's values
from the full run (`Repro.feeds`). Failure to compile at any step is a `CompileFailure`
naming the node and pass (`failure.py`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import onnx
from tqdm import tqdm

from minitvm.debug import graphs
from minitvm.debug.failure import CompileFailure, diagnose
from minitvm.debug.metrics import Metrics, compare
from minitvm.debug.options import CompileOptions
from minitvm.errors import MinitvmError
from minitvm.runtime import random_arrays
from minitvm.runtime.ort import ort_errors, ort_session

if TYPE_CHECKING:
    from minitvm.runtime import Executable

#: ONNX's test runner's tolerances for float results (`Runner.assert_similar_outputs`).
RTOL, ATOL = 1e-3, 1e-5


@dataclass(frozen=True)
class DebugOptions(CompileOptions):
    """How to compile (as `minitvm.compile`), compare and report."""

    rtol: float = RTOL
    atol: float = ATOL
    seed: int = 0  # of the random inputs for those not given
    max_local: int = 16  # divergent nodes after the first whose local error is measured
    progress: bool = True


@dataclass(frozen=True)
class Row:
    """One output of one ONNX node: minitvm's value in the instrumented run against ORT's;
    `local`, where measured, the node alone on ORT's inputs."""

    output: graphs.NodeOutput
    shape: tuple[int, ...]
    metrics: Metrics
    local: Metrics | None = None
    #: The value came from compiling the graph's prefix up to this node, fused as in the
    #: model, not from the instrumented run (see the module docstring).
    by_prefix: bool = False

    @property
    def carried_only(self) -> bool:
        """Diverges, but not when run alone on ORT's inputs: the error came in."""
        return (
            not self.metrics.within and self.local is not None and self.local.within
            and not self.by_prefix
        )  # fmt: skip

    @property
    def fused_only(self) -> bool:
        """Diverges as the model fuses it, but not alone: the error is made in the fusion."""
        return (
            self.by_prefix and not self.metrics.within and self.local is not None
            and self.local.within
        )  # fmt: skip


@dataclass(frozen=True)
class KernelInfo:
    """A te kernel minitvm makes of a node: its function, its schedule template and that
    template's config (the tuned one where records gave one, else the default), and the
    schedule primitives of its anchor compute."""

    name: str
    template: str
    config: str
    schedule: str
    tuned: bool = False


@dataclass(frozen=True)
class Repro:
    """The smallest subgraph found that still diverges, with its inputs' values."""

    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    metrics: Metrics  # minitvm's output of the divergent node against ORT's, on it
    diverges: bool

    @property
    def node_count(self) -> int:
        return len(self.model.graph.node)


@dataclass
class DebugReport:
    rows: list[Row]
    #: The model as compiled without instrumentation: its outputs against ORT's.
    final: list[tuple[str, Metrics]]
    feeds: dict[str, np.ndarray]
    random_inputs: list[str]
    node_count: int
    first: Row | None = None
    kernels: list[KernelInfo] = field(default_factory=list)
    repro: Repro | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.first is None and all(m.within for _, m in self.final)


class _Session:
    """The compiles and runs of one debugging session, with their progress bar."""

    def __init__(self, model: onnx.ModelProto, options: DebugOptions):
        self.model = model
        self.options = options
        self.types = graphs.value_types(model, options.input_shapes)
        self.constants = graphs.constant_values(model)
        self.bar = tqdm(
            total=0, desc="minitvm debug", unit="step", file=sys.stderr,
            disable=not options.progress, leave=False,
        )  # fmt: skip

    def step(self, what: str) -> None:
        """Start one more step (the total grows as the session finds work)."""
        self.bar.total += 1
        self.bar.set_postfix_str(what, refresh=False)
        self.bar.update(0)

    def done(self) -> None:
        self.bar.update(1)

    def compile(self, model: onnx.ModelProto, what: str) -> Executable:
        """`minitvm.compile` with the session's options; a failure as a CompileFailure."""
        from minitvm.compiler import compile

        self.step(f"compile {what}")
        try:
            exe = compile(model, **self.options.kwargs(model))  # type: ignore[arg-type]
        except Exception as error:  # noqa: BLE001  (any failure is what the user asked about)
            raise diagnose(model, self.options, error, self.types, self._compiles) from None
        self.done()
        return exe

    def _compiles(self, model: onnx.ModelProto) -> bool:
        from minitvm.compiler import compile

        try:
            compile(model, **self.options.kwargs(model))  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001
            return False
        return True

    def ort(self, model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        from minitvm.host import default_num_threads

        self.step("onnxruntime")
        threads = self.options.num_threads or default_num_threads()
        try:
            outputs = ort_session(model, threads)(feeds)
        except ImportError:
            raise MinitvmError(
                "minitvm debug needs ONNX Runtime: pip install onnxruntime"
            ) from None
        except ort_errors() as e:
            raise MinitvmError(f"ONNX Runtime cannot run the model: {e}") from None
        self.done()
        return [np.asarray(o) for o in outputs]

    def compare(self, got: np.ndarray, want: np.ndarray) -> Metrics:
        return compare(got, want, self.options.rtol, self.options.atol)

    def alone(
        self, indices: Iterable[int], output: str, values: Mapping[str, np.ndarray]
    ) -> tuple[onnx.ModelProto, dict[str, np.ndarray], Metrics]:
        """The nodes at `indices` as a model of `output`, fed ORT's `values`; minitvm's
        output against ORT's, both run on that model."""
        sub, feeds = graphs.subgraph(
            self.model, set(indices), [output], values, self.constants, self.types
        )
        exe = self.compile(sub, f"subgraph of {output}")
        self.step(f"run subgraph of {output}")
        got = exe.run(dict(feeds))[0]
        self.done()
        (want,) = self.ort(sub, feeds)
        return sub, feeds, self.compare(got, want)


def debug(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray] | None = None,
    options: DebugOptions | None = None,
) -> DebugReport:
    """Compare every node output of `model` as minitvm computes it with ONNX Runtime's (see
    the module docstring). Inputs not in `feeds` get seeded random values, as `minitvm run`'s.
    Raises CompileFailure when the model does not compile."""
    options = options or DebugOptions()
    session = _Session(model, options)
    try:
        return _debug(session, dict(feeds or {}))
    finally:
        session.bar.close()


def _debug(session: _Session, feeds: dict[str, np.ndarray]) -> DebugReport:
    model, options = session.model, session.options
    exe = session.compile(model, "the model")
    random = [s.name for s in exe.inputs if s.name not in feeds]
    generated = random_arrays([s for s in exe.inputs if s.name in random], options.seed)
    feeds.update(generated)
    outputs = graphs.node_outputs(model)
    names = [o.name for o in outputs]
    exposed = graphs.with_outputs(model, names, session.types)
    exposed_names = [o.name for o in exposed.graph.output]

    reference = dict(zip(exposed_names, session.ort(exposed, feeds), strict=True))
    session.step("run the model")
    final_got = exe.run(feeds)
    session.done()
    final = [
        (spec.name, session.compare(got, reference[spec.name]))
        for spec, got in zip(exe.outputs, final_got, strict=True)
    ]
    instrumented = session.compile(exposed, "the model, every node output returned")
    session.step("run it")
    got = dict(zip(exposed_names, instrumented.run(feeds), strict=True))
    session.done()
    rows = [
        Row(o, tuple(np.shape(reference[o.name])), session.compare(got[o.name], reference[o.name]))
        for o in outputs
    ]
    report = DebugReport(rows, final, dict(feeds), random, len(model.graph.node))
    first = next((n for n, row in enumerate(rows) if not row.metrics.within), None)
    if first is None and not report.ok:
        first = _first_by_prefix(session, rows, reference, feeds)
        report.notes.append(
            "every node output matches when returned as a graph output, but the model's own "
            "outputs do not: the divergence needs the fusion that returning intermediates "
            "prevents; the first divergent node was found by compiling prefixes of the graph "
            "as they are (its row shows that prefix's output)"
        )
    if first is None:
        return report
    # The values cut subgraphs are fed: ORT's, and the model's inputs.
    _explain(session, report, first, {**feeds, **reference})
    return report


def _first_by_prefix(
    session: _Session,
    rows: list[Row],
    reference: Mapping[str, np.ndarray],
    feeds: Mapping[str, np.ndarray],
) -> int | None:
    """The first row whose value, computed by the model's prefix ending at its node (nothing
    else returned), diverges; that row gets the prefix's metrics."""
    for n, row in enumerate(rows):
        if row.output.name in session.constants:
            continue
        part = graphs.prefix(session.model, row.output.index + 1, session.types, [row.output.name])
        exe = session.compile(part, f"prefix to {row.output.label}")
        session.step(f"run prefix to {row.output.label}")
        value = exe.run({k: v for k, v in feeds.items() if k in exe.input_names})[0]
        session.done()
        metrics = session.compare(value, reference[row.output.name])
        rows[n] = Row(row.output, row.shape, metrics, by_prefix=True)
        if not metrics.within:
            return n
    return None


def _explain(
    session: _Session, report: DebugReport, first: int, reference: Mapping[str, np.ndarray]
) -> None:
    """Local errors, the kernel and the repro of the first divergent row `first`."""
    rows = report.rows
    row = rows[first]
    alone = session.alone([row.output.index], row.output.name, reference)
    sub, _, local = alone
    rows[first] = Row(row.output, row.shape, row.metrics, local, row.by_prefix)
    report.first = rows[first]
    report.kernels = _kernels(sub, session.options)
    later = [
        n for n in range(first + 1, len(rows))
        if not rows[n].metrics.within and rows[n].output.name not in session.constants
    ][: session.options.max_local]  # fmt: skip
    for n in later:
        r = rows[n]
        local = session.alone([r.output.index], r.output.name, reference)[2]
        rows[n] = Row(r.output, r.shape, r.metrics, local)
    report.repro = _repro(session, report.first, reference, alone)


def _repro(
    session: _Session,
    row: Row,
    reference: Mapping[str, np.ndarray],
    alone: tuple[onnx.ModelProto, dict[str, np.ndarray], Metrics],
) -> Repro:
    """Grow the subgraph backwards from `row`'s node until it diverges (module docstring);
    `alone` is the node alone, compiled and measured already."""
    indices = {row.output.index}
    sub, feeds, metrics = alone
    while metrics.within:
        grown = graphs.producers(session.model, indices, session.constants)
        if not grown:
            return Repro(sub, feeds, metrics, False)
        indices |= grown
        sub, feeds, metrics = session.alone(indices, row.output.name, reference)
    return Repro(sub, feeds, metrics, True)


def _kernels(model: onnx.ModelProto, options: DebugOptions) -> list[KernelInfo]:
    """The te kernels minitvm makes of `model` (a node alone) with the session's options."""
    from minitvm.compiler import lower_to_te
    from minitvm.dialects import te
    from minitvm.frontend import from_onnx
    from minitvm.schedules.kernel import kernel_template, kernels

    module = from_onnx(model)
    lower_to_te(
        module, options.opt_level, records=options.records, num_threads=options.num_threads,
        winograd=options.winograd,
    )  # fmt: skip
    result = []
    for kernel in kernels(module):
        found = kernel_template(kernel)
        template, config, schedule = "-", "-", "-"
        tuned = kernel.attributes.get(te.TUNED_ATTR)
        if found is not None:
            compute, chosen = found
            template = chosen.name
            default = chosen.default_config(compute)
            config = str(tuned) if tuned is not None else str(default or "{}")
            attr = compute.attributes.get(te.SCHEDULE_ATTR)
            schedule = str(attr) if attr is not None else "none (the plain loop nest)"
        name = kernel.sym_name.data
        result.append(KernelInfo(name, template, config, schedule, tuned is not None))
    return result


def format_report(report: DebugReport, options: DebugOptions) -> str:
    """The table (one row per node output, graph order) and the verdict, as printed."""
    header = ("#", "node", "op", "output", "shape", "max abs", "max rel", "ulps", "cosine", "")
    table = [header]
    for row in report.rows:
        m = row.metrics
        verdict = "ok" if m.within else ("DIVERGES" if row is report.first else "diverges")
        if row.local is not None and not m.within:
            cause = "fused" if row.fused_only else "carried" if row.carried_only else "local"
            verdict += f" ({cause})"
        table.append((
            str(row.output.index), row.output.label, row.output.node.op_type, row.output.name,
            "x".join(map(str, row.shape)) or "scalar", _g(m.max_abs), _g(m.max_rel),
            "-" if m.ulps is None else str(m.ulps), _cosine(m.cosine), verdict,
        ))  # fmt: skip
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
    tolerance = f"rtol {options.rtol:g}, atol {options.atol:g}"
    for name, m in report.final:
        state = "matches" if m.within else "DIFFERS"
        lines.append(
            f"model output {name} (compiled as is): max abs {_g(m.max_abs)}, max rel "
            f"{_g(m.max_rel)}: {state}"
        )
    lines.extend(f"note: {note}" for note in report.notes)
    first = report.first
    if first is None:
        if report.ok:
            lines.append(f"all {len(report.rows)} node outputs match ONNX Runtime ({tolerance})")
        return "\n".join(lines)
    o = first.output
    lines.append(
        f"first divergent node: '{o.label}' ({o.node.op_type}), output {o.name} ({tolerance})"
    )
    if first.local is not None:
        lines.append(
            f"  local error (the node alone on ONNX Runtime's inputs): max abs "
            f"{_g(first.local.max_abs)}, max rel {_g(first.local.max_rel)}"
            + ("" if first.local.within else " -- the node itself is wrong")
            + (" -- wrong only as fused with the nodes before it" if first.fused_only else "")
        )
    lines.append(
        f"  carried + local (in the full run): max abs {_g(first.metrics.max_abs)}, max rel "
        f"{_g(first.metrics.max_rel)}"
    )
    for k in report.kernels:
        config = f"{'tuned' if k.tuned else 'default'} config {k.config}"
        lines.append(f"  kernel @{k.name}: template {k.template}, {config}, schedule {k.schedule}")
    return "\n".join(lines)


def _g(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:.3g}"


def _cosine(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.6f}"


