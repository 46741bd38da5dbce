"""Data-movement and reduction graph ops: reshape, transpose, concat, slice, gather, pad, ...

    %1 = graph.reshape %0 : tensor<1x2048x1x1xf32> to tensor<1x2048xf32>
    %2 = graph.transpose %1 {perm = array<i64: 1, 0>} : tensor<1x2048xf32> -> tensor<2048x1xf32>
    %3 = graph.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = 1 : i64}
           : tensor<1x64x56x56xf32> -> tensor<1x64x1x1xf32>
    %4 = graph.arg_max %logits {axis = 1 : i64} : tensor<8x1000xf32> -> tensor<8x1xi64>

Every shape-like argument (target shapes, axes, pads, slice bounds) is a property, resolved to
explicit non-negative values by the frontend. A size that arrives at run time is a
`graph.iota` of a computed count (or a `graph.flat_nonzero`'s count), whose result's size the
ops after it take as a run-time size. Reshape, expand and resize state their result shape in their
result type, so it may be symbolic (`[batch*seq, 768]`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f32,
    i1,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)

from minitvm.dialects.graph.base import (
    Dim,
    GraphOp,
    Props,
    Shape,
    ShapeError,
    SizesAttr,
    as_tensor,
    broadcasts_to,
    check_elements,
    fmt_shape,
    get_float,
    get_int,
    get_ints,
    get_str,
    int_attr,
    is_float,
    is_static,
    shape_of,
    surely_below,
    tensor_type,
    unequal_sizes,
)
from minitvm.symbolic import (
    SymbolicError,
    SymDim,
    bare_symbol,
    capacity,
    ceildiv,
    parse_dim,
    product,
    sym_max,
    symbol,
    symbols_of,
)

_UNARY_FORMAT = "$input attr-dict `:` type($input) `->` type($result)"


def _check_axes(op_name: str, axes: Sequence[int], rank: int) -> None:
    if any(not 0 <= a < rank for a in axes) or len(set(axes)) != len(axes):
        raise ShapeError(f"{op_name}: axes {list(axes)} must be distinct and in [0, {rank}) (normalized)")


def _check_axis(op_name: str, axis: int, rank: int) -> None:
    if not 0 <= axis < rank:
        raise ShapeError(f"{op_name}: axis {axis} must be in [0, {rank}) (normalized)")


def _same_elements(op_name: str, input: SSAValue, result: SSAValue) -> tuple[TensorType, TensorType]:
    """The input's and the result's tensor types, which must have one element type (ops that
    only move elements)."""
    source = as_tensor(op_name, "input", input.type)
    target = as_tensor(op_name, "result", result.type)
    if source.element_type != target.element_type:
        raise ShapeError(
            f"{op_name}: result element type {target.element_type} differs from the input's "
            f"{source.element_type}"
        )
    return source, target


class DeclaredShapeOp(GraphOp):
    """An op whose result shape is stated by its result type rather than a property.

    `make(x, shape=...)` builds it; `verify_` checks that the stated shape is legal.
    """

    input = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    @classmethod
    def make(cls, input: SSAValue, *, shape: Sequence[int], **props: object):  # type: ignore[override]
        source = as_tensor(cls.name, "input", input.type)
        values = cls.normalized_props(props)
        return cls.create_with([input], [tensor_type(shape, source.element_type)], values)

    def verify_(self) -> None:
        source, target = _same_elements(self.name, self.input, self.result)
        self.check_shapes(shape_of(source), shape_of(target))

    def check_shapes(self, source: Shape, target: Shape) -> None:
        """Each subclass states which result shapes are legal for a given input shape."""


@irdl_op_definition
class ReshapeOp(DeclaredShapeOp):
    """Reinterpret the elements (row-major) with a new shape of the same size."""

    name = "graph.reshape"

    def check_shapes(self, source: Shape, target: Shape) -> None:
        if _numel(source) != _numel(target):
            raise ShapeError(
                f"graph.reshape: cannot reshape {fmt_shape(source)} ({_numel(source)} elements) "
                f"to {fmt_shape(target)} ({_numel(target)} elements)"
            )


@irdl_op_definition
class ExpandOp(DeclaredShapeOp):
    """Broadcast to the result shape (numpy rules; the result may have a higher rank)."""

    name = "graph.expand"

    def check_shapes(self, source: Shape, target: Shape) -> None:
        if not broadcasts_to(source, target):
            raise ShapeError(
                f"graph.expand: {fmt_shape(source)} does not broadcast to {fmt_shape(target)}"
            )


@irdl_op_definition
class RangeOp(GraphOp):
    """`start + i * delta` for i in [0, n), n stated by the result type: ONNX's Range whose
    count is known only at run time (`Range(0, seq, 1)`, the positions of a sequence); a
    Range of numbers folds to a constant at import."""

    name = "graph.range"
    result = result_def(TensorType)
    start = prop_def(IntegerAttr | FloatAttr)
    delta = prop_def(IntegerAttr | FloatAttr)
    assembly_format = "attr-dict `:` type($result)"

    @classmethod
    def make(cls, *, start: float, delta: float, length: Dim, element_type: Attribute):  # type: ignore[override]
        kind = IntegerAttr if isinstance(element_type, IntegerType) else FloatAttr
        props = {"start": kind(start, element_type), "delta": kind(delta, element_type)}
        return cls.create_with([], [tensor_type([length], element_type)], props)

    @property
    def start_value(self) -> int | float:
        return self.start.value.data

    @property
    def delta_value(self) -> int | float:
        return self.delta.value.data

    def verify_(self) -> None:
        result = as_tensor(self.name, "result", self.result.type)
        check_elements(self.name, "result", result, "numeric")
        if len(result.get_shape()) != 1:
            raise ShapeError(f"{self.name}: result must be a vector, got {result}")
        for name in ("start", "delta"):
            if self.properties[name].type != result.element_type:  # type: ignore[attr-defined]
                raise ShapeError(
                    f"{self.name}: {name} must be of the result's element type {result.element_type}"
                )


@irdl_op_definition
class SizesOp(GraphOp):
    """A tensor of sizes, some known only at run time, row-major in `values`: the `Shape` of a
    tensor with symbolic dimensions used as data (`Range(0, seq) * seq`, a mask built from
    `seq`). The frontend makes one where an import-time array of sizes reaches an op as an
    operand; it is computed once the symbols have values."""

    name = "graph.sizes"
    result = result_def(TensorType)
    values = prop_def(SizesAttr)
    assembly_format = "attr-dict `:` type($result)"

    @classmethod
    def make(cls, *, values: Sequence[Dim], shape: Sequence[int], element_type: Attribute):  # type: ignore[override]
        return cls.create_with([], [tensor_type(shape, element_type)], {"values": SizesAttr.of(values)})

    def verify_(self) -> None:
        result = as_tensor(self.name, "result", self.result.type)
        check_elements(self.name, "result", result, "integer")
        count = math.prod(result.get_shape()) if is_static(result) else -1
        if count != len(self.values.entries.data):
            raise ShapeError(
                f"{self.name}: {len(self.values.entries.data)} values for a result of static "
                f"shape {fmt_shape(shape_of(result))}"
            )


class FoundSizeOp(GraphOp):
    """Base of the ops whose result is a vector of i64 whose one dimension is a size of its
    own, found as the op runs (`size`), at most `bound`; the ops after it take that size as a
    run-time size, as they take `batch` or `seq`."""

    result = result_def(TensorType)

    @classmethod
    def make(cls, operand: SSAValue, *, size: str):  # type: ignore[override]
        """`size`: the name of the count, a symbol no other value of the module uses."""
        return cls.create_with([operand], [tensor_type([symbol(size)], i64)], {})

    @property
    def size(self) -> str:
        """The name of the run-time count (the result's dimension)."""
        name = bare_symbol(shape_of(self.result.type)[0])
        assert name is not None
        return name

    @property
    def bound(self) -> int | SymDim:
        """The most the count can be in a run; each op of this kind states its own."""
        raise NotImplementedError(f"{self.name} states no bound")

    def verify_result(self) -> None:
        result = as_tensor(self.name, "result", self.result.type)
        shape = shape_of(result)
        if result.element_type != i64 or len(shape) != 1 or bare_symbol(shape[0]) is None:
            raise ShapeError(
                f"{self.name}: result must be a vector of i64 whose size is a symbol of its "
                f"own (the count), got {result}"
            )


@irdl_op_definition
class FlatNonzeroOp(FoundSizeOp):
    """The row-major positions of the true elements of `mask`, in increasing order: numpy's
    `flatnonzero`. How many there are is known only once the op runs, so the result's one
    dimension is a size of its own (`#graph.dims<"nonzero_0">`), at most the mask's element
    count, that the ops after it take as a run-time size. NonZero, Compress, Unique and a
    Slice of run-time bounds are built on it.

        %i = graph.flat_nonzero %mask : tensor<2x3xi1> -> tensor<?xi64, #graph.dims<"nz">>
    """

    name = "graph.flat_nonzero"
    mask = operand_def(TensorType)
    assembly_format = "$mask attr-dict `:` type($mask) `->` type($result)"

    @property
    def bound(self) -> int | SymDim:
        """The most the count can be: the mask's element count."""
        return product(shape_of(self.mask.type))

    def verify_(self) -> None:
        mask = as_tensor(self.name, "mask", self.mask.type)
        check_elements(self.name, "mask", mask, "bool")
        self.verify_result()


@irdl_op_definition
class IotaOp(FoundSizeOp):
    """0, 1, ..., n-1 for a count n that is a value (a rank-0 i64 tensor; a negative count
    gives none): how a size computed from the data (a Range's length, a Reshape's target
    dimension read from a tensor) becomes a size the ops after it run over. The result's one
    dimension is a size of its own with no bound the shapes give, so it is planned for its
    capacity `<size>_cap` (`capacity`), which the runtime supplies: a run whose count exceeds
    it stops once the count is known, and the runtime raises the capacity and runs it again
    (only a count larger than any before costs a second run). Range, Tile, Expand and Reshape
    whose size operands are computed at run time are built on it. The iotas of the dims of
    one shape (a Reshape's to a shape read from a tensor) share a `group`: each capacity
    raised alone, a buffer of that shape would be planned for the product of every dim's
    largest size ever (a 64^5-element buffer for a first 5-D reshape), so the runtime keeps
    the group's capacities at the sizes of one run.

        %i = graph.iota %n : tensor<i64> -> tensor<?xi64, #graph.dims<"len">>
        %j = graph.iota %m {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len0">>
        %k = graph.iota %kk {most = "50257"} : tensor<i64> -> tensor<?xi64, #graph.dims<"v_count">>

    A count the shapes bound (`most`: a TopK's k is at most the row's length) is clamped to
    that bound and needs no capacity.
    """

    name = "graph.iota"
    count = operand_def(TensorType)
    group = opt_prop_def(StringAttr)
    most = opt_prop_def(StringAttr)
    assembly_format = "$count attr-dict `:` type($count) `->` type($result)"
    irdl_options = (ParsePropInAttrDict(),)

    @classmethod
    def make(cls, operand: SSAValue, *, size: str, group: str | None = None, most: Dim | None = None):  # type: ignore[override]
        """`group`: a name the iotas of the dims of one shape share (see the class).
        `most`: a bound the shapes give (a TopK's k fed at run time is at most the row's
        length): the count is clamped to it, and the size needs no capacity."""
        op = super().make(operand, size=size)
        if group is not None:
            op.properties["group"] = StringAttr(group)
        if most is not None:
            op.properties["most"] = StringAttr(str(most))
        return op

    @property
    def group_name(self) -> str | None:
        return None if self.group is None else self.group.data

    @property
    def bound(self) -> int | SymDim:
        """The most the count can be in a run: `most`, else its capacity."""
        return symbol(capacity(self.size)) if self.most is None else parse_dim(self.most.data)

    def verify_(self) -> None:
        count = as_tensor(self.name, "count", self.count.type)
        if count.element_type != i64 or shape_of(count):
            raise ShapeError(f"{self.name}: count must be a tensor<i64> (a scalar), got {count}")
        if self.most is not None:
            try:
                most = parse_dim(self.most.data)
            except SymbolicError as e:
                raise ShapeError(f"{self.name}: most: {e}") from None
            if isinstance(most, SymDim) and self.size in symbols_of(most):
                raise ShapeError(f"{self.name}: most ({most}) is in terms of the count's own size")
        self.verify_result()


@irdl_op_definition
class ReshapeToSizesOp(GraphOp):
    """Reinterpret the elements (row-major) with the shape that `sizes` give: dimension j is
    the size of vector j, a size found as the model runs (a `graph.iota` of a count read
    from a tensor: ONNX's Reshape to a shape computed at run time). The vectors' values are
    not read, only their sizes. That the element counts agree cannot be shown from the types,
    so the verifier does not try: a `graph.check` before the op stops a run where they differ.
    Its rule is graph.reshape's, a copy at row-major positions (no gather through a computed
    position tensor).

        %y = graph.reshape_to_sizes %x to %i0, %i1 : tensor<6xf32>, tensor<?xi64, #graph.dims<"a">>,
               tensor<?xi64, #graph.dims<"b">> -> tensor<?x?xf32, #graph.dims<"a", "b">>
    """

    name = "graph.reshape_to_sizes"
    input = operand_def(TensorType)
    sizes = var_operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$input `to` $sizes attr-dict `:` type($input) `,` type($sizes) `->` type($result)"

    @classmethod
    def make(cls, input: SSAValue, sizes: Sequence[SSAValue]):  # type: ignore[override]
        source = as_tensor(cls.name, "input", input.type)
        shape = [shape_of(as_tensor(cls.name, "size", s.type))[0] for s in sizes]
        return cls.create_with([input, list(sizes)], [tensor_type(shape, source.element_type)], {})

    def verify_(self) -> None:
        _, target = _same_elements(self.name, self.input, self.result)
        if not self.sizes:
            raise ShapeError(f"{self.name}: needs at least one size (a scalar is a graph.reshape)")
        dims: list[Dim] = []
        for n, size in enumerate(self.sizes):
            vector = as_tensor(self.name, f"size {n}", size.type)
            shape = shape_of(vector)
            if vector.element_type != i64 or len(shape) != 1 or bare_symbol(shape[0]) is None:
                raise ShapeError(
                    f"{self.name}: size {n} must be a vector of i64 whose size is a symbol of "
                    f"its own (a graph.iota's), got {vector}"
                )
            dims.append(shape[0])
        if tuple(shape_of(target)) != tuple(dims):
            raise ShapeError(
                f"{self.name}: result shape {fmt_shape(shape_of(target))} must be the sizes' "
                f"{fmt_shape(dims)}"
            )


@irdl_op_definition
class ArgSortOp(GraphOp):
    """The positions that sort each row of `x` (rank 2, along its last axis), largest first
    when `descending`: stable, so equal elements keep their order (the lower index first, as
    TopK's ties go). The result has k <= n columns: the first k positions (TopK's indices;
    k = n sorts the whole row).

        %i = graph.argsort %x {descending = 1 : i64} : tensor<4x50257xf32> -> tensor<4x50xi64>
    """

    name = "graph.argsort"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    descending = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def make(cls, input: SSAValue, *, k: Dim | None = None, descending: int = 0):  # type: ignore[override]
        """The first `k` positions of each row (all of them by default)."""
        rows, n = shape_of(as_tensor(cls.name, "input", input.type))
        props = cls.normalized_props({"descending": descending})
        return cls.create_with([input], [tensor_type([rows, n if k is None else k], i64)], props)

    @property
    def is_descending(self) -> bool:
        return get_int(self.properties, "descending", 0) == 1

    def verify_(self) -> None:
        x = as_tensor(self.name, "input", self.input.type)
        check_elements(self.name, "input", x, "numeric")
        if len(shape_of(x)) != 2:
            raise ShapeError(f"{self.name}: input must have rank 2 (rows to sort), got {x}")
        if get_int(self.properties, "descending", 0) not in (0, 1):
            raise ShapeError(f"{self.name}: descending must be 0 or 1")
        result = as_tensor(self.name, "result", self.result.type)
        rows, n = shape_of(x)
        shape = shape_of(result)
        if result.element_type != i64 or len(shape) != 2 or shape[0] != rows:
            raise ShapeError(f"{self.name}: result must be {rows}xk of i64, got {result}")
        if isinstance(shape[1], int) and isinstance(n, int) and not 0 <= shape[1] <= n:
            raise ShapeError(f"{self.name}: {shape[1]} positions of rows of {n}")


@irdl_op_definition
class InvertPermutationOp(GraphOp):
    """The inverse of a permutation of 0..n-1: result[perm[i]] = i (numpy's argsort of a
    permutation, in O(n) where a sort is O(n log n)). Values outside 0..n-1, or repeated,
    are undefined behaviour: the op is for permutations the model made itself (a stable
    sort's order, read back). Written into @main as one loop.

        %inv = graph.invert_permutation %perm : tensor<100000xi64> -> tensor<100000xi64>
    """

    name = "graph.invert_permutation"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        perm = as_tensor(cls.name, "input", operand_types[0])
        if perm.element_type != i64 or len(shape_of(perm)) != 1:
            raise ShapeError(f"{cls.name}: input must be a permutation, a 1-D tensor of i64, got {perm}")
        return [perm]


@irdl_op_definition
class CheckOp(IRDLOperation):
    """Stops the run with `message` unless `ok` (a scalar i1 tensor) holds: the run-time part
    of an op's verification where what it checks is computed from the data (a Reshape to a
    shape read from a tensor must keep the element count). `check` names it, as a size is
    named: a unique symbol (the runtime reads whether it failed from the entry's sizes).
    Not a GraphOp (those are pure): no pass removes it although it has no result.

        graph.check %ok {check = "r_check", message = "node 'r' (Reshape): ..."} : tensor<i1>
    """

    name = "graph.check"
    ok = operand_def(TensorType)
    check = prop_def(StringAttr)
    message = prop_def(StringAttr)
    assembly_format = "$ok attr-dict `:` type($ok)"
    irdl_options = (ParsePropInAttrDict(),)

    @classmethod
    def make(cls, ok: SSAValue, *, check: str, message: str) -> CheckOp:
        props = {"check": StringAttr(check), "message": StringAttr(message)}
        return cls.create(operands=[ok], properties=props)

    def verify_(self) -> None:
        ok = as_tensor(self.name, "ok", self.ok.type)
        if ok.element_type != i1 or shape_of(ok):
            raise ShapeError(f"{self.name}: ok must be a tensor<i1> (a scalar), got {ok}")
        if bare_symbol(parse_dim(self.check.data)) is None:
            raise ShapeError(f"{self.name}: '{self.check.data}' is not a size's name")


@dataclass(frozen=True)
class Sampling:
    """How graph.resize samples its input: its properties resolved (absent ones at their
    defaults).

    Along each resampled dim, output index i reads the input around the source coordinate
    x(i) that `coordinate_mode` gives. Nearest mode reads one element (`nearest_mode` rounds
    x); linear and cubic modes read the taps floor(x) + j for j in `taps(d)`, weighted by
    their filter (the tent or Keys' cubic with `cubic_coeff_a`) at the distance
    (j - t) * `filter_scale(d)`, t = x - floor(x), at indices clamped into the input (edge
    padding). `antialias` stretches the filter by 1 / scale when downsampling (more taps,
    weights normalized to sum 1); `exclude_outside` gives the taps outside the input weight 0
    and renormalizes. tf_crop_and_resize samples the box `roi` (starts then ends, normalized
    coordinates, one pair per dim) and gives `extrapolation_value` where x(i) lies outside the
    input. The rules are ONNX's reference implementation's (dialects/graph/reference.py).
    """

    scales: tuple[float, ...]
    mode: str
    coordinate_mode: str
    nearest_mode: str
    cubic_coeff_a: float = -0.75
    exclude_outside: bool = False
    antialias: bool = False
    roi: tuple[float, ...] | None = None
    extrapolation_value: float = 0.0

    def roi_of(self, d: int) -> tuple[float, float]:
        """The (start, end) of the crop box along dim d; (0, 1) without tf_crop_and_resize."""
        if self.coordinate_mode != "tf_crop_and_resize" or self.roi is None:
            return (0.0, 1.0)
        return (self.roi[d], self.roi[len(self.scales) + d])

    def resamples(self, d: int, size: int, out: int) -> bool:
        """Whether dim d changes: every mode maps i to i when its size, scale and box stay."""
        return not (size == out and self.scales[d] == 1 and self.roi_of(d) == (0.0, 1.0))

    def filter_scale(self, d: int) -> float:
        """How much the filter is stretched along dim d: min(scale, 1) with antialias."""
        return min(self.scales[d], 1.0) if self.antialias else 1.0

    def taps(self, d: int) -> range:
        """The offsets j from floor(x) of the taps along dim d (linear and cubic modes): the
        filter's support (1 for linear, 2 for cubic) divided by `filter_scale`, as ONNX's
        reference counts it."""
        support = 1 if self.mode == "linear" else 2
        start = math.floor(-support / self.filter_scale(d)) + 1
        return range(start, 2 - start)


@irdl_op_definition
class ResizeOp(DeclaredShapeOp):
    """Resample to the result shape (nearest, linear or cubic), with ONNX's coordinate modes
    (see `Sampling`)."""

    name = "graph.resize"
    scales = prop_def(DenseArrayBase)
    mode = opt_prop_def(StringAttr, default_value=StringAttr("nearest"))
    coordinate_transformation_mode = opt_prop_def(StringAttr, default_value=StringAttr("half_pixel"))
    nearest_mode = opt_prop_def(StringAttr, default_value=StringAttr("round_prefer_floor"))
    cubic_coeff_a = opt_prop_def(FloatAttr, default_value=FloatAttr(-0.75, f32))
    exclude_outside = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    extrapolation_value = opt_prop_def(FloatAttr, default_value=FloatAttr(0.0, f32))
    antialias = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    roi = opt_prop_def(DenseArrayBase)

    MODES: ClassVar[tuple[str, ...]] = ("nearest", "linear", "cubic")
    COORDINATE_MODES: ClassVar[tuple[str, ...]] = (
        "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
        "asymmetric", "tf_crop_and_resize",
    )  # fmt: skip
    NEAREST_MODES: ClassVar[tuple[str, ...]] = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")

    @property
    def sampling(self) -> Sampling:
        props = self.properties
        roi = props.get("roi")
        return Sampling(
            tuple(float(s) for s in self.scales.get_values()),
            get_str(props, "mode", "nearest"),
            get_str(props, "coordinate_transformation_mode", "half_pixel"),
            get_str(props, "nearest_mode", "round_prefer_floor"),
            get_float(props, "cubic_coeff_a", -0.75),
            bool(get_int(props, "exclude_outside", 0)),
            bool(get_int(props, "antialias", 0)),
            None if roi is None else tuple(float(v) for v in roi.get_values()),  # type: ignore[attr-defined]
            get_float(props, "extrapolation_value", 0.0),
        )

    @classmethod
    def make(  # type: ignore[override]
        cls, input: SSAValue, *, sizes: Sequence[int], scales: Sequence[float],
        roi: Sequence[float] | None = None, **props: object,
    ):  # fmt: skip
        scales_attr = DenseArrayBase.from_list(f32, [float(s) for s in scales])
        roi_attr = None if roi is None else DenseArrayBase.from_list(f32, [float(v) for v in roi])
        return super().make(input, shape=sizes, scales=scales_attr, roi=roi_attr, **props)

    def check_shapes(self, source: Shape, target: Shape) -> None:
        if len(source) != len(target):
            raise ShapeError(f"graph.resize: cannot change the rank ({fmt_shape(source)} to {fmt_shape(target)})")
        scales = self.scales.get_values()
        if len(scales) != len(source):
            raise ShapeError(f"graph.resize: scales needs {len(source)} entries, got {len(scales)}")
        sampling = self.sampling
        for name, value, allowed in (
            ("mode", sampling.mode, self.MODES),
            ("coordinate_transformation_mode", sampling.coordinate_mode, self.COORDINATE_MODES),
            ("nearest_mode", sampling.nearest_mode, self.NEAREST_MODES),
        ):
            if value not in allowed:
                raise ShapeError(f"graph.resize: {name} \"{value}\" is not one of {', '.join(allowed)}")
        if self.scales.elt_type != f32:
            raise ShapeError(f"graph.resize: scales must be an array<f32: ...>, got {self.scales}")
        if any(not s > 0 for s in scales):
            raise ShapeError(f"graph.resize: scales must be positive, got {list(scales)}")
        for flag in ("exclude_outside", "antialias"):
            if get_int(self.properties, flag, 0) not in (0, 1):
                raise ShapeError(f"graph.resize: {flag} must be 0 or 1, got {get_int(self.properties, flag)}")
        if sampling.antialias and sampling.mode == "nearest":
            raise ShapeError("graph.resize: antialias applies to the linear and cubic modes, not nearest")
        cropping = sampling.coordinate_mode == "tf_crop_and_resize"
        if self.roi is None and cropping:
            raise ShapeError("graph.resize: tf_crop_and_resize needs the roi property (the crop box)")
        if self.roi is not None:
            if not cropping:
                raise ShapeError("graph.resize: roi is read by tf_crop_and_resize only; drop it or change the mode")
            if self.roi.elt_type != f32 or len(self.roi.get_values()) != 2 * len(source):
                raise ShapeError(
                    f"graph.resize: roi must be an array<f32: ...> of {2 * len(source)} entries "
                    f"(starts, then ends), got {self.roi}"
                )
        source_type = as_tensor(self.name, "input", self.input.type)
        if not is_float(source_type.element_type):
            raise ShapeError(f"graph.resize: input must be a float tensor, got {source_type}")


def _numel(shape: Shape) -> int:
    count = 1
    for d in shape:
        count *= d
    return count


@irdl_op_definition
class TransposeOp(GraphOp):
    """Permute dimensions: result dim i is input dim perm[i]."""

    name = "graph.transpose"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    perm = prop_def(DenseArrayBase)
    assembly_format = _UNARY_FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        shape, perm = shape_of(x), get_ints(props, "perm")
        if sorted(perm) != list(range(len(shape))):
            raise ShapeError(f"graph.transpose: perm {list(perm)} is not a permutation of 0..{len(shape) - 1}")
        return [tensor_type([shape[p] for p in perm], x.element_type)]


@irdl_op_definition
class ConcatOp(GraphOp):
    """Join tensors along `axis`; all other dims must agree."""

    name = "graph.concat"
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        if not operand_types:
            raise ShapeError("graph.concat: needs at least one input")
        tensors = [as_tensor(cls.name, f"input #{i}", t) for i, t in enumerate(operand_types)]
        first = shape_of(tensors[0])
        axis = get_int(props, "axis")
        _check_axis(cls.name, axis, len(first))
        total = 0
        for i, t in enumerate(tensors):
            s = shape_of(t)
            if t.element_type != tensors[0].element_type:
                raise ShapeError(f"graph.concat: input #{i} has element type {t.element_type}, input #0 {tensors[0].element_type}")
            if len(s) != len(first) or any(a != b for d, (a, b) in enumerate(zip(s, first)) if d != axis):
                message = (
                    f"graph.concat: input #{i} has shape {fmt_shape(s)}, which differs from input "
                    f"#0's {fmt_shape(first)} outside axis {axis}"
                )
                differing = [(b, a) for d, (a, b) in enumerate(zip(s, first)) if d != axis and a != b]
                raise unequal_sizes(message, differing[0]) if len(s) == len(first) and differing else ShapeError(message)
            total += s[axis]
        return [tensor_type((*first[:axis], total, *first[axis + 1 :]), tensors[0].element_type)]


@irdl_op_definition
class SplitOp(GraphOp):
    """Cut a tensor along `axis` into pieces of the given sizes (one result per size)."""

    name = "graph.split"
    input = operand_def(TensorType)
    outputs = var_result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    sizes = prop_def(DenseArrayBase)
    assembly_format = "$input attr-dict `:` type($input) `->` type($outputs)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        shape = shape_of(x)
        axis, sizes = get_int(props, "axis"), get_ints(props, "sizes")
        _check_axis(cls.name, axis, len(shape))
        if sum(sizes) != shape[axis] or any(s < 0 for s in sizes) or not sizes:
            raise ShapeError(f"graph.split: sizes {list(sizes)} do not add up to dim {axis} of {fmt_shape(shape)}")
        return [tensor_type((*shape[:axis], s, *shape[axis + 1 :]), x.element_type) for s in sizes]


@irdl_op_definition
class SliceOp(GraphOp):
    """Dim i of the result is `range(starts[i], ends[i], steps[i])` of the input's dim i.

    Bounds are already clamped (ONNX's rules applied by the frontend); with a negative step an
    end of -1 means "through index 0". Starts and ends may be symbolic (`#graph.sizes`):
    `x[:, :seq]` of a constant of 64 columns is `ends = #graph.sizes<1, "seq">`; a bound
    the symbols' ranges cannot check is the run time's to check.
    """

    name = "graph.slice"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    starts = prop_def(DenseArrayBase | SizesAttr)
    ends = prop_def(DenseArrayBase | SizesAttr)
    steps = prop_def(DenseArrayBase)
    assembly_format = _UNARY_FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        shape = shape_of(x)
        starts, ends, steps = (get_ints(props, n) for n in ("starts", "ends", "steps"))
        if not len(starts) == len(ends) == len(steps) == len(shape):
            raise ShapeError(f"graph.slice: starts, ends and steps need {len(shape)} entries each (the input rank)")
        out = []
        for d, (lo, hi, step, size) in enumerate(zip(starts, ends, steps, shape)):
            if step == 0:
                raise ShapeError(f"graph.slice: step of dim {d} is 0")
            if any(isinstance(v, SymDim) for v in (lo, hi, size)):
                out.append(_symbolic_slice_length(d, lo, hi, step, size))
                continue
            valid_lo = 0 <= lo <= size if step > 0 else -1 <= lo < size or (size == 0 and lo <= 0)
            valid_hi = 0 <= hi <= size if step > 0 else -1 <= hi < size or hi == -1
            if not (valid_lo and valid_hi):
                raise ShapeError(
                    f"graph.slice: bounds [{lo}, {hi}) step {step} of dim {d} are not clamped to its size {size}"
                )
            out.append(len(range(lo, hi, step)))
        return [tensor_type(out, x.element_type)]


def _symbolic_slice_length(d: int, lo: Dim, hi: Dim, step: int, size: Dim) -> Dim:
    """len(range(lo, hi, step)) where a bound or the size is symbolic; bounds the symbols'
    ranges show to be unclamped are an error, those they cannot check are the run time's."""
    low, high = (0, size) if step > 0 else (-1, size - 1)
    if any(surely_below(v, low) or surely_below(high, v) for v in (lo, hi)):
        raise ShapeError(
            f"graph.slice: bounds [{lo}, {hi}) step {step} of dim {d} are not clamped to its size {size}"
        )
    return sym_max(0, ceildiv(hi - lo, step) if step > 0 else ceildiv(lo - hi, -step))


@irdl_op_definition
class GatherOp(GraphOp):
    """Take entries along `axis` at integer indices (negative indices count from the end)."""

    name = "graph.gather"
    input = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    assembly_format = "$input `,` $indices attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        idx = as_tensor(cls.name, "indices", operand_types[1])
        if not isinstance(idx.element_type, IntegerType) or idx.element_type.width.data not in (32, 64):
            raise ShapeError(f"graph.gather: indices must be i32 or i64, got {idx.element_type}")
        shape, axis = shape_of(x), get_int(props, "axis")
        _check_axis(cls.name, axis, len(shape))
        return [tensor_type((*shape[:axis], *shape_of(idx), *shape[axis + 1 :]), x.element_type)]


def _check_indices(op_name: str, indices: TensorType) -> None:
    element = indices.element_type
    if not isinstance(element, IntegerType) or element.width.data not in (32, 64):
        raise ShapeError(f"{op_name}: indices must be i32 or i64, got {element}")


def _check_within(op_name: str, what: str, shape: Shape, data: Shape, axis: int) -> None:
    """`shape` (the indices') may not exceed the data's outside `axis`: those dims index the
    data directly."""
    for d, (n, size) in enumerate(zip(shape, data)):
        if d != axis and n > size:
            raise ShapeError(
                f"{op_name}: {what} {fmt_shape(shape)} exceeds data {fmt_shape(data)} in dim "
                f"{d} ({n} > {size}); only dim {axis} (axis) may differ"
            )


@irdl_op_definition
class GatherElementsOp(GraphOp):
    """result[p] = data[p with p[axis] replaced by indices[p]] (negative indices count from
    the end); indices has the data's rank, and outside `axis` no dim larger than its."""

    name = "graph.gather_elements"
    input = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    assembly_format = "$input `,` $indices attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        idx = as_tensor(cls.name, "indices", operand_types[1])
        _check_indices(cls.name, idx)
        shape, index_shape, axis = shape_of(x), shape_of(idx), get_int(props, "axis")
        _check_axis(cls.name, axis, len(shape))
        if len(index_shape) != len(shape):
            raise ShapeError(
                f"{cls.name}: indices {fmt_shape(index_shape)} have rank {len(index_shape)}, the "
                f"input {fmt_shape(shape)} rank {len(shape)}: they must agree"
            )
        _check_within(cls.name, "indices", index_shape, shape, axis)
        if shape[axis] == 0 and math.prod(index_shape):
            raise ShapeError(f"{cls.name}: dim {axis} of the input is empty: there is nothing to gather")
        return [tensor_type(index_shape, x.element_type)]


@irdl_op_definition
class GatherNDOp(GraphOp):
    """Gather slices at index tuples: with b = `batch_dims` and k = indices.shape[-1],
    result[q, r] = data[q[:b], *indices[q], r] for q over indices.shape[:-1] and r over
    data.shape[b + k:] (negative indices count from the end)."""

    name = "graph.gather_nd"
    input = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    batch_dims = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    assembly_format = "$input `,` $indices attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        idx = as_tensor(cls.name, "indices", operand_types[1])
        _check_indices(cls.name, idx)
        shape, index_shape = shape_of(x), shape_of(idx)
        b = get_int(props, "batch_dims", 0)
        if not index_shape:
            raise ShapeError(f"{cls.name}: indices must have rank >= 1 (the last dim holds the index tuples)")
        if not 0 <= b < min(len(shape), len(index_shape)):
            raise ShapeError(
                f"{cls.name}: batch_dims {b} must be in [0, {min(len(shape), len(index_shape))}) "
                f"(less than the ranks of input {fmt_shape(shape)} and indices {fmt_shape(index_shape)})"
            )
        if shape[:b] != index_shape[:b]:
            raise ShapeError(
                f"{cls.name}: the batch dims (the first {b}, batch_dims) of input "
                f"{fmt_shape(shape)} and indices {fmt_shape(index_shape)} differ"
            )
        k = index_shape[-1]
        if not 1 <= k <= len(shape) - b:
            raise ShapeError(
                f"{cls.name}: index tuples have {k} entries (indices' last dim); input "
                f"{fmt_shape(shape)} with {b} batch dims takes 1 to {len(shape) - b}"
            )
        return [tensor_type((*index_shape[:-1], *shape[b + k :]), x.element_type)]


#: How a scatter combines an update with what is there: "none" overwrites (the last of
#: several updates to one element wins, as in ONNX Runtime), the others reduce.
SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")


class ScatterOp(GraphOp):
    """The shared part of the scatters: a copy of `input` with `updates` written at
    positions `indices` gives (negative indices count from the end), combined by
    `reduction`."""

    input = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    result = result_def(TensorType)
    reduction = opt_prop_def(StringAttr, default_value=StringAttr("none"))
    assembly_format = (
        "$input `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)"
    )

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x, idx, updates = (
            as_tensor(cls.name, n, t) for n, t in zip(("input", "indices", "updates"), operand_types)
        )
        _check_indices(cls.name, idx)
        if updates.element_type != x.element_type:
            raise ShapeError(
                f"{cls.name}: updates have element type {updates.element_type} but the input "
                f"{x.element_type}"
            )
        reduction = get_str(props, "reduction", "none")
        if reduction not in SCATTER_REDUCTIONS:
            raise ShapeError(
                f"{cls.name}: reduction \"{reduction}\" is not one of {', '.join(SCATTER_REDUCTIONS)}"
            )
        if reduction != "none":
            check_elements(cls.name, "input", x, "numeric")
        cls.check_shapes(shape_of(x), shape_of(idx), shape_of(updates), props)
        return [x]

    @classmethod
    def check_shapes(cls, data: Shape, indices: Shape, updates: Shape, props: Props) -> None:
        """Each scatter states how indices and updates fit the input."""


@irdl_op_definition
class ScatterElementsOp(ScatterOp):
    """result = input, then for every position q of indices: result[q with q[axis] replaced
    by indices[q]] = updates[q] (or combined with it by `reduction`). indices and updates
    have one shape, of the input's rank, no larger than it outside `axis`."""

    name = "graph.scatter_elements"
    axis = prop_def(IntegerAttr[I64])

    @classmethod
    def check_shapes(cls, data: Shape, indices: Shape, updates: Shape, props: Props) -> None:
        axis = get_int(props, "axis")
        _check_axis(cls.name, axis, len(data))
        if indices != updates:
            raise ShapeError(
                f"{cls.name}: updates {fmt_shape(updates)} must have the shape of indices "
                f"{fmt_shape(indices)}"
            )
        if len(indices) != len(data):
            raise ShapeError(
                f"{cls.name}: indices {fmt_shape(indices)} have rank {len(indices)}, the input "
                f"{fmt_shape(data)} rank {len(data)}: they must agree"
            )
        _check_within(cls.name, "indices", indices, data, axis)
        if data[axis] == 0 and math.prod(indices):
            raise ShapeError(f"{cls.name}: dim {axis} of the input is empty: there is nowhere to scatter")


@irdl_op_definition
class ScatterNDOp(ScatterOp):
    """result = input, then for every index tuple q of indices (its last dim, k entries):
    result[*indices[q], r] = updates[q, r] for r over input.shape[k:] (or combined by
    `reduction`). updates has shape indices.shape[:-1] + input.shape[k:]."""

    name = "graph.scatter_nd"

    @classmethod
    def check_shapes(cls, data: Shape, indices: Shape, updates: Shape, props: Props) -> None:
        if not indices or not 1 <= indices[-1] <= len(data):
            raise ShapeError(
                f"{cls.name}: index tuples (the last dim of indices {fmt_shape(indices)}) need 1 "
                f"to {len(data)} entries (the input's rank)"
            )
        expected = (*indices[:-1], *data[indices[-1] :])
        if updates != expected:
            raise ShapeError(
                f"{cls.name}: updates must have shape {fmt_shape(expected)} (indices.shape[:-1] + "
                f"input.shape[{indices[-1]}:]), got {fmt_shape(updates)}"
            )


class CumulativeOp(GraphOp):
    """A running sum or product along `axis` (normalized): result[..., i, ...] combines
    x[..., j, ...] for j <= i, or for j < i with `exclusive` (the first is then 0 or 1), and
    for j >= i (j > i) with `reverse`."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    exclusive = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    reverse = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    assembly_format = _UNARY_FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        _check_axis(cls.name, get_int(props, "axis"), len(shape_of(x)))
        for flag in ("exclusive", "reverse"):
            if get_int(props, flag, 0) not in (0, 1):
                raise ShapeError(f"{cls.name}: {flag} must be 0 or 1, got {get_int(props, flag)}")
        check_elements(cls.name, "input", x, "numeric")
        return [x]


@irdl_op_definition
class CumSumOp(CumulativeOp):
    name = "graph.cum_sum"


@irdl_op_definition
class CumProdOp(CumulativeOp):
    name = "graph.cum_prod"


@irdl_op_definition
class ReverseSequenceOp(GraphOp):
    """Reverse the first sequence_lens[b] entries along `time_axis` of every batch entry b
    (along `batch_axis`) and keep the rest: result[.., b, .., t, ..] = input[.., b, ..,
    L - 1 - t, ..] for t < L = sequence_lens[b]. The two axes are 0 and 1."""

    name = "graph.reverse_sequence"
    input = operand_def(TensorType)
    sequence_lens = operand_def(TensorType)
    result = result_def(TensorType)
    batch_axis = prop_def(IntegerAttr[I64])
    time_axis = prop_def(IntegerAttr[I64])
    assembly_format = "$input `,` $sequence_lens attr-dict `:` functional-type(operands, results)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        lens = as_tensor(cls.name, "sequence_lens", operand_types[1])
        shape = shape_of(x)
        batch, time = get_int(props, "batch_axis"), get_int(props, "time_axis")
        if len(shape) < 2:
            raise ShapeError(f"{cls.name}: input must have rank >= 2, got {fmt_shape(shape)}")
        if {batch, time} != {0, 1}:
            raise ShapeError(
                f"{cls.name}: batch_axis {batch} and time_axis {time} must be 0 and 1, one each"
            )
        element = lens.element_type
        if not isinstance(element, IntegerType) or element.width.data not in (32, 64):
            raise ShapeError(f"{cls.name}: sequence_lens must be i32 or i64, got {element}")
        if shape_of(lens) != (shape[batch],):
            raise ShapeError(
                f"{cls.name}: sequence_lens must have shape {shape[batch]} (dim {batch} of the "
                f"input, batch_axis), got {fmt_shape(shape_of(lens))}"
            )
        return [x]


@irdl_op_definition
class PadOp(GraphOp):
    """Pad with `pads` (begins then ends, non-negative) in constant, reflect, edge or wrap
    mode (wrap: the dim repeats periodically, numpy.pad's "wrap")."""

    name = "graph.pad"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    pads = prop_def(DenseArrayBase)
    mode = opt_prop_def(StringAttr, default_value=StringAttr("constant"))
    value = opt_prop_def(FloatAttr, default_value=FloatAttr(0.0, f32))
    assembly_format = _UNARY_FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        shape, pads = shape_of(x), get_ints(props, "pads")
        mode = get_str(props, "mode", "constant")
        if mode not in ("constant", "reflect", "edge", "wrap"):
            raise ShapeError(f"graph.pad: mode \"{mode}\" is not one of constant, reflect, edge, wrap")
        if len(pads) != 2 * len(shape) or any(p < 0 for p in pads):
            raise ShapeError(f"graph.pad: pads needs {2 * len(shape)} non-negative entries, got {list(pads)}")
        rank = len(shape)
        if mode == "reflect" and any(
            shape[d] and max(pads[d], pads[rank + d]) >= shape[d] for d in range(rank)
        ):
            raise ShapeError("graph.pad: reflect padding must be smaller than the padded dimension")
        if mode == "wrap" and any(not shape[d] and pads[d] + pads[rank + d] for d in range(rank)):
            raise ShapeError("graph.pad: wrap padding cannot pad an empty dimension")
        get_float(props, "value", 0.0)
        return [tensor_type([shape[d] + pads[d] + pads[rank + d] for d in range(rank)], x.element_type)]


@irdl_op_definition
class TileOp(GraphOp):
    """Repeat the tensor `repeats[i]` times along dim i."""

    name = "graph.tile"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    repeats = prop_def(DenseArrayBase)
    assembly_format = _UNARY_FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        shape, repeats = shape_of(x), get_ints(props, "repeats")
        if len(repeats) != len(shape) or any(r < 0 for r in repeats):
            raise ShapeError(f"graph.tile: repeats needs {len(shape)} non-negative entries, got {list(repeats)}")
        return [tensor_type([s * r for s, r in zip(shape, repeats)], x.element_type)]


class ReduceOp(GraphOp):
    """Reduce over `axes` (sorted, non-negative, non-empty); `keepdims` keeps them as size 1.

    Over axes of size 0 (an empty set) each reduction gives its value for no elements:
    sum 0, prod 1, max -inf, min +inf, log_sum and log_sum_exp -inf, mean 0/0."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axes = prop_def(DenseArrayBase)
    keepdims = opt_prop_def(IntegerAttr[I64], default_value=int_attr(1))
    assembly_format = _UNARY_FORMAT

    #: The element types the reduction is defined on: "any", "numeric" (no i1) or "float".
    ELEMENTS: ClassVar[str] = "any"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        shape, axes = shape_of(x), get_ints(props, "axes")
        _check_axes(cls.name, axes, len(shape))
        if not axes or list(axes) != sorted(axes):
            raise ShapeError(f"{cls.name}: axes {list(axes)} must be non-empty and sorted")
        check_elements(cls.name, "input", x, cls.ELEMENTS)
        if get_int(props, "keepdims", 1):
            out = [1 if d in axes else s for d, s in enumerate(shape)]
        else:
            out = [s for d, s in enumerate(shape) if d not in axes]
        return [tensor_type(out, x.element_type)]


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "graph.reduce_sum"


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "graph.reduce_mean"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "graph.reduce_max"


@irdl_op_definition
class ReduceMinOp(ReduceOp):
    name = "graph.reduce_min"


@irdl_op_definition
class ReduceProdOp(ReduceOp):
    name = "graph.reduce_prod"
    ELEMENTS: ClassVar[str] = "numeric"


@irdl_op_definition
class ReduceL1Op(ReduceOp):
    """sum(|x|)."""

    name = "graph.reduce_l1"
    ELEMENTS: ClassVar[str] = "numeric"


@irdl_op_definition
class ReduceL2Op(ReduceOp):
    """sqrt(sum(x * x))."""

    name = "graph.reduce_l2"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class ReduceSumSquareOp(ReduceOp):
    """sum(x * x)."""

    name = "graph.reduce_sum_square"
    ELEMENTS: ClassVar[str] = "numeric"


@irdl_op_definition
class ReduceLogSumOp(ReduceOp):
    """log(sum(x))."""

    name = "graph.reduce_log_sum"
    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class ReduceLogSumExpOp(ReduceOp):
    """log(sum(exp(x))), computed as ONNX Runtime does, stably: with m = max(x) (0 where it
    is infinite), m + log(sum(exp(x - m)))."""

    name = "graph.reduce_log_sum_exp"
    ELEMENTS: ClassVar[str] = "float"


class ArgReduceOp(GraphOp):
    """The index (i64) of the extreme element along `axis` (normalized; the dim must not be
    empty): the first such index, or the last with `select_last_index`; `keepdims` keeps
    `axis` as size 1. Float NaNs behave as in ONNX Runtime's scan: a NaN at index 0 gives
    index 0, NaNs elsewhere are never chosen."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    keepdims = opt_prop_def(IntegerAttr[I64], default_value=int_attr(1))
    select_last_index = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    assembly_format = _UNARY_FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        shape, axis = shape_of(x), get_int(props, "axis")
        _check_axis(cls.name, axis, len(shape))
        if shape[axis] == 0:
            raise ShapeError(
                f"{cls.name}: axis {axis} of {fmt_shape(shape)} is empty: there is no index to return"
            )
        check_elements(cls.name, "input", x, "numeric")
        if get_int(props, "keepdims", 1):
            out = [1 if d == axis else s for d, s in enumerate(shape)]
        else:
            out = [s for d, s in enumerate(shape) if d != axis]
        return [tensor_type(out, i64)]


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    name = "graph.arg_max"


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    name = "graph.arg_min"


TENSOR_OPS = [
    ReshapeOp, ExpandOp, RangeOp, SizesOp, FlatNonzeroOp, IotaOp, ReshapeToSizesOp, CheckOp, ArgSortOp, InvertPermutationOp, ResizeOp, TransposeOp, ConcatOp, SplitOp, SliceOp, GatherOp, PadOp,
    TileOp, ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp, ReduceL1Op,
    ReduceL2Op, ReduceSumSquareOp, ReduceLogSumOp, ReduceLogSumExpOp, ArgMaxOp, ArgMinOp,
    GatherElementsOp, GatherNDOp, ScatterElementsOp, ScatterNDOp, CumSumOp, CumProdOp,
    ReverseSequenceOp,
]  # fmt: skip

