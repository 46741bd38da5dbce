"""convert-loop-to-llvm: loop-level functions -> llvm dialect functions, and the entry ABI.

Before (kernels and the @main plan from convert-te-to-loop):

    func.func @relu(%x: memref<4x8xf32>, %y: memref<4x8xf32>) { loop.for ... }
    func.func @main(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
      %w = loop.constant #graph.weights<w_0123> : memref<4x8xf32>
      %t = loop.alloc : memref<4x8xf32>
      func.call @add(%in, %w, %t) : (...) -> ()
      func.call @relu(%t, %out) : (...) -> ()
      func.return
    }

After:

    builtin.module attributes {minitvm.entry = {arena_size = 128 : i64, ...}} {
      llvm.func @relu(%x: !llvm.ptr, %y: !llvm.ptr) { ... }
      llvm.func @main(%io: !llvm.ptr, %consts: !llvm.ptr, %arena: !llvm.ptr) {
        %in = llvm.load %io : !llvm.ptr -> !llvm.ptr          // io[0]
        ...                                                    // %out = io[1], %w = consts[0]
        llvm.call @add(%in, %w, %arena) : (...) -> ()          // %t = arena + 0
        ...
      }
    }

Kernels take one `!llvm.ptr` per buffer. The entry function `@main` gets the C signature
`void main(void **io, void **consts, char *arena)`: `io` holds its original buffer arguments in
order (inputs, then outputs), `consts` one pointer per `loop.constant` in order of
appearance, and each `loop.alloc` is `arena + offset`: the `offset` attribute that
loop-plan-memory gives it (buffers with disjoint lifetimes share bytes), else offsets assigned
in order above the planned ones, 64-byte aligned. The module attribute
`minitvm.entry` records that layout (`CompiledModuleInfo`), so that the runtime knows which
constant goes where and how big the arena is; `lower_to_llvm` returns it decoded.

Elsewhere, `loop.alloc` is a 64-byte aligned `llvm.alloca` in the entry block up to 64 KiB,
`aligned_alloc`/`free` beyond; `loop.constant` is a private global. A `parallel` loop
becomes a multi-threaded region (parallel.py), and so does a `loop.sections` (sections.py).
MLIR counterpart: the `convert-{scf-to-cf,arith,math,memref,func}-to-llvm` family run as
one pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from minitvm.dialects.graph.constant import elements_array
from minitvm.lowering.loop_to_llvm.emitter import LoweringError, ModuleSymbols
from minitvm.lowering.loop_to_llvm.function import EntryLayout
from minitvm.lowering.loop_to_llvm.parallel import ParallelFunctionLowering
from minitvm.lowering.loop_to_llvm.sections import expand_sections
from minitvm.runtime.abi import ENTRY

#: Module attribute describing the entry function's buffers (see `CompiledModuleInfo`).
ENTRY_ATTR = "minitvm.entry"


@dataclass(frozen=True)
class CompiledModuleInfo:
    """What the runtime needs besides the code to call `main(io, consts, arena)`."""

    #: Types of the buffers `io` points to: @main's original arguments (inputs, then outputs).
    io: list[MemRefType]
    #: Per `consts` slot: the constant's value (`dense<...>`, `#graph.weights<...>` or
    #: `#graph.splat<...>`) and type.
    constants: list[tuple[Attribute, MemRefType]]
    #: Per `loop.alloc` in @main: (offset into the arena, size in bytes).
    allocs: list[tuple[int, int]]
    #: Bytes the arena must have (a multiple of 64; the arena must be 64-byte aligned).
    arena_size: int
    #: The symbols whose values `main`'s fourth argument points to (int64, in this order);
    #: empty: `main` takes three arguments.
    symbols: list[str] = field(default_factory=list)
    #: Bytes the arena must have with the buffers of run-time size, as an expression of the
    #: symbols (text; "0": none), which the run time evaluates at each run.
    arena_size_expr: str = "0"
    #: The symbols `main` sets as it runs (`loop.set_size`: counts that ops found), each with
    #: its bound (text, an expression of the other symbols); the run time reads their values
    #: back from the sizes array after the call.
    set_sizes: dict[str, str] = field(default_factory=dict)
    #: The sizes of `set_sizes` that are checks (`graph.check`'s), each with its message:
    #: a run that stops with one over its bound (0) failed that check.
    checks: dict[str, str] = field(default_factory=dict)
    #: The sizes of `set_sizes` that are the dims of one shape, each with its group: their
    #: capacities are raised together (graph.iota's `group`).
    groups: dict[str, str] = field(default_factory=dict)

    def constant_arrays(self) -> list[np.ndarray]:
        """The constants' data, in `consts` order (C-contiguous; bool for i1)."""
        return [np.ascontiguousarray(elements_array(v, t)) for v, t in self.constants]

    def to_attr(self) -> DictionaryAttr:
        return DictionaryAttr(
            {
                "io": ArrayAttr(self.io),
                "constants": ArrayAttr([ArrayAttr([v, t]) for v, t in self.constants]),
                "allocs": DenseArrayBase.from_list(i64, [n for a in self.allocs for n in a]),
                "arena_size": IntegerAttr(self.arena_size, i64),
                **({"symbols": ArrayAttr([StringAttr(s) for s in self.symbols])} if self.symbols else {}),
                **({"arena_size_expr": StringAttr(self.arena_size_expr)} if self.arena_size_expr != "0" else {}),
                **({"set_sizes": DictionaryAttr({k: StringAttr(v) for k, v in self.set_sizes.items()})}
                   if self.set_sizes else {}),
                **({"checks": DictionaryAttr({k: StringAttr(v) for k, v in self.checks.items()})}
                   if self.checks else {}),
                **({"groups": DictionaryAttr({k: StringAttr(v) for k, v in self.groups.items()})}
                   if self.groups else {}),
            }
        )

    @staticmethod
    def from_module(module: ModuleOp) -> CompiledModuleInfo:
        """Read back the layout the pass recorded (empty if the module has no @main)."""
        attr = module.attributes.get(ENTRY_ATTR)
        if attr is None:
            return CompiledModuleInfo([], [], [], 0)
        assert isinstance(attr, DictionaryAttr)
        data = attr.data
        io = [t for t in data["io"]]  # type: ignore[union-attr]
        constants = [(pair.data[0], pair.data[1]) for pair in data["constants"]]  # type: ignore
        flat = list(data["allocs"].iter_values())  # type: ignore[union-attr]
        size = data["arena_size"]
        assert isinstance(size, IntegerAttr)
        symbols = data.get("symbols")
        expr = data.get("arena_size_expr")
        set_sizes = data.get("set_sizes")
        checks = data.get("checks")
        groups = data.get("groups")
        return CompiledModuleInfo(
            io,  # type: ignore[arg-type]
            constants,  # type: ignore[arg-type]
            list(zip(flat[::2], flat[1::2])),
            size.value.data,
            [s.data for s in symbols.data] if isinstance(symbols, ArrayAttr) else [],  # type: ignore[attr-defined]
            expr.data if isinstance(expr, StringAttr) else "0",
            {k: v.data for k, v in set_sizes.data.items()} if isinstance(set_sizes, DictionaryAttr) else {},  # type: ignore[attr-defined]
            {k: v.data for k, v in checks.data.items()} if isinstance(checks, DictionaryAttr) else {},  # type: ignore[attr-defined]
            {k: v.data for k, v in groups.data.items()} if isinstance(groups, DictionaryAttr) else {},  # type: ignore[attr-defined]
        )


