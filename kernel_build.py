"""The back half of a compile, kernel by kernel: cached on disk, compiled on every core.

    scheduled te module ── te-merge-kernels ──▶ distinct kernels + @main
      each kernel ── key (lowering/object_cache.py) ──▶ hit: its object code, from the cache
                                                    └─▶ miss: te -> loop -> llvm dialect ->
                                                        LLVM -O3 -> object code, alone in
                                                        its module (pipeline.kernel_stages),
                                                        on every core (lowering/fork_map.py),
                                                        then stored
      @main ── te -> loop (the kernels' buffer signatures from their entries) ── loop passes
            ── llvm ──▶ LLVM, and MCJIT with the kernels' objects linked in (compiler.build)

Kernels are independent once scheduled: each is lowered by the same passes the whole module
would get (`minitvm compile --emit-llvm` and `minitvm-opt` still show the whole module), but
alone, to object code of its own, named after its key; @main calls them by those names. So
a hit skips everything after scheduling, and the misses are shared out among the cores
(the costliest first), the parent process taking its share. Light ResNet-50 has 39 distinct
kernels.

`MINITVM_COMPILE_JOBS` sets how many processes compile kernels (default: the cores this
process may run on; 1: no children).
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    i64,
)
from xdsl.parser import Parser
from xdsl.rewriter import Rewriter

from minitvm.dialects import loop, te
from minitvm.errors import MinitvmError
from minitvm.host import default_num_threads, host_cpu
from minitvm.ir import make_context
from minitvm.lowering.fork_map import fork_map
from minitvm.lowering.jit import emit_object
from minitvm.lowering.kernel_clock import site_symbol
from minitvm.lowering.object_cache import (
    KernelObject,
    ObjectCache,
    cache_enabled,
    kernel_key,
    kernel_symbol,
)
from minitvm.lowering.te_to_loop import KernelSignature, convert_main
from minitvm.passes.loop.sections import INPUTS_ATTR
from minitvm.passes.te.merge_kernels import merge_kernels
from minitvm.pipeline import Stage, kernel_stages
from minitvm.runtime.abi import ENTRY

#: How many processes compile kernels (this one included).
JOBS_ENV = "MINITVM_COMPILE_JOBS"
#: The compile report's per-kernel stages (pipeline.kernel_stages' labels, and LLVM's).
KERNEL_STAGES = ("te -> loop", "loop unroll/vectorize", "loop passes", "loop -> llvm", "LLVM")


@dataclass
class KernelBuild:
    """A module's kernels, compiled or found, and what it took."""

    #: @main at the te level, calling the kernels under their te names.
    main: func.FuncOp
    #: Per te kernel name: its object.
    kernels: dict[str, KernelObject]
    #: How many came from the cache.
    hits: int = 0
    #: Wall seconds: "key kernels" (merging, keys, cache lookups), "compile kernels".
    seconds: dict[str, float] = field(default_factory=dict)
    #: Seconds per KERNEL_STAGES stage summed over the kernels compiled, in every process.
    kernel_seconds: dict[str, float] = field(default_factory=dict)

    def op_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for kernel in self.kernels.values():
            for level, count in kernel.op_counts.items():
                counts[level] = counts.get(level, 0) + count
        return counts


def compile_jobs() -> int:
    value = os.environ.get(JOBS_ENV, "").strip()
    if not value:
        return default_num_threads()
    if not value.isdigit() or int(value) < 1:
        raise MinitvmError(f"{JOBS_ENV} must be a number of processes (1 or more), got '{value}'")
    return int(value)


def build_kernels(module: ModuleOp, opt_level: int = 3) -> KernelBuild:
    """Object code for every kernel of a scheduled te module (from the cache where it has
    them); @main is left as it is."""
    start = time.perf_counter()
    texts = merge_kernels(module)
    kernels = [
        f for f in module.ops if isinstance(f, func.FuncOp) and te.KERNEL_ATTR in f.attributes
    ]
    mains = [f for f in module.ops if f not in kernels]
    if len(mains) != 1 or not isinstance(mains[0], func.FuncOp) or mains[0].sym_name.data != ENTRY:
        names = ", ".join(getattr(getattr(f, "sym_name", None), "data", f.name) for f in mains)
        raise MinitvmError(f"a te module holds kernels and one func.func @{ENTRY}, not: {names}")
    cpu, features = host_cpu()
    keys = {name: kernel_key(text, cpu, features, opt_level) for name, text in texts.items()}
    cache = ObjectCache() if cache_enabled() else None
    objects: dict[str, KernelObject] = {}
    for name, key in keys.items():
        found = cache.get(key) if cache is not None else None
        if found is not None:
            objects[name] = found
    hits = len(objects)
    seconds = {"key kernels": time.perf_counter() - start}

    start = time.perf_counter()
    missing = [k for k in kernels if k.sym_name.data not in objects]
    missing.sort(key=_op_count, reverse=True)  # the dearest first: the cores finish together
    items = [(k, kernel_symbol(keys[k.sym_name.data])) for k in missing]
    compiled = fork_map(
        functools.partial(_compile_item, opt_level=opt_level), items, compile_jobs()
    )
    kernel_seconds: dict[str, float] = {}
    written = 0
    for kernel, built in zip(missing, compiled, strict=True):
        name = kernel.sym_name.data
        objects[name] = built
        for stage, value in built.seconds.items():
            kernel_seconds[stage] = kernel_seconds.get(stage, 0.0) + value
        if cache is not None:
            written += cache.put(keys[name], built)
    if cache is not None and compiled:
        cache.prune(written)
    seconds["compile kernels"] = time.perf_counter() - start
    return KernelBuild(mains[0], objects, hits, seconds, kernel_seconds)


