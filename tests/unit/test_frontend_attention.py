"""ONNX Attention (frontend/onnx_attention.py) compiled end to end against ONNX Runtime.

One small model per feature of the op (3-D and 4-D inputs, grouped-query attention, causal
masks with a KV cache, bool and float masks, softcap, the qk_matmul_output modes,
nonpad_kv_seqlen, sliding windows, softmax_precision, float16), each compiled with
`minitvm.compile` and run against ONNX Runtime on the same inputs; where ONNX Runtime departs
from the spec (a mask shorter than the total sequence, which it rejects) the ONNX reference
implementation is the oracle. The imported graph is checked too: masks known at import time
are one constant, and grouped-query attention repeats neither K nor V.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.func import FuncOp

import minitvm
from minitvm.dialects import graph as g
from minitvm.errors import FrontendError
from minitvm.frontend import from_onnx

F32, F16, BOOL, I64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BOOL, TensorProto.INT64
OUTPUTS = ("Y", "present_key", "present_value", "qk_matmul_output")
INPUTS = ("Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen")


def attention(
    inputs: dict[str, tuple[int, Sequence[int]]],
    outputs: Sequence[str] = ("Y",),
    opset: int = 23,
    **attrs: object,
) -> onnx.ModelProto:
    """An Attention node over graph inputs named as the op's inputs ((elem_type, shape) each;
    absent optional inputs are left out), producing the named outputs."""
    names = [n if n in inputs else "" for n in INPUTS]
    while not names[-1]:
        names.pop()
    outs = [o if o in outputs else "" for o in OUTPUTS]
    while not outs[-1]:
        outs.pop()
    node = helper.make_node("Attention", names, outs, **attrs)
    infos = [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()]
    results = [helper.make_empty_tensor_value_info(o) for o in outputs]
    graph = helper.make_graph([node], "attention", infos, results)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def feeds_for(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in model.graph.input:
        tensor = value.type.tensor_type
        shape = [d.dim_value for d in tensor.shape.dim]
        if tensor.elem_type == BOOL:
            feeds[value.name] = rng.random(shape) < 0.7
        elif tensor.elem_type == I64:
            continue  # nonpad_kv_seqlen: given by the test
        else:
            dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def check(
    model: onnx.ModelProto,
    feeds: dict[str, np.ndarray] | None = None,
    oracle: str = "ort",
    rtol: float = 1e-4,
    atol: float = 1e-5,
) -> list[np.ndarray]:
    """Compile and run `model`, compare every output with the oracle's; returns ours."""
    feeds = feeds_for(model) if feeds is None else feeds
    if oracle == "ort":
        cpu = ["CPUExecutionProvider"]
        want = ort.InferenceSession(model.SerializeToString(), providers=cpu).run(None, feeds)
    else:
        want = ReferenceEvaluator(model).run(None, feeds)
    got = minitvm.compile(model).run(feeds)
    assert len(got) == len(want)
    for name, have, expected in zip((o.name for o in model.graph.output), got, want):
        assert have.dtype == expected.dtype and have.shape == expected.shape, name
        np.testing.assert_allclose(have, expected, rtol=rtol, atol=atol, err_msg=name)
    return got


def graph_ops(model: onnx.ModelProto) -> list[type]:
    main = next(op for op in from_onnx(model).ops if isinstance(op, FuncOp))
    return [type(op) for op in main.body.block.ops if isinstance(op, g.GraphOp | g.ConstantOp)]


def qkv4(b: int, hq: int, hkv: int, sq: int, skv: int, d: int, dv: int | None = None,
         elem: int = F32) -> dict[str, tuple[int, Sequence[int]]]:  # fmt: skip
    return {"Q": (elem, [b, hq, sq, d]), "K": (elem, [b, hkv, skv, d]),
            "V": (elem, [b, hkv, skv, dv or d])}  # fmt: skip


def qkv3(b: int, hq: int, hkv: int, sq: int, skv: int, d: int, dv: int | None = None,
         elem: int = F32) -> dict[str, tuple[int, Sequence[int]]]:  # fmt: skip
    return {"Q": (elem, [b, sq, hq * d]), "K": (elem, [b, skv, hkv * d]),
            "V": (elem, [b, skv, hkv * (dv or d)])}  # fmt: skip


# --------------------------------------------------------------------------------------------
# Layouts and heads
# --------------------------------------------------------------------------------------------


def test_4d_cross_attention_with_its_own_v_head_size() -> None:
    check(attention(qkv4(2, 3, 3, 4, 6, 8, dv=10)))


def test_3d_inputs_split_heads_and_merge_them_back() -> None:
    check(attention(qkv3(2, 3, 3, 4, 6, 8, dv=5), q_num_heads=3, kv_num_heads=3))


@pytest.mark.parametrize("rank", [3, 4])
def test_grouped_query_attention(rank: int) -> None:
    """6 query heads over 2 kv heads, with a per-head mask (rank 4) to group as well."""
    inputs = (qkv4 if rank == 4 else qkv3)(2, 6, 2, 3, 5, 4)
    inputs["attn_mask"] = (F32, [1, 6, 3, 5])
    attrs = {"q_num_heads": 6, "kv_num_heads": 2} if rank == 3 else {}
    check(attention(inputs, **attrs))


