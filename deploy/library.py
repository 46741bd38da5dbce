"""`minitvm export`: a compiled model -> one shared library with the C API of c/minitvm.h.

    model.so       the kernels (object code from LLVM, position-independent), the model's
                   tables (model_data.c, generated here), the C runtime (c/runtime.c: API,
                   thread pool, CPU check) and, by default, the weights
    model.h        the API, with a comment naming this model's inputs and outputs
    model.weights  with `weights="file"`: the weights, mapped read-only at minitvm_create

The code is the JIT's: the kernels' object code (kernel_build.py: compiled once, cached,
linked by the JIT and here alike) and @main's optimized LLVM module (kept as bitcode), so the
library computes what the Executable computes. Its symbols are hidden but for the API:
a program that loads two exported models, or defines a `main` of its own, sees no clash.
Weights go in through the assembler's `.incbin` (hundreds of MB assemble in a blink, where a
C array of them would take the compiler minutes). The system C compiler (`$CC`, else cc,
gcc or clang) compiles and links; the library needs the C library, libm and libpthread only.

Files appear complete or not at all: everything is built in a temporary directory and
renamed into place, the library last.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np

from minitvm.deploy import c_sizes
from minitvm.errors import MinitvmError
from minitvm.host import enabled_features, hide_definitions, object_machine
from minitvm.runtime.abi import (
    ALIGNMENT,
    DTYPE_CODES,
    ENTRY,
    FOUND_DIM,
    NUM_THREADS_GLOBAL,
    THREAD_COUNT_GLOBAL,
    THREAD_POOL_GLOBAL,
)
from minitvm.runtime.executable import GROUP_INITIAL_CAPACITY, INITIAL_CAPACITY, TensorSpec
from minitvm.symbolic import SymDim, capacity, parse_dim, symbols_of

#: The entry function's name in the library (hidden; `main` would read as C's).
LIBRARY_ENTRY = "minitvm__entry"
#: `weights=` choices: inside the library, or in a file beside it.
WEIGHTS_MODES = ("embed", "file")

#: Flags for the C runtime and the link; the kernels were optimized by LLVM already.
CFLAGS = ("-O2", "-fPIC", "-fvisibility=hidden", "-std=gnu11", "-Wall")
LDFLAGS = ("-shared", "-pthread", "-Wl,-z,defs", "-Wl,-z,noexecstack")


@dataclass(frozen=True)
class NativeModel:
    """What the JIT compiled, kept so that it can also be written out as a library."""

    #: The optimized LLVM module of @main (the parallel-loop support linked in), as bitcode.
    bitcode: bytes
    #: The LLVM target: CPU name and feature string (`+avx2,-amx-tile,...`).
    cpu: str
    features: str
    opt_level: int
    #: Whether the code has parallel loops (and so the globals of loop_to_llvm/parallel.py).
    parallel: bool
    arena_size: int
    #: Chunks per thread a parallel loop is cut into (loop_to_llvm/parallel.py).
    chunks_per_thread: int
    #: The kernels' object code (position-independent, symbols hidden), which the module
    #: calls: kernel_build.py's, as the JIT linked them.
    objects: tuple[bytes, ...] = ()
    #: Sizes known only at run time, in the order the entry takes them (none: every size is
    #: fixed and the entry takes three arguments); each size's bounds (name, low, high)
    #: where the user gave some; the arena's end at given sizes (c_sizes.py writes these
    #: as C).
    symbols: tuple[str, ...] = ()
    bounds: tuple[tuple[str, int, int], ...] = ()
    arena_size_expr: str = "0"
    #: Sizes the code finds as it runs (NonZero's count, a Range's length), each with its
    #: bound (an expression of the sizes), in the order the Executable checks them; those
    #: that are run-time checks (`graph.check`'s), each with its message; those that are
    #: the dims of one shape, each with its group (their capacities are raised together).
    found: tuple[tuple[str, str], ...] = ()
    checks: tuple[tuple[str, str], ...] = ()
    groups: tuple[tuple[str, str], ...] = ()
    #: The node that needs a bound, where the import took it from the model's shapes (its
    #: name goes into the refusal's message).
    bound_sources: tuple[tuple[str, str], ...] = ()


@dataclass
class ExportResult:
    """The files written and what it took."""

    library: Path
    header: Path
    weights: Path | None
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def library_bytes(self) -> int:
        return self.library.stat().st_size


def find_c_compiler() -> str:
    """`$CC`, else the first of cc, gcc, clang on PATH."""
    candidates = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in candidates:
        path = shutil.which(name)
        if path:
            return path
    raise MinitvmError(
        f"minitvm export needs a C compiler to link the library and found none ({', '.join(candidates)}"
        " not on PATH): install gcc or clang, or set CC"
    )


def export_library(
    native: NativeModel,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    constants: Sequence[np.ndarray],
    path: str | os.PathLike[str],
    weights: str = "embed",
) -> ExportResult:
    """Write `path` (a .so), its header and, with weights="file", its weights file (the
    header and weights file are named after the library: model.so, model.h, model.weights)."""
    if weights not in WEIGHTS_MODES:
        raise MinitvmError(f"weights must be one of {', '.join(WEIGHTS_MODES)}, got '{weights}'")
    library = Path(path)
    if not library.parent.is_dir():
        raise MinitvmError(f"cannot write {library}: no directory {library.parent}")
    cc = find_c_compiler()
    try:
        return _write_library(native, inputs, outputs, constants, library, cc, weights == "file")
    except OSError as e:  # a full disk, a file-size limit: nothing was put in place
        raise MinitvmError(f"cannot write {library}: {e.strerror or e}") from None


def _write_library(
    native: NativeModel,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    constants: Sequence[np.ndarray],
    library: Path,
    cc: str,
    weights_in_file: bool,
) -> ExportResult:
    """Build the library, header and weights file in a scratch folder beside `library`, and
    move them into place once all of them were written."""
    header = library.with_suffix(".h")
    weights_file = library.with_suffix(".weights") if weights_in_file else None
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix=".minitvm-export-", dir=library.parent) as scratch:
        work = Path(scratch)
        start = time.perf_counter()
        objects = [work / "main.o"]
        objects[0].write_bytes(object_code(native))
        for n, code in enumerate(native.objects):
            objects.append(work / f"kernel{n}.o")
            objects[-1].write_bytes(code)
        seconds["object code"] = time.perf_counter() - start

        start = time.perf_counter()
        offsets, size, digest = write_weights(constants, work / "weights.bin")
        sources = [_runtime_source("runtime.c"), work / "model_data.c"]
        (work / "model_data.c").write_text(
            model_data(native, library.stem, inputs, outputs, offsets, size, digest, weights_file)
        )
        if weights_file is None:
            (work / "weights.S").write_text(_incbin(work / "weights.bin"))
            sources.append(work / "weights.S")
        (work / "model.h").write_text(header_text(library.stem, inputs, outputs))
        seconds["weights"] = time.perf_counter() - start

        start = time.perf_counter()
        _link(cc, sources, objects, work / "model.so", library.name)
        seconds["link"] = time.perf_counter() - start

        if weights_file is not None:
            os.replace(work / "weights.bin", weights_file)
        os.replace(work / "model.h", header)
        os.replace(work / "model.so", library)
    return ExportResult(library, header, weights_file, seconds)


# --------------------------------------------------------------------------------------------
# Object code
# --------------------------------------------------------------------------------------------


def object_code(native: NativeModel) -> bytes:
    """@main's module as a position-independent object: entry renamed, every symbol hidden."""
    module = llvm.parse_bitcode(native.bitcode)
    module.get_function(ENTRY).name = LIBRARY_ENTRY
    hide_definitions(module)
    machine = object_machine(native.opt_level, (native.cpu, native.features))
    return machine.emit_object(module)



