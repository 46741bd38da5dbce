"""Write examples/mlp.onnx: the model the README's first command runs.

A 784-256-10 multi-layer perceptron (an MNIST-sized classifier) as PyTorch exports
`nn.Linear` + `nn.ReLU` at opset 13: Gemm(transB=1), Relu, Gemm. Input `image` [1, 784],
output `logits` [1, 10]. The weights are seeded random numbers (He-scaled, so the logits are
O(1)), not trained ones: the model is for checking and timing the compiler, and this script
rewrites it byte for byte.

    python examples/make_mlp.py [-o examples/mlp.onnx]
"""

from __future__ import annotations

import argparse
import itertools
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SIZES = (784, 256, 10)
SEED = 0


def make_mlp(sizes: tuple[int, ...] = SIZES, seed: int = SEED) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    nodes, initializers, x = [], [], "image"
    layers = list(itertools.pairwise(sizes))
    for i, (n_in, n_out) in enumerate(layers):
        weight = rng.standard_normal((n_out, n_in), np.float32) * np.float32(np.sqrt(2.0 / n_in))
        bias = rng.standard_normal(n_out, np.float32) * np.float32(0.1)
        initializers += [
            numpy_helper.from_array(weight, f"fc{i}.weight"),
            numpy_helper.from_array(bias, f"fc{i}.bias"),
        ]
        y = "logits" if i == len(layers) - 1 else f"fc{i}"
        nodes.append(
            helper.make_node(
                "Gemm", [x, f"fc{i}.weight", f"fc{i}.bias"], [y], name=f"fc{i}", transB=1
            )
        )
        if y != "logits":
            nodes.append(helper.make_node("Relu", [y], [f"relu{i}"], name=f"relu{i}"))
            y = f"relu{i}"
        x = y
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, sizes[0]])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, sizes[-1]])],
        initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 13)],
        producer_name="minitvm examples/make_mlp.py",
    )
    model.ir_version = 8  # fixed, so that newer onnx versions write the same bytes
    onnx.checker.check_model(model)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlp.onnx")
    parser.add_argument(
        "-o", "--output", default=default, help=f"where to write it (default {default})"
    )
    args = parser.parse_args()
    onnx.save(make_mlp(), args.output)
    print(f"wrote {args.output} ({os.path.getsize(args.output) / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
