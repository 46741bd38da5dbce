"""Ops whose output shapes depend on their inputs' values (issue 19, part 4): NonZero,
Compress, Unique, NonMaxSuppression and TopK with a run-time k, all built on
`graph.flat_nonzero`, whose count the compiled code finds as it runs; and TopK of any k,
which selects or sorts each row (`graph.argsort`).

Each model is compiled once and run on several inputs that give different output sizes
(zero included), against ONNX Runtime: shapes, element types and values must match.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import minitvm
from minitvm.dialects import graph as g
from minitvm.errors import MinitvmError
from minitvm.frontend.onnx import from_onnx

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: dict[str, tuple[int, Sequence[int | str]]],
    outputs: Sequence[str],
    opset: int = 17,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        list(nodes),
        "m",
        [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def check_against_ort(model: onnx.ModelProto, feeds: Iterable[dict[str, np.ndarray]]) -> list[tuple[int, ...]]:
    """Compile `model` once, run every feed through it and ONNX Runtime; the output shapes."""
    exe = minitvm.compile(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    shapes = []
    for feed in feeds:
        got, want = exe.run(feed), session.run(None, feed)
        for a, b in zip(got, want, strict=True):
            assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
            np.testing.assert_allclose(a, b, rtol=1e-6)
        shapes.append(got[0].shape)
    return shapes


RNG = np.random.default_rng(19)


def sparse(shape: Sequence[int], density: float, dtype: type = np.float32) -> np.ndarray:
    return (RNG.integers(1, 9, shape) * (RNG.random(shape) < density)).astype(dtype)


@pytest.mark.parametrize("dtype", [F, I64, B], ids=["f32", "i64", "bool"])
def test_nonzero_of_a_symbolic_input(dtype: int) -> None:
    """One compile: batches of 1 to 6 rows, nothing to everything non-zero."""
    numpy_dtype = onnx.helper.tensor_dtype_to_np_dtype(dtype)
    model = make_model([helper.make_node("NonZero", ["x"], ["y"])], {"x": (dtype, ["b", 3, 4])}, ["y"])
    feeds = [{"x": sparse((b, 3, 4), p).astype(numpy_dtype)} for b, p in ((2, 0.3), (1, 0.0), (6, 1.0), (3, 0.5))]
    shapes = check_against_ort(model, feeds)
    assert shapes[1] == (3, 0) and shapes[2] == (3, 72)


@pytest.mark.parametrize("width", ["w", 200], ids=["symbolic rows", "rows of 200"])
def test_nonzero_takes_rows_a_line_at_a_time(width: str | int) -> None:
    """A row is tested 64 elements at a time and looked at element by element only where
    one is set: rows shorter than a line, of whole lines, with a tail; lines with none, one
    (at either end) or all set; a set element in the tail only."""
    model = make_model([helper.make_node("NonZero", ["x"], ["y"])], {"x": (B, ["b", width])}, ["y"])
    feeds = []
    for w in (1, 63, 64, 65, 128, 200) if width == "w" else (200,):
        for b, density in ((1, 0.0), (2, 0.01), (3, 0.3), (2, 1.0)):
            feeds.append({"x": RNG.random((b, w)) < density})
        edges = np.zeros((2, w), bool)
        edges[0, [0, w - 1]] = True  # the first and last of a row
        edges[1, (w // 64) * 64 :] = True  # the tail only (a whole row where w < 64)
        feeds.append({"x": edges})
    check_against_ort(model, feeds)


def test_nonzero_results_feed_other_ops_and_another_nonzero() -> None:
    """The count is a size like any other: GatherND reads the values at the positions, and a
    second NonZero's count is bounded through the first's."""
    model = make_model(
        [
            helper.make_node("NonZero", ["x"], ["nz"]),
            helper.make_node("Transpose", ["nz"], ["at"], perm=[1, 0]),
            helper.make_node("GatherND", ["x", "at"], ["values"]),
            helper.make_node("Mul", ["values", "values"], ["squares"]),
            helper.make_node("NonZero", ["nz"], ["again"]),
        ],
        {"x": (F, ["b", 5])},
        ["squares", "again"],
    )
    check_against_ort(model, [{"x": sparse((b, 5), 0.4)} for b in (1, 4, 9, 2)])


def test_nonzero_of_a_scalar_and_of_a_constant() -> None:
    """A scalar counts as a vector of one, as in ONNX Runtime (ONNX's shape inference says
    0 rows); NonZero of a constant is one."""
    scalar = make_model([helper.make_node("NonZero", ["x"], ["y"])], {"x": (F, [])}, ["y"])
    feeds = [{"x": np.array(v, np.float32)} for v in (0, 3)]
    assert check_against_ort(scalar, feeds) == [(1, 0), (1, 1)]
    constant = helper.make_node(
        "Constant", [], ["c"], value=helper.make_tensor("c", F, [2, 2], [0, 1, 2, 0])
    )
    folded = make_model(
        [constant, helper.make_node("NonZero", ["c"], ["i"]), helper.make_node("Add", ["i", "j"], ["y"])],
        {"j": (I64, [2, 2])},
        ["y"],
    )
    module = from_onnx(folded)
    assert not [op for op in module.walk() if isinstance(op, g.FlatNonzeroOp)]  # known at import
    check_against_ort(folded, [{"j": np.arange(4, dtype=np.int64).reshape(2, 2)}])


@pytest.mark.parametrize("axis", [None, 1, -1])
def test_compress(axis: int | None) -> None:
    attrs = {} if axis is None else {"axis": axis}
    length = {None: 5, 1: 4, -1: 6}[axis]  # shorter than the axis without one
    model = make_model(
        [helper.make_node("Compress", ["x", "c"], ["y"], **attrs)],
        {"x": (F, [2, 4, 6]), "c": (B, [length])},
        ["y"],
    )
    feeds = [{"x": sparse((2, 4, 6), 1.0), "c": RNG.random(length) < p} for p in (0.5, 0.0, 1.0)]
    check_against_ort(model, feeds)


@pytest.mark.parametrize("largest", [1, 0])
def test_top_k_with_k_at_run_time(largest: int) -> None:
    """Ties go to the lower index; k from 0 to the whole axis, one compile."""
    model = make_model(
        [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=-2, largest=largest)],
        {"x": (F, ["b", 7, 3]), "k": (I64, [1])},
        ["v", "i"],
    )
    feeds = [
        {"x": RNG.integers(0, 3, (b, 7, 3)).astype(np.float32), "k": np.array([k], np.int64)}
        for b, k in ((2, 3), (1, 7), (3, 0), (2, 1))
    ]
    assert [s[1] for s in check_against_ort(model, feeds)] == [3, 7, 0, 1]


@pytest.mark.parametrize(
    ("dtype", "onnx_type"),
    [(np.float32, F), (np.int32, TensorProto.INT32), (np.uint8, TensorProto.UINT8)],
)
def test_top_k_of_a_large_or_run_time_k_sorts_the_axis(dtype: type, onnx_type: int) -> None:
    """k = 1000 of 5000 along axis 0 (beyond the arg-max rounds), and k fed at run time on
    a vocabulary-sized row: the first k of a stable sort, ties to the lower index, in both
    directions."""
    nodes = [
        helper.make_node("TopK", ["x", "k1000"], ["v", "i"], axis=0),
        helper.make_node("TopK", ["row", "k"], ["rv", "ri"], largest=0),
    ]
    model = make_model(nodes, {"x": (onnx_type, [5000, 3]), "row": (onnx_type, [1, 50257]), "k": (I64, [1])},
                       ["v", "i", "rv", "ri"])  # fmt: skip
    model.graph.initializer.append(onnx.numpy_helper.from_array(np.array([1000], np.int64), "k1000"))
    high = np.iinfo(dtype).max if dtype != np.float32 else 100
    values = [RNG.integers(0, min(high, 200), (5000, 3)).astype(dtype), RNG.integers(0, min(high, 10**6), (1, 50257)).astype(dtype)]
    # (a run-time k is selected with a heap where k <= n / 4: 5 and 3000; the row is sorted for 50257)
    feeds = [{"x": values[0], "row": values[1], "k": np.array([k], np.int64)} for k in (5, 50257, 0, 3000)]
    check_against_ort(model, feeds)


@pytest.mark.parametrize("largest", [1, 0])
@pytest.mark.parametrize("k", [2, 7, 40])
def test_top_k_selects_the_first_k_in_one_pass(largest: int, k: int) -> None:
    """A k small beside the row is selected, not sorted: rows in random order, sorted either
    way (every element enters, or none after the first k), all tied, and of a length known
    only at run time."""
    model = make_model(
        [helper.make_node("TopK", ["x", "k"], ["v", "i"], largest=largest)],
        {"x": (F, [4, "n"])},
        ["v", "i"],
    )
    model.graph.initializer.append(onnx.numpy_helper.from_array(np.array([k], np.int64), "k"))
    ramp = np.arange(300, dtype=np.float32)
    rows = np.stack([RNG.integers(0, 60, 300).astype(np.float32), ramp, ramp[::-1], np.zeros(300, np.float32)])
    check_against_ort(model, [{"x": rows}, {"x": rows[:, :k]}, {"x": rows[:, :k + 1]}])
    with pytest.raises(MinitvmError, match=f"^node '#0 -> v' \\(TopK, opset 17\\): k = {k} is more than the axis length$"):
        minitvm.compile(model).run({"x": rows[:, : k - 1]})


@pytest.mark.parametrize("largest", [1, 0])
@pytest.mark.parametrize(("dtype", "onnx_type"), [(np.float64, TensorProto.DOUBLE), (np.int64, I64), (np.int32, TensorProto.INT32)])
def test_top_k_scans_a_cache_line_at_a_time(dtype: type, onnx_type: int, largest: int) -> None:
    """The selection tests a cache line of the row (8 lanes of 64 bits, 16 of 32) against
    the heap's root at once: rows of 1013 (blocks and a tail) with many ties, in random
    order, ascending and descending, and values equal to the root's just after it."""
    model = make_model([helper.make_node("TopK", ["x", "k"], ["v", "i"], largest=largest)],
                       {"x": (onnx_type, [4, 1013])}, ["v", "i"])  # fmt: skip
    model.graph.initializer.append(onnx.numpy_helper.from_array(np.array([37], np.int64), "k"))
    ramp = np.arange(1013)
    plateau = np.where(ramp < 500, ramp % 40, 39)  # (the 39s after the heap fills tie its root)
    rows = np.stack([RNG.integers(0, 50, 1013), ramp, ramp[::-1], plateau]).astype(dtype)
    check_against_ort(model, [{"x": rows}, {"x": -rows}])


