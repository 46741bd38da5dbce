"""graph-conv-layout never changes results, and leaves layout transforms only at the edges.

Each case is a small ONNX model with random weights compiled at opt_level 3 (where the pass
runs) and compared with opt_level 1 (plain NCHW convs) and ONNX Runtime; the structural checks
count what is left of the layout transforms after the graph pipeline.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from graph_pipeline import count, optimized
from test_fusion import ATOL, RTOL, Net, run_ort

import minitvm
from minitvm.compiler import random_inputs
from minitvm.dialects import graph as g
from minitvm.passes.graph.conv_layout import blocked_weights


def residual_stage(seed: int) -> onnx.ModelProto:
    """Two ResNet blocks, the second entered through a strided 1x1 downsample."""
    net = Net(seed)
    x = net.input("x", [1, 16, 12, 12])
    y = net.op(
        "Relu",
        [
            net.batch_norm(
                net.op("Conv", [x, net.weight("w1", [16, 16, 3, 3], 0.15)], pads=[1, 1, 1, 1]), 16
            )
        ],
    )
    y = net.batch_norm(
        net.op("Conv", [y, net.weight("w2", [16, 16, 3, 3], 0.15)], pads=[1, 1, 1, 1]), 16
    )
    x = net.op("Relu", [net.op("Add", [y, x])])
    skip = net.batch_norm(net.op("Conv", [x, net.weight("wd", [32, 16, 1, 1])], strides=[2, 2]), 32)
    y = net.op(
        "Relu",
        [
            net.batch_norm(
                net.op(
                    "Conv",
                    [x, net.weight("w3", [32, 16, 3, 3], 0.15)],
                    pads=[1, 1, 1, 1],
                    strides=[2, 2],
                ),
                32,
            )
        ],
    )
    y = net.batch_norm(
        net.op("Conv", [y, net.weight("w4", [32, 32, 3, 3], 0.1)], pads=[1, 1, 1, 1]), 32
    )
    return net.model([net.op("Relu", [net.op("Add", [y, skip])])])


def dense_block(seed: int) -> onnx.ModelProto:
    """DenseNet: pre-activation BN-ReLU-conv layers whose outputs are concatenated onto the
    block's input, then a transition (BN-ReLU-1x1 conv, average pool)."""
    net = Net(seed)
    x = net.input("x", [1, 16, 8, 8])
    features, channels = x, 16
    for _ in range(2):
        y = net.op("Relu", [net.batch_norm(features, channels)])
        y = net.op("Conv", [y, net.weight(f"a{channels}", [32, channels, 1, 1], 0.2)])
        y = net.op("Relu", [net.batch_norm(y, 32)])
        y = net.op("Conv", [y, net.weight(f"b{channels}", [16, 32, 3, 3], 0.1)], pads=[1, 1, 1, 1])
        features, channels = net.op("Concat", [features, y], axis=1), channels + 16
    y = net.op("Relu", [net.batch_norm(features, channels)])
    y = net.op("Conv", [y, net.weight("t", [32, channels, 1, 1], 0.2)])
    return net.model([net.op("AveragePool", [y], kernel_shape=[2, 2], strides=[2, 2])])


def rgb_stem(seed: int) -> onnx.ModelProto:
    """A 7x7/2 conv on an RGB image (blocked as NCHW3c), bias, ReLU, then max pooling."""
    net = Net(seed)
    x = net.input("x", [1, 3, 23, 21])
    y = net.op(
        "Conv",
        [x, net.weight("w", [16, 3, 7, 7], 0.1), net.weight("b", [16])],
        pads=[3, 3, 3, 3],
        strides=[2, 2],
    )
    y = net.op("Relu", [y])
    return net.model(
        [net.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])]
    )


def dilated_asymmetric(seed: int) -> onnx.ModelProto:
    """Dilation, uneven pads, 48 input channels (three blocks), a sigmoid epilogue."""
    net = Net(seed)
    x = net.input("x", [1, 48, 9, 10])
    y = net.op(
        "Conv", [x, net.weight("w", [32, 48, 3, 3], 0.1)], pads=[2, 0, 1, 3], dilations=[2, 2]
    )
    return net.model([net.op("Sigmoid", [y])])


