"""loop-vectorize-transpose: its shuffle network, native tiles of every size, and whole models.

`transpose_square` / `transpose` only call the `shuffle` they are given, so a shuffle on
Python lists (LLVM's shufflevector semantics) checks the network itself for every tile the
pass takes (S, D in 4, 8, 16, 32): exactly the transpose, no lane out of range, and n
shuffles a round, log2(n) rounds a square, plus the splits or joins, not one more. Hand-written tiles of
every size then go through the pass, convert-loop-to-llvm and the JIT. Last, ONNX models
and layout transforms whose default schedule copies tiles through registers are compiled
at 1 and 2 threads and compared with numpy; the number of shufflevectors left in the
lowered module shows the pass ran inside `minitvm.compiler.build`.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Region

from minitvm.compiler import CONV_BLOCK, compile_module, lower_to_te, lower_whole_module
from minitvm.dialects import graph as g
from minitvm.dialects import loop
from minitvm.frontend import from_onnx
from minitvm.ir import make_context, parse_module
from minitvm.lowering.jit import compile_llvm
from minitvm.lowering.loop_to_llvm import lower_to_llvm
from minitvm.passes.loop.vectorize_transpose import (
    VectorizeTransposePass,
    match_tile,
    transpose,
    transpose_square,
)
from minitvm.runtime import Executable, TensorSpec

SIZES = (4, 8, 16, 32)

# --------------------------------------------------------------------------------------------
# The shuffle network, on Python lists
# --------------------------------------------------------------------------------------------

Lanes = list[tuple[int, int]]


def list_shuffle(log: list[list[int]]) -> Callable[[Lanes, Lanes, Sequence[int]], Lanes]:
    """LLVM's shufflevector on lists (lane m of a's lanes followed by b's), recording masks."""

    def shuffle(a: Lanes, b: Lanes, mask: Sequence[int]) -> Lanes:
        mask = list(mask)
        assert len(a) == len(b), "both operands of a shuffle have one type"
        assert all(0 <= m < 2 * len(a) for m in mask), mask
        log.append(mask)
        both = [*a, *b]
        return [both[m] for m in mask]

    return shuffle


@pytest.mark.parametrize("n", SIZES)
def test_transpose_square_is_the_transpose_in_log2_n_rounds(n: int) -> None:
    rows = [[(i, j) for j in range(n)] for i in range(n)]
    before = [list(r) for r in rows]
    log: list[list[int]] = []
    out = transpose_square(rows, list_shuffle(log))
    assert out == [[(i, j) for i in range(n)] for j in range(n)]
    assert len(log) == n * (n.bit_length() - 1)  # n shuffles a round, log2(n) rounds
    assert all(len(mask) == n for mask in log)
    assert rows == before  # the caller's list is not reordered


def expected_shuffles(s: int, d: int) -> int:
    """Squares of min(S, D), plus one split per source vector and piece (S > D) or the joins
    of max / min squares' rows into one (D > S)."""
    n, k = min(s, d), max(s, d) // min(s, d)
    squares = k * n * (n.bit_length() - 1)
    if s > d:
        return squares + d * k  # each of the D loaded vectors cut into k pieces of D lanes
    return squares + s * (k - 1)  # each of the S rows joined from k pieces


@pytest.mark.parametrize("d", SIZES)
@pytest.mark.parametrize("s", SIZES)
def test_transpose_of_every_tile_size(s: int, d: int) -> None:
    # D vectors of S lanes (one per d, lanes along s) -> S vectors of D lanes (one per s)
    vectors = [[(t, u) for u in range(s)] for t in range(d)]
    log: list[list[int]] = []
    out = transpose(vectors, s, list_shuffle(log))
    assert out == [[(t, u) for t in range(d)] for u in range(s)]
    assert len(log) == expected_shuffles(s, d)


