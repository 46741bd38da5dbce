"""A compiled model: native code plus the buffers it runs over. No xDSL in here.

The generated entry point has the C signature `void main(void **io, void **consts, char *arena)`
(abi.py holds the contract with the generated code): `io` holds the input then output buffers,
`consts` the weights, `arena` every intermediate tensor at offsets fixed at compile time.
The Executable owns all three, so a run is: check the inputs, point `io` at them and at the
output buffers, call once, hand out the outputs (small ones are copied out of buffers the
Executable keeps, see SMALL_OUTPUT_BYTES). Intermediates are allocated once per Executable,
not per run. What a run works out from the inputs' shapes alone (the checks they pass, the
symbols' values, the arena's size, the outputs' buffers) is worked out once per shape
(`_RunPlan`): a run at a shape seen before checks only the arrays' names, dtypes and layouts.

Code with parallel loops has an `int32_t` global holding the thread count, which each run sets
from `num_threads` (so it may be changed between runs), and a function pointer global that
the Executable points at the runtime's thread pool (thread_pool.py).
"""

from __future__ import annotations

import ctypes
import math
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from minitvm.errors import MinitvmError
from minitvm.runtime import thread_pool
from minitvm.runtime.abi import ALIGNMENT, ENTRY_SIGNATURE, ENTRY_SIZES_SIGNATURE, NUM_THREADS_TYPE
from minitvm.runtime.kernel_clock import KernelClock
from minitvm.symbolic import (
    SYMBOL_RANGE,
    SymDim,
    bare_symbol,
    capacity,
    evaluate,
    evaluator,
    parse_dim,
    symbols_of,
)

EntryPoint = Callable[[ctypes.Array, ctypes.Array, ctypes.c_void_p], None]
#: `exporter(inputs, outputs, constants, path, weights=...)`: writes a compiled model's code
#: as a shared library (deploy.library.export_library with the code bound).
Exporter = Callable[..., object]


@dataclass(frozen=True)
class TensorSpec:
    """Name, shape and element type of a model input or output; a dimension known only at
    run time is a `SymDim` (`batch`, `seq + 1`)."""

    name: str
    shape: tuple[int | SymDim, ...]
    dtype: np.dtype

    def describe(self) -> str:
        return f"{self.name}: {self.dtype}[{', '.join(map(str, self.shape))}]"

    @property
    def is_static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)


def outside_bound(lo: int, hi: int, source: str | None = None) -> str:
    """How a refusal names the range a size is outside: the one the model was compiled for
    (given by `input_shapes`), or the one a node (`source`) needs, which the import took
    because the model's own shapes hold only there (a position table's 64 rows)."""
    if source:
        return f"outside the {lo}..{hi} that {source} needs"
    return f"outside the {lo}..{hi} the model was compiled for"


def bind_symbols(
    specs: Sequence[TensorSpec],
    arrays: Sequence[np.ndarray],
    symbols: Sequence[str],
    bounds: Mapping[str, tuple[int, int]],
    given: Mapping[str, int] | None = None,
    sources: Mapping[str, str] | None = None,
) -> dict[str, int]:
    """The symbols' values: those `given`, and those the inputs' shapes give (a dimension
    that is just a symbol names it), checked: every other symbolic dimension must then equal
    its expression, each symbol is at least 1 and within its bound; a MinitvmError says which
    input (or given size) is off, and for a bound a node needs, that node (`sources`)."""
    sources = sources or {}
    values: dict[str, int] = {}
    origin: dict[str, str] = {}
    for name, size in (given or {}).items():
        if name not in symbols:
            raise MinitvmError(f"size '{name}' is none of the model's ({', '.join(symbols) or 'none'})")
        lo, hi = bounds.get(name, (1, SYMBOL_RANGE[1]))
        if not lo <= size <= hi:
            raise MinitvmError(f"size '{name}' is {size}, {outside_bound(lo, hi, sources.get(name))}")
        values[name] = size
        origin[name] = "the sizes given"
    for spec, array in zip(specs, arrays):
        for axis, (dim, size) in enumerate(zip(spec.shape, array.shape)):
            name = bare_symbol(dim)
            if name is None or name in values:
                continue
            lo, hi = bounds.get(name, (1, SYMBOL_RANGE[1]))
            if not lo <= size <= hi:
                raise MinitvmError(
                    f"input '{spec.name}' dimension {axis} ('{name}') is {size}, "
                    f"{outside_bound(lo, hi, sources.get(name))}"
                    + ("" if size else " (a size of 0 needs a compile with input_shapes)")
                )
            values[name] = size
            origin[name] = f"input '{spec.name}' dimension {axis}"
    missing = [s for s in symbols if s not in values]
    if missing:
        raise MinitvmError(
            f"the sizes {', '.join(missing)} are no input's dimension: give them with "
            "input_shapes when compiling"
        )
    for spec, array in zip(specs, arrays):
        for axis, (dim, size) in enumerate(zip(spec.shape, array.shape)):
            if isinstance(dim, SymDim) and evaluate(dim, values) != size:
                told = ", ".join(f"{s} = {values[s]} (from {origin[s]})" for s in sorted(symbols_of(dim)))
                raise MinitvmError(
                    f"input '{spec.name}' dimension {axis} is {size}, but the model says "
                    f"{dim} = {evaluate(dim, values)} there: {told}"
                )
    return values



