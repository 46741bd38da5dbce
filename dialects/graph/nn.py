"""Neural-network graph ops: contractions (matmul, gemm, conv), normalizations, pooling.

    %y = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>}
           : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>)
           -> tensor<1x64x112x112xf32>

Spatial ops take 1-3 spatial dimensions (NC + spatial layout). Pads are explicit, begins
then ends, as ONNX writes them; the frontend has already resolved `auto_pad`. These ops are
the anchors of fused kernels later in the pipeline. Matmuls and convs take float operands,
or integer ones whose products accumulate in i32 (ONNX's MatMulInteger and ConvInteger):

    %y = graph.matmul %a, %b : (tensor<1x768xui8>, tensor<768x3072xi8>) -> tensor<1x3072xi32>

Two ops serve the blocked NCHW[x]c layout that `graph-conv-layout` introduces (TVM's x86
conv2d layout): `graph.layout_transform` converts between "NCHW" and "NCHW{b}c" (a rank-5
[N, C/b, H, W, b] tensor, channel c at [c // b, ..., c % b]), and `graph.conv_nchwc` is a
2-D convolution on blocked input, weight and result:

    %xb = graph.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"}
            : tensor<1x64x56x56xf32> -> tensor<1x4x56x56x16xf32>
    %yb = graph.conv_nchwc %xb, %wb, %b {pads = array<i64: 1, 1, 1, 1>}
            : (tensor<1x4x56x56x16xf32>, tensor<4x4x3x3x16x16xf32>, tensor<64xf32>)
            -> tensor<1x4x56x56x16xf32>
"""

from __future__ import annotations

import re
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
    i32,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)

from minitvm.dialects.graph.base import (
    GraphOp,
    Props,
    Shape,
    ShapeError,
    as_tensor,
    broadcast_shapes,
    broadcasts_to,
    check_elements,
    fmt_shape,
    get_int,
    get_ints,
    get_str,
    int_attr,
    is_float,
    shape_of,
    surely_below,
    tensor_type,
)

_FORMAT = "operands attr-dict `:` functional-type(operands, results)"


def _float_tensors(op_name: str, names: Sequence[str], types: Sequence[Attribute]) -> list[TensorType]:
    tensors = [as_tensor(op_name, n, t) for n, t in zip(names, types)]
    for name, tensor in zip(names, tensors):
        if not is_float(tensor.element_type):
            raise ShapeError(f"{op_name}: {name} must be a float tensor, got {tensor}")
        if tensor.element_type != tensors[0].element_type:
            raise ShapeError(
                f"{op_name}: {name} has element type {tensor.element_type} but "
                f"{names[0]} has {tensors[0].element_type}"
            )
    return tensors


#: The accumulator (and result) element type of an integer contraction.
ACCUMULATOR = i32


def is_integer_contraction(element_type: Attribute) -> bool:
    """Whether a matmul's or conv's result of this element type is an integer one (i32
    accumulated from integer operands)."""
    return element_type == ACCUMULATOR


def _accumulates(type_: Attribute) -> bool:
    """An integer element type an integer contraction takes: at most 32 bits, not i1."""
    return isinstance(type_, IntegerType) and 1 < type_.width.data <= 32


def _contraction_tensors(
    op_name: str, names: Sequence[str], types: Sequence[Attribute]
) -> tuple[list[TensorType], Attribute]:
    """The operands of a matmul or conv, and its result element type: float operands of one
    type (the result's), or integer operands of at most 32 bits, each of its own width and
    signedness, whose products and sums are i32's (MatMulInteger, ConvInteger: every operand
    extended to i32, the zero-extension for an unsigned one). An integer conv's bias, the
    third operand, is i32."""
    tensors = [as_tensor(op_name, n, t) for n, t in zip(names, types)]
    if is_float(tensors[0].element_type):
        return _float_tensors(op_name, names, types), tensors[0].element_type
    if not _accumulates(tensors[0].element_type):
        raise ShapeError(
            f"{op_name}: {names[0]} must be a float tensor, or an integer tensor of at most 32 "
            f"bits (accumulated in {ACCUMULATOR}), got {tensors[0]}"
        )
    for n, (name, tensor) in enumerate(zip(names, tensors)):
        element = tensor.element_type
        if n == 2 and element != ACCUMULATOR:
            raise ShapeError(
                f"{op_name}: {name} of an integer contraction must be {ACCUMULATOR} (its "
                f"accumulator type), got {tensor}"
            )
        if not _accumulates(element):
            raise ShapeError(
                f"{op_name}: {name} must be an integer tensor of at most 32 bits as "
                f"{names[0]} is (an integer contraction accumulates in {ACCUMULATOR}), got {tensor}"
            )
    return tensors, ACCUMULATOR


