"""`minitvm debug`: the divergence debugger (issue 21). `debugger.py` compares every ONNX
node output as minitvm computes it with ONNX Runtime's and explains the first divergence;
`failure.py` names the node and pass of a failing compile; `graphs.py` cuts ONNX graphs;
`metrics.py` measures the difference of two tensors."""

from minitvm.debug.debugger import (
    ATOL,
    RTOL,
    DebugOptions,
    DebugReport,
    KernelInfo,
    Repro,
    Row,
    debug,
    format_report,
)
from minitvm.debug.failure import CompileFailure

__all__ = [
    "ATOL", "RTOL", "CompileFailure", "DebugOptions", "DebugReport", "KernelInfo", "Repro",
    "Row", "debug", "format_report",
]  # fmt: skip
