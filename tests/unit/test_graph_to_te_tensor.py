"""convert-graph-to-te on the data-movement and reduction graph ops.

Each case builds a one-op graph module, lowers it, verifies the te IR, runs it with the te
interpreter and compares with the graph reference. The interpreter checks every te.read over
the whole index space, so these tests also prove that no lowering reads out of bounds, even
where a select discards the value (concat, pad, gather).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.rewriter import Rewriter

from minitvm.dialects import graph as g
from minitvm.dialects import te_eval
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import tensor_type
from minitvm.dialects.graph.constant import element_type_of
from minitvm.lowering.graph_to_te import ConvertGraphToTePass, kernel_for

RNG = np.random.default_rng(5)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def ints(*shape: int, dtype=np.int64) -> np.ndarray:
    return RNG.integers(-50, 50, shape).astype(dtype)


def check(make: Callable[..., Operation], inputs: list[np.ndarray], rtol: float = 1e-5) -> ModuleOp:
    """Lower the one-op module `make(*args)`, compare the te interpreter with the reference;
    returns the lowered module."""
    block = Block(arg_types=[tensor_type(x.shape, element_type_of(x.dtype)) for x in inputs])
    op = make(*block.args)
    block.add_ops([op, func.ReturnOp(*op.results)])
    module = ModuleOp([func.FuncOp("main", (block.arg_types, [r.type for r in op.results]),
                                   Region(block))])  # fmt: skip
    module.verify()
    # reference.evaluate returns rank-0 results as shape (1,) (np.ascontiguousarray): reshape.
    expected = [
        e.reshape(r.type.get_shape()) for e, r in zip(reference.evaluate(op, inputs), op.results)
    ]
    ConvertGraphToTePass().apply(Context(), module)
    if op.parent is not None:  # a view or a concat in place, which @main keeps: its te rule
        kernel = kernel_for(op, "kernel_0")
        module.body.block.insert_op_before(kernel, module.body.block.first_op)
        Rewriter.replace_op(op, func.CallOp("kernel_0", list(op.operands), [r.type for r in op.results]))
    module.verify()
    got = te_eval.run_module(module, inputs)
    assert len(got) == len(expected)
    for n, (a, b) in enumerate(zip(got, expected)):
        assert a.shape == b.shape and a.dtype == b.dtype, (n, a.shape, a.dtype, b.shape, b.dtype)
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-6, err_msg=f"result #{n}")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"result #{n}")
    return module


def count_ops(module: ModuleOp, *classes: type[Operation]) -> int:
    return sum(isinstance(op, classes) for op in module.walk())


# --------------------------------------------------------------------------------------------
# Reshape, expand, transpose
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "src, dst",
    [
        ((2, 3, 4), (6, 4)), ((2, 3, 4), (2, 12)), ((2, 3, 4), (24,)), ((24,), (2, 3, 4)),
        ((2, 3, 4), (4, 3, 2)), ((4, 6), (3, 8)), ((2, 3, 4), (1, 2, 12, 1)),
        ((1, 6, 1), (2, 3)), ((1, 2048, 1, 1), (1, 2048)), ((6,), (1, 6, 1)), ((), (1, 1)),
        ((1,), ()), ((2, 0, 3), (0, 6)), ((3, 4, 5, 2), (12, 10)),
    ],
    ids=str,
)  # fmt: skip
def test_reshape(src, dst):
    check(lambda x: g.ReshapeOp.make(x, shape=dst), [rand(*src)])


def test_reshape_of_unit_dims_needs_no_division():
    """Squeeze/unsqueeze-like reshapes map dims directly: no // or % in the body."""
    module = check(lambda x: g.ReshapeOp.make(x, shape=[1, 64, 1, 7]), [rand(64, 7, 1)])
    assert count_ops(module, arith.FloorDivSIOp, arith.DivSIOp, arith.RemSIOp) == 0


def test_reshape_int():
    check(lambda x: g.ReshapeOp.make(x, shape=[3, 4]), [ints(2, 6, dtype=np.int32)])


