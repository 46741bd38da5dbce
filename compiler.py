"""The driver: ONNX model -> graph passes -> te -> loop -> LLVM -> Executable.

This is the one place that runs the frontend and then the declared pipeline (`pipeline.py`:
graph passes, lowerings, schedules, loop passes) and hands the result to LLVM; both
`minitvm.compile` and the CLIs call it. Each stage is timed and its IR size counted, since
"where does compile time go" is the first question about a compiler.
"""

from __future__ import annotations

import functools
import gc
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np
import onnx
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

from minitvm.deploy import NativeModel, export_library
from minitvm.dialects import te
from minitvm.dialects.graph.base import shape_of
from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx, load_model
from minitvm.frontend.onnx import absent_outputs, bound_sources, io_names, symbol_bounds
from minitvm.host import default_num_threads, host_cpu
from minitvm.ir import make_context
from minitvm.kernel_build import build_kernels, lower_main
from minitvm.lowering.jit import JitModule, compile_llvm, llvm_ir_text
from minitvm.lowering.loop_to_llvm import CompiledModuleInfo
from minitvm.lowering.loop_to_llvm.parallel import CHUNKS_PER_THREAD
from minitvm.passes.graph.winograd import choices_of
from minitvm.passes.te.apply_records import ApplyConfigsPass
from minitvm.pipeline import CONV_BLOCK, Stage, build_stages, te_stages
from minitvm.runtime import Executable, TensorSpec, random_arrays
from minitvm.runtime.abi import (
    CLOCK_FUNCTION,
    ENTRY,
    KERNEL_CALLS_GLOBAL,
    KERNEL_TICKS_GLOBAL,
    NUM_THREADS_GLOBAL,
    THREAD_POOL_GLOBAL,
)
from minitvm.runtime.kernel_clock import KernelClock
from minitvm.schedules.base import Config
from minitvm.schedules.kernel import kernels
from minitvm.symbolic import bare_symbol, capacity


@dataclass
class CompileReport:
    """Seconds per stage (wall) and op counts per IR level of one compile."""

    seconds: dict[str, float] = field(default_factory=dict)
    op_counts: dict[str, int] = field(default_factory=dict)
    #: CPU seconds per stage of the kernels compiled (in every process, so they may add up
    #: to more than the "compile kernels" row) and of @main.
    kernel_seconds: dict[str, float] = field(default_factory=dict)

    def add_kernel_seconds(self, seconds: Mapping[str, float]) -> None:
        for stage, value in seconds.items():
            self.kernel_seconds[stage] = self.kernel_seconds.get(stage, 0.0) + value

    def timed(self, stage: str, work: Callable[[], object]) -> object:
        start = time.perf_counter()
        result = work()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start
        return result

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())


def _io_specs(
    model: onnx.ModelProto, main: func.FuncOp, module: ModuleOp | None = None
) -> tuple[list[TensorSpec], list[TensorSpec]]:
    """The specs of @main's arguments and results, named after the ONNX values they are (a
    sequence input or output `x` is one tensor per item, `x[0]`, `x[1]`, ...)."""
    names = io_names(module) if module is not None else None
    if names is not None:
        input_names, output_names = names
    else:
        initializers = {init.name for init in model.graph.initializer}
        input_names = [v.name for v in model.graph.input if v.name not in initializers]
        output_names = [v.name for v in model.graph.output]
    specs = []
    for names, types in ((input_names, main.function_type.inputs), (output_names, main.function_type.outputs)):
        group = []
        for name, type_ in zip(names, types, strict=True):
            assert isinstance(type_, TensorType)
            group.append(TensorSpec(name, shape_of(type_), numpy_dtype_of(type_.element_type)))
        specs.append(group)
    return specs[0], specs[1]


def _main(module: ModuleOp) -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            return op
    raise MinitvmError("the module has no func.func @main")


def count_ops(module: ModuleOp) -> int:
    return sum(1 for _ in module.walk()) - 1


