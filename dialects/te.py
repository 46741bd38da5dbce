"""The te (tensor expression) dialect: WHAT a kernel computes, separate from HOW.

A kernel is a `func.func` marked `te.kernel` whose body is `te.compute` ops. Each compute
defines every element of its result tensor by a scalar expression over index variables,
optionally reduced (sum, prod, max, min) over reduction axes:

    %c = te.compute (%i, %j) in [64, 32] sum (%k) in [128] : tensor<64x32xf32> {
      %a = te.read %A[%i, %k] : tensor<64x128xf32>
      %b = te.read %B[%k, %j] : tensor<128x32xf32>
      %p = arith.mulf %a, %b : f32
      te.yield %p : f32
    }

Index arithmetic uses `arith` on `index`; scalar math uses `arith`/`math` on the element type.
A size known only at run time (issue 19) is an extent written as a quoted expression,
`in ["batch*seq", 64]`, and read in a body with `%n = te.size "seq"` (an index).
The body must not read out of bounds: padding is written as clamped reads under `arith.select`.

HOW is the `schedule` attribute of a compute, a list of primitives applied in order by
`te_to_loop` (as TVM's te.create_schedule): `#te.split<"i1", 16>` makes loops i1.o and i1.i,
`#te.reorder<["i0", "i1.o", "r0", "i1.i"]>`, `#te.vectorize<"i1.i">`, `#te.unroll<"r0">`,
`#te.parallel<"i0">`, `#te.fuse<"i0", "i1">` makes loop i0.i1.fused. Loop names: i0..iN for the
result's dims, r0..rM for reduction axes. A schedule never changes the result, only the loop
structure. docs/schedules.md shows every primitive before and after.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, NoMemoryEffect, Pure
from xdsl.utils.exceptions import VerifyException

from minitvm.dialects.graph.base import (
    Dim,
    SizesAttr,
    dims_problem,
    get_ints,
    ints_attr,
    is_shaped,
    parse_size,
    shape_of,
    surely_below,
)
from minitvm.errors import MinitvmError
from minitvm.symbolic import SymDim, parse_dim

#: Marks a `func.func` as a te kernel (a unit attribute on the function). convert-graph-to-te
#: sets it on each kernel it outlines; the te passes and convert-te-to-loop find kernels by it.
KERNEL_ATTR = "te.kernel"

#: A `te.compute`'s schedule: an `ArrayAttr` of schedule primitives (discardable, as a hint
#: is). The schedule templates write it and the te passes append to it; `ComputeOp.schedule`
#: reads it (te_nest.py and convert-te-to-loop apply it).
SCHEDULE_ATTR = "schedule"

# What convert-graph-to-te tells te-default-schedule (pure WHAT: which compute is which), and
# what the schedule passes leave behind. `kernel_task_key` leaves these out of a kernel's key.

#: On a te.compute: the main compute of a graph op that has a schedule template (a conv's,
#: a matmul's or a pool's reduction); te-default-schedule gives it that template's default.
TEMPLATED_ATTR = "te.templated"
#: On a te.compute: a Winograd transform's ("input" or "output", a string), which the
#: `winograd` schedule template is for (`schedules/winograd.py`).
WINOGRAD_ATTR = "te.winograd"
#: On a te kernel: run it as one pass over the data. te-default-schedule inlines its
#: intermediates and computes its epilogue inside the nest of the compute named `ANCHOR`
#: (if any). Set on `graph.fused` groups and on anchor ops with epilogue computes of their own.
FUSED_ATTR = "te.fused"
#: The name of a fused kernel's anchor compute, which `#te.compute_at` refers to.
ANCHOR = "anchor"
#: On a te kernel: the tuned config te-apply-records gave it (a dictionary, knob -> value).
TUNED_ATTR = "te.tuned"

#: The reductions a compute can perform, and the identity each starts from (of a float
#: element type; te_to_loop gives integer types theirs).
REDUCTIONS: dict[str, float] = {
    "sum": 0.0, "prod": 1.0, "max": float("-inf"), "min": float("inf"),
}  # fmt: skip


# --------------------------------------------------------------------------------------------
# Schedule primitives
# --------------------------------------------------------------------------------------------


class AxisPrimitive(ParametrizedAttribute):
    """A schedule primitive applied to one named loop: `#te.<primitive><"axis">`."""

    axis: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            return [StringAttr(parser.parse_str_literal())]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f'<"{self.axis.data}">')


@irdl_attr_definition
class VectorizeAttr(AxisPrimitive):
    """Execute loop `axis` as vector lanes (its extent must be a supported vector width)."""

    name = "te.vectorize"


@irdl_attr_definition
class UnrollAttr(AxisPrimitive):
    """Fully unroll loop `axis`."""

    name = "te.unroll"


@irdl_attr_definition
class ParallelAttr(AxisPrimitive):
    """Distribute iterations of loop `axis` across threads."""

    name = "te.parallel"


@irdl_attr_definition
class SplitAttr(ParametrizedAttribute):
    """Split loop `axis` into `axis.o` (outer) and `axis.i` (inner, extent `factor`)."""

    name = "te.split"

    axis: StringAttr
    factor: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            axis = parser.parse_str_literal()
            parser.parse_punctuation(",")
            factor = parser.parse_integer()
        return [StringAttr(axis), IntAttr(factor)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f'<"{self.axis.data}", {self.factor.data}>')


@irdl_attr_definition
class ReorderAttr(ParametrizedAttribute):
    """Nest the named loops in this order (outermost first); unnamed loops keep their place."""

    name = "te.reorder"

    order: ArrayAttr[StringAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            names = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_str_literal
            )
        return [ArrayAttr(StringAttr(n) for n in names)]

    def print_parameters(self, printer: Printer) -> None:
        names = ", ".join(f'"{n.data}"' for n in self.order)
        printer.print_string(f"<[{names}]>")


@irdl_attr_definition
class InlineAttr(ParametrizedAttribute):
    """Substitute this (non-reduction) compute's body into every read of it: `#te.inline`."""

    name = "te.inline"


