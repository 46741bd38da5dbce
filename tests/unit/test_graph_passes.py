"""Graph passes: what each rewrites, what it must leave alone, and that numerics survive.

Modules are built with the ops' `make` builders; `reference.run_module` before and after a
pass is the numerical oracle (folding evaluates the same kernels, so results must agree).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from minitvm.dialects import graph as g
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.constant import WeightsAttr
from minitvm.ir import make_context, parse_module, print_module
from minitvm.passes.graph.canonicalize import CanonicalizePass
from minitvm.passes.graph.dce import DeadCodeEliminationPass
from minitvm.passes.graph.fold_constants import FoldConstantsPass
from minitvm.passes.registry import all_passes

RNG = np.random.default_rng(7)
Body = Callable[[Builder, Sequence[SSAValue]], Sequence[SSAValue]]


def t(*shape: int, element=f32) -> TensorType:
    return TensorType(element, list(shape))


def build(arg_types: list[TensorType], body: Body) -> ModuleOp:
    """`func.func @main(args)` whose ops `body(builder, args)` inserts and whose results it
    returns."""
    block = Block(arg_types=arg_types)
    builder = Builder(InsertPoint.at_end(block))
    results = list(body(builder, block.args))
    builder.insert(func.ReturnOp(*results))
    module = ModuleOp([func.FuncOp("main", (arg_types, [r.type for r in results]),
                                   Region(block))])
    module.verify()
    return module


def const(b: Builder, value: np.ndarray, name: str = "w") -> SSAValue:
    return b.insert(g.ConstantOp.from_array(np.asarray(value), name)).result


def run(module: ModuleOp, *passes: ModulePass) -> ModuleOp:
    ctx = make_context()
    for p in passes:
        p.apply(ctx, module)
    module.verify()
    return module


def op_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("graph.")]


def random_inputs(module: ModuleOp) -> dict[int, np.ndarray]:
    main = next(iter(module.ops))
    assert isinstance(main, func.FuncOp)
    values = {}
    for i, arg in enumerate(main.body.block.args):
        assert isinstance(arg.type, TensorType)
        values[i] = RNG.standard_normal(arg.type.get_shape()).astype(np.float32)
    return values


def assert_same_numerics(before: ModuleOp, after: ModuleOp) -> None:
    inputs = random_inputs(before)
    for want, got in zip(reference.run_module(before, inputs), reference.run_module(after, inputs),
                         strict=True):
        assert want.dtype == got.dtype and want.shape == got.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


# --------------------------------------------------------------------------------------------
# graph-fold-constants
# --------------------------------------------------------------------------------------------


def test_fold_replaces_a_constant_chain_by_one_constant():
    a = np.array([[1.0, -2.0], [3.0, -4.0]], np.float32)

    def body(b: Builder, args):
        x = b.insert(g.NegOp.make(const(b, a))).result
        x = b.insert(g.TransposeOp.make(x, perm=[1, 0])).result
        return [b.insert(g.ReluOp.make(x)).result]

    module = run(build([], body), FoldConstantsPass())
    ret = list(module.walk())[-1]
    folded = ret.operands[0].owner
    assert isinstance(folded, g.ConstantOp)
    np.testing.assert_array_equal(folded.numpy(), np.maximum(-a, 0).T)
    assert set(op_names(module)) == {"graph.constant"}  # inputs stay until graph-dce
    run(module, DeadCodeEliminationPass())
    assert op_names(module) == ["graph.constant"]


def test_fold_multi_result_and_integer_ops():
    def body(b: Builder, args):
        x = const(b, np.array([-7, 7, -7, 7, 9, -9], np.int64))
        y = const(b, np.array([2, -2, -2, 2, 4, 4], np.int64))
        q = b.insert(g.DivOp.make(x, y)).result
        return b.insert(g.SplitOp.make(q, axis=0, sizes=[2, 4])).results

    module = run(build([], body), FoldConstantsPass(), DeadCodeEliminationPass())
    assert op_names(module) == ["graph.constant", "graph.constant"]
    (first, second) = [op.numpy() for op in module.walk() if isinstance(op, g.ConstantOp)]
    np.testing.assert_array_equal(first, [-3, -3])
    np.testing.assert_array_equal(second, [3, 3, 2, -2])


def test_fold_leaves_ops_with_runtime_operands():
    def body(b: Builder, args):
        w = b.insert(g.AbsOp.make(const(b, np.array([-1.0, 2.0], np.float32)))).result
        return [b.insert(g.MulOp.make(args[0], w)).result]

    module = run(build([t(2)], body), FoldConstantsPass(), DeadCodeEliminationPass())
    assert op_names(module) == ["graph.constant", "graph.mul"]


def test_fold_respects_max_elements_unless_the_result_is_no_bigger():
    big = RNG.standard_normal((8, 16)).astype(np.float32)

    def body(b: Builder, args):
        grown = b.insert(g.ExpandOp.make(const(b, np.float32([1.5])), shape=[8, 16])).result
        moved = b.insert(g.TransposeOp.make(const(b, big, "proj_w"), perm=[1, 0])).result
        return [grown, moved]

    module = run(build([], body), FoldConstantsPass(max_elements=64), DeadCodeEliminationPass())
    assert sorted(op_names(module)) == ["graph.constant", "graph.constant", "graph.expand"]
    run(module, FoldConstantsPass(), DeadCodeEliminationPass())
    assert op_names(module) == ["graph.constant", "graph.constant"]


def test_folded_blobs_get_readable_names():
    big = RNG.standard_normal((8, 16)).astype(np.float32)

    def body(b: Builder, args):
        return [b.insert(g.TransposeOp.make(const(b, big, "proj.weight"), perm=[1, 0])).result]

    module = run(build([], body), FoldConstantsPass(), DeadCodeEliminationPass())
    (folded,) = [op for op in module.walk() if isinstance(op, g.ConstantOp)]
    assert isinstance(folded.value, WeightsAttr)
    assert folded.value.key.data.startswith("proj_weight_transpose_")
    np.testing.assert_array_equal(folded.numpy(), big.T)
    # ... and the result survives a print / parse round trip with its blob.
    reparsed = parse_module(print_module(module))
    (again,) = [op for op in reparsed.walk() if isinstance(op, g.ConstantOp)]
    np.testing.assert_array_equal(again.numpy(), big.T)


def test_fold_skips_what_the_reference_cannot_evaluate():
    """An index out of range has no value: the gather is left to run time."""
    def body(b: Builder, args):
        x = const(b, np.arange(4, dtype=np.float32))
        i = const(b, np.array([7], np.int64))
        return [b.insert(g.GatherOp.make(x, i, axis=0)).result]

    module = run(build([], body), FoldConstantsPass())
    assert "graph.gather" in op_names(module)


def small_model(b: Builder, args: Sequence[SSAValue]) -> list[SSAValue]:
    """conv -> batch_norm -> relu -> pool -> fc, with weights that are themselves computed
    from constants (scaled, transposed, reshaped), as exported models often have them."""
    (x,) = args
    rng = np.random.default_rng(0)  # the same weights each time it is built
    w = const(b, rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "conv_w")
    w = b.insert(g.MulOp.make(w, const(b, np.float32([0.5])))).result
    bn = [const(b, rng.uniform(0.5, 1.5, 4).astype(np.float32), n) for n in "sbmv"]
    scale = b.insert(g.SqrtOp.make(bn[0])).result
    y = b.insert(g.ConvOp.make(x, w, None, pads=[1, 1, 1, 1])).result
    y = b.insert(g.BatchNormOp.make(y, scale, bn[1], bn[2], bn[3])).result
    y = b.insert(g.ReluOp.make(y)).result
    y = b.insert(g.GlobalAvgPoolOp.make(y)).result
    y = b.insert(g.ReshapeOp.make(y, shape=[2, 4])).result
    fc = const(b, rng.standard_normal((5, 4)).astype(np.float32), "fc_w")
    fc = b.insert(g.TransposeOp.make(fc, perm=[1, 0])).result
    steps = b.insert(g.ConcatOp.make([const(b, np.int64([1, 2])), const(b, np.int64([3, 4, 5]))],
                                     axis=0)).result
    bias = b.insert(g.CastOp.make(steps, to=f32)).result
    y = b.insert(g.MatMulOp.make(y, fc)).result
    return [b.insert(g.AddOp.make(y, bias)).result, steps]


def test_folding_preserves_numerics():
    before = build([t(2, 3, 6, 6)], small_model)
    after = run(build([t(2, 3, 6, 6)], small_model), FoldConstantsPass(),
                DeadCodeEliminationPass())
    assert "graph.transpose" not in op_names(after) and "graph.sqrt" not in op_names(after)
    assert len(op_names(after)) < len(op_names(before))
    assert_same_numerics(before, after)


# --------------------------------------------------------------------------------------------
# graph-dce
# --------------------------------------------------------------------------------------------


def test_dce_removes_dead_chains_and_constants_only():
    def body(b: Builder, args):
        live = b.insert(g.ReluOp.make(args[0])).result
        dead = b.insert(g.ExpOp.make(live)).result
        b.insert(g.AddOp.make(dead, const(b, np.ones(3, np.float32))))
        const(b, np.zeros((2, 2), np.float32))
        parts = b.insert(g.SplitOp.make(live, axis=0, sizes=[1, 2])).results
        return [parts[0]]

    module = run(build([t(3)], body), DeadCodeEliminationPass())
    assert op_names(module) == ["graph.relu", "graph.split"]


# --------------------------------------------------------------------------------------------
# graph-canonicalize
# --------------------------------------------------------------------------------------------

CANONICALIZE_CASES: list[tuple[str, list[TensorType], Body, list[str]]] = [
    ("reshape_of_reshape", [t(2, 3, 4)],
     lambda b, a: [b.insert(g.ReshapeOp.make(b.insert(g.ReshapeOp.make(a[0], shape=[6, 4])).result,
                                              shape=[24])).result],
     ["graph.reshape"]),
    ("reshape_same_type", [t(2, 3)],
     lambda b, a: [b.insert(g.ReshapeOp.make(a[0], shape=[2, 3])).result], []),
    ("expand_same_type", [t(2, 3)],
     lambda b, a: [b.insert(g.ExpandOp.make(a[0], shape=[2, 3])).result], []),
    ("expand_broadcasts", [t(3, 1)],
     lambda b, a: [b.insert(g.ExpandOp.make(a[0], shape=[3, 4])).result], ["graph.expand"]),
    ("cast_same_type", [t(4)], lambda b, a: [b.insert(g.CastOp.make(a[0], to=f32)).result], []),
    ("cast_other_type", [t(4)],
     lambda b, a: [b.insert(g.CastOp.make(a[0], to=i64)).result], ["graph.cast"]),
    ("transpose_pair", [t(2, 3, 4)],
     lambda b, a: [b.insert(g.TransposeOp.make(
         b.insert(g.TransposeOp.make(a[0], perm=[2, 0, 1])).result, perm=[0, 2, 1])).result],
     ["graph.transpose"]),
    ("transpose_pair_cancels", [t(2, 3, 4)],
     lambda b, a: [b.insert(g.TransposeOp.make(
         b.insert(g.TransposeOp.make(a[0], perm=[2, 0, 1])).result, perm=[1, 2, 0])).result],
     []),
    ("identity_transpose", [t(3, 3)],
     lambda b, a: [b.insert(g.TransposeOp.make(a[0], perm=[0, 1])).result], []),
    ("swap_transpose", [t(3, 3)],
     lambda b, a: [b.insert(g.TransposeOp.make(a[0], perm=[1, 0])).result], ["graph.transpose"]),
    ("add_zero", [t(2, 3)],
     lambda b, a: [b.insert(g.AddOp.make(const(b, np.zeros(3, np.float32)), a[0])).result], []),
    ("sub_zero", [t(2, 3)],
     lambda b, a: [b.insert(g.SubOp.make(a[0], const(b, np.zeros((1, 1), np.float32)))).result],
     []),
    ("zero_sub", [t(3)],
     lambda b, a: [b.insert(g.SubOp.make(const(b, np.zeros(3, np.float32)), a[0])).result],
     ["graph.constant", "graph.sub"]),
    ("add_zero_broadcasts", [t(3)],
     lambda b, a: [b.insert(g.AddOp.make(a[0], const(b, np.zeros((2, 3), np.float32)))).result],
     ["graph.constant", "graph.add"]),
    ("add_non_splat_with_zero", [t(2)],
     lambda b, a: [b.insert(g.AddOp.make(a[0], const(b, np.float32([0, 1])))).result],
     ["graph.constant", "graph.add"]),
    ("mul_one", [t(2, 3)],
     lambda b, a: [b.insert(g.MulOp.make(const(b, np.ones(1, np.float32)), a[0])).result], []),
    ("div_one", [t(2, 3)],
     lambda b, a: [b.insert(g.DivOp.make(a[0], const(b, np.ones(3, np.float32)))).result], []),
    ("one_div", [t(3)],
     lambda b, a: [b.insert(g.DivOp.make(const(b, np.ones(3, np.float32)), a[0])).result],
     ["graph.constant", "graph.div"]),
    ("mul_two", [t(3)],
     lambda b, a: [b.insert(g.MulOp.make(a[0], const(b, np.full(3, 2, np.float32)))).result],
     ["graph.constant", "graph.mul"]),
    ("full_slice", [t(4, 1)],
     lambda b, a: [b.insert(g.SliceOp.make(a[0], starts=[0, 0], ends=[4, -1],
                                           steps=[1, -1])).result], []),
    ("reversing_slice", [t(4)],
     lambda b, a: [b.insert(g.SliceOp.make(a[0], starts=[3], ends=[-1], steps=[-1])).result],
     ["graph.slice"]),
    ("single_concat", [t(2, 3)],
     lambda b, a: [b.insert(g.ConcatOp.make([a[0]], axis=1)).result], []),
    ("double_concat", [t(2, 3)],
     lambda b, a: [b.insert(g.ConcatOp.make([a[0], a[0]], axis=1)).result], ["graph.concat"]),
    ("zero_pad", [t(2, 3)],
     lambda b, a: [b.insert(g.PadOp.make(a[0], pads=[0, 0, 0, 0], mode="reflect")).result], []),
    ("real_pad", [t(2, 3)],
     lambda b, a: [b.insert(g.PadOp.make(a[0], pads=[0, 1, 0, 0])).result], ["graph.pad"]),
    ("unit_tile", [t(2, 3)],
     lambda b, a: [b.insert(g.TileOp.make(a[0], repeats=[1, 1])).result], []),
    ("real_tile", [t(2, 3)],
     lambda b, a: [b.insert(g.TileOp.make(a[0], repeats=[1, 2])).result], ["graph.tile"]),
]


@pytest.mark.parametrize("name, args, body, remaining", CANONICALIZE_CASES,
                         ids=[c[0] for c in CANONICALIZE_CASES])
def test_canonicalize_pattern(name: str, args: list[TensorType], body: Body,
                              remaining: list[str]):
    before = build(args, body)
    after = run(build(args, body), CanonicalizePass())
    assert op_names(after) == remaining
    assert_same_numerics(before, after)


def test_canonicalize_and_dce_clean_up_an_exported_pattern():
    """The shape of what exporters emit: x -> reshape -> reshape -> transpose pair -> * 1
    -> + 0 -> identity slice -> single concat; a shared intermediate keeps its producer."""

    def body(b: Builder, args):
        x = b.insert(g.ReshapeOp.make(args[0], shape=[6, 4])).result
        shared = b.insert(g.ReshapeOp.make(x, shape=[2, 12])).result
        y = b.insert(g.ReshapeOp.make(shared, shape=[4, 6])).result
        y = b.insert(g.TransposeOp.make(y, perm=[1, 0])).result
        y = b.insert(g.TransposeOp.make(y, perm=[1, 0])).result
        y = b.insert(g.MulOp.make(y, const(b, np.ones((1, 1), np.float32)))).result
        y = b.insert(g.AddOp.make(y, const(b, np.zeros(6, np.float32)))).result
        y = b.insert(g.SliceOp.make(y, starts=[0, 0], ends=[4, 6], steps=[1, 1])).result
        y = b.insert(g.ConcatOp.make([y], axis=0)).result
        z = b.insert(g.ExpOp.make(shared)).result
        return [y, z]

    before = build([t(2, 3, 4)], body)
    after = run(build([t(2, 3, 4)], body), CanonicalizePass(), DeadCodeEliminationPass())
    assert op_names(after) == ["graph.reshape", "graph.reshape", "graph.exp"]
    assert_same_numerics(before, after)


def test_full_pipeline_on_a_small_model():
    before = build([t(2, 3, 6, 6)], small_model)
    after = run(build([t(2, 3, 6, 6)], small_model), FoldConstantsPass(), CanonicalizePass(),
                DeadCodeEliminationPass())
    names = op_names(after)
    assert not any(n in names for n in ("graph.transpose", "graph.sqrt", "graph.cast"))
    assert all(op.results[0].uses for op in after.walk() if isinstance(op, g.ConstantOp))
    assert_same_numerics(before, after)


def test_passes_are_registered_under_their_names():
    passes = all_passes()
    for cls in (FoldConstantsPass, DeadCodeEliminationPass, CanonicalizePass):
        assert passes[cls.name]() is cls
    spec = FoldConstantsPass(max_elements=16).pipeline_pass_spec()
    assert FoldConstantsPass.from_pass_spec(spec) == FoldConstantsPass(max_elements=16)
