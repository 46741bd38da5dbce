"""The ONNX converter of Einsum: an equation becomes transposes, reductions and matmuls.

    "bij,bjk->bik"  ->  graph.matmul (batch b)
    "bhqd,bhkd->bhqk" -> graph.transpose of the second operand, graph.matmul
    "ij->i"         ->  graph.reduce_sum
    "...ii->...i"   ->  graph.mul by an identity mask, graph.reduce_sum (the diagonal)

Operands are contracted left to right. For each pair, every label is a batch label (in both
and still needed: in the output or a later operand), a contracted one (in both, not needed),
or belongs to one side; each side is transposed to [batch..., own..., contracted...] (the
right side to [batch..., contracted..., own...]) and flattened to three groups, so one
graph.matmul, with its batch broadcasting, does the pair. A label found in one operand only
and not needed later is summed out first, and a label repeated within an operand takes the
diagonal. This is the order of operations of numpy's einsum without an optimized path.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.base import is_float
from minitvm.frontend.onnx_node import NodeContext, Value, converter

#: Labels standing for the dims an ellipsis covers (never letters, which the equation uses).
_ELLIPSIS_LABELS = "0123456789" + "".join(chr(c) for c in range(0x3B1, 0x3C9))


@dataclass
class Term:
    """An operand during contraction: its value, one label per dim, and the dims' sizes."""

    value: SSAValue
    labels: list[str]
    shape: list[int]


