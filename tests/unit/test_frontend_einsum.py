"""Einsum compiled end to end against numpy's einsum (ONNX Runtime's Einsum has gaps in
the element types and broadcasting it accepts; numpy's is the definition ONNX follows),
plus the imported graph of the common matmul-shaped equations and the equation errors."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from onnx import helper

import minitvm
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx

RNG = np.random.default_rng(9)


def model(equation: str, arrays: list[np.ndarray]):
    names = [f"x{i}" for i in range(len(arrays))]
    infos = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for n, a in zip(names, arrays)
    ]
    node = helper.make_node("Einsum", names, ["y"], equation=equation)
    graph = helper.make_graph([node], "einsum", infos, [helper.make_empty_tensor_value_info("y")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])


CASES = [
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 5, 8), (1, 2, 7, 8)]),
    ("ij,jk", [(3, 4), (4, 2)]),  # implicit output: ik
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("...ii->...i", [(3, 5, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),  # the ellipsis dims broadcast
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 5)]),
    ("abc,cd->bd", [(2, 3, 4), (4, 5)]),  # a is summed out before the product
    ("b i j , b j k -> b k i", [(2, 3, 4), (2, 4, 5)]),
    ("->", [()]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("equation, shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_numpy(equation: str, shapes: list[tuple[int, ...]], dtype: type) -> None:
    arrays = [RNG.integers(-3, 4, s).astype(dtype) for s in shapes]
    got = minitvm.compile(model(equation, arrays)).run({f"x{i}": a for i, a in enumerate(arrays)})
    want = np.einsum(equation.replace(" ", ""), *arrays)
    assert got[0].dtype == want.dtype and got[0].shape == want.shape
    np.testing.assert_allclose(got[0], want, rtol=1e-6)


def test_batch_matmul_is_one_matmul() -> None:
    arrays = [np.zeros((5, 2, 3), np.float32), np.zeros((5, 3, 4), np.float32)]
    module = from_onnx(model("bij,bjk->bik", arrays))
    ops = collections.Counter(op.name for op in module.walk() if op.name.startswith("graph."))
    assert ops == {"graph.matmul": 1}


@pytest.mark.parametrize(
    "equation, shapes, message",
    [
        ("ij,jk->ik", [(3, 4)], "the equation has 2 operands, the node 1"),
        ("ijk->i", [(3, 4)], "subscripts 'ijk' do not fit an operand of rank 2"),
        ("ij->iz", [(3, 4)], "name a label twice or one no input has"),
        ("ij,jk->ik", [(3, 4), (5, 2)], "label 'j' has size 4 in one place and 5 in another"),
    ],
)
def test_equation_errors(equation: str, shapes: list[tuple[int, ...]], message: str) -> None:
    arrays = [np.zeros(s, np.float32) for s in shapes]
    with pytest.raises(FrontendError, match=message):
        from_onnx(model(equation, arrays))