def _op_count(op: func.FuncOp) -> int:
    return sum(1 for _ in op.walk())


def _compile_item(item: tuple[func.FuncOp, str], opt_level: int) -> KernelObject:
    return compile_kernel(*item, opt_level=opt_level)


def compile_kernel(kernel: func.FuncOp, symbol: str, opt_level: int = 3) -> KernelObject:
    """One scheduled te kernel (left unchanged) -> its object code, defining `symbol`."""
    ctx = make_context()
    copy = kernel.clone()
    copy.sym_name = StringAttr(symbol)
    module = ModuleOp([copy])
    num_inputs = len(copy.body.block.args)
    returned = copy.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    num_outputs = len(returned.arguments)
    seconds: dict[str, float] = {}
    counts: dict[str, int] = {}
    scratch: list[str] = []
    symbols: list[str] = []
    for stage in kernel_stages(opt_level):
        _run_stage(stage, module, ctx, seconds, counts)
        if stage.label == "te -> loop":
            lowered = next(iter(module.ops))
            assert isinstance(lowered, func.FuncOp)
            scratch = [
                str(t) for t in lowered.function_type.inputs.data[num_inputs + num_outputs :]
                if isinstance(t, MemRefType)  # (then the symbols' values, if any)
            ]
            names = lowered.attributes.get(loop.SYMBOLS_ATTR)
            symbols = [s.data for s in names.data] if isinstance(names, ArrayAttr) else []  # type: ignore[attr-defined]
    code, parallel, times = emit_object(module, opt_level)
    seconds["LLVM"] = times.total
    return KernelObject(
        symbol, code, num_inputs, num_outputs, tuple(scratch), parallel, counts, seconds,
        tuple(symbols),
    )  # fmt: skip


def lower_main(
    main: func.FuncOp,
    kernels: Mapping[str, KernelObject],
    opt_level: int = 3,
    ctx: Context | None = None,
    sites: list[str] | None = None,
) -> tuple[ModuleOp, dict[str, float], dict[str, int]]:
    """@main (te level) -> an llvm-dialect module of @main alone, calling the kernels by
    their objects' symbols (declared, not defined: the objects define them); the seconds per
    stage and the op counts per level. With a `sites` list, the k-th kernel call calls
    `site_symbol(symbol, k)` instead, a wrapper that times it (lowering/kernel_clock.py),
    and `sites` gets the symbol each site calls."""
    ctx = ctx or make_context()
    signatures = {
        k.symbol: KernelSignature(
            k.num_inputs, k.num_outputs, _memref_types(k.scratch, ctx), list(k.symbols)
        )
        for k in kernels.values()
    }
    inputs = {k.symbol: k.num_inputs for k in kernels.values()}
    for call in [op for op in main.walk() if isinstance(op, func.CallOp)]:
        name = call.callee.root_reference.data
        if name in kernels:
            symbol = kernels[name].symbol
            if sites is not None:
                wrapper = site_symbol(symbol, len(sites))
                signatures[wrapper], inputs[wrapper] = signatures[symbol], inputs[symbol]
                sites.append(symbol)
                symbol = wrapper
            renamed = func.CallOp(
                SymbolRefAttr(symbol), list(call.arguments), [r.type for r in call.results]
            )
            Rewriter.replace_op(call, renamed)
    seconds: dict[str, float] = {}
    counts: dict[str, int] = {}
    start = time.perf_counter()
    lowered = convert_main(main, signatures)
    module = ModuleOp([*_declarations(lowered, inputs), lowered])
    seconds["te -> loop"] = time.perf_counter() - start
    for stage in kernel_stages(opt_level)[1:]:
        _run_stage(stage, module, ctx, seconds, counts)
    return module, seconds, counts


def _run_stage(
    stage: Stage, module: ModuleOp, ctx: Context, seconds: dict[str, float], counts: dict[str, int]
) -> None:
    """Run a stage's passes, recording its seconds and (if it has a level) the op count."""
    start = time.perf_counter()
    for stage_pass in stage.passes:
        stage_pass.apply(ctx, module)
    seconds[stage.label] = time.perf_counter() - start
    if stage.level is not None:
        counts[stage.level] = sum(1 for _ in module.walk()) - 1


def _memref_types(texts: Sequence[str], ctx: Context) -> list[MemRefType]:
    types = []
    for text in texts:
        type_ = Parser(ctx, text).parse_type()
        assert isinstance(type_, MemRefType), text
        types.append(type_)
    return types


def _declarations(main: func.FuncOp, inputs: Mapping[str, int]) -> list[func.FuncOp]:
    """A body-less func.func for each function @main calls (convert-loop-to-llvm declares
    them external), with how many of its first buffers a kernel only reads (`inputs`, by
    symbol: loop-sections' `loop.inputs`)."""
    declared: dict[str, func.FuncOp] = {}
    for call in main.walk():
        if isinstance(call, func.CallOp):
            name = call.callee.root_reference.data
            if name not in declared:
                types = [a.type for a in call.arguments]
                declared[name] = func.FuncOp.external(name, types, [r.type for r in call.results])
                if name in inputs:
                    declared[name].attributes[INPUTS_ATTR] = IntegerAttr(inputs[name], i64)
    return list(declared.values())