@dataclass(frozen=True)
class Window:
    """The sliding window of a conv or pool over the spatial dims: per spatial dim its
    kernel extent, stride and dilation; `pads` holds the begins, then the ends."""

    kernel: Shape
    strides: Shape
    pads: Shape
    dilations: Shape

    @property
    def pad_begins(self) -> Shape:
        return self.pads[: len(self.kernel)]

    @property
    def pad_ends(self) -> Shape:
        return self.pads[len(self.kernel) :]


def _window_props(props: Props, spatial: int) -> tuple[Shape, Shape, Shape]:
    """strides, pads, dilations, absent ones at their defaults (1, 0, 1)."""
    return (
        get_ints(props, "strides", [1] * spatial),
        get_ints(props, "pads", [0] * (2 * spatial)),
        get_ints(props, "dilations", [1] * spatial),
    )


def _window(props: Props, kernel: Shape) -> Window:
    return Window(tuple(kernel), *_window_props(props, len(kernel)))


def _spatial_props(op_name: str, props: Props, spatial: int, *, kernel: Shape | None = None):
    """Read strides, pads, dilations (defaults 1, 0, 1) and check their lengths."""
    strides, pads, dilations = _window_props(props, spatial)
    for name, values, want in (
        ("strides", strides, spatial),
        ("pads", pads, 2 * spatial),
        ("dilations", dilations, spatial),
    ):
        if len(values) != want:
            raise ShapeError(
                f"{op_name}: {name} has {len(values)} entries but the input has {spatial} "
                f"spatial dimensions (expected {want})"
            )
    if any(s < 1 for s in strides) or any(d < 1 for d in dilations) or any(p < 0 for p in pads):
        raise ShapeError(f"{op_name}: strides and dilations must be >= 1 and pads >= 0")
    return strides, pads, dilations


def window_output_size(
    size: int, kernel: int, stride: int, pad_begin: int, pad_end: int, dilation: int,
    ceil_mode: bool = False,
) -> int:
    """Output length of a sliding window, ONNX's rule (ceil mode drops a window that would
    start in the end padding, as ONNX Runtime and PyTorch do)."""
    span = (kernel - 1) * dilation + 1
    room = size + pad_begin + pad_end - span
    if ceil_mode:
        out = -(-room // stride) + 1
        if (out - 1) * stride >= size + pad_begin:
            out -= 1
        return out
    return room // stride + 1


# --------------------------------------------------------------------------------------------
# Contractions
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class MatMulOp(GraphOp):
    """numpy.matmul: batch dimensions broadcast; a 1-D operand is a vector."""

    name = "graph.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        (a, b), element = _contraction_tensors(cls.name, ("lhs", "rhs"), operand_types)
        sa, sb = shape_of(a), shape_of(b)
        if not sa or not sb:
            raise ShapeError("graph.matmul: operands must have rank >= 1")
        a2 = (1, *sa) if len(sa) == 1 else sa
        b2 = (*sb, 1) if len(sb) == 1 else sb
        if a2[-1] != b2[-2]:
            raise ShapeError(
                f"graph.matmul: lhs {fmt_shape(sa)} has {a2[-1]} columns but rhs "
                f"{fmt_shape(sb)} has {b2[-2]} rows"
            )
        batch = broadcast_shapes(cls.name, a2[:-2], b2[:-2])
        out = (*batch, *((a2[-2],) if len(sa) > 1 else ()), *((b2[-1],) if len(sb) > 1 else ()))
        return [tensor_type(out, element)]


@irdl_op_definition
class GemmOp(GraphOp):
    """alpha * op(A) @ op(B) + beta * C, op = optional transpose; C broadcasts to M x N."""

    name = "graph.gemm"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))
    beta = opt_prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))
    trans_a = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    trans_b = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        names = ("lhs", "rhs", "bias")[: len(operand_types)]
        a, b, *c = _float_tensors(cls.name, names, operand_types)
        sa, sb = shape_of(a), shape_of(b)
        if len(sa) != 2 or len(sb) != 2:
            raise ShapeError(f"graph.gemm: operands must be matrices, got {fmt_shape(sa)} and {fmt_shape(sb)}")
        m, k = sa[::-1] if get_int(props, "trans_a", 0) else sa
        k2, n = sb[::-1] if get_int(props, "trans_b", 0) else sb
        if k != k2:
            raise ShapeError(f"graph.gemm: op(A) is {m}x{k} but op(B) is {k2}x{n}")
        if c and not broadcasts_to(shape_of(c[0]), (m, n)):
            raise ShapeError(f"graph.gemm: bias {fmt_shape(shape_of(c[0]))} does not broadcast to {m}x{n}")
        return [tensor_type((m, n), a.element_type)]


