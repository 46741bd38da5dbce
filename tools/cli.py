"""minitvm: the user's command line, one subcommand per job.

    minitvm import model.onnx [-o model.mlir] [--generic] [--input-shape x=1x3x224x224 ...]

Each subcommand is an `add_<name>_command(subparsers)` function listed in `COMMANDS`; it
declares its arguments and sets `run` to the function that does the work. Errors that are the
user's (`MinitvmError`: a missing file, a model the frontend cannot import) print as one line,
`minitvm: error: <message>`, and exit with code 1; anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from minitvm.errors import MinitvmError
from minitvm.tools.atomic import atomic_output

if TYPE_CHECKING:  # onnx is slow to import: only the commands that read models load it
    import onnx

PROG = "minitvm"


class CommandError(MinitvmError):
    """A subcommand cannot do its job with the arguments it was given."""


def write_text(text: str, output: str | None) -> None:
    """Write to `output` atomically, or to stdout when it is None."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with atomic_output(output) as stream:
        stream.write(text)


# ------------------------------------------------------------------------------ import


def input_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """Parse `NAME=1x3x224x224` (argparse type of `--input-shape`)."""
    name, sep, dims = text.rpartition("=")
    try:
        shape = tuple(int(d) for d in dims.split("x"))
    except ValueError:
        shape = ()
    if not sep or not name or not shape or any(d <= 0 for d in shape):
        raise argparse.ArgumentTypeError(
            f"expected NAME=D0xD1x... with positive dimensions, got '{text}'"
        )
    return name, shape


def load_onnx(path: str) -> onnx.ModelProto:
    import onnx
    from google.protobuf.message import DecodeError

    try:
        model = onnx.load(path)
    except OSError as e:
        raise CommandError(f"{e.filename or path}: {e.strerror}") from None
    except DecodeError:
        raise CommandError(f"{path} is not an ONNX model (it does not parse as one)") from None
    if not model.HasField("graph"):
        raise CommandError(f"{path} is not an ONNX model (it has no graph)")
    return model


def run_import(args: argparse.Namespace) -> None:
    from minitvm.frontend import from_onnx
    from minitvm.ir import print_module

    model = load_onnx(args.model)
    module = from_onnx(model, dict(args.input_shape) or None)
    write_text(print_module(module, generic=args.generic), args.output)


def add_import_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "import",
        help="translate an ONNX model to graph-dialect IR text",
        description="Translate an ONNX model to graph-dialect IR (MLIR text, weights in the "
        "file's dialect_resources section). The output is what minitvm-opt reads.",
    )
    p.add_argument("model", help="path to an .onnx file")
    p.add_argument("-o", "--output", help="write the IR here (atomically) instead of stdout")
    p.add_argument("--generic", action="store_true", help="print ops in MLIR's generic form")
    p.add_argument(
        "--input-shape",
        type=input_shape,
        action="append",
        default=[],
        metavar="NAME=1x3x224x224",
        help="static shape for a graph input with symbolic or unknown dimensions; repeatable",
    )
    p.set_defaults(run=run_import)


# ------------------------------------------------------------------------------ driver

#: One entry per subcommand; each adds its parser to the subparsers it is given.
COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [  # pyright: ignore[reportPrivateUsage]
    add_import_command,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="minitvm: a deep-learning compiler on xDSL"
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_command in COMMANDS:
        add_command(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except MinitvmError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `minitvm import m.onnx | head`: the reader left
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
