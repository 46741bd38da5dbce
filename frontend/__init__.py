"""Model importers: ONNX -> graph dialect (`from_onnx`)."""

from minitvm.frontend.onnx import from_onnx, load_model

__all__ = ["from_onnx", "load_model"]