def pools_between_convs(seed: int) -> onnx.ModelProto:
    """Max and average pools between convs (run blocked, as 3-D pools): padding, strides,
    dilation, ceil_mode and count_include_pad, uneven sizes."""
    net = Net(seed)
    x = net.input("x", [1, 16, 11, 10])
    y = net.op(
        "Relu", [net.op("Conv", [x, net.weight("w1", [32, 16, 3, 3], 0.1)], pads=[1, 1, 1, 1])]
    )
    y = net.op(
        "MaxPool",
        [y],
        kernel_shape=[3, 3],
        strides=[2, 2],
        pads=[1, 0, 1, 1],
        dilations=[1, 2],
        ceil_mode=1,
    )
    y = net.op("AveragePool", [y], kernel_shape=[2, 3], pads=[1, 1, 1, 1], count_include_pad=1)
    y = net.op(
        "AveragePool", [y], kernel_shape=[2, 2], strides=[2, 1], pads=[0, 1, 1, 0], ceil_mode=1
    )
    return net.model([net.op("Conv", [y, net.weight("w2", [16, 32, 1, 1], 0.2)])])


def mobilenet_blocks(seed: int) -> onnx.ModelProto:
    """Two MobileNetV2 inverted residuals: 1x1 expand, BN, ReLU6, depthwise 3x3 (group = the
    channels), BN, ReLU6, 1x1 project, BN; the first with a residual add, the second strided
    with a dilated, unevenly padded depthwise conv and odd sizes."""
    net = Net(seed)
    x = net.input("x", [1, 16, 13, 11])
    lo, hi = net.const("lo", np.float32(0)), net.const("hi", np.float32(6))

    def relu6(value: str) -> str:
        return net.op("Clip", [value, lo, hi])

    def block(x: str, name: str, channels: int, out: int, **depthwise: object) -> str:
        y = relu6(net.batch_norm(net.op("Conv", [x, net.weight(f"{name}e", [channels, 16, 1, 1], 0.3)]), channels))
        w = net.weight(f"{name}d", [channels, 1, 3, 3], 0.3)
        y = relu6(net.batch_norm(net.op("Conv", [y, w], group=channels, **depthwise), channels))
        return net.batch_norm(net.op("Conv", [y, net.weight(f"{name}p", [out, channels, 1, 1], 0.2)]), out)

    x = net.op("Add", [block(x, "a", 64, 16, pads=[1, 1, 1, 1]), x])
    return net.model([block(x, "b", 96, 32, strides=[2, 2], pads=[2, 1, 1, 2], dilations=[2, 1])])


CASES = {
    "mobilenet_blocks": mobilenet_blocks,
    "residual_stage": residual_stage,
    "dense_block": dense_block,
    "rgb_stem": rgb_stem,
    "dilated_asymmetric": dilated_asymmetric,
    "pools_between_convs": pools_between_convs,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_blocked_convs_match_plain_convs_and_onnxruntime(case: str) -> None:
    model = CASES[case](seed=7)
    blocked = minitvm.compile(model, opt_level=3, num_threads=1)
    plain = minitvm.compile(model, opt_level=1, num_threads=1)
    feeds = random_inputs(blocked, seed=3)
    for ours, unblocked, theirs in zip(
        blocked.run(feeds), plain.run(feeds), run_ort(model, feeds), strict=True
    ):
        np.testing.assert_allclose(ours, unblocked, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    ("case", "convs", "transforms"),
    [
        # in and out only: the residual adds, ReLUs and the downsample stay blocked
        ("residual_stage", 5, 2),
        # out before the pool, and the block's input twice: raw for the concats, after its
        # BN-ReLU for the first conv (no pattern moves a transform above elementwise ops);
        # the concats and every later BN-ReLU stay blocked
        ("dense_block", 5, 3),
        ("rgb_stem", 1, 2),
        # the pools run blocked: in and out only
        ("pools_between_convs", 2, 2),
        ("dilated_asymmetric", 1, 2),
        # the depthwise convs run blocked too: in and out only
        ("mobilenet_blocks", 6, 2),
    ],
)
def test_transforms_are_left_only_at_the_edges(case: str, convs: int, transforms: int) -> None:
    module = optimized(CASES[case](seed=0))
    assert count(module, g.ConvNchwcOp) == convs
    assert count(module, g.ConvOp) == 0
    assert count(module, g.LayoutTransformOp) == transforms


def test_blocked_weights_put_each_weight_where_conv_nchwc_reads_it() -> None:
    w = np.arange(32 * 6 * 3 * 2, dtype=np.float32).reshape(32, 6, 3, 2)
    blocked = blocked_weights(w, cb=3, mb=16)
    assert blocked.shape == (2, 2, 3, 2, 3, 16)
    for m, c, kh, kw in [(0, 0, 0, 0), (17, 4, 2, 1), (31, 5, 1, 0)]:
        assert blocked[m // 16, c // 3, kh, kw, c % 3, m % 16] == w[m, c, kh, kw]
