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

`graph.constant`s stay in @main and reach kernels as arguments, and so do the reshapes,
splits and slices of @main's own block that are views of their input, and the concats whose
inputs kernels can write into the concat's buffer (`lowering/views.py`): convert-te-to-loop
makes them `loop.view`s, no kernel and no copy. The per-op semantics live in
the rule modules of this package (see kernel_builder.py for the rule interface).

A `graph.fused` group becomes ONE kernel, `@fused_<anchor>_<N>`: the rules of its body ops run
in order into the same KernelBuilder, the body's block arguments standing for the kernel's
arguments. Like MLIR's convert-linalg-to-loops family, this is a dialect conversion; unlike
it, ops without a rule are an error, not left behind, since nothing after this pass
understands the graph dialect.

The kernels say WHAT, not HOW: no compute has a schedule (te-default-schedule gives them
their defaults, `schedules/`). What a schedule needs to know of the graph op a compute came
from is left as attributes: `te.templated` on the main compute of an op with a schedule
template (conv, matmul, gemm, pool), and, on a kernel that is to run as one pass over the data
(a `graph.fused` group, or an anchor op with epilogue computes of its own, such as a conv's
bias), `te.fused` with the anchor op's main compute named "anchor":

    func.func @fused_conv_nchwc_0(...) attributes {te.fused, te.kernel} {
      %pad = te.compute (...) in [...] : ... { ... }
      %acc = te.compute "anchor" (...) in [...] sum (...) in [...] {te.templated} : ... { ... }
      %y = te.compute (...) in [...] : ... { (bias, relu) }
      func.return %y : ...
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from minitvm.dialects import graph, te
from minitvm.dialects.graph.fused import ANCHOR_OPS
from minitvm.dialects.te import ANCHOR, FUSED_ATTR, KERNEL_ATTR, TEMPLATED_ATTR
from minitvm.dialects.te_expr import Tensor
from minitvm.errors import MinitvmError
from minitvm.lowering.graph_to_te import elementwise as _elementwise  # noqa: F401  (registers rules)
from minitvm.lowering.graph_to_te import nn as _nn  # noqa: F401  (registers rules)
from minitvm.lowering.graph_to_te import sampling as _sampling  # noqa: F401  (registers rules)
from minitvm.lowering.graph_to_te import tensor as _tensor  # noqa: F401  (registers rules)
from minitvm.lowering.graph_to_te import winograd as _winograd  # noqa: F401  (registers rules)
from minitvm.lowering.graph_to_te.kernel_builder import LOWERINGS, KernelBuilder
from minitvm.lowering.scan_to_loop import scans
from minitvm.lowering.views import in_place_concat, view_starts

#: Ops whose main compute a schedule template is for (`schedules/templates.py`): marked
#: `te.templated`.
TEMPLATED_OPS: tuple[type[Operation], ...] = (
    graph.MatMulOp, graph.MatMulPackedOp, graph.GemmOp, graph.ConvOp, graph.ConvNchwcOp,
    graph.MaxPoolOp, graph.AvgPoolOp, graph.WinogradInputOp, graph.WinogradOutputOp,
)  # fmt: skip


def _kernel(
    name: str, args: Sequence[SSAValue], ops: Sequence[Operation], outputs: Sequence[SSAValue]
) -> tuple[func.FuncOp, list[list[te.ComputeOp]]]:
    """A te kernel running the rules of `ops` in order, with `args` (values the ops read) as
    its arguments and `outputs` as its results; also the computes each op's rule appended."""
    block = Block(arg_types=[a.type for a in args])
    kb = KernelBuilder(block)
    tensors: dict[SSAValue, Tensor] = {a: Tensor(b) for a, b in zip(args, block.args)}
    computes: list[list[te.ComputeOp]] = []
    for op in ops:
        rule = LOWERINGS.get(type(op))
        if rule is None:
            raise MinitvmError(f"convert-graph-to-te: no lowering for {op.name}")
        last = block.last_op
        results = rule(kb, op, *(tensors[o] for o in op.operands))
        tensors.update(zip(op.results, results, strict=True))
        new = block.ops if last is None else _ops_after(last)
        computes.append([c for c in new if isinstance(c, te.ComputeOp)])
        main = main_compute(computes[-1]) if isinstance(op, TEMPLATED_OPS) else None
        if main is not None:
            main.attributes[TEMPLATED_ATTR] = UnitAttr()
    block.add_op(func.ReturnOp(*(tensors[v].value for v in outputs)))
    kernel = func.FuncOp(name, (block.arg_types, [v.type for v in outputs]), Region(block))
    kernel.attributes[KERNEL_ATTR] = UnitAttr()
    return kernel, computes


def main_compute(computes: Sequence[te.ComputeOp]) -> te.ComputeOp | None:
    """The compute of an op's rule that does its heavy work: its last reduction, else its
    last compute."""
    reductions = [c for c in computes if c.reduce_kind is not None]
    return reductions[-1] if reductions else (computes[-1] if computes else None)


def _mark_fused(kernel: func.FuncOp, anchor: te.ComputeOp | None) -> None:
    """Mark `kernel` to run as one pass over the data, around `anchor` (None: no anchor)."""
    kernel.attributes[FUSED_ATTR] = UnitAttr()
    if anchor is not None:
        anchor.properties["name"] = StringAttr(ANCHOR)


def _ops_after(op: Operation) -> list[Operation]:
    ops = []
    while (op := op.next_op) is not None:  # type: ignore[assignment]
        ops.append(op)
    return ops


def kernel_for(op: Operation, name: str) -> func.FuncOp:
    """A te kernel computing `op`'s results from its operands. An anchor op is marked as a
    fused group of one: its own epilogue computes (a conv's or gemm's bias, an average
    pool's division) are to run inside its loop nest as a fused epilogue would."""
    kernel, computes = _kernel(name, list(op.operands), [op], list(op.results))
    if isinstance(op, ANCHOR_OPS) and len(computes[0]) > 1:
        _mark_fused(kernel, main_compute(computes[0]))
    return kernel


def fused_kernel_for(op: graph.FusedOp, name: str) -> func.FuncOp:
    """One te kernel computing a whole `graph.fused` group."""
    body = op.body_ops
    kernel, computes = _kernel(name, list(op.body.block.args), body, list(op.yield_op.values))
    anchor = next((n for n, node in enumerate(body) if isinstance(node, ANCHOR_OPS)), None)
    _mark_fused(kernel, None if anchor is None else main_compute(computes[anchor]))
    return kernel


def fused_kernel_name(op: graph.FusedOp, counter: int) -> str:
    """`fused_<anchor>_<N>`: the anchor's op name, or the first op's for an injective chain."""
    body = op.body_ops
    head = next((node for node in body if isinstance(node, ANCHOR_OPS)), body[0] if body else op)
    return f"fused_{head.name.removeprefix('graph.')}_{counter}"


@dataclass(frozen=True)
class ConvertGraphToTePass(ModulePass):
    name = "convert-graph-to-te"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for main in [f for f in op.ops if isinstance(f, func.FuncOp) and KERNEL_ATTR not in f.attributes]:
            if main.body.blocks:
                _KernelCalls(main).convert(main.body.block)


@dataclass
class _KernelCalls:
    """Replaces the graph ops of a function by calls of te kernels, numbered in order."""

    main: func.FuncOp
    counter: int = 0
    #: The values concats in place write (their kernels write them into the concat's buffer).
    claimed: set[SSAValue] = field(default_factory=set[SSAValue])

    @staticmethod
    def _returned(block: Block) -> set[SSAValue]:
        last = block.last_op
        return set(last.operands) if isinstance(last, func.ReturnOp) else set()

    def convert(self, block: Block) -> None:
        """The ops of `block`; the ops inside a graph.fused become part of its kernel, those
        in the branches of a graph.if or the body of a graph.loop become calls inside them
        (their yields stay)."""
        rewriter = Rewriter()
        top = block is self.main.body.block
        for node in list(block.ops):
            if isinstance(node, graph.IfOp):
                self.convert(node.branch(True))
                self.convert(node.branch(False))
                continue
            if isinstance(node, graph.LoopOp):
                self.convert(node.body.block)
                continue
            if (
                node.dialect_name() != "graph"
                or isinstance(node, graph.ConstantOp | graph.YieldOp | graph.FlatNonzeroOp | graph.IotaOp | graph.CheckOp | graph.ArgSortOp
                               | graph.GreedyNmsOp | graph.InvertPermutationOp)
                or scans(node)
            ):  # (these stay: convert-te-to-loop writes their loops and checks into @main)
                continue
            if top and (
                view_starts(node) is not None
                or (isinstance(node, graph.ConcatOp)  # (the return reads the calls made so far)
                    and in_place_concat(node, block, self.claimed, self._returned(block)) is not None)
            ):
                # A view, or a concat in place (lowering/views.py): convert-te-to-loop
                # writes loop.views for it.
                continue
            if isinstance(node, graph.FusedOp):
                name = fused_kernel_name(node, self.counter)
                kernel = fused_kernel_for(node, name)
            else:
                name = f"{node.name.removeprefix('graph.')}_{self.counter}"
                kernel = kernel_for(node, name)
            self.counter += 1
            rewriter.insert_op(kernel, InsertPoint.before(self.main))
            call = func.CallOp(name, list(node.operands), [r.type for r in node.results])
            rewriter.replace_op(node, call)