def test_top_k_of_u64_at_run_time_orders_the_values_above_2_63_last() -> None:
    """(ONNX Runtime has no u64 TopK to compare with: Python's sort is the reference.)"""
    model = make_model([helper.make_node("TopK", ["x", "k"], ["v", "i"])],
                       {"x": (TensorProto.UINT64, [9]), "k": (I64, [1])}, ["v", "i"])  # fmt: skip
    x = np.array([2**64 - 1, 2**63, 2**63 - 1, 0, 1, 2**63 + 5, 3, 2**63, 0], np.uint64)
    exe = minitvm.compile(model)
    for k in (9, 4):
        v, i = exe.run({"x": x, "k": np.array([k], np.int64)})
        order = sorted(range(9), key=lambda j: (-int(x[j]), j))[:k]
        np.testing.assert_array_equal(i, order)
        np.testing.assert_array_equal(v, x[order])


@pytest.mark.parametrize(
    ("attrs", "shape"),
    [({}, [4, 5]), ({"sorted": 0}, [4, 5]), ({"axis": 1}, [2, 6, 2]), ({"axis": 0, "sorted": 0}, [7, 2]),
     ({"axis": 0}, [6, 17]), ({"axis": 1, "sorted": 0}, [3, 5, 6])],
    ids=["sorted", "first-seen", "slices", "slices-first-seen", "wide-slices", "wide-slices-first-seen"],
)
def test_unique(attrs: dict[str, int], shape: list[int]) -> None:
    model = make_model(
        [helper.make_node("Unique", ["x"], ["y", "indices", "inverse", "counts"], **attrs)],
        {"x": (F, shape)},
        ["y", "indices", "inverse", "counts"],
    )
    check_against_ort(model, [{"x": RNG.integers(0, v, shape).astype(np.float32)} for v in (1, 2, 50)])