@pytest.mark.parametrize(
    "src, dst", [((3, 1), (2, 3, 4)), ((), (2, 2)), ((1,), (5,)), ((2, 1, 3), (2, 4, 3)),
                 ((4,), (3, 4))], ids=str  # fmt: skip
)
def test_expand(src, dst):
    check(lambda x: g.ExpandOp.make(x, shape=dst), [rand(*src)])


@pytest.mark.parametrize(
    "shape, perm",
    [((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (1, 2, 0)), ((2, 3, 4, 5), (0, 2, 3, 1)),
     ((5,), (0,)), ((1, 4, 1), (2, 1, 0))],
    ids=str,
)  # fmt: skip
def test_transpose(shape, perm):
    check(lambda x: g.TransposeOp.make(x, perm=list(perm)), [rand(*shape)])


# --------------------------------------------------------------------------------------------
# Concat, split, slice, gather
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes, axis",
    [
        ([(2, 4), (2, 5)], 1), ([(1, 3), (2, 3), (4, 3)], 0),
        ([(2, 3, 1), (2, 3, 2), (2, 3, 3)], 2),
        ([(3, 2)], 0), ([(2, 0), (2, 3), (2, 0), (2, 2)], 1), ([(0, 2), (0, 2)], 0),
        ([(2, 1, 2)] * 5, 1), ([(5,), (1,)], 0),
    ],
    ids=str,
)  # fmt: skip
def test_concat(shapes, axis):
    check(lambda *xs: g.ConcatOp.make(list(xs), axis=axis), [rand(*s) for s in shapes])


def test_concat_int_and_bool():
    check(lambda *xs: g.ConcatOp.make(list(xs), axis=0), [ints(2, 3), ints(1, 3)])
    check(lambda *xs: g.ConcatOp.make(list(xs), axis=1),
          [RNG.random((2, 2)) < 0.5, RNG.random((2, 3)) < 0.5])  # fmt: skip


@pytest.mark.parametrize(
    "shape, axis, sizes",
    [((2, 9), 1, [4, 5]), ((6, 2), 0, [1, 2, 3]), ((2, 3, 4), 2, [2, 0, 2]), ((5,), 0, [5]),
     ((4, 4), 0, [2, 2])],
    ids=str,
)  # fmt: skip
def test_split(shape, axis, sizes):
    check(lambda x: g.SplitOp.make(x, axis=axis, sizes=sizes), [rand(*shape)])


@pytest.mark.parametrize(
    "shape, starts, ends, steps",
    [
        ((10, 6), [9, 1], [-1, 6], [-2, 2]),  # negative step through index 0
        ((10, 6), [0, 0], [10, 6], [1, 1]),
        ((10, 6), [2, 5], [8, 0], [3, -1]),
        ((10, 6), [9, 5], [-1, -1], [-1, -1]),  # full reversal
        ((7,), [1], [6], [2]),
        ((7,), [3], [3], [1]),  # empty
        ((4, 5, 6), [1, 4, 0], [2, 0, 6], [1, -2, 5]),
        ((3, 4), [2, 0], [3, 4], [1, 1]),  # a single row
    ],
    ids=str,
)  # fmt: skip
def test_slice(shape, starts, ends, steps):
    check(lambda x: g.SliceOp.make(x, starts=starts, ends=ends, steps=steps), [rand(*shape)])


@pytest.mark.parametrize(
    "shape, axis, indices",
    [
        ((5, 4), 0, np.array([[0, 4, -1], [-5, 2, 2]])),
        ((5, 4), 1, np.array([3, -4, 0])),
        ((2, 3, 4), 1, np.array(-1)),  # rank-0 indices drop the axis
        ((2, 3, 4), 2, np.array([[-1, -2], [0, 1], [3, 3]], np.int32)),
        ((2, 3, 4), 0, np.array([1, 0, -2, -1], np.int32)),
        ((6,), 0, np.array([[5, -6, 0]])),
    ],
    ids=lambda v: str(getattr(v, "tolist", lambda: v)()),
)  # fmt: skip
def test_gather(shape, axis, indices):
    check(lambda d, i: g.GatherOp.make(d, i, axis=axis), [rand(*shape), indices])


