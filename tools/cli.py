"""minitvm: the user's command line, one subcommand per job.

    minitvm import model.onnx [-o model.mlir] [--generic] [--input-shape x=1x3x224x224 ...]
    minitvm compile model.onnx [--input-shape ...] [-O N] [--num-threads N]
    minitvm run model.onnx [--input x=x.npy ...] [--input-shape ...] [--repeat N] [--warmup W]
                [--num-threads N] [--seed S] [--compare-ort [--rtol R --atol A]] [--output-dir DIR]
    minitvm bench [case ...] [--threads 1,2] [--repeat N] [--warmup W] [--records URL]
    minitvm tune model.onnx --trials N [--timeout S] [--records URL] [--sampler tpe|random]
                 [--workers K] [--seed S] [--num-threads T] [--input-shape ...]
    minitvm tune --report [--records URL] [--plot PNG]

`compile` and `run` take `--records URL` to apply tuned schedules.

Each subcommand is an `add_<name>_command(subparsers)` function listed in `COMMANDS`; it
declares its arguments and sets `run` to the function that does the work. Errors that are the
user's (`MinitvmError`: a missing file, a model the frontend cannot import) print as one line,
`minitvm: error: <message>`, and exit with code 1; anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from minitvm.errors import MinitvmError
from minitvm.runtime.ort import Feeds, ort_errors, ort_session
from minitvm.runtime.timing import (
    AUTO_MIN_RUNS,
    AUTO_SECONDS,
    SETTLE_S,
    timed_runs,
)
from minitvm.tools.atomic import atomic_output

if TYPE_CHECKING:  # onnx, numpy and the compiler are slow to import: commands load them
    import numpy as np
    import onnx

    from minitvm.compiler import CompileReport
    from minitvm.runtime import Executable

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


def add_input_shape_option(p: argparse.ArgumentParser) -> None:
    """`--input-shape NAME=1x3x224x224`, repeatable: shared by import, compile, run and tune."""
    p.add_argument(
        "--input-shape",
        type=input_shape,
        action="append",
        default=[],
        metavar="NAME=1x3x224x224",
        help="static shape for a graph input with symbolic or unknown dimensions; repeatable",
    )


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
    add_input_shape_option(p)
    p.set_defaults(run=run_import)


# ------------------------------------------------------------------------------ compile


def number_in(
    convert: Callable[[str], float], accepts: Callable[[float], bool], what: str
) -> Callable[[str], Any]:
    """An argparse `type` converting with `convert` and accepting what `accepts` does."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not accepts(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'")
        return value

    return parse


positive_int = number_in(int, lambda v: v >= 1, "a positive integer")
non_negative_int = number_in(int, lambda v: v >= 0, "an integer >= 0")


def add_timing_options(
    p: argparse.ArgumentParser, repeat: int | None, repeat_help: str, warmup: int, warmup_help: str
) -> None:
    """`--repeat N` and `--warmup W` (run, bench, profile): their defaults and meanings (a
    `repeat` of None: as many runs as `runtime.timing.timed_runs` picks)."""
    default = (
        f"default: at least {AUTO_MIN_RUNS}, and as many as take about {AUTO_SECONDS:g} s"
        if repeat is None
        else f"default {repeat}"
    )
    p.add_argument("--repeat", type=positive_int, default=repeat, metavar="N",
                   help=f"{repeat_help} ({default})")  # fmt: skip
    p.add_argument("--warmup", type=non_negative_int, default=warmup, metavar="W",
                   help=f"{warmup_help} (default {warmup})")  # fmt: skip


def add_compile_options(p: argparse.ArgumentParser) -> None:
    """The model and how to compile it: shared by `compile` and `run`."""
    p.add_argument("model", help="path to an .onnx file")
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


