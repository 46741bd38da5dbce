"""The ONNX model builders, as the tests import them: `from models import mlp`.

They live in `minitvm.bench.models` (bench/models.py), which the installed `minitvm bench`
needs; this file re-exports them. pytest's `pythonpath` points at tests/ (a `tests` package
cannot work because xDSL's wheel installs one), and the scripts in bench/ put tests/ on
sys.path.
"""

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
