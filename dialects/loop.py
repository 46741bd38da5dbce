"""The loop dialect: explicit loop nests over buffers, the level where schedules become code.

`te_to_loop` turns each te kernel into a `func.func` over `memref` buffers (inputs first,
then the outputs it writes, destination-passing style) built from these ops:

    loop.for %i = 0 to 64 step 16 {parallel} {
      loop.for %j = 0 to 16 step 1 iter_args(%acc = %zero) -> (f32) {
        %v = loop.load %A[%i, %j] : memref<64x16xf32>
        %s = arith.addf %acc, %v : f32
        loop.yield %s : f32
      }
    }

Bounds are static (shapes are static); a split that does not divide its loop adds a guard
(`loop.if`). Vector code uses `loop.vload`/`loop.vstore` on the innermost, contiguous
dimension and `arith`/`math` on `vector<N x f32>` values; lane-wise compares, selects and
casts (`loop.vcmpf`, `loop.vcmpi`, `loop.vselect`, `loop.vcast`) stand in for the arith ops
that verify scalar masks only, `loop.vreduce` folds a vector's lanes into a scalar and
`loop.vshuffle` picks lanes of two vectors (a register transpose is made of them).
Scalars and index arithmetic use xDSL's `arith` and `math`. `loop.alloc` is scratch memory
whose placement the memory planner and `loop_to_llvm` decide; `loop.constant` is a weight
buffer baked into the executable.
Loop attributes `parallel`, `unroll` and `vectorize` are hints for the loop passes
(`PARALLEL_HINT`, `UNROLL_HINT`, `VECTORIZE_HINT`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I1,
    I32,
    I64,
    AnyFloat,
    AnyFloatConstr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    SignlessIntegerConstraint,
    StringAttr,
    UnitAttr,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoMemoryEffect, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from minitvm.dialects.graph.base import DimsAttr, dims_problem
from minitvm.dialects.graph.constant import ElementsAttr, verify_elements
from minitvm.runtime.abi import ALIGNMENT
from minitvm.symbolic import SymbolicError, SymDim, bare_symbol, parse_dim, substitute, symbols_of

# --------------------------------------------------------------------------------------------
# Attribute names other modules set and read (discardable: a pass may drop them)
# --------------------------------------------------------------------------------------------

#: Unit attribute on a `loop.for`: run its iterations on all threads. convert-te-to-loop sets
#: it from `te.parallel` (or te_nest's default choice) and drops it on reduction loops;
#: convert-loop-to-llvm outlines the loop (lowering/loop_to_llvm/parallel.py);
#: loop-promote-accumulators and loop-vectorize-transpose leave such a loop alone.
PARALLEL_HINT = "parallel"
#: Unit attribute on a `loop.for`: unroll it. convert-te-to-loop sets it from `te.unroll`;
#: loop-unroll consumes it (and leaves a loop that is also vectorized to loop-vectorize).
UNROLL_HINT = "unroll"
#: Unit attribute on a `loop.for`: turn it into one vector body. convert-te-to-loop sets it
#: from `te.vectorize`; loop-vectorize consumes it (dropping it where it cannot vectorize),
#: loop-vectorize-transpose reads it on the inner loop of a transpose tile.
VECTORIZE_HINT = "vectorize"

#: Unit attribute marking a `func.func` as a loop-level kernel: convert-te-to-loop sets it on
#: each kernel it converts (the successor of `te.KERNEL_ATTR`) and tells @main from them by it.
KERNEL_ATTR = "loop.kernel"

#: Array of strings on a loop-level function: the symbols (sizes named in the model) its
#: trailing index arguments hold, in order (convert-te-to-loop adds them to a kernel that has
#: symbolic sizes; on the entry function: the order of the entry ABI's sizes).
SYMBOLS_ATTR = "loop.symbols"

#: Unit property of a `loop.for` whose upper bound is its first operand, a run-time value.
DYNAMIC_ATTR = "dynamic"

#: Integer attribute (bytes, a multiple of `runtime.abi.ALIGNMENT`) on a `loop.alloc` of the
#: entry function: its offset into the arena. loop-plan-memory sets it; convert-loop-to-llvm's
#: entry layout places the buffer there (unplanned allocs go above the planned ones).
OFFSET_ATTR = "offset"


def _int(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a loop body (passing the next values of its iter_args) or an if body."""

    name = "loop.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), NoMemoryEffect())
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class ForOp(IRDLOperation):
    """`for (i = lb; i < ub; i += step)` with loop-carried values (iter_args).

    The upper bound is a number, or an index value known at run time (`upper_value`, a
    size: `loop.for %i = 0 to %n (at most 512) step 4`); then `upper` bounds it, which passes
    may use (how many iterations at most), and `trip_count` is that bound's."""

    name = "loop.for"

    lower = prop_def(IntegerAttr[I64])
    upper = prop_def(IntegerAttr[I64])
    step = prop_def(IntegerAttr[I64])
    dynamic_flag = opt_prop_def(UnitAttr, prop_name=DYNAMIC_ATTR)
    #: The run-time upper bound first (when the op has `DYNAMIC_ATTR`), then the iter_args.
    args = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        lower: int,
        upper: int,
        step: int,
        inits: Sequence[SSAValue] = (),
        body: Region | Block | None = None,
        *,
        upper_value: SSAValue | None = None,
    ):
        if body is None:
            body = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        if isinstance(body, Block):
            body = Region(body)
        props: dict[str, Attribute] = {"lower": _int(lower), "upper": _int(upper), "step": _int(step)}
        if upper_value is not None:
            props[DYNAMIC_ATTR] = UnitAttr()
        super().__init__(
            properties=props,
            operands=[[*([upper_value] if upper_value is not None else []), *inits]],
            result_types=[[v.type for v in inits]],
            regions=[body],
        )

    @property
    def upper_value(self) -> SSAValue | None:
        """The run-time upper bound (None: `upper` is the bound)."""
        return self.args[0] if DYNAMIC_ATTR in self.properties else None

    @property
    def is_dynamic(self) -> bool:
        return DYNAMIC_ATTR in self.properties

    @property
    def inits(self) -> tuple[SSAValue, ...]:
        return tuple(self.args[1:] if self.is_dynamic else self.args)

    @property
    def bounds(self) -> tuple[int, int, int]:
        """(lower, upper, step); for a loop to a run-time bound, `upper` bounds it."""
        return self.lower.value.data, self.upper.value.data, self.step.value.data

    @property
    def trip_count(self) -> int:
        """The iterations (at most, for a loop to a run-time bound)."""
        lower, upper, step = self.bounds
        return max(0, -(-(upper - lower) // step))

    @property
    def induction_var(self) -> SSAValue:
        return self.body.block.args[0]

    @property
    def carried(self) -> tuple[SSAValue, ...]:
        return self.body.block.args[1:]

    def verify_(self) -> None:
        lower, upper, step = self.bounds
        if step < 1:
            raise VerifyException(f"loop.for: step must be positive, got {step}")
        if lower > upper:
            raise VerifyException(f"loop.for: lower bound {lower} exceeds upper bound {upper}")
        if self.is_dynamic and (not self.args or not isinstance(self.args[0].type, IndexType)):
            raise VerifyException("loop.for: a run-time upper bound must be an index value")
        block = self.body.block
        types = [v.type for v in self.inits]
        if [a.type for a in block.args] != [IndexType(), *types]:
            raise VerifyException(
                "loop.for: body arguments must be the index followed by the iter_args' types"
            )
        last = block.last_op
        if not isinstance(last, YieldOp) or [v.type for v in last.values] != types:
            raise VerifyException(
                f"loop.for: body must end in loop.yield of {len(types)} values matching iter_args"
            )

    def print(self, printer: Printer) -> None:
        lower, upper, step = self.bounds
        printer.print_string(" ")
        printer.print_ssa_value(self.induction_var)
        if self.upper_value is not None:
            printer.print_string(f" = {lower} to ")
            printer.print_ssa_value(self.upper_value)
            printer.print_string(f" (at most {upper}) step {step}")
        else:
            printer.print_string(f" = {lower} to {upper} step {step}")
        if self.inits:
            printer.print_string(" iter_args(")
            printer.print_list(
                zip(self.carried, self.inits),
                lambda pair: (
                    printer.print_ssa_value(pair[0]),
                    printer.print_string(" = "),
                    printer.print_ssa_value(pair[1]),
                ),
            )
            printer.print_string(") -> (")
            printer.print_list([v.type for v in self.inits], printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(
            self.body, print_entry_block_args=False, print_block_terminators=bool(self.inits)
        )
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        index = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lower = parser.parse_integer()
        parser.parse_keyword("to")
        upper_value = None
        if (bound := parser.parse_optional_unresolved_operand()) is not None:
            upper_value = parser.resolve_operand(bound, IndexType())
            parser.parse_punctuation("(")
            parser.parse_keyword("at")
            parser.parse_keyword("most")
            upper = parser.parse_integer()
            parser.parse_punctuation(")")
        else:
            upper = parser.parse_integer()
        parser.parse_keyword("step")
        step = parser.parse_integer()
        carried: list[Parser.UnresolvedArgument] = []
        init_names = []
        types: list[Attribute] = []
        if parser.parse_optional_keyword("iter_args"):

            def parse_assignment() -> None:
                carried.append(parser.parse_argument(expect_type=False))
                parser.parse_punctuation("=")
                init_names.append(parser.parse_unresolved_operand())

            parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_assignment)
            parser.parse_punctuation("->")
            types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        if len(types) != len(init_names):
            parser.raise_error(
                f"loop.for: {len(init_names)} iter_args but {len(types)} result types"
            )
        inits = [parser.resolve_operand(n, t) for n, t in zip(init_names, types, strict=True)]
        args = [index.resolve(IndexType()), *(c.resolve(t) for c, t in zip(carried, types))]
        body = parser.parse_region(args)
        attrs = parser.parse_optional_attr_dict()
        if not inits and not isinstance(body.block.last_op, YieldOp):
            body.block.add_op(YieldOp())
        op = cls(lower, upper, step, inits, body, upper_value=upper_value)
        op.attributes.update(attrs)
        return op


def _body(body: Region | Block | None) -> Region:
    """The single-block region of a loop.if or loop.while body."""
    return Region(body or Block()) if not isinstance(body, Region) else body


def _check_body(op: IRDLOperation, body: Region) -> None:
    last = body.block.last_op
    if not isinstance(last, YieldOp) or last.values:
        raise VerifyException(f"{op.name}: body must end in an empty loop.yield")


def _parse_body(parser: Parser) -> tuple[Region, dict[str, Attribute]]:
    """A loop.if or loop.while body as printed (no terminator: an empty loop.yield is
    added), then the op's attributes."""
    body = _terminated(parser.parse_region())
    return body, parser.parse_optional_attr_dict()


def _terminated(body: Region) -> Region:
    """A body as printed, with its empty loop.yield added (and its block: `loop.if %c { }`)."""
    if not body.blocks:
        body.add_block(Block())
    if not isinstance(body.block.last_op, YieldOp):
        body.block.add_op(YieldOp())
    return body


@irdl_op_definition
class IfOp(IRDLOperation):
    """Run the body only when `condition` holds (guards for non-dividing splits, padding)."""

    name = "loop.if"
    condition = operand_def(i1)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, condition: SSAValue, body: Region | Block | None = None):
        super().__init__(operands=[condition], regions=[_body(body)])

    def verify_(self) -> None:
        _check_body(self, self.body)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.condition)
        printer.print_string(" ")
        printer.print_region(self.body, print_block_terminators=False)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        condition = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        body, attrs = _parse_body(parser)
        op = cls(condition, body)
        op.attributes.update(attrs)
        return op