def compile_model(
    model: onnx.ModelProto, shapes: Mapping[str, tuple[int, ...]], args: argparse.Namespace
) -> Executable:
    """Compile with the given input shapes, which must leave no input dimension dynamic
    (a named dimension takes its size from any input of given shape that has it)."""
    from minitvm.compiler import compile

    declared = model_inputs(model)
    for name in shapes:
        if name not in declared:
            raise CommandError(
                f"--input-shape {name}: the model has no input '{name}'; its inputs are "
                f"{describe_inputs(declared)}"
            )
    shapes = dict(shapes)
    resolve_symbols(declared, shapes)
    for name, (_, dims) in declared.items():
        dynamic = [f"{i} ('{d}')" for i, d in enumerate(dims) if not isinstance(d, int)]
        if dynamic and name not in shapes:
            raise CommandError(
                f"input '{name}' has dynamic dimension{'s' if len(dynamic) > 1 else ''} "
                f"{', '.join(dynamic)}; give its shape with --input-shape {name}=D0xD1..."
                + (f" or a value with --input {name}=FILE.npy" if "input" in args else "")
            )
    return compile(
        model,
        dict(shapes) or None,
        opt_level=args.opt_level,
        records=args.records,
        num_threads=args.num_threads,
    )


def tuned_line(args: argparse.Namespace, report: CompileReport) -> str:
    """With --records, how many kernels got tuned schedules (else nothing)."""
    if args.records is None:
        return ""
    tuned = report.op_counts.get("tuned kernels", 0)
    return f"tuned schedules from {args.records}: {tuned} kernel{'s' if tuned != 1 else ''}\n"


def format_report(report: CompileReport) -> str:
    """Seconds per stage (with its share) and op counts per IR level, as two tables."""
    total = report.total_seconds
    w = max(len(name) for name in [*report.seconds, *report.op_counts, "IR level"]) + 2
    lines = [f"{'stage':<{w}}{'seconds':>10}{'share':>9}"]
    for stage, seconds in report.seconds.items():
        lines.append(f"{stage:<{w}}{seconds:>10.3f}{100 * seconds / (total or 1):>8.1f}%")
    lines.append(f"{'total':<{w}}{total:>10.3f}{100.0:>8.1f}%")
    lines += ["", f"{'IR level':<{w}}{'ops':>10}"]
    lines += [f"{level:<{w}}{count:>10}" for level, count in report.op_counts.items()]
    return "\n".join(lines) + "\n"


def describe(shape: Sequence[object], dtype: object) -> str:
    return f"{dtype}[{', '.join(map(str, shape))}]"


def run_compile(args: argparse.Namespace) -> None:
    model = load_onnx(args.model)
    exe = compile_model(model, dict(args.input_shape), args)
    report: CompileReport = exe.stats["report"]  # type: ignore[assignment]
    threads = f"{args.num_threads} thread{'s' if args.num_threads > 1 else ''}"
    print(f"compiled {args.model} in {report.total_seconds:.2f} s (-O{args.opt_level}, {threads})")
    sys.stdout.write(tuned_line(args, report))
    for kind, specs in (("input", exe.inputs), ("output", exe.outputs)):
        for spec in specs:
            print(f"  {kind} {spec.name}: {describe(spec.shape, spec.dtype)}")
    print()
    sys.stdout.write(format_report(report))


def add_compile_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "compile",
        help="compile an ONNX model and report where the time went",
        description="Compile an ONNX model for this CPU and print the seconds each stage took "
        "and the op count at each IR level (graph, te, loop, llvm).",
    )
    add_compile_options(p)
    p.set_defaults(run=run_compile)


# ------------------------------------------------------------------------------ run

RTOL, ATOL = 1e-3, 1e-4


