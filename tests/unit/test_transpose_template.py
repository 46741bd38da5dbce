"""The transpose schedule template: which computes it takes, that every config of its space
moves every element where numpy's transpose puts it, and what the untuned default is.

The template (`schedules/transpose.py`) tiles computes that read one source
along another output axis `s` than their innermost axis `d`: ResNet's NCHW <-> NCHW16c layout
transforms and BERT's head transpose. Elementwise, GEMM and conv kernels keep their own
templates. With `registers` 1 a tile is copied through vector registers: the template marks
its d loop `vectorize` and loop-vectorize-transpose makes it vector loads, loop.vshuffles
and vector stores (the pass itself: test_vectorize_transpose.py).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

import numpy as np
import onnx
import pytest
from models import bert_encoder_layer, resnet_basic_block
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Operation, Region, SSAValue

from minitvm.compiler import CONV_BLOCK, build, lower_to_te
from minitvm.dialects import graph as g
from minitvm.dialects import loop, te
from minitvm.dialects.te_nest import scheduled_nest
from minitvm.frontend import from_onnx
from minitvm.ir import make_context
from minitvm.lowering.te_to_loop import ConvertTeToLoopPass
from minitvm.passes.loop.vectorize_transpose import VectorizeTransposePass
from minitvm.runtime import TensorSpec
from minitvm.schedules.base import InvalidConfig
from minitvm.schedules.injective import InjectiveTemplate
from minitvm.schedules.kernel import kernel_template, kernels, set_kernel_config
from minitvm.schedules.templates import TEMPLATES
from minitvm.schedules.transpose import SHORT_TRANSPOSE, TransposeTemplate
from minitvm.tuner.tasks import tasks_of_module

TRANSPOSE = TransposeTemplate()


def te_module_of_model(model: onnx.ModelProto) -> ModuleOp:
    """The model's te kernels, its 3x3 convs direct (the kernels these tests name)."""
    module = from_onnx(model)
    lower_to_te(module, num_threads=1, winograd="never")
    return module


def templates_of(module: ModuleOp) -> dict[str, str | None]:
    """Kernel name -> the name of the template that schedules it."""
    return {
        k.sym_name.data: (found[1].name if (found := kernel_template(k)) else None)
        for k in kernels(module)
    }


@pytest.fixture(scope="module")
def resnet() -> ModuleOp:
    return te_module_of_model(resnet_basic_block())


@pytest.fixture(scope="module")
def bert() -> ModuleOp:
    return te_module_of_model(bert_encoder_layer())


def kernel_named(module: ModuleOp, name: str) -> func.FuncOp:
    return next(k for k in kernels(module) if k.sym_name.data == name)


def anchor_of(kernel: func.FuncOp) -> te.ComputeOp:
    found = kernel_template(kernel)
    assert found is not None
    return found[0]


# --------------------------------------------------------------------------------------------
# Which kernels it takes
# --------------------------------------------------------------------------------------------


def test_it_comes_before_the_injective_template_and_after_the_specific_ones() -> None:
    names = [t.name for t in TEMPLATES]
    assert names.index("transpose") == names.index("injective") - 1
    specific = ("gemm", "conv_nchwc", "reduction")
    assert names.index("transpose") > max(names.index(n) for n in specific)


def test_it_takes_resnets_layout_transforms_and_leaves_its_convs(resnet: ModuleOp) -> None:
    templates = templates_of(resnet)
    # layout_transform_0: NCHW -> NCHW16c, layout_transform_3: NCHW16c -> NCHW. With AVX2's
    # NCHW8c, NCHW -> NCHW8c (8 channels innermost, the source contiguous along w right
    # outside them) is too short a transpose for the template (SHORT_TRANSPOSE): injective.
    short = CONV_BLOCK <= SHORT_TRANSPOSE
    assert templates == {
        "layout_transform_0": "injective" if short else "transpose",
        "fused_conv_nchwc_1": "conv_nchwc",
        "fused_conv_nchwc_2": "conv_nchwc",
        "layout_transform_3": "transpose",
    }
    # s: the axis the source is contiguous along (NCHW16c's c % 16, NCHW's w); d: innermost
    to_blocks = TRANSPOSE.axes(anchor_of(kernel_named(resnet, "layout_transform_0")))
    assert to_blocks == (None if short else (3, 4))
    assert TRANSPOSE.axes(anchor_of(kernel_named(resnet, "layout_transform_3"))) == (1, 3)