@irdl_attr_definition
class ComputeAtAttr(ParametrizedAttribute):
    """Run this compute's loops inside `producer`'s loop `axis`, once per iteration of the
    loops up to `axis` (which it shares): `#te.compute_at<"conv", "i2">`. The epilogue then
    works on data the producer has just written, while it is in cache."""

    name = "te.compute_at"

    producer: StringAttr
    axis: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        return _parse_two_names(parser)

    def print_parameters(self, printer: Printer) -> None:
        _print_two_names(printer, self.producer, self.axis)


@irdl_attr_definition
class FuseAttr(ParametrizedAttribute):
    """Fuse loop `outer` and the loop right inside it, `inner`, into one loop
    `outer.inner.fused` of extent(outer) * extent(inner): `#te.fuse<"i0", "i1">`. The original
    indices are recovered as fused / extent(inner) and fused % extent(inner) (TVM's `fuse`).
    Both loops must be spatial or both reductions."""

    name = "te.fuse"

    outer: StringAttr
    inner: StringAttr

    @property
    def fused_name(self) -> str:
        return fused_name(self.outer.data, self.inner.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        return _parse_two_names(parser)

    def print_parameters(self, printer: Printer) -> None:
        _print_two_names(printer, self.outer, self.inner)


@irdl_attr_definition
class PrefetchAttr(ParametrizedAttribute):
    """Prefetch into L2, at each iteration of the innermost loop that is neither unrolled nor
    vectorized, the cache lines that the reads depending on loop `ahead` touch at the next
    iteration of `ahead`, spread over the iterations of loop `over`: `#te.prefetch<"i1.o",
    "i0.o">`.

    Why: a register-blocked GEMM reads a strip of B from L2 once per block of rows, but its
    first block of rows waits for the strip to come from memory, while the other blocks leave
    the memory idle. Prefetching the next strip while the blocks of rows compute overlaps the
    two. A read unrolled over several lines (a block's vectors of B) prefetches one of them
    per iteration, line `over % lines`, so that each line is asked for once per block of rows
    rather than all of them in the first block (which would wait on memory just the same).
    Where `over` has fewer iterations than there are lines (16 rows in 3 blocks, a strip of 4
    vectors), each iteration asks for lines `over + n x iterations`, so that none is left to
    wait for: ResNet-18's 7 x 7 F(2x2, 3x3) products, 16 x 512 @ 512 x 512 each, went from
    1.36-1.38 to 1.19-1.27 ms in the model (AMD EPYC Zen 4, one thread, interleaved)."""

    name = "te.prefetch"

    ahead: StringAttr
    over: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        return _parse_two_names(parser)

    def print_parameters(self, printer: Printer) -> None:
        _print_two_names(printer, self.ahead, self.over)


def _parse_two_names(parser: AttrParser) -> list[Attribute]:
    """`<"a", "b">`: the parameters of the primitives that name two loops (or a compute and
    a loop)."""
    with parser.in_angle_brackets():
        first = parser.parse_str_literal()
        parser.parse_punctuation(",")
        second = parser.parse_str_literal()
    return [StringAttr(first), StringAttr(second)]


def _print_two_names(printer: Printer, first: StringAttr, second: StringAttr) -> None:
    printer.print_string(f'<"{first.data}", "{second.data}">')


SchedulePrimitive = (
    SplitAttr
    | ReorderAttr
    | VectorizeAttr
    | UnrollAttr
    | ParallelAttr
    | InlineAttr
    | ComputeAtAttr
    | FuseAttr
    | PrefetchAttr
)


def split(axis: str, factor: int) -> SplitAttr:
    return SplitAttr(StringAttr(axis), IntAttr(factor))


def reorder(*axes: str) -> ReorderAttr:
    return ReorderAttr(ArrayAttr([StringAttr(a) for a in axes]))


def vectorize(axis: str) -> VectorizeAttr:
    return VectorizeAttr(StringAttr(axis))


def unroll(axis: str) -> UnrollAttr:
    return UnrollAttr(StringAttr(axis))


def parallel(axis: str) -> ParallelAttr:
    return ParallelAttr(StringAttr(axis))


def inline() -> InlineAttr:
    return InlineAttr()


def compute_at(producer: str, axis: str) -> ComputeAtAttr:
    return ComputeAtAttr(StringAttr(producer), StringAttr(axis))


def fuse(outer: str, inner: str) -> FuseAttr:
    return FuseAttr(StringAttr(outer), StringAttr(inner))


def prefetch(ahead: str, over: str) -> PrefetchAttr:
    return PrefetchAttr(StringAttr(ahead), StringAttr(over))


def fused_name(outer: str, inner: str) -> str:
    """The name of the loop `#te.fuse<outer, inner>` makes."""
    return f"{outer}.{inner}.fused"


# --------------------------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ComputeOp(IRDLOperation):
    """One tensor defined elementwise by its body; see the module docstring for the syntax."""

    name = "te.compute"

    result = result_def(TensorType)
    #: Optional; how schedules (`#te.compute_at`) and readers of the IR refer to the compute.
    compute_name = opt_prop_def(StringAttr, prop_name="name")
    reduce_kind = opt_prop_def(StringAttr)
    reduce_extents = opt_prop_def(DenseArrayBase | SizesAttr)
    body = region_def("single_block")

    traits = traits_def(NoMemoryEffect())

    def __init__(
        self,
        result_type: TensorType,
        body: Region,
        reduce_kind: str | None = None,
        reduce_extents: Sequence[Dim] = (),
        schedule: Sequence[Attribute] = (),
        name: str | None = None,
    ):
        props: dict[str, Attribute] = {}
        if name is not None:
            props["name"] = StringAttr(name)
        if reduce_kind is not None:
            props["reduce_kind"] = StringAttr(reduce_kind)
            props["reduce_extents"] = ints_attr(list(reduce_extents))
        attrs = {SCHEDULE_ATTR: ArrayAttr(schedule)} if schedule else {}
        super().__init__(result_types=[result_type], properties=props, regions=[body],
                         attributes=attrs)

    @staticmethod
    def build(
        result_type: TensorType,
        body_builder,  # (Builder-free) callable: (block, spatial_args, reduce_args) -> SSAValue
        reduce_kind: str | None = None,
        reduce_extents: Sequence[int] = (),
    ) -> ComputeOp:
        """Create a compute whose block `body_builder` fills; it returns the yielded value."""
        rank = len(result_type.get_shape())
        block = Block(arg_types=[IndexType()] * (rank + len(reduce_extents)))
        value = body_builder(block, block.args[:rank], block.args[rank:])
        block.add_op(YieldOp(value))
        return ComputeOp(result_type, Region(block), reduce_kind, reduce_extents)

    @property
    def shape(self) -> tuple[Dim, ...]:
        """The result's dims (a `SymDim` where the size is known only at run time)."""
        return shape_of(self.result.type)

    @property
    def extents(self) -> tuple[Dim, ...]:
        """The reduction axes' extents (empty for a plain elementwise compute)."""
        if self.reduce_extents is None:
            return ()
        return get_ints(self.properties, "reduce_extents")

    @property
    def spatial_args(self) -> tuple[SSAValue, ...]:
        return self.body.block.args[: len(self.shape)]

    @property
    def reduce_args(self) -> tuple[SSAValue, ...]:
        return self.body.block.args[len(self.shape) :]

    @property
    def label(self) -> str | None:
        return self.compute_name.data if self.compute_name is not None else None

    @property
    def schedule(self) -> tuple[Attribute, ...]:
        attr = self.attributes.get(SCHEDULE_ATTR)
        return tuple(attr.data) if isinstance(attr, ArrayAttr) else ()

    def verify_(self) -> None:
        kind = self.reduce_kind.data if self.reduce_kind else None
        if kind is not None and kind not in REDUCTIONS:
            raise VerifyException(
                f"te.compute: reduce kind '{kind}' is not one of {', '.join(REDUCTIONS)}"
            )
        if (kind is None) != (self.reduce_extents is None):
            raise VerifyException("te.compute: reduce_kind and reduce_extents come together")
        if kind is not None and not self.extents:
            raise VerifyException("te.compute: a reduction needs at least one reduction axis")
        if any(surely_below(e, 0) for e in self.extents):  # 0 is an empty reduction: the identity
            raise VerifyException(f"te.compute: reduction extents must be >= 0, got {list(self.extents)}")
        if not is_shaped(self.result.type):
            raise VerifyException("te.compute: the result must have a known (static or symbolic) shape")
        block = self.body.block
        want = len(self.shape) + len(self.extents)
        if len(block.args) != want or any(not isinstance(a.type, IndexType) for a in block.args):
            raise VerifyException(
                f"te.compute: body needs {want} index arguments ({len(self.shape)} for the result's "
                f"dims, {len(self.extents)} for reduction axes), got {len(block.args)}"
            )
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("te.compute: body must end in te.yield")
        if last.value.type != self.result.type.element_type:
            raise VerifyException(
                f"te.compute: body yields {last.value.type} but the result's elements are "
                f"{self.result.type.element_type}"
            )
        schedule = self.attributes.get(SCHEDULE_ATTR)
        if schedule is not None and (
            not isinstance(schedule, ArrayAttr)
            or not all(isinstance(p, SchedulePrimitive) for p in schedule.data)
        ):
            raise VerifyException("te.compute: schedule must be a list of te schedule primitives")

    @classmethod
    def parse(cls, parser: Parser) -> ComputeOp:
        name = parser.parse_optional_str_literal()
        spatial = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        parser.parse_keyword("in")
        shape_pos = parser.pos
        shape = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _parse_extent(parser))
        kind: str | None = None
        extents: list[Dim] = []
        reduce_args: list[Parser.UnresolvedArgument] = []
        if (word := parser.parse_optional_identifier()) is not None:
            kind = word
            reduce_args = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
            )
            parser.parse_keyword("in")
            extents = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: _parse_extent(parser)
            )
        attrs_pos = parser.pos
        attrs = parser.parse_optional_attr_dict()
        if reserved := sorted(set(attrs) & {"name", "reduce_kind", "reduce_extents"}):
            parser.raise_error(
                f"te.compute: {', '.join(reserved)} must be written in the custom syntax "
                '(te.compute "name" (...) in [...] sum (...) in [...]), not the attribute dictionary',
                attrs_pos,
                parser.pos,
            )
        parser.parse_punctuation(":")
        type_pos = parser.pos
        result_type = parser.parse_type()
        if not isinstance(result_type, TensorType):
            parser.raise_error(f"te.compute: expected a tensor type, got {result_type}", type_pos, parser.pos)
        known = is_shaped(result_type)
        if (known and list(shape_of(result_type)) != shape) or len(spatial) != len(shape):
            parser.raise_error(
                f"te.compute: {len(spatial)} index arguments in [{', '.join(map(str, shape))}] "
                f"do not match the result type {result_type}",
                shape_pos,
                type_pos,
            )
        if len(reduce_args) != len(extents):
            parser.raise_error(
                f"te.compute: {len(reduce_args)} reduction arguments but {len(extents)} extents"
            )
        args = [a.resolve(IndexType()) for a in (*spatial, *reduce_args)]
        body = parser.parse_region(args)
        op = cls(result_type, body, kind, extents, name=name)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        def print_args(args: Sequence[SSAValue]) -> None:
            printer.print_string("(")
            printer.print_list(args, printer.print_ssa_value)
            printer.print_string(")")

        printer.print_string(" ")
        if self.compute_name is not None:
            printer.print_string_literal(self.compute_name.data)
            printer.print_string(" ")
        print_args(self.spatial_args)
        printer.print_string(f" in [{_extents_text(self.shape)}]")
        if self.reduce_kind is not None:
            printer.print_string(f" {self.reduce_kind.data} ")
            print_args(self.reduce_args)
            printer.print_string(f" in [{_extents_text(self.extents)}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


def is_symbolic_kernel(kernel: func.FuncOp) -> bool:
    """Whether a te kernel has sizes known only at run time (its loops then run to them:
    schedules, which are built for numbers, leave it as it is so far)."""
    return any(
        isinstance(d, SymDim)
        for c in kernel.walk() if isinstance(c, ComputeOp) for d in (*c.shape, *c.extents)
    )  # fmt: skip


def refuse_symbolic(module: Operation, stage: str) -> None:
    """A MinitvmError naming the first te kernel with sizes known only at run time: the
    schedules and loop nests are built for numbers so far (symbolic sizes stop at te)."""
    for kernel in module.walk():
        if not isinstance(kernel, func.FuncOp) or KERNEL_ATTR not in kernel.attributes:
            continue
        symbolic = sorted(
            {str(d) for c in kernel.walk() if isinstance(c, ComputeOp) for d in (*c.shape, *c.extents)
             if isinstance(d, SymDim)}
        )  # fmt: skip
        if symbolic:
            raise MinitvmError(
                f"{stage}: kernel @{kernel.sym_name.data} has sizes known only at run time "
                f"({', '.join(symbolic)}); schedules and loops are built for static shapes only "
                "so far: compile with the input shapes given"
            )


def _extents_text(extents: Sequence[Dim]) -> str:
    """`64, "seq"`: numbers bare, symbolic sizes quoted (as `#graph.sizes` writes them)."""
    return ", ".join(f'"{e}"' if isinstance(e, SymDim) else str(e) for e in extents)


def _parse_extent(parser: Parser) -> Dim:
    size = parse_size(parser, "te.compute")
    return parse_dim(size.data) if isinstance(size, StringAttr) else size.value.data  # type: ignore[attr-defined]


@irdl_op_definition
class SizeOp(IRDLOperation):
    """The run-time value of a size: `%n = te.size "batch*seq"`, an index. What a compute
    body reads where a shape rule's arithmetic uses a size known only at run time (the
    row length of a reshape, the count a mean divides by)."""

    name = "te.size"
    size = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def __init__(self, size: SymDim):
        super().__init__(properties={"size": StringAttr(str(size))}, result_types=[IndexType()])

    @property
    def value(self) -> Dim:
        return parse_dim(self.size.data)

    def verify_(self) -> None:
        problem = dims_problem(self.size.data)
        if problem:
            raise VerifyException(f"te.size: {problem}")

    @classmethod
    def parse(cls, parser: Parser) -> SizeOp:
        start = parser.pos
        text = parser.parse_str_literal()
        problem = dims_problem(text)
        if problem:
            parser.raise_error(f"te.size: {problem}", start, parser.pos)
        return cls(parse_dim(text))  # type: ignore[arg-type]

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.size.data)


