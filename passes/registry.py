"""The one list of minitvm passes: what `minitvm-opt -p ...` (and the compiler driver) can run.

Adding a pass is one line in `_PASSES`: its pipeline name, then the module and class that
implement it. Modules are imported only when the pass is used, so a broken or slow pass costs
nothing to the tools that do not run it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass

# pass name -> (module, class). Keep sorted by name.
_PASSES: dict[str, tuple[str, str]] = {
    # xDSL's own: common subexpressions of the loop kernels, once unrolled and vectorized
    "cse": ("xdsl.transforms.common_subexpression_elimination", "CommonSubexpressionElimination"),
    "convert-graph-to-te": ("minitvm.lowering.graph_to_te", "ConvertGraphToTePass"),
    "convert-loop-to-llvm": ("minitvm.lowering.loop_to_llvm", "ConvertLoopToLlvmPass"),
    "convert-te-to-loop": ("minitvm.lowering.te_to_loop", "ConvertTeToLoopPass"),
    "graph-canonicalize": ("minitvm.passes.graph.canonicalize", "CanonicalizePass"),
    "graph-conv-layout": ("minitvm.passes.graph.conv_layout", "ConvLayoutPass"),
    "graph-conv-transpose-as-conv": (
        "minitvm.passes.graph.conv_transpose_as_conv",
        "ConvTransposeAsConvPass",
    ),
    "graph-dce": ("minitvm.passes.graph.dce", "DeadCodeEliminationPass"),
    "graph-fold-batchnorm": ("minitvm.passes.graph.fold_batchnorm", "FoldBatchNormPass"),
    "graph-fold-constants": ("minitvm.passes.graph.fold_constants", "FoldConstantsPass"),
    "graph-fold-weight-layout": ("minitvm.passes.graph.fold_weight_layout", "FoldWeightLayoutPass"),
    "graph-fuse": ("minitvm.passes.graph.fuse", "FusePass"),
    "graph-pack-weights": ("minitvm.passes.graph.pack_weights", "PackWeightsPass"),
    "graph-widen-bf16": ("minitvm.passes.graph.widen_bf16", "WidenBf16Pass"),
    "graph-winograd": ("minitvm.passes.graph.winograd", "WinogradPass"),
    "loop-plan-memory": ("minitvm.passes.loop.plan_memory", "PlanMemoryPass"),
    "loop-sections": ("minitvm.passes.loop.sections", "SectionsPass"),
    "loop-unroll": ("minitvm.passes.loop.unroll", "UnrollPass"),
    "loop-vectorize": ("minitvm.passes.loop.vectorize", "VectorizePass"),
    "loop-promote-accumulators": (
        "minitvm.passes.loop.promote_accumulators",
        "PromoteAccumulatorsPass",
    ),
    "loop-vectorize-transpose": ("minitvm.passes.loop.vectorize_transpose", "VectorizeTransposePass"),
    "te-apply-records": ("minitvm.passes.te.apply_records", "ApplyRecordsPass"),
    "te-compute-at": ("minitvm.passes.te.compute_at", "ComputeAtPass"),
    "te-default-schedule": ("minitvm.passes.te.default_schedule", "DefaultSchedulePass"),
    "te-fuse": ("minitvm.passes.te.fuse", "FusePass"),
    "te-inline": ("minitvm.passes.te.inline", "InlinePass"),
    "te-mark-inline": ("minitvm.passes.te.mark_inline", "MarkInlinePass"),
    "te-merge-kernels": ("minitvm.passes.te.merge_kernels", "MergeKernelsPass"),
    "te-pack": ("minitvm.passes.te.pack", "PackPass"),
    "te-parallel": ("minitvm.passes.te.parallel", "ParallelPass"),
    "te-prefetch": ("minitvm.passes.te.prefetch", "PrefetchPass"),
    "te-reorder": ("minitvm.passes.te.reorder", "ReorderPass"),
    "te-split": ("minitvm.passes.te.split", "SplitPass"),
    "te-tile": ("minitvm.passes.te.tile", "TilePass"),
    "te-unroll": ("minitvm.passes.te.unroll", "UnrollPass"),
    "te-vectorize": ("minitvm.passes.te.vectorize", "VectorizePass"),
}


def _loader(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    return lambda: getattr(importlib.import_module(module), cls)


def make_pass(name: str, **options: object) -> ModulePass:
    """The registered pass `name` with `options` (its dataclass fields)."""
    module, cls = _PASSES[name]
    return getattr(importlib.import_module(module), cls)(**options)


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> a function returning the pass class (xDSL's `available_passes` shape)."""
    return {name: _loader(module, cls) for name, (module, cls) in _PASSES.items()}
