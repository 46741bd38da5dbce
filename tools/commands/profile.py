"""`minitvm profile`: where a compiled model's time goes, kernel by kernel.

    minitvm profile model.onnx [--num-threads N] [--records URL] [--repeat N] [--warmup W]
                    [--top K] [--input-shape ...] [-O N] [--plot roofline.png]

Each kernel is timed two ways:

- **as the model runs it** (the `ms` column): the model is compiled with a clock around each
  kernel call (`compile(instrument=True)`, lowering/kernel_clock.py) and run `repeat` times
  after `warmup`; a kernel's time is the median over the runs of its calls' time in a run.
  Its weights then come from memory or cache as the layers before it left them, its inputs
  from the kernel that wrote them, so the kernels' sum is the model's latency but for the
  calls between them (ResNet-18 on an AMD EPYC Zen 4, one thread: 17.16 ms summed, 17.30 the
  model). Kernels that run side by side on several threads (loop-sections) each count whole.
- **alone** (the `alone` column), as the tuner times a task: the model is lowered to te
  kernels as `minitvm.compile` lowers it (tuning records applied when given), each kernel
  built on its own (a module whose `@main` calls it on its own inputs, weights included,
  seeded random data) and timed: `warmup` calls, then `repeat` samples of back-to-back calls
  lasting at least MIN_SAMPLE_S each, the median sample per call (runtime/timing.py's
  `sampled`, the harness `minitvm bench` times with). Kernels with the same text (a ResNet's
  equal blocks) are built and timed once. Back to back, a kernel finds its weights in cache,
  and the two columns part where the model reads them from memory: ResNet-18's F(4x4, 3x3)
  GEMMs at 14 x 14 (9.4 MB of weights) took 0.69 ms alone and 0.91-0.95 in the model, until
  their next strip of weights was prefetched (schedules/gemm.py: `_default_prefetch`).

The whole model is also timed as `minitvm bench` times it (its latency, the last line).

Each kernel is placed on the roofline of this machine (`machine.py`, `minitvm info`): its
flops and bytes (`dialects/te_cost.py`: the float ops it runs, its arguments and results
counted once) give its GFLOP/s, its GB/s and its arithmetic intensity; `roof` is its time
against the least time the machine allows it, max(flops / FMA peak, bytes / bandwidth), the
peak and the bandwidth being one core's measured figures times the thread count (for the
bandwidth an upper bound: cores share memory). The bandwidth is the memory's: a kernel whose
data stays in a cache may pass it. `--plot` draws the roofline with every kernel on it.

This answers "which kernel should I look at" (the per-kernel figures behind the changes of
the NCHW16c epilogue and the transpose template came from this measurement); `minitvm tune
--report` answers "what did tuning gain".
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from minitvm.bench.options import add_timing_options, positive_int
from minitvm.errors import MinitvmError
from minitvm.runtime import TensorSpec, random_arrays
from minitvm.runtime.timing import sampled
from minitvm.symbolic import evaluate, size_hints
from minitvm.tools.inputs import compile_model, compile_shapes, load_onnx, run_feeds
from minitvm.tools.options import CommandError, add_compile_options, save_plot

if TYPE_CHECKING:  # onnx and the compiler are slow to import: the command loads them
    import onnx

    from minitvm.machine import Machine
    from minitvm.runtime import Executable

#: Each timed sample lasts at least this long (calls back to back; their mean is the sample).
MIN_SAMPLE_S = 0.005


@dataclass(frozen=True)
class KernelTime:
    """One kernel of the model: its name, the template that scheduled it ("-" for none), its
    first input and its output shapes, its median seconds per call timed alone, and, from a
    compile instrumented to time it as the model runs (`in_model`), the median seconds it
    takes per run of the model (every call of one run: `calls`)."""

    name: str
    template: str
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    seconds: float
    flops: int = 0
    bytes: int = 0
    in_model: float | None = None
    calls: int = 1

    @property
    def time(self) -> float:
        """What the kernel costs the model: its seconds in the model where they were
        measured, else timed alone (a call, times the calls of a run)."""
        return self.in_model if self.in_model is not None else self.seconds * self.calls


@dataclass(frozen=True)
class Profile:
    kernels: list[KernelTime]
    #: The whole compiled model's median seconds per run.
    model_seconds: float
    num_threads: int
    #: The machine whose roofline the kernels are placed on (None: no roofline columns).
    machine: Machine | None = None

    @property
    def kernel_seconds(self) -> float:
        """The kernels' seconds in a run of the model (`KernelTime.time`)."""
        return sum(k.time for k in self.kernels)

    @property
    def in_model(self) -> bool:
        """Whether the kernels were also timed as the model ran."""
        return any(k.in_model is not None for k in self.kernels)

    @property
    def peak_gflops(self) -> float:
        assert self.machine is not None and self.machine.measured is not None
        return self.machine.measured.fma_gflops * self.num_threads

    @property
    def peak_gbs(self) -> float:
        assert self.machine is not None and self.machine.measured is not None
        return self.machine.measured.bandwidth_gbs * self.num_threads

    def roof(self, kernel: KernelTime) -> float:
        """The least time the machine allows `kernel`, as a share of the time it took."""
        least = max(kernel.flops / (self.peak_gflops * 1e9), kernel.bytes / (self.peak_gbs * 1e9))
        return kernel.calls * least / kernel.time if kernel.time else 0.0


