"""`minitvm run`: compile a model, run it, time it, and with `--compare-ort` check it against
ONNX Runtime; or do the same with a library `minitvm export` wrote.

    minitvm run model.onnx [--input x=x.npy ...] [--input-shape ...] [--repeat N] [--warmup W]
                [--num-threads N] [--seed S] [--compare-ort [--rtol R --atol A]] [--output-dir DIR]
    minitvm run model.so [--onnx model.onnx] [--input ...] [--compare-ort ...] [...]

The timing is runtime/timing.py's `timed_runs`, ONNX Runtime runtime/ort.py's session.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from minitvm.bench.options import add_timing_options
from minitvm.runtime.ort import Feeds, ort_errors, ort_session
from minitvm.runtime.timing import SETTLE_S, timed_runs
from minitvm.tools.inputs import (
    compile_model,
    describe,
    load_onnx,
    model_inputs,
    read_inputs,
    run_feeds,
)
from minitvm.tools.options import CommandError, add_compile_options, tuned_line

if TYPE_CHECKING:  # onnx, numpy and the compiler are slow to import: the command loads them
    import numpy as np
    import onnx

    from minitvm.compiler import CompileReport
    from minitvm.runtime import Executable
    from minitvm.runtime.library import Library

RTOL, ATOL = 1e-3, 1e-4


def input_file(text: str) -> tuple[str, str]:
    """Parse `NAME=path.npy` (argparse type of `--input`)."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=FILE.npy, got '{text}'")
    return name, path


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
    with np.errstate(invalid="ignore"):  # inf - inf, inf / inf: decided below
        error = np.abs(got64 - want64)
        # NaN where the reference has NaN, and the same infinity, are exact (NaN/Inf weights)
        error[(got64 == want64) | (np.isnan(got64) & np.isnan(want64))] = 0.0
        error[np.isnan(error)] = np.inf
        significant = np.abs(want64) > atol
        ratios = error[significant] / np.abs(want64[significant])
    ratios[np.isnan(ratios)] = np.inf  # a finite value where the reference is infinite
    relative = float(np.max(ratios, initial=0.0))
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
        except BaseException as e:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            if isinstance(e, OSError):  # a full disk, a file-size limit
                raise CommandError(f"--output-dir {directory}: {file}: {e.strerror}") from None
            raise
        files.append(file)
    return files


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def milliseconds(seconds: Sequence[float]) -> str:
    return f"median {1e3 * statistics.median(seconds):.3f} ms, min {1e3 * min(seconds):.3f} ms"


def is_library(path: str) -> bool:
    """Whether `path` is a shared library (an ELF file), not an ONNX model."""
    try:
        with open(path, "rb") as stream:
            return stream.read(4) == b"\x7fELF"
    except OSError:
        return False


def _compiled(args: argparse.Namespace) -> tuple[Executable, onnx.ModelProto, dict[str, np.ndarray]]:
    """Compile `args.model` (after reading the --input files); the model; the feeds."""
    model = load_onnx(args.model)
    shapes = dict(args.input_shape)
    feeds = read_inputs(args.input, model_inputs(model), shapes)
    _make_output_dir(args)  # before the compile, which may take a while
    exe = compile_model(model, shapes, args)
    report: CompileReport = exe.stats["report"]  # type: ignore[assignment]
    print(f"compiled {args.model} in {report.total_seconds:.2f} s (-O{args.opt_level}, {_threads(args)})")
    sys.stdout.write(tuned_line(args, report))
    return exe, model, feeds


def _loaded(args: argparse.Namespace) -> tuple[Library, onnx.ModelProto | None, dict[str, np.ndarray]]:
    """Load the library `args.model` (and the --onnx model, for --compare-ort); the feeds."""
    from minitvm.runtime.library import load

    for flag, given in (("--input-shape", args.input_shape), ("--records", args.records)):
        if given:
            raise CommandError(f"{flag} is for compiling an ONNX model; {args.model} is compiled already")
    if args.compare_ort and args.onnx is None:
        raise CommandError("--compare-ort with a library needs the ONNX model it came from: --onnx FILE")
    model = load_onnx(args.onnx) if args.onnx is not None else None
    library = load(args.model, args.num_threads)
    declared = {s.name: (s.dtype, list(s.shape)) for s in library.inputs}
    feeds = read_inputs(args.input, declared, {})
    _make_output_dir(args)
    print(f"loaded {args.model} ({_threads(args)})")
    return library, model, feeds


def _make_output_dir(args: argparse.Namespace) -> None:
    if args.output_dir is not None:
        try:
            os.makedirs(args.output_dir, exist_ok=True)
        except OSError as e:
            raise CommandError(f"--output-dir {args.output_dir}: {e.strerror}") from None


def _threads(args: argparse.Namespace) -> str:
    return f"{args.num_threads} thread{'s' if args.num_threads > 1 else ''}"


def run_run(args: argparse.Namespace) -> None:
    if is_library(args.model):
        exe, model, feeds = _loaded(args)
    else:
        if args.onnx is not None:
            raise CommandError("--onnx is for running a library; the model is the ONNX file itself")
        exe, model, feeds = _compiled(args)
    threads = _threads(args)
    files = dict(args.input)
    feeds, chosen = run_feeds(exe, feeds, args.seed)
    if chosen:
        sizes = ", ".join(f"{name} = {size}" for name, size in chosen.items())
        setters = "--input sets them" if is_library(args.model) else "--input-shape or --input sets them"
        print(f"sizes  {sizes} (dynamic: compiled for any size, run at the smallest; {setters})")
    for spec in exe.inputs:
        if spec.name in files:
            source = f"from {files[spec.name]}"
        else:
            source = f"random (not given with --input; seed {args.seed})"
        print(f"input  {spec.name}: {describe(feeds[spec.name].shape, spec.dtype)} {source}")

    runners = {"minitvm": lambda: exe.run(feeds)}
    if args.compare_ort:
        assert model is not None
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
        help="compile an ONNX model (or load an exported library), run it, time it, and "
        "check it against ONNX Runtime",
        description="Compile an ONNX model, run it on the given inputs (seeded random ones "
        "for inputs not given), print its outputs' shapes and its latency (median of "
        "--repeat runs); with --compare-ort, run ONNX Runtime on the same inputs with the same "
        "thread count and compare (exit 1 if an output differs).",
    )
    add_compile_options(p, model_help="an .onnx file, or a library minitvm export wrote")
    p.add_argument(
        "--onnx", metavar="FILE",
        help="with a library as the model: the ONNX model it was exported from (for --compare-ort)",
    )  # fmt: skip
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
