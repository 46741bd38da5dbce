"""graph-conv-transpose-as-conv: 2-D transposed convs run as one conv of their phases and a
pixel shuffle, computing what ONNX Runtime computes; the others (grouped, dilated, 1-D) are
left as they are and are still right."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from graph_pipeline import count, optimized
from onnx import TensorProto, helper, numpy_helper
from test_fusion import run_ort

import minitvm
from minitvm.compiler import random_inputs
from minitvm.dialects import graph as g


def conv_transpose(
    c: int, o: int, hw: tuple[int, ...], kernel: int | tuple[int, ...], batch: int = 1,
    bias: bool = True, relu: bool = True, **attrs: object,
) -> onnx.ModelProto:  # fmt: skip
    """x [batch, c, *hw] -> ConvTranspose (constant weights, `attrs`) [-> Relu]."""
    rng = np.random.default_rng(c * 100 + o)
    group = int(attrs.get("group", 1))  # type: ignore[arg-type]
    kernel = (kernel,) * len(hw) if isinstance(kernel, int) else kernel
    w = (rng.standard_normal((c, o // group, *kernel)) / np.sqrt(c)).astype(np.float32)
    inits = [numpy_helper.from_array(w, "w")]
    if bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(o).astype(np.float32), "b"))
    node = helper.make_node("ConvTranspose", ["x", "w", *(["b"] if bias else [])], ["t"],
                            kernel_shape=list(kernel), **attrs)  # fmt: skip
    nodes = [node, *([helper.make_node("Relu", ["t"], ["y"])] if relu else [])]
    out = "y" if relu else "t"
    graph = helper.make_graph(
        nodes, "ct", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, c, *hw])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)], inits,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return onnx.shape_inference.infer_shapes(model)


REWRITTEN = {
    "2x2s2_64to32_bias_relu": lambda: conv_transpose(64, 32, (28, 28), 2, strides=[2, 2]),
    "3x3s3_16to8_nobias": lambda: conv_transpose(16, 8, (5, 7), 3, bias=False, relu=False,
                                                 strides=[3, 3]),  # fmt: skip
    "2x2s2_batch2_17to24": lambda: conv_transpose(17, 24, (6, 4), 2, batch=2, strides=[2, 2]),
    # overlapping windows: K = k / s taps per phase, a full conv, the pads sliced off
    "4x4s2p1_dcgan_32to16": lambda: conv_transpose(32, 16, (7, 9), 4, strides=[2, 2],
                                                   pads=[1, 1, 1, 1]),  # fmt: skip
    "4x4s2_no_pads": lambda: conv_transpose(8, 8, (5, 5), 4, strides=[2, 2]),
    "3x3s1p1_as_a_conv": lambda: conv_transpose(16, 16, (6, 6), 3, pads=[1, 1, 1, 1]),
    # a kernel that is no multiple of the stride: zero taps up to one
    "3x3s2_overlapping": lambda: conv_transpose(8, 8, (6, 6), 3, strides=[2, 2]),
    "3x3s2p1_output_padding": lambda: conv_transpose(16, 8, (5, 6), 3, strides=[2, 2],
                                                     pads=[1, 1, 1, 1], output_padding=[1, 1]),  # fmt: skip
    "5x5s3_asymmetric_pads": lambda: conv_transpose(8, 16, (4, 5), 5, strides=[3, 3],
                                                    pads=[2, 0, 1, 3]),  # fmt: skip
    "2x3_strides_2x1": lambda: conv_transpose(8, 8, (5, 6), (2, 3), strides=[2, 1],
                                              pads=[0, 1, 0, 1]),  # fmt: skip
    "2x2s2_padded": lambda: conv_transpose(8, 8, (6, 6), 2, strides=[2, 2], pads=[1, 1, 1, 1]),
    "2x2s2_output_padding": lambda: conv_transpose(8, 8, (6, 6), 2, strides=[2, 2],
                                                   output_padding=[1, 1]),  # fmt: skip
}
LEFT = {
    "grouped": lambda: conv_transpose(8, 8, (6, 6), 2, strides=[2, 2], group=2),
    "dilated": lambda: conv_transpose(8, 8, (6, 6), 3, strides=[2, 2], dilations=[2, 2]),
    "1d": lambda: conv_transpose(8, 8, (9,), 4, strides=[2], pads=[1, 1]),
}


def assert_matches_onnxruntime(model: onnx.ModelProto, threads: int) -> None:
    exe = minitvm.compile(model, num_threads=threads)
    feeds = random_inputs(exe, seed=1)
    for ours, theirs in zip(exe.run(feeds), run_ort(model, feeds), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", sorted(REWRITTEN))
def test_transposed_convs_run_as_convs(case: str, threads: int) -> None:
    model = REWRITTEN[case]()
    module = optimized(model)
    assert count(module, g.ConvTransposeOp) == 0
    assert count(module, g.ConvNchwcOp) + count(module, g.ConvOp) >= 1
    assert_matches_onnxruntime(model, threads)


@pytest.mark.parametrize("case", sorted(LEFT))
def test_other_transposed_convs_are_left_and_still_right(case: str) -> None:
    model = LEFT[case]()
    assert count(optimized(model), g.ConvTransposeOp) == 1
    assert_matches_onnxruntime(model, threads=1)
