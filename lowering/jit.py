"""The llvmlite harness: llvm-dialect module -> LLVM IR -> O3 for this CPU -> MCJIT.

    module, info = lower_to_llvm(loop_module)
    jit = compile_llvm(module)
    kernel = jit.function("relu", None, [ctypes.c_void_p] * 2)
    kernel(x.ctypes.data, y.ctypes.data)

The target machine is the host's (`minitvm.host.host_cpu`: its feature list always, its CPU
name corrected where a hypervisor masks it). Optimization is LLVM's new pass manager at `opt_level` with loop and SLP vectorization on.
A `JitModule` owns its execution engine: the code lives as long as the JitModule.

Modules with parallel loops call `__minitvm_parallel_for`; `compile_llvm` links in its
implementation (loop_to_llvm/parallel.py), which hands the loop to the runtime's thread pool.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import llvmlite.binding as llvm
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from minitvm.host import hide_definitions, object_machine, target_machine
from minitvm.lowering.kernel_clock import link_kernel_clock
from minitvm.lowering.loop_to_llvm.llvm_ext import convert_module
from minitvm.lowering.loop_to_llvm.parallel import CHUNK_SUFFIX, is_outlined, support_ir
from minitvm.runtime.abi import PARALLEL_FOR, THREAD_COUNT


def llvm_ir_text(module: ModuleOp, tm: llvm.TargetMachine | None = None) -> str:
    """The (unoptimized) LLVM IR of an llvm-dialect module, for the host target."""
    tm = tm or target_machine()
    return str(convert_module(module, triple=tm.triple, data_layout=str(tm.target_data)))


@dataclass
class CompileTimes:
    """Seconds spent in each step of `compile_llvm`."""

    translate: float = 0.0  # xDSL llvm dialect -> llvmlite IR (+ printing it)
    parse: float = 0.0  # LLVM parses and verifies the text
    optimize: float = 0.0  # the O<n> pipeline
    codegen: float = 0.0  # MCJIT: machine code

    @property
    def total(self) -> float:
        return self.translate + self.parse + self.optimize + self.codegen


@dataclass
class JitModule:
    """Machine code for a module, kept alive by this object's execution engine."""

    engine: llvm.ExecutionEngine
    module: llvm.ModuleRef
    times: CompileTimes = field(default_factory=CompileTimes)
    #: Whether the module has parallel loops (and so the globals of `support_ir`).
    parallel_loops: bool = False
    #: The optimized module as bitcode, taken before machine code generation changes it:
    #: what `minitvm export` turns into object code (0.24 MB and 11 ms for ResNet-50).
    bitcode: bytes = b""

    def address(self, name: str) -> int:
        address = self.engine.get_function_address(name)
        if not address:
            raise KeyError(f"no function '{name}' in the compiled module")
        return address

    def global_address(self, name: str) -> int:
        address = self.engine.get_global_value_address(name)
        if not address:
            raise KeyError(f"no global '{name}' in the compiled module")
        return address

    def function(self, name: str, restype: Any, argtypes: list[Any]) -> Any:
        """A ctypes callable for `name`; it keeps this JitModule (and so the code) alive."""
        fn = ctypes.CFUNCTYPE(restype, *argtypes)(self.address(name))
        fn._jit_module = self  # type: ignore[attr-defined]
        return fn

    def optimized_ir(self) -> str:
        return str(self.module)

    def assembly(self) -> str:
        return target_machine().emit_assembly(self.module)


def optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine, opt_level: int = 3) -> None:
    """LLVM's default O<opt_level> pipeline for `tm`, loop and SLP vectorizers on."""
    options = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    options.loop_vectorization = opt_level >= 2
    options.slp_vectorization = opt_level >= 2
    options.loop_unrolling = opt_level >= 2
    passes = llvm.create_pass_builder(tm, options)
    passes.getModulePassManager().run(module, passes)


