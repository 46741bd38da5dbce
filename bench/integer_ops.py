"""Integer linear algebra on one thread: minitvm against ONNX Runtime on a transformer's
quantized projection and a ResNet stage's quantized 3x3 conv.

    MatMulInteger / QLinearMatMul   1x768 (u8) @ 768x3072 (s8, constant)
    ConvInteger / QLinearConv       1x64x56x56 (u8) * 64x64x3x3 (s8, constant), pads 1

The activations' zero point is 128, the weights' 0 (symmetric s8 weights, as ONNX Runtime's
quantizer makes them). Every model is checked first: the integer results equal ONNX
Runtime's, the requantized ones are within one step of them (ONNX Runtime requantizes in
f32, minitvm in f64 as the ONNX reference does). Then each round runs every runner once in
turn (interleaved), `--rounds` rounds after `--warmup` untimed ones, and the table gives the
median and best milliseconds and the ratio of the medians. It is a measurement, not a test:

    python bench/integer_ops.py [--rounds 20] [--warmup 5] [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.runtime.ort import ort_session
from minitvm.runtime.timing import timed_runs

RNG = np.random.default_rng(0)


def _model(op_type: str, x: np.ndarray, consts: dict[str, np.ndarray], out: int,
           **attrs: object) -> onnx.ModelProto:  # fmt: skip
    node = helper.make_node(op_type, ["x", *consts], ["y"], **attrs)
    graph = helper.make_graph(
        [node], op_type, [helper.make_tensor_value_info("x", TensorProto.UINT8, x.shape)],
        [helper.make_tensor_value_info("y", out, None)],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model


def _scales(weights: np.ndarray) -> dict[str, np.ndarray]:
    return {"sx": np.array(0.02, np.float32), "zx": np.array(128, np.uint8), "w": weights,
            "sw": np.array(0.004, np.float32), "zw": np.array(0, np.int8),
            "sy": np.array(0.9, np.float32), "zy": np.array(120, np.uint8)}  # fmt: skip


def cases() -> dict[str, tuple[onnx.ModelProto, np.ndarray, int]]:
    """name -> (model, input, the steps its output may differ from ONNX Runtime's)."""
    a = RNG.integers(0, 256, (1, 768)).astype(np.uint8)
    b = RNG.integers(-128, 128, (768, 3072)).astype(np.int8)
    x = RNG.integers(0, 256, (1, 64, 56, 56)).astype(np.uint8)
    w = RNG.integers(-128, 128, (64, 64, 3, 3)).astype(np.int8)
    zeros = {"zx": np.array(128, np.uint8), "zw": np.array(0, np.int8)}
    pads = {"pads": [1, 1, 1, 1]}
    return {
        "MatMulInteger 1x768 @ 768x3072": (
            _model("MatMulInteger", a, {"w": b, **zeros}, TensorProto.INT32), a, 0),
        "QLinearMatMul 1x768 @ 768x3072": (
            _model("QLinearMatMul", a, _scales(b), TensorProto.UINT8), a, 1),
        "ConvInteger 3x3 1x64x56x56": (
            _model("ConvInteger", x, {"w": w, **zeros}, TensorProto.INT32, **pads), x, 0),
        "QLinearConv 3x3 1x64x56x56": (
            _model("QLinearConv", x, _scales(w), TensorProto.UINT8, **pads), x, 1),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"{'case':34} {'minitvm ms':>18} {'ORT ms':>18} {'ORT / minitvm':>14}")
    for name, (model, x, steps) in cases().items():
        exe = minitvm.compile(model, num_threads=args.threads)
        ort = ort_session(model, args.threads)
        runners: dict[str, Callable[[], list[np.ndarray]]] = {
            "minitvm": lambda exe=exe, x=x: exe.run({"x": x}),
            "ort": lambda ort=ort, x=x: ort({"x": x}),
        }
        outputs, seconds = timed_runs(runners, args.warmup, args.rounds)
        got, want = (outputs[k][0].astype(np.int64) for k in ("minitvm", "ort"))
        if np.abs(got - want).max() > steps:
            raise SystemExit(f"{name}: minitvm and ONNX Runtime differ by {np.abs(got - want).max()}")
        med = {k: statistics.median(v) * 1e3 for k, v in seconds.items()}
        best = {k: min(v) * 1e3 for k, v in seconds.items()}
        print(f"{name:34} {med['minitvm']:8.3f} ({best['minitvm']:7.3f}) "
              f"{med['ort']:8.3f} ({best['ort']:7.3f}) {med['ort'] / med['minitvm']:13.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