def random_arrays(specs: Sequence[TensorSpec], seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded arrays for `specs`, by name: floats ~ N(0, 1), booleans fair coins, integers
    in [0, 4) (valid as small indices). What benchmarks, checks and the tuner feed."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for spec in specs:
        if spec.dtype.kind == "f" or spec.dtype.name == "bfloat16":  # ml_dtypes' kind is "V"
            arrays[spec.name] = rng.standard_normal(spec.shape).astype(spec.dtype)
        elif spec.dtype.kind == "b":
            arrays[spec.name] = rng.random(spec.shape) < 0.5
        else:
            arrays[spec.name] = rng.integers(0, 4, spec.shape).astype(spec.dtype)
    return arrays


def data_address(array: np.ndarray) -> int:
    """The address of a C-contiguous `array`'s first element.

    Through a ctypes view of its buffer where it has one (a writable array of at least one
    byte): 0.26 us, where `array.ctypes.data` takes 0.95 us. A run of a small model reads
    two or three addresses, and ONNX Runtime's whole Python overhead is a few microseconds."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError):  # read-only, or empty
        return array.ctypes.data


def aligned_empty(shape: Sequence[int], dtype: np.dtype | type) -> np.ndarray:
    """An uninitialized C-contiguous array whose data starts on an ALIGNMENT boundary."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    storage = np.empty(nbytes + ALIGNMENT, dtype=np.uint8)
    offset = -data_address(storage) % ALIGNMENT
    return np.ndarray(tuple(shape), dtype, storage, offset)


#: Outputs up to this size are written into buffers the Executable keeps and copied out
#: (0.3 us), rather than into a fresh aligned array (1 us, most of it numpy working out the
#: new array's address). On bigger outputs the copy would cost more than that saves. An
#: output of run-time shape is, at the shapes where it is this small (a buffer of this size
#: per output, made at the first).
SMALL_OUTPUT_BYTES = 16384


def aligned_copy(array: np.ndarray) -> np.ndarray:
    """`array` as a C-contiguous ALIGNMENT-aligned array (itself if it already is one)."""
    if array.flags.c_contiguous and array.ctypes.data % ALIGNMENT == 0:
        return array
    copy = aligned_empty(array.shape, array.dtype)
    copy[...] = array
    return copy


def physical_memory() -> int | None:
    """Bytes of RAM this machine has (None where the OS does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_fits_in_memory(specs: Sequence[TensorSpec], arena_bytes: int) -> None:
    """A MinitvmError if one input, output or the intermediates alone would take more memory
    than the machine has: a clear message now instead of numpy's MemoryError mid-run."""
    sizes = [
        (s.describe(), math.prod(s.shape) * np.dtype(s.dtype).itemsize) for s in specs if s.is_static
    ]
    sizes.append(("intermediates", arena_bytes))
    for what, size in sizes:
        problem = beyond_memory(size)
        if problem:
            raise MinitvmError(f"the model's {what} {problem}")


def beyond_memory(nbytes: int) -> str | None:
    """What to tell a user about a tensor of `nbytes` ("would take 4.00 TiB, more than this
    machine's 23.5 GiB of memory"), or None if it fits in the machine's memory."""
    memory = physical_memory()
    if memory is None or nbytes <= memory:
        return None
    return f"would take {_bytes(nbytes)}, more than this machine's {_bytes(memory)} of memory"


def _bytes(n: int) -> str:
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n} bytes"


