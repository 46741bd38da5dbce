"""The loops of a graph.greedy_nms (NonMaxSuppression's greedy pass), which convert-te-to-loop
writes into @main: per (batch, class), the candidates in a heap, popped best first only as far
as the pass goes, each compared with the boxes kept so far only.

As graph ops the pass was a full sort of every class's scores and then a graph.loop whose
every step compared one candidate per class with all n boxes: O(n) per step, a dozen kernels
a step. ONNX Runtime's way, which this follows, costs O(n) to find the candidates, O(m) to
heap them and O(log m) a pop, and stops at max_boxes kept:

    for b:
      for p < n: planes[:, p] = x0, y0, x1, y1, area of boxes[b, p]   (corners or a center)
      for c:
        keep[b, c, :] = false; order[b, c, :] = -1                     (a memset each)
        m = 0; for p < n: heap[m] = p; m += (score[p] > threshold)      (all: no threshold;
                                   a line of 16 scores skipped where none is above it)
        heapify heap[:m]                    (best at the root: higher score, then lower index)
        count = 0
        for t < m:                                                       (count carried)
          active = count < max_boxes        (once false, false for every later t)
          p = heap[0]
          suppressed = OR over j < (active ? count : 0) of over(p, kept[:, j])   (16 j at once)
          take = active and not (area[p] > 0 and suppressed)
          kept[:, count] = planes[:, p]; keep[b, c, t] = take; order[b, c, t] = active ? p : -1
          count += take
          heap[0] = heap[m - t - 1]; sift down within m - t - 1   (only while active)

The corners and areas are worked out once per batch, in the pass (graph ops took a dozen
kernels of 8400-element planes for them: about 30 us of a 4-class YOLO head's 75).

Nothing branches on the data: a loop's trip count is 0 where it would do nothing (`kept[:,
count]` of a box not taken is overwritten by the next one kept; the pop of an inactive step
changes a heap nothing reads again). A sift down is a loop of at most `levels` branch-free
steps, each moving the entry one level while it is worse than its better child: heapify sifts
the nodes of each depth d (from the deepest parents up) with D - d steps, D = floor(log2 m),
so the heap costs O(m). `over` is graph.greedy_nms's IoU test in float32, the same
operations in the same order as the reference's.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, UnitAttr, f32, i1, i64
from xdsl.ir import Block, SSAValue

from minitvm.dialects import graph, loop
from minitvm.dialects.graph.base import shape_of
from minitvm.lowering.main_loops import Emit, Entry, SiftDown, extent, floor_log2
from minitvm.lowering.sort_to_loop import SCAN_BLOCK_BYTES

#: The rows of the planes the pass reads a batch's boxes from.
X0, Y0, X1, Y1, AREA = range(5)


def write_greedy_nms(
    block: Block,
    op: graph.GreedyNmsOp,
    operands: list[SSAValue],
    keep: SSAValue,
    order: SSAValue,
    heap: SSAValue,
    kept: SSAValue,
    planes: SSAValue,
) -> None:
    """`op`'s pass over buffers (`operands` in the op's order, `keep` and `order` its
    results; `heap` a scratch row of n i64, `planes` [5, n] f32 scratch for a batch's
    corners and areas, `kept` [5, n] f32 for those of the boxes kept so far, one row per
    plane, so that the comparison with them is a vector loop), in loops appended to
    `block`."""
    boxes, scores, most_buffer, iou_buffer, threshold_buffer = operands
    batch, classes, n = shape_of(op.scores.type)  # type: ignore[arg-type]
    emit = Emit(block)
    most = emit(loop.LoadOp(most_buffer, []))
    iou = emit(loop.LoadOp(iou_buffer, []))
    threshold = emit(loop.LoadOp(threshold_buffer, []))
    length, n_most = extent(emit, n)
    batch_count, batch_most = extent(emit, batch)
    batches = emit.loop(batch_most, None if isinstance(batch, int) else batch_count)
    per_batch = Emit(batches.body.block)
    b = batches.body.block.args[0]
    _write_planes(per_batch, boxes, planes, b, n_most, None if isinstance(n, int) else length, op.has_centers)
    class_count, class_most = extent(per_batch, classes)
    class_loop = per_batch.loop(class_most, None if isinstance(classes, int) else class_count)
    body = Emit(class_loop.body.block)
    c = class_loop.body.block.args[0]
    static_n = None if isinstance(n, int) else length
    pass_ = _Pass(planes, scores, keep, order, heap, kept, b, c, n_most, max(1, n_most.bit_length()))

    # keep[b, c, :] = false, order[b, c, :] = -1: a loop each, which LLVM makes a memset each
    # (one loop storing both it vectorized 4 elements a step; 4 classes x 8400: 54 -> 50 us)
    for buffer, value, type_ in ((keep, 0, i1), (order, -1, i64)):
        clear = body.loop(n_most, static_n)
        step = Emit(clear.body.block)
        t = clear.body.block.args[0]
        step.add(loop.StoreOp(step(arith.ConstantOp(IntegerAttr(value, type_))), buffer, [b, c, t]))
        step.add(loop.YieldOp())

    m = _gather_candidates(body, pass_, length, static_n, threshold if op.is_thresholded else None)

    depth = floor_log2(body, m, pass_.levels)
    pass_.heapify(body, m, depth)
    pass_.select(body, m, depth, most, iou)
    body.add(loop.YieldOp())
    per_batch.add(loop.YieldOp())


#: The scores the candidate scan of a thresholded pass tests at once (a cache line of f32):
#: above a high threshold (a detector's 0.25 to 0.99) most lines hold no candidate, and one
#: vector compare passes them all (as the TopK scan's `SCAN_BLOCK_BYTES`).
SCAN_LANES = SCAN_BLOCK_BYTES // 4


def _gather_candidates(
    emit: Emit, pass_: _Pass, length: SSAValue, count: SSAValue | None, threshold: SSAValue | None
) -> SSAValue:
    """heap[:m] = the boxes p < n of (b, c) whose score is above `threshold` (all of them
    without one), in index order, appended branch-free; returns m. With a threshold, a line of
    SCAN_LANES scores is looked at box by box only where one of them is above it."""
    zero = emit.index(0)
    if threshold is None or pass_.most < SCAN_LANES:
        return _append_candidates(emit, pass_, None, count, pass_.most, zero, threshold)
    lanes = emit.index(SCAN_LANES)
    blocks = emit(arith.DivUIOp(length, lanes))
    lines = emit.loop(pass_.most // SCAN_LANES, blocks, (zero,))
    step = Emit(lines.body.block)
    line, m = lines.body.block.args
    start = step(arith.MuliOp(line, lanes))
    scores = step(loop.VectorLoadOp(pass_.scores, [pass_.b, pass_.c, start], SCAN_LANES))
    above = step(loop.VectorCmpfOp("ogt", scores, step(loop.BroadcastOp(threshold, SCAN_LANES))))
    some = step(loop.VectorReduceOp("ori", step(arith.ConstantOp(IntegerAttr(0, i1))), above))
    boxes = step(arith.SelectOp(some, lanes, zero))
    step.add(loop.YieldOp(_append_candidates(step, pass_, start, boxes, SCAN_LANES, m, threshold)))
    done = emit(arith.MuliOp(blocks, lanes))
    tail = emit(arith.SubiOp(length, done))
    return _append_candidates(emit, pass_, done, tail, SCAN_LANES - 1, lines.res[0], threshold)


def _append_candidates(
    emit: Emit, pass_: _Pass, start: SSAValue | None, count: SSAValue | None, most: int,
    m: SSAValue, threshold: SSAValue | None,
) -> SSAValue:  # fmt: skip
    """heap[m:] += the boxes start <= p < start + count (start 0 where None; count at most
    `most`, `most` of them without a count) whose score is above `threshold` (all without
    one), in one loop appended; returns the new m. Branch-free: each box is stored at
    heap[m], and m moves on past the ones that count."""
    each = emit.loop(most, count, (m,))
    step = Emit(each.body.block)
    p, m = each.body.block.args
    if start is not None:
        p = step(arith.AddiOp(start, p))
    step.add(loop.StoreOp(step(arith.IndexCastOp(p, i64)), pass_.heap, [m]))
    if threshold is None:
        step.add(loop.YieldOp(step(arith.AddiOp(m, step.index(1)))))
    else:
        above = step(arith.CmpfOp(step(loop.LoadOp(pass_.scores, [pass_.b, pass_.c, p])), threshold, "ogt"))
        step.add(loop.YieldOp(step(arith.AddiOp(m, step(arith.SelectOp(above, step.index(1), step.index(0)))))))
    return each.res[0]


def _write_planes(
    emit: Emit, boxes: SSAValue, planes: SSAValue, b: SSAValue, most: int, count: SSAValue | None, centers: bool
) -> None:
    """planes[:, p] = x0, y0, x1, y1, area of box p of batch b (graph.greedy_nms's rules,
    the reference's operations), in one loop appended."""
    each = emit.loop(most, count)
    step = Emit(each.body.block)
    p = each.body.block.args[0]
    c = [step(loop.LoadOp(boxes, [b, p, step.index(k)])) for k in range(4)]
    if centers:  # [x_center, y_center, width, height]
        half = step(arith.ConstantOp(FloatAttr(0.5, f32)))
        w, h = step(arith.MulfOp(c[2], half)), step(arith.MulfOp(c[3], half))
        x0, x1 = step(arith.SubfOp(c[0], w)), step(arith.AddfOp(c[0], w))
        y0, y1 = step(arith.SubfOp(c[1], h)), step(arith.AddfOp(c[1], h))
    else:  # [y1, x1, y2, x2], either order
        y0, y1 = step(arith.MinimumfOp(c[0], c[2])), step(arith.MaximumfOp(c[0], c[2]))
        x0, x1 = step(arith.MinimumfOp(c[1], c[3])), step(arith.MaximumfOp(c[1], c[3]))
    area = step(arith.MulfOp(step(arith.SubfOp(x1, x0)), step(arith.SubfOp(y1, y0))))
    for k, value in enumerate((x0, y0, x1, y1, area)):
        step.add(loop.StoreOp(value, planes, [step.index(k), p]))
    step.add(loop.YieldOp())


@dataclass
class _Pass:
    """The heap and the greedy pass of one (batch, class): b and c (the batch's boxes in
    `planes`)."""

    planes: SSAValue
    scores: SSAValue
    keep: SSAValue
    order: SSAValue
    heap: SSAValue
    kept: SSAValue  # [5, n] f32: the planes of the boxes kept so far
    b: SSAValue
    c: SSAValue
    most: int  # the most candidates there can be (n, or its bound)
    levels: int  # the most sift-down steps a heap of `most` needs

    def heapify(self, emit: Emit, m: SSAValue, depth: SSAValue) -> None:
        """Floyd's heap construction of heap[:m], depth by depth from the deepest parents
        (depth D - 1) up: the nodes i of depth d, 2^d - 1 <= i < min(2^(d+1) - 1, m / 2),
        each sifted down D - d steps."""
        one = emit.index(1)
        parents = emit(arith.DivUIOp(m, emit.index(2)))
        depths = emit.loop(self.levels, depth)
        step = Emit(depths.body.block)
        d = step(arith.SubiOp(step(arith.SubiOp(depth, one)), depths.body.block.args[0]))
        first = step(arith.SubiOp(step(arith.ShLIOp(one, d)), one))
        end = step(arith.MinSIOp(step(arith.SubiOp(step(arith.ShLIOp(one, step(arith.AddiOp(d, one)))), one)), parents))
        nodes = step.loop(self.most, step(arith.MaxSIOp(step(arith.SubiOp(end, first)), step.index(0))))
        node = Emit(nodes.body.block)
        self.sift_down(node, node(arith.AddiOp(first, nodes.body.block.args[0])), m,
                       node(arith.SubiOp(depth, d)))  # fmt: skip
        node.add(loop.YieldOp())
        step.add(loop.YieldOp())

    def select(self, emit: Emit, m: SSAValue, depth: SSAValue, most: SSAValue, iou: SSAValue) -> None:
        """The greedy pass: pop the candidates best first while fewer than `most` are kept."""
        zero = emit.index(0)
        zero_f = emit(arith.ConstantOp(FloatAttr(0.0, f32)))
        ranks = emit.loop(self.most, m, (zero,))
        step = Emit(ranks.body.block)
        t, count = ranks.body.block.args
        active = step(arith.CmpiOp(step(arith.IndexCastOp(count, i64)), most, "slt"))
        root = step(loop.LoadOp(self.heap, [zero]))
        p = step(arith.IndexCastOp(root, IndexType()))
        candidate = [step(loop.LoadOp(self.planes, [step.index(k), p])) for k in range(5)]
        false = step(arith.ConstantOp(IntegerAttr(0, i1)))
        pairs = step.loop(self.most, step(arith.SelectOp(active, count, zero)), (false,))
        pairs.attributes[loop.VECTORIZE_HINT] = UnitAttr()  # (loop-vectorize: 16 kept a step)
        pair = Emit(pairs.body.block)
        j, suppressed = pairs.body.block.args
        other = [pair(loop.LoadOp(self.kept, [pair.index(k), j])) for k in range(5)]
        pair.add(loop.YieldOp(pair(arith.OrIOp(suppressed, _overlaps(pair, candidate, other, iou, zero_f)))))
        true = step(arith.ConstantOp(IntegerAttr(1, i1)))
        blocked = step(arith.AndIOp(step(arith.CmpfOp(candidate[AREA], zero_f, "ogt")), pairs.res[0]))
        take = step(arith.AndIOp(active, step(arith.XOrIOp(blocked, true))))
        for k, value in enumerate(candidate):
            step.add(loop.StoreOp(value, self.kept, [step.index(k), count]))
        step.add(loop.StoreOp(take, self.keep, [self.b, self.c, t]))
        none = step(arith.ConstantOp(IntegerAttr(-1, i64)))
        step.add(loop.StoreOp(step(arith.SelectOp(active, root, none)), self.order, [self.b, self.c, t]))
        # pop: the last entry to the root, sifted down within the rest (while active)
        one = step.index(1)
        rest = step(arith.SubiOp(step(arith.SubiOp(m, t)), one))
        step.add(loop.StoreOp(step(loop.LoadOp(self.heap, [rest])), self.heap, [zero]))
        sifts = step(arith.AndIOp(active, step(arith.CmpiOp(rest, one, "sgt"))))
        self.sift_down(step, zero, rest, step(arith.SelectOp(sifts, depth, zero)))
        step.add(loop.YieldOp(step(arith.AddiOp(count, step(arith.SelectOp(take, one, zero))))))

    def _better(self, emit: Emit, a: Entry, b: Entry) -> SSAValue:
        """Candidate a (i64, with its score) ranks before b: a higher score, or an equal one
        and a lower index (the stable sort's order)."""
        (a_at, a_score), (b_at, b_score) = a, b
        higher = emit(arith.CmpfOp(a_score, b_score, "ogt"))
        tie = emit(arith.AndIOp(emit(arith.CmpfOp(a_score, b_score, "oeq")), emit(arith.CmpiOp(a_at, b_at, "slt"))))
        return emit(arith.OrIOp(higher, tie))

    def _at(self, emit: Emit, slot: SSAValue) -> Entry:
        """The candidate in heap slot `slot` and its score."""
        p = emit(loop.LoadOp(self.heap, [slot]))
        return p, emit(loop.LoadOp(self.scores, [self.b, self.c, emit(arith.IndexCastOp(p, IndexType()))]))

    def _store(self, emit: Emit, p: SSAValue, slot: SSAValue) -> None:
        emit.add(loop.StoreOp(p, self.heap, [slot]))

    def sift_down(self, emit: Emit, start: SSAValue, size: SSAValue, steps: SSAValue) -> None:
        """Move the candidate in slot `start` down the heap of `size` slots (>= 2 where steps
        > 0) for `steps` levels at most, while a child ranks before it."""
        SiftDown(self._at, self._store, self._better, self.levels).write(emit, start, size, steps)


def _overlaps(
    emit: Emit, p: list[SSAValue], q: list[SSAValue], iou: SSAValue, zero: SSAValue
) -> SSAValue:
    """Whether candidate p's IoU with kept box q is above `iou`, where ix, iy, inter, q's
    area and the union are positive (p's area is tested once, outside)."""
    ix = emit(arith.SubfOp(emit(arith.MinimumfOp(p[X1], q[X1])), emit(arith.MaximumfOp(p[X0], q[X0]))))
    iy = emit(arith.SubfOp(emit(arith.MinimumfOp(p[Y1], q[Y1])), emit(arith.MaximumfOp(p[Y0], q[Y0]))))
    inter = emit(arith.MulfOp(ix, iy))
    union = emit(arith.SubfOp(emit(arith.AddfOp(p[AREA], q[AREA])), inter))
    over = emit(arith.CmpfOp(emit(arith.DivfOp(inter, union)), iou, "ogt"))
    for positive in (ix, iy, inter, q[AREA], union):
        over = emit(arith.AndIOp(over, emit(arith.CmpfOp(positive, zero, "ogt"))))
    return over
