"""RotaryEmbedding, SwiGLU, CausalConvWithState and TensorScatter
(frontend/onnx_sequence_models.py) compiled end to end against ONNX Runtime; SwiGLU, which
ONNX Runtime has no kernel for, against the ONNX reference implementation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import minitvm
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx

RNG = np.random.default_rng(23)


def node_model(
    op_type: str,
    inputs: dict[str, np.ndarray | None],
    outputs: Sequence[str],
    opset: int,
    constants: Sequence[str] = (),
    graph_outputs: Sequence[str] | None = None,
    **attrs: object,
) -> onnx.ModelProto:
    """One node over graph inputs named as its inputs, in order (None: an omitted optional
    input; the names in `constants` become initializers); the graph outputs are the node's
    unless `graph_outputs` names fewer."""
    names = [n if a is not None else "" for n, a in inputs.items()]
    while not names[-1]:
        names.pop()
    node = helper.make_node(op_type, names, list(outputs), **attrs)
    present = {n: a for n, a in inputs.items() if a is not None}
    infos = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
             for n, a in present.items() if n not in constants]  # fmt: skip
    inits = [numpy_helper.from_array(present[n], n) for n in constants]
    results = [helper.make_empty_tensor_value_info(o) for o in graph_outputs or outputs]
    graph = helper.make_graph([node], op_type.lower(), infos, results, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def compare(
    model: onnx.ModelProto, oracle: str = "ort", rtol: float = 1e-5, atol: float = 1e-6
) -> list[np.ndarray]:
    initializers = {t.name for t in model.graph.initializer}
    feeds = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        feeds[value.name] = FEEDS[value.name]
    got = minitvm.compile(model).run(feeds)
    if oracle == "ort":
        session = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        want = session.run(None, feeds)
    else:
        want = ReferenceEvaluator(model).run(None, feeds)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol)
    return list(got)


#: The feeds of the graph inputs, by name (set by each test).
FEEDS: dict[str, np.ndarray] = {}


def feed(**arrays: np.ndarray | None) -> dict[str, np.ndarray | None]:
    FEEDS.clear()
    FEEDS.update({n: a for n, a in arrays.items() if a is not None})
    return dict(arrays)


def normal(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


# --------------------------------------------------------------------------------------------
# RotaryEmbedding
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("rotary_dim", [0, 4])
@pytest.mark.parametrize("layout", ["4d", "3d"])
@pytest.mark.parametrize("positions", [True, False])
def test_rotary_embedding(interleaved: int, rotary_dim: int, layout: str, positions: bool) -> None:
    batch, heads, seq, head = 2, 3, 5, 8
    half = (rotary_dim or head) // 2
    x = normal(batch, heads, seq, head) if layout == "4d" else normal(batch, seq, heads * head)
    if positions:
        cache = (16, half)
        ids = RNG.integers(0, 16, (batch, seq)).astype(np.int64)
    else:
        cache, ids = (batch, seq, half), None
    angles = RNG.uniform(0, 6.3, cache)
    inputs = feed(X=x, cos_cache=np.cos(angles).astype(np.float32),
                  sin_cache=np.sin(angles).astype(np.float32), position_ids=ids)  # fmt: skip
    attrs: dict[str, object] = {"interleaved": interleaved, "rotary_embedding_dim": rotary_dim}
    if layout == "3d":
        attrs["num_heads"] = heads
    compare(node_model("RotaryEmbedding", inputs, ["Y"], 23, **attrs))


def test_rotary_embedding_float16_and_constant_caches() -> None:
    angles = RNG.uniform(0, 6.3, (32, 16))
    inputs = feed(X=normal(1, 2, 6, 32, dtype=np.float16),
                  cos_cache=np.cos(angles).astype(np.float16),
                  sin_cache=np.sin(angles).astype(np.float16),
                  position_ids=np.arange(6, dtype=np.int64)[None] + 3)  # fmt: skip
    model = node_model("RotaryEmbedding", inputs, ["Y"], 23, constants=("cos_cache", "sin_cache"))
    compare(model, rtol=2e-3, atol=2e-3)


def test_rotary_embedding_cache_must_fit() -> None:
    inputs = feed(X=normal(1, 2, 4, 8), cos_cache=normal(10, 3), sin_cache=normal(10, 3),
                  position_ids=np.zeros((1, 4), np.int64))  # fmt: skip
    with pytest.raises(FrontendError, match=r"cos_cache must be \[max_position \+ 1, 4\]"):
        from_onnx(node_model("RotaryEmbedding", inputs, ["Y"], 23))


# --------------------------------------------------------------------------------------------
# SwiGLU (no ONNX Runtime kernel: the reference is the oracle)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [1.0, 1.702])
@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-6), (np.float16, 1e-3)])
def test_swiglu(alpha: float, dtype: type, tol: float) -> None:
    inputs = feed(A=normal(3, 16, dtype=dtype) * 3, B=normal(3, 16, dtype=dtype))
    compare(node_model("SwiGLU", inputs, ["Y"], 28, alpha=alpha), "reference", tol, tol)


def test_swiglu_shapes_must_agree() -> None:
    inputs = feed(A=normal(3, 16), B=normal(1, 16))
    with pytest.raises(FrontendError, match="must have one shape and element type"):
        from_onnx(node_model("SwiGLU", inputs, ["Y"], 28))


# --------------------------------------------------------------------------------------------
# CausalConvWithState
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "length, k, bias, past, activation",
    [
        (10, 4, False, False, "none"),
        (10, 4, True, True, "silu"),
        (1, 4, True, True, "none"),  # a decoding step
        (2, 5, False, False, "swish"),  # shorter than the state: the state holds pad zeros
        (7, 1, True, False, "none"),  # no state at all
        (6, 3, False, True, "silu"),
    ],
)
def test_causal_conv_with_state(
    length: int, k: int, bias: bool, past: bool, activation: str
) -> None:
    batch, channels = 2, 6
    inputs = feed(input=normal(batch, channels, length), weight=normal(channels, 1, k),
                  bias=normal(channels) if bias else None,
                  past_state=normal(batch, channels, k - 1) if past else None)  # fmt: skip
    model = node_model("CausalConvWithState", inputs, ["output", "present_state"], 27,
                       activation=activation)  # fmt: skip
    compare(model)


def test_causal_conv_with_state_float16() -> None:
    inputs = feed(input=normal(1, 4, 9, dtype=np.float16), weight=normal(4, 1, 3, dtype=np.float16),
                  bias=None, past_state=normal(1, 4, 2, dtype=np.float16))  # fmt: skip
    model = node_model("CausalConvWithState", inputs, ["output", "present_state"], 27,
                       constants=("weight",), activation="silu")  # fmt: skip
    compare(model, rtol=2e-3, atol=2e-3)


def test_causal_conv_with_state_output_only() -> None:
    """Without a use of present_state the padding is the conv's own."""
    inputs = feed(input=normal(1, 3, 8), weight=normal(3, 1, 4))
    model = node_model("CausalConvWithState", inputs, ["output", "state"], 27,
                       graph_outputs=["output"])  # fmt: skip
    compare(model)
    ops = {op.name for op in from_onnx(model).walk()}
    assert "graph.concat" not in ops and "graph.slice" not in ops


