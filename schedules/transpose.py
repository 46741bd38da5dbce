"""Transposes and layout transforms (the source read contiguously along another output axis
`s` than the innermost one, `d`) are tiled so that a tile's source lines and output lines
all stay in L1, the outer tile loop unrolled. NCHW16c -> NCHW, 16 channels x 8 pixels per
tile (s = i1, d = i3):

    split i1 by 16, split i3 by 8, reorder (i0, i1.o, i2, i3.o, i1.i, i3.i), unroll i1.i

This is the default of untuned compiles too, for any compute of this shape.

Other reductions (softmax, norms, pooling) and injective computes (elementwise chains)
"""

from __future__ import annotations

from xdsl.ir import Attribute

from minitvm.dialects import te
from minitvm.dialects.graph.base import shape_of
from minitvm.dialects.te_nest import index_dependencies
from minitvm.schedules.base import (
    Config,
    InvalidConfig,
    Knob,
    ScheduleTemplate,
    divisors,
    placed_elsewhere,
)
from minitvm.symbolic import hinted


class TransposeTemplate(ScheduleTemplate):
    """Cache-blocked transpose: the output in tiles of `tile_s` x `tile_d` elements, the
    tile loop `inner` ("d" or "s") innermost and the other one unrolled.

    It applies to an injective compute with loops of its own whose one read of a tensor of
    rank >= 2 walks the source's contiguous (last) dim along exactly one output axis `s`
    other than the output's innermost axis `d`. In the plain loop order LLVM vectorizes d
    with gathers (a source line per lane), and a layout transform like NCHW16c -> NCHW
    comes back to each source line 16 times, a plane later. A tile reads `tile_d` source
    lines and writes `tile_s` output lines, all in L1; LLVM makes it unrolled scalar copies
    (loop-vectorize cannot: one side of a transpose is always strided, so there is no
    vectorize primitive). Standalone, one thread: NCHW16c -> NCHW [1, 64, 56, 56] 0.123 ->
    0.057 ms, NCHW -> NCHW16c 0.088 -> 0.066, BERT's [1, 128, 768] -> [1, 12, 64, 128]
    0.097 -> 0.038 (2 threads: 0.064 -> 0.030, 0.046 -> 0.033, 0.052 -> 0.020).

    With `registers` 1 (tiles of 4, 8 or 16, d innermost) the tile is one register transpose
    instead: `#te.vectorize` on d.i, which `loop-vectorize-transpose` turns into vector loads
    along s, a `loop.vshuffle` network and vector stores along d. Standalone, one thread
    (two): NCHW -> NCHW16c [1, 64, 56, 56] 0.079 -> 0.031 ms (0.048 -> 0.028), NCHW16c ->
    NCHW 0.070 -> 0.039 (0.041 -> 0.020), BERT's head transpose 0.052 -> 0.029.

    The default is the largest tiles with d innermost (the output written along its rows),
    copied through registers when the tiles allow it.
    Of 15 shapes measured (`docs/schedules.md`) it is faster than the plain order on 13;
    NCHW -> NHWC with 64 channels (0.069 -> 0.082 ms) and a [12, 128, 64] -> [12, 64, 128]
    transpose (0.035 -> 0.038) are slower, and there `tile_s` 4, `inner` "s" is the best."""

    name = "transpose"

    def axes(self, compute: te.ComputeOp) -> tuple[int, int] | None:
        """(s, d) as dims of the compute, or None if it is no transpose (see the class)."""
        rank = len(compute.shape)
        if compute.reduce_kind is not None or rank < 2 or placed_elsewhere(compute):
            return None
        source = _source(compute)
        if source is None:
            return None
        depends = index_dependencies(source.indices[-1])
        walked = [n for n, arg in enumerate(compute.spatial_args) if arg in depends]
        if len(walked) != 1 or walked[0] == rank - 1:
            return None
        s, d = walked[0], rank - 1
        if compute.shape[s] < 2 or compute.shape[d] < 2:
            return None
        if s == d - 1 and compute.shape[d] <= SHORT_TRANSPOSE:
            return None
        return s, d

    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        axes = self.axes(compute)
        if axes is None:
            return None
        extent_s, extent_d = (compute.shape[n] for n in axes)
        knobs = [
            Knob("tile_s", _tiles(extent_s)),
            Knob("tile_d", _tiles(extent_d)),
            Knob("inner", ("d", "s")),
            Knob("registers", (1, 0)),
        ]
        return knobs if all(k.choices for k in knobs) else None

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        """The largest tiles, d innermost, copied through registers where the tiles allow
        it; along s, the largest tile that divides the source's lines (its contiguous last
        dim), so that a tile's vector loads along s never wrap from one line into the next
        (NCHW8c -> NCHW: tiles of 8 channels, not 16, which `loop-vectorize-transpose` turns
        down; with AVX-512 masked out on an AMD EPYC Zen 4, one thread, in the model,
        [1, 8, 56, 56, 8] -> [1, 64, 56, 56] 0.057 -> 0.018 ms)."""
        space = self.space(compute)
        assert space is not None
        choices_s, choices_d = ([int(c) for c in knob.choices] for knob in space[:2])
        source = _source(compute)
        assert source is not None
        line = hinted(shape_of(source.tensor.type)[-1])  # (its hinted size if symbolic)
        tile_s = max([t for t in choices_s if line % t == 0] or choices_s)
        tile_d = max(choices_d)
        registers = int(tile_s in REGISTER_TILES and tile_d in REGISTER_TILES)
        return {"tile_s": tile_s, "tile_d": tile_d, "inner": "d", "registers": registers}


    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        self.check(compute, config)
        axes = self.axes(compute)
        assert axes is not None
        tiles = {axis: int(config[knob]) for axis, knob in zip(axes, ("tile_s", "tile_d"))}
        schedule: list[Attribute] = []
        loops: list[str] = []  # after the splits
        outer: list[str] = []
        inner: list[str] = []
        for axis, extent in enumerate(compute.shape):
            name = f"i{axis}"
            if axis not in tiles:
                outer.append(name)
            elif tiles[axis] < extent:
                schedule.append(te.split(name, tiles[axis]))
                outer.append(f"{name}.o")
                inner.append(f"{name}.i")
            else:
                inner.append(name)
            loops += [f"{name}.o", f"{name}.i"] if tiles.get(axis, extent) < extent else [name]
        if config["inner"] == "s":
            inner.reverse()
        # The outer loops keep the output's order, so the parallel default gives each thread
        # whole blocks of the output. (Moving s.o inward, NCHW16c -> NCHW [1, 512, 7, 7] on 2
        # threads took 0.014 ms instead of 0.005: the threads' rows shared cache lines.)
        if [*outer, *inner] != loops:
            schedule.append(te.reorder(*outer, *inner))
        if config["registers"]:
            if config["inner"] != "d" or not set(tiles.values()) <= set(REGISTER_TILES):
                raise InvalidConfig(
                    f"transpose: a register tile needs inner = d and tiles of "
                    f"{', '.join(map(str, REGISTER_TILES))}, got {dict(config)}"
                )
            # loop-vectorize-transpose takes the pair; where its index analysis cannot (an
            # index it does not see move by 1), the tile stays the unrolled copy.
            schedule.append(te.unroll(inner[0]))
            schedule.append(te.vectorize(inner[-1]))
        else:
            schedule.append(te.unroll(inner[0]))
        return schedule