@pytest.mark.parametrize(
    ("s", "d", "shuffles"),
    [
        (4, 4, 8),  # two rounds of four
        (8, 16, 56),  # two 8 x 8 squares (3 rounds of 8 each), 8 joins
        (16, 8, 64),  # 16 halves, two 8 x 8 squares
        (16, 16, 64),  # four rounds of 16
        (32, 4, 96),  # 4 loaded vectors cut in 8 pieces (32), eight 4 x 4 squares (64)
        (4, 32, 92),  # eight 4 x 4 squares (64), each of 4 rows joined from 8 pieces (28)
    ],
)
def test_the_shuffle_counts_pinned_by_hand(s: int, d: int, shuffles: int) -> None:
    log: list[list[int]] = []
    transpose([[(t, u) for u in range(s)] for t in range(d)], s, list_shuffle(log))
    assert len(log) == shuffles


# --------------------------------------------------------------------------------------------
# Tiles of every size, through the pass and the JIT
# --------------------------------------------------------------------------------------------


def tile_kernel(s: int, d: int, element: str) -> str:
    """Two S x D tiles side by side: B[t * S + s, d] = A[d, t * S + s] (B = A transposed)."""
    return f"""
    func.func @k(%A: memref<{d}x{2 * s}x{element}>, %B: memref<{2 * s}x{d}x{element}>) {{
      loop.for %t = 0 to 2 step 1 {{
        loop.for %s = 0 to {s} step 1 {{
          loop.for %d = 0 to {d} step 1 {{
            %c = arith.constant {s} : index
            %base = arith.muli %t, %c : index
            %col = arith.addi %base, %s : index
            %v = loop.load %A[%d, %col] : memref<{d}x{2 * s}x{element}> -> {element}
            loop.store %v, %B[%col, %d] : {element}, memref<{2 * s}x{d}x{element}>
          }} {{vectorize}}
        }}
      }} {{parallel}}
      func.return
    }}
    """


def run_tile(text: str, a: np.ndarray, b: np.ndarray) -> ModuleOp:
    """`text` through loop-vectorize-transpose and to native code, run on (a, b); the loop IR."""
    module = parse_module(text)
    VectorizeTransposePass().apply(make_context(), module)
    module.verify()
    loop_ir = module.clone()
    lowered, _ = lower_to_llvm(module)
    jit = compile_llvm(lowered)
    jit.function("k", None, [ctypes.c_void_p] * 2)(a.ctypes.data, b.ctypes.data)
    return loop_ir


def ops_of(module: ModuleOp, kind: type) -> list:
    return [op for op in module.walk() if isinstance(op, kind)]


@pytest.mark.parametrize("d", SIZES)
@pytest.mark.parametrize("s", SIZES)
def test_native_tiles_of_every_size(s: int, d: int) -> None:
    a = np.random.default_rng(s * 100 + d).standard_normal((d, 2 * s)).astype(np.float32)
    b = np.zeros((2 * s, d), np.float32)
    loop_ir = run_tile(tile_kernel(s, d, "f32"), a, b)
    np.testing.assert_array_equal(b, a.T)
    assert len(ops_of(loop_ir, loop.VectorShuffleOp)) == expected_shuffles(s, d)
    assert [op.result.type.get_shape() for op in ops_of(loop_ir, loop.VectorLoadOp)] == [(s,)] * d
    assert [op.value.type.get_shape() for op in ops_of(loop_ir, loop.VectorStoreOp)] == [(d,)] * s
    assert not ops_of(loop_ir, loop.LoadOp) and not ops_of(loop_ir, loop.StoreOp)


@pytest.mark.parametrize(
    ("element", "dtype"),
    [("i64", np.int64), ("f64", np.float64), ("i8", np.int8), ("i1", np.bool_)],
)
def test_native_tiles_of_other_element_types(element: str, dtype: type) -> None:
    # i1 buffers hold a byte per element: vector loads of i1 lanes read and write bytes
    a = np.random.default_rng(3).integers(-100, 100, (16, 16)).astype(dtype)
    b = np.zeros((16, 16), dtype)
    loop_ir = run_tile(tile_kernel(8, 16, element), a, b)
    np.testing.assert_array_equal(b, a.T)
    assert len(ops_of(loop_ir, loop.VectorShuffleOp)) == expected_shuffles(8, 16)


