"""graph-pack-weights and graph.matmul_packed: packing never changes results.

`pack_panels` and the reference's `unpack_panels` are checked against each other and against
the layout written out by hand. Each end-to-end case is a small ONNX model (MatMul or Gemm
with constant weights) compiled at opt_level 3, where the pass runs, on 1 and 2 threads and
compared with ONNX Runtime; structural checks make sure the packed path was taken (or, for
shapes the pass leaves alone, was not). The GEMM schedule template is checked on the packed
compute: its space, its default for any M, and every config it accepts computing the product.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product

import numpy as np
import onnx
import pytest
from graph_pipeline import count, optimized
from onnx import TensorProto, helper, numpy_helper
from test_fusion import Net, run_ort
from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Block

import minitvm
from minitvm.compiler import build, lower_to_te, random_inputs
from minitvm.dialects import graph as g
from minitvm.dialects import te
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import ShapeError
from minitvm.frontend import from_onnx
from minitvm.passes.graph.pack_weights import PANEL, WHOLE_PACK_ROWS, pack_panels
from minitvm.schedules.base import VECTOR_REGISTERS, InvalidConfig
from minitvm.schedules.gemm import GemmTemplate, fits
from minitvm.schedules.kernel import kernel_template, kernels
from minitvm.tuner.measure import seeded_inputs
from minitvm.tuner.tasks import extract_tasks

RTOL = 1e-4

# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------


def matmul(lhs: Sequence[int], n: int, seed: int = 0) -> onnx.ModelProto:
    """x @ w, w a constant [K, N] (weights ~ N(0, 1/K), so results are ~ N(0, 1))."""
    net = Net(seed)
    x = net.input("x", lhs)
    w = net.weight("w", [lhs[-1], n], lhs[-1] ** -0.5)
    return net.model([net.op("MatMul", [x, w])])


def gemm(
    m: int, k: int, n: int, bias: Sequence[int] | None, seed: int = 0, **attrs: object
) -> onnx.ModelProto:
    """Gemm(x, w, c): w [K, N] ([N, K] under transB), c a constant of shape `bias`."""
    net = Net(seed)
    x = net.input("x", [m, k])
    w = net.weight("w", [n, k] if attrs.get("transB") else [k, n], k**-0.5)
    inputs = [x, w] if bias is None else [x, w, net.weight("c", bias)]
    return net.model([net.op("Gemm", inputs, **attrs)])


def mlp(m: int = 4) -> onnx.ModelProto:
    """Two Linear layers as exporters write them (Gemm, transB = 1) with a ReLU between."""
    net = Net(5)
    x = net.input("x", [m, 64])
    h = net.op("Gemm", [x, net.weight("w1", [128, 64], 0.125), net.weight("b1", [128])], transB=1)
    h = net.op("Relu", [h])
    y = net.op("Gemm", [h, net.weight("w2", [32, 128], 0.09), net.weight("b2", [32])], transB=1)
    return net.model([y])


PACKED: dict[str, Callable[[], onnx.ModelProto]] = {
    "matmul_64x784x1024": lambda: matmul([64, 784], 1024),
    "matmul_1x64x48": lambda: matmul([1, 64], 48),
    "matmul_3x32x64": lambda: matmul([3, 32], 64),
    "matmul_rows_5x40x32": lambda: matmul([5, 40], 32),
    "matmul_batched_2x8x64x96": lambda: matmul([2, 8, 64], 96),
    "gemm_transb_bias": lambda: gemm(4, 64, 96, [96], transB=1),
    "gemm_alpha_beta": lambda: gemm(3, 32, 48, [48], alpha=0.5, beta=2.0),
    "gemm_alpha_beta_matrix_bias": lambda: gemm(3, 32, 48, [3, 48], alpha=0.5, beta=2.0),
    "gemm_beta_zero": lambda: gemm(5, 32, 64, [64], beta=0.0),
    # N in no whole number of panels: the last panel padded with zero columns, the product
    # keeps its N columns (no slice)
    "matmul_partial_4x32x24": lambda: matmul([4, 32], 24),
    "matmul_partial_8x48x1000": lambda: matmul([8, 48], 1000),
    "matmul_partial_lm_head_1x12x64x201": lambda: matmul([1, 12, 64], 201),
    "gemm_partial_4x32x24": lambda: gemm(4, 32, 24, [24]),
    "gemm_partial_transb_7x40x50": lambda: gemm(7, 40, 50, [50], transB=1),
    # rows that no block of 4 divides: not padded (a shorter block ends them)
    "matmul_partial_6x32x24": lambda: matmul([6, 32], 24),
    "matmul_rows_batched_3x7x32x48": lambda: matmul([3, 7, 32], 48),
}


def assert_matches_onnxruntime(model: onnx.ModelProto, threads: int) -> None:
    exe = minitvm.compile(model, opt_level=3, num_threads=threads)
    feeds = random_inputs(exe, seed=3)
    for ours, theirs in zip(exe.run(feeds), run_ort(model, feeds), strict=True):
        atol = 1e-5 * max(1.0, float(np.abs(theirs).max()))
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=atol)


# --------------------------------------------------------------------------------------------
# The packed layout and graph.matmul_packed's reference
# --------------------------------------------------------------------------------------------


def test_pack_panels_puts_each_weight_where_matmul_packed_reads_it() -> None:
    b = np.arange(5 * 48, dtype=np.float32).reshape(5, 48)
    packed = pack_panels(b)
    assert PANEL == 16 and packed.shape == (3, 5, 16) and packed.flags.c_contiguous
    for k, n in [(0, 0), (1, 15), (2, 16), (4, 33), (4, 47)]:
        assert packed[n // 16, k, n % 16] == b[k, n]
    np.testing.assert_array_equal(packed[1], b[:, 16:32])  # a panel: 16 columns, row by row


def test_pack_panels_pads_the_last_panel_with_zeros() -> None:
    b = np.arange(3 * 20, dtype=np.float32).reshape(3, 20) + 1
    packed = pack_panels(b)
    assert packed.shape == (2, 3, 16)
    np.testing.assert_array_equal(reference.unpack_panels(packed)[:, :20], b)
    assert not packed[1, :, 4:].any()  # columns 20..31: zeros, whose products add nothing


def test_pack_and_unpack_are_inverses() -> None:
    rng = np.random.default_rng(0)
    b = rng.standard_normal((7, 64)).astype(np.float32)
    np.testing.assert_array_equal(reference.unpack_panels(pack_panels(b)), b)
    p = rng.standard_normal((2, 7, 8)).astype(np.float32)
    np.testing.assert_array_equal(pack_panels(reference.unpack_panels(p), panel=8), p)


@pytest.mark.parametrize("lhs", [(5, 24), (2, 3, 24)], ids=["matrix", "batch"])
def test_matmul_packed_reference_is_matmul_on_the_unpacked_weights(lhs: tuple[int, ...]) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(lhs).astype(np.float32)
    b = rng.standard_normal((24, 48)).astype(np.float32)
    block = Block(arg_types=[TensorType(f32, lhs), TensorType(f32, [3, 24, 16])])
    op = g.MatMulPackedOp.make(*block.args)
    assert op.result.type == TensorType(f32, [*lhs[:-1], 48])
    (got,) = reference.evaluate(op, [x, pack_panels(b)])
    np.testing.assert_allclose(got, np.matmul(x, b), rtol=1e-5, atol=1e-5)


def test_matmul_packed_keeps_the_columns_it_is_given() -> None:
    """`columns` leaves the last panel's padding out of the product; it must lie in that
    panel (34..48 for 3 panels of 16), else the op does not verify."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 24)).astype(np.float32)
    b = rng.standard_normal((24, 37)).astype(np.float32)
    block = Block(arg_types=[TensorType(f32, [5, 24]), TensorType(f32, [3, 24, 16])])
    op = g.MatMulPackedOp.make(*block.args, columns=37)
    assert op.result.type == TensorType(f32, [5, 37])
    (got,) = reference.evaluate(op, [x, pack_panels(b)])
    np.testing.assert_allclose(got, x @ b, rtol=1e-5, atol=1e-5)
    for columns in (32, 49):
        with pytest.raises(ShapeError, match=f"columns = {columns} must lie in the last"):
            g.MatMulPackedOp.make(*block.args, columns=columns)


