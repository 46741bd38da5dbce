"""The machine we compile for: the host CPU as LLVM sees it, and the cores we may use.

Everything that depends on the CPU asks here: the LLVM target machine (`lowering/jit.py`,
the measurements of `machine.py`),
the key tuning records are filed under (`target_key`: a schedule tuned on one CPU and thread
count says nothing of another), and the default thread count. The CPU name is LLVM's unless
that is an Intel one with AVX-512, which becomes `sapphirerapids`: under a hypervisor that
masks the model, LLVM names such a Xeon `rocketlake` (docs/architecture.md). AMD parts keep their
name (LLVM reports Zen 4 correctly as `znver4`; it is not a Sapphire Rapids).
"""

from __future__ import annotations

import functools
import hashlib
import os

import llvmlite.binding as llvm

#: Prefix of the CPU names LLVM gives AMD's Zen parts.
_AMD_PREFIX = "znver"


@functools.cache
def _initialize() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


@functools.cache
def host_cpu() -> tuple[str, str]:
    """(cpu name, feature string) for the machine we run on."""
    _initialize()
    features = llvm.get_host_cpu_features()
    name = llvm.get_host_cpu_name()
    if features.get("avx512f") and not name.startswith(_AMD_PREFIX):
        name = "sapphirerapids"
    return name, features.flatten()


def target_machine(opt_level: int = 3) -> llvm.TargetMachine:
    """A new target machine for the host, built from its feature list (an execution engine
    takes ownership of its own)."""
    name, features = host_cpu()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=name, features=features, opt=opt_level, codemodel="jitdefault", jit=True
    )


def target_key(num_threads: int) -> str:
    """What a tuned schedule was measured on: CPU name, a digest of its features, threads."""
    name, features = host_cpu()
    digest = hashlib.sha256(features.encode()).hexdigest()[:8]
    return f"{name}-{digest}-t{num_threads}"


def default_num_threads() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1
