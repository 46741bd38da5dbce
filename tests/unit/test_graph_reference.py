"""The reference semantics of the graph dialect agree with ONNX Runtime, op by op.

Each case builds one graph op (properties already normalized, as the frontend would) and the
single-node ONNX model it stands for, runs the model with ONNX Runtime's CPU provider and
compares with `reference.evaluate`. A disagreement means either the reference or the mapping
between ONNX attributes and graph properties (docs/graph_ops.md) is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f16, f32, f64, i1, i8, i32, i64
from xdsl.ir import Block, Operation, Region

from minitvm.dialects import graph as g
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.constant import element_type_of, numpy_dtype_of

ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(1234)
OPSET = 21
INT64_MIN = np.iinfo(np.int64).min


def rand(*shape: int, lo: float = -2.0, hi: float = 2.0, dtype=np.float32) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(dtype)


def ints(*shape: int, lo: int = -5, hi: int = 6, dtype=np.int64) -> np.ndarray:
    return RNG.integers(lo, hi, shape).astype(dtype)


def nonzero_ints(*shape: int, dtype=np.int64) -> np.ndarray:
    x = ints(*shape, dtype=dtype)
    return np.where(x == 0, 3, x).astype(dtype)


def i64s(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


@dataclass
class Case:
    """One graph op and its ONNX counterpart.

    `build(*args)` makes the graph op from block arguments holding `inputs`; the ONNX node
    `onnx_op` takes `inputs` then `consts` (initializers; None for an absent optional input).
    """

    id: str
    build: Callable[..., Operation]
    onnx_op: str
    inputs: list[np.ndarray]
    attrs: dict = field(default_factory=dict)
    consts: list[np.ndarray | None] = field(default_factory=list)
    opset: int = OPSET
    #: "ort", or "onnx" (onnx.reference) where ONNX Runtime rejects or deviates from the spec.
    oracle: str = "ort"
    #: ONNX outputs before those the op computes, dropped (MaxPool's Y before its Indices).
    leading_outputs: int = 0


def unary_cases() -> list[Case]:
    x = rand(2, 3, 4)
    positive = rand(2, 3, 4, lo=0.1, hi=3.0)
    return [
        Case("relu", g.ReluOp.make, "Relu", [x]),
        Case("sigmoid", g.SigmoidOp.make, "Sigmoid", [rand(3, 5, lo=-30, hi=30)]),
        Case("tanh", g.TanhOp.make, "Tanh", [x]),
        Case("erf", g.ErfOp.make, "Erf", [x]),
        Case("exp", g.ExpOp.make, "Exp", [x]),
        Case("log", g.LogOp.make, "Log", [positive]),
        Case("sqrt", g.SqrtOp.make, "Sqrt", [positive]),
        Case("reciprocal", g.ReciprocalOp.make, "Reciprocal", [positive]),
        Case("neg", g.NegOp.make, "Neg", [x]),
        Case("neg_i64", g.NegOp.make, "Neg", [ints(3, 4)]),
        Case("abs", g.AbsOp.make, "Abs", [x]),
        Case("abs_i32", g.AbsOp.make, "Abs", [ints(3, 4, dtype=np.int32)]),
        Case("hard_swish", g.HardSwishOp.make, "HardSwish", [rand(4, 5, lo=-5, hi=5)]),
        Case("gelu", g.GeluOp.make, "Gelu", [rand(4, 5, lo=-4, hi=4)]),
        Case("gelu_tanh", lambda v: g.GeluOp.make(v, approximate="tanh"), "Gelu",
             [rand(4, 5, lo=-4, hi=4)], {"approximate": "tanh"}),
        Case("leaky_relu", lambda v: g.LeakyReluOp.make(v, alpha=0.1), "LeakyRelu", [x],
             {"alpha": 0.1}),
        Case("leaky_relu_default", g.LeakyReluOp.make, "LeakyRelu", [x]),
        Case("hard_sigmoid", lambda v: g.HardSigmoidOp.make(v, alpha=0.3, beta=0.4),
             "HardSigmoid", [rand(4, 5, lo=-5, hi=5)], {"alpha": 0.3, "beta": 0.4}),
        Case("clip", lambda v: g.ClipOp.make(v, min=-0.5, max=1.0), "Clip", [x],
             consts=[np.float32(-0.5), np.float32(1.0)]),
        Case("clip_min", lambda v: g.ClipOp.make(v, min=0.0), "Clip", [x],
             consts=[np.float32(0.0)]),
        Case("clip_max", lambda v: g.ClipOp.make(v, max=6.0), "Clip", [rand(9, lo=0, hi=9)],
             consts=[None, np.float32(6.0)]),
        Case("clip_i64", lambda v: g.ClipOp.make(v, min=-2.0, max=3.0), "Clip", [ints(10)],
             consts=[np.int64(-2), np.int64(3)]),
    ]


def cast_cases() -> list[Case]:
    def cast(to, onnx_to):
        return lambda v: g.CastOp.make(v, to=to), "Cast", {"to": onnx_to}

    cases = []
    for name, x, to, onnx_to in [
        ("f32_i64", rand(3, 4, lo=-9, hi=9), i64, TensorProto.INT64),
        ("i64_f32", ints(3, 4), f32, TensorProto.FLOAT),
        ("f32_bool", np.array([0.0, 1.5, -2.0, 0.0], np.float32), i1, TensorProto.BOOL),
        ("bool_f32", np.array([True, False, True]), f32, TensorProto.FLOAT),
        ("f32_f16", rand(3, 4), f16, TensorProto.FLOAT16),
        ("i32_i8", ints(6, dtype=np.int32), i8, TensorProto.INT8),
    ]:
        build, op, attrs = cast(to, onnx_to)
        cases.append(Case(f"cast_{name}", build, op, [x], attrs))
    return cases


def binary_cases() -> list[Case]:
    a, b = rand(2, 3, 4), rand(3, 1)
    cases = [
        Case(f"{op.lower()}", make, op, [a, b])
        for op, make in [("Add", g.AddOp.make), ("Sub", g.SubOp.make), ("Mul", g.MulOp.make),
                         ("Max", g.MaxOp.make), ("Min", g.MinOp.make),
                         ("Less", g.LessOp.make), ("Greater", g.GreaterOp.make)]
    ]
    ia, ib = ints(4, 5), nonzero_ints(5)
    cases += [
        Case("div", g.DivOp.make, "Div", [a, rand(4, lo=0.5, hi=2)]),
        Case("div_i64_truncates", g.DivOp.make, "Div", [ia, ib]),
        Case("div_i32_truncates", g.DivOp.make, "Div",
             [ints(4, 5, dtype=np.int32), nonzero_ints(4, 5, dtype=np.int32)]),
        Case("pow", g.PowOp.make, "Pow", [rand(3, 4, lo=0.1, hi=3), rand(4, lo=-2, hi=2)]),
        Case("add_i32", g.AddOp.make, "Add", [ints(2, 3, dtype=np.int32), ints(3, dtype=np.int32)]),
        Case("mul_i64", g.MulOp.make, "Mul", [ia, ints(1, 5)]),
        Case("equal_i64", g.EqualOp.make, "Equal", [ia, ints(5, lo=-1, hi=2)]),
        Case("equal", g.EqualOp.make, "Equal",
             [np.array([1, 2, 3], np.float32), np.array([1, 0, 3], np.float32)]),
        Case("less_i64", g.LessOp.make, "Less", [ia, ints(4, 1)]),
        Case("prelu", g.PReluOp.make, "PRelu", [rand(1, 3, 4, 4), rand(3, 1, 1)]),
        Case("where", g.WhereOp.make, "Where", [rand(2, 3) > 0, rand(2, 3), rand(3)]),
        Case("where_i64", g.WhereOp.make, "Where", [rand(4, 1) > 0, ints(4, 3), ints(3)]),
    ]
    return cases


def math_logic_cases() -> list[Case]:
    """The math, activation, logic and bit ops of issue 20, one ONNX Runtime case each."""
    x, unit = rand(2, 3, 4, lo=-3, hi=3), rand(2, 3, 4, lo=-0.9, hi=0.9)
    cases = [
        Case(name.lower(), cls.make, name, [unit if name in ("Asin", "Acos", "Atanh") else x])
        for name, cls in [("Sin", g.SinOp), ("Cos", g.CosOp), ("Tan", g.TanOp), ("Asin", g.AsinOp),
                          ("Acos", g.AcosOp), ("Atan", g.AtanOp), ("Sinh", g.SinhOp),
                          ("Cosh", g.CoshOp), ("Asinh", g.AsinhOp), ("Atanh", g.AtanhOp),
                          ("Ceil", g.CeilOp), ("Floor", g.FloorOp), ("Round", g.RoundOp),
                          ("Sign", g.SignOp), ("Softplus", g.SoftplusOp),
                          ("Softsign", g.SoftsignOp), ("Mish", g.MishOp), ("Elu", g.EluOp),
                          ("Selu", g.SeluOp), ("Celu", g.CeluOp),
                          ("ThresholdedRelu", g.ThresholdedReluOp), ("Shrink", g.ShrinkOp),
                          ("IsNaN", g.IsNaNOp), ("IsInf", g.IsInfOp)]
    ]  # fmt: skip
    ia, ib = ints(4, 5, dtype=np.int32), nonzero_ints(5, dtype=np.int32)
    p, q = rand(3, 4) > 0, rand(4) > 0
    cases += [
        Case("acosh", g.AcoshOp.make, "Acosh", [rand(3, 4, lo=1.0, hi=5.0)]),
        Case("sign_i32", g.SignOp.make, "Sign", [ia]),
        Case("shrink_attrs", lambda v: g.ShrinkOp.make(v, bias=0.5, lambd=1.0), "Shrink", [x],
             {"bias": 0.5, "lambd": 1.0}),
        Case("is_inf_positive", lambda v: g.IsInfOp.make(v, detect_negative=0), "IsInf",
             [np.array([np.inf, -np.inf, 1.0, np.nan], np.float32)], {"detect_negative": 0}),
        Case("not", g.NotOp.make, "Not", [p]),
        Case("and", g.AndOp.make, "And", [p, q]),
        Case("or", g.OrOp.make, "Or", [p, q]),
        Case("xor", g.XorOp.make, "Xor", [p, q]),
        Case("greater_equal", g.GreaterEqualOp.make, "GreaterOrEqual", [ia, ib]),
        Case("less_equal", g.LessEqualOp.make, "LessOrEqual", [x, rand(4, lo=-3, hi=3)]),
        Case("bitwise_not", g.BitwiseNotOp.make, "BitwiseNot", [ia]),
        Case("bitwise_and", g.BitwiseAndOp.make, "BitwiseAnd", [ia, ib]),
        Case("bitwise_or", g.BitwiseOrOp.make, "BitwiseOr", [ia, ib]),
        Case("bitwise_xor", g.BitwiseXorOp.make, "BitwiseXor", [ia, ib]),
        Case("bit_shift_right", lambda a, b: g.BitShiftOp.make(a, b, direction="right"),
             "BitShift", [ia.astype(np.uint32), np.arange(5, dtype=np.uint32)],
             {"direction": "RIGHT"}),
        Case("mod_i32", g.ModOp.make, "Mod", [ia, ib]),
        Case("fmod_f32", lambda a, b: g.ModOp.make(a, b, fmod=1), "Mod",
             [x, rand(4, lo=0.5, hi=2)], {"fmod": 1}),
        Case("pow_i64_f32", g.PowOp.make, "Pow",
             [ints(3, 4, lo=0, hi=5), rand(4, lo=0, hi=3)]),
    ]  # fmt: skip
    return cases


def contraction_cases() -> list[Case]:
    return [
        Case("matmul_batch", g.MatMulOp.make, "MatMul", [rand(2, 3, 4), rand(4, 5)]),
        Case("matmul_vec_lhs", g.MatMulOp.make, "MatMul", [rand(3), rand(3, 4)]),
        Case("matmul_vec_rhs", g.MatMulOp.make, "MatMul", [rand(2, 3, 4), rand(4)]),
        Case("matmul_broadcast", g.MatMulOp.make, "MatMul", [rand(2, 1, 4, 3), rand(5, 3, 6)]),
        Case("gemm", lambda a, b, c: g.GemmOp.make(a, b, c, alpha=0.5, beta=2.0, trans_a=1,
                                                  trans_b=1),
             "Gemm", [rand(3, 2), rand(4, 3), rand(4)],
             {"alpha": 0.5, "beta": 2.0, "transA": 1, "transB": 1}),
        Case("gemm_no_bias", lambda a, b: g.GemmOp.make(a, b, None), "Gemm",
             [rand(2, 3), rand(3, 4)]),
        Case("gemm_matrix_bias", lambda a, b, c: g.GemmOp.make(a, b, c, trans_b=1), "Gemm",
             [rand(2, 3), rand(4, 3), rand(2, 1)], {"transB": 1}),
    ]


def conv_cases() -> list[Case]:
    def conv(x, w, b, **props):
        def build(*args):
            return g.ConvOp.make(args[0], args[1], args[2] if b is not None else None, **props)

        inputs = [x, w] + ([b] if b is not None else [])
        attrs = {k: v for k, v in props.items()}
        return build, inputs, attrs

    cases = []
    for name, (x, w, b, props) in {
        "conv2d": (rand(1, 3, 8, 8), rand(4, 3, 3, 3), rand(4), {}),
        "conv2d_stride_pad": (rand(2, 3, 9, 8), rand(5, 3, 3, 2), rand(5),
                              {"strides": [2, 3], "pads": [1, 0, 2, 1]}),
        "conv2d_dilated": (rand(1, 2, 10, 9), rand(3, 2, 3, 3), None,
                           {"dilations": [2, 3], "pads": [2, 1, 2, 1]}),
        "conv2d_group": (rand(1, 4, 6, 6), rand(6, 2, 3, 3), rand(6),
                         {"group": 2, "pads": [1, 1, 1, 1]}),
        "conv2d_depthwise": (rand(2, 4, 7, 7), rand(4, 1, 3, 3), None,
                             {"group": 4, "strides": [2, 2], "pads": [1, 1, 1, 1]}),
        "conv1d": (rand(2, 3, 11), rand(4, 3, 3), rand(4),
                   {"strides": [2], "pads": [1, 2], "dilations": [2]}),
        "conv3d": (rand(1, 2, 5, 6, 4), rand(3, 2, 3, 2, 3), rand(3),
                   {"pads": [1, 0, 1, 1, 1, 0], "strides": [1, 2, 1]}),
    }.items():
        build, inputs, attrs = conv(x, w, b, **props)
        cases.append(Case(name, build, "Conv", inputs, attrs))
    for name, (x, w, b, props) in {
        "conv_transpose2d": (rand(1, 3, 4, 4), rand(3, 2, 3, 3), rand(2), {"strides": [2, 2]}),
        "conv_transpose2d_pads": (rand(2, 4, 5, 5), rand(4, 2, 3, 3), None,
                                  {"strides": [2, 2], "pads": [1, 1, 1, 1],
                                   "output_padding": [1, 1]}),
        "conv_transpose2d_asym": (rand(1, 2, 4, 5), rand(2, 3, 2, 3), rand(3),
                                  {"strides": [3, 2], "pads": [0, 1, 2, 0],
                                   "output_padding": [2, 1]}),
        "conv_transpose2d_group": (rand(1, 4, 3, 3), rand(4, 3, 3, 3), rand(6),
                                   {"group": 2, "strides": [2, 1], "dilations": [2, 2]}),
        "conv_transpose1d": (rand(2, 3, 6), rand(3, 2, 4), None, {"strides": [3], "pads": [1, 2]}),
        "conv_transpose3d": (rand(1, 2, 3, 2, 3), rand(2, 2, 2, 3, 2), rand(2),
                             {"strides": [2, 1, 2], "pads": [0, 1, 1, 0, 1, 0]}),
    }.items():

        def build(*args, _props=props, _has_bias=b is not None):
            return g.ConvTransposeOp.make(args[0], args[1], args[2] if _has_bias else None,
                                          **_props)

        inputs = [x, w] + ([b] if b is not None else [])
        cases.append(Case(name, build, "ConvTranspose", inputs, dict(props)))
    return cases


def norm_cases() -> list[Case]:
    c = 3
    bn_inputs = [rand(2, c, 4, 5), rand(c), rand(c), rand(c), rand(c, lo=0.1, hi=2)]
    return [
        Case("batch_norm", lambda *a: g.BatchNormOp.make(*a, epsilon=1e-3),
             "BatchNormalization", bn_inputs, {"epsilon": 1e-3}),
        Case("batch_norm_1d", g.BatchNormOp.make, "BatchNormalization",
             [rand(4, c), rand(c), rand(c), rand(c), rand(c, lo=0.1, hi=2)]),
        Case("layer_norm", lambda x, s, b: g.LayerNormOp.make(x, s, b, axis=1, epsilon=1e-3),
             "LayerNormalization", [rand(2, 3, 4), rand(3, 4), rand(4)],
             {"axis": 1, "epsilon": 1e-3}),
        Case("layer_norm_no_bias", lambda x, s: g.LayerNormOp.make(x, s, None, axis=2),
             "LayerNormalization", [rand(2, 3, 8), rand(8)], {"axis": 2}),
        Case("lrn", lambda x: g.LRNOp.make(x, size=3, alpha=1e-2, beta=0.6, bias=2.0), "LRN",
             [rand(2, 6, 3, 3)], {"size": 3, "alpha": 1e-2, "beta": 0.6, "bias": 2.0}),
        Case("softmax", lambda x: g.SoftmaxOp.make(x, axis=1), "Softmax", [rand(2, 5, 3)],
             {"axis": 1}),
        Case("softmax_axis0", lambda x: g.SoftmaxOp.make(x, axis=0), "Softmax",
             [rand(4, 3, lo=-50, hi=50)], {"axis": 0}),
        Case("log_softmax", lambda x: g.LogSoftmaxOp.make(x, axis=2), "LogSoftmax",
             [rand(2, 3, 6)], {"axis": 2}),
    ]


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
        ("2d_dilated", (1, 2, 8, 8), {"kernel_shape": [2, 2], "dilations": [2, 3],
                                      "pads": [1, 1, 1, 1]}),
        ("1d", (2, 3, 9), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
        ("3d", (1, 2, 4, 5, 4), {"kernel_shape": [2, 3, 2], "strides": [2, 1, 2],
                                 "pads": [0, 1, 1, 1, 1, 0]}),
    ]:
        cases.append(Case(f"max_pool{name}", lambda x, p=props: g.MaxPoolOp.make(x, **p),
                          "MaxPool", [rand(*shape)], dict(props)))
        for include in (0, 1):
            avg = {**props, "count_include_pad": include}
            cases.append(Case(f"avg_pool{name}_include{include}",
                              lambda x, p=avg: g.AvgPoolOp.make(x, **p), "AveragePool",
                              [rand(*shape)], avg))
    cases += [
        Case("global_avg_pool", g.GlobalAvgPoolOp.make, "GlobalAveragePool", [rand(2, 3, 4, 5)]),
        Case("global_max_pool", g.GlobalMaxPoolOp.make, "GlobalMaxPool", [rand(2, 3, 4)]),
        Case("global_avg_pool3d", g.GlobalAvgPoolOp.make, "GlobalAveragePool",
             [rand(1, 2, 3, 4, 2)]),
    ]
    return cases


def reduce_cases() -> list[Case]:
    cases = []
    for op, make in [("ReduceSum", g.ReduceSumOp.make), ("ReduceMean", g.ReduceMeanOp.make),
                     ("ReduceMax", g.ReduceMaxOp.make)]:
        for axes, keep in [([1], 1), ([0, 2], 0), ([0, 1, 2], 1)]:
            cases.append(Case(f"{op}_{'_'.join(map(str, axes))}_keep{keep}",
                              lambda x, m=make, a=axes, k=keep: m(x, axes=a, keepdims=k), op,
                              [rand(2, 3, 4)], {"keepdims": keep}, [i64s(*axes)]))
    cases.append(Case("ReduceSum_i64", lambda x: g.ReduceSumOp.make(x, axes=[1]), "ReduceSum",
                      [ints(3, 4)], {}, [i64s(1)]))
    positive = rand(2, 3, 4, lo=0.1, hi=3.0)
    for op, cls, x in [("ReduceMin", g.ReduceMinOp, rand(2, 3, 4)),
                       ("ReduceProd", g.ReduceProdOp, rand(2, 3, 4)),
                       ("ReduceL1", g.ReduceL1Op, rand(2, 3, 4)),
                       ("ReduceL2", g.ReduceL2Op, rand(2, 3, 4)),
                       ("ReduceSumSquare", g.ReduceSumSquareOp, rand(2, 3, 4)),
                       ("ReduceLogSum", g.ReduceLogSumOp, positive),
                       ("ReduceLogSumExp", g.ReduceLogSumExpOp, rand(2, 3, 4, lo=-50, hi=50))]:
        for axes, keep in [([1], 1), ([0, 2], 0)]:
            cases.append(Case(f"{op}_{'_'.join(map(str, axes))}_keep{keep}",
                              lambda v, c=cls, a=axes, k=keep: c.make(v, axes=a, keepdims=k), op,
                              [x], {"keepdims": keep}, [i64s(*axes)]))
    for op, cls in [("ReduceMin", g.ReduceMinOp), ("ReduceProd", g.ReduceProdOp),
                    ("ReduceL1", g.ReduceL1Op), ("ReduceSumSquare", g.ReduceSumSquareOp)]:
        cases.append(Case(f"{op}_i64", lambda v, c=cls: c.make(v, axes=[1]), op, [ints(3, 4)],
                          {}, [i64s(1)]))
    cases.append(Case("ReduceMin_bool", lambda v: g.ReduceMinOp.make(v, axes=[0]), "ReduceMin",
                      [RNG.random((3, 4)) > 0.3], {}, [i64s(0)]))
    ties = ints(3, 4, 5, lo=0, hi=3).astype(np.float32)
    for op, cls in [("ArgMax", g.ArgMaxOp), ("ArgMin", g.ArgMinOp)]:
        for axis, keep, last in [(1, 1, 0), (2, 0, 1), (0, 1, 1)]:
            cases.append(Case(
                f"{op}_axis{axis}_keep{keep}_last{last}",
                lambda v, c=cls, a=axis, k=keep, s=last: c.make(
                    v, axis=a, keepdims=k, select_last_index=s),
                op, [ties], {"axis": axis, "keepdims": keep, "select_last_index": last}))
        cases.append(Case(f"{op}_i64", lambda v, c=cls: c.make(v, axis=1), op, [ints(3, 4)],
                          {"axis": 1}))
    return cases


def movement_cases() -> list[Case]:
    x = rand(2, 3, 4)
    return [
        Case("reshape", lambda v: g.ReshapeOp.make(v, shape=[4, 6]), "Reshape", [x],
             consts=[i64s(4, 6)]),
        Case("expand", lambda v: g.ExpandOp.make(v, shape=[2, 3, 4]), "Expand",
             [rand(3, 1)], consts=[i64s(2, 3, 4)]),
        # (graph.range takes no operands: ONNX's Range of the same numbers)
        Case("range", lambda: g.RangeOp.make(start=3, delta=-2, length=4, element_type=i64),
             "Range", [], consts=[np.array(3, np.int64), np.array(-5, np.int64), np.array(-2, np.int64)]),
        Case("sizes", lambda: g.SizesOp.make(values=[2, 3, 4], shape=[3], element_type=i64),
             "Shape", [], consts=[rand(2, 3, 4)]),
        Case("transpose", lambda v: g.TransposeOp.make(v, perm=[2, 0, 1]), "Transpose", [x],
             {"perm": [2, 0, 1]}),
        Case("concat", lambda a, b, c: g.ConcatOp.make([a, b, c], axis=1), "Concat",
             [rand(2, 1, 4), rand(2, 3, 4), rand(2, 2, 4)], {"axis": 1}),
        Case("concat_i64", lambda a, b: g.ConcatOp.make([a, b], axis=0), "Concat",
             [ints(2), ints(3)], {"axis": 0}),
        Case("split", lambda v: g.SplitOp.make(v, axis=2, sizes=[1, 3]), "Split", [x],
             {"axis": 2}, [i64s(1, 3)]),
        Case("slice", lambda v: g.SliceOp.make(v, starts=[0, 1, 1], ends=[2, 3, 4],
                                               steps=[1, 1, 2]),
             "Slice", [x], consts=[i64s(0, 1, 1), i64s(2, 3, 4), i64s(0, 1, 2), i64s(1, 1, 2)]),
        Case("slice_reverse", lambda v: g.SliceOp.make(v, starts=[9, 5], ends=[-1, 0],
                                                       steps=[-2, -1]),
             "Slice", [rand(10, 6)],
             consts=[i64s(9, 5), i64s(INT64_MIN, 0), i64s(0, 1), i64s(-2, -1)]),
        Case("slice_empty", lambda v: g.SliceOp.make(v, starts=[2, 0], ends=[2, 3],
                                                     steps=[1, 1]),
             "Slice", [rand(4, 3)], consts=[i64s(2, 0), i64s(2, 3), i64s(0, 1), i64s(1, 1)]),
        Case("gather", lambda d, i: g.GatherOp.make(d, i, axis=1), "Gather",
             [x, i64s(0, -1, 2, -3).reshape(2, 2)], {"axis": 1}),
        Case("gather_i32_axis0", lambda d, i: g.GatherOp.make(d, i, axis=0), "Gather",
             [rand(5, 3), np.array([4, -5, 0], np.int32)], {"axis": 0}),
        Case("gather_scalar", lambda d, i: g.GatherOp.make(d, i, axis=2), "Gather",
             [x, np.array(-1, np.int64)], {"axis": 2}),
        Case("pad_constant", lambda v: g.PadOp.make(v, pads=[0, 1, 2, 1, 0, 1], value=1.5),
             "Pad", [x], {}, [i64s(0, 1, 2, 1, 0, 1), np.float32(1.5)]),
        Case("pad_reflect", lambda v: g.PadOp.make(v, pads=[0, 2, 1, 0, 1, 3], mode="reflect"),
             "Pad", [x], {"mode": "reflect"}, [i64s(0, 2, 1, 0, 1, 3)]),
        Case("pad_edge", lambda v: g.PadOp.make(v, pads=[1, 0, 3, 2, 1, 0], mode="edge"),
             "Pad", [x], {"mode": "edge"}, [i64s(1, 0, 3, 2, 1, 0)]),
        Case("pad_i64", lambda v: g.PadOp.make(v, pads=[1, 2], value=7.0), "Pad", [ints(3)],
             {}, [i64s(1, 2), np.int64(7)]),
        Case("tile", lambda v: g.TileOp.make(v, repeats=[2, 1, 3]), "Tile", [x],
             consts=[i64s(2, 1, 3)]),
    ]


def resize_cases() -> list[Case]:
    cases = []

    def resize(name, shape, scales, oracle="ort", **props):
        sizes = [int(np.floor(s * f)) for s, f in zip(shape, scales)]
        scales_ = np.array(scales, np.float32)
        cases.append(Case(
            f"resize_{name}",
            lambda v: g.ResizeOp.make(v, sizes=sizes, scales=list(scales_), **props),
            "Resize", [rand(*shape)], dict(props), [None, scales_], oracle=oracle,
        ))

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
    resize("linear_3d_pytorch_single", (2, 3, 5), [1, 1, 0.2], mode="linear",
           coordinate_transformation_mode="pytorch_half_pixel")
    resize("linear_pytorch_single_rounded", (1, 1, 5), [1, 1, 0.3], mode="linear",
           coordinate_transformation_mode="pytorch_half_pixel")
    resize("nearest_default", (1, 3, 4, 4), [1, 1, 2, 2])
    # Cubic and antialiased filters, exclude_outside (ONNX Runtime rejects it for plain
    # linear, where it changes nothing).
    for mode in ("linear", "cubic"):
        for antialias in (0, 1):
            for scales in ([1, 1, 0.6, 0.45], [1, 1, 1.75, 2.5]):
                way = "down" if scales[2] < 1 else "up"
                resize(f"{mode}{'_antialias' * antialias}_{way}", (1, 2, 5, 6), scales,
                       mode=mode, antialias=antialias)
            resize(f"{mode}{'_antialias' * antialias}_exclude_outside", (1, 2, 5, 6),
                   [1, 1, 0.7, 1.5], mode=mode, antialias=1 if mode == "linear" else antialias,
                   exclude_outside=1, cubic_coeff_a=-0.5)
    resize("cubic_align_corners", (1, 1, 4, 5), [1, 1, 2.0, 1.6], mode="cubic",
           coordinate_transformation_mode="align_corners")
    resize("cubic_asymmetric", (1, 1, 4, 5), [1, 1, 1.5, 0.8], mode="cubic",
           coordinate_transformation_mode="asymmetric")

    def crop(name, sizes, roi, oracle="ort", **props):
        shape = (1, 2, 4, 4)
        scales = [o / s for o, s in zip(sizes, shape)]
        transform = {"coordinate_transformation_mode": "tf_crop_and_resize"}
        cases.append(Case(
            f"resize_crop_{name}",
            lambda v: g.ResizeOp.make(v, sizes=sizes, scales=scales, roi=roi, **transform, **props),
            "Resize", [rand(*shape)], {**transform, **props},
            [np.float32(roi), None, np.int64(sizes)], oracle=oracle,
        ))  # fmt: skip

    # ONNX Runtime computes the crop's coordinates with the output length, the reference with
    # scale * size: the sizes keep the two equal.
    box = [0, 0, 0.2, -0.25, 1, 1, 0.9, 1.25]
    for mode in ("nearest", "linear", "cubic"):
        crop(mode, [1, 2, 6, 8], box, mode=mode, extrapolation_value=2.5)
    crop("single_row", [1, 2, 1, 8], box, mode="linear")
    crop("down_inside", [1, 2, 3, 2], [0, 0, 0.25, 0.1, 1, 1, 0.75, 0.6], mode="cubic")
    return cases


def index_cases() -> list[Case]:
    """Element gathers and scatters (negative and, for scatters, duplicate indices), running
    sums and products, sequence reversal."""
    cases = [
        Case("gather_elements", lambda d, i: g.GatherElementsOp.make(d, i, axis=1),
             "GatherElements", [rand(3, 4), i64s(0, -1, 3, 1, 2, -4).reshape(2, 3)], {"axis": 1}),
        Case("gather_elements_i32_axis0", lambda d, i: g.GatherElementsOp.make(d, i, axis=0),
             "GatherElements", [ints(3, 3), np.array([[1, -1, 0], [2, 0, -3]], np.int32)]),
        Case("gather_nd", g.GatherNDOp.make, "GatherND",
             [rand(2, 3, 4), i64s(1, -1, 0, 2, -2, 0).reshape(3, 2)]),
        Case("gather_nd_batch", lambda d, i: g.GatherNDOp.make(d, i, batch_dims=1), "GatherND",
             [ints(2, 3, 4), i64s(2, 0, -1, 1).reshape(2, 2, 1)], {"batch_dims": 1}),
        Case("gather_nd_full_tuple", g.GatherNDOp.make, "GatherND",
             [rand(2, 3), i64s(1, 2, 0, -1).reshape(2, 2)]),
        Case("scatter_nd_element_tuples", g.ScatterNDOp.make, "ScatterND",
             [rand(2, 3), i64s(1, 2, 0, -1).reshape(2, 2), rand(2)]),
    ]
    for reduction in ("none", "add", "mul", "max", "min"):
        attrs = {} if reduction == "none" else {"reduction": reduction}
        cases += [
            Case(f"scatter_elements_{reduction}",
                 lambda d, i, u, r=reduction: g.ScatterElementsOp.make(d, i, u, axis=1, reduction=r),
                 "ScatterElements", [rand(3, 5), i64s(1, -1, 1, 0, 0, 4).reshape(3, 2), rand(3, 2)],
                 {"axis": 1, **attrs}),
            Case(f"scatter_nd_{reduction}",
                 lambda d, i, u, r=reduction: g.ScatterNDOp.make(d, i, u, reduction=r),
                 "ScatterND", [ints(4, 2, 3), i64s(2, -1, 2).reshape(3, 1), ints(3, 2, 3)], attrs),
        ]
    cases.append(Case("scatter_elements_i32_short", lambda d, i, u: g.ScatterElementsOp.make(
        d, i, u, axis=0), "ScatterElements",
        [rand(4, 3), np.array([[3, -4]], np.int32), rand(1, 2)]))  # fmt: skip
    for exclusive in (0, 1):
        for reverse in (0, 1):
            flags = {"exclusive": exclusive, "reverse": reverse}
            tag = f"{'_exclusive' * exclusive}{'_reverse' * reverse}"
            cases += [
                Case(f"cum_sum{tag}", lambda v, f=flags: g.CumSumOp.make(v, axis=1, **f),
                     "CumSum", [rand(2, 5, 3)], flags, [np.int64(1)]),
                Case(f"cum_prod_i32{tag}", lambda v, f=flags: g.CumProdOp.make(v, axis=0, **f),
                     "CumProd", [ints(4, 3, dtype=np.int32)], flags, [np.int32(0)], opset=26),
            ]
    cases += [
        Case("reverse_sequence_batch0", lambda x, n: g.ReverseSequenceOp.make(
            x, n, batch_axis=0, time_axis=1), "ReverseSequence", [rand(4, 5, 2), i64s(1, 5, 0, 3)],
            {"batch_axis": 0, "time_axis": 1}),
        Case("reverse_sequence_time0", lambda x, n: g.ReverseSequenceOp.make(
            x, n, batch_axis=1, time_axis=0), "ReverseSequence", [ints(4, 3), i64s(4, 2, 1)]),
    ]  # fmt: skip
    return cases


def integer_cases() -> list[Case]:
    """Integer contractions, integer and index pooling, wrap padding and bitcasts."""
    u8 = lambda *shape: ints(*shape, lo=0, hi=256, dtype=np.uint8)
    s8 = lambda *shape: ints(*shape, lo=-128, hi=128, dtype=np.int8)
    x = rand(2, 3, 7, 7)  # its pool unpools to 7 x 7 again: the indices are into x
    pooled = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}
    arg = Block(arg_types=[TensorType(f32, list(x.shape))]).args[0]
    peaks = reference.evaluate(g.MaxPoolOp.make(arg, **pooled), [x])[0]
    where = reference.evaluate(g.MaxPoolIndicesOp.make(arg, **pooled), [x])[0]
    return [
        Case("matmul_u8_s8", g.MatMulOp.make, "MatMulInteger", [u8(3, 40), s8(40, 5)]),
        Case("matmul_s8_u8_batch", g.MatMulOp.make, "MatMulInteger",
             [s8(2, 3, 9), u8(2, 9, 4)]),
        Case("conv_u8", lambda a, b: g.ConvOp.make(a, b, None, strides=[2, 1]), "ConvInteger",
             [u8(1, 3, 7, 6), u8(4, 3, 3, 2)], {"strides": [2, 1]}),
        Case("max_pool_u8", lambda v: g.MaxPoolOp.make(v, **pooled), "MaxPool",
             [u8(1, 2, 7, 6)], dict(pooled)),
        Case("max_pool_s8", lambda v: g.MaxPoolOp.make(v, kernel_shape=[2]), "MaxPool",
             [s8(2, 2, 9)], {"kernel_shape": [2]}),
        Case("max_pool_indices", lambda v: g.MaxPoolIndicesOp.make(v, **pooled), "MaxPool",
             [x], dict(pooled), leading_outputs=1),
        Case("max_pool_indices_column_major",
             lambda v: g.MaxPoolIndicesOp.make(v, kernel_shape=[2, 2], storage_order=1),
             "MaxPool", [x], {"kernel_shape": [2, 2], "storage_order": 1}, leading_outputs=1),
        Case("max_pool_indices_3d",
             lambda v: g.MaxPoolIndicesOp.make(v, kernel_shape=[2, 2, 2], strides=[2, 1, 2]),
             "MaxPool", [rand(1, 2, 4, 3, 5)], {"kernel_shape": [2, 2, 2], "strides": [2, 1, 2]},
             leading_outputs=1),
        Case("max_unpool", lambda v, i: g.MaxUnpoolOp.make(v, i, **pooled), "MaxUnpool",
             [peaks, where], dict(pooled)),
        # ONNX Runtime reads the indices in output_shape's layout, the ONNX reference in the
        # unpooled size's (docs/graph_ops.md): the reference is the oracle.
        Case("max_unpool_output_shape",
             lambda v, i: g.MaxUnpoolOp.make(v, i, **pooled, output=[8, 9]), "MaxUnpool",
             [peaks, where], dict(pooled), [i64s(2, 3, 8, 9)], oracle="onnx"),
        Case("pad_wrap", lambda v: g.PadOp.make(v, pads=[0, 3, 1, 0, 5, 2], mode="wrap"),
             "Pad", [rand(2, 3, 4)], {"mode": "wrap"}, [i64s(0, 3, 1, 0, 5, 2)]),
        Case("bitcast_f32_i32", lambda v: g.BitcastOp.make(v, to=i32), "BitCast",
             [rand(3, 4)], {"to": TensorProto.INT32}, opset=26),
        Case("bitcast_u8_s8", lambda v: g.BitcastOp.make(v, to=i8), "BitCast", [u8(5)],
             {"to": TensorProto.INT8}, opset=26),
        Case("bitcast_i64_f64", lambda v: g.BitcastOp.make(v, to=f64), "BitCast",
             [ints(4, lo=-(2**40), hi=2**40)], {"to": TensorProto.DOUBLE}, opset=26),
    ]


def sampling_cases() -> list[Case]:
    """grid_sample in every mode and padding, roi_align over boxes inside, across and off the
    map (and a box of negative size), col2im with strides, pads and dilations. Where ONNX
    Runtime departs from ONNX's reference (it does not clamp a cubic grid point under border
    padding; it has no 5-D cubic), the reference is the oracle."""
    cases = []
    x, grid = rand(2, 3, 5, 4), rand(2, 6, 7, 2, lo=-1.3, hi=1.3)
    volume, volume_grid = rand(1, 2, 3, 4, 5), rand(1, 2, 3, 4, 3, lo=-1.2, hi=1.2)
    for mode in ("nearest", "linear", "cubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                props = {"mode": mode, "padding_mode": padding, "align_corners": align}
                oracle = "onnx" if mode == "cubic" and padding == "border" else "ort"
                cases.append(Case(
                    f"grid_sample_{mode}_{padding}_{align}",
                    lambda a, b, p=props: g.GridSampleOp.make(a, b, **p), "GridSample", [x, grid],
                    props, opset=20, oracle=oracle,
                ))  # fmt: skip
                if align:
                    continue
                cases.append(Case(
                    f"grid_sample_3d_{mode}_{padding}",
                    lambda a, b, p=props: g.GridSampleOp.make(a, b, **p), "GridSample",
                    [volume, volume_grid], props, opset=20,
                    oracle="onnx" if mode == "cubic" else "ort",
                ))  # fmt: skip
    image = rand(2, 3, 10, 12)
    rois = np.float32([[0, 0, 9, 9], [1.3, 2.1, 7.7, 5.2], [-3, -2, 15, 14], [4, 4, 4.2, 4.3],
                       [20, 20, 30, 30], [5, 5, 2, 3]])  # fmt: skip
    batch = i64s(0, 1, 1, 0, 1, 0)
    for mode in ("avg", "max"):
        for transform in ("half_pixel", "output_half_pixel"):
            for ratio in (0, 2):
                props = {"mode": mode, "coordinate_transformation_mode": transform,
                         "sampling_ratio": ratio, "output_height": 3, "output_width": 4,
                         "spatial_scale": 0.8}  # fmt: skip
                cases.append(Case(
                    f"roi_align_{mode}_{transform}_{ratio}",
                    lambda a, b, c, p=props: g.RoiAlignOp.make(a, b, c, **p), "RoiAlign",
                    [image, rois, batch], props, opset=16,
                ))  # fmt: skip

    def col2im(name, shape, image_shape, block_shape, **props):
        cases.append(Case(
            f"col2im_{name}",
            lambda v: g.Col2ImOp.make(v, image_shape=image_shape, block_shape=block_shape, **props),
            "Col2Im", [rand(*shape)], props, [np.int64(image_shape), np.int64(block_shape)],
            opset=18,
        ))  # fmt: skip

    col2im("2d", (1, 5, 5), [5, 5], [1, 5])
    col2im("strides_pads_dilations", (2, 8, 8), [6, 7], [2, 2], strides=[2, 3],
           pads=[1, 0, 1, 1], dilations=[1, 2])
    col2im("3d", (1, 16, 36), [4, 5, 4], [2, 2, 2], strides=[1, 2, 1], pads=[0, 1, 1, 0, 0, 0])
    return cases


CASES = [
    *unary_cases(), *cast_cases(), *binary_cases(), *math_logic_cases(), *contraction_cases(),
    *conv_cases(), *norm_cases(), *pool_cases(), *reduce_cases(), *movement_cases(), *resize_cases(),
    *index_cases(), *integer_cases(), *sampling_cases(),
]


def build_op(case: Case) -> Operation:
    """The graph op of `case`, on block arguments of the input types (verified)."""
    types = [TensorType(element_type_of(x.dtype), list(x.shape)) for x in case.inputs]
    block = Block(arg_types=types)
    op = case.build(*block.args)
    block.add_op(op)
    op.verify()
    return op


def run_onnx(case: Case, op: Operation) -> list[np.ndarray]:
    """The outputs of `case`'s single-node ONNX model, from its oracle."""
    names = [f"x{i}" for i in range(len(case.inputs))]
    initializers = []
    const_names = []
    for i, value in enumerate(case.consts):
        if value is None:
            const_names.append("")
            continue
        const_names.append(f"c{i}")
        initializers.append(numpy_helper.from_array(np.asarray(value), f"c{i}"))
    outputs = []
    for i, result in enumerate(op.results):
        type_ = result.type
        assert isinstance(type_, TensorType)
        dtype = np.dtype(numpy_dtype_of(type_.element_type))
        outputs.append(helper.make_tensor_value_info(
            f"y{i}", helper.np_dtype_to_tensor_dtype(dtype), list(type_.get_shape())))
    dropped = [f"dropped{i}" for i in range(case.leading_outputs)]
    node = helper.make_node(case.onnx_op, names + const_names,
                            dropped + [o.name for o in outputs], **case.attrs)
    graph = helper.make_graph(
        [node], case.id,
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
         for n, x in zip(names, case.inputs)],
        outputs, initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", case.opset)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    if case.oracle == "onnx":
        return list(ReferenceEvaluator(model).run(None, dict(zip(names, case.inputs))))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, dict(zip(names, case.inputs)))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_onnxruntime(case: Case):
    op = build_op(case)
    got = reference.evaluate(op, case.inputs)
    want = run_onnx(case, op)
    assert len(got) == len(want)
    for result, g_, w in zip(op.results, got, want):
        assert g_.dtype == numpy_dtype_of(result.type.element_type)  # type: ignore[attr-defined]
        assert g_.shape == w.shape
        np.testing.assert_allclose(g_, w, rtol=1e-4, atol=1e-5, err_msg=case.id)


