"""Small models for the tuner tests (tests/unit/test_tuner_*.py): fast to lower and to time."""

from __future__ import annotations

import onnx
from test_fusion import Net


def conv_relu_chain(channels: int = 32, size: int = 8, layers: int = 2) -> onnx.ModelProto:
    """`layers` identical Conv3x3(pad 1) + Relu layers: one conv tuning task of that count."""
    net = Net(3)
    y = net.input("x", [1, channels, size, size])
    for n in range(layers):
        w = net.weight(f"w{n}", [channels, channels, 3, 3], 0.1)
        y = net.op("Relu", [net.op("Conv", [y, w], pads=[1, 1, 1, 1])])
    return net.model([y])


def matmul_relu(m: int = 16, k: int = 64, n: int = 64) -> onnx.ModelProto:
    """Relu(x @ W + b): one gemm task."""
    net = Net(1)
    y = net.op("MatMul", [net.input("x", [m, k]), net.weight("w", [k, n], 0.1)])
    return net.model([net.op("Relu", [net.op("Add", [y, net.weight("b", [n])])])])