def test_it_takes_berts_head_transpose_and_leaves_the_rest(bert: ModuleOp) -> None:
    templates = templates_of(bert)
    # fused_reshape_3: [1, 128, 768] -> [1, 12, 64, 128], K transposed per head
    assert templates["fused_reshape_3"] == "transpose"
    anchor = anchor_of(kernel_named(bert, "fused_reshape_3"))
    assert anchor.shape == (1, 12, 64, 128) and TRANSPOSE.axes(anchor) == (2, 3)
    assert [n for n, t in templates.items() if t == "transpose"] == ["fused_reshape_3"]
    # The other head reshapes (-> [1, 12, 128, 64]) and the merge back (-> [1, 128, 768])
    # read runs of 64 contiguous floats along their innermost axis: no transposes.
    for name in ("fused_reshape_1", "fused_reshape_5", "fused_transpose_9"):
        assert templates[name] == "injective", name
    assert {t for n, t in templates.items() if "matmul" in n} == {"gemm"}
    assert templates["softmax_7"] == templates["layer_norm_11"] == "reduction"
    # the GELU, written out (x * 0.5 * (1 + erf(x / sqrt 2))), runs in its matmul's epilogue
    assert not any("div" in n or "erf" in n for n in templates)


def graph_module(shape: tuple[int, ...], make: Callable[[SSAValue], list[Operation]]) -> ModuleOp:
    block = Block(arg_types=[TensorType(f32, list(shape))])
    ops = make(block.args[0])
    block.add_ops([*ops, func.ReturnOp(*ops[-1].results)])
    main = func.FuncOp("main", (block.arg_types, [r.type for r in ops[-1].results]), Region(block))
    return ModuleOp([main])


def transpose(perm: tuple[int, ...]) -> Callable[[SSAValue], list[Operation]]:
    return lambda x: [g.TransposeOp.make(x, perm=list(perm))]


def to_layout(src: str, dst: str) -> Callable[[SSAValue], list[Operation]]:
    return lambda x: [g.LayoutTransformOp.make(x, src_layout=src, dst_layout=dst)]


def only_kernel(module: ModuleOp) -> func.FuncOp:
    (kernel,) = kernels(module)
    return kernel


def lowered(shape: tuple[int, ...], make: Callable[[SSAValue], list[Operation]]) -> ModuleOp:
    module = graph_module(shape, make)
    lower_to_te(module, opt_level=0, num_threads=1)
    return module


@pytest.mark.parametrize(
    ("shape", "make", "template"),
    [
        ((6, 40), lambda x: [g.ReluOp.make(x)], "injective"),
        # the source is contiguous along the output's innermost axis: a copy in disguise
        ((2, 3, 4), transpose((1, 0, 2)), "injective"),
        # d is 8 iterations right inside s: LLVM unrolls d and vectorizes s (see SHORT_TRANSPOSE)
        ((1, 8, 10, 12), transpose((0, 2, 3, 1)), "injective"),
        ((1, 3, 10, 12), to_layout("NCHW", "NCHW3c"), "injective"),
        # ... but 12 iterations, or d not right inside s, are the template's
        ((1, 12, 10, 12), transpose((0, 2, 3, 1)), "transpose"),
        ((1, 10, 12, 8), transpose((0, 3, 1, 2)), "transpose"),
        # re-blocking reads the source's last dim at a mix of two axes (c = co * 8 + ci)
        ((1, 2, 5, 5, 16), to_layout("NCHW16c", "NCHW8c"), "injective"),
    ],
    ids=["relu", "copy", "short_nhwc", "nchw3c", "nhwc12", "nchw8", "reblock"],
)
def test_which_computes_it_takes(shape, make, template: str) -> None:
    found = kernel_template(only_kernel(lowered(shape, make)))
    assert found is not None and found[1].name == template


