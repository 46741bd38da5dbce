"""The driver: ONNX model -> graph passes -> te -> loop -> LLVM -> Executable.

This is the one place that strings the frontend, the passes and the lowerings together; both
`minitvm.compile` and the CLIs call it. Each stage is timed and its IR size counted, since
"where does compile time go" is the first question about a compiler.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass

from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx
from minitvm.ir import make_context
from minitvm.lowering.graph_to_te import ConvertGraphToTePass
from minitvm.lowering.graph_to_te.kernel_schedule import apply_kernel_configs
from minitvm.lowering.graph_to_te.schedule_templates import Config
from minitvm.lowering.jit import JitModule, compile_llvm, target_key
from minitvm.lowering.loop_to_llvm import lower_to_llvm
from minitvm.lowering.te_to_loop import ConvertTeToLoopPass
from minitvm.passes.graph.canonicalize import CanonicalizePass
from minitvm.passes.graph.conv_layout import ConvLayoutPass
from minitvm.passes.graph.dce import DeadCodeEliminationPass
from minitvm.passes.graph.fold_batchnorm import FoldBatchNormPass
from minitvm.passes.graph.fold_weight_layout import FoldWeightLayoutPass
from minitvm.passes.graph.fuse import FusePass
from minitvm.passes.graph.pack_weights import PackWeightsPass
from minitvm.passes.loop.plan_memory import PlanMemoryPass
from minitvm.passes.loop.promote_accumulators import PromoteAccumulatorsPass
from minitvm.passes.loop.unroll import UnrollPass
from minitvm.passes.loop.vectorize import VectorizePass
from minitvm.passes.loop.vectorize_transpose import VectorizeTransposePass
from minitvm.runtime import Executable, TensorSpec, random_arrays
from minitvm.runtime.abi import NUM_THREADS_GLOBAL, THREAD_POOL_GLOBAL


@dataclass
class CompileReport:
    """Seconds per stage and op counts per IR level of one compile."""

    seconds: dict[str, float] = field(default_factory=dict)
    op_counts: dict[str, int] = field(default_factory=dict)

    def timed(self, stage: str, work: Callable[[], object]) -> object:
        start = time.perf_counter()
        result = work()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start
        return result

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())


def load_model(model: str | os.PathLike[str] | onnx.ModelProto) -> onnx.ModelProto:
    if isinstance(model, onnx.ModelProto):
        return model
    path = Path(model)
    if not path.is_file():
        raise MinitvmError(f"{path}: no such file")
    try:
        return onnx.load(str(path))
    except Exception as error:  # onnx raises DecodeError, ValueError, ... for a bad file
        raise MinitvmError(f"{path}: not a readable ONNX model ({error})") from None


def _io_specs(model: onnx.ModelProto, main: func.FuncOp) -> tuple[list[TensorSpec], list[TensorSpec]]:
    initializers = {init.name for init in model.graph.initializer}
    input_names = [v.name for v in model.graph.input if v.name not in initializers]
    output_names = [v.name for v in model.graph.output]
    specs = []
    for names, types in ((input_names, main.function_type.inputs), (output_names, main.function_type.outputs)):
        group = []
        for name, type_ in zip(names, types, strict=True):
            assert isinstance(type_, TensorType)
            group.append(TensorSpec(name, tuple(type_.get_shape()), numpy_dtype_of(type_.element_type)))
        specs.append(group)
    return specs[0], specs[1]


def _main(module: ModuleOp) -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            return op
    raise MinitvmError("the module has no func.func @main")


def count_ops(module: ModuleOp) -> int:
    return sum(1 for _ in module.walk()) - 1


#: The channel block of the NCHW[x]c layout convolutions run in: one 16-float vector. Blocks
#: of 32 and 64 run the ResNet block's conv no faster (`bench/conv_layouts.py`).
CONV_BLOCK = 16


def graph_pipeline(opt_level: int, conv_block: int = CONV_BLOCK) -> list[ModulePass]:
    """Graph-level passes before lowering (the frontend has already folded constants).

    Level 1 cleans up; level 2 and up also fold batch norms into weights, run convolutions in
    the NCHW{conv_block}c layout and fuse ops into kernels. Fusion comes after
    canonicalization (which removes the reshape pairs and `x * 1` that would otherwise end up
    inside groups) and before DCE (which sweeps the constants that BN folding replaced)."""
    if opt_level < 1:
        return []
    if opt_level < 2:
        return [CanonicalizePass(), DeadCodeEliminationPass()]
    return [
        CanonicalizePass(),
        FoldWeightLayoutPass(),
        FoldBatchNormPass(),
        ConvLayoutPass(block=conv_block),
        PackWeightsPass(),
        FusePass(),
        DeadCodeEliminationPass(),
    ]


def loop_pipeline(opt_level: int) -> list[ModulePass]:
    """Loop-level passes between convert-te-to-loop and convert-loop-to-llvm."""
    if opt_level < 1:
        return []
    return [PromoteAccumulatorsPass(), PlanMemoryPass()]


def default_num_threads() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def compile(  # noqa: A001  (TVM's name for it)
    model: str | os.PathLike[str] | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    opt_level: int = 3,
    records: str | None = None,
    num_threads: int | None = None,
    *,
    schedules: Mapping[str, Config] | None = None,
) -> Executable:
    """Compile an ONNX model (path or ModelProto) for this machine's CPU.

    Parallel loops run on `num_threads` threads (default: every core this process may use);
    `exe.num_threads` can change it between runs. `records` is the URL of tuning records
    (`minitvm tune`'s Optuna storage, e.g. `sqlite:///minitvm_records.db`): each kernel whose
    task was tuned for this CPU and thread count gets the best schedule found. `schedules` maps
    tuning-task keys (`kernel_task_key`) to schedule configs, which replace those kernels'
    defaults (and win over records). The report's "tuned kernels" counts the kernels changed.
    """
    report = CompileReport()
    if records is not None:
        from minitvm.records import merged_schedules  # Optuna is slow to import

        merged = report.timed("load records", lambda: merged_schedules(records, schedules))
        schedules = merged  # type: ignore[assignment]
    ctx = make_context()
    with _gc_paused():
        return _compile(model, input_shapes, opt_level, num_threads, report, ctx, schedules)


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


def _compile(
    model, input_shapes, opt_level, num_threads, report: CompileReport, ctx: Context,
    schedules: Mapping[str, Config] | None = None,
) -> Executable:
    proto: onnx.ModelProto = report.timed("load", lambda: load_model(model))  # type: ignore[assignment]
    module: ModuleOp = report.timed("import", lambda: from_onnx(proto, input_shapes))  # type: ignore[assignment]
    inputs, outputs = _io_specs(proto, _main(module))
    report.op_counts["graph"] = count_ops(module)
    return compile_module(module, inputs, outputs, opt_level, num_threads, report, ctx, schedules=schedules)


def compile_module(
    module: ModuleOp,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    opt_level: int = 3,
    num_threads: int | None = None,
    report: CompileReport | None = None,
    ctx: Context | None = None,
    *,
    schedules: Mapping[str, Config] | None = None,
) -> Executable:
    """Compile a graph-dialect module (as `from_onnx` makes it) into an Executable."""
    report = report or CompileReport()
    ctx = ctx or make_context()
    threads = default_num_threads() if num_threads is None else num_threads
    lower_to_te(module, opt_level, report, ctx, schedules=schedules, num_threads=threads)
    return build(module, inputs, outputs, opt_level, threads, report, ctx)


def lower_to_te(
    module: ModuleOp,
    opt_level: int = 3,
    report: CompileReport | None = None,
    ctx: Context | None = None,
    *,
    schedules: Mapping[str, Config] | None = None,
    num_threads: int | None = None,
    conv_block: int = CONV_BLOCK,
) -> None:
    """Graph passes, then one te kernel per graph op: the level where schedules live.

    Kernels get their default schedules, except those whose task key (for `num_threads`
    threads on this CPU) `schedules` holds a config for. `conv_block` is the channel block
    of the convolutions' NCHW[x]c layout (an experiment's knob: `bench/conv_layouts.py`)."""
    report = report or CompileReport()
    ctx = ctx or make_context()
    for graph_pass in graph_pipeline(opt_level, conv_block):
        report.timed("graph passes", lambda p=graph_pass: p.apply(ctx, module))
    report.op_counts["graph (optimized)"] = count_ops(module)
    report.timed("graph -> te", lambda: ConvertGraphToTePass().apply(ctx, module))
    if schedules:
        target = target_key(default_num_threads() if num_threads is None else num_threads)
        tuned = report.timed("apply schedules", lambda: apply_kernel_configs(module, schedules.get, target))
        report.op_counts["tuned kernels"] = tuned  # type: ignore[assignment]
    report.op_counts["te"] = count_ops(module)


def build(
    module: ModuleOp,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    opt_level: int = 3,
    num_threads: int | None = None,
    report: CompileReport | None = None,
    ctx: Context | None = None,
) -> Executable:
    """A te-level module (kernels with their schedules, and @main) -> native Executable.

    This is the public build API the tuner uses: change schedules at the te level, build."""
    report = report or CompileReport()
    ctx = ctx or make_context()
    threads = default_num_threads() if num_threads is None else num_threads
    if threads < 1:
        raise MinitvmError(f"num_threads must be >= 1, got {threads}")
    report.timed("te -> loop", lambda: ConvertTeToLoopPass().apply(ctx, module))
    # The schedule's unroll and vectorize hints become code (before any other loop pass).
    for hint_pass in (VectorizeTransposePass(), UnrollPass(), VectorizePass()):
        report.timed("loop unroll/vectorize", lambda p=hint_pass: p.apply(ctx, module))
    for loop_pass in loop_pipeline(opt_level):
        report.timed("loop passes", lambda p=loop_pass: p.apply(ctx, module))
    report.op_counts["loop"] = count_ops(module)
    _, info = report.timed("loop -> llvm", lambda: lower_to_llvm(module))  # type: ignore[misc]
    report.op_counts["llvm"] = count_ops(module)
    jit: JitModule = report.timed("LLVM + JIT", lambda: compile_llvm(module, opt_level))  # type: ignore[assignment]
    parallel = jit.parallel_loops
    return Executable(
        jit.address("main"),
        jit,
        inputs,
        outputs,
        info.constant_arrays(),
        info.arena_size,
        num_threads=threads,
        stats={
            "report": report,
            # Intermediates back to back (no reuse) vs the planned arena, in bytes.
            "arena_bytes_unplanned": sum(-(-max(size, 1) // 64) * 64 for _, size in info.allocs),
            "arena_bytes": info.arena_size,
            "parallel_loops": parallel,
        },
        threads_address=jit.global_address(NUM_THREADS_GLOBAL) if parallel else None,
        pool_address=jit.global_address(THREAD_POOL_GLOBAL) if parallel else None,
    )


def random_inputs(exe: Executable, seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs of the right shapes and types (floats ~ N(0, 1)), for benchmarks and checks."""
    return random_arrays(exe.inputs, seed)