def _optimized(
    module: ModuleOp,
    tm: llvm.TargetMachine,
    opt_level: int,
    times: CompileTimes,
    runtime: bool | None,
    clock_sites: Sequence[str] | None = None,
) -> tuple[llvm.ModuleRef, bool]:
    """Translate an llvm-dialect module to LLVM, parse, verify and optimize it; outlined
    parallel-loop bodies are made internal first, and the parallel loops' runtime is linked
    in, to be optimized with the module: if `runtime` is True, or None and the module calls
    it. Also whether it was linked. `clock_sites`: link in the kernel clocks of @main's call
    sites (lowering/kernel_clock.py)."""
    start = time.perf_counter()
    text = llvm_ir_text(module, tm)
    times.translate = time.perf_counter() - start

    start = time.perf_counter()
    parsed = llvm.parse_assembly(text)
    _internalize_outlined(parsed)
    linked = _calls_parallel_for(parsed) if runtime is None else runtime
    if linked:
        _link_support(parsed)
    if clock_sites is not None:
        link_kernel_clock(parsed, clock_sites)
    parsed.verify()
    times.parse = time.perf_counter() - start

    start = time.perf_counter()
    if opt_level > 0:
        optimize(parsed, tm, opt_level)
    times.optimize = time.perf_counter() - start
    return parsed, linked


def compile_llvm(
    module: ModuleOp,
    opt_level: int = 3,
    objects: Sequence[bytes] = (),
    parallel_runtime: bool = False,
    clock_sites: Sequence[str] | None = None,
) -> JitModule:
    """Translate, optimize and JIT-compile an llvm-dialect module, linked with `objects`
    (object code, e.g. `emit_object`'s: the functions the module declares). The parallel
    loops' runtime is linked in if the module calls it, or if `parallel_runtime` (the
    objects do); the kernel clocks of `clock_sites` if given (`lower_main`'s sites)."""
    tm = target_machine(opt_level)
    times = CompileTimes()
    parsed, parallel_loops = _optimized(
        module, tm, opt_level, times, parallel_runtime or None, clock_sites
    )

    start = time.perf_counter()
    bitcode = parsed.as_bitcode()
    engine = llvm.create_mcjit_compiler(parsed, tm)
    for code in objects:
        engine.add_object_file(llvm.ObjectFileRef.from_data(code))
    engine.finalize_object()
    times.codegen = time.perf_counter() - start
    return JitModule(engine, parsed, times, parallel_loops, bitcode)


def emit_object(module: ModuleOp, opt_level: int = 3) -> tuple[bytes, bool, CompileTimes]:
    """An llvm-dialect module (a kernel) as optimized, position-independent object code for
    the CPU we compile for, every symbol it defines hidden: what the JIT links and what
    `minitvm export` links into a library alike. Also whether it calls the parallel loops'
    runtime (which whoever links it must define), and the seconds each step took."""
    tm = object_machine(opt_level)
    times = CompileTimes()
    parsed, _ = _optimized(module, tm, opt_level, times, runtime=False)  # the JIT's main has it
    hide_definitions(parsed)
    start = time.perf_counter()
    code = tm.emit_object(parsed)
    times.codegen = time.perf_counter() - start
    return code, _calls_parallel_for(parsed), times


# --------------------------------------------------------------------------------------------
# Parallel loops
# --------------------------------------------------------------------------------------------


def _calls_parallel_for(module: llvm.ModuleRef) -> bool:
    """Whether `module` calls the parallel loops' runtime (`support_ir`'s functions)."""
    for name in (PARALLEL_FOR, THREAD_COUNT):
        try:
            module.get_function(name)
        except NameError:
            continue
        return True
    return False


def _internalize_outlined(module: llvm.ModuleRef) -> None:
    """Outlined functions are reached only through their chunk entry's address: internal
    (the translation to LLVM IR drops linkage). The body is not inlined into that entry: it
    would be optimized twice (a resnet50 compile took 60% longer in LLVM's passes) and trade
    its noalias arguments for alias scopes, for a call per chunk."""
    for function in module.functions:
        if not function.is_declaration and is_outlined(function.name):
            function.linkage = llvm.Linkage.internal
            if not function.name.endswith(CHUNK_SUFFIX):
                function.add_function_attribute("noinline")


def _link_support(module: llvm.ModuleRef) -> None:
    """Link `__minitvm_parallel_for` and the runtime's globals into `module`."""
    support = llvm.parse_assembly(support_ir())
    support.triple = module.triple
    support.data_layout = module.data_layout
    module.link_in(support)


@dataclass(frozen=True)
class LlvmTarget(Target):
    """`minitvm-opt -t llvm`: print the LLVM IR of an llvm-dialect module (our ops included;
    xDSL's own `llvm` target does not know them)."""

    name = "llvm"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(llvm_ir_text(module))
