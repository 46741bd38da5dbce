"""ONNX Runtime, the reference minitvm is checked and timed against: one way to open a session,
shared by `minitvm run --compare-ort`, `minitvm bench` and the bench scripts, so that every
comparison runs ORT the same way (on the CPU, `num_threads` intra-op threads, one inter-op
thread, sequential execution).

onnxruntime is a dev dependency: it is imported when a session is made, and its ImportError
is the caller's to turn into a message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import onnx

Feeds = Mapping[str, "np.ndarray"]


def ort_session(
    model: onnx.ModelProto | bytes, num_threads: int
) -> Callable[[Feeds], list[np.ndarray]]:
    """ONNX Runtime on the CPU with `num_threads` intra-op threads, as a function of the feeds
    returning the graph's outputs in order. ORT's own exceptions (`ort_errors`) pass through."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = num_threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # warnings about unused initializers are not the user's
    data = model if isinstance(model, bytes) else model.SerializeToString()
    session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    return lambda feeds: session.run(None, dict(feeds))


def ort_errors() -> tuple[type[Exception], ...]:
    """The exceptions ONNX Runtime raises for a model it rejects (they derive from Exception
    directly; their messages say what it rejects)."""
    from onnxruntime.capi import onnxruntime_pybind11_state as state

    return (state.Fail, state.InvalidArgument, state.InvalidGraph, state.InvalidProtobuf,
            state.NotImplemented, state.RuntimeException)  # fmt: skip