# --------------------------------------------------------------------------------------------
# Every config computes the transpose
# --------------------------------------------------------------------------------------------


def unblock(x: np.ndarray) -> np.ndarray:
    n, blocks, h, w, b = x.shape
    return x.transpose(0, 1, 4, 2, 3).reshape(n, blocks * b, h, w)


def block16(x: np.ndarray) -> np.ndarray:
    n, c, h, w = x.shape
    return x.reshape(n, c // 16, 16, h, w).transpose(0, 1, 3, 4, 2)


#: name -> (input shape, graph op, numpy reference); odd spatial sizes, partial tiles of d
CASES = {
    "to_nchw16c": ((1, 32, 10, 12), to_layout("NCHW", "NCHW16c"), block16),
    "to_nchw": ((1, 2, 10, 12, 16), to_layout("NCHW16c", "NCHW"), unblock),
    "perm_021": ((3, 20, 24), transpose((0, 2, 1)), lambda x: x.transpose(0, 2, 1)),
    "perm_201": ((6, 10, 24), transpose((2, 0, 1)), lambda x: x.transpose(2, 0, 1)),
    # s = 48 and d = 32: every tile size is a register tile, 16 x 16 included
    "perm_021_wide": ((2, 32, 48), transpose((0, 2, 1)), lambda x: x.transpose(0, 2, 1)),
}

#: How many configs of each case's space copy tiles through registers (tile_s x tile_d
#: pairs of 4, 8, 16 with d innermost): perm_201's d (10) is tiled only whole.
REGISTER_CONFIGS = {"to_nchw16c": 3, "to_nchw": 3, "perm_021": 2, "perm_201": 0, "perm_021_wide": 9}

REGISTER_TILE_ERROR = "^transpose: a register tile needs inner = d and tiles of 4, 8, 16, got "



def register_tile_allowed(config: dict) -> bool:
    """The constraint on `registers` 1, restated: d innermost, both tiles 4, 8 or 16."""
    return config["inner"] == "d" and {config["tile_s"], config["tile_d"]} <= {4, 8, 16}


def loop_kernel(module: ModuleOp) -> func.FuncOp:
    """A copy of a te module's one kernel as `build` has it before loop-unroll: after
    convert-te-to-loop and loop-vectorize-transpose."""
    copy = module.clone()
    ctx = make_context()
    for loop_pass in (ConvertTeToLoopPass(), VectorizeTransposePass()):
        loop_pass.apply(ctx, copy)
    (kernel,) = [
        op for op in copy.ops if isinstance(op, func.FuncOp) and op.sym_name.data != "main"
    ]
    return kernel


def count(kernel: func.FuncOp, kind: type[Operation]) -> int:
    return sum(isinstance(op, kind) for op in kernel.walk())


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_config_of_the_space_moves_every_element_right(case: str) -> None:
    """Every config the template accepts builds and computes the transpose; the register-tile
    configs it rejects are exactly those breaking the constraint, and the ones it accepts are
    copied through loop.vshuffles, the others not."""
    shape, make, reference = CASES[case]
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    want = reference(x)
    anchor = anchor_of(only_kernel(lowered(shape, make)))
    space = TRANSPOSE.space(anchor)
    assert space is not None
    configs = [dict(zip([k.name for k in space], v)) for v in product(*(k.choices for k in space))]
    assert len(configs) >= 8
    in_registers = 0
    for config in configs:
        module = lowered(shape, make)
        if config["registers"] and not register_tile_allowed(config):
            with pytest.raises(InvalidConfig, match=REGISTER_TILE_ERROR):
                set_kernel_config(only_kernel(module), config)
            continue
        set_kernel_config(only_kernel(module), config)
        shuffles = count(loop_kernel(module), loop.VectorShuffleOp)
        taken = config["registers"]
        assert (shuffles > 0) == bool(taken), config
        in_registers += config["registers"]
        ins = [TensorSpec("x", shape, np.dtype(np.float32))]
        outs = [TensorSpec("y", want.shape, np.dtype(np.float32))]
        got = build(module, ins, outs, num_threads=1).run({"x": x})[0]
        np.testing.assert_array_equal(got, want, err_msg=str(config))
    assert in_registers == REGISTER_CONFIGS[case]


def test_a_register_tile_is_vector_loads_shuffles_and_vector_stores() -> None:
    # [1, 2, 10, 12, 16] -> [1, 32, 10, 12]: s = c (16 a tile), d = w (4 a tile)
    module = lowered(*CASES["to_nchw"][:2])
    set_kernel_config(
        only_kernel(module), {"tile_s": 16, "tile_d": 4, "inner": "d", "registers": 1}
    )
    kernel = loop_kernel(module)
    # 4 loads of 16 channels; each split in four, four 4 x 4 squares (2 rounds of 4 shuffles)
    assert count(kernel, loop.VectorShuffleOp) == 4 * 4 + 4 * 8
    assert count(kernel, loop.VectorLoadOp) == 4 and count(kernel, loop.VectorStoreOp) == 16
    assert count(kernel, loop.LoadOp) == count(kernel, loop.StoreOp) == 0
    assert {str(op.result.type) for op in kernel.walk() if isinstance(op, loop.VectorLoadOp)} == {
        "vector<16xf32>"
    }
    assert {str(op.value.type) for op in kernel.walk() if isinstance(op, loop.VectorStoreOp)} == {
        "vector<4xf32>"
    }
    # the same tile without registers: one scalar copy, unrolled later by loop-unroll
    module = lowered(*CASES["to_nchw"][:2])
    set_kernel_config(
        only_kernel(module), {"tile_s": 16, "tile_d": 4, "inner": "d", "registers": 0}
    )
    kernel = loop_kernel(module)
    assert count(kernel, loop.VectorShuffleOp) == count(kernel, loop.VectorLoadOp) == 0
    assert count(kernel, loop.LoadOp) == 1


@pytest.mark.parametrize("tile_s", [4, 8])
def test_register_tiles_of_fewer_channels_than_a_block(tile_s: int) -> None:
    """NCHW16c -> NCHW with 4 or 8 channels per tile reads lane c % 16 = 4 * (c.o % 4) + c.i:
    the pass sees that it moves by 1 with c.i (and the block c // 16 not at all)."""
    module = lowered(*CASES["to_nchw"][:2])
    config = {"tile_s": tile_s, "tile_d": 4, "inner": "d", "registers": 1}
    set_kernel_config(only_kernel(module), config)
    assert count(loop_kernel(module), loop.VectorShuffleOp) > 0


def test_configs_split_only_the_axes_they_tile() -> None:
    anchor = anchor_of(only_kernel(lowered(*CASES["to_nchw"][:2])))  # [1, 32, 10, 12]: s = c, d = w
    assert {k.name: k.choices for k in TRANSPOSE.space(anchor)} == {  # type: ignore[union-attr]
        "tile_s": (4, 8, 16),
        "tile_d": (4, 12),
        "inner": ("d", "s"),
        "registers": (1, 0),
    }
    config = {"tile_s": 8, "tile_d": 4, "inner": "s", "registers": 0}
    assert TRANSPOSE.schedule(anchor, config) == [
        te.split("i1", 8), te.split("i3", 4),
        te.reorder("i0", "i1.o", "i2", "i3.o", "i3.i", "i1.i"),
        te.unroll("i3.i"),
    ]  # fmt: skip
    # a tile of the whole of d: no split
    config = {"tile_s": 16, "tile_d": 12, "inner": "d", "registers": 0}
    assert TRANSPOSE.schedule(anchor, config) == [
        te.split("i1", 16), te.reorder("i0", "i1.o", "i2", "i1.i", "i3"), te.unroll("i1.i"),
    ]  # fmt: skip
    # in registers: d (innermost) vectorized, s unrolled for where the pass declines
    config = {"tile_s": 8, "tile_d": 4, "inner": "d", "registers": 1}
    assert TRANSPOSE.schedule(anchor, config) == [
        te.split("i1", 8), te.split("i3", 4),
        te.reorder("i0", "i1.o", "i2", "i3.o", "i1.i", "i3.i"),
        te.unroll("i1.i"), te.vectorize("i3.i"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"tile_s": 3, "tile_d": 4, "inner": "d", "registers": 0}, "tile_s = 3"),
        # 8 does not divide 12
        ({"tile_s": 8, "tile_d": 8, "inner": "d", "registers": 0}, "tile_d = 8"),
        ({"tile_s": 8, "tile_d": 4, "inner": "x", "registers": 0}, "inner = 'x'"),
        ({"tile_s": 8, "tile_d": 4, "registers": 0}, "inner = None"),
        ({"tile_s": 8, "tile_d": 4, "inner": "d", "registers": 2}, "registers = 2"),
        ({"tile_s": 8, "tile_d": 4, "inner": "d"}, "registers = None"),
        # a register tile: d innermost (the vector stores run along it) ...
        ({"tile_s": 8, "tile_d": 4, "inner": "s", "registers": 1}, REGISTER_TILE_ERROR),
        # ... and tiles of vector lengths (12, all of d, is in the space but no vector length)
        ({"tile_s": 8, "tile_d": 12, "inner": "d", "registers": 1}, REGISTER_TILE_ERROR),
    ],
)
def test_invalid_configs_are_rejected_before_anything_changes(config, message: str) -> None:
    kernel = only_kernel(lowered(*CASES["to_nchw"][:2]))
    before = str(kernel)
    with pytest.raises(InvalidConfig, match=message):
        set_kernel_config(kernel, config)
    assert str(kernel) == before


