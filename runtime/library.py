"""`minitvm.load("model.so")`: an exported library, run from Python through its C API.

    lib = minitvm.load("model.so")          # minitvm_create
    outputs = lib.run({"input": x})         # minitvm_run, outputs in the graph's order

The object has the Executable's `run`, `inputs`, `outputs`, `input_names`, `output_names` and
`input_shapes`, so a caller (or `minitvm run model.so`) can take either. It is ctypes over
the functions of deploy/c/minitvm.h and imports neither xDSL nor llvmlite: a machine that
only runs models needs numpy and this file. Errors of the C API come back as MinitvmError
with the library's own message.
"""

from __future__ import annotations

import ctypes
import os
import struct
import threading
from collections.abc import Mapping

import numpy as np

from minitvm.errors import MinitvmError
from minitvm.runtime.abi import DTYPE_CODES, FOUND_DIM
from minitvm.runtime.executable import (
    ModelSpecs,
    TensorSpec,
    check_fits_in_memory,
    checked_inputs,
    data_address,
)
from minitvm.symbolic import bare_symbol, name_from, symbol

#: The ABI version of deploy/c/minitvm.h this loader speaks, and the older ones it also
#: loads (version 1 lacks minitvm_run_alloc, which only its successor's models need).
ABI_VERSION = 2
ABI_VERSIONS = (1, 2)
#: Room for dimensions in minitvm_input_info / minitvm_output_info.
MAX_INFO_DIMS = 8

_DTYPES = {code: name for name, code in DTYPE_CODES.items()}

#: The file each library path this process loaded was, as (device, inode). The dynamic
#: loader hands out the library it loaded first for a path, even once another file has
#: taken its place (a model exported again to the same path): load() refuses that case
#: rather than run the old model.
_LOADED: dict[str, tuple[int, int]] = {}