@irdl_op_definition
class MatMulPackedOp(GraphOp):
    """graph.matmul with its rhs packed in column panels: lhs [..., M, K], rhs [N/nb, K, nb];
    result [..., M, N]. It is graph.matmul(lhs, B) with B[k, n] = rhs[n // nb, k, n % nb]:
    each panel of nb columns lies row after row in one contiguous block, so a GEMM kernel
    reading a register block's columns along k streams through memory instead of striding
    by N (which on a 4 KiB row maps every row of B to the same L1 set). `graph-pack-weights`
    makes it from constant weights (TVM's x86 `dense_pack`).

    A batch of right-hand sides, rhs [..., N/nb, K, nb], packs each matrix so; its batch
    dims broadcast with lhs's as graph.matmul's do (Winograd's 16 GEMMs).

    `columns` (default: all, panels x nb) is N where the last panel is partly zero padding
    (GPT-2's head: N = 50257 in 3142 panels of 16): the product has only those columns, so
    no slice has to copy it afterwards; the GEMM kernel's last column block is shorter."""

    name = "graph.matmul_packed"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    columns = opt_prop_def(IntegerAttr[I64])
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        (a, b), element = _contraction_tensors(cls.name, ("lhs", "rhs"), operand_types)
        sa, sb = shape_of(a), shape_of(b)
        if len(sa) < 2 or len(sb) < 3:
            raise ShapeError(
                f"{cls.name}: lhs must have rank >= 2 and rhs rank >= 3 ([..., N/nb, K, nb]), "
                f"got {fmt_shape(sa)} and {fmt_shape(sb)}"
            )
        if sa[-1] != sb[-2]:
            raise ShapeError(
                f"{cls.name}: lhs {fmt_shape(sa)} has {sa[-1]} columns but the packed rhs "
                f"{fmt_shape(sb)} has {sb[-2]} rows"
            )
        batch = broadcast_shapes(cls.name, sa[:-2], sb[:-3])
        panels, nb = sb[-3], sb[-1]
        columns = get_int(props, "columns", panels * nb)
        if not (panels - 1) * nb < columns <= panels * nb:
            raise ShapeError(
                f"{cls.name}: columns = {columns} must lie in the last of the packed rhs's "
                f"{panels} panels of {nb} ({(panels - 1) * nb + 1} to {panels * nb})"
            )
        return [tensor_type((*batch, sa[-2], columns), element)]


def _conv_operands(
    op_name: str, operand_types: Sequence[Attribute], rank_hint: str = "",
    *, ranks: tuple[int, int] | None = None, integer: bool = False,
):
    """The result element type, input and weight shapes and optional bias of a
    convolution-like op: with matching ranks 3 to 5, or exactly `ranks` (input rank, weight
    rank) when given; float operands, or with `integer` also integer ones (see
    `_contraction_tensors`)."""
    names = ("input", "weight", "bias")[: len(operand_types)]
    if integer:
        (x, w, *b), element = _contraction_tensors(op_name, names, operand_types)
    else:
        x, w, *b = _float_tensors(op_name, names, operand_types)
        element = x.element_type
    sx, sw = shape_of(x), shape_of(w)
    if ranks is None and (not 1 <= len(sx) - 2 <= 3 or len(sw) != len(sx)):
        raise ShapeError(
            f"{op_name}: input {fmt_shape(sx)} and weight {fmt_shape(sw)} must both have "
            f"rank 3 to 5{rank_hint}"
        )
    if ranks is not None and (len(sx), len(sw)) != ranks:
        raise ShapeError(
            f"{op_name}: input {fmt_shape(sx)} and weight {fmt_shape(sw)} must have ranks "
            f"{ranks[0]} and {ranks[1]}{rank_hint}"
        )
    return element, sx, sw, (b[0] if b else None)