def test_every_graph_op_is_covered():
    """Each op class has a reference kernel and at least one ONNX Runtime case above (but the
    blocked-layout and Winograd ops, which ONNX lacks: test_graph_nchwc.py and test_winograd.py
    check them against graph.conv; and flat_nonzero, whose ONNX kin NonZero gives another
    shape: below, and test_data_dependent.py through NonZero; iota and check, which ONNX
    lacks: below, and test_run_time_shapes.py through Range, Tile, Expand and Reshape; argsort,
    whose ONNX kin TopK has two results: below, and test_data_dependent.py through TopK;
    greedy_nms, NonMaxSuppression's greedy pass, and invert_permutation: below, and
    test_data_dependent.py through NonMaxSuppression and Unique; reshape_to_sizes, whose sizes
    are iotas: below, and test_run_time_shapes.py through Reshape)."""
    covered = {type(build_op(c)) for c in CASES} | {
        g.ConstantOp, g.FlatNonzeroOp, g.IotaOp, g.CheckOp, g.ArgSortOp, g.GreedyNmsOp, g.InvertPermutationOp,
        g.ReshapeToSizesOp,
    }  # fmt: skip
    assert set(reference.supported_ops()) == set(g.GRAPH_OPS)
    assert not set(g.GRAPH_OPS) - covered - set(g.LAYOUT_OPS) - set(g.WINOGRAD_OPS)


