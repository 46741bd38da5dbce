"""ONNX's node conformance cases for the ops minitvm supports: selection and on-disk data.

ONNX 1.23's wheel ships no node-test data; the cases exist only as Python generators in
`onnx.backend.test.case.node`. This script collects them, selects those minitvm should pass,
and writes them with `onnx.backend.test.cmd_tools.generate_data` in ONNX's standard layout:
`data/<case>/model.onnx` and `data/<case>/test_data_set_0/{input,output}_<n>.pb`.

Selection (a case is skipped, with the reason recorded, when one of these fails):
  * every node of its model is a default-domain op the frontend has a converter for;
  * its graph inputs and outputs are tensors, sequences of tensors or optionals of these
    (no maps);
  * their element types are graph-dialect element types (f32, f64, f16, i64, i32, i8, ui8, i1);
  * it is not a training-mode case (BatchNormalization / Dropout with training_mode set).
Cases that pass all four but still cannot work (an opset above the frontend's, an attribute
value the frontend rejects on purpose, ...) are selected anyway and listed as expected
failures, with reasons, in tests/unit/test_onnx_node_conformance.py: nothing disappears
silently.

Cache policy: `cases.json` (committed) is the manifest: the selected cases with the op each
tests, and the skipped ones with their reasons. `data/` is git-ignored and rebuilt whenever its
STAMP (ONNX version, the frontend's ops and element types, this file, the manifest) differs:
the conformance tests call `ensure_data()` from a session fixture, so a fresh checkout or CI
needs no extra step (about 15 s, most of it ONNX running its generators). Regenerating also
records the selection it computed in `data/selection.json`; when the frontend learns an op
or ONNX changes its cases, that differs from the manifest and a test says so: then run

    python tests/conformance/generate.py --write-manifest

The full suite (every case, selected or not) is written the same way to `data_all/` (also
git-ignored) by `ensure_all_data()`, for `python bench/conformance.py --all`; its STAMP is the
ONNX version and this file only.

The generators draw from numpy's global RNG; it is seeded once before collecting, so the data
(and the manifest) is the same on every machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"
ALL_DATA_DIR = HERE / "data_all"  # every case, for bench/conformance.py --all
MANIFEST = HERE / "cases.json"
SEED = 0

_DEFAULT_DOMAINS = ("", "ai.onnx")
_EXPANDED = re.compile(r"_expanded(_ver\d+)?$")


def collect() -> list[Any]:
    """All of ONNX's node test cases (`TestCase`s), generated with a seeded RNG."""
    np.random.seed(SEED)
    with warnings.catch_warnings():
        # The generators overflow and divide by zero on purpose (inf/nan cases).
        warnings.simplefilter("ignore")
        from onnx.backend.test.case.node import collect_testcases

        return list(collect_testcases())


def _supported() -> tuple[list[str], list[np.dtype]]:
    """The frontend's ONNX op types and the graph dialect's element types."""
    import minitvm.frontend.onnx  # noqa: F401  (registers the converters)
    from minitvm.dialects.graph.constant import NUMPY_DTYPES
    from minitvm.frontend.onnx_node import supported_ops

    return supported_ops(), list(NUMPY_DTYPES.values())


def _tensor_type(value: onnx.ValueInfoProto) -> onnx.TypeProto.Tensor | None:
    """The tensor type of a tensor value, of a sequence of tensors' items, or of an optional
    of either (None: none of these)."""
    return _tensor_of(value.type)


def _tensor_of(type_: onnx.TypeProto, optional_ok: bool = True) -> onnx.TypeProto.Tensor | None:
    kind = type_.WhichOneof("value")
    if kind == "tensor_type":
        return type_.tensor_type
    if kind == "sequence_type" and type_.sequence_type.elem_type.HasField("tensor_type"):
        return type_.sequence_type.elem_type.tensor_type
    if kind == "optional_type" and optional_ok:
        return _tensor_of(type_.optional_type.elem_type, optional_ok=False)
    return None