def checked_inputs(
    specs: Sequence[TensorSpec], names: frozenset[str], inputs: Mapping[str, np.ndarray]
) -> list[np.ndarray]:
    """`inputs` in `specs`' order as aligned C-contiguous arrays, once every name, shape and
    element type is the model's (`names`: the specs' names); else a MinitvmError that says
    what. Layout is not the caller's problem: a strided, Fortran-ordered, misaligned or
    byte-swapped array is copied into the layout the code reads (a read-only one is only
    read); the generated code sees nothing else."""
    if type(inputs) is not dict and not isinstance(inputs, Mapping):  # (isinstance: 0.24 us)
        raise MinitvmError(
            f"run() takes a dict of input name -> array, got {type(inputs).__name__}; the "
            f"model expects {'; '.join(s.describe() for s in specs)}"
        )
    if inputs.keys() != names:
        unknown = sorted(map(str, set(inputs) - names))
        missing = [s.name for s in specs if s.name not in inputs]
        expected = "; ".join(s.describe() for s in specs)
        problem = []
        if missing:
            problem.append(f"missing input(s) {', '.join(missing)}")
        if unknown:
            problem.append(f"unknown input(s) {', '.join(unknown)}")
        raise MinitvmError(f"{' and '.join(problem)}; the model expects {expected}")
    arrays = []
    for spec in specs:
        try:
            array = np.asarray(inputs[spec.name])
        except (ValueError, TypeError) as e:  # a ragged nested list, an object numpy rejects
            raise MinitvmError(f"input '{spec.name}' is not an array: {e}") from None
        shape_ok = array.shape == spec.shape or (
            not spec.is_static
            and len(array.shape) == len(spec.shape)
            and all(isinstance(d, SymDim) or d == n for d, n in zip(spec.shape, array.shape))
        )
        if not shape_ok or array.dtype != spec.dtype:
            if shape_ok and array.dtype.newbyteorder("=") == spec.dtype:
                array = array.astype(spec.dtype)  # the same numbers in the other byte order
            else:
                got = f"{array.dtype}[{', '.join(map(str, array.shape))}]"
                raise MinitvmError(
                    f"input '{spec.name}' is {got} but the model expects {spec.describe()}"
                )
        flags = array.flags
        if not (flags.c_contiguous and flags.aligned):  # (np.require costs 0.9 us: not always)
            array = np.require(array, requirements=("C", "A"))
        arrays.append(array)
    return arrays


#: The capacity a size found as the code runs (graph.iota's) starts at; that of a dim of a
#: shape found at once (a group: a buffer is planned for the product of their capacities).
INITIAL_CAPACITY = 64
GROUP_INITIAL_CAPACITY = 1

#: Input shapes (with the sizes given) an Executable keeps a `_RunPlan` for: a run at a shape
#: seen before looks up its checked sizes, arena size and output buffers; a server fed every
#: length in turn drops them all when there are more.
RUNS_KEPT = 4096

#: A dimension of an output whose shape uses a size found as the code runs, ready to read
#: from the sizes after the run: a constant, a symbol's name, or its expression compiled.
FoundDim = int | str | Callable[[Mapping[str, int]], int]


