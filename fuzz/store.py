"""Failures on disk: `DIR/<id>/model.onnx` (the reduced graph; the outputs to compare exactly
in its metadata), `DIR/<id>/<input>.npy` for each input, `DIR/<id>/original.onnx` (the graph
before reduction, its inputs in `DIR/<id>/original/`), `DIR/<id>/summary.txt` (one line:
class, config, ops, max error) and one line per failure in `DIR/index`. Every file is
written to a temporary name and renamed into place, so a campaign that dies leaves no half
a file; `minitvm debug DIR/<id>/model.onnx --input NAME=DIR/<id>/NAME.npy` opens one.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import numpy as np
import onnx

from minitvm.fuzz.check import Verdict
from minitvm.fuzz.graph import Case, exact_outputs

INDEX = "index"


def _write(path: Path, data: bytes) -> None:
    """`data` to `path`, complete or not at all."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def write_case(directory: Path, case: Case, model_name: str = "model.onnx") -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, array in case.feeds.items():
        _write(directory / f"{name}.npy", _npy(array))
    _write(directory / model_name, case.model.SerializeToString())


def summary_line(reduced: Case, verdict: Verdict, original_nodes: int) -> str:
    ops = ",".join(reduced.op_types)
    nodes = len(reduced.op_types)
    return f"{verdict.summary()} | ops={ops} nodes={nodes} (from {original_nodes})"


def save_failure(root: Path, case_id: str, original: Case, reduced: Case, verdict: Verdict) -> str:
    """Write one failure; returns its summary line."""
    directory = root / case_id
    write_case(directory / "original", original, "model.onnx")
    os.replace(directory / "original" / "model.onnx", directory / "original.onnx")
    write_case(directory, reduced)
    line = summary_line(reduced, verdict, len(original.op_types))
    _write(directory / "summary.txt", (line + "\n").encode())
    index = root / INDEX
    previous = index.read_bytes() if index.exists() else b""
    _write(index, previous + f"{case_id}\t{line}\n".encode())
    return line


def load_failure(directory: Path) -> Case:
    """The reduced case of a failure directory, as the fuzzer checked it."""
    model = onnx.load(str(directory / "model.onnx"))
    feeds = {i.name: np.load(directory / f"{i.name}.npy", allow_pickle=False)
             for i in model.graph.input}  # fmt: skip
    return Case(model, feeds, exact_outputs(model))