# --------------------------------------------------------------------------------------------
# TensorScatter
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "past, update, axis, mode",
    [
        ((2, 3, 8, 4), (2, 3, 3, 4), -2, "linear"),
        ((2, 3, 8, 4), (2, 3, 3, 4), -2, "circular"),
        ((3, 6, 5), (3, 2, 5), 1, "linear"),
        ((2, 4, 3, 7), (2, 4, 3, 4), 3, "circular"),  # the last axis
        ((2, 5, 2), (2, 5, 2), 1, "circular"),  # the whole cache rewritten
    ],
)
@pytest.mark.parametrize("indices", ["input", "constant", "absent"])
def test_tensor_scatter(
    past: tuple[int, ...], update: tuple[int, ...], axis: int, mode: str, indices: str
) -> None:
    length, steps = past[axis], update[axis]
    if mode == "linear":
        write = RNG.integers(0, length - steps + 1, past[0])
    else:
        write = RNG.integers(0, length, past[0])
    write = None if indices == "absent" else write.astype(np.int64)
    inputs = feed(past_cache=normal(*past), update=normal(*update), write_indices=write)
    constants = ("write_indices",) if indices == "constant" else ()
    model = node_model("TensorScatter", inputs, ["present_cache"], 24, constants=constants,
                       axis=axis, mode=mode)  # fmt: skip
    compare(model, rtol=0, atol=0)


def test_tensor_scatter_integer_cache() -> None:
    inputs = feed(past_cache=RNG.integers(-9, 9, (2, 6, 3)).astype(np.int64),
                  update=RNG.integers(-9, 9, (2, 2, 3)).astype(np.int64),
                  write_indices=np.array([5, 1], np.int64))  # fmt: skip
    compare(node_model("TensorScatter", inputs, ["present_cache"], 24, axis=1, mode="circular"),
            rtol=0, atol=0)  # fmt: skip