# --------------------------------------------------------------------------------------------
# End to end against ONNX Runtime
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", sorted(PACKED))
def test_packed_models_match_onnxruntime(case: str, threads: int) -> None:
    assert_matches_onnxruntime(PACKED[case](), threads)


@pytest.mark.parametrize("case", sorted(PACKED))
def test_constant_weights_are_packed(case: str) -> None:
    module = optimized(PACKED[case]())
    assert count(module, g.MatMulPackedOp) == 1
    assert count(module, g.MatMulOp) == count(module, g.GemmOp) == 0
    assert count(module, g.SliceOp) == 0
    (product,) = [op for op in module.walk() if isinstance(op, g.MatMulPackedOp)]
    columns = product.properties.get("columns")
    if "partial" in case:
        assert columns is not None and columns.value.data % PANEL  # type: ignore[attr-defined]
    else:
        assert columns is None


def gemm_runtime_bias() -> onnx.ModelProto:
    """Gemm with a run-time bias scaled by beta: packing it would take one more op."""
    net = Net(2)
    x, c = net.input("x", [3, 32]), net.input("c", [48])
    return net.model([net.op("Gemm", [x, net.weight("w", [32, 48], 0.2), c], beta=2.0)])


def matmul_runtime_weight() -> onnx.ModelProto:
    net = Net(2)
    return net.model([net.op("MatMul", [net.input("x", [3, 32]), net.input("w", [32, 48])])])


