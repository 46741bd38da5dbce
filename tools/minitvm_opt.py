"""minitvm-opt: xDSL's `xdsl-opt` driver with minitvm's dialects and passes registered.

    minitvm-opt model.mlir -p 'graph-fold-constants,graph-dce' -o out.mlir

Everything `xdsl-opt` does works unchanged (`-p 'a,b{k=v}'`, `--print-between-passes`,
`--split-input-file`, `--verify-diagnostics`, `--print-op-generic`, `-t`, `-o`, stdin). What
this driver adds:

- errors a user can act on, without a Python traceback: `file:line:col: error: message`
  for parse errors and for ops that fail to verify (xDSL's parser does not give ops
  locations, so `LocatingParser` records where each op starts), one line for a
  `MinitvmError` raised by a pass; exit code 1;
- `-o` is written atomically: the file is complete or untouched;
- the MLIR output ends exactly as `minitvm.ir.print_module`'s does, so text written by
  `minitvm import` passes through `minitvm-opt` byte for byte (resource section included).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import AttributeInvT, Operation, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
    VerifyException,
)
from xdsl.utils.lexer import Span
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from minitvm.errors import MinitvmError
from minitvm.ir import minitvm_dialects
from minitvm.passes.registry import all_passes
from minitvm.tools.atomic import atomic_output

PROG = "minitvm-opt"


class UsageError(MinitvmError):
    """The command line itself is wrong (bad pass pipeline, input that is not MLIR text)."""


class LocatingParser(Parser):
    """xDSL's parser, also recording where each op starts (its first token, as MLIR does)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str) -> None:
        super().__init__(ctx, input, name)
        self.op_spans: dict[Operation, Span[str] | Span[bytes]] = {}
        #: Where each value used before its definition is first used: xDSL reports a value
        #: that is never defined at the end of the file, we at that use.
        self.first_uses: dict[str, Span[str] | Span[bytes]] = {}

    def resolve_operand(self, operand: UnresolvedOperand, type: AttributeInvT) -> SSAValue[AttributeInvT]:
        if operand.operand_name not in self.ssa_values:
            self.first_uses.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except (NotImplementedError, ValueError, TypeError, KeyError, IndexError, OverflowError) as e:
            # xDSL's attribute constructors reject some values the parser lets through
            # (`array<i74: 1>`: NotImplementedError): where the parser stands is the place.
            raise ParseError(
                self._current_token.span, f"cannot parse this ({type(e).__name__}: {e})"
            ) from None
        except ParseError as e:
            undefined = [n for n in self.forward_ssa_references if n in self.first_uses]
            if not e.msg.startswith("values used but not defined") or not undefined:
                raise
            raise ParseError(
                self.first_uses[undefined[0]], f"value %{undefined[0]} is used but never defined"
            ) from None

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        op = super().parse_operation()
        self.op_spans[op] = start
        return op

    def _get_op_by_name(self, name: str) -> type[Operation]:
        # xDSL reports an unknown op at the token after its name; point at the name instead.
        try:
            return super()._get_op_by_name(name)
        except ParseError as e:
            text = self.lexer.input.content
            start = text.rfind(name, 0, self._current_token.span.start)
            if start >= 0:
                e.span = Span(start, start + len(name), self.lexer.input)
            raise


