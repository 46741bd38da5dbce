"""The graph dialect: a model as pure ops on statically shaped tensors.

This is the first level of minitvm's pipeline (ONNX -> graph -> te -> loop -> llvm). The ONNX
frontend produces it; graph passes (folding, fusion, layout) rewrite it; `graph_to_te`
lowers it. Ops are grouped by kind in the modules of this package.
"""

from xdsl.ir import Dialect

from minitvm.dialects.graph.constant import ConstantOp, WeightsAttr, WeightStore

GRAPH_OPS = [ConstantOp]

Graph = Dialect("graph", GRAPH_OPS, [WeightsAttr], [WeightStore()])

__all__ = ["Graph", "ConstantOp", "WeightsAttr", "WeightStore"]
