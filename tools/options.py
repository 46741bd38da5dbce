"""What several `minitvm` subcommands share: their error type and the options that describe a
model and how to compile it (`--input-shape`, `-O`, `--num-threads`, `--records`). The
argument types and `--repeat`/`--warmup` are in bench/options.py, which bench scripts use
too."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from minitvm.bench.options import positive_int
from minitvm.errors import MinitvmError
from minitvm.passes.graph.winograd import MODES

if TYPE_CHECKING:  # the compiler is slow to import: commands load it
    from minitvm.compiler import CompileReport


class CommandError(MinitvmError):
    """A subcommand cannot do its job with the arguments it was given."""


def input_shape(text: str) -> tuple[str, tuple[int | str | None, ...]]:
    """Parse `NAME=1x3x224x224`, `NAME=1x?` or `NAME=1x1..512` (argparse type of
    `--input-shape`): a `?` dimension stays dynamic, a range bounds it."""
    name, sep, dims = text.rpartition("=")
    shape = tuple(_dim(d) for d in dims.split("x")) if sep and name else ()
    if not shape or any(d is False for d in shape):
        raise argparse.ArgumentTypeError(
            f"expected NAME=D0xD1x... with dimensions that are sizes (>= 0), ? or ranges "
            f"lo..hi (1 <= lo <= hi), got '{text}'"
        )
    return name, shape  # type: ignore[return-value]


def _dim(text: str) -> int | str | None | bool:
    """A dimension of `--input-shape`, False if it is none."""
    if text == "?":
        return None
    lo, dots, hi = text.partition("..")
    try:
        if dots:
            return text if 1 <= int(lo) <= int(hi) else False
        size = int(text)
    except ValueError:
        return False
    return size if size >= 0 else False


def add_input_shape_option(p: argparse.ArgumentParser) -> None:
    """`--input-shape NAME=1x3x224x224`, repeatable: shared by import, compile, run and tune."""
    p.add_argument(
        "--input-shape",
        type=input_shape,
        action="append",
        default=[],
        metavar="NAME=1x3x224x224",
        help="shape for a graph input with symbolic or unknown dimensions: sizes, ? (known "
        "at run time) or ranges lo..hi (known at run time, within the range); repeatable",
    )


def add_winograd_option(p: argparse.ArgumentParser) -> None:
    """`--winograd auto|always|never|f2x2|f4x4`: graph-winograd's mode, shared by compile,
    run, profile and tune."""
    p.add_argument(
        "--winograd", choices=MODES, default="auto",
        help="3x3 stride-1 convs as Winograd F(2x2, 3x3) or F(4x4, 3x3): with the tile this "
        "CPU's roofline says is fastest, where it beats the direct conv (auto, the default), "
        "always, or never; or always with the tile named (f2x2, f4x4)",
    )  # fmt: skip


def add_compile_options(p: argparse.ArgumentParser, model_help: str = "path to an .onnx file") -> None:
    """The model and how to compile it: shared by `compile`, `run`, `profile` and `export`."""
    p.add_argument("model", help=model_help)
    add_input_shape_option(p)
    p.add_argument(
        "-O", dest="opt_level", type=int, choices=range(4), default=3, metavar="N",
        help="optimization level 0-3 (default 3)",
    )  # fmt: skip
    p.add_argument(
        "--num-threads", type=positive_int, default=None, metavar="N",
        help="threads the compiled model (and ONNX Runtime) may use (default: all cores)",
    )  # fmt: skip
    p.add_argument(
        "--records", metavar="URL",
        help="apply the best schedules of these tuning records (minitvm tune's database URL, "
        "e.g. sqlite:///minitvm_records.db) to the kernels tuned for this CPU and thread count",
    )  # fmt: skip
    add_winograd_option(p)


def tuned_line(args: argparse.Namespace, report: CompileReport) -> str:
    """With --records, how many kernels got tuned schedules (else nothing)."""
    if args.records is None:
        return ""
    tuned = report.op_counts.get("tuned kernels", 0)
    return f"tuned schedules from {args.records}: {tuned} kernel{'s' if tuned != 1 else ''}\n"


def save_plot(png: bytes, path: str) -> None:
    """Write a plot the command made (`--plot`) atomically; a failed write is the user's error."""
    from minitvm.tools.atomic import write_bytes

    try:
        write_bytes(png, path)
    except OSError as e:
        raise CommandError(f"--plot {path}: {e.strerror or e}") from None