@pytest.mark.parametrize(
    ("model", "kind"),
    [
        (lambda: matmul([4, 32], 10), g.MatMulOp),  # less than one panel
        (lambda: matmul([4, 32], 16), g.MatMulOp),  # one panel: already packed
        (lambda: matmul([1, 32], 24), g.MatMulOp),  # one row: the reduction template's
        (lambda: matmul([3, 32], 24), g.MatMulOp),  # 3 rows: a matrix-vector product's
        (lambda: gemm(3, 32, 24, [24]), g.GemmOp),  # the same as a Gemm
        (matmul_runtime_weight, g.MatMulOp),
        (gemm_runtime_bias, g.GemmOp),
    ],
    ids=["n10", "n16", "n24_one_row", "n24_three_rows", "gemm_n24_three_rows", "runtime_weight",
         "gemm_runtime_bias_beta2"],  # fmt: skip
)
def test_other_shapes_are_not_packed_and_still_right(model, kind: type) -> None:
    proto = model()
    module = optimized(proto)
    assert count(module, g.MatMulPackedOp) == 0
    assert count(module, kind) == 1
    assert_matches_onnxruntime(proto, threads=1)


def runtime_matmul(lhs: Sequence[int], n: int) -> onnx.ModelProto:
    """x @ w of two run-time inputs, w [K, N]."""
    net = Net(4)
    return net.model([net.op("MatMul", [net.input("x", lhs), net.input("w", [lhs[-1], n])])])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    ("lhs", "n", "packed", "padded"),
    [
        ((32, 40), 24, True, True),  # N no panel divides, 32 rows: packed at run time
        ((2, 37, 48), 100, True, True),  # batched lhs, N padded to 112 (rows not)
        ((6, 32), 48, False, False),  # whole panels, few rows: B left in place
        ((16, 32), 24, False, False),  # too few rows to pay for packing B
        ((WHOLE_PACK_ROWS - 4, 32), 48, False, False),  # whole panels, not rows enough
        ((WHOLE_PACK_ROWS, 32), 48, True, False),  # whole panels, rows enough: packed
        ((WHOLE_PACK_ROWS + 3, 32), 48, True, False),  # the same, rows not padded
    ],
    ids=[
        "n24_32rows", "batched_37rows_n100", "six_rows", "n24_16rows", "whole_fewer_rows",
        "whole", "whole_more_rows",
    ],  # fmt: skip
)
def test_run_time_products_are_packed_where_it_pays_and_still_right(
    lhs: tuple[int, ...], n: int, packed: bool, padded: bool, threads: int
) -> None:
    """B packed at run time: a pad to whole panels where N needs it (`padded`), a reshape
    and a transpose; the product keeps its N columns, nothing is sliced off."""
    model = runtime_matmul(lhs, n)
    module = optimized(model)
    assert count(module, g.MatMulPackedOp) == packed
    assert count(module, g.MatMulOp) == (not packed)
    assert count(module, g.PadOp) == padded
    assert count(module, g.SliceOp) == 0
    assert_matches_onnxruntime(model, threads)


def test_f64_matmul_with_constant_weights_compiles() -> None:
    """The packed constant keeps the weights' element type."""
    w = numpy_helper.from_array(np.linspace(-1, 1, 8 * 32).reshape(8, 32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "f64",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)], [w],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = np.random.default_rng(0).standard_normal((4, 8))
    (got,) = minitvm.compile(model, opt_level=3, num_threads=1).run({"x": x})
    np.testing.assert_allclose(got, x @ numpy_helper.to_array(w), rtol=1e-10)


# --------------------------------------------------------------------------------------------
# The GEMM schedule template on the packed compute
# --------------------------------------------------------------------------------------------


