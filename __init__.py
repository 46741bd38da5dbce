"""minitvm: a hackable deep-learning compiler on xDSL (ONNX -> graph -> te -> loop -> LLVM).

    import minitvm
    exe = minitvm.compile("model.onnx")
    outputs = exe.run({"input": x})
    exe.export("model.so")               # a shared library with a C API (minitvm export)
    lib = minitvm.load("model.so")       # ... run from Python: neither xDSL nor LLVM needed
"""

from minitvm.runtime import Executable, GraphModule

__all__ = ["compile", "from_onnx", "load", "Executable", "GraphModule"]


def __getattr__(name: str):
    # The compiler pulls in xDSL, ONNX and LLVM: import it on first use, not on `import minitvm`.
    if name == "compile":
        from minitvm.compiler import compile

        return compile
    if name == "from_onnx":
        from minitvm.frontend import from_onnx

        return from_onnx
    if name == "load":
        from minitvm.runtime.library import load

        return load
    raise AttributeError(f"module 'minitvm' has no attribute '{name}'")