def test_it_rejects_computes_it_does_not_apply_to() -> None:
    anchor = anchor_of(only_kernel(lowered((6, 40), lambda x: [g.ReluOp.make(x)])))
    with pytest.raises(InvalidConfig, match="does not apply"):
        TRANSPOSE.schedule(anchor, {"tile_s": 4, "tile_d": 8, "inner": "d"})


# --------------------------------------------------------------------------------------------
# The default, and what untuned compiles get
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kernel", "config", "schedule"),
    [
        (
            # NCHW16c -> NCHW: 16 channels x 8 pixels (NCHW8c: 8 channels, a tile within
            # each block of the source)
            "layout_transform_3",
            {"tile_s": CONV_BLOCK, "tile_d": 8, "inner": "d", "registers": 1},
            [
                te.split("i1", CONV_BLOCK), te.split("i3", 8),
                te.reorder("i0", "i1.o", "i2", "i3.o", "i1.i", "i3.i"),
                te.unroll("i1.i"), te.vectorize("i3.i"),
            ],
        ),
        (
            "layout_transform_0",  # NCHW -> NCHW16c: 8 pixels x 16 channels
            {"tile_s": 8, "tile_d": 16, "inner": "d", "registers": 1},
            [te.split("i3", 8), te.unroll("i3.i"), te.vectorize("i4")],
        ) if CONV_BLOCK > SHORT_TRANSPOSE else (
            "layout_transform_0",  # NCHW -> NCHW8c (AVX2): no transpose, the plain order
            None,
            [],
        ),
    ],
)  # fmt: skip
def test_resnet_layout_transforms_get_the_default_untuned(
    resnet: ModuleOp, kernel: str, config: dict | None, schedule: list
) -> None:
    anchor = anchor_of(kernel_named(resnet, kernel))
    if config is None:
        assert TRANSPOSE.space(anchor) is None
    else:
        assert TRANSPOSE.default_config(anchor) == config
    assert list(anchor.schedule) == schedule  # applied by convert-graph-to-te


