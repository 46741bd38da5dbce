"""TfIdfVectorizer (frontend/onnx_text.py) compiled end to end against ONNX Runtime: the three
weighting modes with and without weights, n-gram lengths 1-3 with skips, int32 and int64
tokens, 1-D and 2-D inputs, and what string pools get."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import minitvm
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx

RNG = np.random.default_rng(5)

#: 1-grams 2..6, 2-grams (2,3) (3,2) (4,4) (5,6), 3-grams (2,3,4) (6,5,4)
POOL = [2, 3, 4, 5, 6, 2, 3, 3, 2, 4, 4, 5, 6, 2, 3, 4, 6, 5, 4]
COUNTS = [0, 5, 13]
INDEXES = [4, 3, 2, 1, 0, 5, 6, 7, 8, 9, 10, 11]  # a permutation of the output coordinates
WEIGHTS = [0.5, 1.5, 2.0, 0.25, 1.0, 3.0, 0.75, 1.25, 2.5, 0.1, 4.0, 0.6]


def tfidf_model(shape: tuple[int, ...], elem: int, **attrs: object) -> onnx.ModelProto:
    attrs = {"pool_int64s": POOL, "ngram_counts": COUNTS, "ngram_indexes": INDEXES, **attrs}
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)
    graph = helper.make_graph(
        [node], "tfidf", [helper.make_tensor_value_info("x", elem, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])


@pytest.mark.parametrize(
    "mode, lengths, skips, weights",
    [
        ("TF", (1, 1), 0, False),
        ("TF", (1, 3), 0, False),
        ("TF", (2, 3), 2, False),
        ("TF", (1, 2), 3, False),
        ("IDF", (1, 3), 1, False),
        ("IDF", (1, 3), 1, True),
        ("TFIDF", (1, 3), 1, False),
        ("TFIDF", (2, 2), 4, True),
    ],
)
@pytest.mark.parametrize("shape, dtype", [((40,), np.int32), ((3, 25), np.int64)])
def test_tfidf_matches_onnxruntime(
    mode: str, lengths: tuple[int, int], skips: int, weights: bool, shape: tuple[int, ...],
    dtype: type,
) -> None:  # fmt: skip
    attrs: dict[str, object] = {"mode": mode, "min_gram_length": lengths[0],
                                "max_gram_length": lengths[1], "max_skip_count": skips}  # fmt: skip
    if weights:
        attrs["weights"] = WEIGHTS
    model = tfidf_model(shape, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), **attrs)
    x = RNG.integers(1, 8, shape).astype(dtype)
    got = minitvm.compile(model).run({"x": x})[0]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, {"x": x})[0]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert want.any()  # the tokens hit the pool


def test_sequence_shorter_than_every_ngram() -> None:
    model = tfidf_model((2,), TensorProto.INT64, mode="TF", min_gram_length=3,
                        max_gram_length=3, max_skip_count=0)  # fmt: skip
    got = minitvm.compile(model).run({"x": np.array([2, 3], np.int64)})[0]
    np.testing.assert_array_equal(got, np.zeros(12, np.float32))


def test_string_pool_is_rejected() -> None:
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="TF", min_gram_length=1,
                            max_gram_length=1, max_skip_count=0, pool_strings=["a", "b"],
                            ngram_counts=[0], ngram_indexes=[0, 1])  # fmt: skip
    graph = helper.make_graph(
        [node], "tfidf", [helper.make_tensor_value_info("x", TensorProto.INT64, (4,))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
    with pytest.raises(FrontendError, match="pool_strings needs string tensors"):
        from_onnx(model)
