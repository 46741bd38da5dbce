"""convert-te-to-loop: apply each compute's schedule and emit loop nests over buffers.

Kernels become destination-passing functions over memrefs: `@k(inputs..., outputs...,
scratch...)`, where scratch buffers hold computes that are not kernel results (`@main`
allocates them, so kernels never allocate). `@main` becomes the executable's plan:
`graph.constant` -> `loop.constant`, each kernel call gets `loop.alloc`ed result buffers, and
the model's results are extra output arguments written in place.

A compute `(%i0, %i1) in [M, N] sum (%r0) in [K]` turns into loops named i0, i1, r0. The
default order keeps every access unit-stride or invariant where it can: spatial loops
outermost, reduction loops next, and the last spatial loop innermost when every read walks it
contiguously (so `C[i, j] += A[i, k] * B[k, j]` runs as i-k-j); otherwise reductions stay
innermost with the accumulator carried in registers (`loop.for ... iter_args`). The schedule
then rewrites that order: split, reorder, fuse; vectorize, unroll and parallel mark loops
for the loop passes. A split that does not divide its loop is peeled: its whole tiles, then
one tile of what is left (unguarded, so a register block's last rows are a shorter block;
where that is known only at run time, the last whole tile and the rest are two blocks as even
as can be, 7 rows in blocks of 6 as 4 + 3);
a split of that tile's inner loop is peeled in turn over what the tile has (a GEMM's last
17 columns in vectors of 16: one vector, then one column); where the inner loop does not run
inside the outer one, the body is guarded by `loop.if`. A
fused loop gives back its parts as fused / extent(inner) and fused % extent(inner). Index
divisions by a constant that the loop structure decides (a packed operand's `j / 16` and
`j % 16` when j's innermost loop is 16 wide) are simplified away (TVM's arith simplifier does
this for its packed layouts), so that loop-vectorize sees unit-stride accesses. The loop
nests themselves, and the checks of a schedule (`#te.compute_at` included), are
`dialects/te_nest.py`: this pass emits them. (This is TVM's te.create_schedule + tvm.lower,
in MLIR's conversion-pass shape.)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from minitvm.dialects import graph, loop, te
from minitvm.dialects.arith_values import constant_int
from minitvm.dialects.graph.base import shape_of, tensor_type
from minitvm.dialects.index_analysis import (
    DIVISIONS,
    REMAINDERS,
    LinearForm,
    exact_division,
    factored_division,
)
from minitvm.dialects.te_expr import Expr, const, emit_into, is_unsigned, select
from minitvm.dialects.te_inline import inline_computes
from minitvm.dialects.te_nest import Loop, LoopNest, kernel_nests
from minitvm.errors import MinitvmError
from minitvm.lowering.batch_threads import batch_parallel_nests, images_take_threads
from minitvm.lowering.main_loops import Emit, extent
from minitvm.lowering.nms_to_loop import write_greedy_nms
from minitvm.lowering.scan_to_loop import scans, write_scan
from minitvm.lowering.sort_to_loop import (
    SCAN_BLOCK_BYTES,
    SortScratch,
    write_argsort,
    write_first_k,
    write_inverse_permutation,
    write_top_k,
)
from minitvm.lowering.views import in_place_concat, view_starts
from minitvm.symbolic import SymDim, bounds, floordiv, mod, symbol, symbols_of


def memref_of(type_: Attribute) -> MemRefType:
    """The buffer of a tensor; symbolic dims keep their `#graph.dims` (as memory space)."""
    assert isinstance(type_, TensorType), type_
    if isinstance(type_.encoding, graph.DimsAttr):
        return MemRefType(type_.element_type, type_.get_shape(), NoneAttr(), type_.encoding)
    return MemRefType(type_.element_type, type_.get_shape())


#: The mask elements (bytes) flat_nonzero tests at once, a cache line: a row of a sparse mask
#: (NonMaxSuppression's kept ranks, a few of 8400 per class) is mostly lines with none set.
NONZERO_LINE = SCAN_BLOCK_BYTES


@dataclass
class NonzeroRow:
    """flat_nonzero's pass over one row of the mask (its innermost dimension, `size` long;
    `indices` of the outer ones, `flat` their row-major position): each element's flat
    position `flat * size + i` is stored at `result[count]`, and the count goes up by one
    where the mask is set. No branch: count <= position, so the store stays within the
    result, which is as long as the mask. A row is taken a line of NONZERO_LINE elements
    at a time, one vector load and an OR over its lanes, and element by element only where
    one of them is set (a trip count of 0 for the others); what is left after the whole
    lines, element by element. A mask of rank 0 is a row of one (`size` None)."""

    mask: SSAValue
    result: SSAValue
    indices: list[SSAValue]
    flat: SSAValue
    size: int | SymDim | None

    def write(self, emit: Emit, count: SSAValue) -> SSAValue:
        """The loops, appended; the count after the row."""
        known = not isinstance(self.size, SymDim)  # (static: the trip counts are too)
        length, most = extent(emit, 1 if self.size is None else self.size)
        base = emit(arith.MuliOp(self.flat, length))
        zero = emit.index(0)
        if most < NONZERO_LINE:
            return self._elements(emit, base, zero, None if known else length, most, count)
        line = emit.index(NONZERO_LINE)
        whole = emit(arith.DivUIOp(length, line))
        lines = emit.loop(most // NONZERO_LINE, None if known else whole, (count,))
        step = Emit(lines.body.block)
        n, carried = lines.body.block.args
        start = step(arith.MuliOp(n, line))
        values = step(loop.VectorLoadOp(self.mask, [*self.indices, start], NONZERO_LINE))
        some = step(loop.VectorReduceOp("ori", step(arith.ConstantOp(IntegerAttr(0, i1))), values))
        elements = step(arith.SelectOp(some, line, zero))
        step.add(loop.YieldOp(self._elements(step, base, start, elements, NONZERO_LINE, carried)))
        done = emit(arith.MuliOp(whole, line))
        if known:
            return self._elements(emit, base, done, None, most % NONZERO_LINE, lines.res[0])
        left = emit(arith.SubiOp(length, done))
        return self._elements(emit, base, done, left, NONZERO_LINE - 1, lines.res[0])

    def _elements(
        self, emit: Emit, base: SSAValue, start: SSAValue, count: SSAValue | None, most: int, total: SSAValue
    ) -> SSAValue:
        """Elements start .. start + count (at most `most`; the row's own at `base` of the
        flat positions) one by one, in a loop appended; the count after them."""
        each = emit.loop(most, count, (total,))
        step = Emit(each.body.block)
        j, carried = each.body.block.args
        i = step(arith.AddiOp(start, j))
        taken = step(loop.LoadOp(self.mask, [] if self.size is None else [*self.indices, i]))
        position = step(arith.IndexCastOp(step(arith.AddiOp(base, i)), i64))
        step.add(loop.StoreOp(position, self.result, [carried]))
        one = step(arith.SelectOp(taken, step.index(1), step.index(0)))
        step.add(loop.YieldOp(step(arith.AddiOp(carried, one))))
        return each.res[0]


def _for(block: Block, extent: int | SymDim, inits: Sequence[SSAValue] = ()) -> loop.ForOp:
    """`loop.for` over [0, extent): to a `loop.size` when the extent is a symbolic size
    (bounded by what the symbols' ranges allow)."""
    if not isinstance(extent, SymDim):
        return loop.ForOp(0, extent, 1, inits)
    size = loop.SizeOp(extent)
    block.add_op(size)
    high = bounds(extent)[1]
    return loop.ForOp(0, min(high, MAX_TRIP) if high is not None else MAX_TRIP, 1, inits, upper_value=size.result)


#: What a run-time trip count is bounded by where the symbols' ranges give no bound.
MAX_TRIP = 2**62

#: The largest split of a symbolic extent whose partial tiles get one version per size they
#: can have (`_emit_balanced_tiles`: factor - 1 of them): a register block's rows, not a
#: cache tile's 64.
MAX_TAIL_VERSIONS = 8


def symbols_used(kernel: func.FuncOp) -> list[str]:
    """The symbols a te kernel's sizes name (its buffers' dims, extents, te.size reads)."""
    names: set[str] = set()
    for op in kernel.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            if isinstance(value.type, TensorType):
                names |= symbols_of(shape_of(value.type))
        if isinstance(op, te.ComputeOp):
            names |= symbols_of(op.extents)
        elif isinstance(op, te.SizeOp):
            names |= symbols_of(op.value)
    return sorted(names)


# --------------------------------------------------------------------------------------------
# Index arithmetic: divisions by constants decided at compile time (dialects/index_analysis)
# --------------------------------------------------------------------------------------------


def _unsigned(op_class: type[Operation], index: Expr, divisor: int) -> Expr:
    """`index` (>= 0) divided (`DivUIOp`) or reduced (`RemUIOp`) by `divisor`, emitted in the
    block `emit_into` is building."""
    rhs = const(divisor, IndexType())
    op = op_class(index.value, rhs.value)
    Rewriter.insert_op(op, InsertPoint.after(rhs.value.owner))  # i.e. appended to that block
    return Expr(op.results[0])


def _emit_linear(form: LinearForm) -> Expr:
    """`form` emitted in the block `emit_into` is building."""
    total: Expr | None = None
    for atom, c in form.terms.items():
        term = Expr(atom) if c == 1 else Expr(atom) * c
        total = term if total is None else total + term
    if total is None:
        return const(form.constant, IndexType())
    return total + form.constant if form.constant else total


# --------------------------------------------------------------------------------------------
# IR emission
# --------------------------------------------------------------------------------------------


def _index_slice(read: te.ReadOp) -> list[Operation] | None:
    """The ops of `read`'s compute body that its indices are computed from, in body order;
    None if one of them reads a tensor (a gathered index)."""
    body = read.parent_block()
    needed: set[Operation] = set()
    pending = [i.owner for i in read.indices]
    while pending:
        op = pending.pop()
        if not isinstance(op, Operation) or op in needed or op.parent_block() is not body:
            continue
        if isinstance(op, te.ReadOp):
            return None
        needed.add(op)
        pending += [o.owner for o in op.operands]
    return [op for op in body.ops if op in needed]


def _loop_hints(lp: Loop) -> list[str]:
    """The loop attributes of `lp`; `parallel` is dropped on a reduction loop, whose
    iterations would race on the accumulator."""
    return sorted(h for h in lp.hints if not (lp.reduction and h == loop.PARALLEL_HINT))


def _identity(kind: str, type_: Attribute) -> Operation:
    if isinstance(type_, AnyFloat):
        return arith.ConstantOp(FloatAttr(te.REDUCTIONS[kind], type_), type_)
    assert isinstance(type_, IntegerType)
    width = type_.width.data
    lowest, highest = (0, (1 << width) - 1) if is_unsigned(type_) else (
        -(1 << (width - 1)), (1 << (width - 1)) - 1)  # fmt: skip
    value = {"sum": 0, "prod": 1, "max": lowest, "min": highest}[kind]
    return arith.ConstantOp(IntegerAttr(value, type_), type_)


def _combine(kind: str, acc: SSAValue, value: SSAValue) -> Operation:
    if isinstance(acc.type, AnyFloat):
        ops = {"sum": arith.AddfOp, "prod": arith.MulfOp, "max": arith.MaximumfOp,
               "min": arith.MinimumfOp}  # fmt: skip
    elif acc.type == IntegerType(1):  # booleans: max is "any", min and prod are "all"
        ops = {"sum": arith.OrIOp, "prod": arith.AndIOp, "max": arith.OrIOp, "min": arith.AndIOp}
    elif is_unsigned(acc.type):
        ops = {"sum": arith.AddiOp, "prod": arith.MuliOp, "max": arith.MaxUIOp, "min": arith.MinUIOp}
    else:
        ops = {"sum": arith.AddiOp, "prod": arith.MuliOp, "max": arith.MaxSIOp, "min": arith.MinSIOp}
    return ops[kind](acc, value)


class _ComputeEmitter:
    """Builds the loop nest of one compute into `block` (appending), given its buffers."""

    def __init__(
        self,
        compute: te.ComputeOp,
        nest: LoopNest,
        buffers: dict[SSAValue, SSAValue],
        out: SSAValue,
    ):
        self.compute = compute
        self.buffers = buffers
        self.out = out
        self.nest = nest
        self.kind = compute.reduce_kind.data if compute.reduce_kind else None
        self.element_type = compute.result.type.element_type
        #: loop name -> consumers whose loops run inside that loop (#te.compute_at)
        self.attached: dict[str, list[_ComputeEmitter]] = {}
        #: split axes whose guard is left out while the tiles of a peeled split are emitted,
        #: and the run-time extents of the inner loops of partial tiles (see `_emit_nest`)
        self.unguarded: set[str] = set()
        self.extent_overrides: dict[str, int | SymDim] = {}
        #: what is added to a split's inner index where a partial tile starts within a tile
        #: (the second of two balanced blocks, see `_emit_balanced_tiles`)
        self.index_offsets: dict[str, SSAValue] = {}
        #: the loop whose iterations issue #te.prefetch's prefetches, if any
        self.prefetch_site = nest.prefetch_site()

    # The loop variables -> original axis indices (undoing splits and fusions), emitted in
    # the block `emit_into` is building.
    def axis_index(self, name: str, loop_vars: dict[str, SSAValue]) -> Expr:
        if name in loop_vars:
            return Expr(loop_vars[name])
        if name in self.nest.splits:
            outer, inner, factor = self.nest.splits[name]
            start = self.axis_index(outer, loop_vars) * factor
            if inner in self.index_offsets:  # (added before the inner index, which unrolling
                start = start + Expr(self.index_offsets[inner])  # makes a constant to fold)
            return start + self.axis_index(inner, loop_vars)
        part = self.nest.fused_part(name)
        assert part is not None, name
        fused, extent, is_outer = part
        index = self.axis_index(fused, loop_vars)
        return _unsigned(arith.DivUIOp if is_outer else arith.RemUIOp, index, extent)

    def _fused_parts(self, name: str, loop_vars: dict[str, SSAValue]) -> dict[str, SSAValue]:
        """The indices of the loops fused into loop `name`, emitted once at the top of its
        body: recomputed at each use, the divisions sit in the innermost loop, where
        loop-vectorize takes them for indices that vary with it (a conv whose channel
        blocks and rows are fused ran 2x slower)."""
        if name not in self.nest.fusions:
            return {}
        parts: dict[str, SSAValue] = {}
        for part in self.nest.fusions[name][:2]:
            parts[part] = self.axis_index(part, {**loop_vars, **parts}).value
            parts.update(self._fused_parts(part, {**loop_vars, **parts}))
        return parts

    def guard(self, block: Block, loop_vars, axes: Sequence[str]) -> SSAValue | None:
        condition: Expr | None = None
        with emit_into(block):
            for name in (a for a in axes if a not in self.unguarded):
                inside = self.axis_index(name, loop_vars) < self.nest.extents[name]
                condition = inside if condition is None else condition & inside
        return None if condition is None else condition.value

    def spatial_indices(self, loop_vars: dict[str, SSAValue]) -> list[SSAValue]:
        return [self.axis_index(f"i{n}", loop_vars).value for n in range(len(self.compute.shape))]

    def emit_body(self, block: Block, loop_vars: dict[str, SSAValue]) -> SSAValue:
        """Clone the compute's body into `block`; returns the yielded scalar."""
        mapping: dict[SSAValue, SSAValue] = {}
        with emit_into(block):
            names = [f"i{n}" for n in range(len(self.compute.shape))]
            names += [f"r{n}" for n in range(len(self.compute.extents))]
            for arg, name in zip(self.compute.body.block.args, names):
                mapping[arg] = self.axis_index(name, loop_vars).value
        for op in self.compute.body.block.ops:
            if isinstance(op, te.YieldOp):
                return mapping.get(op.value, op.value)
            if isinstance(op, te.ReadOp):
                buffer = self.buffers[op.tensor]
                indices = [mapping.get(i, i) for i in op.indices]
                new = loop.LoadOp(buffer, indices)
                block.add_op(new)
                mapping[op.result] = new.result
            else:
                self._emit_op(block, op, mapping, loop_vars)
        raise AssertionError("te.compute body without te.yield")

    def _emit_op(self, block: Block, op: Operation, mapping, loop_vars) -> None:
        """A copy of the body's `op` (not a read) in `block`, its operands through `mapping`,
        which then maps its results: a size as `loop.size`, a division the loops decide
        without it."""
        if isinstance(op, te.SizeOp):
            new = loop.SizeOp(op.value)
        elif (simple := self._simplified_division(block, op, mapping, loop_vars)) is not None:
            mapping[op.results[0]] = simple
            return
        else:
            new = op.clone(mapping)
        block.add_op(new)
        for old, result in zip(op.results, new.results):
            mapping[old] = result

    def _prefetch(self, block: Block, loop_vars: dict[str, SSAValue]) -> None:
        """#te.prefetch's prefetches at the top of an iteration of its site loop (see
        `te.PrefetchAttr`): each read whose indices depend on the `ahead` loop (and on no
        other read), at that loop's next iteration; of the unrolled loops inside the site,
        those the read depends on take one of their combinations, the `over` loop's index
        modulo their count (the outermost varying slowest), the others 0. Where the `over`
        loop has fewer iterations than the read has combinations (16 rows of a GEMM in 3
        blocks, a strip of B 4 vectors wide), each iteration asks for as many of them as
        cover them all: `over + n x iterations` for n = 0, 1, ..."""
        assert self.nest.prefetch is not None
        ahead, over = self.nest.prefetch
        over_extent = self.nest.loops[self.nest.find(over)].extent
        names = [f"i{n}" for n in range(len(self.compute.shape))]
        names += [f"r{n}" for n in range(len(self.compute.extents))]
        axis_of = dict(zip(self.compute.body.block.args, names))
        inside = self.nest.loops[self.nest.find(self.prefetch_site) + 1 :]
        for read in self.compute.body.block.ops:
            if not isinstance(read, te.ReadOp):
                continue
            slice_ = _index_slice(read)
            if slice_ is None:
                continue  # (an index read from a tensor: a gather)
            # (in order of use, not a set: the index arithmetic below is emitted in this order,
            # and a set of values iterates by address, which made two compiles differ)
            used = list(dict.fromkeys(a for op in [read, *slice_] for a in op.operands if a in axis_of))
            axes = {axis_of[a] for a in used}
            if not axes & self.nest.root_axes(ahead):
                continue
            spread = [
                lp for lp in inside
                if loop.VECTORIZE_HINT not in lp.hints and self.nest.root_axes(lp.name) & axes
            ]  # fmt: skip
            combinations = 1
            for lp in spread:
                combinations *= lp.extent if isinstance(lp.extent, int) else 1
            copies = 1
            if isinstance(over_extent, int) and 0 < over_extent < combinations:
                copies = -(-combinations // over_extent)
            for copy in range(copies):
                with emit_into(block):
                    at = {lp.name: const(0, IndexType()).value for lp in inside}
                    combination = Expr(loop_vars[over])
                    if copy:
                        combination = combination + copy * over_extent
                    for n, lp in enumerate(reversed(spread)):
                        if n:
                            combination = _unsigned(arith.DivUIOp, combination, spread[-n].extent)
                        at[lp.name] = _unsigned(arith.RemUIOp, combination, lp.extent).value
                    at[ahead] = (Expr(loop_vars[ahead]) + 1).value
                    moved = {**loop_vars, **at}
                    mapping = {arg: self.axis_index(axis_of[arg], moved).value for arg in used}
                # (the loops' ranges, for simplifying divisions: `ahead` moved is its variable
                # + 1)
                ranges_from = {**moved, ahead: loop_vars[ahead]}
                for op in slice_:
                    self._emit_op(block, op, mapping, ranges_from)
                indices = [mapping.get(i, i) for i in read.indices]
                block.add_op(loop.PrefetchOp(self.buffers[read.tensor], indices))

    def _simplified_division(
        self, block: Block, op: Operation, mapping, loop_vars
    ) -> SSAValue | None:
        """`op`'s value without the division, if it is an index divided (or reduced) by a
        constant that the loops' ranges decide (see `exact_division` and
        `factored_division`); None otherwise. `loop_vars` gives the loops' variables whose
        ranges are known."""
        if not isinstance(op, DIVISIONS | REMAINDERS) or op.results[0].type != IndexType():
            return None
        ranges = {
            loop_vars[lp.name]: (0, lp.extent - 1)
            for lp in self.nest.loops
            if lp.name in loop_vars and isinstance(lp.extent, int)
        }
        lhs, rhs = (mapping.get(v, v) for v in op.operands)
        quotient = isinstance(op, DIVISIONS)
        form = exact_division(lhs, rhs, ranges, quotient)
        with emit_into(block):
            if form is not None:
                return _emit_linear(form).value
            if (factored := factored_division(lhs, rhs, ranges)) is None:
                return None
            outer, rest, divisor = factored
            if quotient:
                return _unsigned(arith.DivUIOp, _emit_linear(outer), divisor).value
            remainder = _unsigned(arith.RemUIOp, _emit_linear(outer), divisor)
            return (remainder * (constant_int(rhs) // divisor) + _emit_linear(rest)).value

    def emit(self, block: Block, bound: dict[str, SSAValue] | None = None) -> None:
        """Append this compute's loops to `block`; `bound` axes are loops of a producer this
        compute is attached to (their variables are in scope already)."""
        bound = bound or {}
        loops = [lp for lp in self.nest.loops if lp.name not in bound]
        if self.kind is None:
            self._emit_nest(block, loops, bound, self._store_element, attach=True)
        elif self.nest.reductions_innermost and not any(
            a.startswith("r") for a in self.nest.guarded_axes()
        ):
            spatial = [lp for lp in loops if not lp.reduction]
            self._emit_nest(block, spatial, bound, self._reduce_in_registers, attach=True)
        else:
            self._emit_accumulation(block, loops, bound)

    def _emit_nest(self, block, loops: Sequence[Loop], loop_vars, innermost, attach=False) -> None:
        if not loops:
            innermost(block, loop_vars)
            return
        lp, rest = loops[0], loops[1:]
        peel = self._peel(lp.name)
        if peel is None:
            extent = self.extent_overrides.get(lp.name, lp.extent)
            self._emit_loop(block, lp, _for(block, extent), None, rest, loop_vars, innermost, attach)
            return
        # The outer loop of a split that may not divide its extent: its full tiles first, then
        # the partial tile, if any, whose inner loop runs to what is left of the extent; neither
        # needs the axis's guard (what keeps a register block's rows unguarded).
        axis, extent, factor = peel
        inner = self.nest.splits[axis][1]
        full = floordiv(extent, factor)
        self.unguarded.add(axis)
        left = mod(extent, factor)
        if (
            isinstance(left, SymDim)
            and factor <= MAX_TAIL_VERSIONS
            and self._runs_inside(inner, lp.name)
            and not any(self.attached.get(inside.name) for inside in (lp, *rest))
        ):  # (a consumer attached inside would not see the second block's offset)
            self._emit_balanced_tiles(block, lp, peel, rest, loop_vars, innermost, attach)
            self.unguarded.discard(axis)
            return
        if not (isinstance(full, int) and full == 0):  # (a partial tile's split may have none)
            self._emit_loop(block, lp, _for(block, full), None, rest, loop_vars, innermost, attach)
        if isinstance(left, int) and left == 0:
            self.unguarded.discard(axis)  # (a partial tile's split that divides what it has)
            return
        start = loop.SizeOp(full) if isinstance(full, SymDim) else arith.ConstantOp(IntegerAttr(full, IndexType()))
        block.add_op(start)
        if not self._runs_inside(inner, lp.name):
            self.unguarded.discard(axis)  # (the inner loop was fused into another: guarded)
        else:
            self.extent_overrides[inner] = left  # one partial tile of that size
        partial = _for(block, floordiv(left + (factor - 1), factor))
        self._emit_loop(block, lp, partial, start.results[0], rest, loop_vars, innermost, attach)
        self.extent_overrides.pop(inner, None)
        self.unguarded.discard(axis)

    def _emit_balanced_tiles(
        self, block: Block, lp: Loop, peel: tuple[str, int | SymDim, int], rest, loop_vars, innermost, attach
    ) -> None:
        """The tiles of a register block's split (`lp` its outer loop) whose rest is known only
        at run time: the whole tiles, then the rows left over as at most two blocks as even as
        can be, each in one version per size it can have, 1 to factor - 1 (a static inner
        extent, so that it too is unrolled with its accumulators in registers). With a rest
        of at most factor - 2 rows, the last whole tile and the rest are shared by two blocks
        (a rest of factor - 1 would leave them as they are): 7 rows in blocks of 6 run as
        4 + 3, not 6 + 1, whose one row keeps few chains of FMAs in flight and loads a vector
        of B for each FMA (the static compile evens its blocks out the same way: gemm.py's
        `default_block`). AMD EPYC Zen 4, one thread, the BERT layer compiled for any length
        against its static compile: 7 tokens 1.09x -> 0.90-0.95x (`minitvm bench --dynamic
        bert`, three runs); 13 tokens 1.09x -> 1.03x (interleaved in one process); 64 tokens
        and more unchanged."""
        axis, axis_extent, factor = peel
        inner = self.nest.splits[axis][1]
        emit = Emit(block)
        whole_tiles, whole_bound = extent(emit, floordiv(axis_extent, factor))
        with emit_into(block):
            rows_left = Expr(emit(loop.SizeOp(mod(axis_extent, factor))))
            # share a whole tile where that makes two shorter blocks (a rest of factor - 1
            # rows would make one whole block again: no version of `factor` rows is needed)
            shared = rows_left.ne(0) & (rows_left <= factor - 2) & Expr(whole_tiles).ne(0)
            taken = select(shared, const(1, IndexType()), 0)
            rows = rows_left + taken * factor  # left over after the whole tiles
            first = select(shared, (rows + 1) // 2, rows)
            second = rows - first
            whole = Expr(whole_tiles) - taken
        tiles = loop.ForOp(0, whole_bound, 1, upper_value=whole.value)
        self._emit_loop(block, lp, tiles, None, rest, loop_vars, innermost, attach)
        blocks = emit.loop(2)  # the first block of the rows left over, then the second
        body = blocks.body.block
        with emit_into(body):
            is_first = Expr(body.args[0]).eq(0)
            size = select(is_first, first, second)
            self.index_offsets[inner] = select(is_first, 0, first).value
            heights = [(height, size.eq(height).value) for height in range(1, factor)]
        for height, taken_here in heights:
            version = Block()
            self.extent_overrides[inner] = height
            self._emit_loop(version, lp, loop.ForOp(0, 1, 1), whole.value, rest, loop_vars, innermost, attach)
            version.add_op(loop.YieldOp())
            body.add_op(loop.IfOp(taken_here, version))
        body.add_op(loop.YieldOp())
        self.extent_overrides.pop(inner, None)
        self.index_offsets.pop(inner, None)

    def _peel(self, name: str) -> tuple[str, int | SymDim, int] | None:
        """(axis, extent, factor) when loop `name` is emitted as a peeled split: the outer
        loop of a split that does not divide its axis (te_nest's `peeled_split`, unless the
        axis is already being peeled), or of the split of a partial tile's inner axis, whose
        extent is what that tile has left (a GEMM's last column block of 17 columns, split
        in vectors of 16: one vector, then one column)."""
        for axis, (outer, _, factor) in self.nest.splits.items():
            if outer == name and axis in self.extent_overrides:
                return axis, self.extent_overrides[axis], factor
        peel = self.nest.peeled_split(name)
        if peel is None or peel[0] not in self.nest.guarded_axes() or peel[0] in self.unguarded:
            return None
        return peel

    def _runs_inside(self, axis: str, outer_loop: str) -> bool:
        """Whether `axis` (the inner part of a split whose outer loop is `outer_loop`) runs
        inside that loop: a loop after it, or split into such loops, each split's inner loops
        after its outer ones. Then a partial tile can be given its extent, and peeled in
        turn, instead of guarding every element."""
        order = {lp.name: n for n, lp in enumerate(self.nest.loops)}

        def loops_of(name: str) -> list[int] | None:
            """The positions of the loops `name` is made of, or None if any was fused away."""
            if name in order:
                return [order[name]]
            if name not in self.nest.splits:
                return None
            outer, inner, _ = self.nest.splits[name]
            first, second = loops_of(outer), loops_of(inner)
            if first is None or second is None or max(first) > min(second):
                return None
            return first + second

        positions = loops_of(axis)
        return positions is not None and min(positions) > order[outer_loop]

    def _emit_loop(
        self, block, lp: Loop, for_op: loop.ForOp, offset: SSAValue | None, rest, loop_vars, innermost, attach
    ) -> None:
        """Append `for_op` running loop `lp` (its index `offset` + the induction variable)
        and, inside it, the loops `rest`."""
        for hint in _loop_hints(lp):
            for_op.attributes[hint] = UnitAttr()
        block.add_op(for_op)
        body = for_op.body.block
        body.args[0].name_hint = lp.name.replace(".", "_")
        index = body.args[0]
        if offset is not None:
            shifted = arith.AddiOp(offset, index)
            body.add_op(shifted)
            index = shifted.result
        inner_vars = {**loop_vars, lp.name: index}
        with emit_into(body):
            inner_vars.update(self._fused_parts(lp.name, inner_vars))
        if lp.name == self.prefetch_site:
            self._prefetch(body, inner_vars)
        self._emit_nest(body, rest, inner_vars, innermost, attach)
        if attach:
            for consumer in self.attached.get(lp.name, ()):
                consumer.emit(body, inner_vars)
        body.add_op(loop.YieldOp())

    @contextmanager
    def _guarded(self, block: Block, loop_vars, axes: Sequence[str]) -> Iterator[Block]:
        """Yields `block`, or the body of a `loop.if` in it when a rebuilt index may overrun."""
        condition = self.guard(block, loop_vars, axes)
        if condition is None:
            yield block
            return
        body = Block()
        block.add_op(loop.IfOp(condition, body))
        yield body
        body.add_op(loop.YieldOp())

    def _store_element(self, block: Block, loop_vars) -> None:
        with self._guarded(block, loop_vars, self.nest.guarded_axes()) as target:
            value = self.emit_body(target, loop_vars)
            indices = self.spatial_indices_in(target, loop_vars)
            target.add_op(loop.StoreOp(value, self.out, indices))

    def spatial_indices_in(self, block: Block, loop_vars) -> list[SSAValue]:
        with emit_into(block):
            return self.spatial_indices(loop_vars)

    def _reduce_in_registers(self, block: Block, loop_vars) -> None:
        spatial_guards = [a for a in self.nest.guarded_axes() if a.startswith("i")]
        with self._guarded(block, loop_vars, spatial_guards) as target:
            init = _identity(self.kind, self.element_type)
            target.add_op(init)
            reductions = [lp for lp in self.nest.loops if lp.reduction]
            total = self._reduction_chain(target, reductions, loop_vars, init.results[0])
            indices = self.spatial_indices_in(target, loop_vars)
            target.add_op(loop.StoreOp(total, self.out, indices))

    def _reduction_chain(self, block, loops: Sequence[Loop], loop_vars, acc: SSAValue) -> SSAValue:
        if not loops:
            value = self.emit_body(block, loop_vars)
            combined = _combine(self.kind, acc, value)
            block.add_op(combined)
            return combined.results[0]
        lp, rest = loops[0], loops[1:]
        for_op = _for(block, lp.extent, [acc])
        for hint in _loop_hints(lp):
            for_op.attributes[hint] = UnitAttr()
        block.add_op(for_op)
        body = for_op.body.block
        body.args[0].name_hint = lp.name.replace(".", "_")
        inner_vars = {**loop_vars, lp.name: body.args[0]}
        if lp.name == self.prefetch_site:
            self._prefetch(body, inner_vars)
        result = self._reduction_chain(body, rest, inner_vars, body.args[1])
        body.add_op(loop.YieldOp(result))
        return for_op.results[0]

    def _emit_accumulation(self, block: Block, loops: Sequence[Loop], bound) -> None:
        """A reduction whose accumulator lives in the output buffer (some spatial loop runs
        inside a reduction loop, as in a register-blocked GEMM or conv): each iteration of the
        spatial loops outside the first reduction loop sets its own tile of the output to the
        identity, then accumulates into it. The tile is still in cache (or, after LLVM's
        store-to-load forwarding, in registers) when the accumulation starts, instead of the
        whole output being zeroed in a pass of its own."""
        first = next(n for n, lp in enumerate(loops) if lp.reduction)
        prefix, rest = loops[:first], loops[first:]
        tile = [lp for lp in rest if not lp.reduction]

        def init_then_accumulate(inner: Block, loop_vars) -> None:
            self._emit_nest(inner, tile, loop_vars, self._store_identity)
            self._emit_nest(inner, rest, loop_vars, self._accumulate_in_memory, attach=True)

        self._emit_nest(block, prefix, bound, init_then_accumulate, attach=True)

    def _store_identity(self, block: Block, loop_vars) -> None:
        spatial_guards = [a for a in self.nest.guarded_axes() if a.startswith("i")]
        with self._guarded(block, loop_vars, spatial_guards) as target:
            init = _identity(self.kind, self.element_type)
            target.add_op(init)
            indices = self.spatial_indices_in(target, loop_vars)
            target.add_op(loop.StoreOp(init.results[0], self.out, indices))

    def _accumulate_in_memory(self, block: Block, loop_vars) -> None:
        with self._guarded(block, loop_vars, self.nest.guarded_axes()) as target:
            value = self.emit_body(target, loop_vars)
            indices = self.spatial_indices_in(target, loop_vars)
            old = loop.LoadOp(self.out, indices)
            combined = _combine(self.kind, old.result, value)
            target.add_ops([old, combined, loop.StoreOp(combined.results[0], self.out, indices)])


# --------------------------------------------------------------------------------------------
# Kernels and @main
# --------------------------------------------------------------------------------------------


@dataclass
class KernelSignature:
    """How a te kernel's tensors map onto its loop-level buffer arguments."""

    num_inputs: int
    num_outputs: int
    scratch: list[MemRefType]
    #: the symbols whose values follow the buffers, as index arguments (`loop.SYMBOLS_ATTR`)
    symbols: list[str] = field(default_factory=list)


def _in_place_producer(consumer: te.ComputeOp, returned: Sequence[SSAValue]) -> te.ComputeOp | None:
    """A compute whose buffer `consumer` can take over: it is read only by `consumer`, only at
    the element `consumer` is writing, and has the same type (an epilogue such as bias + relu
    after a conv then updates the conv's result in place instead of needing scratch)."""
    if consumer.reduce_kind is not None:
        return None
    for read in consumer.body.walk():
        if not isinstance(read, te.ReadOp) or not isinstance(read.tensor.owner, te.ComputeOp):
            continue
        producer = read.tensor.owner
        value = producer.result
        if value in returned or value.type != consumer.result.type:
            continue
        uses = [u.operation for u in value.uses]
        if all(
            isinstance(u, te.ReadOp)
            and u.parent_op() is consumer
            and tuple(u.indices) == tuple(consumer.spatial_args)
            for u in uses
        ):
            return producer
    return None


def _attach(
    emitters: dict[te.ComputeOp, _ComputeEmitter],
    attachments: Sequence[tuple[te.ComputeOp, te.ComputeOp, str]],
) -> set[te.ComputeOp]:
    """Wire `#te.compute_at` consumers (checked by `kernel_nests`) into their producers'
    nests; returns the attached."""
    # An attached producer does not emit the loops it shares with its own producer: a
    # consumer attached at one of those runs in that loop of the loop's owner, after it.
    host = {consumer: (producer, axis) for consumer, producer, axis in attachments}
    for consumer, producer, axis in attachments:
        for _ in range(len(host)):
            if producer not in host:
                break
            outer, outer_axis = host[producer]
            names = [lp.name for lp in emitters[outer].nest.loops]
            if axis not in names[: names.index(outer_axis) + 1]:
                break
            producer = outer
        emitters[producer].attached.setdefault(axis, []).append(emitters[consumer])
    return set(host)


def _hoist_sizes(block: Block) -> None:
    """Every `loop.size` at the top of the kernel, once per size: they depend on the
    symbols alone, and a parallel loop's outlined body then receives them as it receives
    any value defined outside it."""
    first: dict[str, loop.SizeOp] = {}
    top = block.first_op
    for size in [op for op in block.walk() if isinstance(op, loop.SizeOp)]:
        key = size.size.data
        if key in first:
            size.result.replace_all_uses_with(first[key].result)
            Rewriter.erase_op(size)
            continue
        first[key] = size
        if size is top:
            top = size.next_op
            continue
        size.detach()
        if top is None:
            block.add_op(size)
        else:
            block.insert_op_before(size, top)


def convert_kernel(kernel: func.FuncOp) -> tuple[func.FuncOp, KernelSignature]:
    """A te kernel -> `@k(inputs..., outputs..., scratch...)` over memrefs."""
    inline_computes(kernel)
    inputs = list(kernel.body.block.args)
    ret = kernel.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    computes = [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]
    # A compute returned (first occurrence) is written straight into its output buffer.
    returned: dict[SSAValue, int] = {}
    for n, value in enumerate(ret.arguments):
        if isinstance(value.owner, te.ComputeOp) and value not in returned:
            returned[value] = n
    # Epilogues that update their producer's buffer in place: producer -> consumer.
    shares: dict[te.ComputeOp, te.ComputeOp] = {}
    for compute in computes:
        if (producer := _in_place_producer(compute, list(returned))) is not None:
            shares[producer] = compute
    scratch = [c for c in computes if c.result not in returned and c not in shares]

    in_types = [memref_of(a.type) for a in inputs]
    out_types = [memref_of(v.type) for v in ret.arguments]
    scratch_types = [memref_of(c.result.type) for c in scratch]
    symbols = symbols_used(kernel)
    block = Block(arg_types=[*in_types, *out_types, *scratch_types, *(IndexType() for _ in symbols)])
    for arg, name in zip(block.args[len(block.args) - len(symbols) :], symbols):
        arg.name_hint = name.replace(".", "_")
    args = list(block.args)
    buffers: dict[SSAValue, SSAValue] = dict(zip(inputs, args))
    outs = args[len(inputs) : len(inputs) + len(out_types)]
    for compute, buffer in zip(scratch, args[len(inputs) + len(out_types) :]):
        buffers[compute.result] = buffer
    for value, n in returned.items():
        buffers[value] = outs[n]
    for compute in reversed(computes):  # consumers come later: resolve chains back to front
        if compute in shares:
            buffers[compute.result] = buffers[shares[compute].result]

    nests = kernel_nests(kernel)
    emitters = {c: _ComputeEmitter(c, nests.nests[c], buffers, buffers[c.result]) for c in computes}
    attached = _attach(emitters, nests.attachments)
    # Nests whose batch runs on one thread around a parallel loop also come with the batch
    # on the threads, each picked as the kernel runs (batch_threads.py).
    variant = batch_parallel_nests(kernel, nests)
    shared: set[te.ComputeOp] = set()
    if variant is not None:
        other_nests, shared = variant
        others = {
            c: _ComputeEmitter(c, other_nests.nests[c], buffers, buffers[c.result]) for c in computes
        }  # fmt: skip
        _attach(others, other_nests.attachments)
    for compute in computes:
        if compute in attached:
            continue
        if compute not in shared:
            emitters[compute].emit(block)
            continue
        images = images_take_threads(block, nests.nests[compute].loops[0].extent)
        with emit_into(block):
            rows = Expr(images) ^ const(True, i1)
        for condition, emitter in ((images, others[compute]), (rows.value, emitters[compute])):
            body = Block()
            block.add_op(loop.IfOp(condition, body))
            emitter.emit(body)
            body.add_op(loop.YieldOp())
    for n, value in enumerate(ret.arguments):
        if returned.get(value) != n:  # an input, or a compute returned twice
            block.add_op(loop.CopyOp(buffers[value], outs[n]))
    block.add_op(func.ReturnOp())

    for size in [op for op in block.walk() if isinstance(op, te.SizeOp)]:  # (from guards)
        Rewriter.replace_op(size, loop.SizeOp(size.value))
    _hoist_sizes(block)
    new = func.FuncOp(kernel.sym_name.data, (block.arg_types, []), Region(block))
    new.attributes[loop.KERNEL_ATTR] = UnitAttr()
    if symbols:
        new.attributes[loop.SYMBOLS_ATTR] = ArrayAttr([StringAttr(s) for s in symbols])
    return new, KernelSignature(len(in_types), len(out_types), scratch_types, symbols)


def convert_main(main: func.FuncOp, signatures: dict[str, KernelSignature]) -> func.FuncOp:
    """@main over tensors -> @main(inputs..., outputs...) over buffers, calling kernels."""
    old_block = main.body.block
    ret = old_block.last_op
    assert isinstance(ret, func.ReturnOp)
    in_types = [memref_of(a.type) for a in old_block.args]
    out_types = [memref_of(v.type) for v in ret.arguments]
    block = Block(arg_types=[*in_types, *out_types])
    _MainConverter(block, dict(zip(old_block.args, block.args)), signatures).convert(
        old_block, ret, list(block.args[len(in_types) :])
    )
    new = func.FuncOp(main.sym_name.data, (block.arg_types, []), Region(block))
    symbols = sorted(
        {s for t in (*in_types, *out_types) for s in symbols_of(loop.dims_of(t))}
        | {s for signature in signatures.values() for s in signature.symbols}
        | {s for name, bound in loop.set_size_bounds(new).items() for s in {name, *symbols_of(bound)}}
    )
    if symbols:  # the order of the entry ABI's sizes
        new.attributes[loop.SYMBOLS_ATTR] = ArrayAttr([StringAttr(s) for s in symbols])
    return new


@dataclass
class _MainConverter:
    """Converts @main's ops into `top`, @main's new block: buffers for tensors, kernel
    calls, and for a graph.if two `loop.if`s. Every buffer is allocated in `top` (before the
    op that first writes it), so that loop-plan-memory sees them all."""

    top: Block
    buffers: dict[SSAValue, SSAValue]
    signatures: dict[str, KernelSignature]

    def convert(self, old: Block, ret: func.ReturnOp, outs: list[SSAValue]) -> None:
        # A call or if result that the model returns is written straight into its output.
        self.pieces = self._concats_in_place(old, ret)
        concats = {whole.owner for whole, _ in self.pieces.values()}
        self.direct: dict[SSAValue, SSAValue] = {}
        for value, out in zip(ret.arguments, outs):
            if (value.owner in concats or isinstance(value.owner, func.CallOp | graph.IfOp | graph.LoopOp | graph.FlatNonzeroOp | graph.IotaOp | graph.ArgSortOp | graph.GreedyNmsOp
                                        | graph.InvertPermutationOp) or scans(value.owner)) and value not in self.direct:
                self.direct[value] = out
        self._ops(old, self.top)
        for value, out in zip(ret.arguments, outs):
            if self.direct.get(value) is not out:
                self.top.add_op(loop.CopyOp(self.buffers[value], out))
        self.top.add_op(func.ReturnOp())

    @staticmethod
    def _concats_in_place(old: Block, ret: func.ReturnOp) -> dict[SSAValue, tuple[SSAValue, int]]:
        """Each input of a concat that convert-graph-to-te left in @main: the concat's result
        and the element the input starts at in it (lowering/views.py)."""
        pieces: dict[SSAValue, tuple[SSAValue, int]] = {}
        claimed: set[SSAValue] = set()
        for op in old.ops:
            if not isinstance(op, graph.ConcatOp):
                continue
            starts = in_place_concat(op, old, claimed, set(ret.arguments))
            if starts is None:
                raise MinitvmError(
                    "convert-te-to-loop: a graph.concat in @main must be one whose inputs "
                    "kernels write into its buffer (lowering/views.py); others are kernels"
                )
            pieces.update((value, (op.result, start)) for value, start in zip(op.inputs, starts))
        return pieces

    def _buffer(self, value: SSAValue) -> SSAValue:
        """The buffer `value` is written into: the model's output, a view of the buffer of
        the concat it is written into, or a new alloc."""
        if value in self.pieces:
            whole, start = self.pieces[value]
            view = loop.ViewOp(self.buffers.get(whole) or self._buffer(whole), start, memref_of(value.type))
            self.top.add_op(view)
            self.buffers[value] = view.result
            return view.result
        if value in self.direct:
            buffer = self.direct[value]
        else:
            alloc = loop.AllocOp(memref_of(value.type))
            self.top.add_op(alloc)
            buffer = alloc.result
        self.buffers[value] = buffer
        return buffer

    def _ops(self, old: Block, block: Block) -> None:
        for op in old.ops:
            if isinstance(op, graph.ConstantOp):
                const_op = loop.ConstantOp(op.value, memref_of(op.result.type))
                self.top.add_op(const_op)
                self.buffers[op.result] = const_op.result
            elif isinstance(op, func.CallOp):
                signature = self.signatures[op.callee.root_reference.data]
                results = [self._buffer(value) for value in op.results]
                scratch = [loop.AllocOp(t) for t in signature.scratch]
                self.top.add_ops(scratch)
                operands = [self.buffers[o] for o in op.arguments]
                sizes = [loop.SizeOp(symbol(s)) for s in signature.symbols]
                block.add_ops(sizes)
                block.add_op(func.CallOp(
                    op.callee, [*operands, *results, *(s.result for s in scratch), *(s.result for s in sizes)], []
                ))  # fmt: skip
            elif isinstance(op, graph.ConcatOp):
                continue  # in place: its inputs were written into its buffer (_buffer)
            elif (starts := view_starts(op)) is not None:
                source = self.buffers[op.operands[0]]
                for value, start in zip(op.results, starts, strict=True):
                    view = loop.ViewOp(source, start, memref_of(value.type))
                    block.add_op(view)
                    self.buffers[value] = view.result
            elif isinstance(op, graph.FlatNonzeroOp):
                self._flat_nonzero(op, block)
            elif isinstance(op, graph.IotaOp):
                self._iota(op, block)
            elif isinstance(op, graph.ArgSortOp):
                self._argsort(op, block)
            elif isinstance(op, graph.InvertPermutationOp):
                write_inverse_permutation(Emit(block), self.buffers[op.input], self._buffer(op.result), shape_of(op.input.type)[0])  # type: ignore[arg-type]
            elif isinstance(op, graph.GreedyNmsOp):
                n = shape_of(op.scores.type)[2]  # type: ignore[arg-type]
                operands = [self.buffers[o] for o in op.operands]
                heap = self._alloc(tensor_type([n], i64))
                planes, kept = (self._alloc(tensor_type([5, n], f32)) for _ in range(2))
                write_greedy_nms(block, op, operands, self._buffer(op.keep), self._buffer(op.order), heap, kept, planes)
            elif scans(op):
                write_scan(Emit(block), op, self.buffers[op.operands[0]], self._buffer(op.results[0]))  # type: ignore[arg-type]
            elif isinstance(op, graph.CheckOp):
                self._check(op, block)
            elif isinstance(op, graph.IfOp):
                self._if(op, block)
            elif isinstance(op, graph.LoopOp):
                self._loop(op, block)
            elif isinstance(op, func.ReturnOp | graph.YieldOp):
                continue  # handled by convert and _if
            else:
                raise MinitvmError(f"convert-te-to-loop: unexpected {op.name} in @main")

    def _alloc(self, type_: Attribute) -> SSAValue:
        alloc = loop.AllocOp(memref_of(type_))
        self.top.add_op(alloc)
        return alloc.result

    @staticmethod
    def _scalar(buffer: SSAValue, block: Block) -> SSAValue:
        """The one element of a one-element buffer, loaded at the end of `block`."""
        rank = len(buffer.type.get_shape())  # type: ignore[attr-defined]
        zero = [arith.ConstantOp(IntegerAttr(0, IndexType()))] if rank else []
        load = loop.LoadOp(buffer, [zero[0].result] * rank if zero else [])
        block.add_ops([*zero, load])
        return load.result

    def _loop(self, op: graph.LoopOp, block: Block) -> None:
        """The loop's state in buffers: the iteration number and the condition (the body's
        first two arguments), the loop-carried values (in the results' buffers, which hold
        the last ones when the loop ends) and the flag `i < trip and cond` that a loop.while
        reads before each iteration. Each iteration runs the body's calls, then copies its
        yields into the state (through temporaries where a yield is another carried value,
        which the copies would overwrite first) and sets the next flag."""
        results = [self._buffer(value) for value in op.results]
        args = op.body.block.args
        iteration, condition = self._alloc(args[0].type), self._alloc(args[1].type)
        flag = self._alloc(TensorType(i1, []))
        self.buffers.update(zip(args, [iteration, condition, *results]))
        for init, result in zip(op.inits, results):
            block.add_op(loop.CopyOp(self.buffers[init], result))
        trip = self._scalar(self.buffers[op.trip], block)
        zero = arith.ConstantOp(IntegerAttr(0, i64))
        block.add_op(zero)
        self._set_state(block, zero.result, self._scalar(self.buffers[op.cond], block),
                        trip, iteration, condition, flag)  # fmt: skip
        body = Block()
        self._ops(op.body.block, body)
        cond_out, *carried = op.yield_op.values
        staged = {}
        for value in carried:
            if value in args[2:] and value not in staged:  # read after its buffer is written
                staged[value] = self._alloc(value.type)
                body.add_op(loop.CopyOp(self.buffers[value], staged[value]))
        for value, result in zip(carried, results, strict=True):
            source = staged.get(value, self.buffers[value])
            if source is not result:
                body.add_op(loop.CopyOp(source, result))
        next_cond = self._scalar(self.buffers[cond_out], body)
        one = arith.ConstantOp(IntegerAttr(1, i64))
        step = arith.AddiOp(self._scalar(iteration, body), one.result)
        body.add_ops([one, step])
        self._set_state(body, step.result, next_cond, trip, iteration, condition, flag)
        body.add_op(loop.YieldOp())
        block.add_op(loop.WhileOp(flag, body))

    @staticmethod
    def _set_state(
        block: Block, i: SSAValue, cond: SSAValue, trip: SSAValue,
        iteration: SSAValue, condition: SSAValue, flag: SSAValue,
    ) -> None:  # fmt: skip
        """Store iteration number `i` and condition `cond`, and the flag `i < trip and cond`."""
        below = arith.CmpiOp(i, trip, "slt")
        going = arith.AndIOp(below.result, cond)
        block.add_ops([below, going])
        for value, buffer in ((i, iteration), (cond, condition), (going.result, flag)):
            block.add_op(loop.StoreOp(value, buffer, []))  # (rank-0 buffers)

    def _flat_nonzero(self, op: graph.FlatNonzeroOp, block: Block) -> None:
        """One pass over the mask in row-major order, the count carried through the loops
        (each row: `NonzeroRow`). The count then sets the result's size."""
        result = self._buffer(op.result)
        mask = self.buffers[op.mask]
        dims = shape_of(op.mask.type)
        zero = Emit(block).index(0)

        def nest(block: Block, depth: int, indices: list[SSAValue], flat: SSAValue, count: SSAValue) -> SSAValue:
            if depth >= len(dims) - 1:
                row = NonzeroRow(mask, result, indices, flat, dims[-1] if dims else None)
                return row.write(Emit(block), count)
            for_op = _for(block, dims[depth], [count])
            block.add_op(for_op)
            body = for_op.body.block
            i, carried = body.args
            extent = for_op.upper_value
            if extent is None:  # a static dimension
                size = arith.ConstantOp(IntegerAttr(dims[depth], IndexType()))
                body.add_op(size)
                extent = size.result
            scaled = arith.MuliOp(flat, extent)
            inner = arith.AddiOp(scaled.result, i)
            body.add_ops([scaled, inner])
            body.add_op(loop.YieldOp(nest(body, depth + 1, [*indices, i], inner.result, carried)))
            return for_op.res[0]

        count = nest(block, 0, [], zero, zero)
        block.add_op(loop.SetSizeOp(op.size, count, op.bound))

    def _argsort(self, op: graph.ArgSortOp, block: Block) -> None:
        """A merge sort of each row (sort_to_loop.py), or for its first k < n positions (k
        known now or at run time) a selection."""
        rows, n = shape_of(op.input.type)
        k = shape_of(op.result.type)[1]
        element = op.input.type.element_type  # type: ignore[attr-defined]
        x, out = self.buffers[op.input], self._buffer(op.result)
        if k == n:
            write_argsort(block, x, out, self._sort_scratch(n, element), rows, n, op.is_descending, element)
        elif isinstance(k, int):
            write_top_k(block, x, out, rows, n, k, op.is_descending, element)
        else:  # (a size known at run time, at most n: a heap or a sort, as the run goes)
            full = self._alloc(tensor_type([rows, n], i64))
            write_first_k(block, x, out, full, self._sort_scratch(n, element), rows, n, k, op.is_descending, element)

    def _sort_scratch(self, n: int | SymDim, element: Attribute) -> SortScratch:
        return SortScratch(*(self._alloc(tensor_type([n], t)) for t in (i64, element, element)))

    def _iota(self, op: graph.IotaOp, block: Block) -> None:
        """The count (at least 0, at most `most` where the iota has one) sets the result's
        size first, so that a run whose count exceeds the capacity stops before writing;
        then one loop stores 0, 1, ..., n-1."""
        result = self._buffer(op.result)
        count = self._scalar(self.buffers[op.count], block)
        zero = arith.ConstantOp(IntegerAttr(0, i64))
        clamped = arith.MaxSIOp(count, zero.result)
        index = arith.IndexCastOp(clamped.result, IndexType())
        block.add_ops([zero, clamped, index])
        if op.most is not None:  # (clamped to the bound the shapes give)
            most = op.bound
            bound = arith.ConstantOp(IntegerAttr(most, IndexType())) if isinstance(most, int) else loop.SizeOp(most)
            index = arith.MinUIOp(index.result, bound.results[0])
            block.add_ops([bound, index])
        block.add_op(loop.SetSizeOp(op.size, index.result, op.bound, group=op.group_name))
        for_op = _for(block, symbol(op.size))
        block.add_op(for_op)
        body = for_op.body.block
        (i,) = body.args
        value = arith.IndexCastOp(i, i64)
        body.add_ops([value, loop.StoreOp(value.result, result, [i]), loop.YieldOp()])

    def _check(self, op: graph.CheckOp, block: Block) -> None:
        """A size that is 1 where `ok` is false, at most 0: the run stops there with the
        check's message."""
        ok = self._scalar(self.buffers[op.ok], block)
        zero, one = (arith.ConstantOp(IntegerAttr(v, IndexType())) for v in (0, 1))
        failed = arith.SelectOp(ok, zero.result, one.result)
        block.add_ops([zero, one, failed])
        block.add_op(loop.SetSizeOp(op.check.data, failed.result, 0, op.message.data))

    def _if(self, op: graph.IfOp, block: Block) -> None:
        """`cond` read from its buffer; each branch a loop.if (the else on `not cond`) that
        runs its calls and copies what it yields into the results' buffers."""
        results = [self._buffer(value) for value in op.results]
        cond = self._scalar(self.buffers[op.cond], block)
        true = arith.ConstantOp(IntegerAttr(1, i1))
        negated = arith.XOrIOp(cond, true.result)
        block.add_ops([true, negated])
        for taken, condition in ((True, cond), (False, negated.result)):
            body = Block()
            self._ops(op.branch(taken), body)
            for value, result in zip(op.yield_op(taken).values, results, strict=True):
                body.add_op(loop.CopyOp(self.buffers[value], result))
            body.add_op(loop.YieldOp())
            block.add_op(loop.IfOp(condition, body))


@dataclass(frozen=True)
class ConvertTeToLoopPass(ModulePass):
    name = "convert-te-to-loop"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        signatures: dict[str, KernelSignature] = {}
        for fn in list(op.ops):
            if isinstance(fn, func.FuncOp) and te.KERNEL_ATTR in fn.attributes:
                new, signatures[fn.sym_name.data] = convert_kernel(fn)
                Rewriter.replace_op(fn, new)
        for fn in list(op.ops):
            if isinstance(fn, func.FuncOp) and loop.KERNEL_ATTR not in fn.attributes:
                Rewriter.replace_op(fn, convert_main(fn, signatures))