def gemm_anchor(model: onnx.ModelProto) -> te.ComputeOp:
    """The anchor compute of the model's (single) kernel the GEMM template schedules."""
    module = from_onnx(model)
    lower_to_te(module, num_threads=1)
    found = [t for k in kernels(module) if (t := kernel_template(k)) is not None]
    (anchor, _), *_ = [(a, t) for a, t in found if t.name == "gemm"]
    return anchor


@pytest.mark.parametrize(
    ("m", "rows"), [(1, 1), (3, 3), (6, 6), (20, 10 if VECTOR_REGISTERS >= 32 else 5)]
)
def test_gemm_template_blocks_packed_products_of_any_height(m: int, rows: int) -> None:
    """A short product is one block of its height (N = 48: blocks one panel wide); 20 rows
    need two blocks where 16 rows of accumulators fit (AVX-512), evened out to 10 each, and
    four where 6 do (AVX2's 16 ymm, two for each 16 lanes), evened out to 5."""
    anchor = gemm_anchor(matmul([m, 64], 48))
    space = GemmTemplate().space(anchor)
    assert space is not None
    assert {k.name: k.choices for k in space}["lanes"] == (16,)
    assert GemmTemplate().default_config(anchor) == {
        "rows": rows, "cols": 16, "lanes": 16, "k_block": 0, "tile_order": "cols_first",
        "prefetch": 0,
    }  # fmt: skip


def test_gemm_template_blocks_unpacked_products_of_two_rows_or_more() -> None:
    """B read in place: 3 rows are one block of 3 (3 x 768 @ 768 x 768, AMD EPYC Zen 4, one
    thread: 0.062 ms against 0.103 in the plain order); one row keeps the plain order (the
    reduction template's: it blocks the row's columns itself)."""
    anchor = gemm_anchor(matmul_runtime_weight())
    space = GemmTemplate().space(anchor)
    assert space is not None
    assert {k.name: k.choices for k in space}["lanes"] == (8, 16)
    assert GemmTemplate().default_config(anchor)["rows"] == 3  # type: ignore[index]
    net = Net(2)
    one_row = net.model([net.op("MatMul", [net.input("x", [1, 32]), net.input("w", [32, 48])])])
    anchor = gemm_anchor(one_row)
    assert GemmTemplate().default_config(anchor) is None


def test_every_accepted_config_of_a_packed_task_computes_the_product() -> None:
    (task,) = extract_tasks(matmul([7, 64], 96), num_threads=1)
    assert task.template == "gemm"
    assert [spec.shape for spec in task.inputs] == [(7, 64), (6, 64, 16)]
    space = {knob.name: knob.choices for knob in task.knobs}
    assert space == {
        "rows": (1, 2, 3, 4, 5, 6, 7), "cols": (16, 32, 48, 96), "lanes": (16,),
        "k_block": (0, 32), "tile_order": ("cols_first", "rows_first"), "prefetch": (0, 1),
    }  # fmt: skip
    configs = task.configs()
    everything = [dict(zip(space, values, strict=True)) for values in product(*space.values())]
    rejected = [c for c in everything if c not in configs]
    # (blocks beyond the registers, and prefetches with the rows first: no strip to prefetch)
    assert rejected and all(
        not fits(int(c["rows"]), int(c["cols"]))
        or (c["prefetch"] and c["tile_order"] == "rows_first")
        for c in rejected
    )
    with pytest.raises(InvalidConfig):
        task.check(rejected[0])
    feeds = seeded_inputs(task.inputs, 7)
    x, w = feeds["in0"], feeds["in1"]
    expected = x @ reference.unpack_panels(w)
    for config in configs:
        exe = build(task.module(config), task.inputs, task.outputs, num_threads=1)
        (got,) = exe.run(feeds)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4, err_msg=str(config))


# --------------------------------------------------------------------------------------------
# The tuner
# --------------------------------------------------------------------------------------------


def test_tuner_tasks_of_an_mlp_are_packed_gemms() -> None:
    tasks = extract_tasks(mlp(), num_threads=1)
    assert [t.template for t in tasks] == ["gemm", "gemm"]
    for task, (k, n) in zip(tasks, [(64, 128), (128, 32)], strict=True):
        assert all("matmul_packed" in name for name in task.kernel_names)
        assert task.inputs[1].shape == (n // 16, k, 16)  # the packed weight
        assert {knob.name: knob.choices for knob in task.knobs}["lanes"] == (16,)
        # the template's default for 4 rows: 4 x 64 with AVX-512's 32 registers; 2 x 32 with
        # AVX2's 16 (8 accumulators, as many as 4 x 16 has: the wider block)
        rows = 4 if VECTOR_REGISTERS == 32 else 2
        assert task.default_config is not None and task.default_config["rows"] == rows
