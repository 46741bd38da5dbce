"""ONNX's node conformance tests through `minitvm.backend.MinitvmBackend`, one test per case.

The cases are those tests/conformance/generate.py selects (its docstring gives the policy;
tests/conformance/cases.json lists them); the session fixture writes their data on first use.
Each test does what ONNX's backend runner does: load model.onnx and test_data_set_*, prepare
the model, run it with the inputs in graph order, and judge with the runner's verdict
(`Runner.assert_similar_outputs`: same count, shapes and dtypes, values within rtol 1e-3 and
atol 1e-7), exact for integer and boolean outputs.

`EXCLUDED` (with the opset rule in `exclusion_reason`) is the one list of cases expected to
fail, each with its reason. They run as strict xfails: one that starts passing fails the suite
until its entry is removed. bench/conformance.py reports from the same list and verdict.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from onnx.backend.test.runner import Runner

from minitvm.backend import MinitvmBackend
from minitvm.frontend.onnx import MAX_OPSET, MIN_OPSET

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "conformance"))
import generate as node_cases

GENERATE = "python tests/conformance/generate.py --write-manifest"
RTOL, ATOL = 1e-3, 1e-7  # what ONNX's runner uses for every node test

#: Cases expected to fail, with the reason: limitations we accept (an attribute value the
#: frontend rejects on purpose, an element type an op does not take). Not compiler bugs: a
#: case that fails because of a bug stays failing until the bug is fixed.
_FFT_ROUNDING = (
    "the expected value at the Nyquist bin is 1.9e-7, the rounding of the reference's float32 "
    "FFT; the exact answer, which minitvm gives, is 0, and the runner's atol is 1e-7"
)

EXCLUDED: dict[str, str] = {
    "test_dft_inverse": _FFT_ROUNDING,
    "test_dft_inverse_opset19": _FFT_ROUNDING,
}

MANIFEST = node_cases.read_manifest()
CASES: dict[str, tuple[str, int]] = {
    name: (op, opset) for name, (op, opset) in MANIFEST["selected"].items()
}


def exclusion_reason(name: str) -> str | None:
    """Why `name` is expected to fail; None if it must pass."""
    _, opset = CASES[name]
    if not MIN_OPSET <= opset <= MAX_OPSET:
        return f"model opset {opset}; the frontend supports opsets {MIN_OPSET}-{MAX_OPSET}"
    return EXCLUDED.get(name)


def load_case(case_dir: Path) -> tuple[onnx.ModelProto, list[tuple[list[Any], list[Any]]]]:
    """The model and its (inputs, expected outputs) data sets, as ONNX's runner reads them:
    each file by the type of the graph value it feeds (see `_load_value`)."""
    model = onnx.load(str(case_dir / "model.onnx"))
    graph = model.graph
    data_sets = []
    for data_dir in sorted(case_dir.glob("test_data_set_*")):
        arrays = []
        for kind, values in (("input", graph.input), ("output", graph.output)):
            count = len(list(data_dir.glob(f"{kind}_*.pb")))
            files = [data_dir / f"{kind}_{i}.pb" for i in range(count)]
            arrays.append([_load_value(file, values[i].type) for i, file in enumerate(files)])
        data_sets.append((arrays[0], arrays[1]))
    return model, data_sets


def _load_value(path: Path, value_type: onnx.TypeProto) -> Any:
    """A tensor as an array, a sequence as a list of them, an optional as None or its value:
    what `Runner._load_proto` reads."""
    content = path.read_bytes()
    kind = value_type.WhichOneof("value")
    if kind == "sequence_type":
        sequence = onnx.SequenceProto()
        sequence.ParseFromString(content)
        return numpy_helper.to_list(sequence)
    if kind == "optional_type":
        optional = onnx.OptionalProto()
        optional.ParseFromString(content)
        return numpy_helper.to_optional(optional)
    if kind != "tensor_type":
        raise ValueError(
            f"{path}: a {kind or 'untyped'} value; ONNX's runner cannot read it either"
        )
    tensor = onnx.TensorProto()
    tensor.ParseFromString(content)
    return numpy_helper.to_array(tensor)


def assert_outputs(expected: Sequence[Any], got: Sequence[Any], name: str) -> None:
    """The runner's verdict on each tensor: a sequence output element by element, as the
    runner does (its own recursion hands it a bare item, and fails on a 0-d one:
    test_loop16_seq_none), an empty optional (None) equal only to None."""
    assert len(got) == len(expected), f"{name}: {len(got)} outputs, {len(expected)} expected"
    for i, (want, have) in enumerate(zip(expected, got, strict=True)):
        if want is None or have is None:
            assert want is None and have is None, f"output {i} of {name}: {have!r}, want {want!r}"
            continue
        if isinstance(want, list):
            assert isinstance(have, list) and len(have) == len(want), f"output {i} of {name}"
            pairs = list(zip(want, have, strict=True))
        else:
            pairs = [(want, have)]
        for want_item, have_item in pairs:
            Runner.assert_similar_outputs([want_item], [have_item], rtol=RTOL, atol=ATOL, model_dir=name)
            # The runner's rtol would let large integers differ.
            if isinstance(want_item, np.ndarray) and want_item.dtype.kind in "biu":
                np.testing.assert_array_equal(have_item, want_item, err_msg=f"output {i} of {name}")


def check_case(case_dir: Path) -> None:
    """Run one case through MinitvmBackend; raises (AssertionError, MinitvmError, ...) if it
    does not pass."""
    model, data_sets = load_case(case_dir)
    rep = MinitvmBackend.prepare(model, "CPU")
    for inputs, expected in data_sets:
        assert_outputs(expected, list(rep.run(inputs)), case_dir.name)


@pytest.fixture(scope="session")
def node_data() -> Path:
    return node_cases.ensure_data()


def _params() -> list[object]:
    params = []
    for name in CASES:
        reason = exclusion_reason(name)
        marks = [] if reason is None else [pytest.mark.xfail(reason=reason, strict=True)]
        params.append(pytest.param(name, marks=marks, id=name))
    return params


@pytest.mark.parametrize("name", _params())
def test_node(name: str, node_data: Path) -> None:
    if not (node_data / name).is_dir():
        pytest.fail(f"ONNX {onnx.__version__} has no case {name}; run {GENERATE}")
    check_case(node_data / name)


def test_exclusions_name_selected_cases() -> None:
    stale = sorted(set(EXCLUDED) - set(CASES))
    assert not stale, f"EXCLUDED names cases that are not selected: {stale}"


def test_manifest_is_current(node_data: Path) -> None:
    """The selection computed when the data was generated (from this ONNX and frontend) is the
    committed one."""
    computed = node_cases.read_manifest(node_data / "selection.json")
    assert computed["selected"] == MANIFEST["selected"], f"the selection changed: run {GENERATE}"
    assert computed["skipped"] == MANIFEST["skipped"], f"the selection changed: run {GENERATE}"