@irdl_op_definition
class SectionsOp(IRDLOperation):
    """Blocks of @main that may run at the same time, each on its own thread: independent
    chains of kernel calls (loop-sections finds them: the two directions of a bidirectional
    RNN, the towers of a siamese net). OpenMP's `omp.sections`, at the level of calls:

        loop.sections {
          func.call @step(%xf, %wf, %hf) : (...) -> ()
        } {
          func.call @step(%xb, %wb, %hb) : (...) -> ()
        }

    Where the run's threads divide the sections, each thread runs its share of them whole,
    and the kernels' parallel loops inside run on their thread alone: no region to open and
    join per kernel. Otherwise the sections run one after the other, their kernels on all
    threads (convert-loop-to-llvm, lowering/loop_to_llvm/sections.py). Allocs stay in
    @main's block: loop-plan-memory knows that the sections' buffers are live together."""

    name = "loop.sections"
    sections = var_region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, sections: Sequence[Region | Block]):
        super().__init__(regions=[[_body(s) for s in sections]])

    def verify_(self) -> None:
        if len(self.sections) < 2:
            raise VerifyException("loop.sections: needs at least two sections")
        for section in self.sections:
            _check_body(self, section)

    def print(self, printer: Printer) -> None:
        for section in self.sections:
            printer.print_string(" ")
            printer.print_region(section, print_block_terminators=False)
        # With a keyword: an attribute dict would read as one more section.
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> SectionsOp:
        sections: list[Region] = []
        while (section := parser.parse_optional_region()) is not None:
            sections.append(_terminated(section))
        op = cls(sections)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op