def median_seconds(call: Callable[[], object], repeat: int, warmup: int) -> float:
    """Median seconds per call over `repeat` samples (see the module docstring)."""
    return statistics.median(sampled({"": call}, warmup, repeat, min_sample_s=MIN_SAMPLE_S)[""])


def profile(
    model: str | onnx.ModelProto,
    exe: Executable,
    opt_level: int = 3,
    records: str | None = None,
    repeat: int = 20,
    warmup: int = 2,
    machine: Machine | None = None,
    winograd: str = "auto",
    input_shapes: Mapping[str, Sequence[object]] | None = None,
    sizes: Mapping[str, int] | None = None,
) -> Profile:
    """Time each kernel of `model` alone, and `exe`, the model compiled with the same
    `opt_level`, `records` and `winograd` mode (its input shapes and thread count are the
    profile's); with a measured `machine`, the profile places the kernels on its roofline:

        exe = minitvm.compile(model, num_threads=1)
        print(format_profile(profile(model, exe)))

    A model compiled with dimensions left to run time (`input_shapes` as it was compiled
    with) is profiled as compiled, its kernels run at `sizes` (the values of its symbols)."""
    from minitvm.compiler import build, load_model, lower_to_te
    from minitvm.dialects import te
    from minitvm.dialects.te_cost import kernel_cost
    from minitvm.frontend import from_onnx
    from minitvm.ir import print_module
    from minitvm.schedules.kernel import kernel_template, kernels
    from minitvm.tuner.tasks import standalone_module

    proto = load_model(model)
    num_threads = exe.num_threads
    values = _symbol_values(exe, sizes or {})
    feeds = random_arrays(_at(exe.inputs, values), seed=0)
    model_seconds = median_seconds(lambda: exe.run(feeds), repeat, warmup)
    in_model = _in_model(exe, feeds, repeat, warmup)

    if input_shapes is None and not exe.symbols:
        input_shapes = {s.name: s.shape for s in exe.inputs}
    module = from_onnx(proto, input_shapes)  # type: ignore[arg-type]
    lower_to_te(module, opt_level, records=records, num_threads=num_threads, winograd=winograd)
    timed: dict[str, float] = {}
    result = []
    for kernel in kernels(module):
        standalone, inputs, outputs = standalone_module(kernel)
        text = print_module(standalone).replace(f"@{kernel.sym_name.data}", "@kernel")
        if text not in timed:
            runnable = build(standalone, inputs, outputs, opt_level, num_threads,
                             sizes_from_inputs=not exe.symbols)  # (sizes given: `values`)
            arrays = random_arrays(_at(inputs, values), seed=0)
            given = {s: values[s] for s in runnable.symbols}
            timed[text] = median_seconds(
                lambda r=runnable, a=arrays, g=given: r.run(a, sizes=g or None), repeat, warmup
            )
        with size_hints() if te.is_symbolic_kernel(kernel) else contextlib.nullcontext():
            found = kernel_template(kernel)  # (as the compile chose it)
        cost = kernel_cost(kernel, values)
        result.append(
            KernelTime(
                kernel.sym_name.data,
                "-" if found is None else found[1].name,
                _at(inputs, values)[0].shape if inputs else (),
                _at(outputs, values)[0].shape if outputs else (),
                timed[text],
                cost.flops,
                cost.bytes,
                *in_model.get(kernel.sym_name.data, (None, 1)),
            )
        )
    return Profile(result, model_seconds, num_threads, machine)