def compile(  # noqa: A001  (TVM's name for it)
    model: str | os.PathLike[str] | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    opt_level: int = 3,
    records: str | None = None,
    num_threads: int | None = None,
    *,
    schedules: Mapping[str, Config] | None = None,
    winograd: str = "auto",
    instrument: bool = False,
) -> Executable:
    """Compile an ONNX model (path or ModelProto) for this machine's CPU.

    Parallel loops run on `num_threads` threads (default: every core this process may use);
    `exe.num_threads` can change it between runs. `records` is the URL of tuning records
    (`minitvm tune`'s Optuna storage, e.g. `sqlite:///minitvm_records.db`): each kernel whose
    task was tuned for this CPU and thread count gets the best schedule found
    (te-apply-records). `schedules` maps tuning-task keys (`kernel_task_key`) to schedule
    configs, which replace those kernels' defaults (and win over records). The report's
    "tuned kernels" counts the kernels changed. `winograd` is graph-winograd's mode: "auto"
    (3x3 convs where the machine's cost model says Winograd is faster, with the tile it says
    is fastest), "always", "never", or "f2x2" / "f4x4" (always, with that tile).
    `instrument` times every kernel call as the model runs (`exe.kernel_clock`, what
    `minitvm profile` reads; two counter reads and two atomic adds a call).
    """
    report = CompileReport()
    ctx = make_context()
    with _gc_paused():
        module, inputs, outputs = _import(model, input_shapes, report)
        return compile_module(
            module, inputs, outputs, opt_level, num_threads, report, ctx,
            records=records, schedules=schedules, winograd=winograd, instrument=instrument,
        )  # fmt: skip


def llvm_ir(
    model: str | os.PathLike[str] | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    opt_level: int = 3,
    records: str | None = None,
    num_threads: int | None = None,
    winograd: str = "auto",
) -> str:
    """The LLVM IR that `compile` with these arguments hands to LLVM (before LLVM's own
    optimization): what `minitvm compile --emit-llvm` prints, and what `minitvm-opt -p
    "$(minitvm compile --print-pipeline)" -t llvm` rebuilds from the imported graph."""
    report = CompileReport()
    ctx = make_context()
    threads = default_num_threads() if num_threads is None else num_threads
    with _gc_paused():
        module, _, _ = _import(model, input_shapes, report)
        lower_to_te(
            module, opt_level, report, ctx, records=records, num_threads=threads,
            winograd=winograd,
        )  # fmt: skip
        lower_whole_module(module, opt_level, report, ctx)
        return llvm_ir_text(module)


def lower_whole_module(
    module: ModuleOp,
    opt_level: int = 3,
    report: CompileReport | None = None,
    ctx: Context | None = None,
) -> ModuleOp:
    """A te-level module -> the llvm dialect, in place, as one module (`pipeline.build_stages`):
    the code `build` compiles kernel by kernel, as `minitvm compile --emit-llvm` and
    `minitvm-opt` show it."""
    run_stages(build_stages(opt_level), module, report or CompileReport(), ctx or make_context())
    return module


def _import(
    model: str | os.PathLike[str] | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int]] | None,
    report: CompileReport,
) -> tuple[ModuleOp, list[TensorSpec], list[TensorSpec]]:
    """The model's graph IR (`minitvm import`) and its inputs' and outputs' specs."""
    proto: onnx.ModelProto = report.timed("load", lambda: load_model(model))  # type: ignore[assignment]
    module: ModuleOp = report.timed("import", lambda: from_onnx(proto, input_shapes))  # type: ignore[assignment]
    inputs, outputs = _io_specs(proto, _main(module), module)
    report.op_counts["graph"] = count_ops(module)
    return module, inputs, outputs


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cycle collector walks the whole IR over and over while a compile allocates
    millions of objects (half the lowering time); nothing we build is garbage until the end."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def compile_module(
    module: ModuleOp,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    opt_level: int = 3,
    num_threads: int | None = None,
    report: CompileReport | None = None,
    ctx: Context | None = None,
    *,
    records: str | None = None,
    schedules: Mapping[str, Config] | None = None,
    winograd: str = "auto",
    instrument: bool = False,
) -> Executable:
    """Compile a graph-dialect module (as `from_onnx` makes it) into an Executable."""
    report = report or CompileReport()
    ctx = ctx or make_context()
    threads = default_num_threads() if num_threads is None else num_threads
    lower_to_te(
        module, opt_level, report, ctx, records=records, schedules=schedules,
        num_threads=threads, winograd=winograd,
    )  # fmt: skip
    return build(module, inputs, outputs, opt_level, threads, report, ctx, instrument=instrument)