@pytest.mark.parametrize("sorted_", [1, 0])
def test_unique_of_many_elements_sorts_them(sorted_: int) -> None:
    """100 000 elements (an n x n comparison would be 10^10): a stable sort instead."""
    model = make_model([helper.make_node("Unique", ["x"], ["y", "indices", "inverse", "counts"], sorted=sorted_)],
                       {"x": (I64, ["n"])}, ["y", "indices", "inverse", "counts"])  # fmt: skip
    feeds = [{"x": RNG.integers(-5000, 5000, 100_000)}, {"x": RNG.integers(0, 3, 7)}, {"x": np.array([4], np.int64)}]
    check_against_ort(model, feeds)


@pytest.mark.parametrize("center_point_box", [0, 1])
@pytest.mark.parametrize("symbolic", [False, True], ids=["static", "symbolic"])
def test_non_max_suppression(center_point_box: int, symbolic: bool) -> None:
    """Boxes of 2 batches x 3 classes with tied scores; the limits fed at run time; batch and
    box counts fixed or symbolic (then each feed has its own)."""
    classes = 3
    batches, boxes = ("batch", "boxes") if symbolic else (2, 16)
    model = make_model(
        [
            helper.make_node(
                "NonMaxSuppression",
                ["boxes", "scores", "max", "iou", "score"],
                ["selected"],
                center_point_box=center_point_box,
            )
        ],
        {
            "boxes": (F, [batches, boxes, 4]),
            "scores": (F, [batches, classes, boxes]),
            "max": (I64, [1]),
            "iou": (F, [1]),
            "score": (F, [1]),
        },
        ["selected"],
    )
    feeds = []
    for n, (most, iou, score) in enumerate(((3, 0.5, 0.0), (10, 0.3, 0.5), (0, 0.5, 0.0), (100, 0.9, -1.0))):
        batches, boxes = (1 + n % 2, 16 + 5 * n) if symbolic else (batches, boxes)
        corner = RNG.random((batches, boxes, 2)) * 10
        size = RNG.random((batches, boxes, 2)) * 5
        second = size if center_point_box else corner + size
        feeds.append(
            {
                "boxes": np.concatenate([corner, second], -1).astype(np.float32),
                "scores": (RNG.integers(0, 5, (batches, classes, boxes)) / 5).astype(np.float32),
                "max": np.array([most], np.int64),
                "iou": np.float32([iou]),
                "score": np.float32([score]),
            }
        )
    shapes = check_against_ort(model, feeds)
    assert shapes[2] == (0, 3)


