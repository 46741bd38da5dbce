"""lit configuration: every *.mlir file under tests/lit is a test (RUN lines + filecheck)."""
# ruff: noqa: F821  (lit defines `config` before running this file)

import os
import sys

import lit.formats
import onnx

config.name = "minitvm"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Output"]
config.test_source_root = os.path.dirname(__file__)

# lit runs RUN lines with a scrubbed environment: put the tools installed beside this Python
# (minitvm, minitvm-opt, filecheck: lowercase is the only name the package installs) first.
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), config.environment.get("PATH", "")]
)
# ... and keep PYTHONPATH, so that a checkout put first on it is the minitvm the tools run.
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]

# The default schedules follow the host's vector registers (schedules/base.py): pin the lit
# tests, which print IR and run none of it, to AVX-512's (what they check), whatever the host.
config.environment["MINITVM_TARGET_FEATURES"] = "+avx512f"

# Real model graphs shipped in the onnx wheel: `minitvm import %light/light_resnet50.onnx`.
config.substitutions.append(
    ("%light", os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light"))
)