def _source(compute: te.ComputeOp) -> te.ReadOp | None:
    """The compute's one read of a tensor of rank >= 2 (its source), or None if it has
    none or several."""
    reads = [op for op in compute.body.walk() if isinstance(op, te.ReadOp)]
    sources = [read for read in reads if len(read.indices) >= 2]
    return sources[0] if len(sources) == 1 else None


#: A transpose whose innermost output axis d is this short and whose source is contiguous
#: along the axis right outside it is no case for the template: LLVM unrolls d and
#: vectorizes the outer axis with contiguous loads and interleaved stores, 3-5x faster than
#: any tile (standalone, one thread: NCHW -> NCHW3c [1, 3, 224, 224] 0.014 ms plain, 0.042
#: tiled; NCHW -> NHWC with 8 channels 0.0022 vs 0.0072, with 12 channels 0.016 vs 0.0098).
SHORT_TRANSPOSE = 8


#: Tile sizes that `loop-vectorize-transpose` copies through registers (vector lanes).
REGISTER_TILES = (4, 8, 16)


def _tiles(extent: int) -> tuple[int, ...]:
    """Tile sizes of an axis: 4, 8 and 16 where they divide it, and all of it if it is short."""
    whole = (extent,) if isinstance(extent, int) and extent <= 16 else ()
    return tuple(sorted({*divisors(extent, (4, 8, 16)), *whole}))
