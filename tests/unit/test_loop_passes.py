"""loop-unroll and loop-vectorize: the IR they make, and numerics through the whole pipeline.

Graph-level cases lower a small graph to te, attach a schedule with unroll/vectorize hints,
check what the loop passes made of it (so a test cannot pass by leaving the loop scalar) and
compare the built kernel's output with numpy. Loop-level cases run hand-written loop IR
through the passes and the JIT. Random schedules with hints must not change results.
"""

from __future__ import annotations

import ctypes
import random
import re

import numpy as np
import pytest
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, TensorType, VectorType, f32, i32
from xdsl.ir import Attribute, Block, Region
from xdsl.utils.exceptions import VerifyException

from minitvm.compiler import build, lower_to_te, lower_whole_module
from minitvm.dialects import graph as g
from minitvm.dialects import loop, te
from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.dialects.te_nest import default_nest
from minitvm.ir import make_context, parse_module
from minitvm.lowering.jit import JitModule, compile_llvm
from minitvm.lowering.loop_to_llvm import lower_to_llvm
from minitvm.lowering.te_to_loop import ConvertTeToLoopPass
from minitvm.passes.loop.promote_accumulators import PromoteAccumulatorsPass
from minitvm.passes.loop.unroll import UnrollPass
from minitvm.passes.loop.vectorize import NotVectorizable, VectorizePass, vector_pieces
from minitvm.runtime import TensorSpec
from minitvm.schedules.base import VECTOR_REGISTERS

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def graph_module(arg_types: list[Attribute], body) -> ModuleOp:
    """@main(args) returning what `body(block, args)` appends (graph ops' results)."""
    block = Block(arg_types=arg_types)
    results = body(block, block.args)
    block.add_op(func.ReturnOp(*results))
    fn = func.FuncOp("main", (block.arg_types, [r.type for r in results]), Region(block))
    return ModuleOp([fn])


def add(block: Block, op):
    block.add_op(op)
    return op.results


def T(*shape: int, element: Attribute = f32) -> TensorType:
    return TensorType(element, list(shape))


def te_module(arg_types, body, schedules: dict[int, list] | None = None) -> ModuleOp:
    """The graph lowered to te, schedule n attached to the n-th compute (in walk order)."""
    module = graph_module(arg_types, body)
    lower_to_te(module)
    computes = [op for op in module.walk() if isinstance(op, te.ComputeOp)]
    for n, schedule in (schedules or {}).items():
        computes[n].attributes[te.SCHEDULE_ATTR] = ArrayAttr(schedule)
    return module


def schedule_unscheduled(module: ModuleOp, schedule: list) -> None:
    """Give `schedule` to every compute the fusion rules left unscheduled."""
    for compute in (op for op in module.walk() if isinstance(op, te.ComputeOp)):
        if not compute.schedule:
            compute.attributes[te.SCHEDULE_ATTR] = ArrayAttr(schedule)


def loop_ir(module: ModuleOp) -> ModuleOp:
    """A copy of a te module taken through convert-te-to-loop, loop-unroll, loop-vectorize."""
    copy = module.clone()
    ctx = make_context()
    for p in (ConvertTeToLoopPass(), UnrollPass(), VectorizePass()):
        p.apply(ctx, copy)
    copy.verify()
    return copy


def op_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk()]


def hints_left(module: ModuleOp) -> list[str]:
    return [
        hint
        for op in module.walk()
        if isinstance(op, loop.ForOp)
        for hint in (loop.UNROLL_HINT, loop.VECTORIZE_HINT)
        if hint in op.attributes
    ]


def run_te(module: ModuleOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
    main = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    )

    def specs(types) -> list[TensorSpec]:
        return [
            TensorSpec(f"t{n}", tuple(t.get_shape()), numpy_dtype_of(t.element_type))
            for n, t in enumerate(types)
        ]

    ins, outs = specs(main.function_type.inputs), specs(main.function_type.outputs)
    exe = build(module, ins, outs, num_threads=1)
    return exe.run({s.name: x for s, x in zip(ins, inputs)})


def jit_loop(text: str, *pipeline) -> tuple[ModuleOp, JitModule]:
    """Loop IR text through `pipeline`, then to native code; (the module before lowering, jit)."""
    module = parse_module(text)
    ctx = make_context()
    for p in pipeline:
        p.apply(ctx, module)
    module.verify()
    before = module.clone()
    lowered, _ = lower_to_llvm(module)
    return before, compile_llvm(lowered)


