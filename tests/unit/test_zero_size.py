"""Zero-size tensors (a dimension of size 0) end to end: models whose inputs, weights,
intermediates or outputs have no elements compile at -O1 and -O3 and compute what ONNX Runtime
computes, outputs come back as arrays of the right empty shape and dtype, reductions over an
empty set give the ONNX spec's identity, kernels that write nothing run (-O0, where
graph-canonicalize does not fold them away), and exported libraries take empty tensors,
NULL data included."""

from __future__ import annotations

import ctypes
import warnings
from dataclasses import dataclass
from pathlib import Path

import minitvm
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from minitvm.dialects import loop
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx
from minitvm.ir import parse_module
from minitvm.passes.graph.canonicalize import CanonicalizePass
from minitvm.passes.loop.plan_memory import LiveRange, assign_offsets
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.context import Context
from test_cli_compile_run import minitvm as minitvm_cli
from test_export import Api, tensors

F = np.float32


@dataclass(frozen=True)
class Case:
    """One model: its nodes, run-time inputs (name -> shape, dtype), constant inputs and
    outputs."""

    nodes: list[onnx.NodeProto]
    inputs: dict[str, tuple[tuple[int, ...], type]]
    consts: dict[str, np.ndarray]
    outputs: tuple[str, ...] = ("y",)
    opset: int = 18

    def model(self) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            "zero_size",
            [
                helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(d)), s)
                for n, (s, d) in self.inputs.items()
            ],
            [helper.make_empty_tensor_value_info(n) for n in self.outputs],
            initializer=[numpy_helper.from_array(a, n) for n, a in self.consts.items()],
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])

    def feeds(self, seed: int = 0) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(seed)
        arrays = {}
        for name, (shape, dtype) in self.inputs.items():
            if np.dtype(dtype) == np.bool_:
                arrays[name] = rng.random(shape) > 0.5
            elif np.dtype(dtype).kind == "f":
                arrays[name] = rng.standard_normal(shape).astype(dtype)
            else:
                arrays[name] = rng.integers(-5, 5, shape).astype(dtype)
        return arrays


def node(op: str, inputs: list[str], outputs: list[str] | None = None, **attrs: object) -> onnx.NodeProto:
    return helper.make_node(op, inputs, outputs or ["y"], **attrs)


