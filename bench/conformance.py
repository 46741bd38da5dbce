"""ONNX node conformance of minitvm (and of ONNX Runtime beside it): pass/total per op, then
every failure, with its reason.

By default it runs the cases of tests/unit/test_onnx_node_conformance.py (the selection in
tests/conformance/cases.json) with that module's verdict and exclusion list, so its figures are
the test suite's. `--all` runs every case ONNX's node suite has (its data written once to
tests/conformance/data_all/) through minitvm and through ONNX Runtime (CPUExecutionProvider),
both judged by the same verdict (`assert_outputs`), and reports side by side: a per-op table,
totals, the cases ORT passes and minitvm fails grouped by reason, the cases out of minitvm's
scope (training, random generators, strings, other domains), and those minitvm passes
and ORT fails.

Each runner's cases run in child processes, one case at a time: a segfault in generated code is
reported as that case's "crash", a case that gives no result within `--timeout` seconds as its
"timeout", and the run goes on in a fresh child.

    python bench/conformance.py [-v] [-k SUBSTRING] [--op OPTYPE ...] [--frontend-max-opset N]
    python bench/conformance.py --all [--runner minitvm|ort|both] [--op OPTYPE ...] [-k SUBSTRING]
                                [--zero-size] [--json PATH] [-j N] [--timeout SECONDS]

`--op` takes the op a case tests as the manifest names it ("Softmax", "Softmax (expanded)") and
may be repeated. `--zero-size` keeps the cases with a tensor without elements (a dim of size
0) among their inputs, expected outputs, initializers or Constant values. `--json` writes every case's verdict, detail and seconds per runner, to diff two
runs. `--runner ort` or `both` without `--all` prints the side-by-side report for the selected
cases. `--frontend-max-opset` is a what-if: it raises the frontend's MAX_OPSET for this run only
(the opset rule then stops excluding those cases), to see what a newer opset would cost.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from minitvm.bench.conformance_report import (
    MINITVM,
    ORT,
    Result,
    full_report,
    out_of_scope,
    result_json,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit"))

RUNNERS = (MINITVM, ORT)
#: A child's imports (xDSL, ONNX, ORT) take seconds; a start longer than this is a hang.
STARTUP_S = 120.0


def _conformance(max_opset: int | None) -> types.ModuleType:
    if max_opset is not None:
        import minitvm.frontend.onnx as frontend

        frontend.MAX_OPSET = max_opset
    import test_onnx_node_conformance

    return test_onnx_node_conformance


def run_ort(conformance: types.ModuleType, case_dir: Path) -> None:
    """Run one case through ONNX Runtime's CPU provider, fed and judged as `check_case` feeds
    and judges minitvm: inputs in graph order, every data set, the same `assert_outputs`."""
    import onnxruntime

    _, data_sets = conformance.load_case(case_dir)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1  # children run side by side (-j); a verdict needs no threads
    session = onnxruntime.InferenceSession(
        str(case_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
    )
    names = [value.name for value in session.get_inputs()]
    for inputs, expected in data_sets:
        got = session.run(None, dict(zip(names, inputs, strict=False)))
        conformance.assert_outputs(expected, got, case_dir.name)


def _case_runner(runner: str, conformance: types.ModuleType) -> Callable[[Path], None]:
    if runner == ORT:
        import onnxruntime  # noqa: F401  (imported before "ready": no case's clock pays for it)

        return lambda case_dir: run_ort(conformance, case_dir)
    return conformance.check_case


def child(runner: str, data: Path, max_opset: int | None) -> None:
    """Serve cases: after a "ready" line, read one case name per stdin line, run it, answer one
    JSON line [name, verdict, detail, seconds]. The answers go to a private copy of stdout and
    fd 1 becomes stderr, so nothing a case prints (ORT's or LLVM's C code included) can garble
    them."""
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    run_case = _case_runner(runner, _conformance(max_opset))
    answers.write("ready\n")
    answers.flush()
    for line in sys.stdin:
        name = line.strip()
        start = time.perf_counter()
        try:
            run_case(data / name)
            verdict, detail = "pass", ""
        except Exception as error:  # noqa: BLE001  (any error is this case's result, reported)
            verdict, detail = _failure(error)
        seconds = time.perf_counter() - start
        answers.write(json.dumps([name, verdict, detail, seconds]) + "\n")
        answers.flush()


def _failure(error: Exception) -> tuple[str, str]:
    """("wrong", the verdict's message) when the outputs were judged and differ; otherwise
    ("error", the exception), with the last frames of its traceback when it is not one of
    minitvm's or ONNX Runtime's own errors (a bug: where it happened matters). An assert in
    the compiler is such a bug, not a wrong result, hence the look at where it was raised."""
    frames = traceback.extract_tb(error.__traceback__)
    if isinstance(error, AssertionError) and any(f.name == "assert_outputs" for f in frames):
        return "wrong", str(error).strip()
    detail = f"{type(error).__name__}: {error}"
    if not type(error).__module__.startswith(("minitvm", "onnxruntime")):
        detail += "\n" + "".join(traceback.format_exception(error, limit=-3)).strip()
    return "error", detail


@dataclasses.dataclass
class _Child:
    """A child process serving cases, and the case it is running (None: idle or starting)."""

    process: subprocess.Popen[bytes]
    stderr: IO[bytes]
    ready: bool = False
    case: str | None = None
    started: float = 0.0
    stderr_at: int = 0  # where the running case's stderr begins, for a crash's last words
    buffer: bytes = b""


class _Pool:
    """Up to `jobs` children of one runner, each given one case at a time, so that a crash or a
    hang costs only that case (its child is replaced)."""

    def __init__(self, command: list[str], jobs: int, timeout: float):
        self.command, self.jobs, self.timeout = command, jobs, timeout
        self.selector = selectors.DefaultSelector()
        self.children: list[_Child] = []

    def run(self, names: Sequence[str], progress: Callable[[int], None]) -> dict[str, Result]:
        pending = collections.deque(names)
        results: dict[str, Result] = {}
        try:
            while pending or any(c.case is not None for c in self.children):
                while len(self.children) < min(self.jobs, len(pending) + self._busy()):
                    self._spawn()
                for child in self.children:
                    if child.ready and child.case is None:
                        self._dispatch(child, pending)
                done = len(results)
                for child, line in self._lines():
                    self._answer(child, line, results)
                for child in list(self.children):
                    self._check(child, results)
                if len(results) > done:
                    progress(len(results))
        finally:
            for child in list(self.children):
                self._stop(child)
        return {name: results[name] for name in names}

    def _busy(self) -> int:
        return sum(c.case is not None for c in self.children)

    def _spawn(self) -> None:
        stderr = tempfile.TemporaryFile()  # noqa: SIM115  (closed with its child, in _stop)
        process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,  # its own process group: a timeout kills all it started
        )
        assert process.stdout is not None
        child = _Child(process, stderr, started=time.monotonic())
        os.set_blocking(process.stdout.fileno(), False)
        self.selector.register(process.stdout, selectors.EVENT_READ, child)
        self.children.append(child)

    def _dispatch(self, child: _Child, pending: collections.deque[str]) -> None:
        """Give `child` the next case, or close its stdin (it then exits) when none is left."""
        assert child.process.stdin is not None
        if not pending:
            if not child.process.stdin.closed:
                child.process.stdin.close()
            return
        name = pending.popleft()
        child.stderr.seek(0, os.SEEK_END)
        child.stderr_at = child.stderr.tell()
        try:
            child.process.stdin.write(f"{name}\n".encode())
            child.process.stdin.flush()
        except BrokenPipeError:  # it died after its last answer; the case never ran
            pending.appendleft(name)
            child.process.stdin.close()
            return
        child.case, child.started = name, time.monotonic()

    def _lines(self) -> list[tuple[_Child, str | None]]:
        """The lines the children wrote (None: the child's stdout closed), waiting at most until
        the nearest deadline."""
        deadlines = [self._deadline(c) for c in self.children if c.case or not c.ready]
        wait = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        lines: list[tuple[_Child, str | None]] = []
        for key, _ in self.selector.select(wait):
            child: _Child = key.data
            chunk = os.read(key.fd, 1 << 16)
            if not chunk:
                lines.append((child, None))
                continue
            child.buffer += chunk
            *complete, child.buffer = child.buffer.split(b"\n")
            lines += [(child, line.decode()) for line in complete]
        return lines

    def _answer(self, child: _Child, line: str | None, results: dict[str, Result]) -> None:
        if line is None:  # it exited: after its last case, in one (a crash), or starting
            code = child.process.wait()
            if child.case is not None:
                spent = time.monotonic() - child.started
                results[child.case] = Result("crash", self._died(child, code), spent)
            elif not child.ready:
                raise RuntimeError(
                    f"a conformance child failed to start: {self._died(child, code)}"
                )
            self._stop(child)
        elif line == "ready":
            child.ready = True
        else:
            name, verdict, detail, seconds = json.loads(line)
            results[name] = Result(verdict, detail, seconds)
            child.case = None

    def _check(self, child: _Child, results: dict[str, Result]) -> None:
        """Stop a child past its deadline: a hung case is a "timeout"; a hung start, an error."""
        if child not in self.children or time.monotonic() < self._deadline(child):
            return
        if child.case is not None:
            spent = time.monotonic() - child.started
            results[child.case] = Result("timeout", f"no result within {self.timeout:g} s", spent)
            self._stop(child)
        elif not child.ready:
            self._stop(child)
            raise RuntimeError(f"a conformance child did not start within {STARTUP_S:g} s")

    def _deadline(self, child: _Child) -> float:
        return child.started + (self.timeout if child.ready else max(self.timeout, STARTUP_S))

    def _died(self, child: _Child, code: int) -> str:
        """ "process exited with -11 (SIGSEGV)", and the last line the case wrote to stderr."""
        text = f"process exited with {code}"
        if code < 0:
            text += f" ({signal.Signals(-code).name})"
        child.stderr.seek(child.stderr_at)
        said = [s.strip() for s in child.stderr.read().decode(errors="replace").splitlines()]
        said = [s for s in said if s]
        return f"{text}; stderr: {said[-1]}" if said else text

    def _stop(self, child: _Child) -> None:
        if child not in self.children:
            return
        self.children.remove(child)
        assert child.process.stdout is not None
        self.selector.unregister(child.process.stdout)
        if child.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # it exited meanwhile
                os.killpg(child.process.pid, signal.SIGKILL)
        child.process.wait()
        for stream in (child.process.stdin, child.process.stdout, child.stderr):
            if stream is not None:
                stream.close()


def run_cases(
    runner: str, names: Sequence[str], data: Path, args: argparse.Namespace, announce: bool
) -> dict[str, Result]:
    """Every case of `names` through `runner`, in `args.jobs` children; with `announce`, its
    progress and time on stderr (without, the selected cases' report is what it always was)."""
    command = [sys.executable, __file__, "--child", runner, "--data", str(data)]
    if args.frontend_max_opset is not None:
        command += ["--frontend-max-opset", str(args.frontend_max_opset)]
    start = time.monotonic()
    reported = 0

    def progress(done: int) -> None:
        nonlocal reported
        if announce and done >= reported + 200 and sys.stderr.isatty():
            reported = done
            print(f"{runner}: {done}/{len(names)} cases", file=sys.stderr, flush=True)

    results = _Pool(command, args.jobs, args.timeout).run(names, progress)
    if not announce:
        return results
    print(
        f"{runner}: {len(names)} cases in {time.monotonic() - start:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    return results


def first_line(text: str, width: int = 150) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return line if len(line) <= width else line[: width - 3] + "..."


def report(results: dict[str, Result], conformance: types.ModuleType, verbose: bool) -> None:
    """The selected cases' report: pass/total per op, failures not excluded, exclusions."""
    by_op: dict[str, list[str]] = collections.defaultdict(list)
    for name in results:
        by_op[conformance.CASES[name][0]].append(name)
    failing, excluded, unexpected_pass = [], collections.defaultdict(list), []
    print(f"{'op':<42}{'pass/total':>11}  notes")
    total_pass = 0
    for op in sorted(by_op, key=lambda o: (o.endswith("(expanded)"), o)):
        names = by_op[op]
        passed = sum(results[n][0] == "pass" for n in names)
        total_pass += passed
        notes = []
        n_excluded = sum(conformance.exclusion_reason(n) is not None for n in names)
        n_failing = sum(
            results[n][0] != "pass" and conformance.exclusion_reason(n) is None for n in names
        )
        if n_excluded:
            notes.append(f"{n_excluded} excluded")
        if n_failing:
            notes.append(f"{n_failing} FAILING")
        print(f"{op:<42}{f'{passed}/{len(names)}':>11}  {', '.join(notes)}")
        for name in names:
            reason = conformance.exclusion_reason(name)
            verdict = results[name][0]
            if reason is not None:
                (unexpected_pass if verdict == "pass" else excluded[reason]).append(name)
            elif verdict != "pass":
                failing.append(name)
    print(f"{'total':<42}{f'{total_pass}/{len(results)}':>11}")

    print(f"\nfailing, not excluded ({len(failing)}):")
    for name in failing:
        verdict, detail, _ = results[name]
        print(f"  {name} [{verdict}]: {first_line(detail)}")
    if unexpected_pass:
        print(f"\nexcluded but passing, remove from EXCLUDED ({len(unexpected_pass)}):")
        for name in unexpected_pass:
            print(f"  {name}")
    print(f"\nexcluded ({sum(map(len, excluded.values()))}; expected failures, by reason):")
    for reason, names in sorted(excluded.items(), key=lambda item: -len(item[1])):
        ops = collections.Counter(conformance.CASES[n][0] for n in names)
        print(f"  {len(names):4} {reason}")
        if verbose or len(names) <= 4:
            print("       " + ", ".join(names))
        else:
            print("       ops: " + ", ".join(f"{op} {count}" for op, count in sorted(ops.items())))
    skipped = conformance.MANIFEST["skipped"]
    reasons = collections.Counter(reason for _, reason in skipped.values())
    print(
        f"\nnot selected ({len(skipped)} cases of supported ops; see tests/conformance/cases.json):"
    )
    for reason, count in reasons.most_common():
        print(f"  {count:4} {reason}")
    seconds = sorted(((r[2], n) for n, r in results.items()), reverse=True)
    print(
        f"\n{sum(s for s, _ in seconds):.1f} s in the cases; slowest: "
        + ", ".join(f"{n} {s:.2f} s" for s, n in seconds[:3])
    )


def _cases(args: argparse.Namespace, conformance: types.ModuleType) -> tuple[Path, dict[str, str]]:
    """The data directory and the cases to run (case -> the op it tests), filtered by -k/--op."""
    if args.all:
        data = conformance.node_cases.ensure_all_data()
        ops = conformance.node_cases.read_ops(data)
    else:
        data = conformance.node_cases.ensure_data()
        ops = {name: op for name, (op, _) in conformance.CASES.items()}
    chosen = {
        n: op
        for n, op in ops.items()
        if args.k in n
        and (not args.op or op in args.op)
        and (not args.zero_size or _has_zero_size(data / n))
    }
    unknown = sorted(set(args.op or ()) - set(ops.values()))
    if unknown:
        raise SystemExit(f"conformance.py: --op {', '.join(unknown)}: no such op among the cases")
    return data, chosen


def _has_zero_size(case_dir: Path) -> bool:
    """Whether a tensor of the case (a data set's input or output, an initializer, a Constant
    value) has no elements. Files that hold no tensor (sequences, optionals) are passed over."""
    import onnx
    from google.protobuf.message import DecodeError

    model = onnx.load(str(case_dir / "model.onnx"))
    tensors = list(model.graph.initializer)
    tensors += [a.t for n in model.graph.node for a in n.attribute if a.HasField("t")]
    for path in sorted(case_dir.glob("test_data_set_*/*.pb")):
        tensor = onnx.TensorProto()
        try:
            tensor.ParseFromString(path.read_bytes())
        except DecodeError:
            continue
        tensors.append(tensor)
    return any(0 in t.dims for t in tensors)


def _scopes(data: Path, names: Sequence[str]) -> dict[str, str | None]:
    """Each case's `out_of_scope` category, from its model."""
    import onnx

    return {name: out_of_scope(onnx.load(str(data / name / "model.onnx"))) for name in names}


def _write_json(
    path: Path,
    ops: dict[str, str],
    scopes: dict[str, str | None],
    results: dict[str, dict[str, Result]],
) -> None:
    """Every case: its op, its scope (null: in scope) and each runner's verdict, detail and
    seconds, under the versions that produced them, so two runs diff case by case."""
    import onnx

    versions = {"onnx": onnx.__version__}
    if ORT in results:
        import onnxruntime

        versions["onnxruntime"] = onnxruntime.__version__
    cases = {
        name: {"op": op, "scope": scopes[name]}
        | {runner: result_json(by_case[name]) for runner, by_case in results.items()}
        for name, op in ops.items()
    }
    path.write_text(json.dumps({**versions, "cases": cases}, indent=1) + "\n")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="name every excluded case")
    parser.add_argument("-k", default="", help="only the cases whose name contains this")
    parser.add_argument("--op", action="append", help="only the cases testing this op (repeatable)")
    parser.add_argument(
        "--zero-size", action="store_true", help="only the cases with a tensor without elements"
    )
    parser.add_argument("--all", action="store_true", help="ONNX's full node suite")
    parser.add_argument(
        "--runner",
        choices=(*RUNNERS, "both"),
        help="who runs the cases (default: both with --all, minitvm otherwise)",
    )
    parser.add_argument("--json", type=Path, help="write every case's verdict per runner here")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="children run side by side")
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds a case may take (default 60)"
    )
    parser.add_argument("--frontend-max-opset", type=int, help="what-if (see the docstring)")
    parser.add_argument("--child", choices=RUNNERS, help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    return parser


def main() -> int:
    args = _parser().parse_args()
    if args.child:
        child(args.child, args.data, args.frontend_max_opset)
        return 0
    if args.jobs < 1 or args.timeout <= 0:
        raise SystemExit("conformance.py: -j must be at least 1 and --timeout positive")
    runner = args.runner or ("both" if args.all else "minitvm")
    runners = list(RUNNERS) if runner == "both" else [runner]
    conformance = _conformance(args.frontend_max_opset)
    data, ops = _cases(args, conformance)
    side_by_side = args.all or runners != ["minitvm"]
    results = {r: run_cases(r, list(ops), data, args, side_by_side) for r in runners}
    scopes = _scopes(data, list(ops)) if side_by_side or args.json else {}
    if args.json:
        _write_json(args.json, ops, scopes, results)
    if side_by_side:
        print(full_report(ops, scopes, results))
    else:
        report(results["minitvm"], conformance, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