def call(jit: JitModule, name: str, *arrays: np.ndarray) -> None:
    fn = jit.function(name, None, [ctypes.c_void_p] * len(arrays))
    fn(*(a.ctypes.data for a in arrays))


RNG = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# --------------------------------------------------------------------------------------------
# Vectorized elementwise ops, through the whole pipeline
# --------------------------------------------------------------------------------------------

# name -> (graph body, numpy reference, op the vector code must contain)
ELEMENTWISE = {
    "leaky_relu": (
        lambda b, a: add(b, g.LeakyReluOp.make(a[0], alpha=0.1)),
        lambda x, y: np.where(x >= 0, x, np.float32(0.1) * x),
        "loop.vselect",
    ),
    "exp": (lambda b, a: add(b, g.ExpOp.make(a[0])), lambda x, y: np.exp(x), "math.exp"),
    "max": (lambda b, a: add(b, g.MaxOp.make(a[0], a[1])), np.maximum, "arith.maximumf"),
    "where_greater": (
        lambda b, a: add(b, g.WhereOp.make(add(b, g.GreaterOp.make(a[0], a[1]))[0], a[0], a[1])),
        lambda x, y: np.where(x > y, x, y),
        "loop.vcmpf",
    ),
    "greater": (  # a bool result: vector<N x i1> stored as bytes
        lambda b, a: add(b, g.GreaterOp.make(a[0], a[1])),
        lambda x, y: x > y,
        "loop.vcmpf",
    ),
    "sigmoid": (
        lambda b, a: add(b, g.SigmoidOp.make(a[0])),
        lambda x, y: 1 / (1 + np.exp(-x)),
        "math.exp",
    ),
}


@pytest.mark.parametrize(
    "shape", [(5, 32), (2, 48), (5, 8)], ids=["32_lanes", "3x16_strips", "8_lanes"]
)
@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_vectorized_elementwise(name: str, shape: tuple[int, int]) -> None:
    body, reference, marker = ELEMENTWISE[name]
    module = te_module([T(*shape), T(*shape)], body)
    schedule_unscheduled(module, [te.vectorize("i1")])
    vector = loop_ir(module)
    names = op_names(vector)
    assert "loop.vload" in names and "loop.vstore" in names and marker in names, vector
    assert not hints_left(vector)
    trips = [op.trip_count for op in vector.walk() if isinstance(op, loop.ForOp)]
    assert shape[1] not in trips and (3 in trips) == (shape[1] == 48), trips  # 48 = 3 x 16
    x, y = randn(*shape), randn(*shape)
    (got,) = run_te(module, [x, y])
    np.testing.assert_allclose(got, reference(x, y), rtol=1e-6, atol=1e-7)


def test_vectorized_cast_from_int() -> None:
    module = te_module([T(4, 16, element=i32)], lambda b, a: add(b, g.CastOp.make(a[0], to=f32)),
                       {0: [te.vectorize("i1")]})  # fmt: skip
    assert "loop.vcast" in op_names(loop_ir(module))
    x = RNG.integers(-1000, 1000, (4, 16)).astype(np.int32)
    (got,) = run_te(module, [x])
    np.testing.assert_array_equal(got, x.astype(np.float32))


def test_vectorized_broadcast_loads() -> None:
    # x[i, j] + row[i, 0] + col[j]: row is the same for every lane (scalar load, broadcast),
    # col walks the lanes (vector load).
    def body(b, a):
        partial = add(b, g.AddOp.make(a[0], a[1]))[0]
        return add(b, g.AddOp.make(partial, a[2]))

    module = te_module([T(4, 16), T(4, 1), T(16)], body)
    schedule_unscheduled(module, [te.vectorize("i1")])
    vector = loop_ir(module)
    names = op_names(vector)
    assert names.count("loop.broadcast") >= 1 and names.count("loop.vload") >= 2, vector
    assert not hints_left(vector)
    x, row, col = randn(4, 16), randn(4, 1), randn(16)
    (got,) = run_te(module, [x, row, col])
    np.testing.assert_allclose(got, x + row + col, rtol=1e-6)


