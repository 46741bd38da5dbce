"""`minitvm import`: an ONNX model translated to graph-dialect IR text, what minitvm-opt reads.

    minitvm import model.onnx [-o model.mlir] [--generic] [--input-shape x=1x3x224x224 ...]
"""

from __future__ import annotations

import argparse

from minitvm.tools.atomic import write_text
from minitvm.tools.inputs import load_onnx
from minitvm.tools.options import add_input_shape_option


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