def parse(equation: str, ranks: Sequence[int]) -> tuple[list[list[str]], list[str]]:
    """The labels of each input and of the output, ellipses expanded (right-aligned, so the
    dims they cover broadcast as in numpy). Raises ValueError with the problem."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(ranks):
        raise ValueError(f"the equation has {len(specs)} operands, the node {len(ranks)}")
    covers = []
    for spec, rank in zip(specs, ranks):
        letters = spec.replace("...", "")
        if any(c not in string.ascii_letters for c in letters) or spec.count("...") > 1:
            raise ValueError(f"bad operand subscripts '{spec}'")
        covered = rank - len(letters)
        if covered < 0 or (covered and "..." not in spec):
            raise ValueError(f"subscripts '{spec}' do not fit an operand of rank {rank}")
        covers.append(covered)
    ellipsis_rank = max(covers, default=0)
    inputs: list[list[str]] = []
    for spec, covered in zip(specs, covers):
        # Right-aligned: an ellipsis covering fewer dims takes the last ellipsis labels.
        head, _, tail = spec.partition("...")
        inputs.append([*head, *_ELLIPSIS_LABELS[ellipsis_rank - covered : ellipsis_rank], *tail])
    ellipsis = list(_ELLIPSIS_LABELS[:ellipsis_rank])
    if arrow:
        if any(c not in string.ascii_letters for c in rhs.replace("...", "")):
            raise ValueError(f"bad output subscripts '{rhs}'")
        head, dots, tail = rhs.partition("...")
        output = [*head, *(ellipsis if dots else []), *tail]
        if ellipsis and not dots:
            raise ValueError("the output must keep the ellipsis dims ('...') when inputs have them")
    else:  # implicit: the ellipsis dims, then the labels used once, sorted
        counts: dict[str, int] = {}
        for labels in inputs:
            for label in labels:
                counts[label] = counts.get(label, 0) + 1
        output = ellipsis + sorted(c for c, n in counts.items() if n == 1 and c not in ellipsis)
    known = {label for labels in inputs for label in labels}
    if set(output) - known or len(set(output)) != len(output):
        raise ValueError(
            f"output subscripts {''.join(output)} name a label twice or one no input has"
        )
    return inputs, output


@converter("Einsum")
def convert_einsum(ctx: NodeContext) -> list[Value]:
    equation = str(ctx.attr("equation", ""))
    count = len(ctx.inputs)
    try:
        specs, output = parse(equation, [ctx.rank(i) for i in range(count)])
    except ValueError as e:
        raise ctx.error(f"equation '{equation}': {e}") from None
    terms = [Term(ctx.tensor(i), labels, list(ctx.shape(i))) for i, labels in enumerate(specs)]
    sizes = _label_sizes(ctx, terms)
    terms = [_diagonals(ctx, t) for t in terms]
    for i, term in enumerate(terms):
        others = {label for j, t in enumerate(terms) if j != i for label in t.labels}
        terms[i] = _sum_out(ctx, term, set(output) | others)
    result = terms[0]
    for i in range(1, len(terms)):
        result = _contract(ctx, result, terms[i], _needed_after(terms, i, output), sizes)
    result = _sum_out(ctx, result, set(output))
    return [_transpose(ctx, result, output).value]


def _label_sizes(ctx: NodeContext, terms: Sequence[Term]) -> dict[str, int]:
    """Each label's size; a label's dims must agree, but size 1 broadcasts (as numpy does
    for the ellipsis dims), to 0 as to any other size."""
    sizes: dict[str, int] = {}
    for term in terms:
        for label, size in zip(term.labels, term.shape):
            known = sizes.get(label, 1)
            if size != 1 and known != 1 and size != known:
                raise ctx.error(
                    f"label '{label}' has size {known} in one place and {size} in another"
                )
            sizes[label] = known if size == 1 else size
    return sizes


def _needed_after(terms: Sequence[Term], i: int, output: Sequence[str]) -> set[str]:
    """The labels still needed once operand i is contracted in: the output's and those of
    later operands."""
    later = {label for term in terms[i + 1 :] for label in term.labels}
    return set(output) | later


def _diagonals(ctx: NodeContext, term: Term) -> Term:
    """A label repeated within one operand ('ii'): keep its diagonal, by multiplying with an
    identity mask over the two dims and summing the second away."""
    while len(set(term.labels)) != len(term.labels):
        first = next(label for label in term.labels if term.labels.count(label) > 1)
        p = term.labels.index(first)
        q = term.labels.index(first, p + 1)
        n = term.shape[p]
        mask_shape = [n if d in (p, q) else 1 for d in range(len(term.shape))]
        mask = np.eye(n, dtype=ctx.dtype(0)).reshape(mask_shape)
        masked = ctx.make1(g.MulOp, term.value, ctx.materialize(mask, f"{ctx.node.output[0]}_eye"))
        value = ctx.make1(g.ReduceSumOp, masked, axes=[q], keepdims=0)
        term = Term(
            value, term.labels[:q] + term.labels[q + 1 :], term.shape[:q] + term.shape[q + 1 :]
        )
    return term


def _sum_out(ctx: NodeContext, term: Term, keep: set[str]) -> Term:
    axes = [d for d, label in enumerate(term.labels) if label not in keep]
    if not axes:
        return term
    value = ctx.make1(g.ReduceSumOp, term.value, axes=axes, keepdims=0)
    labels = [label for label in term.labels if label in keep]
    return Term(value, labels, [s for s, label in zip(term.shape, term.labels) if label in keep])


def _transpose(ctx: NodeContext, term: Term, labels: Sequence[str]) -> Term:
    perm = [term.labels.index(label) for label in labels]
    if perm == list(range(len(perm))):
        return term
    value = ctx.make1(g.TransposeOp, term.value, perm=perm)
    return Term(value, list(labels), [term.shape[p] for p in perm])


def _reshape(
    ctx: NodeContext, value: SSAValue, current: Sequence[int], shape: Sequence[int]
) -> SSAValue:
    return (
        value if list(current) == list(shape) else ctx.make1(g.ReshapeOp, value, shape=list(shape))
    )


def _contract(ctx: NodeContext, a: Term, b: Term, keep: set[str], sizes: dict[str, int]) -> Term:
    """a (x) b over their shared labels not in `keep`, as one batched graph.matmul."""
    shared = [label for label in a.labels if label in b.labels]
    batch = [label for label in shared if label in keep]
    contracted = [label for label in shared if label not in keep]
    left = [label for label in a.labels if label not in b.labels]
    right = [label for label in b.labels if label not in a.labels]
    for label in contracted:  # a broadcast (size-1) contracted dim: expand it first
        for term in (a, b):
            if term.shape[term.labels.index(label)] != sizes[label]:
                raise ctx.error(f"label '{label}' is summed over but has size 1 in one operand")
    a = _transpose(ctx, a, batch + left + contracted)
    nb = len(batch)
    rows, inner = math.prod(a.shape[nb : nb + len(left)]), math.prod(a.shape[nb + len(left) :])
    batch_shape = [sizes[label] for label in batch]
    if is_float(a.value.type.element_type):  # type: ignore[attr-defined]
        b = _transpose(ctx, b, batch + contracted + right)
        cols = math.prod(b.shape[nb + len(contracted) :])
        lhs = _reshape(ctx, a.value, a.shape, [*a.shape[:nb], rows, inner])
        rhs = _reshape(ctx, b.value, b.shape, [*b.shape[:nb], inner, cols])
        product = ctx.make1(g.MatMulOp, lhs, rhs)
    else:  # graph.matmul is float-only: a broadcast product summed over the inner dim
        b = _transpose(ctx, b, batch + right + contracted)
        cols = math.prod(b.shape[nb : nb + len(right)])
        lhs = _reshape(ctx, a.value, a.shape, [*a.shape[:nb], rows, 1, inner])
        rhs = _reshape(ctx, b.value, b.shape, [*b.shape[:nb], 1, cols, inner])
        terms = ctx.make1(g.MulOp, lhs, rhs)
        product = ctx.make1(g.ReduceSumOp, terms, axes=[nb + 2], keepdims=0)
    own_right = [b.shape[b.labels.index(label)] for label in right]
    shape = [*batch_shape, *a.shape[nb : nb + len(left)], *own_right]
    value = _reshape(ctx, product, [*batch_shape, rows, cols], shape)
    return Term(value, batch + left + right, shape)