# --------------------------------------------------------------------------------------------
# Reductions along the vector axis
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [16, 64, 8], ids=["one_vector", "4_strips", "8_lanes"])
def test_vectorized_sum_and_max_reductions(width: int) -> None:
    def body(b, a):
        total = add(b, g.ReduceSumOp.make(a[0], axes=[1]))[0]
        peak = add(b, g.ReduceMaxOp.make(a[0], axes=[1]))[0]
        return [total, peak]

    schedule = [te.vectorize("r0")]
    module = te_module([T(5, width)], body, {0: schedule, 1: schedule})
    vector = loop_ir(module)
    assert op_names(vector).count("loop.vreduce") == 2, vector
    assert not hints_left(vector)
    x = randn(5, width)
    total, peak = run_te(module, [x])
    np.testing.assert_allclose(total, x.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(peak, x.max(axis=1, keepdims=True))


def test_vectorized_softmax() -> None:
    # max and sum reductions vectorized along the row, then the normalization along the row.
    module = te_module(
        [T(4, 32)],
        lambda b, a: add(b, g.SoftmaxOp.make(a[0], axis=1)),
        {0: [te.vectorize("r0")], 1: [te.vectorize("r0")], 2: [te.vectorize("i1")]},
    )
    vector = loop_ir(module)
    names = op_names(vector)
    assert names.count("loop.vreduce") == 2 and "math.exp" in names and not hints_left(vector)
    x = randn(4, 32)
    (got,) = run_te(module, [x])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_sum_of_exactly_lanes_keeps_the_scalar_order() -> None:
    # One vector body: loop.vreduce "addf" adds init, lane 0, lane 1, ... like the scalar loop.
    x = (randn(3, 16) * 1e4).astype(np.float32)
    expected = run_te(
        te_module([T(3, 16)], lambda b, a: add(b, g.ReduceSumOp.make(a[0], axes=[1]))), [x]
    )
    got = run_te(
        te_module([T(3, 16)], lambda b, a: add(b, g.ReduceSumOp.make(a[0], axes=[1])),
                  {0: [te.vectorize("r0")]}),
        [x],
    )  # fmt: skip
    np.testing.assert_array_equal(got[0], expected[0])


# --------------------------------------------------------------------------------------------
# Trip counts whole vectors do not cover, and fused loops
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trip", "pieces"),
    [
        (4, [(4, 1)]), (5, [(4, 1), (1, 1)]), (7, [(4, 1), (1, 3)]), (12, [(8, 1), (4, 1)]),
        (13, [(8, 1), (4, 1), (1, 1)]), (32, [(32, 1)]), (48, [(16, 3)]), (49, [(16, 3), (1, 1)]),
        (196, [(16, 12), (4, 1)]), (1000, [(16, 62), (8, 1)]),
    ],
)  # fmt: skip
def test_vector_pieces_cover_the_trip_count_in_order(trip: int, pieces: list) -> None:
    assert vector_pieces(trip) == pieces
    assert sum(lanes * bodies for lanes, bodies in pieces) == trip


def test_a_loop_shorter_than_a_vector_stays_scalar() -> None:
    with pytest.raises(NotVectorizable, match="3 iterations are fewer than 4 lanes"):
        vector_pieces(3)


