"""convert-graph-to-te: every graph op becomes a te kernel called from @main.

Before:

    func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %0 = graph.relu %x : tensor<4x8xf32>
      func.return %0 : tensor<4x8xf32>
    }

After:

    func.func @relu_0(%0: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {te.kernel} {
      %1 = te.compute (%i0, %i1) in [4, 8] : tensor<4x8xf32> { ... }
      func.return %1 : tensor<4x8xf32>
    }
    func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %0 = func.call @relu_0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      func.return %0 : tensor<4x8xf32>
    }

`graph.constant`s stay in @main and reach kernels as arguments. The per-op semantics live in
the rule modules of this package (see kernel_builder.py for the rule interface). Like MLIR's
convert-linalg-to-loops family, this is a dialect conversion; unlike it, ops without a rule
are an error, not left behind, since nothing after this pass understands the graph dialect.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from minitvm.dialects import graph
from minitvm.dialects.te import KERNEL_ATTR
from minitvm.dialects.te_expr import Tensor
from minitvm.errors import MinitvmError
from minitvm.lowering.graph_to_te import elementwise as _elementwise  # noqa: F401  (registers rules)
from minitvm.lowering.graph_to_te import nn as _nn  # noqa: F401  (registers rules)
from minitvm.lowering.graph_to_te import tensor as _tensor  # noqa: F401  (registers rules)
from minitvm.lowering.graph_to_te.kernel_builder import LOWERINGS, KernelBuilder


def kernel_for(op: Operation, name: str) -> func.FuncOp:
    """A te kernel computing `op`'s results from its operands."""
    block = Block(arg_types=[o.type for o in op.operands])
    rule = LOWERINGS.get(type(op))
    if rule is None:
        raise MinitvmError(f"convert-graph-to-te: no lowering for {op.name}")
    outputs = rule(KernelBuilder(block), op, *(Tensor(a) for a in block.args))
    block.add_op(func.ReturnOp(*(t.value for t in outputs)))
    kernel = func.FuncOp(name, (block.arg_types, [r.type for r in op.results]), Region(block))
    kernel.attributes[KERNEL_ATTR] = UnitAttr()
    return kernel


@dataclass(frozen=True)
class ConvertGraphToTePass(ModulePass):
    name = "convert-graph-to-te"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewriter = Rewriter()
        for main in [f for f in op.ops if isinstance(f, func.FuncOp) and KERNEL_ATTR not in f.attributes]:
            counter = 0
            for node in list(main.walk()):
                if node.dialect_name() != "graph" or isinstance(node, graph.ConstantOp):
                    continue
                name = f"{node.name.removeprefix('graph.')}_{counter}"
                counter += 1
                kernel = kernel_for(node, name)
                rewriter.insert_op(kernel, InsertPoint.before(main))
                call = func.CallOp(name, list(node.operands), [r.type for r in node.results])
                rewriter.replace_op(node, call)