def test_multi_query_attention_repeats_neither_k_nor_v() -> None:
    model = attention(qkv4(1, 4, 1, 3, 5, 8), is_causal=1)
    check(model)
    ops = graph_ops(model)
    assert g.ExpandOp not in ops and g.TileOp not in ops and g.ConcatOp not in ops
    assert ops.count(g.MatMulOp) == 2


def test_scale_attribute() -> None:
    check(attention(qkv4(1, 2, 2, 3, 4, 8), scale=0.3))


# --------------------------------------------------------------------------------------------
# Masks and the KV cache
# --------------------------------------------------------------------------------------------


def test_causal_mask_is_one_constant() -> None:
    model = attention(qkv4(1, 2, 2, 5, 5, 8), is_causal=1)
    check(model)
    assert graph_ops(model) == [
        g.TransposeOp, g.MatMulOp, g.ConstantOp, g.MulOp, g.ConstantOp, g.AddOp, g.SoftmaxOp,
        g.MatMulOp,
    ]  # fmt: skip


@pytest.mark.parametrize("rank", [3, 4])
def test_causal_with_past_and_present(rank: int) -> None:
    """The causal frontier is offset by the 3 cached keys; present_* are past ++ new."""
    inputs = (qkv4 if rank == 4 else qkv3)(2, 4, 2, 2, 2, 8, dv=6)
    inputs["past_key"] = (F32, [2, 2, 3, 8])
    inputs["past_value"] = (F32, [2, 2, 3, 6])
    attrs = {"q_num_heads": 4, "kv_num_heads": 2} if rank == 3 else {}
    check(attention(inputs, OUTPUTS[:3], is_causal=1, **attrs))


@pytest.mark.parametrize("shape", [[4, 6], [2, 1, 4, 6], [6]])
def test_bool_mask(shape: list[int]) -> None:
    """(ONNX Runtime rejects a rank-1 mask, which the spec's broadcasting allows.)"""
    inputs = qkv4(2, 3, 3, 4, 6, 8)
    inputs["attn_mask"] = (BOOL, shape)
    check(attention(inputs), oracle="reference" if len(shape) == 1 else "ort")


def test_float_mask_composes_with_causal() -> None:
    inputs = qkv4(2, 3, 3, 4, 6, 8)
    inputs["attn_mask"] = (F32, [2, 3, 4, 6])
    check(attention(inputs, is_causal=1))


def test_fully_masked_row_gives_zeros() -> None:
    inputs = qkv4(1, 2, 2, 3, 4, 8)
    inputs["attn_mask"] = (BOOL, [3, 4])
    model = attention(inputs, ["Y", "qk_matmul_output"], qk_matmul_output_mode=3)
    feeds = feeds_for(model)
    feeds["attn_mask"] = np.array([[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1]], bool)
    y, probs = check(model, feeds)
    assert not y[:, :, 1].any() and not probs[:, :, 1].any()


def test_mask_shorter_than_the_total_sequence_is_padded() -> None:
    """Keys beyond the mask's last dim (here the 2 newest of 2 + 5) are masked out; ONNX
    Runtime rejects such a mask, so the ONNX reference is the oracle."""
    inputs = qkv4(2, 2, 2, 3, 5, 8)
    inputs["attn_mask"] = (F32, [1, 1, 3, 5])
    inputs["past_key"] = (F32, [2, 2, 2, 8])
    inputs["past_value"] = (F32, [2, 2, 2, 8])
    check(attention(inputs, OUTPUTS[:3]), oracle="reference")


def test_nonpad_kv_seqlen_with_causal_and_a_mask() -> None:
    """An external cache of 6 slots, 6 and 4 of them valid: the causal frontier is offset per
    batch (bottom-right), the padding masked."""
    inputs = qkv4(2, 2, 2, 3, 6, 8)
    inputs["attn_mask"] = (BOOL, [2, 1, 3, 6])
    inputs["nonpad_kv_seqlen"] = (I64, [2])
    model = attention(inputs, opset=24, is_causal=1)
    feeds = feeds_for(model)
    feeds["nonpad_kv_seqlen"] = np.array([6, 4], np.int64)
    check(model, feeds)


def test_constant_mask_and_nonpad_fold_into_one_bias() -> None:
    inputs = qkv4(2, 2, 2, 3, 6, 8)
    model = attention({**inputs, "attn_mask": (BOOL, [3, 6]), "nonpad_kv_seqlen": (I64, [2])},
                      opset=24, is_causal=1)  # fmt: skip
    rng = np.random.default_rng(1)
    model.graph.initializer.extend([
        numpy_helper.from_array(rng.random((3, 6)) < 0.8, "attn_mask"),
        numpy_helper.from_array(np.array([5, 3], np.int64), "nonpad_kv_seqlen"),
    ])  # fmt: skip
    del model.graph.input[3:]
    check(model)
    ops = graph_ops(model)
    assert ops.count(g.ConstantOp) == 2 and g.WhereOp not in ops and g.LessEqualOp not in ops