@pytest.mark.parametrize("width", [5, 13, 37, 49, 196])
def test_tails_compute_elementwise_ops_and_reductions(width: int) -> None:
    """Strips, then smaller vectors, then scalar iterations: the elementwise result is
    exact, the sums (reassociated) close, the maxima exact."""

    def body(b, a):
        total = add(b, g.ReduceSumOp.make(a[0], axes=[1]))[0]
        peak = add(b, g.ReduceMaxOp.make(a[0], axes=[1]))[0]
        return [total, peak]

    reductions = te_module([T(3, width)], body, {0: [te.vectorize("r0")], 1: [te.vectorize("r0")]})
    sigmoid = te_module([T(3, width), T(3, width)], ELEMENTWISE["sigmoid"][0])
    schedule_unscheduled(sigmoid, [te.vectorize("i1")])
    for module, vectors in ((reductions, 2), (sigmoid, 1)):
        vector = loop_ir(module)
        assert not hints_left(vector)
        names = op_names(vector)
        assert names.count("loop.vstore") + names.count("loop.vreduce") >= vectors
    x = randn(3, width)
    total, peak = run_te(reductions, [x])
    np.testing.assert_allclose(total, x.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(peak, x.max(axis=1, keepdims=True))
    (got,) = run_te(sigmoid, [x, x])
    np.testing.assert_allclose(got, 1 / (1 + np.exp(-x)), rtol=1e-6, atol=1e-7)


def test_a_fused_pair_of_loops_is_vectorized_across_row_ends() -> None:
    """x[c, h, w] * 2 + y[c, h, w] over h and w fused into one loop of 7 x 7 = 49 pixels
    (h = p / 7, w = p % 7): vector accesses that run over row ends, and a scalar tail."""

    def body(b, a):
        doubled = add(b, g.AddOp.make(a[0], a[0]))[0]
        return add(b, g.AddOp.make(doubled, a[1]))

    module = te_module([T(3, 7, 7), T(3, 7, 7)], body)
    schedule_unscheduled(module, [te.fuse("i1", "i2"), te.vectorize(te.fused_name("i1", "i2"))])
    vector = loop_ir(module)
    names = op_names(vector)
    assert not hints_left(vector) and names.count("loop.vstore") == 1, vector  # 3 x 16 strips
    assert "arith.divui" in names and "arith.remui" in names
    x, y = randn(3, 7, 7), randn(3, 7, 7)
    (got,) = run_te(module, [x, y])
    np.testing.assert_allclose(got, 2 * x + y, rtol=1e-6)


# --------------------------------------------------------------------------------------------
# Unrolling
# --------------------------------------------------------------------------------------------


def _matmul(b, a):
    return add(b, g.MatMulOp.make(a[0], a[1]))


@pytest.mark.parametrize(
    "schedule, unrolled_trips",
    [
        ([te.reorder("i0", "i1", "r0"), te.unroll("r0")], {10}),
        ([te.reorder("i0", "i1", "r0"), te.split("r0", 5), te.unroll("r0.i")], {5}),
        ([te.reorder("i0", "i1", "r0"), te.split("r0", 5), te.unroll("r0.o"), te.unroll("r0.i")],
         {2, 5}),
        ([te.reorder("i0", "i1", "r0"), te.split("i1", 7), te.unroll("i1.i"), te.unroll("i0")],
         {6, 7}),
    ],
    ids=["reduction", "inner_of_split", "both_of_split", "spatial"],
)  # fmt: skip
def test_unrolled_loops_with_iter_args(schedule: list, unrolled_trips: set[int]) -> None:
    # C = A (6x10) @ B (10x7), the reduction innermost: carried in registers (iter_args).
    module = te_module([T(6, 10), T(10, 7)], _matmul, {0: schedule})
    unrolled = loop_ir(module)
    assert not hints_left(unrolled)
    trips = [op.trip_count for op in unrolled.walk() if isinstance(op, loop.ForOp)]
    assert trips and not unrolled_trips & set(trips), trips
    a, b = randn(6, 10), randn(10, 7)
    (got,) = run_te(module, [a, b])
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)


def test_unroll_chains_carried_values_and_skips_long_loops() -> None:
    text = """
    func.func @k(%a: memref<3x70xf32>, %out: memref<3xf32>) {
      loop.for %i = 0 to 3 step 1 {
        %zero = arith.constant 0.0 : f32
        %s, %n = loop.for %j = 0 to 70 step 1 iter_args(%acc = %zero, %cnt = %zero) -> (f32, f32) {
          %x = loop.load %a[%i, %j] : memref<3x70xf32> -> f32
          %acc1 = arith.addf %acc, %x : f32
          %one = arith.constant 1.0 : f32
          %cnt1 = arith.addf %cnt, %one : f32
          loop.yield %acc1, %cnt1 : f32, f32
        } {unroll}
        %mean = arith.divf %s, %n : f32
        loop.store %mean, %out[%i] : f32, memref<3xf32>
      } {unroll}
      func.return
    }
    """
    for max_trip, loops_left in ((64, 3), (70, 0)):  # 3 copies of the long loop, or none
        module, jit = jit_loop(text, UnrollPass(max_trip_count=max_trip))
        assert op_names(module).count("loop.for") == loops_left and not hints_left(module)
        a = randn(3, 70)
        out = np.zeros(3, np.float32)
        call(jit, "k", a, out)
        np.testing.assert_allclose(out, a.mean(axis=1), rtol=1e-5, atol=1e-6)


def test_unrolling_an_empty_loop_forwards_its_inits() -> None:
    text = """
    func.func @k(%out: memref<f32>) {
      %two = arith.constant 2.0 : f32
      %r = loop.for %j = 4 to 4 step 1 iter_args(%acc = %two) -> (f32) {
        %x = arith.addf %acc, %acc : f32
        loop.yield %x : f32
      } {unroll}
      loop.store %r, %out[] : f32, memref<f32>
      func.return
    }
    """
    module, jit = jit_loop(text, UnrollPass())
    assert "loop.for" not in op_names(module)
    out = np.zeros((), np.float32)
    call(jit, "k", out)
    assert out == 2.0