def test_berts_head_transpose_gets_the_default_untuned(bert: ModuleOp) -> None:
    anchor = anchor_of(kernel_named(bert, "fused_reshape_3"))
    assert TRANSPOSE.default_config(anchor) == {
        "tile_s": 16, "tile_d": 16, "inner": "d", "registers": 1,
    }  # fmt: skip
    assert list(anchor.schedule) == [
        te.split("i2", 16), te.split("i3", 16),
        te.reorder("i0", "i1", "i2.o", "i3.o", "i2.i", "i3.i"),
        te.unroll("i2.i"), te.vectorize("i3.i"),
    ]  # fmt: skip
    # the reshape it reads is still inlined: one pass over the data
    ops = kernel_named(bert, "fused_reshape_3").body.block.ops
    (reshape,) = [c for c in ops if isinstance(c, te.ComputeOp) and c is not anchor]
    assert list(reshape.schedule) == [te.inline()]


@pytest.mark.parametrize(
    ("case", "tiles", "registers"),
    [
        ("perm_021", (8, 4), 1),
        ("perm_021_wide", (16, 16), 1),
        ("to_nchw16c", (12, 16), 0),  # s = w = 12: the largest tile is all of it
        ("to_nchw", (16, 12), 0),
        ("perm_201", (8, 10), 0),
    ],
)
def test_the_default_copies_through_registers_when_its_tiles_allow(
    case: str, tiles: tuple[int, int], registers: int
) -> None:
    anchor = anchor_of(only_kernel(lowered(*CASES[case][:2])))
    assert TRANSPOSE.default_config(anchor) == {
        "tile_s": tiles[0], "tile_d": tiles[1], "inner": "d", "registers": registers,
    }  # fmt: skip
    last = anchor.schedule[-1]
    assert isinstance(last, te.VectorizeAttr if registers else te.UnrollAttr)


