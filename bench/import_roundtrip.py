"""Import the ONNX wheel's nine light models and check that their IR text round-trips.

For each model: import -> print -> parse -> print must be byte-identical, in the custom and
the generic form (through the Python API), and the times to import and to print are the
median of `--repeat` runs. `--cli` also checks `minitvm import m.onnx | minitvm-opt` (with and
without --print-op-generic) against `minitvm import`'s own output.

    python bench/import_roundtrip.py [--repeat 5] [--cli] [models...]
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys

import onnx

from minitvm.frontend import from_onnx
from minitvm.ir import parse_module, print_module
from minitvm.runtime.timing import timed_runs

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend/test/data/light")


def median_seconds(work, repeat: int) -> tuple[float, object]:
    result, times = timed_runs({"work": work}, 0, repeat)
    return statistics.median(times["work"]), result["work"]


def check_cli(path: str) -> bool:
    tools = os.path.dirname(sys.executable)
    ok = True
    for generic in (False, True):
        flag = ["--generic"] if generic else []
        text = subprocess.run([f"{tools}/minitvm", "import", path, *flag], check=True,
                              capture_output=True, text=True).stdout
        opt_flag = ["--print-op-generic"] if generic else []
        again = subprocess.run([f"{tools}/minitvm-opt", *opt_flag], input=text, check=True,
                               capture_output=True, text=True).stdout
        ok &= again == text
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="light model names (default: all nine)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cli", action="store_true", help="also round-trip through the CLIs")
    args = parser.parse_args()
    paths = sorted(glob.glob(f"{LIGHT}/light_*.onnx"))
    if args.models:
        paths = [p for p in paths if any(m in os.path.basename(p) for m in args.models)]
    print(f"{'model':<22}{'import s':>10}{'print s':>10}{'KiB':>8}  custom generic" + ("  cli" if args.cli else ""))
    for path in paths:
        model = onnx.load(path)
        t_import, module = median_seconds(lambda: from_onnx(model), args.repeat)
        t_print, text = median_seconds(lambda: print_module(module), args.repeat)
        custom = print_module(parse_module(text)) == text
        generic_text = print_module(module, generic=True)
        generic = print_module(parse_module(generic_text), generic=True) == generic_text
        row = (f"{os.path.basename(path)[6:-5]:<22}{t_import:>10.3f}{t_print:>10.3f}"
               f"{len(text) / 1024:>8.0f}  {'ok' if custom else 'FAIL':>6} {'ok' if generic else 'FAIL':>7}")
        if args.cli:
            row += f"  {'ok' if check_cli(path) else 'FAIL'}"
        print(row, flush=True)


if __name__ == "__main__":
    main()