# --------------------------------------------------------------------------------------------
# Register blocking: split + reorder + unroll + vectorize
# --------------------------------------------------------------------------------------------

#: C[i, j] += A[i, k] * B[k, j] in blocks of BLOCK_ROWS x BLOCK_COLS: 4 x 64 with AVX-512's
#: 32 registers (16 vector accumulators of 16 lanes), 4 x 16 with AVX2's 16 (4 vectors of 16
#: lanes, 8 ymm registers), so that the block stays in the registers.
BLOCK_ROWS, BLOCK_COLS = 4, (64 if VECTOR_REGISTERS >= 32 else 16)
#: The block's copies of the k loop's body: one per row and 16-lane vector of the block.
BLOCK_COPIES = BLOCK_ROWS * BLOCK_COLS // 16
BLOCKED_GEMM = [
    te.split("i0", BLOCK_ROWS), te.split("i1", BLOCK_COLS), te.split("i1.i", 16),
    te.reorder("i1.o", "i0.o", "r0", "i0.i", "i1.i.o", "i1.i.i"),
    te.unroll("i0.i"), te.unroll("i1.i.o"), te.vectorize("i1.i.i"),
]  # fmt: skip


def blocked_matmul(n: int) -> ModuleOp:
    """An n x n matmul of two inputs, its product scheduled BLOCKED_GEMM (where this CPU
    packs B at run time, as with AVX2, the product is the second compute)."""
    module = te_module([T(n, n), T(n, n)], _matmul)
    product = next(c for c in module.walk() if isinstance(c, te.ComputeOp) and c.extents)
    product.attributes[te.SCHEDULE_ATTR] = ArrayAttr(BLOCKED_GEMM)
    return module


def _k_loop(module: ModuleOp) -> loop.ForOp:
    """The loop whose body holds the fmas."""
    return next(
        op for op in module.walk()
        if isinstance(op, loop.ForOp) and any(o.name == "math.fma" for o in op.body.block.ops)
    )  # fmt: skip


def test_register_blocked_gemm_matches_numpy() -> None:
    n = 128
    module = blocked_matmul(n)
    vector = loop_ir(module)
    body = [op.name for op in _k_loop(vector).body.block.ops]
    copies = BLOCK_COPIES
    assert body.count("math.fma") == copies and body.count("loop.vstore") == copies
    # Each copy (4 x 4 with AVX-512) loads its C accumulator, its vector of B's row and its
    # scalar of A's column (LLVM merges the repeated loads of B and A).
    assert body.count("loop.vload") == 2 * copies
    assert body.count("loop.load") == copies and body.count("loop.broadcast") == copies
    assert not hints_left(vector)
    a, b = randn(n, n), randn(n, n)
    lowered = lower_whole_module(module.clone())  # what build() compiles, to vector fmas
    (got,) = run_te(module, [a, b])
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)
    fmas = [op for op in lowered.walk() if isinstance(op, llvm.FMAOp)]
    assert len(fmas) == copies and all(str(op.res.type) == "vector<16xf32>" for op in fmas)


def test_llvm_keeps_the_blocked_accumulators_in_registers() -> None:
    """With noalias kernel arguments, LLVM's LICM promotes the vload/vstore of C in the k loop
    to registers: the loop holding the fmas loads only B (and A's scalars) and stores nothing."""
    n = 64
    module = loop_ir(blocked_matmul(n))
    lowered, _ = lower_to_llvm(module)
    ir = compile_llvm(lowered).optimized_ir()
    blocks = re.split(r"\n(?=[\w.]+:)", ir)
    hot = max(blocks, key=lambda block: block.count("@llvm.fma.v16f32"))
    fmas = hot.count("@llvm.fma.v16f32")
    assert fmas >= BLOCK_COPIES
    assert "store " not in hot
    # B's vectors only, each feeding a row's fma
    assert hot.count("load <16 x float>") * BLOCK_ROWS == fmas