def ints(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def weights(*shape: int) -> np.ndarray:
    return np.random.default_rng(1).standard_normal(shape).astype(F)


REDUCTIONS = [
    "ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceL1", "ReduceL2",
    "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare",
]  # fmt: skip

#: Each kind of zero-size tensor the issue names, as ONNX Runtime runs it.
CASES: dict[str, Case] = {
    # elementwise ops on empty tensors, broadcasting against non-empty ones
    "add_broadcast": Case([node("Add", ["x", "b"])], {"x": ((2, 0, 3), F), "b": ((3,), F)}, {}),
    "mul_broadcast_1_to_0": Case([node("Mul", ["x", "b"])], {"x": ((0,), F), "b": ((1,), F)}, {}),
    "unary_chain": Case(
        [node("Exp", ["x"], ["t"]), node("Sigmoid", ["t"], ["u"]), node("Tanh", ["u"])],
        {"x": ((0, 4), F)}, {},
    ),
    "cast_to_int64": Case([node("Cast", ["x"], to=TensorProto.INT64)], {"x": ((3, 0), F)}, {}),
    "compare_to_bool": Case([node("Greater", ["x", "z"])], {"x": ((0, 3), F), "z": ((1, 3), F)}, {}),
    "where": Case(
        [node("Greater", ["x", "z"], ["c"]), node("Where", ["c", "x", "z"])],
        {"x": ((0, 3), F), "z": ((0, 3), F)}, {},
    ),
    "int_add": Case([node("Add", ["x", "x"])], {"x": ((4, 0), np.int32)}, {}),
    # reductions over an empty set (the identity), and over a non-empty axis of an empty tensor
    **{
        f"{op}_empty_set_keepdims{k}": Case(
            [node(op, ["x", "axes"], keepdims=k)], {"x": ((2, 0, 3), F)}, {"axes": ints(1)}
        )
        for op in REDUCTIONS
        for k in (0, 1)
    },
    **{
        f"{op}_of_an_empty_tensor": Case(
            [node(op, ["x", "axes"], keepdims=1)], {"x": ((2, 0, 3), F)}, {"axes": ints(2)}
        )
        for op in REDUCTIONS
    },
    **{
        f"{op}_int32_empty_set": Case(
            [node(op, ["x", "axes"], keepdims=0)], {"x": ((2, 0), np.int32)}, {"axes": ints(1)}
        )
        # (an integer mean of nothing: 0, the empty sum, as ONNX Runtime; not a division by 0)
        for op in ("ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean")
    },
    "hardmax_of_an_empty_axis": Case([node("Hardmax", ["x"], axis=0)], {"x": ((0, 4, 5), F)}, {}),
    "softmax_of_no_rows": Case([node("Softmax", ["x"], axis=-1)], {"x": ((0, 5), F)}, {}),
    "softmax_of_empty_rows": Case([node("Softmax", ["x"], axis=-1)], {"x": ((3, 0), F)}, {}),
    # MatMul / Gemm with K = 0 (zeros, plus the bias), M = 0, N = 0, batch 0
    "matmul_k0": Case([node("MatMul", ["a", "b"])], {"a": ((4, 0), F), "b": ((0, 5), F)}, {}),
    "matmul_k0_large": Case([node("MatMul", ["a", "b"])], {"a": ((64, 0), F), "b": ((0, 64), F)}, {}),
    "matmul_k0_constant_weights": Case(
        [node("MatMul", ["a", "w"], ["t"]), node("Relu", ["t"])],
        {"a": ((4, 0), F)}, {"w": np.zeros((0, 32), F)},
    ),
    "matmul_m0": Case([node("MatMul", ["a", "w"])], {"a": ((0, 3), F)}, {"w": weights(3, 5)}),
    "matmul_n0": Case([node("MatMul", ["a", "b"])], {"a": ((4, 3), F), "b": ((3, 0), F)}, {}),
    "matmul_batch0": Case([node("MatMul", ["a", "w"])], {"a": ((0, 4, 3), F)}, {"w": weights(3, 5)}),
    "gemm_k0_bias": Case(
        [node("Gemm", ["a", "b", "c"], beta=2.0)],
        {"a": ((4, 0), F), "b": ((0, 5), F), "c": ((5,), F)}, {},
    ),
    "gemm_k0_packed_weights": Case(
        [node("Gemm", ["a", "w", "c"], transB=1)],
        {"a": ((8, 0), F)}, {"w": np.zeros((32, 0), F), "c": weights(32)},
    ),
    "batched_matmul_k0": Case([node("MatMul", ["a", "b"])], {"a": ((3, 8, 0), F), "b": ((3, 0, 16), F)}, {}),
    "max_over_no_keys": Case(
        [node("MatMul", ["q", "k"], ["s"]), node("ReduceMax", ["s", "axes"], keepdims=1)],
        {"q": ((2, 3, 8), F), "k": ((2, 8, 0), F)}, {"axes": ints(-1)},
    ),
    "mlp_batch0": Case(
        [node("MatMul", ["x", "w"], ["t"]), node("Add", ["t", "b"], ["u"]), node("Relu", ["u"])],
        {"x": ((0, 64), F)}, {"w": weights(64, 32), "b": weights(32)},
    ),
    "einsum_k0": Case(
        [node("Einsum", ["a", "b"], equation="ij,jk->ik")], {"a": ((3, 0), F), "b": ((0, 4), F)}, {}
    ),
    # shape ops: Split into zero-size parts, Reshape with allowzero, Concat with an empty
    # operand, Slice giving an empty result
    "split_into_empty_parts": Case(
        [node("Split", ["x", "s"], ["y0", "y1", "y2"], axis=0)],
        {"x": ((4, 3), F)}, {"s": ints(0, 4, 0)}, ("y0", "y1", "y2"),
    ),
    "split_an_empty_tensor": Case(
        [node("Split", ["x", "s"], ["y0", "y1"], axis=1)],
        {"x": ((0, 3), F)}, {"s": ints(1, 2)}, ("y0", "y1"),
    ),
    "reshape_allowzero": Case(
        [node("Reshape", ["x", "s"], allowzero=1)], {"x": ((0, 3, 4), F)}, {"s": ints(3, 4, 0)}
    ),
    "reshape_copies_a_zero_dim": Case(
        [node("Reshape", ["x", "s"])], {"x": ((2, 0, 4), F)}, {"s": ints(0, 0, 2, 2)}
    ),
    "flatten": Case([node("Flatten", ["x"], axis=1)], {"x": ((0, 3, 4), F)}, {}),
    "concat_with_an_empty_operand": Case(
        [node("Concat", ["a", "b", "c"], axis=1)],
        {"a": ((2, 3), F), "b": ((2, 0), F), "c": ((2, 1), F)}, {},
    ),
    "concat_of_empty_operands": Case(
        [node("Concat", ["a", "b"], axis=1)], {"a": ((0, 3), F), "b": ((0, 2), F)}, {}
    ),
    "slice_to_empty": Case(
        [node("Slice", ["x", "starts", "ends"])],
        {"x": ((4, 5), F)}, {"starts": ints(3, 0), "ends": ints(1, 5)},
    ),
    "empty_slice_then_concat": Case(
        [node("Slice", ["x", "starts", "ends"], ["t"]), node("Concat", ["t", "x"], axis=0)],
        {"x": ((4, 5), F)}, {"starts": ints(2), "ends": ints(2)},
    ),
    "transpose": Case([node("Transpose", ["x"], perm=[2, 0, 1])], {"x": ((0, 3, 2), F)}, {}),
    "pad_an_empty_tensor": Case(
        [node("Pad", ["x", "pads", "value"])],
        {"x": ((0, 3), F)}, {"pads": ints(1, 0, 1, 0), "value": np.array(2.5, F)},
    ),
    "expand": Case([node("Expand", ["x", "s"])], {"x": ((0, 1), F)}, {"s": ints(0, 4)}),
    "tile_zero_times": Case([node("Tile", ["x", "r"])], {"x": ((2, 3), F)}, {"r": ints(0, 2)}),
    "gather_no_indices": Case(
        [node("Gather", ["x", "i"], axis=0)], {"x": ((4, 3), F), "i": ((0,), np.int64)}, {}
    ),
    "gather_from_empty": Case([node("Gather", ["x", "i"], axis=1)], {"x": ((0, 3), F)}, {"i": ints(2, 0)}),
    "topk_k0": Case(
        [node("TopK", ["x", "k"], ["y", "i"], axis=1)], {"x": ((3, 5), F)}, {"k": ints(0)}, ("y", "i")
    ),
    # nn ops on an empty batch, and a conv without output channels
    "conv_batch0": Case(
        [node("Conv", ["x", "w", "b"], pads=[1, 1, 1, 1])],
        {"x": ((0, 3, 8, 8), F)}, {"w": weights(16, 3, 3, 3), "b": weights(16)},
    ),
    "conv_no_output_channels": Case(
        [node("Conv", ["x", "w"])], {"x": ((1, 3, 8, 8), F)}, {"w": np.zeros((0, 3, 3, 3), F)}
    ),
    "conv_no_input_channels": Case(  # an empty reduction: the bias alone
        [node("Conv", ["x", "w", "b"], pads=[1, 1, 1, 1])],
        {"x": ((1, 0, 8, 8), F)}, {"w": np.zeros((16, 0, 3, 3), F), "b": weights(16)},
    ),
    "pointwise_conv_no_input_channels": Case(
        [node("Conv", ["x", "w", "b"], ["t"]), node("Relu", ["t"])],
        {"x": ((2, 0, 8, 8), F)}, {"w": np.zeros((32, 0, 1, 1), F), "b": weights(32)},
    ),
    "maxpool_batch0": Case(
        [node("MaxPool", ["x"], kernel_shape=[2, 2], strides=[2, 2])], {"x": ((0, 3, 8, 8), F)}, {}
    ),
    "layer_norm_no_rows": Case(
        [node("LayerNormalization", ["x", "g", "b"], axis=-1)],
        {"x": ((0, 8), F)}, {"g": weights(8), "b": weights(8)},
    ),
    "constant_of_shape_0": Case(
        [
            node("ConstantOfShape", ["s"], ["t"], value=numpy_helper.from_array(np.ones(1, F))),
            node("Add", ["t", "x"]),
        ],
        {"x": ((3,), F)}, {"s": ints(0, 3)},
    ),
}


def run_ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def assert_same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for have, expected in zip(got, want):
        assert isinstance(have, np.ndarray)
        assert (have.shape, have.dtype) == (expected.shape, expected.dtype)
        np.testing.assert_allclose(have, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opt_level", [1, 3])
@pytest.mark.parametrize("name", list(CASES))
def test_matches_onnx_runtime(name: str, opt_level: int) -> None:
    case = CASES[name]
    model, feeds = case.model(), case.feeds()
    got = minitvm.compile(model, opt_level=opt_level).run(feeds)
    assert_same(got, run_ort(model, feeds))


#: What ONNX's spec says a reduction over no elements gives ("minus infinity (if supported by
#: the datatype) or the minimum value of the data type otherwise", ...).
IDENTITIES = {
    "ReduceSum": (0.0, 0), "ReduceProd": (1.0, 1), "ReduceSumSquare": (0.0, 0),
    "ReduceL1": (0.0, 0),
    "ReduceL2": (0.0, None),  # None: undefined for integers, or (here) floats only
    "ReduceMax": (-np.inf, "min"), "ReduceMin": (np.inf, "max"),
    "ReduceLogSum": (-np.inf, None), "ReduceLogSumExp": (-np.inf, None),
}  # fmt: skip


@pytest.mark.parametrize("opt_level", [0, 1, 3])
@pytest.mark.parametrize(
    ("op", "dtype"),
    [
        (op, dtype)
        for op, (_, int_value) in IDENTITIES.items()
        for dtype in (np.float32, np.float64, np.int32, np.int64)
        if np.dtype(dtype).kind == "f" or int_value is not None
    ],
)
def test_an_empty_reduction_gives_the_identity(op: str, dtype: type, opt_level: int) -> None:
    float_value, int_value = IDENTITIES[op]
    case = Case([node(op, ["x", "axes"], keepdims=0)], {"x": ((3, 0, 2), dtype)}, {"axes": ints(1)})
    (got,) = minitvm.compile(case.model(), opt_level=opt_level).run(case.feeds())
    if np.dtype(dtype).kind == "f":
        want = float_value
    else:
        info = np.iinfo(dtype)
        want = {"min": info.min, "max": info.max}.get(int_value, int_value)  # type: ignore[arg-type]
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.full((3, 2), want, dtype))


def test_an_empty_mean_is_nan_as_in_onnx_reference() -> None:
    """The spec leaves ReduceMean over no elements undefined; ONNX's reference gives NaN (0/0),
    as minitvm does; ONNX Runtime gives 0."""
    case = Case([node("ReduceMean", ["x", "axes"], keepdims=1)], {"x": ((2, 0, 3), F)}, {"axes": ints(1)})
    model, feeds = case.model(), case.feeds()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's "mean of empty slice"
        want = ReferenceEvaluator(model).run(None, feeds)
    for opt_level in (1, 3):
        (got,) = minitvm.compile(model, opt_level=opt_level).run(feeds)
        assert got.shape == (2, 1, 3) and np.isnan(got).all() and np.isnan(want[0]).all()


def test_matmul_integer_with_k0_is_zeros() -> None:
    """ONNX Runtime 1.23 returns uninitialized memory here; the reference and numpy give 0."""
    case = Case(
        [node("MatMulInteger", ["a", "b"])], {"a": ((3, 0), np.uint8), "b": ((0, 4), np.uint8)}, {}
    )
    for opt_level in (1, 3):
        (got,) = minitvm.compile(case.model(), opt_level=opt_level).run(case.feeds())
        np.testing.assert_array_equal(got, np.zeros((3, 4), np.int32))


def test_attention_with_heads_of_size_0() -> None:
    """Scores over a head size of 0 are empty sums. Attention: 0, so the softmax is uniform
    (ONNX's reference; ONNX Runtime refuses the model). LinearAttention scales its output by
    1/sqrt(0) = +inf: NaN, as in the reference and ONNX Runtime."""
    attention = Case(
        [node("Attention", ["q", "k", "v"])],
        {"q": ((1, 2, 3, 0), F), "k": ((1, 2, 4, 0), F), "v": ((1, 2, 4, 5), F)}, {}, opset=23,
    )
    linear = Case(
        [node("LinearAttention", ["q", "k", "v"], ["y", "state"], q_num_heads=4, kv_num_heads=4,
              update_rule="linear")],
        {"q": ((2, 4, 0), F), "k": ((2, 4, 0), F), "v": ((2, 4, 32), F)}, {}, ("y", "state"), opset=27,
    )  # fmt: skip
    for case in (attention, linear):
        model, feeds = case.model(), case.feeds()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the reference's 1 / sqrt(0)
            want = ReferenceEvaluator(model).run(None, feeds)
        for opt_level in (1, 3):
            got = minitvm.compile(model, opt_level=opt_level).run(feeds)
            for have, expected in zip(got, want, strict=True):
                assert have.shape == expected.shape
                np.testing.assert_allclose(have, expected, rtol=1e-5)


#: Empty inputs, an empty intermediate read by an empty reduction and by a concat, an empty
#: output computed by a GEMM: at -O0 every one of these is a kernel of its own.
PIPELINE = Case(
    [
        node("Slice", ["x", "starts", "ends"], ["e"]),
        node("Relu", ["e"], ["er"]),
        node("ReduceSum", ["er", "axes"], ["s"], keepdims=0),
        node("Add", ["s", "b"], ["y"]),
        node("MatMul", ["z", "w"], ["zz"]),
        node("Concat", ["er", "x"], ["c"], axis=0),
    ],
    {"x": ((3, 5), F), "z": ((0, 5), F)},
    {"starts": ints(2), "ends": ints(2), "axes": ints(0), "b": weights(5), "w": weights(5, 4)},
    ("y", "zz", "c", "er"),
)


@pytest.mark.parametrize("opt_level", [0, 1, 3])
def test_kernels_that_write_nothing_run(opt_level: int) -> None:
    model, feeds = PIPELINE.model(), PIPELINE.feeds()
    exe = minitvm.compile(model, opt_level=opt_level)
    want = run_ort(model, feeds)
    assert_same(exe.run(feeds), want)
    # an empty input given as a view of another array's (lack of) data
    assert_same(exe.run({**feeds, "z": np.zeros((5, 0), F).T}), want)
    with pytest.raises(MinitvmError, match=r"input 'z' is float32\[1, 5\] but the model expects"):
        exe.run({**feeds, "z": np.zeros((1, 5), F)})


def test_graph_canonicalize_leaves_no_op_with_an_empty_result() -> None:
    """After graph-canonicalize the empty slice, relu and GEMM results are constants and the
    concat has dropped its empty operand: the ops left are the reduction (over an empty set)
    and the add."""
    module = from_onnx(PIPELINE.model())
    CanonicalizePass().apply(Context(), module)
    ops = [op.name for op in module.walk() if op.name.startswith("graph.")]
    assert sorted(set(ops)) == ["graph.add", "graph.constant", "graph.reduce_sum"]


def test_zero_size_buffers_take_no_arena_space() -> None:
    module = parse_module(
        """
        func.func @main(%x: memref<4xf32>) {
          %a = loop.alloc : memref<0x16xf32>
          %b = loop.alloc : memref<16xf32>
          func.return
        }
        """
    )
    fn = next(iter(module.ops))
    empty, full = (op for op in fn.body.block.ops if isinstance(op, loop.AllocOp))
    offsets, arena = assign_offsets([LiveRange(empty, 0, 0, 1), LiveRange(full, 64, 0, 1)])
    assert offsets == [0, 0] and arena == 64
    # A model whose only intermediates are empty needs no arena at all.
    case = Case(
        [node("Relu", ["x"], ["t"]), node("Neg", ["t"], ["u"]), node("ReduceSum", ["u", "axes"])],
        {"x": ((0, 8), F)}, {"axes": ints(0)},
    )
    exe = minitvm.compile(case.model(), opt_level=0)
    assert exe.stats["arena_bytes_unplanned"] == exe.arena_bytes == 0
    np.testing.assert_array_equal(exe.run(case.feeds())[0], np.zeros((1, 8), F))


def test_an_exported_library_takes_empty_tensors(tmp_path: Path) -> None:
    model, feeds = PIPELINE.model(), PIPELINE.feeds()
    want = run_ort(model, feeds)
    path = tmp_path / "empty.so"
    minitvm.compile(model, opt_level=0).export(str(path))
    library = minitvm.load(path)
    assert_same(library.run(feeds), want)
    library.close()
    # From C, an empty tensor may come without data (NULL); the others may not.
    api = Api(path)
    handle = api.create()
    outputs = [np.empty(w.shape, w.dtype) for w in want]
    inputs, _keep_in = tensors([feeds["x"], feeds["z"]], [1, 1])
    results, _keep_out = tensors(outputs, [1, 1, 1, 1])
    inputs[1].data, results[1].data, results[3].data = None, None, None
    assert api.run(handle, inputs, 2, results, 4) == 0, api.error()
    assert_same(outputs, want)
    inputs[0].data = None
    assert api.run(handle, inputs, 2, results, 4) != 0
    assert "input 'x' has no data (NULL)" in api.error()
    api.destroy(handle)


def test_the_command_line_runs_a_zero_size_input(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    graph = helper.make_graph([node("Relu", ["x"])], "relu", [x], [helper.make_empty_tensor_value_info("y")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), tmp_path / "m.onnx")
    result = minitvm_cli(
        "run", tmp_path / "m.onnx", "--input-shape", "x=0x4", "--compare-ort", "--repeat", "2",
        "--output-dir", tmp_path / "out",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "output y: float32[0, 4]" in result.stdout and "PASS" in result.stdout
    saved = np.load(tmp_path / "out" / "y.npy")
    assert (saved.shape, saved.dtype) == ((0, 4), np.float32)


def test_the_command_line_takes_declared_zero_dims_and_infinite_outputs(tmp_path: Path) -> None:
    """A 0 in the model's declared shape is a static dim (no --input-shape needed), and the
    -inf of an empty max matches ONNX Runtime's."""
    case = Case(
        [node("ReduceMax", ["x", "axes"], keepdims=0), node("MatMul", ["x", "w"], ["z"])],
        {"x": ((3, 0), F)}, {"axes": ints(1), "w": np.zeros((0, 2), F)}, ("y", "z"),
    )
    onnx.save(case.model(), tmp_path / "m.onnx")
    result = minitvm_cli("run", tmp_path / "m.onnx", "--compare-ort", "--repeat", "2")
    assert result.returncode == 0, result.stderr
    assert "RuntimeWarning" not in result.stderr
    assert "output y: float32[3]  max abs err 0, max rel err 0  PASS" in result.stdout
    assert "output z: float32[3, 2]  max abs err 0, max rel err 0  PASS" in result.stdout