def test_match_tile_finds_the_tile_and_its_accesses() -> None:
    module = parse_module(tile_kernel(8, 16, "f32"))
    loops = ops_of(module, loop.ForOp)  # t, s, d
    assert match_tile(loops[0]) is None  # t's body is a loop without the vectorize hint
    assert match_tile(loops[2]) is None  # d's body copies, it holds no loop
    tile = match_tile(loops[1])
    assert tile is not None
    assert (tile.outer, tile.inner) == (loops[1], loops[2])
    assert (tile.load, tile.store) == (
        ops_of(module, loop.LoadOp)[0],
        ops_of(module, loop.StoreOp)[0],
    )


def blocked_tile_kernel(s: int, period: int, tiles: int) -> str:
    """NCHW{period}c -> NCHW in miniature, tiles of s channels: B[c, d] = A[c // period, d,
    c % period] for c = t * s + c.i, with the remainder written as te_to_loop writes it."""
    channels = s * tiles
    a_type = f"memref<{channels // period}x8x{period}xf32>"
    return f"""
    func.func @k(%A: {a_type}, %B: memref<{channels}x8xf32>) {{
      loop.for %t = 0 to {tiles} step 1 {{
        loop.for %s = 0 to {s} step 1 {{
          loop.for %d = 0 to 8 step 1 {{
            %c = arith.constant {s} : index
            %p = arith.constant {period} : index
            %base = arith.muli %t, %c : index
            %ch = arith.addi %base, %s : index
            %block = arith.floordivsi %ch, %p : index
            %whole = arith.muli %block, %p : index
            %lane = arith.subi %ch, %whole : index
            %v = loop.load %A[%block, %d, %lane] : {a_type} -> f32
            loop.store %v, %B[%ch, %d] : f32, memref<{channels}x8xf32>
          }} {{vectorize}}
        }}
      }}
      func.return
    }}
    """


