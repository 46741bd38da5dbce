"""Textual IR in and out: the context with every minitvm dialect, and parse/print helpers.

Printing goes through here rather than `str(module)` because weights live in the graph
dialect's resource section, which only a printer that is told the loaded dialects writes.
"""

from __future__ import annotations

import io

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.ir import Dialect
from xdsl.parser import Parser
from xdsl.printer import Printer


def minitvm_dialects() -> list[Dialect]:
    """Every dialect a minitvm tool understands: xDSL's core ones plus our own."""
    from minitvm.dialects.arith_ext import ARITH_DIALECT
    from minitvm.dialects.graph import Graph

    from minitvm.dialects.llvm_ext import LLVM_DIALECT
    from minitvm.dialects.loop import Loop
    from minitvm.dialects.te import TE

    return [Builtin, Func, ARITH_DIALECT, Math, Graph, TE, Loop, LLVM_DIALECT]


def make_context() -> Context:
    ctx = Context()
    for dialect in minitvm_dialects():
        ctx.load_dialect(dialect)
    return ctx


def parse_module(text: str, filename: str = "<input>", ctx: Context | None = None) -> ModuleOp:
    """Parse IR text; errors are `ParseError`s that carry filename:line:col."""
    return Parser(ctx or make_context(), text, name=filename).parse_module()


def print_module(module: ModuleOp, *, generic: bool = False, ctx: Context | None = None) -> str:
    """Print `module` followed by the resource section holding its out-of-line weights."""
    out = io.StringIO()
    printer = Printer(stream=out, print_generic_format=generic)
    printer.print_op(module)
    printer.print_metadata((ctx or make_context()).loaded_dialects)
    out.write("\n")
    return out.getvalue()