class MinitvmOptMain(xDSLOptMain):
    version_format = "minitvm-opt built from xdsl version {xdsl_version}"

    def __init__(self, args: Sequence[str] | None = None):
        # State of the chunk being processed, for error messages.
        self.op_spans: dict[Operation, Span[str] | Span[bytes]] = {}
        self.line_offset = 0
        self.module: ModuleOp | None = None
        self.last_pass: ModulePass | None = None  # the pass whose output is being verified
        self.running_pass: ModulePass | None = None
        self._output: IO[str] = sys.stdout
        super().__init__(description="minitvm modular optimizer driver", args=args)

    # ---------------------------------------------------------------- registration

    def register_all_dialects(self) -> None:
        # Ours first, so that on a name clash minitvm's dialect is the one `graph.*` finds.
        for dialect in minitvm_dialects():
            self.ctx.register_dialect(dialect.name, lambda d=dialect: d)
        ours = set(self.ctx.registered_dialect_names)
        for name, factory in Universe.get_multiverse().all_dialects.items():
            if name not in ours:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        # `-t llvm`: ours, since convert-loop-to-llvm emits llvm ops xDSL's target lacks.
        self.available_targets["llvm"] = _llvm_target
        super().register_all_targets()

    def setup_pipeline(self) -> None:
        try:
            super().setup_pipeline()
        except (ValueError, ArgSpecParseError) as e:
            raise UsageError(f"invalid pass pipeline '{self.args.passes}': {e}") from None
        verify_and_print = self.pipeline.callback
        assert verify_and_print is not None

        def callback(prev: ModulePass | None, module: ModuleOp, next: ModulePass | None) -> None:
            self.last_pass, self.running_pass = prev, None
            verify_and_print(prev, module, next)
            self.running_pass = next

        self.pipeline = dataclasses.replace(self.pipeline, callback=callback)

    # ---------------------------------------------------------------- input and output

    def get_input_name(self) -> str:
        return self.args.input_file or "<stdin>"

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        stream, extension = super().get_input_stream()
        # MLIR text is MLIR text whatever the file is called (as for mlir-opt).
        return stream, extension if extension in self.available_frontends else "mlir"

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        if (self.args.frontend or file_extension) != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        self.op_spans, self.line_offset, self.module = {}, start_offset, None
        self.last_pass = self.running_pass = None
        try:
            parser = LocatingParser(self.ctx, chunk.read(), self.get_input_name())
        except UnicodeDecodeError:
            raise UsageError(
                f"{self.get_input_name()} is not MLIR text (to read an ONNX model, use "
                "`minitvm import`)"
            ) from None
        self.op_spans = parser.op_spans
        self.module = parser.parse_module(not self.args.no_implicit_module)
        return self.module

    def prepare_output(self) -> IO[str]:
        return self._output

    def output_resulting_program(self, prog: ModuleOp) -> str:
        text = super().output_resulting_program(prog)
        if parse_spec(self.args.target).name == "mlir":
            # xDSL's mlir target ends with a blank line; minitvm.ir.print_module does not.
            text = text.rstrip("\n") + "\n"
        return text

    def run(self) -> None:
        if self.args.output_file is None:
            return super().run()
        with atomic_output(self.args.output_file) as self._output:
            super().run()

    # ---------------------------------------------------------------- error messages

    def describe_parse_error(self, error: ParseError) -> str:
        lines = [diagnostic(error.span, "error", error.msg)]
        if isinstance(error, MultipleSpansParseError):
            for span, msg in error.refs:
                located = dataclasses.replace(span, line_offset=self.line_offset)
                lines.append(diagnostic(located, "note", msg or error.ref_text or ""))
        return "\n".join(lines)

    def describe_verify_error(self, error: VerifyException) -> str:
        if self.running_pass is not None:  # raised from inside a pass, not by verification
            return self.describe_pass_error(error)
        failing = self._first_failing_op()
        span = None if failing is None else self.op_spans.get(failing[0])
        message = str(error) if failing is None else str(failing[1])
        if span is None:
            text = f"{self.get_input_name()}: error: {message}"
        else:
            text = diagnostic(
                dataclasses.replace(span, line_offset=self.line_offset), "error", message
            )
        if self.last_pass is not None:
            text += f"\nnote: in the IR produced by pass '{self.last_pass.name}'"
        return text

    def describe_pass_error(self, error: Exception) -> str:
        text = f"{self.get_input_name()}: error: {error}"
        if self.running_pass is not None:
            text += f"\nnote: raised by pass '{self.running_pass.name}'"
        return text

    def _first_failing_op(self) -> tuple[Operation, VerifyException] | None:
        """The first op in textual order whose own invariants fail, with its error."""
        if self.module is None:
            return None
        for op in self.module.walk():
            try:
                op.verify(verify_nested_ops=False)
            except VerifyException as e:
                return op, e
        return None


def _llvm_target() -> type[Target]:
    from minitvm.lowering.jit import LlvmTarget  # llvmlite loads only when asked for

    return LlvmTarget


def diagnostic(span: Span[str] | Span[bytes], severity: str, message: str) -> str:
    """`file:line:col: severity: message`, then the source line with a caret under col."""
    location = span.get_location()
    source = span.input
    line = source.content[source.get_start_of_line(span.start) : source.get_end_of_line(span.start)]
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    return f"{location}: {severity}: {message}\n{line}\n{' ' * (location.col - 1)}^"


def main(args: Sequence[str] | None = None) -> int:
    driver: MinitvmOptMain | None = None
    try:
        driver = MinitvmOptMain(args=args)
        driver.run()
        return 0
    except UsageError as e:
        message = f"{PROG}: error: {e}"
    except ParseError as e:
        assert driver is not None
        message = driver.describe_parse_error(e)
    except VerifyException as e:
        assert driver is not None
        message = driver.describe_verify_error(e)
    except (MinitvmError, DiagnosticException) as e:
        assert driver is not None
        message = driver.describe_pass_error(e)
    except BrokenPipeError:  # e.g. `minitvm-opt big.mlir | head`: the reader left
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:
        if e.filename is None:
            raise
        message = f"{PROG}: error: {e.filename}: {e.strerror}"
    sys.stdout.flush()  # what earlier chunks printed comes before the error
    print(message, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
