"""Textual IR in and out: the context with every minitvm dialect, and parse/print helpers.

Printing goes through here rather than `str(module)` because weights live in the graph
dialect's resource section, which only a printer that is told the loaded dialects writes.
"""

from __future__ import annotations

import io
import re

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.ir import Dialect
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRLexer


def _lex_string_literals_in_linear_time() -> None:
    r"""xDSL 0.75 lexes a string literal with `"(?:[^"\
]+|\(?:...))*"`: a `+` inside
    a `*`, so a literal with no closing quote backtracks over every way of splitting its
    characters, twice as long per character (24 took 1.1 s). A line of IR missing one quote
    hung minitvm-opt (found by fuzzing the parser, tests/unit/test_hostile_inputs.py). One
    character per repetition matches the same literals, and fails in linear time."""
    MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
    )


_lex_string_literals_in_linear_time()


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
