"""Winograd convolution F(m x m, 3x3): a 3x3 stride-1 conv as transforms around GEMMs.

Each m x m block of output pixels (a tile) of a 3x3 conv reads an (m + 2) x (m + 2) patch d
of the input. Lavin and Gray's F(m x m, 3x3) computes the tile as A^T [(G g G^T) . (B^T d B)]
A, where g is the 3 x 3 kernel, `.` the elementwise product of two (m + 2) x (m + 2) matrices
and A^T, B^T, G constant matrices (`TRANSFORMS`: m = 2 or 4, the op's `tile`, 2 when left
out). Summed over input channels, the elementwise product is, for each position t of the
patch, a matrix product over channels: (m + 2)^2 GEMMs of (tiles x C) by (C x K). For m = 2
that is 16 multiplications per tile and channel pair where the direct conv makes 36 (2.25x
fewer), for m = 4 36 where it makes 144 (4x fewer), for the price of the two transforms,
which only add and scale. With m = 2:

    %v = graph.winograd_input %x {pads = array<i64: 1, 1>, output = array<i64: 56, 56>, rows = 784}
           : (tensor<1x4x56x56x16xf32>) -> tensor<16x784x64xf32>        (B^T d B per tile)
    %m = graph.matmul %v, %u : (tensor<16x784x64xf32>, tensor<16x64x64xf32>) -> tensor<16x784x64xf32>
    %y = graph.winograd_output %m, %b {output = array<i64: 1, 56, 56>, block = 16}
           : (tensor<16x784x64xf32>, tensor<64xf32>) -> tensor<1x4x56x56x16xf32>  (A^T m A + b)

`%u` = G g G^T for every (input, output) channel pair, computed at compile time
(`transform_weight`). Tile p of image n covers output rows m * (p // tw % th) + {0 .. m-1}
and columns m * (p % tw) + {0 .. m-1} for the th x tw tiles of each image
(p = (n * th + i) * tw + j);
`rows` may exceed the N * th * tw tiles (zero rows, so that the GEMM gets whole register
blocks). The input is in the blocked NCHW{b}c layout and so is the output (`block`). Reads
outside the input are zeros (the conv's padding, and the last tile of an odd size).
`graph-winograd` introduces these ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import I64, DenseArrayBase, IntegerAttr, TensorType, i64
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

#: The kernel's side: F(m x m, 3 x 3) for a tile of m x m output pixels.
KERNEL = 3


@dataclass(frozen=True)
class Transforms:
    """The constant matrices of F(tile x tile, 3 x 3), whose input patch has side
    patch = tile + 2 and whose transformed tile has patch^2 positions."""

    tile: int
    #: B^T (patch x patch): the input transform, V = B^T d B.
    input: np.ndarray
    #: G (patch x 3): the kernel transform, U = G g G^T.
    kernel: np.ndarray
    #: A^T (tile x patch): the output transform, Y = A^T m A.
    output: np.ndarray

    @property
    def patch(self) -> int:
        return self.tile + KERNEL - 1

    @property
    def positions(self) -> int:
        return self.patch * self.patch


#: Lavin and Gray's F(2x2, 3x3) (interpolation points 0, 1, -1, infinity) and F(4x4, 3x3)
#: (0, 1, -1, 2, -2, infinity), as TVM, NNPACK and ncnn have them. The larger tile makes 36
#: multiplications per 16 outputs where the smaller makes 16 per 4 (4x fewer than the direct
#: conv's 9 per output, against 2.25x), and writes 2.25 transformed floats per output pixel
#: and channel against 4; its transforms' larger coefficients (up to 8 and 5) cost about 16x
#: the rounding error of F(2x2, 3x3) in float32 (relative 3e-6 against 2e-7 on a 64 -> 64
#: conv), still far inside the 1e-3 that results are checked to.
TRANSFORMS = {
    2: Transforms(
        2,
        input=np.array(
            [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], dtype=np.float64
        ),
        kernel=np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]]),
        output=np.array([[1, 1, 1, 0], [0, 1, -1, -1]], dtype=np.float64),
    ),
    4: Transforms(
        4,
        input=np.array(
            [
                [4, 0, -5, 0, 1, 0],
                [0, -4, -4, 1, 1, 0],
                [0, 4, -4, -1, 1, 0],
                [0, -2, -1, 2, 1, 0],
                [0, 2, -1, -2, 1, 0],
                [0, 4, 0, -5, 0, 1],
            ],
            dtype=np.float64,
        ),
        kernel=np.array(
            [
                [1 / 4, 0, 0],
                [-1 / 6, -1 / 6, -1 / 6],
                [-1 / 6, 1 / 6, -1 / 6],
                [1 / 24, 1 / 12, 1 / 6],
                [1 / 24, -1 / 12, 1 / 6],
                [0, 0, 1],
            ]
        ),
        output=np.array(
            [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]],
            dtype=np.float64,
        ),
    ),
}
#: The tile a Winograd op has when its `tile` property is left out.
DEFAULT_TILE = 2


def transforms(tile: int) -> Transforms:
    """The matrices of F(tile x tile, 3 x 3); a ShapeError for a tile without them."""
    if tile not in TRANSFORMS:
        raise ShapeError(f"Winograd tile {tile} is not one of {', '.join(map(str, TRANSFORMS))}")
    return TRANSFORMS[tile]


def tile_grid(height: int, width: int, tile: int) -> tuple[int, int]:
    """Tiles of `tile` x `tile` pixels along each side of an output of `height` x `width`."""
    return -(-height // tile), -(-width // tile)


def transform_weight(w: np.ndarray, tile: int) -> np.ndarray:
    """A 3x3 conv weight [K, C, 3, 3] as the GEMMs' right-hand sides [positions, C, K] of
    F(tile x tile, 3 x 3): U[t = (xi, nu), c, k] = (G w[k, c] G^T)[xi, nu], computed in
    float64 (as two products, which `optimize` finds: 3x faster than einsum's one loop on
    a 512 x 512 x 3 x 3 weight)."""
    t = transforms(tile)
    g = t.kernel
    u = np.einsum("xa,kcab,yb->xykc", g, w.astype(np.float64), g, optimize=True)
    k, c = w.shape[:2]
    return np.ascontiguousarray(u.reshape(t.positions, k, c).transpose(0, 2, 1)).astype(w.dtype)


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


def tile_of(props: Props) -> int:
    """A Winograd op's `tile` (output pixels per tile side)."""
    return get_int(props, "tile", DEFAULT_TILE)


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
    """B^T d B of every (tile + 2)^2 input patch d: input [N, C/cb, H, W, cb], result
    [(tile + 2)^2, rows, C]. `pads` are the conv's begin pads (h, w) and `output` its output
    size (OH, OW), which fix the tiles; see the module docstring."""

    name = "graph.winograd_input"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    pads = prop_def(DenseArrayBase)
    output = prop_def(DenseArrayBase)
    rows = prop_def(IntegerAttr[I64] | SizesAttr)
    tile = opt_prop_def(IntegerAttr[I64], default_value=IntegerAttr(DEFAULT_TILE, i64))
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
        t = transforms(tile_of(props))
        th, tw = tile_grid(height, width, t.tile)
        rows = rows_of(props)
        _check_rows(cls.name, rows, sx[0] * th * tw)
        return [tensor_type((t.positions, rows, sx[1] * sx[4]), x.element_type)]


