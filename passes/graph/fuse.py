"""graph-fuse: group ops that should run as one kernel into `graph.fused` regions.

Each graph op outside a group becomes its own kernel, which writes its whole result to
memory for the next kernel to read back. Fusion removes those round trips:

  (a) an anchor (conv, matmul, gemm, pooling, a reduction, softmax, layer norm, LRN) takes
      the elementwise ops of its result's shape (bias or residual add, mul, relu, clip,
      sigmoid, gelu, cast, ...) that read it or each other, in program order, as far as
      the last point where nothing of the group but the last op's result is used outside
      it: a chain, or a diamond such as SiLU's x * sigmoid(x) and GELU's x * 0.5 * (1 +
      erf(x / sqrt 2)), whose x two ops read. The epilogue then runs on each tile of the
      anchor's result while it is in cache (see `schedules/fused.py`). YOLOv5's neck step
      (ten Conv + SiLU) took 13.4 ms with each SiLU a kernel of its own, one thread;
  (b) what is left of chains of injective ops (elementwise, expand, reshape, transpose,
      slice) becomes one kernel that reads its inputs once and writes only the last result;
      the chain also takes, as a tree, the injective ops whose result only it reads (their
      producers too, and so on): an LSTM cell's c' = sigmoid(f) * c + sigmoid(i) * tanh(g),
      each gate a slice of the step's GEMM result, is one kernel, not five.

    %0 = graph.conv %x, %w, %b : ...                %r = graph.fused "conv_add_relu" (%x, %w, %b, %s) : ... {
    %1 = graph.add %0, %s : ...              ->     ^bb0(...):
    %2 = graph.relu %1 : ...                          %0 = graph.conv ... ; %1 = graph.add ... ; %2 = graph.relu ...
                                                      graph.yield %2 : ...
                                                    }

The other operands of fused ops (the residual `%s`, weights) become operands of the group.
Anchors are grouped first, in program order, so an elementwise op between an anchor and an
injective chain goes with the anchor. A value used outside its group is a result of the
group, and the group replaces its last op, so every such use must come after that op: this
is checked for the extra results of multi-result anchors (layer norm's mean), the only
values besides the last one that can escape. `max-ops` bounds the size of a group.

The pass plans all groups first (a read-only analysis over each function body), then one
pattern replaces the last op of each planned group by the fused op.

MLIR counterpart: linalg's elementwise-op fusion and IREE's dispatch-region formation;
TVM's `FuseOps` with its OutEWiseFusable / Injective pattern kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from minitvm.dialects import graph
from minitvm.dialects.graph.base import Shape, shape_of
from minitvm.dialects.graph.elementwise import ELEMENTWISE_OPS
from minitvm.dialects.graph.fused import ANCHOR_OPS, fused_op

#: One output element from the same-index elements of the (broadcast) operands.
ELEMENTWISE: tuple[type[Operation], ...] = (*ELEMENTWISE_OPS, graph.BatchNormOp)

#: Each output element reads one element of each input at an index computed from its own.
INJECTIVE: tuple[type[Operation], ...] = (
    *ELEMENTWISE,
    graph.ExpandOp,
    graph.ReshapeOp,
    graph.TransposeOp,
    graph.SliceOp,
)


def _shape(value: SSAValue) -> Shape:
    assert isinstance(value.type, TensorType)
    return shape_of(value.type)


@dataclass
class _Planner:
    """Chooses the groups of one block (see the module docstring for the rules)."""

    block: Block
    max_ops: int

    def __post_init__(self) -> None:
        self.ops = list(self.block.ops)
        self.position = {op: n for n, op in enumerate(self.ops)}
        self.taken: set[Operation] = set()

    def plan(self) -> list[list[Operation]]:
        groups = []
        for kinds, bounded in ((ANCHOR_OPS, True), (INJECTIVE, False)):
            for op in self.block.ops:
                if isinstance(op, kinds) and op not in self.taken:
                    group = self._epilogue(op) if bounded else self._tree(self._chain(op))
                    if len(group) > 1:
                        groups.append(group)
                        self.taken.update(group)
        groups.sort(key=lambda g: self.position[g[-1]])
        return groups

    def _epilogue(self, head: Operation) -> list[Operation]:
        """`head` (an anchor) and the elementwise ops of its result shape that read it or
        each other, in program order: the longest such run after which only the last op's
        result (and the anchor's extra results, after it) is used outside. A value read
        twice inside is fine: x * sigmoid(x) (SiLU), x * 0.5 * (1 + erf(x / sqrt 2)) (GELU)."""
        group, best = [head], [head]
        members = {head}
        reach = self._last_use(head)  # no op past the last use of a member can join
        n = self.position[head]
        while n < reach and len(group) < self.max_ops:
            n += 1
            op = self.ops[n]
            if not any(operand.owner in members for operand in op.operands):
                continue  # another branch's op: the fused op will stand after it
            if (
                not isinstance(op, ELEMENTWISE)
                or op in self.taken
                or len(op.results) != 1
                or _shape(op.results[0]) != _shape(head.results[0])
            ):
                break
            group.append(op)
            members.add(op)
            reach = max(reach, self._last_use(op))
            if self._closed(group):
                best = list(group)
        return best

    def _last_use(self, op: Operation) -> int:
        """The position of the last op of this block that uses a result of `op`."""
        return max(
            (self.position.get(use.operation, -1) for r in op.results for use in r.uses),
            default=-1,
        )

    def _closed(self, group: Sequence[Operation]) -> bool:
        """Whether `group` can be one fused op standing where its last op stands: no value
        of it but the last op's result is used outside, except the head's extra results
        (multi-result anchors: layer norm's mean), used after the last op."""
        members, last = set(group), group[-1]
        for op in group:
            for n, result in enumerate(op.results):
                if op is last and n == 0:
                    continue
                for use in result.uses:
                    user = use.operation
                    if user in members:
                        continue
                    if op is not group[0] or n == 0:
                        return False
                    if self.position.get(user, -1) <= self.position[last]:
                        return False
        return True

    def _chain(self, head: Operation) -> list[Operation]:
        """`head` and the injective ops that follow it link by link (b), each the only user
        of the last one's result."""
        group = [head]
        value = head.results[0]
        while len(group) < self.max_ops:
            users = {use.operation for use in value.uses}
            if len(users) != 1:
                return group
            (user,) = users
            if (
                not isinstance(user, INJECTIVE)
                or user in self.taken
                or user.parent is not self.block
                or len(user.results) != 1
                or not self._escapes_after(group, value, user)
            ):
                return group
            group.append(user)
            value = user.results[0]
        return group

    def _tree(self, group: list[Operation]) -> list[Operation]:
        """`group` (a chain) with the injective ops of this block whose result only its
        members read, and theirs, and so on, in program order. They all stand before the
        group's last op and nothing outside reads them, so the group can still replace its
        last op."""
        members = set(group)
        todo = list(group)
        while todo and len(group) < self.max_ops:
            for operand in todo.pop().operands:
                producer = operand.owner
                if (
                    isinstance(producer, INJECTIVE)
                    and producer not in members
                    and producer not in self.taken
                    and producer.parent is self.block
                    and len(producer.results) == 1
                    and all(use.operation in members for use in producer.results[0].uses)
                    and len(group) < self.max_ops
                ):
                    group.append(producer)
                    members.add(producer)
                    todo.append(producer)
        return sorted(group, key=self.position.__getitem__)

    def _escapes_after(
        self, group: Sequence[Operation], chained: SSAValue, last: Operation
    ) -> bool:
        """Whether every use outside the group of a group value other than `chained` comes
        after `last` (where the fused op will stand)."""
        for op in group:
            for result in op.results:
                if result is chained:
                    continue
                for use in result.uses:
                    user = use.operation
                    if user not in group and self.position.get(user, -1) <= self.position[last]:
                        return False
        return True


def _label(group: Sequence[Operation]) -> str:
    return "_".join(op.name.removeprefix("graph.") for op in group)


@dataclass
class FuseGroupPattern(RewritePattern):
    """Replace the last op of a planned group by a `graph.fused` holding the whole group."""

    #: last op of a group -> the group, in program order
    groups: dict[Operation, list[Operation]]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        group = self.groups.pop(op, None)
        if group is None:
            return
        members = set(group)
        inputs: list[SSAValue] = []
        for member in group:
            for operand in member.operands:
                if operand.owner not in members and operand not in inputs:
                    inputs.append(operand)
        outputs = [
            result for member in group for result in member.results
            if member is op or any(use.operation not in members for use in result.uses)
        ]  # fmt: skip
        fused = fused_op(_label(group), inputs, group, outputs)
        replaced = dict(zip(outputs, fused.results))
        for value in outputs:
            if value.owner is not op:
                rewriter.replace_all_uses_with(value, replaced[value])
        rewriter.replace(op, fused, [replaced.get(r) for r in op.results])
        for member in reversed(group[:-1]):
            rewriter.erase(member)


def plan_module(module: ModuleOp, max_ops: int) -> dict[Operation, list[Operation]]:
    """The groups of every graph-level function of `module`, keyed by their last op."""
    plan: dict[Operation, list[Operation]] = {}
    blocks = [fn.body.block for fn in module.walk() if isinstance(fn, func.FuncOp) and fn.body.blocks]
    # the branches of a graph.if and the body of a graph.loop are blocks of their own: their
    # groups stay inside them
    for op in module.walk():
        if isinstance(op, graph.IfOp | graph.LoopOp):
            blocks += [region.block for region in op.regions]
    for block in blocks:
        for group in _Planner(block, max_ops).plan():
            plan[group[-1]] = group
    return plan


@dataclass(frozen=True)
class FusePass(ModulePass):
    """Group anchors with their elementwise epilogues, and injective chains, into
    `graph.fused` ops. `max-ops`: the most ops one group may hold."""

    name = "graph-fuse"

    max_ops: int = 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        plan = plan_module(op, max(self.max_ops, 1))
        # Not recursive: the walk visits the ops as they were planned, nothing it creates.
        PatternRewriteWalker(FuseGroupPattern(plan), apply_recursively=False).rewrite_module(op)