def _element_type_name(value: onnx.ValueInfoProto) -> str:
    tensor = _tensor_type(value)
    return onnx.TensorProto.DataType.Name(tensor.elem_type if tensor else 0).lower()


def skip_reason(case: Any, ops: set[str], dtypes: set[np.dtype]) -> str | None:
    """Why `case` is not selected (None: it is). See the module docstring."""
    graph = case.model.graph
    unsupported = sorted(
        {n.op_type for n in graph.node if n.domain not in _DEFAULT_DOMAINS or n.op_type not in ops}
    )
    if unsupported:
        return f"unsupported op(s) {', '.join(unsupported)}"
    for value in (*graph.input, *graph.output):
        if _tensor_type(value) is None:
            kind = value.type.WhichOneof("value")
            what = kind.removesuffix("_type") if kind else "unknown"
            return (f"graph value '{value.name}' has {what} type, not tensor, sequence of tensors "
                    "or optional of these")  # fmt: skip
    bad = set()
    for value in (*graph.input, *graph.output):
        tensor = _tensor_type(value)
        assert tensor is not None
        try:
            dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type))
        except (KeyError, TypeError):
            dtype = None
        if dtype not in dtypes:
            bad.add(_element_type_name(value))
    if bad:
        return f"element type {', '.join(sorted(bad))} is not a graph-dialect type"
    if _training(case):
        return "training mode (only inference is supported)"
    return None


def _training(case: Any) -> bool:
    """A training_mode attribute set (BatchNormalization) or a true training_mode input
    (Dropout, from opset 12)."""
    graph = case.model.graph
    fed = dict(zip((v.name for v in graph.input), case.data_sets[0][0]))
    for node in graph.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if attrs.get("training_mode"):
            return True
        mode = node.input[2] if node.op_type == "Dropout" and len(node.input) > 2 else ""
        if mode in fed and np.asarray(fed[mode]).any():
            return True
    return False


def op_of(cases: Sequence[Any]) -> dict[str, str]:
    """The op each case tests: its node's op type; `<op> (expanded)` for the cases that run
    an op's function body (`test_x_expanded`, `test_x_expanded_ver18`) instead of the op."""
    ops = {}
    for case in cases:
        if not _EXPANDED.search(case.name):
            ops[case.name] = case.model.graph.node[0].op_type
    for case in cases:
        if _EXPANDED.search(case.name):
            base = ops.get(_EXPANDED.sub("", case.name), case.name)
            ops[case.name] = f"{base} (expanded)"
    return ops


def select(cases: Sequence[Any]) -> dict[str, Any]:
    """The manifest: selected case -> [op, opset], and skipped case -> [op, reason] for the
    cases that use only supported ops (the ~1,200 cases of other ops are not listed)."""
    op_types, dtypes = _supported()
    ops = op_of(cases)
    selected, skipped = {}, {}
    for case in cases:
        reason = skip_reason(case, set(op_types), set(dtypes))
        if reason is None:
            selected[case.name] = [ops[case.name], opset_of(case.model)]
        elif not reason.startswith("unsupported op"):
            skipped[case.name] = [ops[case.name], reason]
    return {
        "onnx": onnx.__version__,
        "selected": dict(sorted(selected.items())),
        "skipped": dict(sorted(skipped.items())),
    }


def opset_of(model: onnx.ModelProto) -> int:
    return next(o.version for o in model.opset_import if o.domain in _DEFAULT_DOMAINS)


def read_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    return json.loads(path.read_text())


def write_json(path: Path, value: dict[str, Any]) -> None:
    """JSON with one line per case, so that a diff of the manifest reads like a list."""
    parts = []
    for key, item in value.items():
        if isinstance(item, dict):
            body = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in item.items())
            parts.append(f" {json.dumps(key)}: {{\n{body}\n }}")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(item)}")
    path.write_text("{\n" + ",\n".join(parts) + "\n}\n")