@pytest.mark.parametrize(("s", "period", "taken"), [(4, 16, True), (8, 16, True), (8, 12, False)])
def test_tiles_within_one_block_of_a_blocked_layout(s: int, period: int, taken: bool) -> None:
    """c // period and c % period move with c.i like c itself only while a tile stays in one
    block: 4 or 8 channels of 16 do, 8 of 12 do not (a tile can straddle two blocks)."""
    tiles = 3 * period // s if period % s == 0 else 3
    module = parse_module(blocked_tile_kernel(s, period, tiles))
    assert (match_tile(ops_of(module, loop.ForOp)[1]) is not None) == taken
    if taken:
        channels = s * tiles
        shape = (channels // period, 8, period)
        a = np.random.default_rng(s).standard_normal(shape).astype(np.float32)
        b = np.zeros((channels, 8), np.float32)
        run_tile(blocked_tile_kernel(s, period, tiles), a, b)
        np.testing.assert_array_equal(b, a.transpose(0, 2, 1).reshape(channels, 8))


# --------------------------------------------------------------------------------------------
# Whole models: ONNX transposes, BERT's head transpose, a conv's layout transforms
# --------------------------------------------------------------------------------------------

NUMPY_OF = {
    TensorProto.FLOAT: np.float32,
    TensorProto.DOUBLE: np.float64,
    TensorProto.INT64: np.int64,
    TensorProto.BOOL: np.bool_,
}


def specs(values: Sequence[onnx.ValueInfoProto]) -> list[TensorSpec]:
    return [
        TensorSpec(
            v.name,
            tuple(dim.dim_value for dim in v.type.tensor_type.shape.dim),
            np.dtype(NUMPY_OF[v.type.tensor_type.elem_type]),
        )
        for v in values
    ]


def transposing_shuffles(module: ModuleOp) -> int:
    """llvm.shufflevectors of a lowered module other than broadcasts (a splat of lane 0)."""
    return sum(len(set(op.mask.get_values())) > 1 for op in ops_of(module, llvm.ShuffleVectorOp))


def compiled(module: ModuleOp, ins, outs, threads: int) -> tuple[Executable, int]:
    """`module` (graph level) compiled as `minitvm.compile` does; the transposing shuffles of
    that code (lowered as one module)."""
    exe = compile_module(module.clone(), ins, outs, num_threads=threads)
    lower_to_te(module, num_threads=threads)
    return exe, transposing_shuffles(lower_whole_module(module))


def onnx_model(
    nodes: list[onnx.NodeProto],
    x: tuple[list[int], int],
    y: tuple[list[int], int],
    initializers: Sequence[onnx.TensorProto] = (),
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "model",
        [helper.make_tensor_value_info("x", x[1], x[0])],
        [helper.make_tensor_value_info("y", y[1], y[0])],
        initializer=list(initializers),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def transpose_model(shape: list[int], perm: list[int], elem: int) -> onnx.ModelProto:
    node = helper.make_node("Transpose", ["x"], ["y"], perm=perm)
    return onnx_model([node], (shape, elem), ([shape[p] for p in perm], elem))


def bert_head_transpose() -> onnx.ModelProto:
    """BERT's K per head: [1, 128, 768] -> [1, 128, 12, 64] -> [1, 12, 64, 128]."""
    target = numpy_helper.from_array(np.array([1, 128, 12, 64], np.int64), "shape")
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["heads"]),
        helper.make_node("Transpose", ["heads"], ["y"], perm=[0, 2, 3, 1]),
    ]
    return onnx_model(
        nodes, ([1, 128, 768], TensorProto.FLOAT), ([1, 12, 64, 128], TensorProto.FLOAT), [target]
    )


WEIGHT = np.random.default_rng(11).standard_normal((64, 64, 1, 1)).astype(np.float32) / 8


def pointwise_conv() -> onnx.ModelProto:
    """A 1x1 conv of [1, 64, 56, 56]: graph-conv-layout runs it in NCHW16c, between an NCHW ->
    NCHW16c and an NCHW16c -> NCHW layout transform."""
    node = helper.make_node("Conv", ["x", "w"], ["y"])
    io = ([1, 64, 56, 56], TensorProto.FLOAT)
    return onnx_model([node], io, io, [numpy_helper.from_array(WEIGHT, "w")])