def input_file(text: str) -> tuple[str, str]:
    """Parse `NAME=path.npy` (argparse type of `--input`)."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=FILE.npy, got '{text}'")
    return name, path


def model_inputs(model: onnx.ModelProto) -> dict[str, tuple[np.dtype | None, list[int | str]]]:
    """The graph inputs that are not initializers: name -> (numpy dtype, dims; a dim that is
    not a known positive size is its symbolic name or '?')."""
    from onnx import helper

    initializers = {init.name for init in model.graph.initializer}
    inputs = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        try:
            dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        except KeyError:
            dtype = None
        dims: list[int | str] = [
            d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else (d.dim_param or "?")
            for d in tensor.shape.dim
        ]
        inputs[value.name] = (dtype, dims)
    return inputs


def describe_inputs(declared: Mapping[str, tuple[np.dtype | None, list[int | str]]]) -> str:
    return "; ".join(f"{n}: {describe(dims, dtype)}" for n, (dtype, dims) in declared.items())


def read_inputs(
    given: Sequence[tuple[str, str]], model: onnx.ModelProto, shapes: dict[str, tuple[int, ...]]
) -> dict[str, np.ndarray]:
    """Load the `--input` files, checked against the model's inputs before anything is
    compiled; add their shapes to `shapes` for inputs with dynamic dimensions."""
    import numpy as np

    declared = model_inputs(model)
    arrays: dict[str, np.ndarray] = {}
    for name, path in given:
        if name not in declared:
            raise CommandError(
                f"--input {name}: the model has no input '{name}'; its inputs are "
                f"{describe_inputs(declared)}"
            )
        if name in arrays:
            raise CommandError(f"--input {name} is given twice")
        try:
            with open(path, "rb") as stream:
                if stream.read(6) != b"\x93NUMPY":
                    raise CommandError(
                        f"--input {name}: {path} is not a .npy file (no NumPy header)"
                    )
                stream.seek(0)
                array = np.load(stream, allow_pickle=False)
        except OSError as e:
            raise CommandError(f"--input {name}: {path}: {e.strerror or e}") from None
        except (ValueError, EOFError) as e:  # a damaged header, truncated data, object arrays
            raise CommandError(
                f"--input {name}: {path} is not a readable .npy file ({e})"
            ) from None
        dtype, dims = declared[name]
        wanted = shapes.get(name) or dims
        fits = len(array.shape) == len(wanted) and all(
            not isinstance(w, int) or w == a for w, a in zip(wanted, array.shape)
        )
        if not fits or (dtype is not None and array.dtype != dtype):
            raise CommandError(
                f"--input {name}: {path} holds {describe(array.shape, array.dtype)} but the "
                f"model expects {describe(wanted, dtype)}"
            )
        if name not in shapes and not all(isinstance(d, int) for d in dims):
            shapes[name] = tuple(array.shape)
        arrays[name] = array
    return arrays


def resolve_symbols(
    declared: Mapping[str, tuple[np.dtype | None, list[int | str]]],
    shapes: dict[str, tuple[int, ...]],
) -> None:
    """Give inputs whose dynamic dimensions are all named (`batch`, `seq`) by an input of
    known shape that shape's sizes: `--input a=a.npy` fixes `n` in a: [n, 4] and b: [n, 4]."""
    sizes: dict[str, int] = {}
    for name, shape in shapes.items():
        for dim, size in zip(declared[name][1], shape):
            if isinstance(dim, str) and dim != "?":
                sizes.setdefault(dim, size)
    for name, (_, dims) in declared.items():
        named = all(isinstance(d, int) or d in sizes for d in dims)
        if name not in shapes and named and not all(isinstance(d, int) for d in dims):
            shapes[name] = tuple(d if isinstance(d, int) else sizes[d] for d in dims)


def reference_session(
    model: onnx.ModelProto, num_threads: int
) -> Callable[[Feeds], list[np.ndarray]]:
    """`ort_session`, its failures as CommandErrors (ONNX Runtime missing, or rejecting the
    model)."""
    try:
        session = ort_session(model, num_threads)
    except ImportError:
        raise CommandError("--compare-ort needs ONNX Runtime: pip install onnxruntime") from None
    except ort_errors() as e:
        raise CommandError(f"ONNX Runtime cannot load the model: {e}") from None

    def run(feeds: Feeds) -> list[np.ndarray]:
        try:
            return session(feeds)
        except ort_errors() as e:
            raise CommandError(f"ONNX Runtime cannot run the model: {e}") from None

    return run