@dataclass(frozen=True)
class ConvertLoopToLlvmPass(ModulePass):
    """Lower every func.func of loop IR to an llvm.func (see the module docstring)."""

    name = "convert-loop-to-llvm"

    #: Mark the buffer arguments of every function but @main `noalias`. This is the contract
    #: of destination-passing kernels: a buffer a kernel writes reaches it through one
    #: argument only (read-only buffers may repeat). convert-te-to-loop's calls keep it; a
    #: memory planner that makes a kernel work in place must switch this off.
    noalias: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        symbols = ModuleSymbols()
        layout: EntryLayout | None = None
        for fn in list(op.ops):
            if isinstance(fn, llvm.FuncOp | llvm.GlobalOp):
                continue
            if not isinstance(fn, func.FuncOp):
                raise LoweringError(f"convert-loop-to-llvm: unexpected {fn.name} in the module")
            entry = EntryLayout() if fn.sym_name.data == ENTRY else None
            expand_sections(fn)
            lowering = ParallelFunctionLowering(fn, symbols, entry, self.noalias)
            Rewriter.replace_op(fn, lowering.lower())
            if entry is not None:
                layout = entry
        block = op.body.block
        for outlined in symbols.functions:  # parallel loop bodies (see parallel.py)
            Rewriter.insert_op(outlined, InsertPoint.at_end(block))
        functions = {f.sym_name.data: f for f in op.ops if isinstance(f, llvm.FuncOp)}
        for name, declaration in symbols.declarations.items():
            if name not in functions:
                Rewriter.insert_op(declaration, InsertPoint.at_end(block))
            elif functions[name].body.blocks:
                raise LoweringError(
                    f"convert-loop-to-llvm: function @{name} clashes with the C library's"
                )
        for global_ in reversed(symbols.globals):
            Rewriter.insert_op(global_, InsertPoint.at_start(block))
        if layout is not None:
            info = CompiledModuleInfo(
                layout.io, layout.constants, layout.allocs, layout.arena_size, layout.symbols,
                str(layout.arena_size_expr), dict(layout.set_sizes), dict(layout.checks), dict(layout.groups),
            )  # fmt: skip
            op.attributes[ENTRY_ATTR] = info.to_attr()


def lower_to_llvm(module: ModuleOp, noalias: bool = True) -> tuple[ModuleOp, CompiledModuleInfo]:
    """Run convert-loop-to-llvm on `module` (in place); the module and its entry layout."""
    ConvertLoopToLlvmPass(noalias=noalias).apply(Context(), module)
    return module, CompiledModuleInfo.from_module(module)