def _conv_output_sizes(op_name: str, props: Props, sizes: Shape, kernel: Shape) -> list[int]:
    """The spatial result sizes of a convolution of `sizes` by `kernel` under the op's
    strides, pads and dilations."""
    spatial = len(sizes)
    strides, pads, dilations = _spatial_props(op_name, props, spatial)
    out = []
    for i in range(spatial):
        size = window_output_size(sizes[i], kernel[i], strides[i], pads[i], pads[spatial + i], dilations[i])
        if surely_below(size, 1):
            raise ShapeError(f"{op_name}: kernel {fmt_shape(kernel)} is larger than the padded input {fmt_shape(sizes)}")
        out.append(size)
    return out


def _check_bias(op_name: str, bias: TensorType | None, channels: int) -> None:
    if bias is not None and shape_of(bias) != (channels,):
        raise ShapeError(f"{op_name}: bias must have shape {channels}, got {fmt_shape(shape_of(bias))}")


class _Convolution:
    """`window` and `groups` of the convolution ops, whose weight's dims from 2 on (up to
    `_KERNEL_END`) are the kernel's."""

    _KERNEL_END: ClassVar[int | None] = None

    @property
    def window(self: ConvOp | ConvTransposeOp | ConvNchwcOp) -> Window:
        """Kernel (the weight's spatial dims), strides, pads and dilations."""
        weight = self.weight.type
        assert isinstance(weight, TensorType)
        return _window(self.properties, shape_of(weight)[2 : self._KERNEL_END])

    @property
    def groups(self: ConvOp | ConvTransposeOp | ConvNchwcOp) -> int:
        """The `group` property as an int (1 when absent)."""
        return get_int(self.properties, "group", 1)


@irdl_op_definition
class ConvOp(_Convolution, GraphOp):
    """N-D convolution, NC + spatial layout; weight is (C_out, C_in / group, kernel...)."""

    name = "graph.conv"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    group = opt_prop_def(IntegerAttr[I64], default_value=int_attr(1))
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        element, sx, sw, bias = _conv_operands(
            cls.name, operand_types, " (N, C, 1-3 spatial dims)", integer=True
        )
        group = get_int(props, "group", 1)
        if group < 1 or sx[1] % group or sw[0] % group:
            raise ShapeError(f"graph.conv: group {group} must divide input channels {sx[1]} and output channels {sw[0]}")
        if sx[1] != sw[1] * group:
            raise ShapeError(
                f"graph.conv: input has {sx[1]} channels but weight expects {sw[1] * group} "
                f"({sw[1]} per group x {group} groups)"
            )
        _check_bias(cls.name, bias, sw[0])
        out = _conv_output_sizes(cls.name, props, sx[2:], sw[2:])
        return [tensor_type((sx[0], sw[0], *out), element)]


@irdl_op_definition
class ConvTransposeOp(_Convolution, GraphOp):
    """Transposed convolution; weight is (C_in, C_out / group, kernel...)."""

    name = "graph.conv_transpose"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    output_padding = opt_prop_def(DenseArrayBase)
    group = opt_prop_def(IntegerAttr[I64], default_value=int_attr(1))
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        element, sx, sw, bias = _conv_operands(cls.name, operand_types)
        spatial = len(sx) - 2
        group = get_int(props, "group", 1)
        if sx[1] != sw[0] or group < 1 or sw[0] % group:
            raise ShapeError(f"graph.conv_transpose: input has {sx[1]} channels but weight expects {sw[0]} (group {group})")
        c_out = sw[1] * group
        _check_bias(cls.name, bias, c_out)
        strides, pads, dilations = _spatial_props(cls.name, props, spatial)
        output_padding = get_ints(props, "output_padding", [0] * spatial)
        if len(output_padding) != spatial:
            raise ShapeError(f"graph.conv_transpose: output_padding needs {spatial} entries")
        out = []
        for i in range(spatial):
            size = (
                strides[i] * (sx[2 + i] - 1) + output_padding[i] + (sw[2 + i] - 1) * dilations[i] + 1
                - pads[i] - pads[spatial + i]
            )
            if surely_below(size, 1):
                raise ShapeError("graph.conv_transpose: pads leave an empty output")
            out.append(size)
        return [tensor_type((sx[0], c_out, *out), element)]