def test_non_max_suppression_of_a_detectors_boxes() -> None:
    """8400 boxes of 4 classes (a YOLO head's count): scores sorted per class, not compared
    pairwise (80 classes would be 5.6 G comparisons), and the greedy loop ends where the
    scores fall below the threshold."""
    model = make_model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou", "score"], ["selected"])],
        {"boxes": (F, [1, 8400, 4]), "scores": (F, [1, 4, 8400])},
        ["selected"],
    )
    model.graph.initializer.extend([
        onnx.numpy_helper.from_array(np.array([100], np.int64), "max"),
        onnx.numpy_helper.from_array(np.float32([0.45]), "iou"),
        onnx.numpy_helper.from_array(np.float32([0.99]), "score"),
    ])  # fmt: skip
    corner = RNG.random((1, 8400, 2)) * 600
    boxes = np.concatenate([corner, corner + 20 + RNG.random((1, 8400, 2)) * 80], -1).astype(np.float32)
    scores = RNG.random((1, 4, 8400)).astype(np.float32)
    shapes = check_against_ort(model, [{"boxes": boxes, "scores": scores}])
    assert 150 < shapes[0][0] < 400


def test_non_max_suppression_scans_the_scores_a_cache_line_at_a_time() -> None:
    """A score threshold is tested on 16 scores at once, box by box only in a line that has
    one above it: candidates at a line's first and last lane, alone in a line, in the tail
    after the last whole line, and scores equal to the threshold (not above it) or NaN,
    which never count; 117 boxes = 7 lines + 5."""
    n, classes = 117, 2
    model = make_model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou", "score"], ["selected"])],
        {"boxes": (F, [1, n, 4]), "scores": (F, [1, classes, n])},
        ["selected"],
    )
    model.graph.initializer.extend([
        onnx.numpy_helper.from_array(np.array([50], np.int64), "max"),
        onnx.numpy_helper.from_array(np.float32([0.5]), "iou"),
        onnx.numpy_helper.from_array(np.float32([0.5]), "score"),
    ])  # fmt: skip
    corner = (np.arange(n, dtype=np.float32) * 30)[None, :, None].repeat(2, -1)
    boxes = np.concatenate([corner, corner + 10], -1)  # apart: every candidate is kept
    scores = np.full((1, classes, n), 0.25, np.float32)
    scores[0, 0, [0, 15, 16, 40, 115]] = [0.9, 0.6, 0.7, 0.8, 0.95]
    scores[0, 0, [1, 50, 116]] = [0.5, 0.5, np.nan]  # at the threshold, or NaN: never counted
    scores[0, 1, [31, 116]] = [0.75, 0.55]
    shapes = check_against_ort(model, [{"boxes": boxes, "scores": scores}])
    assert shapes == [(7, 3)]


