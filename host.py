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
from fnmatch import fnmatchcase

import llvmlite.binding as llvm

from minitvm.errors import MinitvmError

#: Prefix of the CPU names LLVM gives AMD's Zen parts.
_AMD_PREFIX = "znver"


@functools.cache
def _initialize() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


#: Features to switch off (or on) over the host's, to compile for this CPU as another would
#: be compiled for: `-avx512*,-amx*` makes an AVX2 target of an AVX-512 machine (tests run the
#: bench models so, to check what a CPU without AVX-512 gets). A comma list of `+name` and
#: `-name`, `*` matching any run of characters.
FEATURES_ENV = "MINITVM_TARGET_FEATURES"


def override_features(features: dict[str, bool], spec: str) -> None:
    """Apply a FEATURES_ENV spec to `features` (LLVM feature name -> on)."""
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        sign, pattern = item[0], item[1:]
        if sign not in "+-" or not pattern:
            raise MinitvmError(f"{FEATURES_ENV}: '{item}' is not +feature or -feature")
        matching = [name for name in features if fnmatchcase(name, pattern)] or [pattern]
        for name in matching:
            features[name] = sign == "+"


@functools.cache
def host_cpu() -> tuple[str, str]:
    """(cpu name, feature string) for the machine we run on (FEATURES_ENV applied)."""
    _initialize()
    features = llvm.get_host_cpu_features()
    override_features(features, os.environ.get(FEATURES_ENV, ""))
    name = llvm.get_host_cpu_name()
    if features.get("avx512f") and not name.startswith(_AMD_PREFIX):
        name = "sapphirerapids"
    return name, features.flatten()


def register_file(features: set[str] | tuple[str, ...]) -> tuple[int, int]:
    """(count, width in bits) of the widest vector registers a CPU with these (enabled) LLVM
    features has: 32 x 512 with AVX-512, 16 x 256 with AVX, 16 x 128 otherwise."""
    if "avx512f" in features:
        return 32, 512
    return 16, 256 if "avx" in features else 128


def enabled_features(flattened: str) -> tuple[str, ...]:
    """LLVM's feature string (`+avx2,-amx-tile,...`) as the sorted names of those it has."""
    return tuple(sorted(f[1:] for f in flattened.split(",") if f.startswith("+")))


def host_register_file() -> tuple[int, int]:
    """`register_file` of the host (FEATURES_ENV applied)."""
    return register_file(enabled_features(host_cpu()[1]))


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