# --------------------------------------------------------------------------------------------
# The blocked NCHW[x]c layout
# --------------------------------------------------------------------------------------------

_BLOCKED_LAYOUT = re.compile(r"NCHW([1-9][0-9]*)c")


def parse_layout(layout: str) -> int | None:
    """The channel block of a layout name: None for "NCHW", b for "NCHW{b}c" (b >= 1)."""
    if layout == "NCHW":
        return None
    match = _BLOCKED_LAYOUT.fullmatch(layout)
    if match is None:
        raise ShapeError(f'layout "{layout}" is neither "NCHW" nor "NCHW<b>c" with a block b >= 1')
    return int(match.group(1))


def blocked_layout(block: int) -> str:
    """The name of the layout with channel blocks of `block`: "NCHW{block}c"."""
    if block < 1:
        raise ValueError(f"a channel block must be >= 1, got {block}")
    return f"NCHW{block}c"


def _layout_channels(op_name: str, shape: Shape, layout: str, block: int | None) -> int:
    """The channel count of a tensor of `shape` in `layout`, checking that it is in it."""
    if block is None and len(shape) == 4:
        return shape[1]
    if block is not None and len(shape) == 5 and shape[4] == block:
        return shape[1] * block
    want = "rank 4" if block is None else f"rank 5 with an inner block of {block}"
    raise ShapeError(f"{op_name}: input {fmt_shape(shape)} is not in layout {layout} (expected {want})")


