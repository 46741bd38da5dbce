"""The ONNX model builders, as the tests import them: `from models import mlp`.

They live in `minitvm.bench.models` (bench/models.py), which the installed `minitvm bench`
needs; this file re-exports them. pytest's `pythonpath` points at tests/ (a `tests` package
cannot work because xDSL's wheel installs one), and the scripts in bench/ put tests/ on
sys.path.
"""

# -- models with symbolic dimensions, and sizes to run them at (issue 19) -----------------------
import os

import onnx

from minitvm.bench.models import *
from minitvm.bench.models import (  # noqa: F401  (re-exported, private helpers included)
    _NORMALIZING,
    _PASS_THROUGH,
    _ROLES,
    LIGHT_DIR,
    LIGHT_MODELS,
    Uses,
    _basic_block,
    _calibrate,
    _conv_bn,
    _fan_in,
    _Graph,
    _use,
    _value_infos,
    bert_encoder_layer,
    light_model_path,
    matmul,
    mlp,
    resnet18,
    resnet_basic_block,
    with_random_weights,
)

#: The real exports of tests/models/export_models.py.
ONNX_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", "onnx")
BERT_INPUTS = ("input_ids", "attention_mask", "token_type_ids")

#: name -> (model builder, input shapes to run it at, input_shapes to compile it with): a
#: BERT layer, ResNet-18, MobileNetV2 and an MLP with symbolic batch (and sequence, or image
#: size), and the GPT-2, BERT (its sequence bounded by its 64 positions) and ViT exports with
#: dynamic axes. test_te_symbolic.py and test_dynamic_compile.py run each at every size.
SYMBOLIC_CASES = {
    "bert_layer": (
        lambda: bert_encoder_layer(seq=16, hidden=64, heads=4, ffn=128, dynamic=True),
        [{"hidden_states": (2, 5, 64)}, {"hidden_states": (1, 9, 64)}, {"hidden_states": (3, 1, 64)}],
        None,
    ),
    "resnet18": (
        lambda: with_dynamic_dims(resnet18(image=64), {"x": ["batch", None, "h", "w"]}),
        [{"x": (1, 3, 32, 40)}, {"x": (2, 3, 37, 29)}],
        None,
    ),
    "resnet18_batch": (  # (a run-time batch only: its 3x3 convs go through Winograd)
        lambda: with_dynamic_dims(resnet18(image=64), {"x": ["batch", None, None, None]}),
        [{"x": (1, 3, 64, 64)}, {"x": (3, 3, 64, 64)}],
        None,
    ),
    "mobilenet_v2": (
        lambda: with_dynamic_dims(mobilenet_v2(image=64), {"x": ["batch", None, "h", "w"]}),
        [{"x": (1, 3, 40, 33)}, {"x": (2, 3, 32, 32)}],
        None,
    ),
    "mlp": (
        lambda: with_dynamic_dims(mlp(), {"x": ["batch", None]}),
        [{"x": (1, 784)}, {"x": (3, 784)}, {"x": (64, 784)}],
        None,
    ),
    "gpt2_export": (
        lambda: onnx.load(os.path.join(ONNX_DIR, "gpt2_dynamic.onnx")),
        [{"input_ids": (2, 9), "attention_mask": (2, 9)}, {"input_ids": (1, 4), "attention_mask": (1, 4)}],
        None,
    ),
    "bert_export": (
        lambda: onnx.load(os.path.join(ONNX_DIR, "bert_dynamic.onnx")),
        [dict.fromkeys(BERT_INPUTS, s) for s in ((2, 11), (1, 5), (1, 64))],
        dict.fromkeys(BERT_INPUTS, (None, "1..64")),
    ),
    "vit_export": (
        lambda: onnx.load(os.path.join(ONNX_DIR, "vit_dynamic.onnx")),
        [{"pixel_values": (2, 3, 32, 32)}, {"pixel_values": (1, 3, 32, 32)}],
        None,
    ),
}  # fmt: skip
