"""`minitvm bench`: minitvm against ONNX Runtime and numpy's BLAS, one table.

    minitvm bench [case ...] [--threads 1,2] [--repeat N] [--warmup W] [--records URL]
    minitvm bench --dynamic [bert] [resnet50] [--threads 1,2] [--repeat N] [--warmup W]
    minitvm bench [case ...] --write-models DIR

The engine is bench/suite.py; its arguments, which `python bench/suite.py` shares, are in
bench/options.py.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from minitvm.bench.options import add_bench_arguments
from minitvm.tools.atomic import write_bytes
from minitvm.tools.options import CommandError


def write_models(names: Sequence[str], directory: str) -> None:
    """Write the cases' models (all by default) as `<directory>/<case>.onnx`, each the very
    model the bench compiles, so that `minitvm tune` can tune them for `--records`. Every
    name is checked before anything is written."""
    from minitvm.bench import suite

    cases = {name: suite.find_case(name) for name in names or suite.CASES}
    os.makedirs(directory, exist_ok=True)
    for name, case in cases.items():
        path = os.path.join(directory, f"{name}.onnx")
        write_bytes(case.build().SerializeToString(), path)
        print(path, flush=True)


def run_bench(args: argparse.Namespace) -> None:
    if args.write_models is not None:
        if args.dynamic or args.records:
            raise CommandError("--write-models writes the cases' models and times nothing")
        write_models(args.cases, args.write_models)
        return
    if args.dynamic:
        from minitvm.bench import dynamic_shapes

        if args.records:
            raise CommandError("--records is not for --dynamic: tuning records skip symbolic kernels")
        dynamic_shapes.run(args.cases, args.threads, args.repeat, args.warmup)
        return
    from minitvm.bench import suite

    suite.run(args.cases, args.threads, args.repeat, args.warmup, args.records)


def add_bench_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "bench",
        help="benchmark minitvm against ONNX Runtime and numpy: one table",
        description="Compile and time GEMMs and models with minitvm, ONNX Runtime and (GEMM) "
        "numpy's BLAS at the same thread counts, interleaved; every minitvm result is checked "
        "first (a wrong one is printed as WRONG and makes the command exit 1). Cases: gemm512, "
        "gemm1024 (gemm<N> for any N), mlp, resnet_block, resnet18, mobilenet_v2, resnet50, bert, "
        "lm_head, unet_decoder, vgg16, lstm, yolo_neck.",
    )
    add_bench_arguments(p)
    p.add_argument("--write-models", metavar="DIR",
                   help="write the cases' ONNX models to DIR (case.onnx) and stop: to tune "
                   "them with minitvm tune, then bench with --records")  # fmt: skip
    p.set_defaults(run=run_bench)