def test_non_max_suppression_pops_every_candidate_in_the_stable_order() -> None:
    """No score threshold and room for every box: each class's 3000 boxes all go through the
    heap, with scores of ten values (ties everywhere: the lower index first), small boxes (most
    kept); then room for 5 per class, and a few boxes."""
    model = make_model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou"], ["selected"])],
        {"boxes": (F, [1, "n", 4]), "scores": (F, [1, 2, "n"]), "max": (I64, [1]), "iou": (F, [1])},
        ["selected"],
    )
    feeds = []
    for n, most in ((3000, 3000), (3000, 5), (3, 10), (1, 1)):
        corner = RNG.random((1, n, 2)) * 1000
        boxes = np.concatenate([corner, corner + 1 + RNG.random((1, n, 2)) * 20], -1).astype(np.float32)
        scores = (RNG.integers(0, 10, (1, 2, n)) / 10).astype(np.float32)
        feeds.append({"boxes": boxes, "scores": scores, "max": np.array([most], np.int64), "iou": np.float32([0.3])})
    shapes = check_against_ort(model, feeds)
    assert shapes[0][0] > 5000 and shapes[1] == (10, 3)


def test_a_repeated_run_reuses_its_memory() -> None:
    """Buffers of a found size are planned for its bound: the arena is sized from the input
    shapes, and a run of the same shape allocates nothing new."""
    model = make_model(
        [helper.make_node("NonZero", ["x"], ["nz"]), helper.make_node("Neg", ["nz"], ["y"])],
        {"x": (F, ["n"])},
        ["y"],
    )
    exe = minitvm.compile(model)
    exe.run({"x": sparse((100,), 0.5)})
    arena = exe._arena_storage
    for p in (0.0, 1.0, 0.3):
        x = sparse((100,), p)
        np.testing.assert_array_equal(exe.run({"x": x})[0], -np.array(np.nonzero(x)))
    assert exe._arena_storage is arena
    assert exe.set_sizes.keys() == {"nz_count"}


@pytest.mark.parametrize("steps", [[1, 1], [2, -1], [-3, 2]], ids=["unit", "2,-1", "-3,2"])
def test_slice_with_bounds_at_run_time(steps: list[int]) -> None:
    """Starts and ends fed at run time (axes and steps known): ONNX's clamping on them, the
    lengths found as the model runs, negative steps read backwards; one compile."""
    model = make_model(
        [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])],
        {"x": (F, ["b", 7, 9]), "starts": (I64, [2]), "ends": (I64, [2])},
        ["y"],
    )
    model.graph.initializer.extend(
        [helper.make_tensor("axes", I64, [2], [2, 1]), helper.make_tensor("steps", I64, [2], steps)]
    )
    bounds = [([0, 0], [9, 7]), ([-2, 5], [100, -100]), ([8, -1], [-100, 0]), ([3, 2], [3, 2])]
    feeds = [
        {"x": sparse((b, 7, 9), 1.0), "starts": np.array(s, np.int64), "ends": np.array(e, np.int64)}
        for b, (s, e) in zip((2, 1, 3, 2), bounds, strict=True)
    ]
    check_against_ort(model, feeds)