class CTensor(ctypes.Structure):
    """`minitvm_tensor`."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
    ]


def _numpy_dtype(code: int, name: str) -> np.dtype:
    if code not in _DTYPES:
        raise MinitvmError(f"'{name}' has element type {code}, which this loader does not know")
    if _DTYPES[code] == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(_DTYPES[code])


def check_elf_complete(path: str, shown: str) -> None:
    """A MinitvmError if `path` is a 64-bit ELF file shorter than its own headers say: the
    dynamic loader maps a truncated library without complaint and the process dies of
    SIGBUS at its first touch of a missing page (a copy cut short, a full disk)."""
    with open(path, "rb") as file:
        header = file.read(64)
        size = os.fstat(file.fileno()).st_size
        if len(header) < 64 or header[:4] != b"\x7fELF" or header[4] != 2:
            return  # not a 64-bit ELF file: the loader's own error says what it is
        order = "<" if header[5] == 1 else ">"
        phoff, shoff = struct.unpack_from(order + "QQ", header, 0x20)
        phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", header, 0x36)
        needed = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
        if needed <= size:
            file.seek(phoff)
            table = file.read(phentsize * phnum)
            for n in range(phnum):
                offset, filesz = struct.unpack_from(order + "Q16xQ", table, n * phentsize + 8)
                needed = max(needed, offset + filesz)
    if needed > size:
        raise MinitvmError(
            f"{shown} is truncated: its ELF headers need {needed} bytes, the file has {size}"
        )


def _declare(lib: ctypes.CDLL) -> None:
    p, i32, i64p = ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int64)
    signatures = {
        "minitvm_abi_version": (ctypes.c_int, []),
        "minitvm_create": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(p)]),
        "minitvm_num_inputs": (ctypes.c_int, [p]),
        "minitvm_num_outputs": (ctypes.c_int, [p]),
        "minitvm_input_name": (ctypes.c_char_p, [p, ctypes.c_int]),
        "minitvm_output_name": (ctypes.c_char_p, [p, ctypes.c_int]),
        "minitvm_input_info": (ctypes.c_int, [p, ctypes.c_int, ctypes.POINTER(i32), ctypes.POINTER(i32), i64p]),
        "minitvm_output_info": (ctypes.c_int, [p, ctypes.c_int, ctypes.POINTER(i32), ctypes.POINTER(i32), i64p]),
        "minitvm_run": (ctypes.c_int, [p, ctypes.POINTER(CTensor), ctypes.c_int, ctypes.POINTER(CTensor), ctypes.c_int]),
        "minitvm_last_error": (ctypes.c_char_p, []),
        "minitvm_destroy": (None, [p]),
    }  # fmt: skip
    for name, (restype, argtypes) in signatures.items():
        try:
            function = getattr(lib, name)
        except AttributeError:
            raise MinitvmError(f"{lib._name} is not a library minitvm exported (no {name})") from None
        function.restype, function.argtypes = restype, argtypes
    # (minitvm_output_shape is only in libraries of models with sizes known only at run
    # time, which need it: older ones, all of fixed sizes, lack it; the others came with
    # ABI version 2)
    optional = {
        "minitvm_output_shape": (ctypes.c_int, [p, ctypes.POINTER(CTensor), ctypes.c_int, ctypes.c_int, i64p]),
        "minitvm_run_alloc": (ctypes.c_int, [p, ctypes.POINTER(CTensor), ctypes.c_int, ctypes.POINTER(CTensor), ctypes.c_int]),
        "minitvm_free": (None, [p]),
    }  # fmt: skip
    for name, (restype, argtypes) in optional.items():
        function = getattr(lib, name, None)
        if function is not None:
            function.restype, function.argtypes = restype, argtypes


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


class Library(ModelSpecs):
    """A model exported by `minitvm export`, loaded and created (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str], num_threads: int | None = None, weights: str | None = None):
        """`num_threads`: threads the model runs on (None: every core this process may
        use); `weights`: the path of its weights file if it was exported with
        `--weights file` and the file is not beside it."""
        self.path = os.fspath(path)
        if not os.path.isfile(self.path):
            raise MinitvmError(f"no such library: {self.path}")
        real = os.path.realpath(self.path)
        stat = os.stat(real)
        identity = (stat.st_dev, stat.st_ino)
        if _LOADED.setdefault(real, identity) != identity:
            raise MinitvmError(
                f"this process already loaded another file at {self.path} (an earlier export "
                "to the same path?), and the dynamic loader would hand out that one: load the "
                "new library under another name, or in a new process"
            )
        try:
            check_elf_complete(real, self.path)
            self._lib = ctypes.CDLL(real)
            _declare(self._lib)
        except OSError as e:
            del _LOADED[real]
            raise MinitvmError(f"cannot load {self.path}: {e}") from None
        except MinitvmError:
            del _LOADED[real]
            raise
        version = self._lib.minitvm_abi_version()
        if version not in ABI_VERSIONS:
            raise MinitvmError(
                f"{self.path} has C API version {version}; this minitvm speaks "
                f"{', '.join(map(str, ABI_VERSIONS))}"
            )
        threads = 0 if num_threads is None else num_threads
        if threads < 1 and num_threads is not None:
            raise MinitvmError(f"num_threads must be >= 1, got {num_threads}")
        handle = ctypes.c_void_p()
        encoded = None if weights is None else os.fsencode(weights)
        self._check(self._lib.minitvm_create(encoded, threads, ctypes.byref(handle)))
        self._model = handle
        #: Threads the model runs on (0 asks the library for one per core it may use, as
        #: host.default_num_threads counts them; host is not imported: it loads LLVM).
        self.num_threads = threads or _usable_cores()
        self._info_shapes: list[list[int]] = []  # what the info calls gave, -1 and -2 kept
        self.inputs = [self._spec(i, output=False) for i in range(self._lib.minitvm_num_inputs(handle))]
        self.outputs = [self._spec(i, output=True) for i in range(self._lib.minitvm_num_outputs(handle))]
        self._input_name_set = frozenset(s.name for s in self.inputs)
        #: The sizes known only at run time, as the Executable has them: here one per input
        #: dimension the library gives as -1 (the C API does not name them), unbounded as
        #: far as Python knows (the library checks its bounds). Sizes the code finds as it
        #: runs stay the library's: it reruns and checks as the Executable does.
        self.symbols = sorted(
            {name for s in self.inputs for d in s.shape if (name := bare_symbol(d)) is not None}
        )
        self.bounds: dict[str, tuple[int, int]] = {}
        self.set_sizes: dict[str, object] = {}
        check_fits_in_memory([*self.inputs, *self.outputs], 0)  # (the arena is allocated)
        self._shapes = [
            (ctypes.c_int64 * max(1, len(s.shape)))(*self._info_shapes[n])
            for n, s in enumerate((*self.inputs, *self.outputs))
        ]
        self._tensors_in = (CTensor * max(1, len(self.inputs)))()
        self._tensors_out = (CTensor * max(1, len(self.outputs)))()
        for tensors, specs, shapes in (
            (self._tensors_in, self.inputs, self._shapes[: len(self.inputs)]),
            (self._tensors_out, self.outputs, self._shapes[len(self.inputs) :]),
        ):
            for tensor, spec, shape in zip(tensors, specs, shapes):
                tensor.dtype = DTYPE_CODES[spec.dtype.name]
                tensor.ndim = len(spec.shape)
                tensor.shape = shape
        #: Whether an output has a size the model finds as it runs (-2 in its info): the
        #: library then allocates the outputs (minitvm_run_alloc).
        self._outputs_found = any(FOUND_DIM in shape[: len(spec.shape)] for spec, shape in
                                  zip(self.outputs, self._shapes[len(self.inputs) :]))  # fmt: skip
        self._lock = threading.Lock()  # the tensors above are shared by every run

    def _check(self, code: int) -> None:
        if code != 0:
            message = self._lib.minitvm_last_error().decode(errors="replace")
            raise MinitvmError(f"{os.path.basename(self.path)}: {message}")

    def _spec(self, i: int, output: bool) -> TensorSpec:
        name_of = self._lib.minitvm_output_name if output else self._lib.minitvm_input_name
        info = self._lib.minitvm_output_info if output else self._lib.minitvm_input_info
        dtype, ndim, shape = ctypes.c_int32(), ctypes.c_int32(), (ctypes.c_int64 * MAX_INFO_DIMS)()
        self._check(info(self._model, i, ctypes.byref(dtype), ctypes.byref(ndim), shape))
        name = name_of(self._model, i).decode()
        self._info_shapes.append(list(shape[: ndim.value]))
        dims = tuple(
            symbol(name_from(f"{name}_{axis}")) if size < 0 else size  # known at run time
            for axis, size in enumerate(shape[: ndim.value])
        )
        return TensorSpec(name, dims, _numpy_dtype(dtype.value, name))

    def run(self, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """Run the model; outputs come back in the graph's output order."""
        if self._model is None:
            raise MinitvmError(f"{self.path} was closed")
        arrays = checked_inputs(self.inputs, self._input_name_set, inputs)
        with self._lock:
            for tensor, array, shape in zip(self._tensors_in, arrays, self._shapes):
                tensor.data = data_address(array)
                shape[: array.ndim] = array.shape  # (a size known at run time: this run's)
            if self._outputs_found:
                return self._run_alloc()
            results = [
                np.empty(spec.shape, spec.dtype) if spec.is_static else np.empty(self._output_shape(i), spec.dtype)
                for i, spec in enumerate(self.outputs)
            ]
            for tensor, array in zip(self._tensors_out, results):
                tensor.data = data_address(array)
            self._check(
                self._lib.minitvm_run(
                    self._model, self._tensors_in, len(self.inputs), self._tensors_out, len(self.outputs)
                )
            )
        return results

    def _run_alloc(self) -> list[np.ndarray]:
        """minitvm_run_alloc on the inputs now in `_tensors_in` (the lock held): the outputs
        the library allocated, copied into numpy's memory and freed."""
        call = self._lib.minitvm_run_alloc
        self._check(call(self._model, self._tensors_in, len(self.inputs), self._tensors_out, len(self.outputs)))
        results = []
        try:
            for tensor, spec in zip(self._tensors_out, self.outputs):
                shape = tuple(tensor.shape[: len(spec.shape)])
                result = np.empty(shape, spec.dtype)
                if result.nbytes:
                    ctypes.memmove(data_address(result), tensor.data, result.nbytes)
                results.append(result)
        finally:
            for tensor in self._tensors_out:
                self._lib.minitvm_free(tensor.data)
                tensor.data = None
        return results

    def _output_shape(self, i: int) -> tuple[int, ...]:
        """Output `i`'s shape for the inputs now in `_tensors_in` (the library computes it)."""
        shape = (ctypes.c_int64 * max(1, len(self.outputs[i].shape)))()
        self._check(
            self._lib.minitvm_output_shape(self._model, self._tensors_in, len(self.inputs), i, shape)
        )
        return tuple(shape[: len(self.outputs[i].shape)])

    def close(self) -> None:
        """minitvm_destroy: stop the model's threads, free its memory (also on garbage
        collection)."""
        if getattr(self, "_model", None) is not None:
            self._lib.minitvm_destroy(self._model)
            self._model = None

    def __del__(self) -> None:
        self.close()


def load(path: str | os.PathLike[str], num_threads: int | None = None, weights: str | None = None) -> Library:
    """An exported library, ready to run (see `Library`)."""
    return Library(path, num_threads, weights)