def _in_model(
    exe: Executable, feeds: Mapping[str, np.ndarray], repeat: int, warmup: int
) -> dict[str, tuple[float, int]]:
    """Each kernel's median seconds in a run of `exe` and its calls in a run, by name, read
    from the clocks of an instrumented compile (none without: `compile(instrument=True)`):
    `warmup` runs, then `repeat` runs, each read on its own."""
    clock = exe.kernel_clock
    if clock is None:
        return {}
    for _ in range(warmup):
        exe.run(feeds)
    runs = []
    for _ in range(repeat):
        clock.reset()
        exe.run(feeds)
        runs.append(clock.read())
    seconds = np.median([s for s, _ in runs], axis=0)
    calls = runs[-1][1]
    result: dict[str, tuple[float, int]] = {}
    for site, name in enumerate(clock.sites):
        before, count = result.get(name, (0.0, 0))
        result[name] = (before + float(seconds[site]), count + int(calls[site]))
    return result


def _symbol_values(exe: Executable, sizes: Mapping[str, int]) -> dict[str, int]:
    """The values of `exe`'s symbols a profile runs at: `sizes`; those the code finds as it
    runs at their bounds (their buffers' sizes), capacities at the Executable's."""
    values = {**dict(sizes), **exe.capacities}
    missing = [s for s in exe.symbols if s not in values and s not in exe.set_sizes]
    if missing:
        raise MinitvmError(f"profile: no size given for {', '.join(missing)}")
    for name, bound in exe.set_sizes.items():
        values[name] = evaluate(bound, values)
    return values


def _at(specs: Sequence[TensorSpec], values: Mapping[str, int]) -> list[TensorSpec]:
    """`specs` with their symbolic dimensions at `values`."""
    return [TensorSpec(s.name, tuple(evaluate(d, values) for d in s.shape), s.dtype) for s in specs]


def _dims(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape)) or "scalar"


def format_profile(report: Profile, top: int | None = None) -> str:
    """The kernels slowest first (the first `top`), with their share of the kernels' sum and,
    with a machine, their place on its roofline; then the sum and the whole model's latency."""
    total = report.kernel_seconds
    rows = sorted(report.kernels, key=lambda k: k.time, reverse=True)
    shown = rows if top is None else rows[:top]
    roofline = report.machine is not None and report.machine.measured is not None
    header = ["ms", "alone"] if report.in_model else ["ms"]
    header += ["share"] + (["GFLOP/s", "GB/s", "flop/B", "roof"] if roofline else [])
    table = [(*header, "kernel", "template", "input -> output")]
    for k in shown:
        share = f"{100 * k.time / total:.1f}%" if total else "-"
        cells = [f"{1e3 * k.time:.3f}"]
        cells += [f"{1e3 * k.seconds * k.calls:.3f}"] if report.in_model else []
        cells.append(share)
        if roofline:
            intensity = f"{k.flops / k.bytes:.1f}" if k.bytes else "-"
            rate = k.calls / k.time if k.time else 0.0
            cells += [f"{k.flops * rate / 1e9:.1f}", f"{k.bytes * rate / 1e9:.1f}",
                      intensity, f"{100 * report.roof(k):.0f}%"]  # fmt: skip
        shapes = f"{_dims(k.input_shape)} -> {_dims(k.output_shape)}"
        table.append((*cells, k.name, k.template, shapes))
    numbers = len(header)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = [
        "  ".join(
            c.rjust(w) if i < numbers else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))
        ).rstrip()
        for row in table
    ]
    if len(shown) < len(rows):
        rest = sum(k.time for k in rows[len(shown) :])
        more = len(rows) - len(shown)
        lines.append(f"... {more} more kernel{'s' if more > 1 else ''}, {1e3 * rest:.3f} ms")
    threads = f"{report.num_threads} thread{'s' if report.num_threads > 1 else ''}"
    model = f"the whole model: {1e3 * report.model_seconds:.3f} ms ({threads})"
    if report.in_model:
        alone = sum(k.seconds * k.calls for k in report.kernels)
        lines.append(
            f"{len(rows)} kernels: {1e3 * total:.3f} ms as the model runs them, "
            f"{1e3 * alone:.3f} ms each timed alone; {model}"
        )
    else:
        lines.append(f"{len(rows)} kernels, each timed alone: {1e3 * total:.3f} ms in all; {model}")
    if roofline:
        flops = sum(k.flops * k.calls for k in report.kernels)
        lines.append(
            f"roofline ({threads}, minitvm info): {report.peak_gflops:.1f} GFLOP/s, "
            f"{report.peak_gbs:.1f} GB/s; the kernels: {flops / total / 1e9:.1f} GFLOP/s, "
            f"{100 * flops / total / 1e9 / report.peak_gflops:.0f}% of the peak"
        )
    return "\n".join(lines) + "\n"


