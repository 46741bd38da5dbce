"""loop dialect -> xDSL's llvm dialect (pass `convert-loop-to-llvm`).

- convert_loop_to_llvm.py: the pass, the entry ABI's layout (`CompiledModuleInfo`) and
  `lower_to_llvm`;
- function.py: one function: structured control flow -> CFG, buffers -> pointers;
- scalar.py: arith and math ops;
- parallel.py: `parallel` loops -> outlined chunk functions run on all threads (it extends
  function.py's `FunctionLowering`; function.py knows nothing of it);
- vector.py: the lane-wise loop ops (vcmpf, vcmpi, vselect, vcast, vreduce);
- emitter.py: type mapping and the op emitter the two above share;
- llvm_ext.py: the llvm ops xDSL 0.75 lacks, and their translation to llvmlite.

`minitvm.lowering.jit` takes the result on to native code.
"""

from minitvm.dialects.llvm_ext import LLVM_DIALECT
from minitvm.lowering.loop_to_llvm.convert_loop_to_llvm import (
    ENTRY_ATTR,
    CompiledModuleInfo,
    ConvertLoopToLlvmPass,
    lower_to_llvm,
)
from minitvm.lowering.loop_to_llvm.emitter import LoweringError

__all__ = [
    "ENTRY_ATTR",
    "LLVM_DIALECT",
    "CompiledModuleInfo",
    "ConvertLoopToLlvmPass",
    "LoweringError",
    "lower_to_llvm",
]
