"""Without AVX-512: with AVX-512 (and AMX) masked out of the target's features
(`MINITVM_TARGET_FEATURES`, host.py), what a CPU with AVX2 only gets. The models compute what
ONNX Runtime computes, the code uses no zmm register, and the register blocks are sized for
16 ymm registers (schedules/base.py derives the budget from the features)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import sys
import llvmlite.binding as llvm
import numpy as np
import onnxruntime as ort
import minitvm
from minitvm.bench.suite import CASES
from minitvm.compiler import llvm_ir, random_inputs
from minitvm.host import target_machine
from minitvm.schedules import base

assert (base.VECTOR_REGISTERS, base.REGISTER_LANES, base.MAX_ACCUMULATORS) == (16, 8, 12)
for name in sys.argv[1:]:
    model = CASES[name].build()
    exe = minitvm.compile(model, num_threads=1)
    feeds = random_inputs(exe, seed=0)
    got = exe.run(feeds)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, feeds)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4)
    assembly = target_machine().emit_assembly(llvm.parse_assembly(llvm_ir(model, num_threads=1)))
    assert "zmm" not in assembly and "ymm" in assembly, name
    print(name, "ok")
"""


@pytest.mark.slow
def test_an_avx2_target_computes_the_bench_models_right() -> None:
    env = {**os.environ, "MINITVM_TARGET_FEATURES": "-avx512*,-amx*"}
    cases = ["gemm512", "mlp", "resnet_block", "mobilenet_v2", "bert"]
    result = subprocess.run([sys.executable, "-c", SCRIPT, *cases], capture_output=True,
                            text=True, env=env, timeout=900)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == [w for case in cases for w in (case, "ok")]


def test_a_bad_feature_override_is_a_clean_error() -> None:
    from minitvm.errors import MinitvmError
    from minitvm.host import override_features

    features = {"avx512f": True, "avx512bw": True, "avx2": True}
    override_features(features, "-avx512*, +amx-tile")
    assert features == {"avx512f": False, "avx512bw": False, "avx2": True, "amx-tile": True}
    with pytest.raises(MinitvmError, match="'avx2' is not \\+feature or -feature"):
        override_features(features, "avx2")
