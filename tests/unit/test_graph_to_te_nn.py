"""convert-graph-to-te on the neural-network graph ops computes what the graph op means.

Each case builds a one-op graph module, lowers it, verifies the te IR and runs it with the te
interpreter (`te_eval`, which also checks that every read is in bounds), then compares with
the graph reference (`reference.evaluate`) and, for convolution, pooling and resize, with ONNX
Runtime on the equivalent single-node ONNX model: the ground truth users compare against.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region

from minitvm.dialects import graph as g
from minitvm.dialects import te_eval
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.constant import element_type_of, numpy_dtype_of
from minitvm.dialects.te import KERNEL_ATTR, ComputeOp
from minitvm.lowering.graph_to_te import ConvertGraphToTePass

RNG = np.random.default_rng(7)
OPSET = 21


def rand(*shape: int, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(np.float32)


@dataclass
class Case:
    """One graph op on `inputs`. With `onnx_op` set, the single-node ONNX model (inputs, then
    `consts` as initializers, None for an absent optional input) is a second oracle."""

    id: str
    build: Callable[..., Operation]
    inputs: list[np.ndarray]
    onnx_op: str | None = None
    attrs: dict = field(default_factory=dict)
    consts: list[np.ndarray | None] = field(default_factory=list)
    #: "ort", or "onnx" (onnx.reference) where ONNX Runtime deviates from the spec.
    oracle: str = "ort"


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------


def contraction_cases() -> list[Case]:
    return [
        Case("matmul_2d", g.MatMulOp.make, [rand(3, 5), rand(5, 4)]),
        Case("matmul_batch_rhs_2d", g.MatMulOp.make, [rand(2, 3, 4), rand(4, 5)]),
        Case("matmul_batch_broadcast", g.MatMulOp.make, [rand(2, 1, 4, 3), rand(5, 3, 6)]),
        Case("matmul_lhs_2d_rhs_batch", g.MatMulOp.make, [rand(3, 4), rand(2, 4, 2)]),
        Case("matmul_vec_lhs", g.MatMulOp.make, [rand(3), rand(2, 3, 4)]),
        Case("matmul_vec_rhs", g.MatMulOp.make, [rand(2, 3, 4), rand(4)]),
        Case("matmul_vec_vec", g.MatMulOp.make, [rand(6), rand(6)]),
        Case("gemm", lambda a, b: g.GemmOp.make(a, b, None), [rand(2, 3), rand(3, 4)]),
        Case("gemm_trans_alpha_beta",
             lambda a, b, c: g.GemmOp.make(a, b, c, alpha=0.5, beta=2.0, trans_a=1, trans_b=1),
             [rand(3, 2), rand(4, 3), rand(4)]),
        Case("gemm_trans_a_matrix_bias", lambda a, b, c: g.GemmOp.make(a, b, c, trans_a=1),
             [rand(5, 3), rand(5, 2), rand(3, 2)]),
        Case("gemm_column_bias_alpha", lambda a, b, c: g.GemmOp.make(a, b, c, alpha=-1.5,
                                                                    trans_b=1),
             [rand(2, 3), rand(4, 3), rand(2, 1)]),
        Case("gemm_scalar_bias_beta0", lambda a, b, c: g.GemmOp.make(a, b, c, beta=0.0),
             [rand(2, 3), rand(3, 4), rand(1)]),
    ]  # fmt: skip


def with_optional_bias(op_class, props: dict, has_bias: bool) -> Callable[..., Operation]:
    return lambda x, w, *b: op_class.make(x, w, b[0] if has_bias else None, **props)


def conv_cases() -> list[Case]:
    cases = []
    for name, (x, w, b, props) in {
        "conv2d": (rand(1, 3, 6, 6), rand(4, 3, 3, 3), rand(4), {}),
        "conv2d_stride_asym_pads": (rand(2, 3, 9, 8), rand(5, 3, 3, 2), rand(5),
                                    {"strides": [2, 3], "pads": [1, 0, 2, 1]}),
        "conv2d_dilated": (rand(1, 2, 10, 9), rand(3, 2, 3, 3), None,
                           {"dilations": [2, 3], "pads": [2, 1, 2, 1]}),
        "conv2d_group": (rand(1, 4, 6, 6), rand(6, 2, 3, 3), rand(6),
                         {"group": 2, "pads": [1, 1, 1, 1]}),
        "conv2d_depthwise": (rand(2, 4, 7, 7), rand(4, 1, 3, 3), None,
                             {"group": 4, "strides": [2, 2], "pads": [1, 1, 1, 1]}),
        "conv2d_depthwise_multiplier": (rand(1, 3, 5, 5), rand(6, 1, 2, 2), rand(6),
                                        {"group": 3, "pads": [0, 1, 1, 0]}),
        "conv2d_1x1": (rand(1, 5, 4, 3), rand(2, 5, 1, 1), rand(2), {}),
        # the conv_nchw template's rows fused into one loop (ShuffleNet's grouped 1x1 convs)
        "conv2d_group_1x1": (rand(2, 6, 5, 4), rand(4, 3, 1, 1), rand(4), {"group": 2}),
        "conv2d_group_1x1_strided": (rand(1, 6, 5, 5), rand(4, 3, 1, 1), None,
                                     {"group": 2, "strides": [2, 2]}),
        "conv1d": (rand(2, 3, 11), rand(4, 3, 3), rand(4),
                   {"strides": [2], "pads": [1, 2], "dilations": [2]}),
        "conv3d": (rand(1, 2, 5, 6, 4), rand(3, 2, 3, 2, 3), rand(3),
                   {"pads": [1, 0, 1, 1, 1, 0], "strides": [1, 2, 1]}),
    }.items():
        inputs = [x, w] + ([b] if b is not None else [])
        cases.append(Case(name, with_optional_bias(g.ConvOp, props, b is not None), inputs,
                          "Conv", dict(props)))
    for name, (x, w, b, props) in {
        "conv_transpose2d": (rand(1, 3, 4, 4), rand(3, 2, 3, 3), rand(2), {"strides": [2, 2]}),
        "conv_transpose2d_pads_output_padding": (
            rand(2, 4, 5, 5), rand(4, 2, 3, 3), None,
            {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]}),
        "conv_transpose2d_asym": (rand(1, 2, 4, 5), rand(2, 3, 2, 3), rand(3),
                                  {"strides": [3, 2], "pads": [0, 1, 2, 0],
                                   "output_padding": [2, 1]}),
        "conv_transpose2d_group_dilated": (rand(1, 4, 3, 3), rand(4, 3, 3, 3), rand(6),
                                           {"group": 2, "strides": [2, 1], "dilations": [2, 2]}),
        "conv_transpose2d_depthwise": (rand(1, 3, 4, 4), rand(3, 1, 3, 3), None,
                                       {"group": 3, "strides": [2, 2], "pads": [1, 1, 0, 0]}),
        "conv_transpose1d": (rand(2, 3, 6), rand(3, 2, 4), None, {"strides": [3], "pads": [1, 2]}),
        "conv_transpose3d": (rand(1, 2, 3, 2, 3), rand(2, 2, 2, 3, 2), rand(2),
                             {"strides": [2, 1, 2], "pads": [0, 1, 1, 0, 1, 0]}),
    }.items():
        inputs = [x, w] + ([b] if b is not None else [])
        cases.append(Case(name, with_optional_bias(g.ConvTransposeOp, props, b is not None),
                          inputs, "ConvTranspose", dict(props)))
    return cases


def pool_cases() -> list[Case]:
    cases = []
    for name, shape, props in [
        ("2d", (1, 2, 6, 6), {"kernel_shape": [2, 2], "strides": [2, 2]}),
        ("2d_pads", (2, 3, 7, 7), {"kernel_shape": [3, 3], "strides": [2, 2],
                                   "pads": [1, 1, 1, 1]}),
        ("2d_asym_pads", (1, 2, 6, 5), {"kernel_shape": [3, 2], "pads": [2, 0, 1, 1]}),
        ("2d_ceil", (1, 2, 7, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
        ("2d_ceil_pads", (1, 1, 6, 6), {"kernel_shape": [3, 3], "strides": [2, 2],
                                        "pads": [1, 1, 1, 1], "ceil_mode": 1}),
        ("2d_ceil_asym_pads", (1, 2, 8, 7), {"kernel_shape": [3, 2], "strides": [3, 2],
                                             "pads": [2, 0, 0, 1], "ceil_mode": 1}),
        ("2d_dilated", (1, 2, 8, 8), {"kernel_shape": [2, 2], "dilations": [2, 3],
                                      "pads": [1, 1, 1, 1]}),
        ("1d", (2, 3, 9), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
        ("3d", (1, 2, 4, 5, 4), {"kernel_shape": [2, 3, 2], "strides": [2, 1, 2],
                                 "pads": [0, 1, 1, 1, 1, 0]}),
    ]:  # fmt: skip
        cases.append(Case(f"max_pool{name}", lambda x, p=props: g.MaxPoolOp.make(x, **p),
                          [rand(*shape)], "MaxPool", dict(props)))
        for include in (0, 1):
            avg = {**props, "count_include_pad": include}
            cases.append(Case(f"avg_pool{name}_include{include}",
                              lambda x, p=avg: g.AvgPoolOp.make(x, **p), [rand(*shape)],
                              "AveragePool", avg))
    cases += [
        Case("global_avg_pool", g.GlobalAvgPoolOp.make, [rand(2, 3, 4, 5)], "GlobalAveragePool"),
        Case("global_max_pool1d", g.GlobalMaxPoolOp.make, [rand(2, 3, 4)], "GlobalMaxPool"),
        Case("global_max_pool", g.GlobalMaxPoolOp.make, [rand(1, 3, 3, 5)], "GlobalMaxPool"),
        Case("global_avg_pool3d", g.GlobalAvgPoolOp.make, [rand(1, 2, 3, 4, 2)],
             "GlobalAveragePool"),
    ]
    return cases


def norm_cases() -> list[Case]:
    c = 3
    return [
        Case("batch_norm", lambda *a: g.BatchNormOp.make(*a, epsilon=1e-3),
             [rand(2, c, 4, 5), rand(c), rand(c), rand(c), rand(c, lo=0.1, hi=2)]),
        Case("batch_norm_2d_input", g.BatchNormOp.make,
             [rand(4, c), rand(c), rand(c), rand(c), rand(c, lo=0.1, hi=2)]),
        Case("layer_norm_axis1", lambda x, s, b: g.LayerNormOp.make(x, s, b, axis=1, epsilon=1e-3),
             [rand(2, 3, 4), rand(3, 4), rand(4)]),
        Case("layer_norm_last_no_bias", lambda x, s: g.LayerNormOp.make(x, s, None, axis=2),
             [rand(2, 3, 8), rand(8)]),
        Case("layer_norm_axis0", lambda x, s, b: g.LayerNormOp.make(x, s, b, axis=0),
             [rand(3, 5), rand(1, 5), rand(3, 1)]),
        Case("lrn", lambda x: g.LRNOp.make(x, size=3, alpha=1e-2, beta=0.6, bias=2.0),
             [rand(2, 6, 3, 3)]),
        Case("lrn_even_size", lambda x: g.LRNOp.make(x, size=4, alpha=0.1, beta=0.75, bias=1.5),
             [rand(2, 7, 2, 3)]),
        Case("lrn_size_exceeds_channels", lambda x: g.LRNOp.make(x, size=5, alpha=0.3),
             [rand(1, 2, 3)]),
        Case("softmax", lambda x: g.SoftmaxOp.make(x, axis=1), [rand(2, 5, 3)]),
        Case("softmax_axis0_large", lambda x: g.SoftmaxOp.make(x, axis=0),
             [rand(4, 3, lo=-80, hi=80)]),
        Case("softmax_last", lambda x: g.SoftmaxOp.make(x, axis=1), [rand(3, 7)]),
        Case("log_softmax", lambda x: g.LogSoftmaxOp.make(x, axis=2), [rand(2, 3, 6)]),
        Case("log_softmax_axis0", lambda x: g.LogSoftmaxOp.make(x, axis=0),
             [rand(5, 2, lo=-30, hi=30)]),
    ]  # fmt: skip


def resize_cases() -> list[Case]:
    cases = []

    def resize(name, shape, scales, oracle="ort", **props):
        sizes = [int(np.floor(s * f)) for s, f in zip(shape, scales)]
        scales_ = np.array(scales, np.float32)
        cases.append(Case(
            f"resize_{name}",
            lambda v: g.ResizeOp.make(v, sizes=sizes, scales=list(scales_), **props),
            [rand(*shape)], "Resize", dict(props), [None, scales_], oracle=oracle,
        ))  # fmt: skip

    transforms = ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                  "asymmetric"]
    for transform in transforms:
        for nearest in ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]:
            resize(f"nearest_{transform}_{nearest}", (1, 2, 4, 3), [1, 1, 2.5, 2.0],
                   mode="nearest", coordinate_transformation_mode=transform,
                   nearest_mode=nearest)
        resize(f"linear_up_{transform}", (1, 2, 3, 4), [1, 1, 2.0, 1.75], mode="linear",
               coordinate_transformation_mode=transform)
        # ONNX Runtime disagrees with the ONNX spec on align_corners downsampling (docs/architecture.md).
        oracle = "onnx" if transform == "align_corners" else "ort"
        resize(f"linear_down_{transform}", (1, 1, 8, 6), [1, 1, 0.5, 0.7], mode="linear",
               coordinate_transformation_mode=transform, oracle=oracle)
        resize(f"nearest_down_{transform}", (1, 1, 8, 6), [1, 1, 0.6, 0.5], mode="nearest",
               coordinate_transformation_mode=transform, oracle=oracle)
    resize("linear_1d_pytorch_single", (2, 3, 5), [1, 1, 0.2], mode="linear",
           coordinate_transformation_mode="pytorch_half_pixel")
    resize("linear_3d", (1, 1, 2, 3, 4), [1, 1, 2.0, 1.5, 0.5], mode="linear")
    # ONNX Runtime interpolates linearly over the two innermost (or 3) dims only.
    resize("linear_channels_too", (1, 2, 3, 3), [1, 2.0, 1.0, 2.0], mode="linear",
           coordinate_transformation_mode="asymmetric", oracle="onnx")
    resize("nearest_default", (1, 3, 4, 4), [1, 1, 2, 2])
    resize("nearest_identity", (1, 2, 3), [1, 1, 1])
    return cases


def u8(*shape: int) -> np.ndarray:
    return RNG.integers(0, 256, shape).astype(np.uint8)


def s8(*shape: int) -> np.ndarray:
    return RNG.integers(-128, 128, shape).astype(np.int8)


def s16(*shape: int) -> np.ndarray:
    """Values in [-255, 255]: an 8-bit operand less its zero point."""
    return RNG.integers(-255, 256, shape).astype(np.int16)


def integer_cases() -> list[Case]:
    """Integer contractions (each operand widened to i32), integer and index pooling."""
    x = rand(2, 2, 7, 7)
    pooled = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}
    arg = Block(arg_types=[TensorType(element_type_of(x.dtype), list(x.shape))]).args[0]
    peaks = reference.evaluate(g.MaxPoolOp.make(arg, **pooled), [x])[0]
    where = reference.evaluate(g.MaxPoolIndicesOp.make(arg, **pooled), [x])[0]
    apart = {"kernel_shape": [2, 2], "strides": [2, 2]}
    x2 = rand(2, 2, 6, 8)
    arg2 = Block(arg_types=[TensorType(element_type_of(x2.dtype), list(x2.shape))]).args[0]
    apart_peaks = reference.evaluate(g.MaxPoolOp.make(arg2, **apart), [x2])[0]
    apart_where = reference.evaluate(g.MaxPoolIndicesOp.make(arg2, **apart), [x2])[0]
    blocked = {"strides": [2, 1], "pads": [1, 1, 0, 1]}
    return [
        Case("matmul_u8_s8", g.MatMulOp.make, [u8(3, 37), s8(37, 20)], "MatMulInteger"),
        Case("matmul_s16_u8_batch", g.MatMulOp.make, [s16(2, 3, 9), u8(9, 4)]),
        Case("matmul_packed_s16_s8", g.MatMulPackedOp.make, [s16(4, 12), s8(2, 12, 16)]),
        Case("conv_u8", lambda a, b: g.ConvOp.make(a, b, None, pads=[1, 0, 1, 2]),
             [u8(1, 3, 6, 5), u8(4, 3, 3, 3)], "ConvInteger", {"pads": [1, 0, 1, 2]}),
        Case("conv_s16_bias_group", lambda a, b, c: g.ConvOp.make(a, b, c, group=2,
                                                                 pads=[1, 1, 1, 1]),
             [s16(1, 4, 5, 5), s8(6, 2, 3, 3), RNG.integers(-999, 999, 6).astype(np.int32)]),
        Case("conv_nchwc_s16", lambda a, b: g.ConvNchwcOp.make(a, b, None, **blocked),
             [s16(1, 2, 6, 5, 4), s8(2, 2, 3, 3, 4, 8)]),
        Case("max_pool_u8", lambda v: g.MaxPoolOp.make(v, **pooled), [u8(1, 2, 7, 6)],
             "MaxPool", dict(pooled)),
        Case("max_pool_s8", lambda v: g.MaxPoolOp.make(v, kernel_shape=[3], pads=[2, 2]),
             [s8(2, 3, 8)], "MaxPool", {"kernel_shape": [3], "pads": [2, 2]}),
        Case("max_pool_indices", lambda v: g.MaxPoolIndicesOp.make(v, **pooled), [x]),
        Case("max_pool_indices_ties_u8",
             lambda v: g.MaxPoolIndicesOp.make(v, kernel_shape=[2, 3], storage_order=1),
             [RNG.integers(0, 3, (1, 2, 5, 6)).astype(np.uint8)]),
        Case("max_pool_indices_3d", lambda v: g.MaxPoolIndicesOp.make(
            v, kernel_shape=[2, 1, 2], strides=[1, 2, 2], ceil_mode=1), [rand(1, 1, 3, 4, 5)]),
        Case("max_unpool_overlapping", lambda v, i: g.MaxUnpoolOp.make(v, i, **pooled),
             [peaks, where], "MaxUnpool", dict(pooled)),
        Case("max_unpool_larger_output", lambda v, i: g.MaxUnpoolOp.make(
            v, i, **apart, output=[8, 9]), [apart_peaks, apart_where]),
        Case("max_unpool", lambda v, i: g.MaxUnpoolOp.make(v, i, **apart),
             [apart_peaks, apart_where], "MaxUnpool", dict(apart)),
    ]  # fmt: skip


CASES = [
    *contraction_cases(), *conv_cases(), *pool_cases(), *norm_cases(), *resize_cases(),
    *integer_cases(),
]


# --------------------------------------------------------------------------------------------
# Harness
# --------------------------------------------------------------------------------------------


def build_module(case: Case) -> tuple[ModuleOp, Operation]:
    """A module whose @main applies `case`'s op to its arguments, and that op."""
    types = [TensorType(element_type_of(x.dtype), list(x.shape)) for x in case.inputs]
    block = Block(arg_types=types)
    op = case.build(*block.args)
    block.add_ops([op, func.ReturnOp(*op.results)])
    main = func.FuncOp("main", (types, [r.type for r in op.results]), Region(block))
    module = ModuleOp([main])
    module.verify()
    return module, op