def compare(
    got: np.ndarray, want: np.ndarray, rtol: float, atol: float
) -> tuple[float, float, bool]:
    """(max abs error, max rel error where |want| > atol, whether allclose(rtol, atol))."""
    import numpy as np

    if got.shape != want.shape:
        return float("inf"), float("inf"), False
    if got.size == 0:
        return 0.0, 0.0, True
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    error = np.abs(got64 - want64)
    both_nan = np.isnan(got64) & np.isnan(want64)
    error[both_nan] = 0.0
    error[np.isnan(error)] = np.inf
    significant = np.abs(want64) > atol
    relative = float(np.max(error[significant] / np.abs(want64[significant]), initial=0.0))
    passed = bool(np.all(error <= atol + rtol * np.abs(np.nan_to_num(want64))))
    return float(np.max(error)), relative, passed


def save_outputs(directory: str, names: Sequence[str], arrays: Sequence[np.ndarray]) -> list[str]:
    """Save each output as `<name>.npy` in `directory` (created if missing); every file is
    written to a temporary name and renamed, so a file that exists is whole. Characters that
    do not belong in a file name (ONNX names may hold '/') become '_'."""
    import numpy as np

    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise CommandError(f"--output-dir {directory}: {e.strerror}") from None
    files, used = [], set()
    for name, array in zip(names, arrays):
        stem = re.sub(r"[^\w.-]", "_", name).lstrip(".") or "output"
        file = f"{stem}.npy"
        n = 1
        while file in used:
            n += 1
            file = f"{stem}_{n}.npy"
        used.add(file)
        target = os.path.join(directory, file)
        try:
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{file}.", suffix=".tmp")
        except OSError as e:
            raise CommandError(f"--output-dir {directory}: {e.strerror}") from None
        try:
            with os.fdopen(fd, "wb") as stream:
                np.save(stream, array, allow_pickle=False)
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        files.append(file)
    return files


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def milliseconds(seconds: Sequence[float]) -> str:
    return f"median {1e3 * statistics.median(seconds):.3f} ms, min {1e3 * min(seconds):.3f} ms"


