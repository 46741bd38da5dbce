"""The graph dialect: a model as pure ops on shaped tensors.

Every dimension is known at compile time as a number or as a symbolic size, an expression
of the sizes the model names (`symbolic.py`: `tensor<?x128xf32,
#graph.dims<"seq">>`, the `DimsAttr` encoding in `base.py`).

This is the first level of minitvm's pipeline (ONNX -> graph -> te -> loop -> llvm). The ONNX
frontend produces it; graph passes (folding, fusion, layout) rewrite it; `graph_to_te`
lowers it. Ops are grouped by kind in the modules of this package.
"""

from xdsl.ir import Dialect

from minitvm.dialects.graph.base import DimsAttr, SizesAttr
from minitvm.dialects.graph.constant import ConstantOp, SplatAttr, WeightsAttr, WeightStore
from minitvm.dialects.graph.control import IfOp, LoopOp
from minitvm.dialects.graph.elementwise import *  # noqa: F403
from minitvm.dialects.graph.elementwise import ELEMENTWISE_OPS
from minitvm.dialects.graph.fused import FusedOp, YieldOp
from minitvm.dialects.graph.nn import *  # noqa: F403
from minitvm.dialects.graph.nn import LAYOUT_OPS, NN_OPS, blocked_layout, parse_layout
from minitvm.dialects.graph.sampling import *  # noqa: F403
from minitvm.dialects.graph.sampling import SAMPLING_OPS
from minitvm.dialects.graph.tensor import *  # noqa: F403
from minitvm.dialects.graph.tensor import TENSOR_OPS
from minitvm.dialects.graph.winograd import *  # noqa: F403
from minitvm.dialects.graph.winograd import WINOGRAD_OPS

GRAPH_OPS = [
    ConstantOp, *ELEMENTWISE_OPS, *NN_OPS, *TENSOR_OPS, *SAMPLING_OPS, *LAYOUT_OPS,
    *WINOGRAD_OPS,
]  # fmt: skip

Graph = Dialect(
    "graph", [*GRAPH_OPS, FusedOp, IfOp, LoopOp, YieldOp], [WeightsAttr, SplatAttr, DimsAttr, SizesAttr], [WeightStore()]
)

__all__ = [
    "Graph", "GRAPH_OPS", "ConstantOp", "DimsAttr", "SizesAttr", "FusedOp", "IfOp", "LoopOp", "SplatAttr", "WeightsAttr", "WeightStore",
    "YieldOp", "LAYOUT_OPS", "WINOGRAD_OPS", "blocked_layout", "parse_layout",
] + [op.__name__ for op in GRAPH_OPS[1:]]