@irdl_op_definition
class WhileOp(IRDLOperation):
    """Run the body while the boolean in `flag` (a rank-0 i1 buffer) holds, reading it
    before each iteration: the body updates it (ONNX's Loop on a run-time trip count or
    condition; convert-te-to-loop keeps the loop's state in buffers).

        loop.while %flag : memref<i1> {
          func.call @body(...) : (...) -> ()
          ...                                   // stores the next flag into %flag
        }
    """

    name = "loop.while"
    flag = operand_def(MemRefType)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, flag: SSAValue, body: Region | Block | None = None):
        super().__init__(operands=[flag], regions=[_body(body)])

    def verify_(self) -> None:
        type_ = self.flag.type
        assert isinstance(type_, MemRefType)
        if type_.element_type != i1 or type_.get_shape():
            raise VerifyException(f"loop.while: the flag must be a memref<i1>, got {type_}")
        _check_body(self, self.body)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.flag)
        printer.print_string(" : ")
        printer.print_attribute(self.flag.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_block_terminators=False)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> WhileOp:
        flag = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        flag_type = parser.parse_type()
        body, attrs = _parse_body(parser)
        op = cls(parser.resolve_operand(flag, flag_type), body)
        op.attributes.update(attrs)
        return op


class _AccessOp(IRDLOperation):
    """Shared checks of ops addressing `buffer[indices]`."""

    def _check_access(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> MemRefType:
        type_ = buffer.type
        assert isinstance(type_, MemRefType)
        if len(indices) != type_.get_num_dims():
            raise VerifyException(
                f"{self.name}: {len(indices)} indices for a rank-{type_.get_num_dims()} buffer"
            )
        return type_


@irdl_op_definition
class LoadOp(_AccessOp):
    """`%v = loop.load %buf[%i, %j] : memref<4x8xf32>` reads one element."""

    name = "loop.load"
    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def()
    assembly_format = "$buffer `[` $indices `]` attr-dict `:` type($buffer) `->` type($result)"

    def __init__(self, buffer: SSAValue, indices: Sequence[SSAValue]):
        assert isinstance(buffer.type, MemRefType)
        super().__init__(
            operands=[buffer, list(indices)], result_types=[buffer.type.element_type]
        )

    def verify_(self) -> None:
        type_ = self._check_access(self.buffer, self.indices)
        if self.result.type != type_.element_type:
            raise VerifyException(f"loop.load: result must be the element type {type_.element_type}")


@irdl_op_definition
class StoreOp(_AccessOp):
    """`loop.store %v, %buf[%i, %j] : memref<4x8xf32>` writes one element."""

    name = "loop.store"
    value = operand_def()
    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    assembly_format = "$value `,` $buffer `[` $indices `]` attr-dict `:` type($value) `,` type($buffer)"

    def __init__(self, value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[value, buffer, list(indices)])

    def verify_(self) -> None:
        type_ = self._check_access(self.buffer, self.indices)
        if self.value.type != type_.element_type:
            raise VerifyException(
                f"loop.store: value of type {self.value.type} into a buffer of {type_.element_type}"
            )


@irdl_op_definition
class VectorLoadOp(_AccessOp):
    """Load `N` consecutive elements of the innermost dimension starting at the indices."""

    name = "loop.vload"
    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def(VectorType)
    assembly_format = "$buffer `[` $indices `]` attr-dict `:` type($buffer) `->` type($result)"

    def __init__(self, buffer: SSAValue, indices: Sequence[SSAValue], lanes: int):
        assert isinstance(buffer.type, MemRefType)
        super().__init__(
            operands=[buffer, list(indices)],
            result_types=[VectorType(buffer.type.element_type, [lanes])],
        )

    def verify_(self) -> None:
        type_ = self._check_access(self.buffer, self.indices)
        _check_vector(self.name, "result", self.result.type)
        if self.result.type.element_type != type_.element_type:
            raise VerifyException(
                f"loop.vload: {self.result.type} from a buffer of {type_.element_type}"
            )


@irdl_op_definition
class VectorStoreOp(_AccessOp):
    """Store a vector into consecutive elements of the innermost dimension."""

    name = "loop.vstore"
    value = operand_def(VectorType)
    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    assembly_format = "$value `,` $buffer `[` $indices `]` attr-dict `:` type($value) `,` type($buffer)"

    def __init__(self, value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[value, buffer, list(indices)])

    def verify_(self) -> None:
        type_ = self._check_access(self.buffer, self.indices)
        _check_vector(self.name, "value", self.value.type)
        if self.value.type.element_type != type_.element_type:
            raise VerifyException(
                f"loop.vstore: {self.value.type} into a buffer of {type_.element_type}"
            )


@irdl_op_definition
class PrefetchOp(_AccessOp):
    """`loop.prefetch %buf[%i, %j] : memref<4x8xf32>` asks for the cache line holding that
    element to be brought into L2 (x86 `prefetcht1`); it reads nothing into a value and
    never faults, so the indices may lie outside the buffer (a next tile that does not
    exist). #te.prefetch's lowering."""

    name = "loop.prefetch"
    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    assembly_format = "$buffer `[` $indices `]` attr-dict `:` type($buffer)"

    def __init__(self, buffer: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[buffer, list(indices)])

    def verify_(self) -> None:
        self._check_access(self.buffer, self.indices)


@irdl_op_definition
class BroadcastOp(IRDLOperation):
    """Splat a scalar into every lane of a vector."""

    name = "loop.broadcast"
    value = operand_def()
    result = result_def(VectorType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$value attr-dict `:` type($value) `->` type($result)"

    def __init__(self, value: SSAValue, lanes: int):
        super().__init__(operands=[value], result_types=[VectorType(value.type, [lanes])])

    def verify_(self) -> None:
        _check_vector(self.name, "result", self.result.type)
        if self.result.type.element_type != self.value.type:
            raise VerifyException(
                f"loop.broadcast: {self.value.type} into lanes of {self.result.type.element_type}"
            )


# --------------------------------------------------------------------------------------------
# Lane-wise masks, casts and horizontal reductions: what loop-vectorize emits where xDSL's
# arith ops verify scalar i1 masks only (arith.cmpf on vectors would claim an i1 result,
# arith.select wants an i1 condition, arith.sitofp & co. reject vectors).
# --------------------------------------------------------------------------------------------

#: `loop.vcast` kinds (named after the arith cast they widen): (source, target) lane kinds.
VCAST_KINDS: dict[str, tuple[str, str]] = {
    "sitofp": ("int", "float"),
    "uitofp": ("int", "float"),
    "fptosi": ("float", "int"),
    "fptoui": ("float", "int"),
    "extsi": ("int", "int"),
    "extui": ("int", "int"),
    "trunci": ("int", "int"),
}

#: `loop.vreduce` kinds: the arith op combining two elements, and whether it is on floats.
VREDUCE_KINDS: dict[str, bool] = {
    "addf": True, "mulf": True, "maximumf": True, "minimumf": True, "maxnumf": True,
    "minnumf": True, "addi": False, "muli": False, "andi": False, "ori": False, "xori": False,
    "maxsi": False, "minsi": False, "maxui": False, "minui": False,
}  # fmt: skip


def _kind_of(element: Attribute) -> str:
    if isinstance(element, AnyFloat):
        return "float"
    return "int" if isinstance(element, IntegerType) else "other"


def _mask_of(type_: VectorType) -> VectorType:
    return VectorType(i1, type_.get_shape())


def _check_vector(op_name: str, what: str, type_: Attribute) -> VectorType:
    if not isinstance(type_, VectorType) or type_.get_num_dims() != 1:
        raise VerifyException(f"{op_name}: {what} must be a 1-d vector, got {type_}")
    return type_


class _VectorCompareOp(IRDLOperation):
    """What loop.vcmpf and loop.vcmpi share: a predicate from PREDICATES, a mask result."""

    PREDICATES: ClassVar[Sequence[str]] = ()

    def __init__(self, predicate: str, lhs: SSAValue, rhs: SSAValue):
        assert isinstance(lhs.type, VectorType)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[_mask_of(lhs.type)],
            properties={"predicate": StringAttr(predicate)},
        )

    def verify_(self) -> None:
        predicate = self.properties["predicate"]
        assert isinstance(predicate, StringAttr)
        if predicate.data not in self.PREDICATES:
            raise VerifyException(
                f"{self.name}: unknown predicate '{predicate.data}' (one of "
                f"{', '.join(self.PREDICATES)})"
            )
        type_ = _check_vector(self.name, "operands", self.operands[0].type)
        if self.results[0].type != _mask_of(type_):
            raise VerifyException(
                f"{self.name}: result must be {_mask_of(type_)}, got {self.results[0].type}"
            )


@irdl_op_definition
class VectorCmpfOp(_VectorCompareOp):
    """`%m = loop.vcmpf "olt", %a, %b : vector<16xf32> -> vector<16xi1>`: arith.cmpf per lane."""

    name = "loop.vcmpf"

    T: ClassVar = VarConstraint("T", VectorType.constr(AnyFloatConstr))

    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(VectorType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    PREDICATES: ClassVar[Sequence[str]] = arith.CMPF_COMPARISON_OPERATIONS


@irdl_op_definition
class VectorCmpiOp(_VectorCompareOp):
    """`%m = loop.vcmpi "slt", %a, %b : vector<8xi32> -> vector<8xi1>`: arith.cmpi per lane."""

    name = "loop.vcmpi"

    T: ClassVar = VarConstraint("T", VectorType.constr(SignlessIntegerConstraint))

    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(VectorType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    PREDICATES: ClassVar[Sequence[str]] = arith.CMPI_COMPARISON_OPERATIONS


@irdl_op_definition
class VectorSelectOp(IRDLOperation):
    """`%r = loop.vselect %m, %a, %b : vector<16xi1>, vector<16xf32>`: per lane, m ? a : b."""

    name = "loop.vselect"

    T: ClassVar = VarConstraint("T", VectorType.constr(AnyAttr()))

    condition = operand_def(VectorType.constr(I1))
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(NoMemoryEffect())
    assembly_format = (
        "$condition `,` $lhs `,` $rhs attr-dict `:` type($condition) `,` type($result)"
    )

    def __init__(self, condition: SSAValue, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[condition, lhs, rhs], result_types=[lhs.type])

    def verify_(self) -> None:
        type_ = _check_vector(self.name, "values", self.lhs.type)
        if self.condition.type != _mask_of(type_):
            raise VerifyException(
                f"loop.vselect: condition must be {_mask_of(type_)} for {type_} values, "
                f"got {self.condition.type}"
            )


@irdl_op_definition
class VectorCastOp(IRDLOperation):
    """`%f = loop.vcast "sitofp" %v : vector<8xi32> -> vector<8xf32>`: the arith cast per lane."""

    name = "loop.vcast"

    kind = prop_def(StringAttr)
    input = operand_def(VectorType)
    result = result_def(VectorType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$kind $input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, kind: str, input: SSAValue, result_type: VectorType):
        super().__init__(
            operands=[input], result_types=[result_type], properties={"kind": StringAttr(kind)}
        )

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in VCAST_KINDS:
            raise VerifyException(
                f"loop.vcast: unknown kind '{kind}' (one of {', '.join(VCAST_KINDS)})"
            )
        source = _check_vector(self.name, "input", self.input.type)
        target = _check_vector(self.name, "result", self.result.type)
        if source.get_shape() != target.get_shape():
            raise VerifyException(f"loop.vcast: {source} and {target} have different lane counts")
        want = VCAST_KINDS[kind]
        got = (_kind_of(source.element_type), _kind_of(target.element_type))
        if got != want:
            raise VerifyException(
                f"loop.vcast: '{kind}' casts {want[0]} to {want[1]} lanes, not "
                f"{source.element_type} to {target.element_type}"
            )
        if kind in ("extsi", "extui", "trunci"):
            wider = target.element_type.width.data > source.element_type.width.data
            if wider != (kind != "trunci"):
                raise VerifyException(
                    f"loop.vcast: '{kind}' cannot cast {source.element_type} to "
                    f"{target.element_type}"
                )


@irdl_op_definition
class VectorShuffleOp(IRDLOperation):
    """`%r = loop.vshuffle %a, %b [0, 16, 1, 17] : vector<16xf32> -> vector<4xf32>`: lane i of
    the result is lane mask[i] of a's lanes followed by b's (LLVM's shufflevector). Its result
    may have another lane count than its operands: a mask of 8 lanes takes half a vector, one
    of 32 joins two."""

    name = "loop.vshuffle"

    T: ClassVar = VarConstraint("T", VectorType.constr(AnyAttr()))

    lhs = operand_def(T)
    rhs = operand_def(T)
    mask = prop_def(DenseArrayBase[I32])
    result = result_def(VectorType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$lhs `,` $rhs $mask attr-dict `:` type($lhs) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, mask: Sequence[int]):
        source = lhs.type
        assert isinstance(source, VectorType)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[VectorType(source.element_type, [len(mask)])],
            properties={"mask": DenseArrayBase.from_list(i32, list(mask))},
        )

    def verify_(self) -> None:
        source = _check_vector(self.name, "operands", self.lhs.type)
        result = _check_vector(self.name, "result", self.result.type)
        mask = self.mask.get_values()
        if not mask:
            raise VerifyException("loop.vshuffle: the mask is empty (a result needs lanes)")
        if result.element_type != source.element_type or result.get_shape()[0] != len(mask):
            raise VerifyException(
                f"loop.vshuffle: a mask of {len(mask)} lanes of {source} makes "
                f"vector<{len(mask)}x{source.element_type}>, not {result}"
            )
        lanes = 2 * source.get_shape()[0]
        bad = [m for m in mask if not 0 <= m < lanes]
        if bad:
            raise VerifyException(
                f"loop.vshuffle: mask lane {bad[0]} is out of range (two operands of "
                f"{source} have {lanes} lanes)"
            )


@irdl_op_definition
class VectorReduceOp(IRDLOperation):
    """`%s = loop.vreduce "addf" %init, %v : vector<16xf32> -> f32`: folds the lanes into
    `init` in lane order, ((init . v[0]) . v[1]) . ..., with the arith op `kind` as `.`."""

    name = "loop.vreduce"

    T: ClassVar = VarConstraint("T", AnyAttr())

    kind = prop_def(StringAttr)
    init = operand_def(T)
    vector = operand_def(VectorType)
    result = result_def(T)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$kind $init `,` $vector attr-dict `:` type($vector) `->` type($result)"

    def __init__(self, kind: str, init: SSAValue, vector: SSAValue):
        super().__init__(
            operands=[init, vector], result_types=[init.type], properties={"kind": StringAttr(kind)}
        )

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in VREDUCE_KINDS:
            raise VerifyException(
                f"loop.vreduce: unknown kind '{kind}' (one of {', '.join(VREDUCE_KINDS)})"
            )
        type_ = _check_vector(self.name, "the reduced value", self.vector.type)
        if type_.element_type != self.init.type:
            raise VerifyException(
                f"loop.vreduce: init of type {self.init.type} for lanes of {type_.element_type}"
            )
        want = "float" if VREDUCE_KINDS[kind] else "int"
        if _kind_of(type_.element_type) != want:
            raise VerifyException(
                f"loop.vreduce: '{kind}' reduces {want} lanes, not {type_.element_type}"
            )


@irdl_op_definition
class AllocOp(IRDLOperation):
    """A scratch buffer live for the enclosing function (intermediates, temporaries)."""

    name = "loop.alloc"
    result = result_def(MemRefType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, type_: MemRefType):
        super().__init__(result_types=[type_])


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A read-only buffer holding a constant tensor (weights), inline or as a graph blob."""

    name = "loop.constant"
    value = prop_def(ElementsAttr)
    result = result_def(MemRefType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$value attr-dict `:` type($result)"

    def __init__(self, value: ElementsAttr, type_: MemRefType):
        super().__init__(properties={"value": value}, result_types=[type_])

    def verify_(self) -> None:
        verify_elements(self.name, self.value, self.result.type)


@irdl_op_definition
class CopyOp(IRDLOperation):
    """Copy a whole buffer into another of the same type (graph outputs aliasing inputs)."""

    name = "loop.copy"
    source = operand_def(MemRefType)
    target = operand_def(MemRefType)
    assembly_format = "$source `,` $target attr-dict `:` type($source) `,` type($target)"

    def __init__(self, source: SSAValue, target: SSAValue):
        super().__init__(operands=[source, target])

    def verify_(self) -> None:
        if self.source.type != self.target.type:
            raise VerifyException(
                f"loop.copy: source {self.source.type} and target {self.target.type} differ"
            )


@irdl_op_definition
class ViewOp(IRDLOperation):
    """Another buffer type over the same bytes: `%v` is `%source` from element `start` on,
    with the result's shape (row-major, like every buffer). @main's reshapes, row splits and
    row slices are views, not copies, and so are the inputs of a concat its kernels write in
    place (convert-te-to-loop, lowering/views.py):

        %piece = loop.view %xw[1024] : memref<64x1024xf32> to memref<1x1024xf32>

    Nothing is allocated: loop-plan-memory keeps `%source` live while any view of it is, and
    convert-loop-to-llvm offsets the pointer. `start` (elements) is a multiple of 64 bytes,
    so a view is as aligned as every buffer; a source of run-time size is viewed from its
    start only."""

    name = "loop.view"
    source = operand_def(MemRefType)
    start = prop_def(IntegerAttr[I64])
    result = result_def(MemRefType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$source `[` $start `]` attr-dict `:` type($source) `to` type($result)"

    def __init__(self, source: SSAValue, start: int, type_: MemRefType):
        super().__init__(
            operands=[source], properties={"start": IntegerAttr(start, i64)}, result_types=[type_]
        )

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        assert isinstance(source, MemRefType) and isinstance(result, MemRefType)
        if source.element_type != result.element_type:
            raise VerifyException(
                f"loop.view: a view of {source.element_type} as {result.element_type}"
            )
        start = self.start.value.data
        width = element_bytes(source.element_type)
        if start < 0 or (start * width) % ALIGNMENT:
            raise VerifyException(
                f"loop.view: start {start} is not a multiple of {ALIGNMENT} bytes"
            )
        have, want = dims_of(source), dims_of(result)
        if all(isinstance(d, int) for d in (*have, *want)):
            if start + math.prod(want) > math.prod(have):  # type: ignore[arg-type]
                raise VerifyException(
                    f"loop.view: elements {start}..{start + math.prod(want)} of a buffer of "  # type: ignore[arg-type]
                    f"{math.prod(have)}"  # type: ignore[arg-type]
                )
        elif start:
            raise VerifyException("loop.view: a buffer of run-time size is viewed from element 0 only")


def element_bytes(element: Attribute) -> int:
    """Bytes an element of a buffer takes (i1: a byte)."""
    if isinstance(element, IntegerType):
        return (element.width.data + 7) // 8
    if isinstance(element, IndexType):
        return 8
    assert isinstance(element, AnyFloat), element
    return element.bitwidth // 8


@irdl_op_definition
class SizeOp(IRDLOperation):
    """The run-time value of a size, an index: `%n = loop.size "batch*seq"`. In a kernel the
    symbols are its trailing index arguments (named by the function's `SYMBOLS_ATTR`); in
    the entry function they come from the entry ABI's sizes (convert-loop-to-llvm)."""

    name = "loop.size"
    size = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$size attr-dict"

    def __init__(self, size: object):
        super().__init__(properties={"size": StringAttr(str(size))}, result_types=[IndexType()])

    @property
    def value(self) -> int | SymDim:
        return parse_dim(self.size.data)

    def verify_(self) -> None:
        problem = dims_problem(self.size.data)
        if problem:
            raise VerifyException(f"loop.size: {problem}")


@irdl_op_definition
class ThreadsOp(IRDLOperation):
    """How many threads the parallel loops of this run get, an index known only when the
    code runs (`exe.num_threads`, or an exported library's pool): `%t = loop.threads`. A
    kernel whose loops can share the threads two ways (images of a batch, or rows of each
    image) picks one by it (lowering/batch_threads.py). It does not change
    while a run lasts."""

    name = "loop.threads"
    result = result_def(IndexType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class SetSizeOp(IRDLOperation):
    """Gives a size known only once the model runs its value, in the entry function: the count
    a `graph.flat_nonzero` or `graph.iota` found. `bound` (an expression of the model's other
    sizes) is the most it can be: buffers of that size are planned for the bound, the value
    sets how much of them the ops after this one use. A value beyond the bound stops the run
    there (the entry returns with the value stored): the runtime then raises a capacity
    (`<size>_cap`, graph.iota's) and runs again, or reports `message` (a `graph.check`'s,
    whose size is 1 where it fails, at most 0). The sizes of one `group` (graph.iota's: the
    dims of one shape) have their capacities raised together, to one run's sizes.

        loop.set_size "nz" = %count at most "6"
        loop.set_size "r_check" = %failed at most "0" {message = "node 'r' (Reshape): ..."}
        loop.set_size "y_len0" = %n at most "y_len0_cap" {group = "y_dims"}
    """

    name = "loop.set_size"
    size = prop_def(StringAttr)
    bound = prop_def(StringAttr)
    message = opt_prop_def(StringAttr)
    group = opt_prop_def(StringAttr)
    value = operand_def(IndexType)
    assembly_format = "$size `=` $value `at` `most` $bound attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(
        self, size: str, value: SSAValue, bound: int | SymDim, message: str | None = None, group: str | None = None
    ):
        props = {"size": StringAttr(size), "bound": StringAttr(str(bound))}
        if message is not None:
            props["message"] = StringAttr(message)
        if group is not None:
            props["group"] = StringAttr(group)
        super().__init__(properties=props, operands=[value])

    @property
    def bound_value(self) -> int | SymDim:
        return parse_dim(self.bound.data)

    def verify_(self) -> None:
        problem = dims_problem(self.size.data)
        if problem:
            raise VerifyException(f"loop.set_size: {problem}")
        try:
            parse_dim(self.bound.data)
        except SymbolicError as e:
            raise VerifyException(f"loop.set_size: bound: {e}") from None
        if bare_symbol(parse_dim(self.size.data)) is None:
            raise VerifyException(f"loop.set_size: '{self.size.data}' is not a size's name")


def set_size_messages(fn: Operation) -> dict[str, str]:
    """The checks `fn` (the entry function) makes as it runs: each `loop.set_size` with a
    message, by its size's name."""
    return {
        op.size.data: op.message.data
        for op in fn.walk()
        if isinstance(op, SetSizeOp) and op.message is not None
    }


def set_size_groups(fn: Operation) -> dict[str, str]:
    """The sizes `fn` (the entry function) sets as it runs that belong to a group (the dims
    of one shape), by their names: each one's group."""
    return {
        op.size.data: op.group.data
        for op in fn.walk()
        if isinstance(op, SetSizeOp) and op.group is not None
    }


def set_size_bounds(fn: Operation) -> dict[str, int | SymDim]:
    """The sizes `fn` (the entry function) sets as it runs (`loop.set_size`), in order, each
    with its bound: what a buffer whose size involves one is planned for. A bound in terms of
    an earlier set size (the count of a count's positions) is given in terms of its bound."""
    found: dict[str, int | SymDim] = {}
    for op in fn.walk():
        if isinstance(op, SetSizeOp):
            found[op.size.data] = bounded_size(op.bound_value, found)
    return found


def bounded_size(size: int | SymDim, bounds: dict[str, int | SymDim]) -> int | SymDim:
    """`size` with each size set at run time replaced by its bound: the most it can be
    (sizes only grow with their symbols)."""
    if isinstance(size, int) or not bounds or not symbols_of(size) & bounds.keys():
        return size
    return substitute(size, bounds)


def dims_of(type_: MemRefType) -> tuple[int | SymDim, ...]:
    """A buffer's dims: numbers, or the sizes its `#graph.dims` memory space names."""
    space = type_.memory_space
    shape = type_.get_shape()
    if not isinstance(space, DimsAttr):
        return tuple(shape)
    symbolic = iter(space.dims)
    return tuple(next(symbolic) if d == DYNAMIC_INDEX else d for d in shape)


def defined_within(op: Operation) -> set[SSAValue]:
    """The values `op` and the ops in its regions define: results and block arguments
    (what a value used inside `op` but defined outside it is not)."""
    values: set[SSAValue] = set()
    for inner in op.walk():
        values.update(inner.results)
        for region in inner.regions:
            for block in region.blocks:
                values.update(block.args)
    return values


LOOP_OPS: list[type[Operation]] = [
    ForOp, YieldOp, IfOp, WhileOp, LoadOp, StoreOp, VectorLoadOp, VectorStoreOp, PrefetchOp,
    BroadcastOp, AllocOp, ConstantOp, CopyOp, ViewOp, SizeOp, ThreadsOp, SetSizeOp, SectionsOp,
    VectorCmpfOp, VectorCmpiOp, VectorSelectOp, VectorCastOp, VectorReduceOp, VectorShuffleOp,
]  # fmt: skip

Loop = Dialect("loop", LOOP_OPS, [])