def run_run(args: argparse.Namespace) -> None:
    from minitvm.compiler import random_inputs

    model = load_onnx(args.model)
    shapes: dict[str, tuple[int, ...]] = dict(args.input_shape)
    feeds = read_inputs(args.input, model, shapes)
    if args.output_dir is not None:  # before the compile, which may take a while
        try:
            os.makedirs(args.output_dir, exist_ok=True)
        except OSError as e:
            raise CommandError(f"--output-dir {args.output_dir}: {e.strerror}") from None
    exe = compile_model(model, shapes, args)
    report: CompileReport = exe.stats["report"]  # type: ignore[assignment]
    threads = f"{args.num_threads} thread{'s' if args.num_threads > 1 else ''}"
    print(f"compiled {args.model} in {report.total_seconds:.2f} s (-O{args.opt_level}, {threads})")
    sys.stdout.write(tuned_line(args, report))
    random = random_inputs(exe, args.seed)
    files = dict(args.input)
    for spec in exe.inputs:
        if spec.name in feeds:
            source = f"from {files[spec.name]}"
        else:
            feeds[spec.name] = random[spec.name]
            source = f"random (not given with --input; seed {args.seed})"
        print(f"input  {spec.name}: {describe(spec.shape, spec.dtype)} {source}")

    runners = {"minitvm": lambda: exe.run(feeds)}
    if args.compare_ort:
        reference = reference_session(model, args.num_threads)
        runners["onnxruntime"] = lambda: reference(feeds)
    # On several threads the two runtimes take turns, each block of runs after a pause.
    settle = SETTLE_S if args.compare_ort and args.num_threads > 1 else 0.0
    outputs, seconds = timed_runs(runners, args.warmup, args.repeat, settle)

    failed = []
    for n, (spec, array) in enumerate(zip(exe.outputs, outputs["minitvm"])):
        line = f"output {spec.name}: {describe(array.shape, array.dtype)}"
        if args.compare_ort:
            abs_err, rel_err, passed = compare(
                array, outputs["onnxruntime"][n], args.rtol, args.atol
            )
            line += f"  max abs err {abs_err:.3g}, max rel err {rel_err:.3g}  "
            line += "PASS" if passed else "FAIL"
            if not passed:
                failed.append(spec.name)
        print(line)
    repeat = len(seconds["minitvm"])
    runs = f"{repeat} run{'s' if repeat > 1 else ''}"
    print(f"latency over {runs} ({args.warmup} warm-up, {threads}):")
    print(f"  minitvm      {milliseconds(seconds['minitvm'])}")
    if args.compare_ort:
        ratio = statistics.median(seconds["minitvm"]) / statistics.median(seconds["onnxruntime"])
        verdict = f"{ratio:.2f}x slower" if ratio > 1 else f"{1 / ratio:.2f}x faster"
        print(f"  onnxruntime  {milliseconds(seconds['onnxruntime'])}  (minitvm is {verdict})")
    if args.output_dir is not None:
        saved = save_outputs(args.output_dir, exe.output_names, outputs["minitvm"])
        print(f"saved {', '.join(saved)} in {args.output_dir}")
    if failed:
        raise CommandError(
            f"{len(failed)} of {len(exe.outputs)} outputs differ from ONNX Runtime's "
            f"(rtol {args.rtol:g}, atol {args.atol:g}): {', '.join(failed)}"
        )


def add_run_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "run",
        help="compile an ONNX model, run it, time it, and check it against ONNX Runtime",
        description="Compile an ONNX model, run it on the given inputs (seeded random ones "
        "for inputs not given), print its outputs' shapes and its latency (median of "
        "--repeat runs); with --compare-ort, run ONNX Runtime on the same inputs with the same "
        "thread count and compare (exit 1 if an output differs).",
    )
    add_compile_options(p)
    p.add_argument(
        "--input", type=input_file, action="append", default=[], metavar="NAME=FILE.npy",
        help="an input's value from a .npy file; repeatable. An input with dynamic dimensions "
        "takes the file's shape unless --input-shape says otherwise",
    )  # fmt: skip
    add_timing_options(
        p, None, "timed runs; latency is their median", 1, "untimed runs before them"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--compare-ort", action="store_true",
                   help="also run ONNX Runtime (CPU) and compare outputs and latency")  # fmt: skip
    p.add_argument("--rtol", type=float, default=RTOL,
                   help=f"relative tolerance of --compare-ort (default {RTOL:g})")  # fmt: skip
    p.add_argument("--atol", type=float, default=ATOL,
                   help=f"absolute tolerance of --compare-ort (default {ATOL:g})")  # fmt: skip
    p.add_argument("--output-dir", metavar="DIR",
                   help="save each output as DIR/<name>.npy (written atomically)")  # fmt: skip
    p.set_defaults(run=run_run)


# ------------------------------------------------------------------------------ bench


def thread_counts(text: str) -> list[int]:
    """Parse `1,2` (argparse type of `--threads`)."""
    try:
        counts = [int(t) for t in text.split(",")]
    except ValueError:
        counts = []
    if not counts or any(t < 1 for t in counts):
        raise argparse.ArgumentTypeError(
            f"expected thread counts separated by commas (1,2), got '{text}'"
        )
    return counts


def run_bench(args: argparse.Namespace) -> None:
    from minitvm.bench import suite

    suite.run(args.cases, args.threads, args.repeat, args.warmup, args.records)


