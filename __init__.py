"""minitvm: a hackable deep-learning compiler on xDSL (ONNX -> graph -> te -> loop -> LLVM).

    import minitvm
    exe = minitvm.compile("model.onnx")
    outputs = exe.run({"input": x})
"""

from minitvm.runtime import Executable, GraphModule

__all__ = ["compile", "from_onnx", "Executable", "GraphModule"]


def __getattr__(name: str):
    # The compiler pulls in xDSL, ONNX and LLVM: import it on first use, not on `import minitvm`.
    if name == "compile":
        from minitvm.compiler import compile

        return compile
    if name == "from_onnx":
        from minitvm.frontend import from_onnx

        return from_onnx
    raise AttributeError(f"module 'minitvm' has no attribute '{name}'")
