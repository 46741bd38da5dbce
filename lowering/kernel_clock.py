"""Clocks around each kernel call of @main: what `minitvm profile` reads to say how long each
kernel takes inside the model, where its weights come from memory or cache as the layers
before it left them and its inputs from the kernel that just wrote them.

A compile with `instrument=True` (compiler.build) renames @main's call of a kernel at site k
(the k-th kernel call in @main's walk order) to `<symbol>__site<k>` (kernel_build.lower_main),
and links in one wrapper per site that reads the time stamp counter around the real call:

    define void @k_3f2a__site4(ptr %a0, ptr %a1, i64 %a2) {
      %t0 = call i64 @llvm.readcyclecounter()
      call void @k_3f2a(ptr %a0, ptr %a1, i64 %a2)
      %t1 = call i64 @llvm.readcyclecounter()
      ... atomically add %t1 - %t0 to __minitvm_kernel_ticks[4], 1 to __minitvm_kernel_calls[4]
    }

The adds are atomic because a site may run on several threads at once (a batch shared out
image by image, kernels side by side in sections). `__minitvm_clock` reads the counter for
the runtime to calibrate it against the wall clock (runtime/kernel_clock.py). The kernels
themselves are untouched (their cached objects serve both builds); a wrapper costs two counter
reads and two atomic adds a call, tens of nanoseconds.
"""

from __future__ import annotations

from collections.abc import Sequence

import llvmlite.binding as llvm

from minitvm.runtime.abi import CLOCK_FUNCTION, KERNEL_CALLS_GLOBAL, KERNEL_TICKS_GLOBAL

SITE_SUFFIX = "__site"


def site_symbol(symbol: str, site: int) -> str:
    """The wrapper @main calls at kernel call site `site` of the kernel `symbol`."""
    return f"{symbol}{SITE_SUFFIX}{site}"


def _wrapper(module: llvm.ModuleRef, site: int, symbol: str, sites: int) -> tuple[str, str]:
    """The declaration of `symbol` and the wrapper of its call site `site`, typed as `module`
    declares the wrapper."""
    declared = module.get_function(site_symbol(symbol, site))
    result, *params = (str(t) for t in declared.global_value_type.elements)
    args = ", ".join(f"{t} %a{n}" for n, t in enumerate(params))
    call = f"call {result} @{symbol}({args})"
    slot = f"getelementptr inbounds [{sites} x i64], ptr @{{}}, i64 0, i64 {site}"
    return (
        f"declare {result} @{symbol}({', '.join(params)})",
        f"""
define {result} @{site_symbol(symbol, site)}({args}) {{
  %t0 = call i64 @llvm.readcyclecounter()
  {call if result == "void" else "%r = " + call}
  %t1 = call i64 @llvm.readcyclecounter()
  %ticks = sub i64 %t1, %t0
  %tick_slot = {slot.format(KERNEL_TICKS_GLOBAL)}
  %ticks_before = atomicrmw add ptr %tick_slot, i64 %ticks monotonic
  %call_slot = {slot.format(KERNEL_CALLS_GLOBAL)}
  %calls_before = atomicrmw add ptr %call_slot, i64 1 monotonic
  {"ret void" if result == "void" else f"ret {result} %r"}
}}""",
    )


def clock_ir(module: llvm.ModuleRef, sites: Sequence[str]) -> str:
    """LLVM IR of the counters of `sites` (the kernel symbol each site calls, by site), the
    clock, and the wrapper of each site that `module` declares."""
    count = max(len(sites), 1)
    declarations: dict[str, str] = {}
    wrappers = []
    declared = {f.name for f in module.functions if f.is_declaration}
    for site, symbol in enumerate(sites):
        if site_symbol(symbol, site) in declared:  # (a call LLVM removed has no wrapper)
            declarations[symbol], wrapper = _wrapper(module, site, symbol, count)
            wrappers.append(wrapper)
    return "\n".join([
        f"@{KERNEL_TICKS_GLOBAL} = global [{count} x i64] zeroinitializer",
        f"@{KERNEL_CALLS_GLOBAL} = global [{count} x i64] zeroinitializer",
        "declare i64 @llvm.readcyclecounter()",
        f"define i64 @{CLOCK_FUNCTION}() {{",
        "  %t = call i64 @llvm.readcyclecounter()",
        "  ret i64 %t",
        "}",
        *declarations.values(),
        *wrappers,
    ]) + "\n"  # fmt: skip


def link_kernel_clock(module: llvm.ModuleRef, sites: Sequence[str]) -> None:
    """Link the clocks of `sites` (see `clock_ir`) into `module`, @main's."""
    clocks = llvm.parse_assembly(clock_ir(module, sites))
    clocks.triple = module.triple
    clocks.data_layout = module.data_layout
    module.link_in(clocks)