def add_bench_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "bench",
        help="benchmark minitvm against ONNX Runtime and numpy: one table",
        description="Compile and time GEMMs and models with minitvm, ONNX Runtime and (GEMM) "
        "numpy's BLAS at the same thread counts, interleaved; every minitvm result is checked "
        "first (a wrong one is printed as WRONG and makes the command exit 1). Cases: gemm512, "
        "gemm1024 (gemm<N> for any N), mlp, resnet_block, resnet18, mobilenet_v2, resnet50, bert.",
    )
    p.add_argument("cases", nargs="*", metavar="case", help="cases to run (default: all)")
    p.add_argument("--threads", type=thread_counts, default=[1, 2], metavar="1,2",
                   help="thread counts, each case runs at every one (default 1,2)")  # fmt: skip
    add_timing_options(
        p, 15, "timed rounds, interleaved; the table gives medians",
        2, "untimed runs of each runner before them",
    )  # fmt: skip
    p.add_argument("--records", metavar="URL",
                   help="compile with the tuned schedules of these tuning records")  # fmt: skip
    p.set_defaults(run=run_bench)


# ------------------------------------------------------------------------------ profile


def run_profile(args: argparse.Namespace) -> None:
    from minitvm.bench.profile import format_profile, profile

    model = load_onnx(args.model)
    exe = compile_model(model, dict(args.input_shape), args)
    report = profile(model, exe, args.opt_level, args.records, args.repeat, args.warmup)
    sys.stdout.write(format_profile(report, args.top))


def add_profile_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "profile",
        help="time each kernel of a compiled model alone: where the time goes",
        description="Compile an ONNX model, then build and time each of its kernels alone "
        "(seeded random inputs, weights included; equal kernels once) and the whole model; "
        "print the kernels slowest first with their share, and the sum next to the model's "
        "latency.",
    )
    add_compile_options(p)
    add_timing_options(
        p, 20, "timed samples per kernel; the median counts", 2, "untimed calls of each kernel first"
    )
    p.add_argument("--top", type=positive_int, default=None, metavar="K",
                   help="show only the K slowest kernels (default: all)")  # fmt: skip
    p.set_defaults(run=run_profile)


# ------------------------------------------------------------------------------ tune


positive_float = number_in(float, lambda v: v > 0, "a positive number")


def run_tune(args: argparse.Namespace) -> None:
    if args.report:
        report_records(args.records, None if args.no_plot else args.plot)
        return
    if args.model is None:
        raise CommandError("tune: give the model to tune (or --report to see what records hold)")
    if args.trials is None and args.timeout is None:
        raise CommandError("tune: give a budget: --trials N, --timeout SECONDS or both")
    model = load_onnx(args.model)
    from minitvm.tuner.progress import TuneProgress
    from minitvm.tuner.report import format_table, read_rows
    from minitvm.tuner.search import MeasureOptions, tune

    try:
        with TuneProgress() as progress:
            results = tune(
                model,
                args.records,
                trials=args.trials,
                timeout=args.timeout,
                sampler=args.sampler,
                workers=args.workers,
                seed=args.seed,
                num_threads=args.num_threads,
                input_shapes=dict(args.input_shape) or None,
                opt_level=args.opt_level,
                measure=MeasureOptions(timeout=args.measure_timeout),
                on_event=progress,
                log=lambda line: print(line, file=sys.stderr, flush=True),
            )
    except KeyboardInterrupt:
        raise CommandError(
            f"interrupted; finished trials are kept in {args.records}: run the same command "
            "again to resume"
        ) from None
    print()
    rows = read_rows(args.records, keys={r.task.key for r in results}, sampler=args.sampler)
    sys.stdout.write(format_table(rows))
    use = f"minitvm compile {args.model} --records {args.records} --num-threads {args.num_threads}"
    threads = f"{args.num_threads} thread{'s' if args.num_threads != 1 else ''}"
    print(f"\nrecords: {args.records} (tuned for {threads}; use them: {use})")