def test_a_batched_blocked_matmul_carries_its_accumulators() -> None:
    """[2, 8, 64] x [2, 64, 64] (K = N, as in a Winograd conv's GEMM), blocked 4 x 64:
    loop-promote-accumulators carries the block's 16 vectors through the k loop (LLVM's
    LICM left this shape's accumulators in memory), and the result is numpy's."""
    schedule = [
        te.split("i1", 4), te.split("i2", 16),
        te.reorder("i0", "i1.o", "r0", "i1.i", "i2.o", "i2.i"),
        te.unroll("i1.i"), te.unroll("i2.o"), te.vectorize("i2.i"),
    ]  # fmt: skip
    module = te_module([T(2, 8, 64), T(2, 64, 64)], _matmul, {0: schedule})
    promoted = loop_ir(module)
    PromoteAccumulatorsPass().apply(make_context(), promoted)
    promoted.verify()
    k_loop = _k_loop(promoted)
    assert len(k_loop.inits) == 16 and all(isinstance(v.type, VectorType) for v in k_loop.inits)
    assert "loop.vstore" not in [op.name for op in k_loop.walk()]
    a, b = randn(2, 8, 64), randn(2, 64, 64)
    (got,) = run_te(module, [a, b])
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)


# --------------------------------------------------------------------------------------------
# Loop-level: the new ops' lowering, and what stays scalar
# --------------------------------------------------------------------------------------------