def test_gather_int_data():
    check(lambda d, i: g.GatherOp.make(d, i, axis=1), [ints(3, 4), np.array([-1, 0, 2])])


# --------------------------------------------------------------------------------------------
# Element gathers, scatters, running sums and products, sequence reversal
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, axis, indices",
    [
        ((3, 5), 1, np.array([[0, -1, 4], [1, 2, -5]])),  # fewer columns than the data
        ((3, 3), 0, np.array([[1, -1, 0], [2, 0, -3]], np.int32)),
        ((2, 3, 4), 2, np.array([[[3], [-4], [0]]])),
        ((4,), 0, np.array([3, -1, 0, 0, 2, 1])),  # more indices than the axis is long
    ],
    ids=lambda v: str(getattr(v, "tolist", lambda: v)()),
)  # fmt: skip
def test_gather_elements(shape, axis, indices):
    check(lambda d, i: g.GatherElementsOp.make(d, i, axis=axis), [rand(*shape), indices])


@pytest.mark.parametrize(
    "shape, batch_dims, indices",
    [
        ((2, 3, 4), 0, np.array([[1, -1], [0, 2], [-2, 0]])),
        ((2, 3, 4), 0, np.array([[[1]], [[0]]])),  # slices of rank 2
        ((2, 3, 4), 1, np.array([[[2], [-1]], [[0], [1]]], np.int32)),
        ((2, 3, 4), 2, np.array([[[3], [0], [-1]], [[1], [1], [2]]])),
        ((2, 3), 0, np.array([1, -1])),  # one tuple: a scalar
    ],
    ids=lambda v: str(getattr(v, "tolist", lambda: v)()),
)  # fmt: skip
def test_gather_nd(shape, batch_dims, indices):
    check(lambda d, i: g.GatherNDOp.make(d, i, batch_dims=batch_dims), [rand(*shape), indices])


def test_gather_nd_int_data():
    check(g.GatherNDOp.make, [ints(2, 2, dtype=np.int32), np.array([[0, 0], [1, 1]])])


REDUCTIONS = ["none", "add", "mul", "max", "min"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "shape, axis, indices",
    [
        ((3, 5), 1, np.array([[1, 1], [-1, 0], [4, -5]])),  # duplicates in row 0
        ((4, 3), 0, np.array([[3, -4]], np.int32)),  # shorter than the data outside axis
        ((2, 3, 4), 2, np.array([[[0, 3, 3, -1]], [[2, 2, 2, 2]]])),
    ],
    ids=lambda v: str(getattr(v, "tolist", lambda: v)()),
)  # fmt: skip
def test_scatter_elements(shape, axis, indices, reduction):
    check(lambda d, i, u: g.ScatterElementsOp.make(d, i, u, axis=axis, reduction=reduction),
          [rand(*shape), indices, rand(*indices.shape)])  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "shape, indices",
    [
        ((4, 4, 4), np.array([[0], [2], [0]])),  # slices, the first one twice
        ((2, 3), np.array([[1, 2], [0, -1], [1, -1]])),  # elements
        ((2, 3, 4), np.array([[[1, 0], [0, 2]], [[-1, -3], [1, 0]]])),  # a 2-D batch of tuples
        ((2, 2), np.array([1, 0])),  # one tuple
        ((4, 3), np.zeros((0, 1), np.int64)),  # no updates
    ],
    ids=lambda v: str(getattr(v, "tolist", lambda: v)()),
)  # fmt: skip
def test_scatter_nd(shape, indices, reduction):
    updates_shape = (*indices.shape[:-1], *shape[indices.shape[-1] :])
    check(lambda d, i, u: g.ScatterNDOp.make(d, i, u, reduction=reduction),
          [ints(*shape), indices, ints(*updates_shape)])  # fmt: skip


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float16, np.uint8, np.int8])
def test_scatter_other_types(reduction, dtype):
    """Bytes wrap around as the reference's do. f16 sums and products of the updates are
    taken in f32 and rounded once before they meet the data, where the reference rounds at
    every update: they may differ in the last bit."""
    if dtype == np.float16:  # positive: no cancellation, so the difference stays relative
        data, updates = RNG.uniform(0.5, 1.5, (3, 5)), RNG.uniform(0.5, 1.5, (4, 5))
    else:
        data, updates = ints(3, 5), ints(4, 5)
    check(lambda d, i, u: g.ScatterNDOp.make(d, i, u, reduction=reduction),
          [data.astype(dtype), np.array([[1], [-1], [1], [0]]), updates.astype(dtype)],
          rtol=2e-3 if dtype == np.float16 else 1e-5)  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.float16])