@irdl_op_definition
class LayoutTransformOp(GraphOp):
    """Re-lay out an NCHW-family tensor: NCHW <-> NCHW{b}c, or NCHW{a}c -> NCHW{b}c."""

    name = "graph.layout_transform"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    src_layout = prop_def(StringAttr)
    dst_layout = prop_def(StringAttr)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        sx = shape_of(x)
        src, dst = get_str(props, "src_layout"), get_str(props, "dst_layout")
        try:
            src_block, dst_block = parse_layout(src), parse_layout(dst)
        except ShapeError as error:
            raise ShapeError(f"{cls.name}: {error}") from None
        if src == dst:
            raise ShapeError(f'{cls.name}: src_layout and dst_layout are both "{src}" (nothing to transform)')
        channels = _layout_channels(cls.name, sx, src, src_block)
        n, h, w = sx[0], sx[2], sx[3]
        if dst_block is None:
            return [tensor_type((n, channels, h, w), x.element_type)]
        if channels % dst_block:
            raise ShapeError(
                f"{cls.name}: input {fmt_shape(sx)} in {src} has {channels} channels, which "
                f"{dst} cannot block ({dst_block} does not divide {channels})"
            )
        return [tensor_type((n, channels // dst_block, h, w, dst_block), x.element_type)]


@irdl_op_definition
class ConvNchwcOp(_Convolution, GraphOp):
    """2-D convolution in the blocked layout: input [N, C/cb, H, W, cb], weight [M/mb, C/cb,
    KH, KW, cb, mb], optional bias [M]; result [N, M/mb, OH, OW, mb]. It is graph.conv on the
    unblocked tensors, weight W[m, c, kh, kw] = w[m // mb, c // cb, kh, kw, c % cb, m % mb];
    strides, pads (h_begin, w_begin, h_end, w_end) and dilations as there.

    `group` is 1, or C for a depthwise conv (MobileNet's): output channel m reads input
    channel m alone, so M = C, mb = cb and the weight is [M/mb, 1, KH, KW, 1, mb]."""

    name = "graph.conv_nchwc"
    _KERNEL_END: ClassVar[int | None] = 4  # weight [M/mb, C/cb, KH, KW, cb, mb]
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    group = opt_prop_def(IntegerAttr[I64], default_value=int_attr(1))
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        element, sx, sw, bias = _conv_operands(
            cls.name, operand_types,
            " ([N, C/cb, H, W, cb] and [M/mb, C/cb, KH, KW, cb, mb])", ranks=(5, 6), integer=True,
        )  # fmt: skip
        group = get_int(props, "group", 1)
        channels = sx[1] * sx[4]
        if group != 1:
            depthwise = (sw[0] * sw[5], sw[1], sw[4], sw[5]) == (channels, 1, 1, sx[4])
            if group != channels or not depthwise:
                raise ShapeError(
                    f"{cls.name}: group {group} must be 1 or, for a depthwise conv, the "
                    f"{channels} input channels, with weight [C/b, 1, KH, KW, 1, b] for input "
                    f"block b = {sx[4]} (got weight {fmt_shape(sw)})"
                )
        elif (sw[1], sw[4]) != (sx[1], sx[4]):
            same = sw[1] * sw[4] == sx[1] * sx[4]
            raise ShapeError(
                f"{cls.name}: input has C/cb x cb = {sx[1]} x {sx[4]} = {sx[1] * sx[4]} channels "
                f"but weight expects {sw[1]} x {sw[4]} = {sw[1] * sw[4]}"
                + (" (the same channels, blocked differently)" if same else "")
            )
        _check_bias(cls.name, bias, sw[0] * sw[5])
        out = _conv_output_sizes(cls.name, props, sx[2:4], sw[2:4])
        return [tensor_type((sx[0], sw[0], *out, sw[5]), element)]


# --------------------------------------------------------------------------------------------
# Normalization and softmax
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class BatchNormOp(GraphOp):
    """Inference batch normalization over axis 1: (x - mean) / sqrt(var + eps) * scale + bias."""

    name = "graph.batch_norm"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    bias = operand_def(TensorType)
    mean = operand_def(TensorType)
    variance = operand_def(TensorType)
    result = result_def(TensorType)
    epsilon = opt_prop_def(FloatAttr, default_value=FloatAttr(1e-5, f32))
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        names = ("input", "scale", "bias", "mean", "variance")
        x, *params = _float_tensors(cls.name, names, operand_types)
        sx = shape_of(x)
        if len(sx) < 2:
            raise ShapeError(f"graph.batch_norm: input must have rank >= 2, got {fmt_shape(sx)}")
        for name, p in zip(names[1:], params):
            if shape_of(p) != (sx[1],):
                raise ShapeError(
                    f"graph.batch_norm: {name} has shape {fmt_shape(shape_of(p))} but the input "
                    f"has {sx[1]} channels"
                )
        return [x]


@irdl_op_definition
class LayerNormOp(GraphOp):
    """Normalize over dims [axis, rank); results: y, mean and 1/stddev (kept dims of size 1)."""

    name = "graph.layer_norm"
    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    mean = result_def(TensorType)
    inv_std_dev = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    epsilon = opt_prop_def(FloatAttr, default_value=FloatAttr(1e-5, f32))
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        names = ("input", "scale", "bias")[: len(operand_types)]
        x, *params = _float_tensors(cls.name, names, operand_types)
        sx = shape_of(x)
        axis = get_int(props, "axis")
        if not 0 <= axis < len(sx):
            raise ShapeError(f"graph.layer_norm: axis {axis} must be in [0, {len(sx)}) (normalized)")
        for name, p in zip(names[1:], params):
            if broadcast_shapes(cls.name, sx[axis:], shape_of(p)) != sx[axis:]:
                raise ShapeError(
                    f"graph.layer_norm: {name} {fmt_shape(shape_of(p))} does not broadcast to the "
                    f"normalized dims {fmt_shape(sx[axis:])}"
                )
        stats = tensor_type((*sx[:axis], *[1] * (len(sx) - axis)), x.element_type)
        return [x, stats, stats]


@irdl_op_definition
class LRNOp(GraphOp):
    """Local response normalization across channels (AlexNet, GoogLeNet)."""

    name = "graph.lrn"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    size = prop_def(IntegerAttr[I64])
    alpha = opt_prop_def(FloatAttr, default_value=FloatAttr(1e-4, f32))
    beta = opt_prop_def(FloatAttr, default_value=FloatAttr(0.75, f32))
    bias = opt_prop_def(FloatAttr, default_value=FloatAttr(1.0, f32))
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        (x,) = _float_tensors(cls.name, ("input",), operand_types)
        if len(shape_of(x)) < 3:
            raise ShapeError(f"graph.lrn: input must have rank >= 3 (N, C, spatial...), got {x}")
        if get_int(props, "size") < 1:
            raise ShapeError("graph.lrn: size must be >= 1")
        return [x]


class AxisOp(GraphOp):
    """An op along one (normalized, non-negative) axis, result type = operand type."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        (x,) = _float_tensors(cls.name, ("input",), operand_types)
        axis = get_int(props, "axis")
        if not 0 <= axis < max(len(shape_of(x)), 1):
            raise ShapeError(f"{cls.name}: axis {axis} must be in [0, {len(shape_of(x))}) (normalized)")
        return [x]


@irdl_op_definition
class SoftmaxOp(AxisOp):
    name = "graph.softmax"


@irdl_op_definition
class LogSoftmaxOp(AxisOp):
    name = "graph.log_softmax"


# --------------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------------


def _pool_kernel(op_name: str, shape: Sequence[int], props: Props) -> tuple[int, Shape]:
    """The spatial rank of an N, C, spatial... input and its checked `kernel_shape`."""
    spatial = len(shape) - 2
    kernel = get_ints(props, "kernel_shape")
    if not 1 <= spatial <= 3 or len(kernel) != spatial:
        raise ShapeError(
            f"{op_name}: kernel_shape {fmt_shape(kernel)} does not match input {fmt_shape(shape)} "
            "(N, C, 1-3 spatial dims)"
        )
    return spatial, kernel


class PoolOp(GraphOp):
    """A sliding-window reduction over the spatial dims of an NC + spatial tensor."""

    #: Whether the op takes integer inputs too (max pooling does; averages are floats').
    TAKES_INTEGERS: ClassVar[bool] = False

    input = operand_def(TensorType)
    result = result_def(TensorType)
    kernel_shape = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    ceil_mode = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @property
    def window(self) -> Window:
        """kernel_shape, strides, pads and dilations."""
        return _window(self.properties, get_ints(self.properties, "kernel_shape"))

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        if cls.TAKES_INTEGERS:
            x = as_tensor(cls.name, "input", operand_types[0])
            check_elements(cls.name, "input", x, "numeric")
        else:
            (x,) = _float_tensors(cls.name, ("input",), operand_types)
        sx = shape_of(x)
        spatial, kernel = _pool_kernel(cls.name, sx, props)
        strides, pads, dilations = _spatial_props(cls.name, props, spatial)
        ceil_mode = bool(get_int(props, "ceil_mode", 0))
        out = []
        for i in range(spatial):
            if pads[i] >= kernel[i] or pads[spatial + i] >= kernel[i]:
                raise ShapeError(f"{cls.name}: pads must be smaller than the kernel ({fmt_shape(kernel)})")
            size = window_output_size(
                sx[2 + i], kernel[i], strides[i], pads[i], pads[spatial + i], dilations[i], ceil_mode
            )
            if surely_below(size, 1):
                raise ShapeError(f"{cls.name}: kernel {fmt_shape(kernel)} is larger than the padded input")
            out.append(size)
        return [tensor_type((*sx[:2], *out), x.element_type)]


@irdl_op_definition
class MaxPoolOp(PoolOp):
    """Max over each window (of float or integer elements)."""

    name = "graph.max_pool"
    TAKES_INTEGERS: ClassVar[bool] = True


@irdl_op_definition
class MaxPoolIndicesOp(PoolOp):
    """Where graph.max_pool finds each window's maximum (ONNX MaxPool's Indices output): the
    flat index into the input of the window's first maximum in row-major scan order, i64.
    The index counts the (n, c) planes before, then the position within the plane in
    row-major order (`storage_order` 0) or column-major order (1):

        (n * C + c) * H * W + h * W + w        or        (n * C + c) * H * W + h + w * H"""

    name = "graph.max_pool_indices"
    TAKES_INTEGERS: ClassVar[bool] = True
    storage_order = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))

    @property
    def column_major(self) -> bool:
        """`storage_order` 1: positions within a plane count down the columns."""
        return bool(get_int(self.properties, "storage_order", 0))

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        (pooled,) = super().infer_result_types(operand_types, props)
        if get_int(props, "storage_order", 0) not in (0, 1):
            raise ShapeError(
                f"{cls.name}: storage_order must be 0 (row-major) or 1 (column-major), got "
                f"{get_int(props, 'storage_order')}"
            )
        return [tensor_type(shape_of(pooled), i64)]


@irdl_op_definition
class MaxUnpoolOp(GraphOp):
    """The partial inverse of max pooling (ONNX MaxUnpool): a zero tensor in which each input
    element is put where its index says. The result's spatial dims are `output` (default:
    the size the pool's window gives, (in - 1) * stride - pad_begin - pad_end + kernel, the
    "inferred" size); `indices` (i64, the input's shape) are flat indices into the tensor of
    the inferred size, planes counted as graph.max_pool_indices counts them (row-major), and
    a larger `output` extends that tensor with zeros past its end in each dim, as the ONNX
    reference does (ONNX Runtime reads the indices in the `output` layout instead).

    Each input element at pooled position q lands where its index points if that lies in
    q's pooling window (kernel, strides, pads), as every index graph.max_pool_indices makes
    does; an index outside the window is dropped. Of several elements with the same index
    the last in row-major order wins."""

    name = "graph.max_unpool"
    input = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    kernel_shape = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    output = opt_prop_def(DenseArrayBase)
    assembly_format = _FORMAT

    @property
    def window(self) -> Window:
        """kernel_shape, strides and pads (dilations 1)."""
        return _window(self.properties, get_ints(self.properties, "kernel_shape"))

    @classmethod
    def unpooled_sizes(cls, props: Props, sizes: Shape) -> list[int]:
        """The inferred spatial sizes: where the windows of a pool of `sizes` outputs reach."""
        kernel = get_ints(props, "kernel_shape")
        strides, pads, _ = _window_props(props, len(kernel))
        return [
            (size - 1) * s - pads[i] - pads[len(kernel) + i] + k
            for i, (size, s, k) in enumerate(zip(sizes, strides, kernel))
        ]

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        x = as_tensor(cls.name, "input", operand_types[0])
        indices = as_tensor(cls.name, "indices", operand_types[1])
        check_elements(cls.name, "input", x, "numeric")
        sx = shape_of(x)
        spatial, _ = _pool_kernel(cls.name, sx, props)
        if indices.element_type != i64 or shape_of(indices) != sx:
            raise ShapeError(
                f"{cls.name}: indices must be an i64 tensor of the input's shape {fmt_shape(sx)}, "
                f"got {indices}"
            )
        _spatial_props(cls.name, props, spatial)
        if get_ints(props, "dilations", [1] * spatial) != (1,) * spatial:
            raise ShapeError(f"{cls.name}: has no dilations")
        inferred = cls.unpooled_sizes(props, sx[2:])
        if any(surely_below(size, 1) for size in inferred):
            raise ShapeError(f"{cls.name}: pads leave an empty result ({fmt_shape(inferred)})")
        output = get_ints(props, "output", inferred)
        if len(output) != spatial or any(o < i for o, i in zip(output, inferred)):
            raise ShapeError(
                f"{cls.name}: output {fmt_shape(output)} must have {spatial} sizes, each at least "
                f"the pool's {fmt_shape(inferred)}"
            )
        return [tensor_type((*sx[:2], *output), x.element_type)]


@irdl_op_definition
class AvgPoolOp(PoolOp):
    """Average pool; `count_include_pad` decides whether padding counts in the divisor."""

    name = "graph.avg_pool"
    count_include_pad = opt_prop_def(IntegerAttr[I64], default_value=int_attr(0))

    @property
    def includes_pad(self) -> bool:
        """`count_include_pad`: whether taps on the pads count in the divisor."""
        return bool(get_int(self.properties, "count_include_pad", 0))


class GlobalPoolOp(GraphOp):
    input = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute], props: Props) -> list[TensorType]:
        (x,) = _float_tensors(cls.name, ("input",), operand_types)
        sx = shape_of(x)
        if len(sx) < 3:
            raise ShapeError(f"{cls.name}: input must have rank >= 3 (N, C, spatial...), got {x}")
        return [tensor_type((*sx[:2], *[1] * (len(sx) - 2)), x.element_type)]


@irdl_op_definition
class GlobalAvgPoolOp(GlobalPoolOp):
    name = "graph.global_avg_pool"


@irdl_op_definition
class GlobalMaxPoolOp(GlobalPoolOp):
    name = "graph.global_max_pool"


NN_OPS = [
    MatMulOp, GemmOp, ConvOp, ConvTransposeOp, BatchNormOp, LayerNormOp, LRNOp,
    SoftmaxOp, LogSoftmaxOp, MaxPoolOp, MaxPoolIndicesOp, MaxUnpoolOp, AvgPoolOp,
    GlobalAvgPoolOp, GlobalMaxPoolOp,
]  # fmt: skip

#: The blocked-layout ops: compute ops with reference semantics (in GRAPH_OPS), but no ONNX
#: counterpart; `graph-conv-layout` and `graph-pack-weights` make them.
LAYOUT_OPS = [LayoutTransformOp, ConvNchwcOp, MatMulPackedOp]
