"""minitvm: a hackable deep-learning compiler on xDSL (ONNX -> graph -> te -> loop -> LLVM)."""