def test_the_parallel_default_takes_the_outermost_tile_loop(resnet: ModuleOp) -> None:
    # 2 threads: each takes whole channel blocks of the output
    nest = scheduled_nest(anchor_of(kernel_named(resnet, "layout_transform_3")))
    assert [lp.name for lp in nest.loops] == ["i0", "i1.o", "i2", "i3.o", "i1.i", "i3.i"]
    assert [lp.name for lp in nest.loops if loop.PARALLEL_HINT in lp.hints] == ["i1.o"]
    nest = scheduled_nest(anchor_of(kernel_named(resnet, "layout_transform_0")))
    assert [lp.name for lp in nest.loops if loop.PARALLEL_HINT in lp.hints] == ["i1"]


def test_untuned_elementwise_kernels_keep_the_plain_loop_order() -> None:
    module = lowered((12, 100), lambda x: [g.ErfOp.make(x)])
    found = kernel_template(only_kernel(module))
    assert found is not None and isinstance(found[1], InjectiveTemplate)
    assert list(found[0].schedule) == []


def test_tuning_tasks_of_resnet_have_the_transpose_space(resnet: ModuleOp) -> None:
    tasks = {t.kernel_names[0]: t for t in tasks_of_module(resnet, num_threads=1)}
    task = tasks["layout_transform_3"]
    assert task.template == "transpose"
    # (tiles of a channel block: 16 channels, 8 with AVX2's NCHW8c)
    assert task.default_config == {
        "tile_s": CONV_BLOCK, "tile_d": 8, "inner": "d", "registers": 1,
    }  # fmt: skip
    assert {k.name: k.choices for k in task.knobs} == {
        "tile_s": (4, 8, 16), "tile_d": (4, 8), "inner": ("d", "s"), "registers": (1, 0),
    }  # fmt: skip
    # every config without registers is valid; with them, the 3 x 2 tiles with d innermost
    configs = task.configs()
    assert len(configs) == 3 * 2 * 2 + 3 * 2
    assert all(c["inner"] == "d" for c in configs if c["registers"])
    assert tasks["fused_conv_nchwc_1"].template == "conv_nchwc"