@irdl_op_definition
class ReadOp(IRDLOperation):
    """Read one element of a tensor: `%v = te.read %t[%i, %j] : tensor<4x8xf32>`."""

    name = "te.read"

    tensor = operand_def(TensorType)
    indices = var_operand_def(IndexType)
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, tensor: SSAValue, indices: Sequence[SSAValue]):
        assert isinstance(tensor.type, TensorType)
        super().__init__(operands=[tensor, list(indices)], result_types=[tensor.type.element_type])

    def verify_(self) -> None:
        type_ = self.tensor.type
        assert isinstance(type_, TensorType)
        if len(self.indices) != type_.get_num_dims():
            raise VerifyException(
                f"te.read: {len(self.indices)} indices for a rank-{type_.get_num_dims()} tensor"
            )
        if self.result.type != type_.element_type:
            raise VerifyException(
                f"te.read: result type {self.result.type} is not the element type {type_.element_type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ReadOp:  # the result type is implied by the tensor's
        tensor = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_pos = parser.pos
        type_ = parser.parse_type()
        if not isinstance(type_, TensorType):
            parser.raise_error(f"te.read: expected the tensor's type, got {type_}", type_pos, parser.pos)
        op = cls(
            parser.resolve_operand(tensor, type_),
            [parser.resolve_operand(i, IndexType()) for i in indices],
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.tensor)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_ssa_value)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.tensor.type)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The value a compute body defines for its element (or contributes to the reduction)."""

    name = "te.yield"

    value = operand_def()

    traits = traits_def(IsTerminator(), HasParent(ComputeOp), Pure())

    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])


TE = Dialect(
    "te",
    [ComputeOp, ReadOp, SizeOp, YieldOp],
    [
        SplitAttr, ReorderAttr, VectorizeAttr, UnrollAttr, ParallelAttr, InlineAttr, ComputeAtAttr,
        FuseAttr, PrefetchAttr,
    ],
)