# --------------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------------


def write_weights(constants: Sequence[np.ndarray], path: Path) -> tuple[list[int], int, int]:
    """Write the constants back to back, each at a multiple of ALIGNMENT, the whole a
    multiple of it too; (offsets, size, digest)."""
    offsets, size = [], 0
    with open(path, "wb") as out:
        for array in constants:
            offsets.append(size)
            data = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
            out.write(memoryview(data))
            size += data.nbytes
            pad = -size % ALIGNMENT
            out.write(b"\0" * pad)
            size += pad
    return offsets, size, weights_digest(np.memmap(path, np.uint8, "r") if size else b"")


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_DIGEST_CHUNK = 1 << 21  # words per numpy step (16 MB)


def weights_digest(blob: bytes | np.ndarray) -> int:
    """The digest c/runtime.c checks a weights file against: the sum (mod 2^64) over the
    blob's little-endian 64-bit words w[i] of mix(w[i] ^ i * golden), `mix` being
    splitmix64's finalizer (any changed word changes the sum; it vectorizes both here and
    in C, ~1 s per GB in numpy)."""
    words = np.frombuffer(blob, dtype="<u8", count=len(blob) // 8)
    total = 0
    with np.errstate(over="ignore"):
        for start in range(0, len(words), _DIGEST_CHUNK):
            x = words[start : start + _DIGEST_CHUNK] ^ (
                np.arange(start, start + min(_DIGEST_CHUNK, len(words) - start), dtype=np.uint64)
                * _GOLDEN
            )
            x ^= x >> np.uint64(31)
            x *= _MIX1
            x ^= x >> np.uint64(29)
            total = (total + int(x.sum(dtype=np.uint64))) % (1 << 64)
    return total


def _incbin(blob: Path) -> str:
    quoted = str(blob.resolve()).replace("\\", "\\\\").replace('"', '\\"')
    return f"""\
    .section .rodata.minitvm_weights,"a",@progbits
    .balign {ALIGNMENT}
    .globl minitvm__weights_blob
    .hidden minitvm__weights_blob
    .type minitvm__weights_blob, @object
minitvm__weights_blob:
    .incbin "{quoted}"
    .zero {ALIGNMENT}
    .size minitvm__weights_blob, . - minitvm__weights_blob
    .section .note.GNU-stack,"",@progbits
"""


# --------------------------------------------------------------------------------------------
# The model's tables (model_data.c) and header
# --------------------------------------------------------------------------------------------


def c_string(text: str) -> str:
    """A C string literal of `text`'s UTF-8 bytes (anything but letters, digits, space and
    `_.-/:` as an octal escape)."""
    safe = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.-/:")
    return '"' + "".join(chr(b) if b in safe else f"\\{b:03o}" for b in text.encode()) + '"'


def dtype_code(spec: TensorSpec) -> int:
    name = np.dtype(spec.dtype).name
    if name not in DTYPE_CODES:
        raise MinitvmError(f"'{spec.name}' has element type {name}, which the C API cannot carry")
    return DTYPE_CODES[name]


def _io_table(kind: str, specs: Sequence[TensorSpec], found: Collection[str] = ()) -> str:
    """The specs of inputs or outputs: a dimension the inputs' shapes give is -1, one that
    uses a size `found` as the code runs -2 (FOUND_DIM), and the byte count of a tensor with
    either is -1."""

    def dim(d: int | SymDim) -> str:
        if isinstance(d, int):
            return str(d)
        return str(FOUND_DIM) if symbols_of(d) & set(found) else "-1"

    lines = []
    for i, spec in enumerate(specs):
        dims = ", ".join(map(dim, spec.shape)) or "0"
        lines.append(f"static const int64_t {kind}_shape{i}[] = {{{dims}}};")

    def nbytes(spec: TensorSpec) -> int:
        if not spec.is_static:
            return -1
        return int(np.prod(spec.shape, dtype=np.int64)) * np.dtype(spec.dtype).itemsize

    entries = [
        f"    {{{c_string(s.name)}, {dtype_code(s)}, {len(s.shape)}, {kind}_shape{i}, {nbytes(s)}}},"
        for i, s in enumerate(specs)
    ] or ["    {0},"]
    lines.append(f"const int minitvm__num_{kind}s = {len(specs)};")
    lines.append(f"const minitvm__io_spec minitvm__{kind}s[] = {{\n" + "\n".join(entries) + "\n};")
    return "\n".join(lines)


def model_data(
    native: NativeModel,
    name: str,
    inputs: Sequence[TensorSpec],
    outputs: Sequence[TensorSpec],
    offsets: Sequence[int],
    weights_size: int,
    digest: int,
    weights_file: Path | None,
) -> str:
    """model_data.c: the definitions c/model_data.h declares, for this model."""
    features = enabled_features(native.features)
    if weights_file is None:
        blob = (
            "extern const unsigned char minitvm__weights_blob[];\n"
            "const unsigned char *minitvm__embedded_weights(void) { return minitvm__weights_blob; }\n"
            "const char *const minitvm__weights_file = 0;"
        )
    else:
        blob = (
            "const unsigned char *minitvm__embedded_weights(void) { return 0; }\n"
            f"const char *const minitvm__weights_file = {c_string(weights_file.name)};"
        )
    if native.parallel:
        connect = (
            f"extern int32_t {NUM_THREADS_GLOBAL};\n"
            f"extern minitvm__pool_fn {THREAD_POOL_GLOBAL};\n"
            f"extern minitvm__count_fn {THREAD_COUNT_GLOBAL};\n"
            "void minitvm__connect_pool(minitvm__pool_fn pool, minitvm__count_fn count) {\n"
            f"  __atomic_store_n(&{NUM_THREADS_GLOBAL}, INT32_MAX, __ATOMIC_SEQ_CST);\n"
            f"  __atomic_store_n(&{THREAD_COUNT_GLOBAL}, count, __ATOMIC_SEQ_CST);\n"
            f"  __atomic_store_n(&{THREAD_POOL_GLOBAL}, pool, __ATOMIC_SEQ_CST);\n"
            "}"
        )
    else:
        connect = (
            "void minitvm__connect_pool(minitvm__pool_fn pool, minitvm__count_fn count) {\n"
            "  (void)pool, (void)count;\n"
            "}"
        )
    return f"""\
/* Generated by `minitvm export` for {c_string(name)[1:-1]}: the tables of c/model_data.h. */
#include "model_data.h"

{_io_table("input", inputs)}
{_io_table("output", outputs, dict(native.found))}

const int minitvm__num_constants = {len(offsets)};
const int64_t minitvm__constant_offsets[] = {{{", ".join(map(str, offsets)) or "0"}}};
const int64_t minitvm__weights_size = {weights_size};
const uint64_t minitvm__weights_digest = {digest:#x}ULL;
{blob}

const int64_t minitvm__arena_size = {native.arena_size};
{_sizes_section(native, inputs, outputs)}

/* LLVM target: {native.cpu} */
const int minitvm__num_features = {len(features)};
const char *const minitvm__features[] = {{{", ".join(map(c_string, features)) or "0"}}};

const int minitvm__chunks_per_thread = {native.chunks_per_thread};
{connect}
"""


def _sizes_section(
    native: NativeModel, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
) -> str:
    """The run-time sizes' functions of c/model_data.h (stubs for a model without any) and
    `minitvm__run_entry`, which calls the entry with the arguments it takes."""
    symbols = list(native.symbols)
    found = {name: parse_dim(bound) for name, bound in native.found}
    text = [
        f"const int minitvm__num_symbols = {len(symbols)};",
        c_sizes.PRELUDE,
        c_sizes.found_sizes_section(symbols, found, dict(native.checks), dict(native.groups), INITIAL_CAPACITY,
                                  GROUP_INITIAL_CAPACITY),
    ]
    if symbols:
        bounds = {name: (lo, hi) for name, lo, hi in native.bounds}
        set_at_run = {*found, *(capacity(name) for name in found)}
        text += [
            c_sizes.bind_sizes_function(symbols, inputs, bounds, set_at_run, dict(native.bound_sources)),
            c_sizes.arena_bytes_function(symbols, native.arena_size, parse_dim(native.arena_size_expr)),
            c_sizes.output_shape_function(symbols, outputs),
            f"void {LIBRARY_ENTRY}(void **io, void **consts, char *arena, int64_t *sizes);",
            "void minitvm__run_entry(void **io, void **consts, char *arena, int64_t *sizes) {",
            f"  {LIBRARY_ENTRY}(io, consts, arena, sizes);",
            "}",
        ]
    else:
        text += [
            "int minitvm__bind_sizes(const int64_t *const *shapes, int64_t *s, char *why, size_t room) {",
            "  (void)shapes; (void)s; (void)why; (void)room;",
            "  return 0;",
            "}",
            "int64_t minitvm__arena_bytes(const int64_t *s) { (void)s; return minitvm__arena_size; }",
            "void minitvm__output_shape(int i, const int64_t *s, int64_t *shape) {",
            "  (void)s;",
            "  for (int d = 0; d < minitvm__outputs[i].ndim; d++) shape[d] = minitvm__outputs[i].shape[d];",
            "}",
            f"void {LIBRARY_ENTRY}(void **io, void **consts, char *arena);",
            "void minitvm__run_entry(void **io, void **consts, char *arena, int64_t *sizes) {",
            "  (void)sizes;",
            f"  {LIBRARY_ENTRY}(io, consts, arena);",
            "}",
        ]
    return "\n".join(text)


def header_text(name: str, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]) -> str:
    """model.h: c/minitvm.h under a comment that describes this model."""

    def rows(specs: Sequence[TensorSpec]) -> str:
        return "\n".join(
            f" *   {i}: {s.name.replace('*/', '* /')}  dtype {dtype_code(s)} ({np.dtype(s.dtype).name}), "
            f"shape [{', '.join(map(str, s.shape))}]"
            for i, s in enumerate(specs)
        )

    about = (
        f"/* {name.replace('*/', '* /')}, exported by minitvm.\n *\n * Inputs:\n{rows(inputs)}\n"
        f" * Outputs:\n{rows(outputs)}\n */\n"
    )
    return about + _runtime_source("minitvm.h").read_text()


# --------------------------------------------------------------------------------------------
# Compile and link
# --------------------------------------------------------------------------------------------


def _runtime_source(name: str) -> Path:
    return Path(str(resources.files("minitvm.deploy") / "c" / name))


def _link(cc: str, sources: Sequence[Path], objects: Sequence[Path], output: Path, soname: str) -> None:
    include = _runtime_source("minitvm.h").parent
    command = [
        cc, *CFLAGS, f"-I{include}", f"-I{output.parent}", *map(str, sources), *map(str, objects),
        *LDFLAGS, f"-Wl,-soname,{soname}", "-o", str(output), "-lm",
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as e:
        raise MinitvmError(f"cannot run the C compiler {cc}: {e}") from None
    if done.returncode != 0:
        raise MinitvmError(
            f"the C compiler failed to link the library ({' '.join(command)}):\n{done.stderr.strip()}"
        )
