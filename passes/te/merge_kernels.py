"""te-merge-kernels: kernels that are the same function become one, called from every site.

A model repeats its layers: ResNet-50's 16 bottleneck blocks have 4 shapes, and each block's
convs, adds and ReLUs lower to kernels that differ only in their names (weights are kernel
arguments, not part of the code). Every kernel costs its loop passes, its conversion to the
llvm dialect and LLVM's -O3 and JIT: the bulk of a compile. So once the kernels are
scheduled, those whose text is the same but for their name are merged, keeping the first,
and @main calls it wherever it called one of the others:

    func.func @fused_conv_nchwc_3(...) { A }          func.func @fused_conv_nchwc_3(...) { A }
    func.func @fused_conv_nchwc_7(...) { A }    ->
    func.func @main(...) {                            func.func @main(...) {
      %a = func.call @fused_conv_nchwc_3(...)           %a = func.call @fused_conv_nchwc_3(...)
      %b = func.call @fused_conv_nchwc_7(...)           %b = func.call @fused_conv_nchwc_3(...)

The text includes the schedule (a tuned kernel and an untuned one of the same computation
stay two). Light ResNet-50 (onnx's test model): 60 kernels, 31 distinct.
MLIR counterpart: none upstream; LLVM's `mergefunc` pass does this for IR functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from minitvm.dialects import te


def kernel_text(kernel: func.FuncOp) -> str:
    """The kernel's text with its name replaced: what two kernels must share to be one
    (and what the kernel cache keys, kernel_build.py)."""
    name = kernel.sym_name.data
    return str(kernel).replace(f"@{name}(", "@kernel(", 1)


def merge_kernels(module: ModuleOp) -> dict[str, str]:
    """Merge the kernels of `module` that are the same code; the text (`kernel_text`) of
    each kernel kept, by name."""
    first: dict[str, str] = {}  # text -> the kernel kept
    merged: dict[str, str] = {}  # a kernel removed -> the one that replaces it
    for fn in list(module.ops):
        if not isinstance(fn, func.FuncOp) or te.KERNEL_ATTR not in fn.attributes:
            continue
        kept = first.setdefault(kernel_text(fn), fn.sym_name.data)
        if kept != fn.sym_name.data:
            merged[fn.sym_name.data] = kept
            Rewriter.erase_op(fn)
    if merged:
        for call in list(module.walk()):
            if isinstance(call, func.CallOp) and call.callee.root_reference.data in merged:
                callee = SymbolRefAttr(merged[call.callee.root_reference.data])
                new = func.CallOp(callee, list(call.arguments), [r.type for r in call.results])
                Rewriter.replace_op(call, new)
    return {name: text for text, name in first.items()}


@dataclass(frozen=True)
class MergeKernelsPass(ModulePass):
    name = "te-merge-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        merge_kernels(op)