def run_onnx(case: Case, op: Operation) -> list[np.ndarray]:
    """The outputs of `case`'s single-node ONNX model, from its oracle."""
    assert case.onnx_op is not None
    names = [f"x{i}" for i in range(len(case.inputs))]
    const_names, initializers = [], []
    for i, value in enumerate(case.consts):
        const_names.append("" if value is None else f"c{i}")
        if value is not None:
            initializers.append(numpy_helper.from_array(np.asarray(value), f"c{i}"))
    outputs = []
    for i, result in enumerate(op.results):
        type_ = result.type
        assert isinstance(type_, TensorType)
        dtype = np.dtype(numpy_dtype_of(type_.element_type))
        outputs.append(helper.make_tensor_value_info(
            f"y{i}", helper.np_dtype_to_tensor_dtype(dtype), list(type_.get_shape())))
    node = helper.make_node(case.onnx_op, names + const_names, [o.name for o in outputs],
                            **case.attrs)
    graph = helper.make_graph(
        [node], case.id,
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
         for n, x in zip(names, case.inputs)],
        outputs, initializers,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    feeds = dict(zip(names, case.inputs))
    if case.oracle == "onnx":
        return list(ReferenceEvaluator(model).run(None, feeds))
    ort = pytest.importorskip("onnxruntime")
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def lower(module: ModuleOp) -> ModuleOp:
    ConvertGraphToTePass().apply(Context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_lowering_matches_oracles(case: Case):
    module, op = build_module(case)
    want = reference.evaluate(op, case.inputs)
    oracle = run_onnx(case, op) if case.onnx_op is not None else None
    got = te_eval.run_module(lower(module), case.inputs)
    kernels = [f for f in module.ops if isinstance(f, func.FuncOp) and KERNEL_ATTR in f.attributes]
    assert len(kernels) == 1 and not any(o.dialect_name() == "graph" for o in module.walk())
    assert len(got) == len(want)
    for n, (result, value, expected) in enumerate(zip(op.results, got, want)):
        assert isinstance(result.type, TensorType)
        assert value.dtype == expected.dtype and value.shape == tuple(result.type.get_shape())
        # reference.evaluate returns rank-0 results as shape (1,) (np.ascontiguousarray).
        np.testing.assert_allclose(value, expected.reshape(value.shape), rtol=1e-4, atol=1e-5,
                                   err_msg=f"{case.id} result {n} vs reference")
        if oracle is not None:
            np.testing.assert_allclose(value, oracle[n], rtol=1e-4, atol=1e-5,
                                       err_msg=f"{case.id} result {n} vs {case.oracle}")


def test_every_nn_op_is_covered():
    covered = {type(build_module(c)[1]) for c in CASES}
    assert set(g.NN_OPS) | {g.ResizeOp} <= covered


def computes_of(case: Case) -> list[ComputeOp]:
    module = lower(build_module(case)[0])
    return [o for o in module.walk() if isinstance(o, ComputeOp)]


def test_conv_pads_with_a_separate_compute_and_adds_bias_after_the_reduction():
    x, w, b = rand(1, 2, 5, 5), rand(3, 2, 3, 3), rand(3)
    padded, acc, biased = computes_of(Case(
        "conv", lambda *a: g.ConvOp.make(*a, pads=[1, 0, 0, 1]), [x, w, b]))  # fmt: skip
    assert padded.shape == (1, 2, 6, 6) and padded.reduce_kind is None
    assert acc.reduce_kind is not None and acc.reduce_kind.data == "sum"
    assert acc.extents == (2, 3, 3)
    assert biased.reduce_kind is None and biased.shape == (1, 3, 4, 4)
    # Without pads or bias: the reduction alone. Depthwise: no channel reduction axis.
    (only,) = computes_of(Case("dw", lambda a, c: g.ConvOp.make(a, c, None, group=2),
                               [x, rand(4, 1, 2, 2)]))
    assert only.extents == (2, 2)


def test_max_pool_reads_minus_infinity_in_the_padding():
    """An all-negative input: a 0 in the padding would win the max."""
    x = -rand(1, 1, 3, 3, lo=1, hi=2)
    case = Case("neg", lambda v: g.MaxPoolOp.make(v, kernel_shape=[2, 2], pads=[1, 1, 1, 1]),
                [x])
    (y,) = te_eval.run_module(lower(build_module(case)[0]), [x])
    assert (y < 0).all()
    np.testing.assert_array_equal(y[0, 0, 0, 0], x[0, 0, 0, 0])
