"""The loops of a running sum or product (graph.cum_sum, graph.cum_prod), which
convert-te-to-loop writes into @main: a scan, O(n) along an axis of n.

As a tensor expression each element reduces over the whole axis (select(k <= i, x[k], 0)),
O(n^2): fine for the positions of a sequence, not for a Unique's group numbers over 100 000
elements (873 ms of its 897). The scan reads the previous element of its own output:

    for p in the dims before the axis:
      for j over the axis (backwards when reversed):
        for q in the dims after it (contiguous):
          out[p, j, q] = first ? identity : out[p, j-1, q] op x[p, j', q]   (inclusive: j' = j)
                                                          (exclusive: x[p, j-1, q], j' = j - 1)

(j - 1 meaning the element before in scan order.) Element types: f32, f64 and signless
integers; others keep the tensor-expression form (`scans`).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, f32, f64
from xdsl.ir import Attribute, Operation, SSAValue

from minitvm.dialects import graph, loop
from minitvm.dialects.graph.base import get_int, shape_of
from minitvm.lowering.main_loops import Emit, extent


def scans(op: Operation) -> bool:
    """Whether `op` is a running sum or product that convert-te-to-loop writes as a scan."""
    if not isinstance(op, graph.CumSumOp | graph.CumProdOp):
        return False
    element = op.results[0].type.element_type  # type: ignore[attr-defined]
    return element in (f32, f64) or (isinstance(element, IntegerType) and element.signedness.data.name == "SIGNLESS")


def _identity(element: Attribute, product: bool) -> Operation:
    if element in (f32, f64):
        return arith.ConstantOp(FloatAttr(1.0 if product else 0.0, element))  # type: ignore[arg-type]
    return arith.ConstantOp(IntegerAttr(1 if product else 0, element))  # type: ignore[arg-type]


def _combine(element: Attribute, product: bool, a: SSAValue, b: SSAValue) -> Operation:
    if element in (f32, f64):
        return arith.MulfOp(a, b) if product else arith.AddfOp(a, b)
    return arith.MuliOp(a, b) if product else arith.AddiOp(a, b)


def write_scan(emit: Emit, op: graph.CumulativeOp, x: SSAValue, out: SSAValue) -> None:
    """The scan of `op` (x into out, buffers of the same shape), appended to `emit`'s block."""
    shape = shape_of(op.results[0].type)  # type: ignore[arg-type]
    axis = get_int(op.properties, "axis")
    exclusive, reverse = get_int(op.properties, "exclusive", 0), get_int(op.properties, "reverse", 0)
    product = isinstance(op, graph.CumProdOp)
    element = op.results[0].type.element_type  # type: ignore[attr-defined]
    sizes = [extent(emit, d) for d in shape]
    zero, one = emit.index(0), emit.index(1)
    identity = emit(_identity(element, product))
    last = emit(arith.SubiOp(sizes[axis][0], one))
    indices: list[SSAValue] = []
    bodies: list[Emit] = []
    inner = emit
    for dim, (size, most) in enumerate(sizes):
        for_op = inner.loop(most, None if isinstance(shape[dim], int) else size)
        inner = Emit(for_op.body.block)
        bodies.append(inner)
        step = for_op.body.block.args[0]
        if dim == axis:
            j = inner(arith.SubiOp(last, step)) if reverse else step
            first = inner(arith.CmpiOp(step, zero, "eq"))
            previous = inner(arith.AddiOp(j, one) if reverse else arith.SubiOp(j, one))
            earlier = inner(arith.SelectOp(first, j, previous))  # (a valid index either way)
            indices.append(j)
        else:
            indices.append(step)
    before = [earlier if d == axis else i for d, i in enumerate(indices)]
    running = inner(loop.LoadOp(out, before))
    term = inner(loop.LoadOp(x, before if exclusive else indices))
    combined = inner(_combine(element, product, running, term))
    value = inner(arith.SelectOp(first, identity if exclusive else term, combined))
    inner.add(loop.StoreOp(value, out, indices))
    for body in bodies:
        body.add(loop.YieldOp())