def _stamp(manifest: dict[str, Any]) -> str:
    ops, dtypes = _supported()
    text = json.dumps(
        [
            onnx.__version__,
            ops,
            [str(d) for d in dtypes],
            Path(__file__).read_text(),
            sorted(manifest["selected"]),
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def generate(
    output: Path, cases: Sequence[Any], stamp: str, extra: dict[str, dict[str, Any]] | None = None
) -> None:
    """Write `cases` under `output` in ONNX's layout, with `stamp` in `output/STAMP` and each
    `extra` value as a JSON file of that name beside them. The data is written to a scratch
    directory that then replaces `output` whole, so an interrupted run leaves no half-written
    data (and, without a STAMP, the next `ensure_*` call starts over)."""
    from onnx.backend.test import cmd_tools

    scratch = output.with_name(f"{output.name}.tmp-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    original = cmd_tools.model_test.collect_testcases
    cmd_tools.model_test.collect_testcases = lambda: cases  # type: ignore[assignment]
    try:
        cmd_tools.generate_data(argparse.Namespace(output=str(scratch)))
    finally:
        cmd_tools.model_test.collect_testcases = original  # type: ignore[assignment]
    written = scratch / "node"  # generate_data writes <output>/<kind>/<case>/
    for name, value in (extra or {}).items():
        write_json(written / name, value)
    (written / "STAMP").write_text(stamp)
    shutil.rmtree(output, ignore_errors=True)
    written.rename(output)
    shutil.rmtree(scratch)


def generate_selected(output: Path, stamp: str = "") -> dict[str, Any]:
    """Write the manifest's cases under `output` and return the selection computed from this
    ONNX and frontend (recorded in `output/selection.json`): what the manifest should say."""
    cases = collect()
    selection = select(cases)
    wanted = set(read_manifest()["selected"])
    chosen = [c for c in cases if c.name in wanted]
    generate(output, chosen, stamp, {"selection.json": selection})
    return selection


def ensure_data(output: Path = DATA_DIR) -> Path:
    """`output` holding the manifest's cases, regenerated if its STAMP is stale."""
    stamp = _stamp(read_manifest())
    if not _is_current(output, stamp):
        generate_selected(output, stamp)
    return output


def _all_stamp() -> str:
    """The full suite's data depends on ONNX (its generators) and on how this file writes
    them, not on the frontend: no other input may make it stale."""
    text = json.dumps([onnx.__version__, Path(__file__).read_text()])
    return hashlib.sha256(text.encode()).hexdigest()


def ensure_all_data(output: Path = ALL_DATA_DIR) -> Path:
    """`output` holding every node case ONNX has, with `ops.json` (case -> the op it tests,
    as `op_of` names it), regenerated if its STAMP is stale. For bench/conformance.py --all;
    the tests use only `ensure_data`'s selection."""
    stamp = _all_stamp()
    if not _is_current(output, stamp):
        cases = collect()
        generate(output, cases, stamp, {"ops.json": dict(sorted(op_of(cases).items()))})
    return output


def read_ops(output: Path = ALL_DATA_DIR) -> dict[str, str]:
    """The op each case of `ensure_all_data`'s directory tests."""
    return read_manifest(output / "ops.json")


def _is_current(output: Path, stamp: str) -> bool:
    stamp_file = output / "STAMP"
    return stamp_file.is_file() and stamp_file.read_text() == stamp


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DATA_DIR, help="data directory")
    parser.add_argument(
        "--write-manifest",
        action="store_true",
        help=f"rewrite {MANIFEST.name} from this ONNX and frontend, then generate",
    )
    args = parser.parse_args(argv)
    if args.write_manifest:
        write_json(MANIFEST, select(collect()))
    ensure_data(args.output)
    manifest = read_manifest()
    print(
        f"{len(manifest['selected'])} cases in {args.output} "
        f"({len(manifest['skipped'])} skipped; see {MANIFEST.name})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