@pytest.mark.parametrize("windows", [{"is_causal": 1, "left_window_size": 2},
                                     {"left_window_size": 1, "right_window_size": 2}])  # fmt: skip
def test_sliding_window(windows: dict[str, int]) -> None:
    inputs = qkv4(2, 2, 2, 4, 4, 8)
    inputs["past_key"] = (F32, [2, 2, 2, 8])
    inputs["past_value"] = (F32, [2, 2, 2, 8])
    check(attention(inputs, opset=25, **windows))


def test_sliding_window_with_nonpad_kv_seqlen() -> None:
    inputs = qkv4(2, 3, 3, 4, 8, 8)
    inputs["attn_mask"] = (F32, [1, 8])
    inputs["nonpad_kv_seqlen"] = (I64, [2])
    model = attention(inputs, opset=25, is_causal=1, left_window_size=2)
    feeds = feeds_for(model)
    feeds["nonpad_kv_seqlen"] = np.array([5, 8], np.int64)
    check(model, feeds)


# --------------------------------------------------------------------------------------------
# Softcap, qk_matmul_output, precision
# --------------------------------------------------------------------------------------------


def test_softcap() -> None:
    check(attention(qkv3(2, 3, 3, 4, 6, 8), q_num_heads=3, kv_num_heads=3, softcap=0.7))


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_qk_matmul_output_modes(mode: int) -> None:
    """0: scaled QK; 1: after softcap; 2: plus the mask; 3: the softmax (the spec's modes;
    for mode 0 with a softcap ONNX's reference returns the softcapped values, ONNX Runtime and
    minitvm the raw ones)."""
    inputs = qkv4(2, 3, 3, 4, 6, 8)
    inputs["attn_mask"] = (F32, [4, 6])
    check(attention(inputs, ["Y", "qk_matmul_output"], softcap=2.0, qk_matmul_output_mode=mode))


def test_softmax_precision_double() -> None:
    inputs = qkv4(1, 2, 2, 3, 4, 8)
    inputs["attn_mask"] = (BOOL, [3, 4])
    check(attention(inputs, ["Y", "qk_matmul_output"], opset=24, softmax_precision=11,
                    qk_matmul_output_mode=3))  # fmt: skip


def test_float16_matches_the_reference_bit_for_bit() -> None:
    """f16 is computed in the reference's f16 steps (matmul sums and softmax sums in f32):
    bit-exact with ONNX's reference, and within 2 ulp of ONNX Runtime."""
    inputs = qkv4(2, 6, 2, 4, 6, 8, elem=F16)
    inputs["attn_mask"] = (F16, [4, 9])
    inputs["past_key"] = (F16, [2, 2, 3, 8])
    inputs["past_value"] = (F16, [2, 2, 3, 8])
    model = attention(inputs, OUTPUTS[:3], is_causal=1)
    feeds = {k: (v * 0.5).astype(np.float16) for k, v in feeds_for(model).items()}
    check(model, feeds, rtol=2e-3, atol=2e-3)
    check(model, feeds, oracle="reference", rtol=0, atol=0)


# --------------------------------------------------------------------------------------------
# A realistic shape
# --------------------------------------------------------------------------------------------


def test_bert_base_shape_with_causal_and_bool_mask() -> None:
    """B=1, S=128, 12 heads of 64 (BERT-base): 3-D inputs, causal and a runtime bool mask."""
    inputs = qkv3(1, 12, 12, 128, 128, 64)
    inputs["attn_mask"] = (BOOL, [1, 1, 128, 128])
    model = attention(inputs, is_causal=1, q_num_heads=12, kv_num_heads=12)
    check(model, rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inputs", "attrs", "opset", "message"),
    [
        (qkv3(1, 2, 2, 3, 3, 4), {}, 23, "q_num_heads and kv_num_heads"),
        (qkv3(1, 2, 2, 3, 3, 4), {"q_num_heads": 3, "kv_num_heads": 2}, 23, "q_num_heads=3"),
        (qkv4(1, 2, 2, 3, 3, 4), {"softmax_precision": 16}, 23, "softmax_precision 16"),
        (qkv4(1, 2, 2, 3, 3, 4), {"qk_matmul_output_mode": 4}, 23, "qk_matmul_output_mode 4"),
        (qkv4(1, 2, 2, 3, 3, 4), {"left_window_size": -2}, 25, "left_window_size"),
        (qkv4(1, 2, 2, 3, 3, 4), {"q_num_heads": 2, "kv_num_heads": 2}, 25, "4-D inputs"),
        ({**qkv4(1, 2, 2, 3, 3, 4), "attn_mask": (I64, [3, 3])}, {}, 23, "attn_mask must be"),
        ({**qkv4(1, 2, 2, 3, 3, 4), "attn_mask": (F32, [3, 4])}, {}, 23, "attn_mask of shape"),
    ],
)
def test_errors_name_the_problem(
    inputs: dict[str, tuple[int, Sequence[int]]], attrs: dict[str, int], opset: int, message: str
) -> None:
    with pytest.raises(FrontendError, match=message):
        from_onnx(attention(inputs, opset=opset, **attrs))