def report_records(records: str, plot: str | None) -> None:
    from minitvm.tuner.report import convergence_png, format_table, read_rows

    rows = read_rows(records)
    sys.stdout.write(format_table(rows))
    if plot and rows:
        png = convergence_png(rows)
        try:
            with atomic_output(plot) as stream:
                stream.flush()
                stream.buffer.write(png)  # binary, still renamed into place only when complete
        except OSError as e:
            raise CommandError(f"--plot {plot}: {e.strerror or e}") from None
        print(f"\nconvergence plot: {plot}")


def add_tune_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    from minitvm.records import DEFAULT_RECORDS

    p = subparsers.add_parser(
        "tune",
        help="auto-tune a model's kernel schedules (Optuna TPE); --report shows the records",
        description="Find faster schedules for a model's kernels: one Optuna study per distinct "
        "kernel (tuning task), each candidate built and timed in a worker process (a candidate "
        "that crashes, hangs or computes a wrong result is a failed trial), trials and time "
        "shared by each task's weight in the model's latency. Trials are kept in --records as "
        "they finish: a killed run loses none, and the same command resumes it (--trials is "
        "the total in the records). Compile with the results: minitvm compile --records URL.",
    )
    p.add_argument("model", nargs="?", help="path to an .onnx file (not with --report)")
    p.add_argument("--trials", type=positive_int, metavar="N",
                   help="trials in all, split among the tasks by weight")  # fmt: skip
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS",
                   help="wall-time limit of this run, split among the tasks by weight")  # fmt: skip
    p.add_argument("--records", default=DEFAULT_RECORDS, metavar="URL",
                   help=f"Optuna storage: any SQLAlchemy URL, e.g. postgresql://user@host/db "
                   f"to share studies among machines (default {DEFAULT_RECORDS})")  # fmt: skip
    p.add_argument("--sampler", choices=("tpe", "random"), default="tpe",
                   help="tpe (default) or random, the baseline; each has its own studies")  # fmt: skip
    p.add_argument("--workers", type=positive_int, default=1, metavar="K",
                   help="tuning processes sharing the studies (default 1; more than one on a "
                   "machine disturbs the timings of each)")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="seed of the sampler (default 0)")
    p.add_argument("--num-threads", type=positive_int, default=None, metavar="N",
                   help="threads the kernels are tuned for; records apply to compiles with "
                   "the same count (default: all cores, as compile's default)")  # fmt: skip
    add_input_shape_option(p)
    p.add_argument("-O", dest="opt_level", type=int, choices=range(4), default=3, metavar="N",
                   help="optimization level 0-3 the model is compiled at (default 3)")  # fmt: skip
    p.add_argument("--measure-timeout", type=positive_float, metavar="SECONDS",
                   help="limit per candidate, build and runs (default: from the default "
                   "schedule's times, at least 10 s)")  # fmt: skip
    p.add_argument("--report", action="store_true",
                   help="print default vs best latency per task in --records, write --plot")  # fmt: skip
    p.add_argument("--plot", default="minitvm_convergence.png", metavar="PNG",
                   help="--report: convergence plot, best latency vs trial (default "
                   "minitvm_convergence.png)")  # fmt: skip
    p.add_argument("--no-plot", action="store_true", help="--report: no plot")
    p.set_defaults(run=run_tune)


# ------------------------------------------------------------------------------ driver

#: One entry per subcommand; each adds its parser to the subparsers it is given.
COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [  # pyright: ignore[reportPrivateUsage]
    add_import_command,
    add_compile_command,
    add_run_command,
    add_bench_command,
    add_profile_command,
    add_tune_command,
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
    if getattr(args, "num_threads", 0) is None:  # compile/run: all the cores we may use
        from minitvm.compiler import default_num_threads

        args.num_threads = default_num_threads()
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