@pytest.mark.parametrize("exclusive, reverse", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("op", [g.CumSumOp, g.CumProdOp])
def test_cumulative(op, exclusive, reverse, dtype):
    x = RNG.uniform(0.5, 1.5, (2, 7, 3)).astype(dtype) if dtype != np.int32 else ints(2, 7, 3, dtype=dtype) // 10
    check(lambda v: op.make(v, axis=1, exclusive=exclusive, reverse=reverse), [x])


@pytest.mark.parametrize(
    "shape, batch_axis, lens",
    [((4, 5, 2), 0, [1, 5, 0, 3]), ((4, 3), 1, [4, 2, 1]), ((3, 2, 2), 1, [3, 0])],
    ids=str,
)  # fmt: skip
def test_reverse_sequence(shape, batch_axis, lens):
    check(lambda x, n: g.ReverseSequenceOp.make(x, n, batch_axis=batch_axis, time_axis=1 - batch_axis),
          [rand(*shape), np.array(lens)])  # fmt: skip


# --------------------------------------------------------------------------------------------
# Pad, tile
# --------------------------------------------------------------------------------------------

PADS = [
    ((2, 3), [1, 0, 1, 2]),
    ((3, 4), [0, 2, 0, 3]),
    ((2, 3, 4), [0, 1, 2, 1, 0, 3]),
    ((1, 2, 4, 5), [0, 0, 1, 1, 0, 0, 2, 3]),
    ((5,), [0, 0]),
    ((4,), [3, 2]),
]


def _reflect_fits(shape, pads) -> bool:
    """Reflect padding must be smaller than the padded dim (the verifier rejects the rest)."""
    rank = len(shape)
    return all(max(pads[d], pads[rank + d]) < shape[d] for d in range(rank) if shape[d])


PAD_CASES = [
    (mode, value, shape, pads)
    for mode, value in [("constant", 0.0), ("constant", 1.5), ("edge", 0.0), ("reflect", 0.0),
                        ("wrap", 0.0)]
    for shape, pads in PADS
    if mode != "reflect" or _reflect_fits(shape, pads)
]


@pytest.mark.parametrize("mode, value, shape, pads", PAD_CASES, ids=str)
def test_pad(mode, value, shape, pads):
    check(lambda x: g.PadOp.make(x, pads=pads, mode=mode, value=value), [rand(*shape)])


def test_pad_size_one_dims_and_ints():
    check(lambda x: g.PadOp.make(x, pads=[2, 1, 3, 0], mode="edge"), [rand(1, 3)])
    check(lambda x: g.PadOp.make(x, pads=[1, 2, 0, 1], value=-7.9), [ints(2, 3, dtype=np.int32)])
    check(lambda x: g.PadOp.make(x, pads=[1, 1, 1, 1], mode="reflect"), [ints(3, 2)])
    check(lambda x: g.PadOp.make(x, pads=[1, 0, 0, 2], value=2.5), [rand(0, 3)])
    # an unsigned fill above the signed range (a u8 zero point of 200)
    check(lambda x: g.PadOp.make(x, pads=[1, 0, 0, 1], value=200.0), [ints(2, 3, dtype=np.uint8)])
    # wrap: pads wider than the dim go round it more than once
    check(lambda x: g.PadOp.make(x, pads=[5, 0, 7, 1], mode="wrap"), [ints(2, 3, dtype=np.int32)])


@pytest.mark.parametrize(
    "shape, repeats",
    [((2, 3), [2, 3]), ((2, 3), [1, 1]), ((1, 3, 2), [4, 1, 2]), ((5,), [3]), ((2, 2), [0, 2])],
    ids=str,
)  # fmt: skip
def test_tile(shape, repeats):
    check(lambda x: g.TileOp.make(x, repeats=repeats), [rand(*shape)])


# --------------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------------

REDUCTIONS = [
    ((2, 4, 3), [1, 2]),
    ((2, 4, 3), [0]),
    ((2, 4, 3), [1]),
    ((2, 4, 3), [0, 1, 2]),
    ((3, 5), [1]),
    ((6,), [0]),
    ((1, 8, 5, 5), [2, 3]),
    ((2, 3, 4, 5), [0, 2]),
]


FLOAT_REDUCE_OPS = [
    g.ReduceSumOp, g.ReduceMeanOp, g.ReduceMaxOp, g.ReduceMinOp, g.ReduceProdOp, g.ReduceL1Op,
    g.ReduceL2Op, g.ReduceSumSquareOp, g.ReduceLogSumOp, g.ReduceLogSumExpOp,
]  # fmt: skip
INT_REDUCE_OPS = [
    g.ReduceSumOp, g.ReduceMeanOp, g.ReduceMaxOp, g.ReduceMinOp, g.ReduceProdOp, g.ReduceL1Op,
    g.ReduceSumSquareOp,
]  # fmt: skip


@pytest.mark.parametrize("keepdims", [1, 0])
@pytest.mark.parametrize("shape, axes", REDUCTIONS, ids=str)
@pytest.mark.parametrize("cls", FLOAT_REDUCE_OPS, ids=lambda c: c.name)
def test_reduce(cls, shape, axes, keepdims):
    x = rand(*shape)
    if cls is g.ReduceLogSumOp:
        x = np.abs(x)  # log of a positive sum
    check(lambda v: cls.make(v, axes=axes, keepdims=keepdims), [x])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("cls", INT_REDUCE_OPS, ids=lambda c: c.name)
def test_reduce_int(cls, dtype):
    """Integer means truncate toward zero, as the reference's mean-then-astype does."""
    check(lambda x: cls.make(x, axes=[1], keepdims=0), [ints(4, 3, 2, dtype=dtype)])
    check(lambda x: cls.make(x, axes=[0, 2], keepdims=1), [ints(4, 3, 2, dtype=dtype)])


def test_reduce_max_propagates_nan_and_empty_sum_is_zero():
    x = rand(3, 4)
    x[1, 2] = np.nan
    check(lambda v: g.ReduceMaxOp.make(v, axes=[1]), [x])
    check(lambda v: g.ReduceSumOp.make(v, axes=[1], keepdims=0), [rand(3, 0)])


@pytest.mark.parametrize("cls", [g.ReduceMinOp, g.ReduceProdOp, g.ReduceL1Op, g.ReduceL2Op,
                                 g.ReduceSumSquareOp, g.ReduceLogSumOp, g.ReduceLogSumExpOp],
                         ids=lambda c: c.name)  # fmt: skip
def test_reduce_over_an_empty_set_gives_its_identity(cls):
    """+inf, 1, 0, 0, 0, log(0) = -inf, -inf: what ONNX's empty-set cases expect."""
    check(lambda v: cls.make(v, axes=[1]), [rand(2, 0, 3)])


def test_reduce_log_sum_exp_is_stable_and_follows_onnxruntime_on_infinities():
    """exp(1000) overflows, the shifted sum does not; a row of -inf is -inf (not NaN), a +inf
    makes +inf, a NaN makes NaN (ONNX Runtime's results for the same rows)."""
    x = np.array([[1000.0, 999.0, 0.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0],
                  [np.nan, 1.0, 2.0], [-np.inf, 1.0, 2.0]], np.float32)  # fmt: skip
    module = check(lambda v: g.ReduceLogSumExpOp.make(v, axes=[1], keepdims=0), [x])
    got = te_eval.run_module(module, [x])[0]
    want = [1000.0 + np.log1p(np.exp(-1.0) + np.exp(-1000.0)), -np.inf, np.inf, np.nan,
            2.0 + np.log1p(np.exp(-1.0))]  # fmt: skip
    np.testing.assert_allclose(got, np.float32(want), rtol=1e-6)


def test_reduce_log_sum_exp_in_float64():
    x = RNG.standard_normal((3, 5)) * 30  # float64, as ONNX's ReduceLogSumExp cases
    check(lambda v: g.ReduceLogSumExpOp.make(v, axes=[0, 1], keepdims=1), [x])


def test_reduce_min_propagates_nan_and_takes_booleans():
    x = rand(3, 4)
    x[0, 1] = np.nan
    check(lambda v: g.ReduceMinOp.make(v, axes=[1]), [x])
    check(lambda v: g.ReduceMinOp.make(v, axes=[0, 2], keepdims=0), [RNG.random((3, 4, 2)) > 0.3])


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_reduce_min_and_max_of_small_integers(dtype):
    x = RNG.integers(0 if dtype == np.uint8 else -128, 128, (5, 7)).astype(dtype)
    check(lambda v: g.ReduceMinOp.make(v, axes=[1]), [x])
    check(lambda v: g.ReduceMaxOp.make(v, axes=[0], keepdims=0), [x])


ARG_CASES = [((4, 7), 1), ((4, 7), 0), ((2, 3, 5), 1), ((2, 3, 40), 2), ((6,), 0)]


@pytest.mark.parametrize("last", [0, 1])
@pytest.mark.parametrize("keepdims", [1, 0])
@pytest.mark.parametrize("shape, axis", ARG_CASES, ids=str)
@pytest.mark.parametrize("cls", [g.ArgMaxOp, g.ArgMinOp], ids=lambda c: c.name)
def test_arg_extreme(cls, shape, axis, keepdims, last):
    """Ties are the point: small integers as floats, so the first and last index differ."""
    x = RNG.integers(0, 4, shape).astype(np.float32)
    module = check(
        lambda v: cls.make(v, axis=axis, keepdims=keepdims, select_last_index=last), [x]
    )
    got = te_eval.run_module(module, [x])[0]
    fn = np.argmax if cls is g.ArgMaxOp else np.argmin
    want = x.shape[axis] - 1 - fn(np.flip(x, axis), axis=axis) if last else fn(x, axis=axis)
    np.testing.assert_array_equal(got, np.expand_dims(want, axis) if keepdims else want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float64])