REDUCE_KINDS_F = ["addf", "mulf", "maximumf", "minimumf", "maxnumf", "minnumf"]
REDUCE_KINDS_I = ["addi", "muli", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui"]


def _reduce_reference(kind: str, init, lanes: np.ndarray):
    ops = {
        "addf": np.add, "mulf": np.multiply, "maximumf": np.maximum, "minimumf": np.minimum,
        "maxnumf": np.fmax, "minnumf": np.fmin, "addi": np.add, "muli": np.multiply,
        "andi": np.bitwise_and, "ori": np.bitwise_or, "xori": np.bitwise_xor,
        "maxsi": np.maximum, "minsi": np.minimum,
        "maxui": lambda a, b: np.maximum(a.view(np.uint32), b.view(np.uint32)).view(np.int32),
        "minui": lambda a, b: np.minimum(a.view(np.uint32), b.view(np.uint32)).view(np.int32),
    }[kind]  # fmt: skip
    acc = init
    for lane in lanes:
        acc = ops(np.asarray(acc), np.asarray(lane))
    return acc


@pytest.mark.parametrize("kind", REDUCE_KINDS_F + REDUCE_KINDS_I)
def test_vreduce_lowering(kind: str) -> None:
    is_float = kind in REDUCE_KINDS_F
    t = "f32" if is_float else "i32"
    text = f"""
    func.func @k(%x: memref<9x{t}>, %out: memref<{t}>) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %init = loop.load %x[%c0] : memref<9x{t}> -> {t}
      %v = loop.vload %x[%c1] : memref<9x{t}> -> vector<8x{t}>
      %r = loop.vreduce "{kind}" %init, %v : vector<8x{t}> -> {t}
      loop.store %r, %out[] : {t}, memref<{t}>
      func.return
    }}
    """
    if is_float:
        x = (RNG.standard_normal(9) * (0.9 if kind == "mulf" else 10)).astype(np.float32)
        x[3] = np.nan if kind.endswith("numf") else x[3]  # maxnum/minnum skip a NaN lane
    else:
        x = RNG.integers(-50, 50, 9).astype(np.int32)
    out = np.zeros((), x.dtype)
    call(jit_loop(text)[1], "k", x, out)
    expected = _reduce_reference(kind, x[0], x[1:])
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_vcast_vcmpi_and_uniform_select_lowering() -> None:
    text = """
    func.func @k(%x: memref<8xi32>, %f: memref<8xf32>, %flag: memref<i1>,
                 %out: memref<8xf32>, %bytes: memref<8xi8>, %u: memref<8xi32>) {
      %c0 = arith.constant 0 : index
      %xi = loop.vload %x[%c0] : memref<8xi32> -> vector<8xi32>
      %xf = loop.vload %f[%c0] : memref<8xf32> -> vector<8xf32>
      %three = arith.constant 3 : i32
      %t = loop.broadcast %three : i32 -> vector<8xi32>
      %lt = loop.vcmpi "slt", %xi, %t : vector<8xi32> -> vector<8xi1>
      %as_f = loop.vcast "sitofp" %xi : vector<8xi32> -> vector<8xf32>
      %pick = loop.vselect %lt, %as_f, %xf : vector<8xi1>, vector<8xf32>
      %b = loop.load %flag[] : memref<i1> -> i1
      %neg = arith.negf %pick : vector<8xf32>
      %r = arith.select %b, %neg, %pick : vector<8xf32>
      loop.vstore %r, %out[%c0] : vector<8xf32>, memref<8xf32>
      %narrow = loop.vcast "trunci" %xi : vector<8xi32> -> vector<8xi8>
      loop.vstore %narrow, %bytes[%c0] : vector<8xi8>, memref<8xi8>
      %wide = loop.vcast "extui" %narrow : vector<8xi8> -> vector<8xi32>
      loop.vstore %wide, %u[%c0] : vector<8xi32>, memref<8xi32>
      func.return
    }
    """
    x = np.array([-300, -1, 0, 2, 3, 4, 255, 1000], np.int32)
    f = randn(8)
    jit = jit_loop(text)[1]
    for flag in (False, True):
        out, narrow, wide = np.zeros(8, np.float32), np.zeros(8, np.int8), np.zeros(8, np.int32)
        call(jit, "k", x, f, np.array(flag), out, narrow, wide)
        pick = np.where(x < 3, x.astype(np.float32), f)
        np.testing.assert_array_equal(out, -pick if flag else pick)
        np.testing.assert_array_equal(narrow, x.astype(np.int8))
        np.testing.assert_array_equal(wide, x.astype(np.uint8).astype(np.int32))


def test_loops_that_stay_scalar_still_compute_the_same() -> None:
    # A gather (transpose) and a guard: the hint goes, the loop stays, the result is right.
    text = """
    func.func @k(%x: memref<8x8xf32>, %y: memref<8x8xf32>) {
      loop.for %i = 0 to 8 step 1 {
        loop.for %j = 0 to 8 step 1 {
          %v = loop.load %x[%j, %i] : memref<8x8xf32> -> f32
          loop.store %v, %y[%i, %j] : f32, memref<8x8xf32>
        } {vectorize}
      }
      %c5 = arith.constant 5 : index
      loop.for %j = 0 to 8 step 1 {
        %small = arith.cmpi slt, %j, %c5 : index
        loop.if %small {
          %z = arith.constant 0.0 : f32
          loop.store %z, %y[%j, %j] : f32, memref<8x8xf32>
        }
      } {vectorize}
      func.return
    }
    """
    module, jit = jit_loop(text, VectorizePass())
    assert op_names(module).count("loop.for") == 3 and "loop.vload" not in op_names(module)
    assert not hints_left(module)
    x, y = randn(8, 8), np.zeros((8, 8), np.float32)
    call(jit, "k", x, y)
    expected = x.T.copy()
    expected[range(5), range(5)] = 0
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize(
    "text, message",
    [
        ('%m = loop.vcmpf "lt", %a, %a : vector<4xf32> -> vector<4xi1>', "unknown predicate 'lt'"),
        (
            '%m = loop.vcmpf "olt", %a, %a : vector<4xf32> -> vector<8xi1>',
            "result must be vector<4xi1>",
        ),
        (
            '%m = loop.vcmpi "ult", %i, %i : vector<4xi32> -> vector<4xi32>',
            "result must be vector<4xi1>",
        ),
        (
            "%m = loop.vselect %k, %a, %a : vector<8xi1>, vector<4xf32>",
            "condition must be vector<4xi1>",
        ),
        (
            '%m = loop.vcast "sitofp" %a : vector<4xf32> -> vector<4xf32>',
            "casts int to float lanes",
        ),
        ('%m = loop.vcast "trunci" %i : vector<4xi32> -> vector<4xi64>', "cannot cast i32 to i64"),
        ('%m = loop.vcast "extsi" %i : vector<4xi32> -> vector<8xi64>', "different lane counts"),
        ('%m = loop.vcast "bitcast" %i : vector<4xi32> -> vector<4xf32>', "unknown kind 'bitcast'"),
        ('%m = loop.vreduce "addi" %s, %a : vector<4xf32> -> f32', "'addi' reduces int lanes"),
        (
            '%m = loop.vreduce "addf" %s, %d : vector<4xf64> -> f32',
            "init of type f32 for lanes of f64",
        ),
        ('%m = loop.vreduce "sum" %s, %a : vector<4xf32> -> f32', "unknown kind 'sum'"),
    ],
)
def test_vector_op_verifiers(text: str, message: str) -> None:
    module = parse_module(
        "func.func @f(%a: vector<4xf32>, %d: vector<4xf64>, %i: vector<4xi32>, "
        f"%k: vector<8xi1>, %s: f32) {{\n  {text}\n  func.return\n}}"
    )
    with pytest.raises(VerifyException, match=re.escape(message)):
        module.verify()


# --------------------------------------------------------------------------------------------
# Random schedules with unroll and vectorize hints never change results
# --------------------------------------------------------------------------------------------


def random_hinted_schedule(compute: te.ComputeOp, rng: random.Random) -> list:
    """Splits by factors that often make vectorizable extents, a reorder, then unroll and
    vectorize hints on random loops (innermost preferred for vectorize)."""
    nest = default_nest(compute)
    primitives: list = []
    for _ in range(rng.randint(0, 3)):
        lp = rng.choice(nest.loops)
        factor = rng.choice([2, 4, 8, 16, 32, 3, lp.extent])
        primitive = te.split(lp.name, max(1, factor))
        nest.apply(primitive)
        primitives.append(primitive)
    names = [lp.name for lp in nest.loops]
    if len(names) > 1 and rng.random() < 0.5:
        primitive = te.reorder(*rng.sample(names, rng.randint(2, len(names))))
        nest.apply(primitive)
        primitives.append(primitive)
    names = [lp.name for lp in nest.loops]
    vector_axis = names[-1] if rng.random() < 0.7 else rng.choice(names)
    primitives.append(te.vectorize(vector_axis))
    for name in rng.sample(names, rng.randint(0, min(2, len(names)))):
        if name != vector_axis:
            primitives.append(te.unroll(name))
    return primitives


RANDOM_CASES = {
    "matmul": ([T(8, 32), T(32, 16)], _matmul),
    "elementwise": (
        [T(4, 32), T(4, 32)],
        lambda b, a: add(
            b,
            g.WhereOp.make(
                add(b, g.LessOp.make(a[0], a[1]))[0], add(b, g.ExpOp.make(a[0]))[0], a[1]
            ),
        ),
    ),
    "softmax": ([T(3, 64)], lambda b, a: add(b, g.SoftmaxOp.make(a[0], axis=1))),
    "reduce": ([T(4, 16, 8)], lambda b, a: add(b, g.ReduceSumOp.make(a[0], axes=[1]))),
    "bias_relu": (
        [T(2, 16, 16), T(16, 1)],
        lambda b, a: add(b, g.ReluOp.make(add(b, g.AddOp.make(a[0], a[1]))[0])),
    ),
}

SEEDS = range(4)


def randomly_scheduled(case: str, seed: int) -> ModuleOp:
    """The case's te module, a random hinted schedule on each compute the fusion rules left
    unscheduled (inlined and attached computes keep theirs)."""
    arg_types, body = RANDOM_CASES[case]
    module = te_module(arg_types, body)
    pick = random.Random(f"{case}-{seed}")
    for compute in (op for op in module.walk() if isinstance(op, te.ComputeOp)):
        if not compute.schedule:
            compute.attributes[te.SCHEDULE_ATTR] = ArrayAttr(random_hinted_schedule(compute, pick))
    return module


@pytest.mark.parametrize("case", sorted(RANDOM_CASES))
@pytest.mark.parametrize("seed", SEEDS)
def test_random_hinted_schedules_keep_results(case: str, seed: int) -> None:
    arg_types, body = RANDOM_CASES[case]
    rng = np.random.default_rng(seed)
    inputs = [rng.standard_normal(t.get_shape()).astype(np.float32) for t in arg_types]
    expected = run_te(te_module(arg_types, body), inputs)
    scheduled = randomly_scheduled(case, seed)
    assert not hints_left(loop_ir(scheduled))
    got = run_te(scheduled, inputs)
    for e, r in zip(expected, got, strict=True):
        np.testing.assert_allclose(r, e, rtol=1e-5, atol=1e-5)


def test_random_hinted_schedules_do_vectorize_some() -> None:
    """The random cases above are not all left scalar (else they would test little)."""
    vectorized = []
    for case in RANDOM_CASES:
        for seed in SEEDS:
            names = op_names(loop_ir(randomly_scheduled(case, seed)))
            if "loop.vstore" in names or "loop.vreduce" in names:
                vectorized.append(f"{case}-{seed}")
    assert len(vectorized) >= len(RANDOM_CASES) * len(SEEDS) // 4, vectorized
