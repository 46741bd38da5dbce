"""Winograd convolution F(2x2, 3x3): a 3x3 stride-1 conv as transforms around 16 GEMMs.

Each 2 x 2 block of output pixels (a tile) of a 3x3 conv reads a 4 x 4 patch d of the input.
Lavin and Gray's F(2x2, 3x3) computes the tile as A^T [(G g G^T) . (B^T d B)] A, where g is
the 3 x 3 kernel, `.` the elementwise product of two 4 x 4 matrices and A^T, B^T, G the
constant matrices below. Summed over input channels, the elementwise product is, for each of
the 16 positions t of the 4 x 4, a matrix product over channels: 16 GEMMs of (tiles x C) by
(C x K), 16 multiplications per tile and channel pair where the direct conv makes 36 (2.25x
fewer), for the price of the two transforms, which only add:

    %v = graph.winograd_input %x {pads = array<i64: 1, 1>, output = array<i64: 56, 56>, rows = 784}
           : (tensor<1x4x56x56x16xf32>) -> tensor<16x784x64xf32>        (B^T d B per tile)
    %m = graph.matmul %v, %u : (tensor<16x784x64xf32>, tensor<16x64x64xf32>) -> tensor<16x784x64xf32>
    %y = graph.winograd_output %m, %b {output = array<i64: 1, 56, 56>, block = 16}
           : (tensor<16x784x64xf32>, tensor<64xf32>) -> tensor<1x4x56x56x16xf32>  (A^T m A + b)

`%u` = G g G^T for every (input, output) channel pair, computed at compile time
(`transform_weight`). Tile p of image n covers output rows 2 * (p // tw % th) + {0, 1} and
columns 2 * (p % tw) + {0, 1} for the th x tw tiles of each image (p = (n * th + i) * tw + j);
`rows` may exceed the N * th * tw tiles (zero rows, so that the GEMM gets whole register
blocks). The input is in the blocked NCHW{b}c layout and so is the output (`block`). Reads
outside the input are zeros (the conv's padding, and the last tile of an odd size).
`graph-winograd` introduces these ops.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import I64, DenseArrayBase, IntegerAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, prop_def, result_def

from minitvm.dialects.graph.base import (
    Dim,
    GraphOp,
    Props,
    ShapeError,
    SizesAttr,
    fmt_shape,
    get_int,
    get_ints,
    shape_of,
    tensor_type,
)
from minitvm.dialects.graph.nn import _FORMAT, _float_tensors

#: Output pixels per tile side (m) and the kernel's side (r): F(m x m, r x r).
TILE, KERNEL = 2, 3
#: The input patch's side, m + r - 1, and the positions of a transformed tile.
PATCH = TILE + KERNEL - 1
POSITIONS = PATCH * PATCH

#: B^T (PATCH x PATCH): the input transform, V = B^T d B.
INPUT_TRANSFORM = np.array(
    [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], dtype=np.float64
)
#: G (PATCH x KERNEL): the kernel transform, U = G g G^T.
KERNEL_TRANSFORM = np.array(
    [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], dtype=np.float64
)
#: A^T (TILE x PATCH): the output transform, Y = A^T m A.
OUTPUT_TRANSFORM = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], dtype=np.float64)


def tile_grid(height: int, width: int) -> tuple[int, int]:
    """Tiles along each side of an output of `height` x `width` pixels."""
    return -(-height // TILE), -(-width // TILE)


def transform_weight(w: np.ndarray) -> np.ndarray:
    """A 3x3 conv weight [K, C, 3, 3] as the GEMMs' right-hand sides [POSITIONS, C, K]:
    U[t = (xi, nu), c, k] = (G w[k, c] G^T)[xi, nu], computed in float64."""
    g = KERNEL_TRANSFORM
    u = np.einsum("xa,kcab,yb->xykc", g, w.astype(np.float64), g)
    k, c = w.shape[:2]
    return np.ascontiguousarray(u.reshape(POSITIONS, k, c).transpose(0, 2, 1)).astype(w.dtype)


def _pair(op_name: str, props: Props, name: str, length: int) -> tuple[Dim, ...]:
    values = get_ints(props, name)
    if len(values) != length:
        raise ShapeError(f"{op_name}: {name} needs {length} entries, got {list(values)}")
    return values


def _check_rows(op_name: str, rows: Dim, tiles: Dim) -> None:
    """Rows for every tile: more (padding) only where both are numbers, else exactly them
    (a batch known at run time)."""
    fewer = rows < tiles if isinstance(rows, int) and isinstance(tiles, int) else rows != tiles
    if fewer:
        raise ShapeError(f"{op_name}: rows {rows} is not enough for the {tiles} tiles")


def rows_of(props: Props) -> Dim:
    """winograd_input's `rows`: a number, or the tile count of a batch known at run time
    (a one-entry `#graph.sizes`)."""
    attr = props.get("rows")
    if isinstance(attr, SizesAttr):
        (rows,) = attr.values
        return rows
    return get_int(props, "rows")


@irdl_op_definition
class WinogradInputOp(GraphOp):
    """B^T d B of every 4 x 4 input patch d: input [N, C/cb, H, W, cb], result [16, rows, C].
    `pads` are the conv's begin pads (h, w) and `output` its output size (OH, OW), which
    fix the tiles; see the module docstring."""

    name = "graph.winograd_input"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    pads = prop_def(DenseArrayBase)
    output = prop_def(DenseArrayBase)
    rows = prop_def(IntegerAttr[I64] | SizesAttr)
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], props: Props
    ) -> list[TensorType]:
        (x,) = _float_tensors(cls.name, ("input",), operand_types)
        sx = shape_of(x)
        if len(sx) != 5:
            raise ShapeError(
                f"{cls.name}: input {fmt_shape(sx)} must be blocked [N, C/cb, H, W, cb]"
            )
        pads = _pair(cls.name, props, "pads", 2)
        height, width = _pair(cls.name, props, "output", 2)
        if min(pads) < 0 or min(height, width) < 1:
            raise ShapeError(
                f"{cls.name}: pads {list(pads)} and output {height}x{width} must be non-negative and non-empty"
            )
        th, tw = tile_grid(height, width)
        rows = rows_of(props)
        _check_rows(cls.name, rows, sx[0] * th * tw)
        return [tensor_type((POSITIONS, rows, sx[1] * sx[4]), x.element_type)]


@irdl_op_definition
class WinogradOutputOp(GraphOp):
    """A^T m A of every transformed tile m, plus an optional bias [K]: input [16, rows, K],
    result [N, K/block, OH, OW, block] for `output` = (N, OH, OW); see the module docstring."""

    name = "graph.winograd_output"
    input = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    output = prop_def(DenseArrayBase | SizesAttr)
    block = prop_def(IntegerAttr[I64])
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], props: Props
    ) -> list[TensorType]:
        names = ("input", "bias")[: len(operand_types)]
        m, *bias = _float_tensors(cls.name, names, operand_types)
        sm = shape_of(m)
        if len(sm) != 3 or sm[0] != POSITIONS:
            raise ShapeError(f"{cls.name}: input {fmt_shape(sm)} must be [{POSITIONS}, rows, K]")
        n, height, width = _pair(cls.name, props, "output", 3)
        block = get_int(props, "block")
        if n < 1 or min(height, width, block) < 1 or sm[2] % block:
            raise ShapeError(
                f"{cls.name}: output {n}x{height}x{width} must be non-empty and block {block} "
                f"must divide the {sm[2]} channels"
            )
        th, tw = tile_grid(height, width)
        _check_rows(cls.name, sm[1], n * th * tw)
        if bias and shape_of(bias[0]) != (sm[2],):
            raise ShapeError(
                f"{cls.name}: bias must have shape {sm[2]}, got {fmt_shape(shape_of(bias[0]))}"
            )
        return [tensor_type((n, sm[2] // block, height, width, block), m.element_type)]


WINOGRAD_OPS = [WinogradInputOp, WinogradOutputOp]