@pytest.mark.parametrize("cls", [g.ArgMaxOp, g.ArgMinOp], ids=lambda c: c.name)
def test_arg_extreme_of_other_element_types(cls, dtype):
    x = RNG.integers(0, 200, (3, 9)).astype(dtype)
    check(lambda v: cls.make(v, axis=1), [x])
    check(lambda v: cls.make(v, axis=0, keepdims=0, select_last_index=1), [x])


@pytest.mark.parametrize("last", [0, 1])
@pytest.mark.parametrize("cls", [g.ArgMaxOp, g.ArgMinOp], ids=lambda c: c.name)
def test_arg_extreme_nans_as_onnxruntime_scans(cls, last):
    """ONNX Runtime's answers for these rows: a NaN at index 0 wins, other NaNs never do; a
    row of NaNs gives 0."""
    nan = np.nan
    x = np.array([[nan, 1, 2], [1, nan, 2], [2, 1, nan], [nan, nan, nan], [-np.inf, nan, -np.inf]],
                 np.float32)  # fmt: skip
    module = check(lambda v: cls.make(v, axis=1, keepdims=0, select_last_index=last), [x])
    want = {(g.ArgMaxOp, 0): [0, 2, 0, 0, 0], (g.ArgMaxOp, 1): [0, 2, 0, 0, 2],
            (g.ArgMinOp, 0): [0, 0, 1, 0, 0], (g.ArgMinOp, 1): [0, 0, 1, 0, 2]}[cls, last]  # fmt: skip
    np.testing.assert_array_equal(te_eval.run_module(module, [x])[0], want)
