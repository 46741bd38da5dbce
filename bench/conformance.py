"""ONNX node conformance of minitvm: pass/total per op, then every failure and exclusion.

Runs the cases of tests/unit/test_onnx_node_conformance.py (the selection in
tests/conformance/cases.json) with that module's verdict and exclusion list, so its figures are
the test suite's. Cases run in a child process: a compiler crash (a segfault in generated code)
is reported as that case's result and the run goes on in a fresh child.

    python bench/conformance.py [-v] [-k SUBSTRING] [--frontend-max-opset N]

`--frontend-max-opset` is a what-if: it raises the frontend's MAX_OPSET for this run only (the
opset rule then stops excluding those cases), to see what a newer opset would cost.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import time
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit"))


def _conformance(max_opset: int | None) -> types.ModuleType:
    if max_opset is not None:
        import minitvm.frontend.onnx as frontend

        frontend.MAX_OPSET = max_opset
    import test_onnx_node_conformance

    return test_onnx_node_conformance


def child(max_opset: int | None) -> None:
    """Run the case names read from stdin; one JSON line per case on stdout."""
    conformance = _conformance(max_opset)
    data = conformance.node_cases.ensure_data()
    for name in sys.stdin.read().split():
        start = time.perf_counter()
        try:
            conformance.check_case(data / name)
            verdict, detail = "pass", ""
        except AssertionError as error:
            verdict, detail = "wrong", str(error).strip()
        except Exception as error:  # any error is this case's result, reported
            verdict = "error"
            detail = f"{type(error).__name__}: {error}"
            if not type(error).__module__.startswith("minitvm"):
                detail += "\n" + traceback.format_exc(limit=-3)
        seconds = time.perf_counter() - start
        print(json.dumps([name, verdict, detail, seconds]), flush=True)


def run_all(names: list[str], max_opset: int | None) -> dict[str, tuple[str, str, float]]:
    command = [sys.executable, __file__, "--child"]
    if max_opset is not None:
        command += ["--frontend-max-opset", str(max_opset)]
    results: dict[str, tuple[str, str, float]] = {}
    pending = list(names)
    while pending:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("\n".join(pending))
        process.stdin.close()
        for line in process.stdout:
            name, verdict, detail, seconds = json.loads(line)
            results[name] = (verdict, detail, seconds)
        process.wait()
        pending = [n for n in pending if n not in results]
        if pending and process.returncode != 0:  # it died in the first case it did not report
            results[pending.pop(0)] = ("crash", f"process exited with {process.returncode}", 0.0)
        elif pending:
            raise RuntimeError(f"the child stopped early without an error at {pending[0]}")
    return results


def first_line(text: str, width: int = 150) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return line if len(line) <= width else line[: width - 3] + "..."


def report(
    results: dict[str, tuple[str, str, float]], conformance: types.ModuleType, verbose: bool
) -> None:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="name every excluded case")
    parser.add_argument("-k", default="", help="only the cases whose name contains this")
    parser.add_argument("--frontend-max-opset", type=int, help="what-if (see the docstring)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.frontend_max_opset)
        return 0
    conformance = _conformance(args.frontend_max_opset)
    conformance.node_cases.ensure_data()
    names = [n for n in conformance.CASES if args.k in n]
    report(run_all(names, args.frontend_max_opset), conformance, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