def run_stages(stages: Sequence[Stage], module: ModuleOp, report: CompileReport, ctx: Context) -> None:
    """Run the passes of `stages` on `module`, timing each stage and counting ops after it."""
    for stage in stages:
        for stage_pass in stage.passes:
            report.timed(stage.label, lambda p=stage_pass: p.apply(ctx, module))
        if stage.level is not None:
            report.op_counts[stage.level] = count_ops(module)


def lower_to_te(
    module: ModuleOp,
    opt_level: int = 3,
    report: CompileReport | None = None,
    ctx: Context | None = None,
    *,
    records: str | None = None,
    schedules: Mapping[str, Config] | None = None,
    num_threads: int | None = None,
    conv_block: int = CONV_BLOCK,
    winograd: str = "auto",
) -> None:
    """Graph passes, then one te kernel per graph op with its schedule: the level where
    schedules live (`pipeline.te_stages`).

    Kernels get their default schedules, then those whose task key (for `num_threads`
    threads on this CPU) the `records` or `schedules` hold a config for get that config;
    3x3 convs whose `choice_key` they hold take the algorithm held (graph-winograd, in mode
    "auto").
    `conv_block` is the channel block of the convolutions' NCHW[x]c layout (an experiment's
    knob: `bench/conv_layouts.py`); `winograd` graph-winograd's mode (see `compile`)."""
    report = report or CompileReport()
    ctx = ctx or make_context()
    threads = default_num_threads() if num_threads is None else num_threads
    chosen = choices_of(schedules or {})  # (the convs' algorithms, for graph-winograd)
    stages = te_stages(
        opt_level, records=records, num_threads=threads, conv_block=conv_block,
        winograd=winograd, choices=tuple(f"{key}:{a}" for key, a in chosen.items()),
    )  # fmt: skip
    if schedules:
        explicit = ApplyConfigsPass.of(schedules, threads)
        stages[-1] = replace(stages[-1], passes=(*stages[-1].passes, explicit))
    run_stages(stages, module, report, ctx)
    if records is not None or schedules:
        report.op_counts["tuned kernels"] = sum(te.TUNED_ATTR in k.attributes for k in kernels(module))