@dataclass(slots=True, eq=False)
class _RunPlan:
    """What a run at one input shape (and sizes given) works out before it calls the code:
    none of it depends on the inputs' values, so a run at a shape seen before does none of it
    again. A small dynamic model's run spent more than half of its 15 us on it (checks,
    symbol binding, size expressions, output allocation), where all of ONNX Runtime's run
    takes 5.5 us."""

    #: Its key in `Executable._runs` (see `_run_key`), and the input symbols' values,
    #: checked (bind_symbols): a plan made again after the capacities grew (`version`)
    #: starts from them without checking the shapes again.
    key: object
    bound: dict[str, int]
    #: `Executable._version` when planned: the capacities it read.
    version: int
    #: The sizes the code is called with, in the order of `Executable.symbols`, and the
    #: ctypes array of them the call passes (None without symbols) with its address. The
    #: code writes the sizes it finds into the array: a model with set sizes restores it
    #: from `values` before each call.
    values: tuple[int, ...]
    sizes: ctypes.Array | None
    sizes_address: int
    #: Bytes of arena the run needs.
    arena: int
    #: Per output, the buffer the code writes it into when that is one the Executable keeps
    #: (copied out after the run), else None: a fresh array, allocated each run.
    buffers: list[np.ndarray | None]
    #: The outputs allocated each run: slot, shape, dtype, in the outputs' order.
    fresh: list[tuple[int, tuple[int, ...], np.dtype]]
    #: The io slots of dynamic outputs kept in the Executable's buffers, with their
    #: addresses (a slot is pointed at a fresh array by a run at a shape where it is large).
    kept: list[tuple[int, int]]


class ModelSpecs:
    """What the Executable and an exported library (library.py) tell of a model's inputs
    and outputs, given their `inputs` and `outputs` lists of TensorSpecs."""

    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    #: The sizes known only at run time (none for an exported library): those the inputs'
    #: shapes give, within `bounds`, and those the code finds as it runs (`set_sizes`).
    symbols: Sequence[str] = ()
    bounds: Mapping[str, tuple[int, int]] = MappingProxyType({})
    #: The node that needs a bound, where the import took it from the model's shapes.
    bound_sources: Mapping[str, str] = MappingProxyType({})
    set_sizes: Mapping[str, int | SymDim] = MappingProxyType({})
    #: The capacities of sizes found as the code runs that no shape bounds (graph.iota's,
    #: `<size>_cap`), each with its value now: supplied like an input's size, raised when a
    #: run needs more.
    capacities: Mapping[str, int] = MappingProxyType({})

    @property
    def input_names(self) -> list[str]:
        return [s.name for s in self.inputs]

    @property
    def input_shapes(self) -> dict[str, tuple[int, ...]]:
        return {s.name: s.shape for s in self.inputs}

    @property
    def output_names(self) -> list[str]:
        return [s.name for s in self.outputs]


