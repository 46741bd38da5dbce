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


#: Compile for another CPU than this one: a microarchitecture name as archspec knows it
#: (`x86_64_v3`, `haswell`, `skylake_avx512`, `icelake`, `sapphirerapids`, `zen3`, `zen4`,
#: ...; LLVM's spelling `x86-64-v3`, `skylake-avx512`, `znver4` works too) or `native`.
#: `minitvm export --cpu` sets it; the schedules, the LLVM target and the tuning key follow.
TARGET_CPU_ENV = "MINITVM_TARGET_CPU"

#: archspec's CPU flags (/proc/cpuinfo names) under LLVM's names where the two differ; flags
#: LLVM has no feature for are dropped.
_LLVM_NAMES = {
    "bmi1": ("bmi",), "abm": ("lzcnt", "popcnt"), "sse4_1": ("sse4.1",), "sse4_2": ("sse4.2",),
    "pclmulqdq": ("pclmul",), "lahf_lm": ("sahf",), "sha_ni": ("sha",), "rdrand": ("rdrnd",),
    "avx512_bf16": ("avx512bf16",), "avx512_bitalg": ("avx512bitalg",),
    "avx512_vbmi2": ("avx512vbmi2",), "avx512_vnni": ("avx512vnni",),
    "avx512_vpopcntdq": ("avx512vpopcntdq",), "avx512_fp16": ("avx512fp16",),
    "avx_vnni": ("avxvnni",), "amx_bf16": ("amx-bf16",), "amx_int8": ("amx-int8",),
    "amx_tile": ("amx-tile",),
}  # fmt: skip


def _native_features() -> dict[str, bool]:
    _initialize()
    return dict(llvm.get_host_cpu_features())


def _native_name(features: dict[str, bool]) -> str:
    name = llvm.get_host_cpu_name()
    if features.get("avx512f") and not name.startswith(_AMD_PREFIX):
        name = "sapphirerapids"
    return name


def named_cpu(name: str) -> tuple[str, dict[str, bool]]:
    """(LLVM cpu name, LLVM features) of the microarchitecture `name` (see TARGET_CPU_ENV)."""
    import archspec.cpu

    key = name.strip().lower().replace("-", "_")
    key = {"x86_64": "x86_64", "znver2": "zen2", "znver3": "zen3", "znver4": "zen4",
           "znver5": "zen5", "icelake_client": "icelake"}.get(key, key)  # fmt: skip
    targets = archspec.cpu.TARGETS
    if key not in targets or targets[key].family.name != "x86_64":
        known = ", ".join(sorted(n for n, t in targets.items() if t.family.name == "x86_64"))
        raise MinitvmError(f"unknown CPU '{name}': use native or one of {known}")
    target = targets[key]
    try:
        flags = target.optimization_flags("clang", "18.0")
    except Exception:  # noqa: BLE001  (archspec raises its own types for unsupported names)
        flags = ""
    march = next((f.split("=", 1)[1] for f in flags.split() if f.startswith("-march=")), "x86-64")
    known_features = _native_features()
    features = dict.fromkeys(known_features, False)
    for flag in target.features:
        for llvm_name in _LLVM_NAMES.get(flag, (flag,)):
            if llvm_name in known_features:
                features[llvm_name] = True
    features.update({"64bit": True, "cmov": True, "cx8": True, "fxsr": True, "sse": True, "sse2": True})
    return march, features


@functools.cache
def host_cpu() -> tuple[str, str]:
    """(cpu name, feature string) of the CPU we compile for: the machine we run on, or the
    one TARGET_CPU_ENV names (FEATURES_ENV applied to either)."""
    wanted = os.environ.get(TARGET_CPU_ENV, "native").strip() or "native"
    if wanted == "native":
        features = _native_features()
        name = _native_name(features)
    else:
        name, features = named_cpu(wanted)
    override_features(features, os.environ.get(FEATURES_ENV, ""))
    return name, _flatten(features)


def _flatten(features: dict[str, bool]) -> str:
    return ",".join(f"{'+' if on else '-'}{name}" for name, on in sorted(features.items()))


@functools.cache
def native_cpu() -> tuple[str, str]:
    """(cpu name, feature string) of the machine we run on, whatever we compile for: code
    run here while compiling (machine.py's measurements) must not use instructions a
    TARGET_CPU_ENV CPU has and this one lacks."""
    features = _native_features()
    return _native_name(features), _flatten(features)


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


def target_machine(opt_level: int = 3, native: bool = False) -> llvm.TargetMachine:
    """A new target machine for the CPU we compile for (`native`: for this machine), built
    from its feature list (an execution engine takes ownership of its own)."""
    name, features = native_cpu() if native else host_cpu()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=name, features=features, opt=opt_level, codemodel="jitdefault", jit=True
    )


def object_machine(opt_level: int = 3, cpu: tuple[str, str] | None = None) -> llvm.TargetMachine:
    """A target machine for position-independent object code (for the JIT to link and for
    shared libraries alike) for `cpu` (name, features; default: the CPU we compile for)."""
    _initialize()
    name, features = cpu or host_cpu()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=name, features=features, opt=opt_level, reloc="pic", codemodel="default"
    )


def hide_definitions(module: llvm.ModuleRef) -> None:
    """Give every function and global `module` defines, but for local ones, hidden
    visibility: object code linked into a shared library exports none of them."""
    for value in (*module.functions, *module.global_variables):
        if not value.is_declaration and value.linkage not in _LOCAL_LINKAGES:
            value.visibility = "hidden"


_LOCAL_LINKAGES = (llvm.Linkage.internal, llvm.Linkage.private)


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
