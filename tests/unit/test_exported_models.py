"""Real exported models, end to end against ONNX Runtime: the .onnx files in
tests/models/onnx/, made by `torch.onnx.export` the way users make them (transformers models
with tiny random-weight configs, torch.nn LSTM/GRU models, torch.jit.script-ed control flow;
tests/models/export_models.py, run in a venv with torch: this file needs no torch).

Each model is compiled from its file (`minitvm.compile(path)`; a `_dynamic` one, exported with
dynamic axes, at its sample's shapes), run on its saved sample input
(<name>.npz) and every output compared with ONNX Runtime's at rtol 1e-4, atol 1e-5 (fp32 on
both sides; the models are small, so errors do not pile up). A model minitvm cannot compile
yet is an xfail(strict=True) that names the error, so it turns into a failure the day it
starts passing and the entry is removed.
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest

import minitvm
from minitvm.runtime.ort import ort_session

ONNX_DIR = os.path.join(os.path.dirname(__file__), "..", "models", "onnx")
RTOL, ATOL = 1e-4, 1e-5

#: Each committed model and the opset export_models.py exported it at (checked, so that a
#: re-export that silently changed opset does not go unnoticed).
OPSETS = {
    "bert": 14,
    "gpt2": 13,
    "t5_encoder": 15,
    "vit": 17,
    "whisper_encoder": 18,
    "lstm": 14,
    "gru": 13,
    "scripted_control_flow": 16,
    "scripted_loop": 15,
    # exported with dynamic batch and sequence axes (batch only for vit): compiled here at
    # the sample input's shapes; tests/unit/test_frontend_symbolic.py imports them symbolic
    "bert_dynamic": 14,
    "gpt2_dynamic": 13,
    "vit_dynamic": 17,
}

#: The models minitvm does not compile yet: the exception and why (none since If on a
#: run-time condition compiles: scripted_control_flow's `if h.sum() > 0`).
XFAIL: dict[str, tuple[type[Exception], str]] = {}


def params() -> list[object]:
    marks = {
        name: [pytest.mark.xfail(raises=error, reason=reason, strict=True)]
        for name, (error, reason) in XFAIL.items()
    }
    return [pytest.param(name, marks=marks.get(name, [])) for name in OPSETS]


def test_every_committed_model_is_tested() -> None:
    files = {f.removesuffix(".onnx") for f in os.listdir(ONNX_DIR) if f.endswith(".onnx")}
    assert files == set(OPSETS)


@pytest.mark.parametrize("name", params())
def test_exported_model_matches_ort(name: str) -> None:
    path = os.path.join(ONNX_DIR, f"{name}.onnx")
    model = onnx.load(path)
    opsets = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    assert opsets == [OPSETS[name]]
    with np.load(os.path.join(ONNX_DIR, f"{name}.npz")) as saved:
        feeds = dict(saved)
    shapes = {k: v.shape for k, v in feeds.items()} if name.endswith("_dynamic") else None
    exe = minitvm.compile(path, input_shapes=shapes)
    assert sorted(exe.input_names) == sorted(feeds)
    assert exe.output_names == [o.name for o in model.graph.output]
    got = exe.run(feeds)
    want = ort_session(model, num_threads=1)(feeds)
    assert len(got) == len(want)
    for output, ours, theirs in zip(exe.output_names, got, want, strict=True):
        assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype), output
        # an output the sample input leaves constant would check nothing
        assert np.ptp(theirs) > 100 * ATOL, f"{output} is constant on the sample input"
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL, err_msg=output)
