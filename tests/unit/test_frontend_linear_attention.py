"""LinearAttention (frontend/onnx_linear_attention.py) compiled end to end against ONNX
Runtime: the four update rules, per-head and per-key-dim decay, beta per head or shared, a
past state or none, grouped and multi-query heads, float16, decoding (T = 1) and prefill
(the closed form of linear and gated over many tokens, the unrolled delta rules), plus the
imported graph and the errors."""

from __future__ import annotations

import collections

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper

import minitvm
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx
from minitvm.frontend.onnx_linear_attention import MAX_DELTA_STEPS

RNG = np.random.default_rng(31)
INPUTS = ("query", "key", "value", "past_state", "decay", "beta")


def la_model(
    steps: int,
    rule: str,
    q_heads: int = 4,
    kv_heads: int = 2,
    d_k: int = 8,
    d_v: int = 6,
    per_dim_decay: bool = False,
    shared_beta: bool = False,
    past: bool = True,
    dtype: type = np.float32,
    **attrs: object,
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A LinearAttention node over graph inputs, and feeds for it: L2-normalized keys (as
    the delta rules expect), log-space decays <= 0, betas in (0, 1)."""
    batch = 2
    shapes = {
        "query": (batch, steps, q_heads * d_k),
        "key": (batch, steps, kv_heads * d_k),
        "value": (batch, steps, kv_heads * d_v),
        "past_state": (batch, kv_heads, d_k, d_v) if past else None,
        "decay": (batch, steps, kv_heads * (d_k if per_dim_decay else 1))
        if rule in ("gated", "gated_delta") else None,
        "beta": (batch, steps, 1 if shared_beta else kv_heads) if "delta" in rule else None,
    }  # fmt: skip
    feeds = {n: RNG.standard_normal(s) for n, s in shapes.items() if s is not None}
    keys = feeds["key"].reshape(batch, steps, kv_heads, d_k)
    feeds["key"] = (keys / np.linalg.norm(keys, axis=-1, keepdims=True)).reshape(shapes["key"])
    if "decay" in feeds:
        feeds["decay"] = -0.5 * np.abs(feeds["decay"])
    if "beta" in feeds:
        feeds["beta"] = 1 / (1 + np.exp(-feeds["beta"]))
    feeds = {n: a.astype(dtype) for n, a in feeds.items()}
    names = [n if shapes[n] is not None else "" for n in INPUTS]
    while not names[-1]:
        names.pop()
    node = helper.make_node("LinearAttention", names, ["output", "present_state"],
                            q_num_heads=q_heads, kv_num_heads=kv_heads, update_rule=rule,
                            **attrs)  # fmt: skip
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    infos = [helper.make_tensor_value_info(n, elem, s) for n, s in shapes.items() if s is not None]
    outputs = [helper.make_empty_tensor_value_info(o) for o in ("output", "present_state")]
    graph = helper.make_graph([node], "linear_attention", infos, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)]), feeds


def compare(model: onnx.ModelProto, feeds: dict[str, np.ndarray], tol: float = 1e-5) -> None:
    got = minitvm.compile(model).run(feeds)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, feeds)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        scale = float(np.abs(w.astype(np.float64)).max())
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol,
                                   atol=tol * scale)  # fmt: skip


@pytest.mark.parametrize("steps", [1, 5])
@pytest.mark.parametrize("past", [True, False])
@pytest.mark.parametrize(
    "rule, per_dim_decay, shared_beta",
    [
        ("linear", False, False),
        ("gated", False, False),
        ("gated", True, False),
        ("delta", False, False),
        ("delta", False, True),
        ("gated_delta", False, False),
        ("gated_delta", True, True),
    ],
)
def test_update_rules(
    rule: str, per_dim_decay: bool, shared_beta: bool, past: bool, steps: int
) -> None:
    model, feeds = la_model(steps, rule, per_dim_decay=per_dim_decay, shared_beta=shared_beta,
                            past=past)  # fmt: skip
    compare(model, feeds)


@pytest.mark.parametrize("rule", ["gated", "gated_delta"])
@pytest.mark.parametrize("q_heads, kv_heads", [(4, 4), (6, 1)])
def test_heads_and_scale(rule: str, q_heads: int, kv_heads: int) -> None:
    model, feeds = la_model(3, rule, q_heads, kv_heads, per_dim_decay=True, scale=0.3)
    compare(model, feeds)


@pytest.mark.parametrize("rule", ["linear", "gated", "gated_delta"])
def test_prefill(rule: str) -> None:
    """Many tokens: the closed form of linear and gated, 40 unrolled steps of gated_delta."""
    model, feeds = la_model(40, rule, per_dim_decay=rule == "gated")
    compare(model, feeds, tol=1e-4)


@pytest.mark.parametrize("rule", ["gated", "gated_delta"])
def test_float16(rule: str) -> None:
    model, feeds = la_model(4, rule, q_heads=4, kv_heads=2, dtype=np.float16)
    compare(model, feeds, tol=2e-3)


def test_closed_form_has_no_per_token_ops() -> None:
    model, _ = la_model(16, "gated")
    ops = collections.Counter(op.name for op in from_onnx(model).walk())
    assert ops["graph.matmul"] == 4 and "graph.split" not in ops


@pytest.mark.parametrize(
    "steps, rule, attrs, message",
    [
        (MAX_DELTA_STEPS + 1, "delta", {}, f"at most {MAX_DELTA_STEPS} are supported"),
        (2, "linear", {"q_num_heads": 3}, r"q_num_heads \(3\) must be a positive multiple"),
    ],
)
def test_errors(steps: int, rule: str, attrs: dict[str, object], message: str) -> None:
    model, _ = la_model(steps, rule, past=False)
    for attr in model.graph.node[0].attribute:
        if attr.name in attrs:
            attr.i = int(attrs[attr.name])  # type: ignore[call-overload]
    with pytest.raises(FrontendError, match=message):
        from_onnx(model)
