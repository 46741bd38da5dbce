"""What runs compiled models: the Executable and the TVM-style GraphModule (no xDSL here)."""

from minitvm.runtime.executable import Executable, GraphModule, TensorSpec, random_arrays

__all__ = ["Executable", "GraphModule", "TensorSpec", "random_arrays"]
