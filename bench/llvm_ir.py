"""The LLVM IR minitvm hands to LLVM for each `minitvm bench` model, one file per model.

    python bench/llvm_ir.py OUT_DIR [--records URL] [--threads N] [case ...]
    git stash; python bench/llvm_ir.py /tmp/before; git stash pop
    python bench/llvm_ir.py /tmp/after && diff -r /tmp/before /tmp/after

A refactoring that should change no result and no speed (a pass moved, a contract renamed)
should change no byte of this output: writing it before and after a change and diffing is how
to show that. Each line printed is a case, a digest of its IR, its size and the seconds the
compile took. It is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time

from minitvm.bench.suite import CASES, find_case
from minitvm.compiler import llvm_ir
from minitvm.errors import MinitvmError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", help="where to write <case>.ll")
    parser.add_argument("cases", nargs="*", help=f"default: all of {', '.join(CASES)}")
    parser.add_argument("--records", help="tuning records URL (te-apply-records)")
    parser.add_argument("--threads", type=int, default=1, help="thread count compiled for (1)")
    args = parser.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    try:
        for name in args.cases or CASES:
            start = time.perf_counter()
            text = llvm_ir(find_case(name).build(), num_threads=args.threads, records=args.records)
            with open(os.path.join(args.out_dir, f"{name}.ll"), "w") as f:
                f.write(text)
            digest = hashlib.sha256(text.encode()).hexdigest()[:16]
            print(f"{name:14} {digest} {len(text):>9} bytes {time.perf_counter() - start:6.1f} s")
    except MinitvmError as error:
        print(f"llvm_ir: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
