"""Schedules change HOW a kernel runs, never WHAT it computes.

Each case lowers a small graph to te, attaches random schedules (splits by dividing and
non-dividing factors, reorders that move reductions outside spatial loops, hints) to every
compute, builds native code and compares with the default schedule's output.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, TensorType, f32
from xdsl.ir import Block, Region

from minitvm.compiler import build, lower_to_te
from minitvm.dialects import graph as g
from minitvm.dialects import te
from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.dialects.te_nest import default_nest
from minitvm.errors import MinitvmError
from minitvm.runtime import TensorSpec


def module_of(arg_shapes, body) -> ModuleOp:
    block = Block(arg_types=[TensorType(f32, list(s)) for s in arg_shapes])
    results = body(block, block.args)
    block.add_op(func.ReturnOp(*results))
    fn = func.FuncOp("main", (block.arg_types, [r.type for r in results]), Region(block))
    return ModuleOp([fn])


def insert(block: Block, op):
    block.add_op(op)
    return op.results


def specs(types) -> list[TensorSpec]:
    return [
        TensorSpec(f"t{n}", tuple(t.get_shape()), numpy_dtype_of(t.element_type))
        for n, t in enumerate(types)
    ]


def random_schedule(compute: te.ComputeOp, rng: random.Random) -> list:
    """A valid random list of primitives for `compute`, tracked on its loop nest."""
    nest = default_nest(compute)
    primitives = []
    for _ in range(rng.randint(1, 4)):
        loop = rng.choice(nest.loops)
        factor = rng.randint(1, max(1, loop.extent + 1))
        primitive = te.split(loop.name, factor)
        nest.apply(primitive)
        primitives.append(primitive)
    names = [lp.name for lp in nest.loops]
    picked = rng.sample(names, rng.randint(2, len(names))) if len(names) > 1 else names
    primitives.append(te.reorder(*picked))
    for hint in (te.vectorize, te.unroll, te.parallel):
        primitives.append(hint(rng.choice(names)))
    return primitives


def run(module: ModuleOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
    main = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main")
    ins, outs = specs(main.function_type.inputs), specs(main.function_type.outputs)
    exe = build(module, ins, outs)
    return exe.run({s.name: x for s, x in zip(ins, inputs)})


CASES = {
    "matmul": ([(6, 10), (10, 7)], lambda b, a: insert(b, g.MatMulOp.make(a[0], a[1]))),
    "conv": (
        [(1, 3, 7, 6), (4, 3, 3, 3)],
        lambda b, a: insert(b, g.ConvOp.make(a[0], a[1], None, pads=[1, 0, 1, 2], strides=[2, 1])),
    ),
    "softmax": ([(5, 9)], lambda b, a: insert(b, g.SoftmaxOp.make(a[0], axis=1))),
    "reduce": ([(4, 5, 6)], lambda b, a: insert(b, g.ReduceMaxOp.make(a[0], axes=[0, 2]))),
    "pool": (
        [(1, 2, 7, 7)],
        lambda b, a: insert(b, g.AvgPoolOp.make(a[0], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("seed", range(3))
def test_random_schedules_keep_results(case: str, seed: int):
    shapes, body = CASES[case]
    rng = np.random.default_rng(seed)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]

    reference = module_of(shapes, body)
    lower_to_te(reference)
    expected = run(reference, inputs)

    scheduled = module_of(shapes, body)
    lower_to_te(scheduled)
    pick = random.Random(seed)
    computes = [op for op in scheduled.walk() if isinstance(op, te.ComputeOp)]
    for compute in computes:
        compute.attributes[te.SCHEDULE_ATTR] = ArrayAttr(random_schedule(compute, pick))
    got = run(scheduled, inputs)
    for e, r in zip(expected, got, strict=True):
        np.testing.assert_allclose(r, e, rtol=1e-5, atol=1e-6)


def test_schedule_naming_an_unknown_loop_is_a_clean_error():
    module = module_of([(4, 4)], lambda b, a: insert(b, g.ReluOp.make(a[0])))
    lower_to_te(module)
    compute = next(op for op in module.walk() if isinstance(op, te.ComputeOp))
    compute.attributes[te.SCHEDULE_ATTR] = ArrayAttr([te.vectorize("i7")])
    with pytest.raises(MinitvmError, match="schedule: no loop named 'i7' \\(loops: i0, i1\\)"):
        run(module, [np.zeros((4, 4), np.float32)])


def conv_module() -> ModuleOp:
    return module_of(
        [(1, 3, 9, 8), (4, 3, 3, 3), (4,)],
        lambda b, a: insert(b, g.ConvOp.make(a[0], a[1], a[2], pads=[1, 1, 1, 1])),
    )


@pytest.mark.parametrize("axis", ["i1", "i2"])
def test_inline_and_compute_at_keep_results(axis: str):
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in [(1, 3, 9, 8), (4, 3, 3, 3), (4,)]]
    reference = conv_module()
    lower_to_te(reference)
    expected = run(reference, inputs)

    module = conv_module()
    lower_to_te(module)
    pad, conv, bias = [op for op in module.walk() if isinstance(op, te.ComputeOp)]
    assert pad.reduce_kind is None and conv.reduce_kind is not None and bias.reduce_kind is None
    conv.properties["name"] = te.StringAttr("conv")
    pad.attributes[te.SCHEDULE_ATTR] = ArrayAttr([te.inline()])
    bias.attributes[te.SCHEDULE_ATTR] = ArrayAttr([te.compute_at("conv", axis)])
    got = run(module, inputs)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-6)


def test_compute_at_on_a_reduction_loop_is_a_clean_error():
    module = conv_module()
    lower_to_te(module)
    _, conv, bias = [op for op in module.walk() if isinstance(op, te.ComputeOp)]
    conv.properties["name"] = te.StringAttr("conv")
    bias.attributes[te.SCHEDULE_ATTR] = ArrayAttr([te.compute_at("conv", "r0")])
    with pytest.raises(MinitvmError, match="loop 'r0' is not an unsplit spatial axis"):
        run(module, [np.zeros(s, np.float32) for s in [(1, 3, 9, 8), (4, 3, 3, 3), (4,)]])


def test_gemm_default_schedule_blocks_only_shapes_it_divides():
    from minitvm.schedules.base import LANES, VECTOR_REGISTERS
    from minitvm.schedules.gemm import GemmTemplate

    def product(m: int, k: int, n: int) -> te.ComputeOp:
        module = module_of([(m, k), (k, n)], lambda b, a: insert(b, g.MatMulOp.make(a[0], a[1])))
        lower_to_te(module)
        return next(op for op in module.walk() if isinstance(op, te.ComputeOp))

    blocked = product(8, 512, 128)
    # AVX-512's 6 x 64 block (AVX2's 6 x 16) evened out over 8 rows: rows by 4, columns by
    # 64 (then into vectors of 16) or 16; k by 256
    cols = {32: 64, 16: 16}[VECTOR_REGISTERS]
    vectors = [te.split("i1.i", LANES)] if cols > LANES else []
    assert [p for p in blocked.schedule if isinstance(p, te.SplitAttr)] == [
        te.split("i0", 4), te.split("i1", cols), *vectors, te.split("r0", 256),
    ]  # fmt: skip
    unblocked = product(3, 5, 10)  # neither 4 | 3 rows nor 16 | 10 columns
    assert GemmTemplate().space(unblocked) is None and not unblocked.schedule
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in [(8, 512), (512, 128)])
    module = module_of([(8, 512), (512, 128)], lambda blk, x: insert(blk, g.MatMulOp.make(x[0], x[1])))
    lower_to_te(module)
    (got,) = run(module, [a, b])
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)