@irdl_op_definition
class WinogradOutputOp(GraphOp):
    """A^T m A of every transformed tile m, plus an optional bias [K]: input
    [(tile + 2)^2, rows, K], result [N, K/block, OH, OW, block] for `output` = (N, OH, OW);
    see the module docstring."""

    name = "graph.winograd_output"
    input = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    output = prop_def(DenseArrayBase | SizesAttr)
    block = prop_def(IntegerAttr[I64])
    tile = opt_prop_def(IntegerAttr[I64], default_value=IntegerAttr(DEFAULT_TILE, i64))
    assembly_format = _FORMAT

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Attribute], props: Props
    ) -> list[TensorType]:
        names = ("input", "bias")[: len(operand_types)]
        m, *bias = _float_tensors(cls.name, names, operand_types)
        sm = shape_of(m)
        t = transforms(tile_of(props))
        if len(sm) != 3 or sm[0] != t.positions:
            raise ShapeError(
                f"{cls.name}: input {fmt_shape(sm)} must be [{t.positions}, rows, K] "
                f"for tile {t.tile}"
            )
        n, height, width = _pair(cls.name, props, "output", 3)
        block = get_int(props, "block")
        if n < 1 or min(height, width, block) < 1 or sm[2] % block:
            raise ShapeError(
                f"{cls.name}: output {n}x{height}x{width} must be non-empty and block {block} "
                f"must divide the {sm[2]} channels"
            )
        th, tw = tile_grid(height, width, t.tile)
        _check_rows(cls.name, sm[1], n * th * tw)
        if bias and shape_of(bias[0]) != (sm[2],):
            raise ShapeError(
                f"{cls.name}: bias must have shape {sm[2]}, got {fmt_shape(shape_of(bias[0]))}"
            )
        return [tensor_type((n, sm[2] // block, height, width, block), m.element_type)]


WINOGRAD_OPS = [WinogradInputOp, WinogradOutputOp]
