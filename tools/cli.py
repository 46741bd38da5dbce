"""minitvm: the user's command line, one subcommand per job.

    minitvm import model.onnx [-o model.mlir] [--generic] [--input-shape x=1x3x224x224 ...]
    minitvm compile model.onnx [--input-shape ...] [-O N] [--num-threads N]
    minitvm run model.onnx [--input x=x.npy ...] [--input-shape ...] [--repeat N] [--warmup W]
                [--num-threads N] [--seed S] [--compare-ort [--rtol R --atol A]] [--output-dir DIR]
    minitvm run model.so [--onnx model.onnx] [--compare-ort] [...]   (an exported library)
    minitvm export model.onnx -o model.so [--weights embed|file] [--input-shape ...] [-O N]
    minitvm bench [case ...] [--threads 1,2] [--repeat N] [--warmup W] [--records URL]
    minitvm profile model.onnx [--num-threads N] [--records URL] [--repeat N] [--top K]
    minitvm tune model.onnx --trials N [--timeout S] [--records URL] [--sampler tpe|random]
                 [--workers K] [--seed S] [--num-threads T] [--input-shape ...]
    minitvm tune --report [--records URL] [--plot PNG]
    minitvm debug model.onnx [--input x=x.npy ...] [--rtol R --atol A] [-o DIR]
    minitvm fuzz --count N --seed S [--ops Op1,Op2 ...] [-o DIR] [--timeout S] [--max-nodes K]

`compile`, `run` and `profile` take `--records URL` to apply tuned schedules.

Each subcommand is a module of tools/commands/ whose `add_<name>_command(subparsers)`, listed
in `COMMANDS`, declares its arguments and sets `run` to the function that does the work; the
options several share are in tools/options.py. Errors that are the user's (`MinitvmError`: a
missing file, a model the frontend cannot import), and a file that cannot be read or written
(an `OSError` naming it: `-o` on a full disk), print as one line, `minitvm: error:
<message>`, and exit with code 1; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable, Sequence

from minitvm.errors import MinitvmError, MinitvmWarning
from minitvm.tools.commands.bench import add_bench_command
from minitvm.tools.commands.compile import add_compile_command
from minitvm.tools.commands.debug import add_debug_command
from minitvm.tools.commands.export import add_export_command
from minitvm.tools.commands.fuzz import add_fuzz_command
from minitvm.tools.commands.import_model import add_import_command
from minitvm.tools.commands.info import add_info_command
from minitvm.tools.commands.profile import add_profile_command
from minitvm.tools.commands.run import add_run_command
from minitvm.tools.commands.tune import add_tune_command

PROG = "minitvm"

#: One entry per subcommand; each adds its parser to the subparsers it is given.
COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [  # pyright: ignore[reportPrivateUsage]
    add_import_command,
    add_compile_command,
    add_run_command,
    add_export_command,
    add_bench_command,
    add_profile_command,
    add_tune_command,
    add_info_command,
    add_debug_command,
    add_fuzz_command,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="minitvm: a deep-learning compiler on xDSL"
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_command in COMMANDS:
        add_command(subparsers)
    return parser


def _format_warning(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, line: str | None = None
) -> str:
    """minitvm's own warnings as one line for the user; others as Python shows them."""
    if issubclass(category, MinitvmWarning):
        return f"{PROG}: warning: {message}\n"
    return _python_format_warning(message, category, filename, lineno, line)


_python_format_warning = warnings.formatwarning


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    warnings.formatwarning = _format_warning
    try:
        if hasattr(args, "prepare"):  # what must happen before the compiler is imported
            args.prepare(args)
        if getattr(args, "num_threads", 0) is None:  # compile/run: all the cores we may use
            from minitvm.compiler import default_num_threads

            args.num_threads = default_num_threads()
        args.run(args)
    except MinitvmError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `minitvm import m.onnx | head`: the reader left
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:  # a file we could not read or write (-o on a full disk, ...)
        if e.filename is None:
            raise
        print(f"{PROG}: error: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