class Executable(ModelSpecs):
    """Runs a compiled model: `exe.run({"input": array}) -> [outputs...]`."""

    def __init__(
        self,
        entry_address: int,
        owner: object,
        inputs: Sequence[TensorSpec],
        outputs: Sequence[TensorSpec],
        constants: Sequence[np.ndarray],
        arena_size: int,
        num_threads: int = 1,
        stats: Mapping[str, object] | None = None,
        threads_address: int | None = None,
        pool_address: int | None = None,
        exporter: Exporter | None = None,
        symbols: Sequence[str] = (),
        bounds: Mapping[str, tuple[int, int]] | None = None,
        bound_sources: Mapping[str, str] | None = None,
        arena_size_expr: str = "0",
        set_sizes: Mapping[str, str] | None = None,
        checks: Mapping[str, str] | None = None,
        groups: Mapping[str, str] | None = None,
        kernel_clock: KernelClock | None = None,
    ):
        """For code with parallel loops: the addresses of its `int32_t` thread count and of
        its `void *` thread-pool slot. `exporter` writes the same code out as a library
        (`export`; the compiler's deploy/library.py). `symbols`: the sizes the entry takes
        as its fourth argument, in order (a model compiled with symbolic dimensions; their
        values come from the inputs' shapes at each run, within `bounds`; `bound_sources`
        names the node that needs a bound, for the refusal to say), except for those of
        `set_sizes`: counts the code finds as it runs (NonZero's), each with its bound, an
        expression of the symbols before it; their values come back in the sizes array and
        give the outputs whose shapes use them their run-time shapes. A run whose count exceeds
        its capacity (`capacities`) stops there: the capacity is raised and the run repeated.
        `checks`: the set sizes that are run-time checks, with their messages (a run that
        stops on one raises a MinitvmError with it). `groups`: the set sizes that are the dims
        of one shape, each with its group's name: when one exceeds its capacity, the group's
        capacities become this run's sizes (see `_stopped`). `kernel_clock`: the counters
        of a compile instrumented to time each kernel call (runtime/kernel_clock.py)."""
        check_fits_in_memory([*inputs, *outputs], arena_size)
        self._owner = owner  # keeps the code (e.g. the LLVM execution engine) alive
        self.kernel_clock = kernel_clock
        self.symbols = list(symbols)
        self.bounds = dict(bounds or {})
        self.bound_sources = dict(bound_sources or {})
        self.set_sizes = {name: parse_dim(bound) for name, bound in (set_sizes or {}).items()}
        self.checks = dict(checks or {})
        self.groups = dict(groups or {})
        self.capacities = {
            capacity(name): GROUP_INITIAL_CAPACITY if name in self.groups else INITIAL_CAPACITY
            for name in self.set_sizes if capacity(name) in self.symbols
        }  # fmt: skip
        self._input_symbols = [
            s for s in self.symbols if s not in self.set_sizes and s not in self.capacities
        ]
        #: Each set size with its bound compiled (read after each run that sets sizes).
        self._set_size_bounds = [(name, evaluator(most)) for name, most in self.set_sizes.items()]
        #: The outputs whose shapes use a size set as the code runs: their positions, and
        #: their dims as the sizes found give them.
        self._found_outputs: list[tuple[int, list[FoundDim]]] = [
            (n, [_found_dim(d) for d in spec.shape]) for n, spec in enumerate(outputs)
            if any(symbols_of(d) & self.set_sizes.keys() for d in spec.shape if isinstance(d, SymDim))
        ]  # fmt: skip
        #: The arena the sizes of a run need (buffers of run-time size lie above the rest):
        #: it grows to the largest run's, and is reused by every run after it.
        self._arena_size_of = evaluator(parse_dim(arena_size_expr))
        #: A run's plan by its inputs' shapes (and the sizes given, see `_run_key`): one per
        #: shape seen, made at its first run, once its checks passed (a shape that fails them
        #: is never kept, so it fails every time). Up to RUNS_KEPT.
        self._runs: dict[object, _RunPlan] = {}
        #: Counts the changes of `capacities` (`_stopped`): a plan made before the last one
        #: is made again, from the symbols it bound.
        self._version = 0
        self._entry = (ENTRY_SIZES_SIGNATURE if self.symbols else ENTRY_SIGNATURE)(entry_address)
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self._input_name_set = frozenset(s.name for s in self.inputs)
        #: (name, dtype) of each input: what a run checks of an array at a shape seen before.
        self._input_dtypes = [(s.name, s.dtype) for s in self.inputs]
        #: Threads parallel loops run on (read at each run).
        self.num_threads = num_threads
        self._threads = (
            None if threads_address is None else NUM_THREADS_TYPE.from_address(threads_address)
        )
        if pool_address is not None:
            ctypes.c_void_p.from_address(pool_address).value = thread_pool.parallel_for_address()
        self.stats = dict(stats or {})
        self._constants = [aligned_copy(c) for c in constants]
        self._consts = (ctypes.c_void_p * max(1, len(self._constants)))(
            *[c.ctypes.data for c in self._constants]
        )
        self._arena_size = arena_size
        # (at least a line: numpy points an empty array at no particular address)
        self._arena_storage = aligned_empty((max(arena_size, ALIGNMENT),), np.uint8)
        self._arena = ctypes.c_void_p(self._arena_storage.ctypes.data)
        self._io = (ctypes.c_void_p * max(1, len(self.inputs) + len(self.outputs)))()
        #: The entry's pointer arguments as addresses: ctypes passes an int to a void *
        #: argument in a third of the time it takes to convert an array or a c_void_p.
        self._addresses = [
            ctypes.addressof(self._io), ctypes.addressof(self._consts), self._arena.value
        ]
        #: Per output: its slot in `_io`, and the buffer the code writes it into if it is
        #: small (see SMALL_OUTPUT_BYTES; the slot points at it for good), else None.
        self._output_slots: list[tuple[int, np.ndarray | None]] = []
        for slot, spec in enumerate(self.outputs, len(self.inputs)):
            buffer = None
            if spec.is_static and math.prod(spec.shape) * np.dtype(spec.dtype).itemsize <= SMALL_OUTPUT_BYTES:
                buffer = aligned_empty(spec.shape, spec.dtype)
                self._io[slot] = data_address(buffer)
            self._output_slots.append((slot, buffer))
        #: A dynamic output's slot -> SMALL_OUTPUT_BYTES the code writes it into at the shapes
        #: where it is small (made at the first such), as a static small output's buffer.
        self._small_storage: dict[int, np.ndarray] = {}
        self._lock = threading.Lock()  # one arena: runs of one Executable take turns
        self._exporter = exporter

    @property
    def arena_bytes(self) -> int:
        return self._arena_size

    def _checked_inputs(self, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        return checked_inputs(self.inputs, self._input_name_set, inputs)

    def export(self, path: str, weights: str = "embed") -> object:
        """Write this model's code as a shared library with minitvm's C API (and its header
        beside it; with weights="file" its weights too): see `minitvm export`."""
        if self._exporter is None:
            raise MinitvmError("this Executable was not built by minitvm.compile: nothing to export")
        if self.kernel_clock is not None:
            raise MinitvmError(
                "this Executable times its kernels (compiled with instrument=True, for "
                "profiling): compile without it to export"
            )
        return self._exporter(self.inputs, self.outputs, self._constants, path, weights=weights)

    def run(
        self, inputs: Mapping[str, np.ndarray], sizes: Mapping[str, int] | None = None
    ) -> list[np.ndarray]:
        """Run the model; outputs come back in the graph's output order. `sizes`: values of
        symbols no input's shape gives (a kernel alone, as the tuner runs it; the inputs'
        shapes must agree with them). Safe from many threads at once: runs of this
        Executable take turns (one arena, one set of small output buffers), runs of
        different ones go side by side.

        A run at input shapes seen before (`_runs`) checks only what its plan cannot know:
        the names, types, dtypes and layouts of the arrays; anything unusual (a list, another
        dtype, a strided or read-only array, sizes given) takes `checked_inputs`, which
        converts or raises as it always has."""
        known = self._known_run(inputs) if sizes is None else None
        if known is None:
            arrays = self._checked_inputs(inputs)
            plan = None
        else:
            arrays, plan = known
        if self.num_threads < 1:
            raise MinitvmError(f"num_threads must be >= 1, got {self.num_threads}")
        key: object = None
        bound = None
        if plan is None:
            key = _run_key(arrays, sizes)
            plan = self._runs.get(key)
            if plan is None:
                bound = self._bind(arrays, sizes) if self.symbols else {}
        found: dict[str, int] = {}
        with self._lock:
            if plan is None or plan.version != self._version:
                plan = self._plan(key, bound, plan)
            while True:  # (again when a count found as it ran exceeded its capacity)
                fresh = self._call(arrays, plan)
                if not self.set_sizes:
                    break
                found = dict(zip(self.symbols, plan.sizes))  # type: ignore[arg-type]
                if not self._stopped(found):
                    break
                plan = self._plan(None, None, plan)
            fresh_outputs = iter(fresh)
            results = [next(fresh_outputs) if b is None else b.copy() for b in plan.buffers]
            for n, dims in self._found_outputs:
                shape = [
                    d if type(d) is int else found[d] if type(d) is str else d(found)
                    for d in dims
                ]
                results[n] = _leading(results[n], shape)
            return results

    def _known_run(
        self, inputs: Mapping[str, np.ndarray]
    ) -> tuple[list[np.ndarray], _RunPlan] | None:
        """The input arrays in order and the plan of their shapes, if `inputs` is a dict of
        exactly the model's inputs, each a C-contiguous aligned ndarray of the model's dtype,
        at shapes planned before (so they passed the checks); else None: `checked_inputs`
        then converts them or says what is wrong."""
        if type(inputs) is not dict or inputs.keys() != self._input_name_set:
            return None
        arrays = []
        shapes = []
        for name, dtype in self._input_dtypes:
            array = inputs[name]
            if type(array) is not np.ndarray or array.dtype != dtype:
                return None
            flags = array.flags  # (carray: C-contiguous, aligned and writable, in one look)
            if not flags.carray and not (flags.c_contiguous and flags.aligned):
                return None
            arrays.append(array)
            shapes.append(array.shape)
        plan = self._runs.get(tuple(shapes))
        return None if plan is None else (arrays, plan)

    def _bind(self, arrays: list[np.ndarray], given: Mapping[str, int] | None) -> dict[str, int]:
        """`bind_symbols` of these inputs (and sizes given): checked, once per shape (`_runs`)."""
        return bind_symbols(
            self.inputs, arrays, self._input_symbols, self.bounds, given, self.bound_sources
        )

    def _plan(self, key: object, bound: dict[str, int] | None, old: _RunPlan | None) -> _RunPlan:
        """The plan of a run at `key` whose symbols are `bound`, or of `old`'s again (the
        capacities changed since), kept in `_runs` (the lock held: it reads the capacities
        and may make small output buffers). Sizes set as the code runs are planned at their
        bounds: outputs are allocated for them."""
        if old is not None:
            key, bound = old.key, old.bound
        assert bound is not None
        sizes = {**bound, **self.capacities}
        for name, most in self.set_sizes.items():
            sizes[name] = evaluate(most, sizes)
        values = tuple(sizes[s] for s in self.symbols)
        arena = self._arena_size_of(sizes) if self.symbols else 0
        array = (ctypes.c_int64 * len(values))(*values) if values else None
        buffers: list[np.ndarray | None] = []
        fresh: list[tuple[int, tuple[int, ...], np.dtype]] = []
        kept: list[tuple[int, int]] = []
        for (slot, buffer), spec in zip(self._output_slots, self.outputs):
            if buffer is None:
                shape = tuple(evaluate(d, sizes) for d in spec.shape)
                nbytes = math.prod(shape) * np.dtype(spec.dtype).itemsize
                if nbytes <= SMALL_OUTPUT_BYTES:
                    storage = self._small_storage.get(slot)
                    if storage is None:
                        storage = aligned_empty((SMALL_OUTPUT_BYTES,), np.uint8)
                        self._small_storage[slot] = storage
                    buffer = storage[:nbytes].view(spec.dtype).reshape(shape)
                    kept.append((slot, data_address(storage)))
                else:
                    fresh.append((slot, shape, spec.dtype))
            buffers.append(buffer)
        address = 0 if array is None else ctypes.addressof(array)
        plan = _RunPlan(key, bound, self._version, values, array, address, arena, buffers, fresh, kept)
        if len(self._runs) >= RUNS_KEPT:
            self._runs.clear()
        self._runs[key] = plan
        return plan

    def _call(self, arrays: list[np.ndarray], plan: _RunPlan) -> list[np.ndarray]:
        """One call of the entry (the lock held): the inputs and the plan's outputs in `_io`,
        the sizes of `plan` (after it: those the code found, in `plan.sizes`), the arena
        grown to its size. Returns the outputs allocated for this run."""
        if self._threads is not None:
            self._threads.value = self.num_threads
        io = self._io
        for slot, array in enumerate(arrays):
            io[slot] = data_address(array)
        fresh = []
        for slot, shape, dtype in plan.fresh:
            array = aligned_empty(shape, dtype)
            io[slot] = data_address(array)
            fresh.append(array)
        for slot, address in plan.kept:
            io[slot] = address
        if plan.arena > self._arena_storage.size:
            self._arena_storage = aligned_empty((plan.arena,), np.uint8)
            self._arena = ctypes.c_void_p(self._arena_storage.ctypes.data)
            self._addresses[2] = self._arena.value
        io_address, consts_address, arena_address = self._addresses
        if plan.sizes is None:
            self._entry(io_address, consts_address, arena_address)
        else:
            if self.set_sizes:  # (the last call wrote the sizes it found there)
                plan.sizes[:] = plan.values
            self._entry(io_address, consts_address, arena_address, plan.sizes_address)
        return fresh

    def _stopped(self, found: dict[str, int]) -> bool:
        """Whether the run stopped at a size over its bound (`loop.set_size`): a failed check
        raises its message; a count over its capacity raises the capacity (to the count, at
        least doubled: a growing sequence of sizes reruns O(log) times) for the next run.
        A dim of a group (one shape's) does not grow alone, or a buffer of that shape would
        be planned for the product of each dim's largest size ever: the group's dims that
        this run set before it, and it, take this run's sizes; those after it, not yet
        known, start over (each costs a rerun that stops there if it is larger). A change of
        the capacities makes every plan made before it stale (`_version`)."""
        for k, (name, most) in enumerate(self._set_size_bounds):
            if found[name] <= most(found):
                continue
            if name in self.checks:
                raise MinitvmError(self.checks[name])
            cap = capacity(name)
            assert cap in self.capacities, (
                f"{name} = {found[name]} exceeds its bound {self.set_sizes[name]}"
            )
            self._version += 1
            group = self.groups.get(name)
            if group is None:
                self.capacities[cap] = max(found[name], 2 * self.capacities[cap])
                return True
            for j, member in enumerate(self.set_sizes):
                if self.groups.get(member) == group and capacity(member) in self.capacities:
                    known = j <= k  # (set by this run, which stopped at k)
                    self.capacities[capacity(member)] = found[member] if known else GROUP_INITIAL_CAPACITY
            return True
        return False


def _run_key(arrays: Sequence[np.ndarray], given: Mapping[str, int] | None) -> object:
    """What `Executable._runs` keeps a plan by: the inputs' shapes; with sizes given, the pair
    (shapes, sizes sorted), which equals no tuple of shapes (its first item is a tuple of
    tuples, a shape one of ints)."""
    shapes = tuple(a.shape for a in arrays)
    return (shapes, tuple(sorted(given.items()))) if given else shapes


def _found_dim(dim: int | SymDim) -> FoundDim:
    """`dim` ready to read from the sizes a run found (see FoundDim): an expression through
    `evaluator`, 0.2 us a dim where `evaluate` walks its terms in 1 us."""
    if not isinstance(dim, SymDim):
        return int(dim)
    return bare_symbol(dim) or evaluator(dim)


def _leading(buffer: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """An output written for a run-time size that the code found as it ran: its first
    elements, in `shape` (copied when it takes less than half the buffer, so that a few
    values found in a large buffer do not keep it alive)."""
    count = math.prod(shape)
    leading = buffer.reshape(-1)[:count].reshape(shape)
    return leading.copy() if 2 * count < buffer.size else leading


class GraphModule:
    """TVM's graph_executor.GraphModule interface over an Executable:
    `m = GraphModule(exe); m.set_input("data", x); m.run(); y = m.get_output(0)`."""

    def __init__(self, executable: Executable):
        self.executable = executable
        self._inputs: dict[str, np.ndarray] = {}
        self._outputs: list[np.ndarray] = []

    def set_input(self, key: str | None = None, value: np.ndarray | None = None, **params: np.ndarray) -> None:
        if key is not None:
            if value is None:
                raise MinitvmError(f"set_input('{key}') needs a value")
            params = {key: value, **params}
        for name, array in params.items():
            if name not in self.executable.input_names:
                raise MinitvmError(
                    f"unknown input '{name}'; inputs are {', '.join(self.executable.input_names)}"
                )
            self._inputs[name] = np.asarray(array)

    def run(self, **inputs: np.ndarray) -> None:
        self.set_input(**inputs)
        self._outputs = self.executable.run(self._inputs)

    def get_num_outputs(self) -> int:
        return len(self.executable.outputs)

    def get_output(self, index: int) -> np.ndarray:
        if not self._outputs:
            raise MinitvmError("get_output before run()")
        if not 0 <= index < len(self._outputs):
            raise MinitvmError(f"output index {index} out of range (the model has {len(self._outputs)})")
        return self._outputs[index]