def roofline_png(report: Profile, labels: int = 6) -> bytes:
    """Each kernel at (flops per byte, GFLOP/s), its area its share of the time, on the
    machine's roofline (log-log); the slowest `labels` kernels named. A PNG image."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = [k for k in report.kernels if k.flops and k.bytes and k.time]
    if not points:
        raise CommandError("no kernel of this model does floating-point work to plot")
    total = report.kernel_seconds
    figure, axis = plt.subplots(figsize=(8, 5.2), constrained_layout=True)
    intensities = [k.flops / k.bytes for k in points]
    ridge = report.peak_gflops / report.peak_gbs
    low, high = min(min(intensities), ridge) / 4, max(max(intensities), ridge) * 4
    xs = [low, ridge, high]
    label = f"roofline: {report.peak_gflops:.0f} GFLOP/s, {report.peak_gbs:.0f} GB/s"
    roof = [min(report.peak_gflops, x * report.peak_gbs) for x in xs]
    axis.plot(xs, roof, color="black", label=label)
    gflops = [k.flops * k.calls / k.time / 1e9 for k in points]
    sizes = [20 + 800 * k.time / total for k in points]
    axis.scatter(intensities, gflops, s=sizes, alpha=0.5)
    for k in sorted(points, key=lambda k: k.time, reverse=True)[:labels]:
        axis.annotate(k.name, (k.flops / k.bytes, k.flops * k.calls / k.time / 1e9), fontsize=7,
                      xytext=(4, 4), textcoords="offset points")  # fmt: skip
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("arithmetic intensity (flops per byte of arguments and results)")
    axis.set_ylabel("GFLOP/s")
    threads = f"{report.num_threads} thread{'s' if report.num_threads > 1 else ''}"
    axis.set_title(f"kernels on the roofline ({threads}; area: share of the time)", fontsize=10)
    axis.grid(alpha=0.3, which="both")
    axis.legend(fontsize=8, loc="lower right")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    return buffer.getvalue()


def run_profile(args: argparse.Namespace) -> None:
    from minitvm.machine import describe_machine

    model = load_onnx(args.model)
    shapes = compile_shapes(model, dict(args.input_shape))
    exe = compile_model(model, dict(args.input_shape), args, instrument=True)
    _, chosen = run_feeds(exe, {}, seed=0)
    if chosen:  # the dynamic compile's kernels are built and timed alone, at sizes
        sizes = ", ".join(f"{name} = {size}" for name, size in chosen.items())
        print(f"sizes {sizes} (dynamic: compiled for any size, profiled at the smallest; "
              "--input-shape sets them)")  # fmt: skip
    machine = describe_machine()
    report = profile(
        model, exe, args.opt_level, args.records, args.repeat, args.warmup, machine,
        args.winograd, input_shapes=shapes, sizes=chosen,
    )  # fmt: skip
    sys.stdout.write(format_profile(report, args.top))
    if args.plot:
        save_plot(roofline_png(report), args.plot)
        print(f"roofline plot: {args.plot}")


def add_profile_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "profile",
        help="time each kernel of a compiled model as the model runs it, and alone: where "
        "the time goes",
        description="Compile an ONNX model with a clock around each kernel call and time "
        "each kernel as the model runs it; build and time each kernel alone too (seeded "
        "random inputs, weights included; equal kernels once), and the whole model; print "
        "the kernels slowest first with their share and their place on this machine's "
        "roofline (GFLOP/s, GB/s, flops per byte, share of the least time possible), and the "
        "sums next to the model's latency.",
    )
    add_compile_options(p)
    add_timing_options(
        p, 20, "timed samples per kernel; the median counts", 2,
        "untimed calls of each kernel first",
    )  # fmt: skip
    p.add_argument("--top", type=positive_int, default=None, metavar="K",
                   help="show only the K slowest kernels (default: all)")  # fmt: skip
    p.add_argument("--plot", metavar="PNG",
                   help="draw the kernels on this machine's roofline into PNG")  # fmt: skip
    p.set_defaults(run=run_profile)