def build(
    module: ModuleOp,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    opt_level: int = 3,
    num_threads: int | None = None,
    report: CompileReport | None = None,
    ctx: Context | None = None,
    sizes_from_inputs: bool = True,
    instrument: bool = False,
) -> Executable:
    """A te-level module (kernels with their schedules, and @main) -> native Executable:
    each kernel lowered alone (`pipeline.kernel_stages`) to object code, or found in the
    kernel cache, on every core; @main lowered and JIT-compiled with the kernels linked in
    (kernel_build.py). The module's kernels are left as they are; @main is consumed.

    This is the public build API the tuner uses: change schedules at the te level, build.
    `sizes_from_inputs=False` lets symbols be no input's dimension (a kernel alone, whose
    `[batch*seq, 768]` names neither): each run gives them (`Executable.run(..., sizes=)`).
    `instrument`: time each kernel call (`Executable.kernel_clock`; see `compile`)."""
    report = report or CompileReport()
    ctx = ctx or make_context()
    threads = default_num_threads() if num_threads is None else num_threads
    if threads < 1:
        raise MinitvmError(f"num_threads must be >= 1, got {threads}")
    site_names = _kernel_calls(module) if instrument else []
    kernels = build_kernels(module, opt_level)
    report.seconds.update(kernels.seconds)
    report.add_kernel_seconds(kernels.kernel_seconds)
    start = time.perf_counter()
    sites: list[str] | None = [] if instrument else None
    main, main_seconds, main_counts = lower_main(
        kernels.main, kernels.kernels, opt_level, ctx, sites
    )
    report.seconds["main -> llvm"] = time.perf_counter() - start
    report.add_kernel_seconds(main_seconds)
    counts = kernels.op_counts()
    for level, count in main_counts.items():
        report.op_counts[level] = counts.get(level, 0) + count
    report.op_counts["kernels"] = len(kernels.kernels)
    report.op_counts["kernels from cache"] = kernels.hits
    info = CompiledModuleInfo.from_module(main)
    objects = [k.code for k in kernels.kernels.values()]
    parallel = any(k.parallel for k in kernels.kernels.values())
    jit: JitModule = report.timed(
        "LLVM + JIT",
        lambda: compile_llvm(main, opt_level, objects, parallel_runtime=parallel, clock_sites=sites),
    )  # type: ignore[assignment]
    cpu, features = host_cpu()
    symbols = _checked_symbols(info.symbols, inputs, info.set_sizes) if sizes_from_inputs else info.symbols
    bounds, sources = symbol_bounds(module), bound_sources(module)
    native = NativeModel(
        jit.bitcode, cpu, features, opt_level, parallel, info.arena_size, CHUNKS_PER_THREAD,
        tuple(objects), tuple(symbols), tuple((n, lo, hi) for n, (lo, hi) in bounds.items()),
        str(info.arena_size_expr), tuple(info.set_sizes.items()), tuple(info.checks.items()),
        tuple(info.groups.items()), tuple(sources.items()),
    )  # fmt: skip
    return Executable(
        jit.address(ENTRY),
        jit,
        inputs,
        outputs,
        info.constant_arrays(),
        info.arena_size,
        num_threads=threads,
        stats={
            "report": report,
            # Intermediates back to back (no reuse) vs the planned arena, in bytes.
            "arena_bytes_unplanned": sum(-(-size // 64) * 64 for _, size in info.allocs),
            "arena_bytes": info.arena_size,
            "parallel_loops": parallel,
            # Optional graph outputs that are empty as compiled (the ONNX backend's None).
            "absent_outputs": absent_outputs(module),
        },
        threads_address=jit.global_address(NUM_THREADS_GLOBAL) if parallel else None,
        pool_address=jit.global_address(THREAD_POOL_GLOBAL) if parallel else None,
        exporter=functools.partial(export_library, native),
        symbols=symbols,
        bounds=bounds,
        bound_sources=sources,
        arena_size_expr=info.arena_size_expr,
        set_sizes=info.set_sizes,
        checks=info.checks,
        groups=info.groups,
        kernel_clock=_kernel_clock(jit, site_names) if instrument else None,
    )


def _kernel_calls(module: ModuleOp) -> list[str]:
    """The kernel each kernel call of @main calls, in walk order (`lower_main`'s sites)."""
    names = {k.sym_name.data for k in kernels(module)}
    main = next(f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == ENTRY)
    calls = (op for op in main.walk() if isinstance(op, func.CallOp))
    return [c.callee.root_reference.data for c in calls if c.callee.root_reference.data in names]


def _kernel_clock(jit: JitModule, sites: Sequence[str]) -> KernelClock:
    return KernelClock(
        sites,
        jit.global_address(KERNEL_TICKS_GLOBAL),
        jit.global_address(KERNEL_CALLS_GLOBAL),
        jit.address(CLOCK_FUNCTION),
    )


def _checked_symbols(
    symbols: Sequence[str], inputs: Sequence[TensorSpec], set_sizes: Mapping[str, str]
) -> list[str]:
    """The entry's symbols, each of which some input's dimension must be (its value at run
    time) unless the entry sets it as it runs or it is the capacity of one (the runtime's);
    a MinitvmError naming those that none is."""
    named = {name for spec in inputs for d in spec.shape if (name := bare_symbol(d)) is not None}
    named |= {*set_sizes, *(capacity(s) for s in set_sizes)}
    missing = [s for s in symbols if s not in named]
    if missing:
        raise MinitvmError(
            f"the sizes {', '.join(missing)} are no input's dimension, so no run could tell "
            "them: give the inputs' shapes with input_shapes"
        )
    return list(symbols)


def random_inputs(exe: Executable, seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs of the right shapes and types (floats ~ N(0, 1)), for benchmarks and checks."""
    return random_arrays(exe.inputs, seed)