def random_input(shape: Sequence[int], dtype: type, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype is np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-(2**40), 2**40, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


#: name -> (ONNX model, input shape and dtype, numpy reference, shuffles of its kernels);
#: the default schedules' tiles: [2, 8, 16] of [2, 16, 8] one 8 x 16 tile (two 8 x 8
#: squares joined), [3, 24, 20] of [3, 20, 24] 8 x 4 (halves of two 4 x 4 squares), BERT's
#: 16 x 16, the conv's NCHW -> NCHW16c 8 x 16 and NCHW16c -> NCHW 16 x 8.
MODELS: dict[str, tuple[Callable[[], onnx.ModelProto], tuple, Callable, int]] = {
    "perm_021_f32": (
        lambda: transpose_model([2, 16, 8], [0, 2, 1], TensorProto.FLOAT),
        ((2, 16, 8), np.float32),
        lambda x: x.transpose(0, 2, 1),
        56,
    ),
    "perm_021_split": (
        lambda: transpose_model([3, 20, 24], [0, 2, 1], TensorProto.FLOAT),
        ((3, 20, 24), np.float32),
        lambda x: x.transpose(0, 2, 1),
        24,
    ),
    "perm_021_i64": (
        lambda: transpose_model([2, 16, 8], [0, 2, 1], TensorProto.INT64),
        ((2, 16, 8), np.int64),
        lambda x: x.transpose(0, 2, 1),
        56,
    ),
    "perm_021_f64": (
        lambda: transpose_model([4, 32, 64], [0, 2, 1], TensorProto.DOUBLE),
        ((4, 32, 64), np.float64),
        lambda x: x.transpose(0, 2, 1),
        64,
    ),
    "perm_021_bool": (
        lambda: transpose_model([2, 16, 8], [0, 2, 1], TensorProto.BOOL),
        ((2, 16, 8), np.bool_),
        lambda x: x.transpose(0, 2, 1),
        56,
    ),
    "bert_head": (
        bert_head_transpose,
        ((1, 128, 768), np.float32),
        lambda x: x.reshape(1, 128, 12, 64).transpose(0, 2, 3, 1),
        64,
    ),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_onnx_transposes_through_registers(name: str, threads: int) -> None:
    make, (shape, dtype), reference, shuffles = MODELS[name]
    model = make()
    exe, found = compiled(
        from_onnx(model), specs(model.graph.input), specs(model.graph.output), threads
    )
    assert found == shuffles
    x = random_input(shape, dtype)
    (got,) = exe.run({"x": x})
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, reference(x))


@pytest.mark.parametrize("threads", [1, 2])
def test_a_convs_layout_transforms_through_registers(threads: int) -> None:
    model = pointwise_conv()
    exe, found = compiled(
        from_onnx(model), specs(model.graph.input), specs(model.graph.output), threads
    )
    # NCHW -> NCHW16c, NCHW16c -> NCHW: 56 and 64 shuffles. With AVX2, NCHW -> NCHW8c is no
    # transpose for the template (too short: the plain order), NCHW8c -> NCHW 24 (8 x 8 tiles)
    assert found == (56 + 64 if CONV_BLOCK == 16 else 24)
    x = random_input((1, 64, 56, 56), np.float32, seed=1)
    (got,) = exe.run({"x": x})
    want = np.einsum("oc,nchw->nohw", WEIGHT[:, :, 0, 0].astype(np.float64), x)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def layout_module(shape: tuple[int, ...], src: str, dst: str) -> ModuleOp:
    """@main(x) = graph.layout_transform(x): one kernel, the transform alone."""
    block = Block(arg_types=[TensorType(f32, list(shape))])
    op = g.LayoutTransformOp.make(block.args[0], src_layout=src, dst_layout=dst)
    block.add_ops([op, func.ReturnOp(op.results[0])])
    main = func.FuncOp("main", (block.arg_types, [op.results[0].type]), Region(block))
    return ModuleOp([main])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    ("shape", "src", "dst", "reference", "shuffles"),
    [
        (
            (1, 64, 56, 56), "NCHW", "NCHW16c",
            lambda x: x.reshape(1, 4, 16, 56, 56).transpose(0, 1, 3, 4, 2),
            56,
        ),
        (
            (1, 4, 56, 56, 16), "NCHW16c", "NCHW",
            lambda x: x.transpose(0, 1, 4, 2, 3).reshape(1, 64, 56, 56),
            64,
        ),
    ],
    ids=["to_nchw16c", "to_nchw"],
)  # fmt: skip
def test_resnet_layout_transforms_through_registers(
    shape, src: str, dst: str, reference, shuffles: int, threads: int
) -> None:
    module = layout_module(shape, src, dst)
    x = random_input(shape, np.float32, seed=2)
    want = reference(x)
    ins = [TensorSpec("x", shape, np.dtype(np.float32))]
    outs = [TensorSpec("y", want.shape, np.dtype(np.float32))]
    exe, found = compiled(module, ins, outs, threads)
    assert found == shuffles
    (got,) = exe.run({"x": x})
    np.testing.assert_array_equal(got, want)