def test_flat_nonzero_gives_the_true_positions_in_order():
    mask = np.array([[True, False, True], [False, False, True]])
    op = build_op(Case("flat_nonzero", lambda m: g.FlatNonzeroOp.make(m, size="nz"), "NonZero", [mask]))
    (positions,) = reference.evaluate(op, [mask])
    np.testing.assert_array_equal(positions, [0, 2, 5])
    assert positions.dtype == np.int64 and op.bound == 6 and op.size == "nz"


def test_lrn_even_size_follows_the_spec_formula():
    """ONNX Runtime rejects even sizes and onnx.reference's LRN loops over the batch dim
    instead of channels, so the spec's formula itself is the oracle here."""
    x = rand(2, 7, 2, 3)
    size, alpha, beta, bias = 4, 1e-2, 0.75, 1.5
    op = build_op(Case("lrn", lambda v: g.LRNOp.make(v, size=size, alpha=alpha, beta=beta,
                                                     bias=bias), "LRN", [x]))
    want = np.empty_like(x)
    for c in range(x.shape[1]):
        lo, hi = max(0, c - (size - 1) // 2), min(x.shape[1], c + -(-(size - 1) // 2) + 1)
        square_sum = (x[:, lo:hi].astype(np.float64) ** 2).sum(axis=1)
        want[:, c] = x[:, c] / (bias + alpha / size * square_sum) ** beta
    np.testing.assert_allclose(reference.evaluate(op, [x])[0], want, rtol=1e-5, atol=1e-6)


def test_constant_evaluates_to_its_value():
    value = rand(3, 70)
    (got,) = reference.evaluate(g.ConstantOp.from_array(value, "c"), [])
    np.testing.assert_array_equal(got, value)


def test_gather_out_of_range_is_an_error_not_a_wraparound():
    op = build_op(Case("gather", lambda d, i: g.GatherOp.make(d, i, axis=0), "Gather",
                       [rand(3, 2), i64s(0, 3)]))
    with pytest.raises(reference.EvaluationError, match=r"must be in \[-3, 3\)"):
        reference.evaluate(op, [rand(3, 2), i64s(0, 3)])


@pytest.mark.parametrize("make, inputs, message", [
    (lambda d, i: g.GatherElementsOp.make(d, i, axis=0), [rand(3, 2), i64s(0, -4).reshape(1, 2)],
     r"graph.gather_elements: index -4 at position \[0, 1\] is outside \[-3, 3\)"),
    (g.GatherNDOp.make, [rand(3, 2), i64s(1, 2).reshape(1, 2)],
     r"graph.gather_nd: index 2 at position \[0, 0, 1\] is outside \[-2, 2\)"),
    (g.ScatterNDOp.make, [rand(3, 2), i64s(3).reshape(1, 1), rand(1, 2)],
     r"graph.scatter_nd: index 3 at position \[0, 0\] is outside \[-3, 3\)"),
    (lambda x, n: g.ReverseSequenceOp.make(x, n, batch_axis=1, time_axis=0), [rand(3, 2), i64s(1, 4)],
     r"sequence_lens must be in \[0, 3\]"),
    (lambda x, r, n: g.RoiAlignOp.make(x, r, n, output_height=1, output_width=1),
     [rand(1, 1, 4, 4), np.float32([[0, 0, 2, 2]]), i64s(1)],
     r"graph.roi_align: batch_indices must be in \[0, 1\), got values in \[1, 1\]"),
])  # fmt: skip
def test_index_out_of_range_is_an_error(make, inputs, message):
    op = build_op(Case("bad", make, "", inputs))
    with pytest.raises(reference.EvaluationError, match=message):
        reference.evaluate(op, inputs)


def test_scatter_none_with_duplicates_keeps_the_last_update():
    data, indices, updates = np.zeros((1, 4), np.float32), i64s(2, 2, 0, 2).reshape(1, 4), rand(1, 4)
    op = build_op(Case("dup", lambda d, i, u: g.ScatterElementsOp.make(d, i, u, axis=1),
                       "ScatterElements", [data, indices, updates]))
    (got,) = reference.evaluate(op, [data, indices, updates])
    np.testing.assert_array_equal(got, [[updates[0, 2], 0, updates[0, 3], 0]])


def test_tf_crop_and_resize_follows_the_reference_for_fractional_lengths():
    """ONNX Runtime maps crop coordinates with the rounded output length; the reference (and
    minitvm) with scale * size, here 5 * 1.3 = 6.5 for 6 output rows."""
    x = rand(1, 1, 5, 4)
    roi = [0, 0, 0.1, 0, 1, 1, 0.8, 1]
    case = Case("crop", lambda v: g.ResizeOp.make(
        v, sizes=[1, 1, 6, 4], scales=[1, 1, 1.3, 1], roi=roi, mode="linear",
        coordinate_transformation_mode="tf_crop_and_resize"), "Resize", [x],
        {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize"},
        [np.float32(roi), np.float32([1, 1, 1.3, 1])], oracle="onnx")  # fmt: skip
    op = build_op(case)
    np.testing.assert_allclose(reference.evaluate(op, [x])[0], run_onnx(case, op)[0], rtol=1e-5)


def test_run_module_interprets_main_by_name_and_position():
    """run_module chains ops through SSA values and binds inputs by name hint or position."""
    types = [TensorType(f32, [2, 3]), TensorType(f32, [3])]
    block = Block(arg_types=types)
    block.args[0].name_hint = "data"
    add = g.AddOp.make(block.args[0], block.args[1])
    relu = g.ReluOp.make(add.result)
    weight = g.ConstantOp.from_array(np.full((3, 2), 0.5, np.float32))
    mm = g.MatMulOp.make(relu.result, weight.result)
    block.add_ops([add, relu, weight, mm, func.ReturnOp(mm.result, add.result)])
    fn = func.FuncOp("main", (types, [mm.result.type, add.result.type]), Region(block))
    module = ModuleOp([fn])
    module.verify()
    x, b = rand(2, 3), rand(3)
    out, s = reference.run_module(module, {"data": x, 1: b})
    np.testing.assert_allclose(s, x + b, rtol=1e-6)
    np.testing.assert_allclose(out, np.maximum(x + b, 0) @ np.full((3, 2), 0.5), rtol=1e-5)
    with pytest.raises(reference.EvaluationError, match="argument #1"):
        reference.run_module(module, {"data": x})
    with pytest.raises(reference.EvaluationError, match="shape"):
        reference.run_module(module, {0: x, 1: rand(2)})
    with pytest.raises(reference.EvaluationError, match=r"\['dat'\] name no argument"):
        reference.run_module(module, {"dat": x, 1: b})
    np.testing.assert_array_equal(reference.run_module(module, [x, b])[0], out)



def test_iota_counts_up_to_its_count_and_a_check_raises_its_message():
    count = np.array(4, np.int64)
    op = build_op(Case("iota", lambda n: g.IotaOp.make(n, size="len"), "Range", [count]))
    np.testing.assert_array_equal(reference.evaluate(op, [count])[0], [0, 1, 2, 3])
    assert reference.evaluate(op, [np.array(-2, np.int64)])[0].shape == (0,)
    assert op.size == "len" and str(op.bound) == "len_cap"
    check = build_op(Case("check", lambda ok: g.CheckOp.make(ok, check="c", message="it failed"), "Not", [np.True_]))
    assert reference.evaluate(check, [np.True_]) == []
    with pytest.raises(reference.EvaluationError, match="it failed"):
        reference.evaluate(check, [np.False_])


def test_reshape_to_sizes_reads_its_input_row_major_in_the_sizes_of_its_iotas():
    types = [TensorType(f32, [24]), TensorType(i64, []), TensorType(i64, [])]
    block = Block(arg_types=types)
    rows = g.IotaOp.make(block.args[1], size="r0", group="r")
    cols = g.IotaOp.make(block.args[2], size="r1", group="r")
    reshape = g.ReshapeToSizesOp.make(block.args[0], [rows.result, cols.result])
    block.add_ops([rows, cols, reshape, func.ReturnOp(reshape.result)])
    module = ModuleOp([func.FuncOp("main", (types, [reshape.result.type]), Region(block))])
    module.verify()
    assert rows.group_name == cols.group_name == "r"
    x = np.arange(24, dtype=np.float32)
    for shape in [(4, 6), (24, 1), (1, 24)]:
        (y,) = reference.run_module(module, [x, *(np.array(n, np.int64) for n in shape)])
        np.testing.assert_array_equal(y, x.reshape(shape))


@pytest.mark.parametrize("descending", [0, 1])
def test_argsort_is_stable(descending: int):
    x = np.array([[3, 1, 3, 2, 1], [0, 0, 0, 0, 0]], np.int32)
    op = build_op(Case("argsort", lambda v: g.ArgSortOp.make(v, descending=descending), "TopK", [x]))
    want = [[0, 2, 3, 1, 4], [0, 1, 2, 3, 4]] if descending else [[1, 4, 3, 0, 2], [0, 1, 2, 3, 4]]
    np.testing.assert_array_equal(reference.evaluate(op, [x])[0], want)


def test_greedy_nms_keeps_boxes_in_score_order_until_the_class_is_full():
    """Class 0: box 1 (score 0.9) is kept, box 0 (0.8) overlaps it (IoU 0.81) and is not,
    box 2 (tied at 0.5 with box 3, first for its lower index) is kept, and max 2 ends the
    pass there. Class 1: nothing above the threshold; without one, its two best. The boxes
    come as ONNX gives them: corners [y1, x1, y2, x2] (box 0's in the other order), or
    centers and sizes."""
    corners = np.float32([[0, 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30], [40, 40, 50, 50]])  # x0 y0 x1 y1
    boxes = corners[:, [1, 0, 3, 2]][None]  # [1, 4, 4]
    boxes[0, 0] = boxes[0, 0, [2, 3, 0, 1]]
    scores = np.float32([[[0.8, 0.9, 0.5, 0.5], [0.1, 0.2, 0.0, 0.3]]])
    inputs = [boxes, scores, np.int64(2), np.float32(0.5), np.float32(0.4)]
    op = build_op(Case("greedy_nms", lambda *v: g.GreedyNmsOp.make(*v, thresholded=1), "NonMaxSuppression", inputs))
    keep, order = reference.evaluate(op, inputs)
    np.testing.assert_array_equal(order, [[[1, 0, 2, -1], [-1, -1, -1, -1]]])
    np.testing.assert_array_equal(keep, [[[True, False, True, False], [False] * 4]])
    unthresholded = build_op(Case("greedy_nms", lambda *v: g.GreedyNmsOp.make(*v), "NonMaxSuppression", inputs))
    keep, order = reference.evaluate(unthresholded, inputs)
    np.testing.assert_array_equal(order[0, 1], [3, 1, -1, -1])
    np.testing.assert_array_equal(keep[0, 1], [True, True, False, False])
    sizes = corners[:, 2:] - corners[:, :2]
    centered = [np.concatenate([corners[:, :2] + sizes / 2, sizes], 1)[None], *inputs[1:]]
    by_center = build_op(Case("greedy_nms", lambda *v: g.GreedyNmsOp.make(*v, thresholded=1, center_point_box=1),
                              "NonMaxSuppression", centered))  # fmt: skip
    keep, order = reference.evaluate(by_center, centered)
    np.testing.assert_array_equal(order, [[[1, 0, 2, -1], [-1, -1, -1, -1]]])
    np.testing.assert_array_equal(keep, [[[True, False, True, False], [False] * 4]])


def test_invert_permutation_reads_a_sort_back():
    perm = np.random.default_rng(3).permutation(1000).astype(np.int64)
    op = build_op(Case("invert_permutation", g.InvertPermutationOp.make, "Identity", [perm]))
    (inverse,) = reference.evaluate(op, [perm])
    np.testing.assert_array_equal(inverse[perm], np.arange(1000))
