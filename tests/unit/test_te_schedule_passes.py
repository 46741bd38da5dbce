"""The te schedule-primitive passes (passes/te/): each appends what it says, through the
option syntax of `minitvm-opt -p`, refuses what does not apply with a message naming what
exists, and never changes what a kernel computes: every scheduled kernel is built and
compared with the unscheduled one (fuse and pack included, by hand and at random).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import numpy as np
import onnx
import pytest
from test_fusion import Net, run_ort
from test_schedules import CASES, insert, module_of, run, specs
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.utils.arg_spec import parse_pipeline

import minitvm
from minitvm.compiler import CONV_BLOCK, build, lower_to_te
from minitvm.dialects import graph as g
from minitvm.dialects import loop, te
from minitvm.dialects.te_nest import default_nest, scheduled_nest
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx
from minitvm.ir import make_context
from minitvm.lowering.jit import compile_llvm
from minitvm.lowering.loop_to_llvm import lower_to_llvm
from minitvm.lowering.te_to_loop import ConvertTeToLoopPass
from minitvm.passes.loop.unroll import UnrollPass
from minitvm.passes.loop.vectorize import VectorizePass
from minitvm.passes.registry import all_passes
from minitvm.schedules.base import LANES, MAX_ACCUMULATORS, VECTOR_REGISTERS
from minitvm.schedules.kernel import set_kernel_config

SCHEDULE_PASSES = [
    "te-compute-at", "te-fuse", "te-mark-inline", "te-pack", "te-parallel", "te-prefetch",
    "te-reorder", "te-split", "te-tile", "te-unroll", "te-vectorize",
]  # fmt: skip


def apply(module: ModuleOp, pipeline: str) -> None:
    """Run `pipeline` as `minitvm-opt -p` does: registry names, options parsed from text."""
    ctx, passes = make_context(), all_passes()
    for spec in parse_pipeline(pipeline):
        passes[spec.name]().from_pass_spec(spec).apply(ctx, module)


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    return [
        op for op in module.ops if isinstance(op, func.FuncOp) and te.KERNEL_ATTR in op.attributes
    ]


def computes(kernel: func.FuncOp) -> list[te.ComputeOp]:
    return [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]


def matmul(m: int, k: int, n: int) -> tuple[list[tuple[int, ...]], object]:
    return [(m, k), (k, n)], lambda b, a: insert(b, g.MatMulOp.make(a[0], a[1]))


def conv_relu(channels: int = 32) -> tuple[list[tuple[int, ...]], object]:
    def body(b, a):
        (y,) = insert(b, g.ConvOp.make(a[0], a[1], a[2], pads=[1, 1, 1, 1]))
        return insert(b, g.ReluOp.make(y))

    return [(1, 16, 8, 8), (channels, 16, 3, 3), (channels,)], body


def inputs_for(shapes, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def te_module(case) -> ModuleOp:
    shapes, body = case
    module = module_of(shapes, body)
    lower_to_te(module)
    return module


def check_same_results(
    case,
    pipeline: str | Callable[[ModuleOp], str],
    num_threads: int | None = None,
    rtol: float = 1e-5,
) -> ModuleOp:
    """Build the te module of `case` (shapes and body, or a module and its inputs) with and
    without `pipeline` (or the pipeline a function of the module makes); the results must
    agree. Returns the scheduled te module."""
    if isinstance(case[0], ModuleOp):
        make, inputs = (lambda: case[0].clone()), case[1]
    else:
        make, inputs = (lambda: te_module(case)), inputs_for(case[0])
    expected = run(make(), inputs)
    module = make()
    apply(module, pipeline if isinstance(pipeline, str) else pipeline(module))
    scheduled = module.clone()
    main = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    )
    ins, outs = specs(main.function_type.inputs), specs(main.function_type.outputs)
    exe = build(module, ins, outs, num_threads=num_threads)
    got = exe.run({s.name: x for s, x in zip(ins, inputs)})
    for e, r in zip(expected, got, strict=True):
        np.testing.assert_allclose(r, e, rtol=rtol, atol=1e-5)
    return scheduled


# --------------------------------------------------------------------------------------------
# What each pass appends
# --------------------------------------------------------------------------------------------


def test_every_schedule_pass_is_registered():
    assert set(SCHEDULE_PASSES) <= set(all_passes())


@pytest.mark.parametrize(
    "loops", ["ahead=i0 over=i1", "ahead=i1 over=i0", "ahead=r0 over=r0", "ahead=i0 over=i9"]
)
def test_a_prefetch_needs_two_loops_outside_the_innermost_plain_one(loops: str) -> None:
    """The loops of matmul_0 are i0, r0, i1 (i-k-j): a prefetch is issued in i1, so both of
    its loops must run outside it, and differ; nothing changes when they do not."""
    module = te_module(matmul(6, 10, 7))
    (compute,) = computes(kernels(module)[0])
    match = "no loop named 'i9'" if "i9" in loops else r"needs two different loops.*\(i1; loops"
    with pytest.raises(MinitvmError, match=match):
        apply(module, f"te-prefetch{{kernel=matmul_0 compute=0 {loops}}}")
    assert compute.schedule == ()


@pytest.mark.parametrize(
    ("pipeline", "appended"),
    [
        ("te-split{kernel=matmul_0 compute=0 axis=i0 factor=4}", [te.split("i0", 4)]),
        (
            "te-tile{kernel=matmul_0 compute=0 axes=i0,i1 factors=2,4}",
            [te.split("i0", 2), te.split("i1", 4), te.reorder("i0.o", "i1.o", "i0.i", "i1.i")],
        ),
        ("te-reorder{kernel=matmul_0 compute=0 order=i1,r0}", [te.reorder("i1", "r0")]),
        ("te-fuse{kernel=matmul_0 compute=0 axes=i0,r0}", None),  # spatial + reduction: refused
        ("te-vectorize{kernel=matmul_0 compute=0 axis=i1}", [te.vectorize("i1")]),
        ("te-unroll{kernel=matmul_0 compute=0 axis=r0}", [te.unroll("r0")]),
        ("te-parallel{kernel=matmul_0 compute=0 axis=i0}", [te.parallel("i0")]),
        ("te-prefetch{kernel=matmul_0 compute=0 ahead=i0 over=r0}", [te.prefetch("i0", "r0")]),
        # loop names with dots: quoted, or as loop IR spells the loop variable
        (
            'te-split{kernel=matmul_0 compute=0 axis=i1 factor=2},te-unroll{kernel=matmul_0 compute=0 axis="i1.i"}',
            [te.split("i1", 2), te.unroll("i1.i")],
        ),
        (
            "te-split{kernel=matmul_0 compute=0 axis=i1 factor=2},te-unroll{kernel=matmul_0 compute=0 axis=i1_i}",
            [te.split("i1", 2), te.unroll("i1.i")],
        ),
    ],
)
def test_pass_appends_its_primitive(pipeline: str, appended: list | None):
    module = te_module(matmul(6, 10, 7))  # no default schedule for a shape this odd
    (compute,) = computes(kernels(module)[0])
    assert compute.schedule == ()
    if appended is None:
        with pytest.raises(
            MinitvmError, match="cannot fuse the spatial loop 'i0' with the reduction loop 'r0'"
        ):
            apply(module, pipeline)
        assert compute.schedule == ()
        return
    apply(module, pipeline)
    assert list(compute.schedule) == appended


def test_fuse_of_several_axes_chains_and_lowers_to_one_loop():
    module = te_module(conv_relu())
    apply(module, "te-fuse{kernel=fused_conv_0 compute=anchor axes=i0,i1,i2}")
    anchor = next(c for c in computes(kernels(module)[0]) if c.label == "anchor")
    assert list(anchor.schedule) == [te.fuse("i0", "i1"), te.fuse("i0.i1.fused", "i2")]
    loops = scheduled_nest(anchor).loops
    assert (loops[0].name, loops[0].extent) == ("i0.i1.fused.i2.fused", 1 * 32 * 8)


def test_compute_at_and_mark_inline_append_kernel_level_primitives():
    module = te_module(conv_relu())
    kernel = kernels(module)[0]
    _, _, bias, relu = computes(kernel)  # pad, anchor (conv), bias, relu
    relu.attributes[te.SCHEDULE_ATTR] = ArrayAttr([])
    bias.attributes[te.SCHEDULE_ATTR] = ArrayAttr([])
    apply(
        module,
        "te-mark-inline{kernel=fused_conv_0 compute=2},te-compute-at{kernel=fused_conv_0 compute=3 target=anchor axis=i1}",
    )
    assert list(bias.schedule) == [te.inline()]
    assert list(relu.schedule) == [te.compute_at("anchor", "i1")]


@pytest.mark.parametrize(
    ("pipeline", "message"),
    [
        (
            "te-split{kernel=conv_0 compute=0 axis=i0 factor=2}",
            r"no te kernel @conv_0 \(te kernels: @fused_conv_0\)",
        ),
        (
            "te-split{kernel=fused_conv_0 compute=4 axis=i0 factor=2}",
            r'has no compute 4 \(computes: 0, 1 \("anchor"\), 2, 3\)',
        ),
        (
            "te-split{kernel=fused_conv_0 compute=conv axis=i0 factor=2}",
            'has no compute named "conv"',
        ),
        (
            "te-split{kernel=fused_conv_0 compute=anchor axis=i9 factor=2}",
            r"no loop named 'i9' \(loops: i0, i1, i2, r0, r1, r2, i3\)",
        ),
        (
            "te-split{kernel=fused_conv_0 compute=anchor axis=i0 factor=0}",
            "split factor of 'i0' must be >= 1",
        ),
        ("te-mark-inline{kernel=fused_conv_0 compute=anchor}", "cannot inline the reduction"),
        (
            "te-compute-at{kernel=fused_conv_0 compute=3 target=anchor axis=r0}",
            "not an unsplit spatial axis",
        ),
        (
            "te-compute-at{kernel=fused_conv_0 compute=3 target=pad axis=i0}",
            'no compute named "pad"',
        ),
        (
            "te-fuse{kernel=fused_conv_0 compute=anchor axes=i0,i2}",
            "'i2' is not the loop right inside 'i0'",
        ),
        ("te-fuse{kernel=fused_conv_0 compute=anchor axes=i0}", "needs two or more axes"),
        ("te-fuse{kernel=fused_conv_0 compute=anchor axes=i3,r0}", "cannot fuse 'i3' and 'r0'"),
        (
            "te-reorder{kernel=fused_conv_0 compute=anchor order=i1,i0,i1}",
            "reorder i1, i0, i1 drops loop 'i0'",
        ),
        (
            "te-tile{kernel=fused_conv_0 compute=anchor axes=i2,i3 factors=2}",
            "2 axes but 1 factors",
        ),
        (
            "te-pack{kernel=fused_conv_0 compute=anchor operand=5 factor=4}",
            r"reads no operand 5 \(operands: 0 \(tensor<1x16x10x10xf32>\), 1 \(tensor<32x16x3x3xf32>\)\)",
        ),
        ("te-pack{kernel=fused_conv_0 compute=anchor operand=1 dim=4 factor=4}", "has no dim 4"),
        (
            "te-pack{kernel=fused_conv_0 compute=anchor operand=1 dim=1 factor=17}",
            "between 1 and the dim's extent 16",
        ),
    ],
)
def test_what_does_not_apply_is_a_clean_error_and_changes_nothing(pipeline: str, message: str):
    module = te_module(conv_relu())
    before = str(module)
    with pytest.raises(MinitvmError, match=message):
        apply(module, pipeline)
    assert str(module) == before


def test_loops_are_fused_before_they_are_marked():
    module = te_module(conv_relu())
    apply(module, "te-parallel{kernel=fused_conv_0 compute=anchor axis=i1}")
    with pytest.raises(MinitvmError, match="fuse 'i1' and 'i2' before marking them"):
        apply(module, "te-fuse{kernel=fused_conv_0 compute=anchor axes=i1,i2}")


def test_minitvm_opt_reports_a_pass_error_in_one_line(tmp_path, capsys):
    from minitvm.tools.minitvm_opt import main

    source = tmp_path / "k.mlir"
    source.write_text(
        "func.func @k(%x: tensor<4xf32>) -> tensor<4xf32> attributes {te.kernel} {\n"
        "  %y = te.compute (%i) in [4] : tensor<4xf32> {\n"
        "    %a = te.read %x[%i] : tensor<4xf32>\n"
        "    te.yield %a : f32\n"
        "  }\n"
        "  func.return %y : tensor<4xf32>\n"
        "}\n"
    )
    assert main([str(source), "-p", "te-vectorize{kernel=k compute=0 axis=i1}"]) == 1
    err = capsys.readouterr().err
    assert "error: @k compute 0: schedule: no loop named 'i1' (loops: i0)" in err
    assert "Traceback" not in err


# --------------------------------------------------------------------------------------------
# Schedules keep results: by hand
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pipeline",
    [
        "te-tile{kernel=matmul_0 compute=0 axes=i0,i1 factors=4,5}",
        "te-split{kernel=matmul_0 compute=0 axis=r0 factor=3},te-reorder{kernel=matmul_0 compute=0 order=r0_o,i0,i1,r0_i}",
        "te-reorder{kernel=matmul_0 compute=0 order=i0,i1,r0},te-fuse{kernel=matmul_0 compute=0 axes=i0,i1},te-parallel{kernel=matmul_0 compute=0 axis=i0_i1_fused}",
        "te-split{kernel=matmul_0 compute=0 axis=i0 factor=4},te-fuse{kernel=matmul_0 compute=0 axes=i0_o,i0_i},te-unroll{kernel=matmul_0 compute=0 axis=r0}",
        "te-pack{kernel=matmul_0 compute=0 operand=1 factor=4}",
        "te-pack{kernel=matmul_0 compute=0 operand=0 dim=0 factor=4},te-pack{kernel=matmul_0 compute=1 operand=1 dim=0 factor=3}",
    ],
)
def test_small_matmul_schedules_keep_results(pipeline: str):
    check_same_results(matmul(6, 10, 7), pipeline, num_threads=2)


def test_packed_blocked_gemm_keeps_results_and_reads_the_panels_with_unit_stride():
    """The default register block (4 x 64 with AVX-512, 4 x 16 with AVX2) plus packing B into
    16-column panels: the k loop loads only vectors of the packed panels (no vector load of
    B itself), and LLVM keeps the block's 16 (4) 16-lane accumulators in registers across it
    (the hot loop stores nothing)."""
    fmas = 4 * {32: 64, 16: 16}[VECTOR_REGISTERS] // LANES  # of 16 lanes, per step of k
    case = matmul(8, 512, 128)
    pipeline = "te-pack{kernel=matmul_0 compute=0 operand=1 dim=1 factor=16}"
    scheduled = check_same_results(case, pipeline, rtol=1e-6)
    packed, _ = computes(kernels(scheduled)[0])
    assert packed.label == "packed" and packed.shape == (8, 512, 16)
    for lowering in (ConvertTeToLoopPass(), UnrollPass(), VectorizePass()):
        lowering.apply(make_context(), scheduled)
    kernel = next(
        op for op in scheduled.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "matmul_0"
    )
    b, panels = kernel.body.block.args[1], kernel.body.block.args[3]  # (A, B, C, scratch)
    vloads = [op for op in kernel.walk() if op.name == "loop.vload"]
    assert vloads and not any(op.operands[0] is b for op in vloads)
    assert sum(op.operands[0] is panels for op in vloads) == fmas  # one per FMA of the block
    lowered, _ = lower_to_llvm(scheduled)
    ir = compile_llvm(lowered).optimized_ir()
    blocks = re.split(r"\n(?=[\w.]+:)", ir)
    hot = max(blocks, key=lambda block: block.count("@llvm.fma.v16f32"))
    assert hot.count("@llvm.fma.v16f32") >= fmas
    assert "store " not in hot


@pytest.mark.parametrize("axes", ["i0,i1", "i1,i2", "i0,i1,i2"])
def test_fusing_a_fused_conv_keeps_results_on_two_threads(axes: str):
    """Fusing the anchor's outer loops (the epilogue, attached at i2, follows into the fused
    loop) and running the fused loop in parallel."""
    fused = ".".join(a for a in axes.split(",")[:2]) + ".fused"
    for axis in axes.split(",")[2:]:
        fused = f"{fused}.{axis}.fused"
    pipeline = (
        f"te-fuse{{kernel=fused_conv_0 compute=anchor axes={axes}}},"
        f'te-parallel{{kernel=fused_conv_0 compute=anchor axis="{fused}"}}'
    )
    scheduled = check_same_results(conv_relu(), pipeline, num_threads=2)
    anchor = next(c for c in computes(kernels(scheduled)[0]) if c.label == "anchor")
    loops = scheduled_nest(anchor).loops
    assert [lp.name for lp in loops if lp.hints] == [fused]
    assert loops[[lp.name for lp in loops].index(fused)].hints == {loop.PARALLEL_HINT}


def blocked_conv_relu() -> tuple[onnx.ModelProto, func.FuncOp, te.ComputeOp]:
    """A batch-1 3x3 conv 16 -> 32 channels (2 NCHW16c blocks with AVX-512, 4 NCHW8c ones
    with AVX2) at 14x14 + relu: the model, its fused conv kernel lowered to te for 2
    threads, and that kernel's anchor."""
    net = Net(7)
    x = net.input("x", [1, 16, 14, 14])
    y = net.op("Conv", [x, net.weight("w", [32, 16, 3, 3], 0.1)], pads=[1, 1, 1, 1])
    model = net.model([net.op("Relu", [y])])
    module = from_onnx(model)
    lower_to_te(module, num_threads=2, winograd="never")
    (kernel,) = [k for k in kernels(module) if k.sym_name.data.startswith("fused_conv_nchwc")]
    # a row of 14 pixels (7 where 14 are more than the accumulators: AVX2's 12) of one
    # channel block (the default takes 7 x 2 blocks with AVX-512, 2 x 4 with AVX2)
    ow_block = 14 if 14 <= MAX_ACCUMULATORS else 7
    set_kernel_config(
        kernel,
        {
            "ow_block": ow_block,
            "oc_block": 1,
            "reduction_order": "c_kh_kw",
            "unroll_kw": 0,
            "c_block": 0,
        },
    )
    return model, kernel, next(c for c in computes(kernel) if c.label == "anchor")


def test_a_blocked_conv_runs_its_channel_blocks_and_rows_as_one_parallel_loop():
    """The use case of fuse, in the conv template's schedule: a batch-1 NCHW16c conv + relu
    with 2 channel blocks gives its threads 28 (block, row) iterations, not 2 blocks (in
    NCHW8c, 4 blocks: 56), and the relu still runs row by row inside that loop; the results
    stay those of ONNX Runtime."""
    model, kernel, anchor = blocked_conv_relu()
    loops = scheduled_nest(anchor).loops
    blocks = 32 // CONV_BLOCK
    assert [(lp.name, lp.extent) for lp in loops[:2]] == [("i0", 1), ("i1.i2.fused", blocks * 14)]
    assert loops[1].hints == {loop.PARALLEL_HINT}
    assert any(te.compute_at("anchor", "i2") in c.schedule for c in computes(kernel))
    feeds = {"x": np.random.default_rng(0).standard_normal((1, 16, 14, 14)).astype(np.float32)}
    (got,) = minitvm.compile(model, num_threads=2, winograd="never").run(feeds)
    (want,) = run_ort(model, feeds)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_an_epilogue_shares_the_axes_of_a_fused_loop_all_or_none():
    """The conv's (channel block, row) loop: the relu may run in it (depth 3: i0 and both
    fused axes) but never at the channel block alone, which is no loop of its own."""
    from minitvm.schedules.fused import _attach_depth, _outer_spatial_loops

    _, kernel, anchor = blocked_conv_relu()
    relu = computes(kernel)[-1]
    shared = _outer_spatial_loops(anchor)
    assert shared == [(0, 1, True), (1, 32 // CONV_BLOCK, False), (2, 14, True)]
    assert _attach_depth(relu, shared, [anchor]) == 3
    # rows the relu does not have: it cannot share the fused loop, so not i1 either
    assert _attach_depth(relu, [*shared[:2], (2, 15, True)], [anchor]) == 1


@pytest.mark.parametrize("leaves_the_l2", [True, False])
def test_an_epilogue_splits_the_channel_blocks_as_the_conv_where_an_image_leaves_the_l2(
    monkeypatch: pytest.MonkeyPatch, leaves_the_l2: bool
):
    """A conv whose register block spans several channel blocks (2 of 16 channels with
    AVX-512, 4 of 8 with AVX2) runs (block group, row) as one loop. Where an image of its
    output is more than half the L2, the bias + relu split their channel blocks the same way
    and run in that loop, row by row, on the thread that computed the row; otherwise after
    each image (at i0). Both match ONNX Runtime on two threads, at a batch of 2."""
    from minitvm.dialects.te_nest import kernel_nests
    from minitvm.schedules import fused

    image = 64 * 14 * 14 * 4  # 64 channels at 14 x 14, f32
    monkeypatch.setattr(fused, "L2_BYTES", image if leaves_the_l2 else 2 * image)
    net = Net(8)
    x = net.input("x", [2, 16, 14, 14])
    w, b = net.weight("w", [64, 16, 3, 3], 0.1), net.weight("b", [64])
    model = net.model([net.op("Relu", [net.op("Conv", [x, w, b], pads=[1, 1, 1, 1])])])
    module = from_onnx(model)
    lower_to_te(module, num_threads=2, winograd="never")
    (kernel,) = [k for k in kernels(module) if k.sym_name.data.startswith("fused_conv_nchwc")]
    nests = kernel_nests(kernel)
    (epilogue,) = [c for c, _, _ in nests.attachments]
    (axis,) = [a for _, _, a in nests.attachments]
    (conv,) = [c for _, c, _ in nests.attachments]
    (split,) = [p for p in conv.schedule if isinstance(p, te.SplitAttr) and p.axis.data == "i1"]
    assert split == te.split("i1", {32: 2, 16: 4}[VECTOR_REGISTERS])
    if leaves_the_l2:
        assert split in epilogue.schedule
        assert axis == "i1.o.i2.fused"
        assert [lp.name for lp in nests.nests[epilogue].loops][1:3] == ["i1.o.i2.fused", "i1.i"]
    else:
        assert not any(isinstance(p, te.SplitAttr) for p in epilogue.schedule)
        assert axis == "i0"
    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((2, 16, 14, 14)).astype(np.float32)}
    (got,) = minitvm.compile(model, num_threads=2, winograd="never").run(feeds)
    (want,) = run_ort(model, feeds)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_fuse_splits_and_guards_compose():
    """A non-dividing split of a fused loop: its guard bounds the fused index, from which
    both parts are recovered."""
    pipeline = (
        "te-fuse{kernel=fused_conv_0 compute=0 axes=i1,i2},"
        "te-split{kernel=fused_conv_0 compute=0 axis=i1_i2_fused factor=7},"
        "te-fuse{kernel=fused_conv_0 compute=anchor axes=r1,r2},"
        "te-split{kernel=fused_conv_0 compute=anchor axis=r1_r2_fused factor=4}"
    )
    check_same_results(conv_relu(8), pipeline, num_threads=2)


def test_packing_a_conv_weight_keeps_results():
    """The weight w[f, c, kh, kw] packed by blocks of 16 output channels (the conv_nchwc
    layout's weight, made per call); the epilogue stays attached."""
    pipeline = "te-pack{kernel=fused_conv_0 compute=anchor operand=1 dim=0 factor=16}"
    scheduled = check_same_results(conv_relu(), pipeline)
    packed = next(c for c in computes(kernels(scheduled)[0]) if c.label == "packed")
    assert packed.shape == (2, 16, 3, 3, 16)


def test_pack_of_an_attached_epilogue_runs_before_the_loops_it_runs_in():
    """The bias of a conv's epilogue, which runs inside the conv's loops, is packed at the
    kernel's start; the conv's own result cannot be packed for it (it is not complete until
    the loops the epilogue runs in are done)."""

    def attach_bias(module: ModuleOp) -> str:
        _, _, bias, _ = computes(kernels(module)[0])
        bias.attributes[te.SCHEDULE_ATTR] = ArrayAttr([te.compute_at("anchor", "i2")])
        return "te-pack{kernel=fused_conv_0 compute=2 operand=1 dim=0 factor=8}"

    scheduled = check_same_results(conv_relu(), attach_bias)
    first = computes(kernels(scheduled)[0])[0]
    assert first.label == "packed" and first.shape == (4, 8)
    module = te_module(conv_relu())
    with pytest.raises(MinitvmError, match=r"compute 2 is inlined into its readers"):
        apply(module, "te-pack{kernel=fused_conv_0 compute=2 operand=1 dim=0 factor=8}")
    with pytest.raises(MinitvmError, match=r'compute 3 runs in the loops of .* \("anchor"\)'):
        apply(module, "te-pack{kernel=fused_conv_0 compute=3 operand=0 dim=1 factor=8}")


# --------------------------------------------------------------------------------------------
# Schedules keep results: at random, fuse and pack included
# --------------------------------------------------------------------------------------------


def _quoted(*names: str) -> str:
    return ",".join(f'"{n}"' for n in names)


def random_pipeline(module: ModuleOp, rng: random.Random) -> str:
    """te-pack of a random operand, then random split, fuse, reorder and hint passes on every
    compute (their options tracked on the loop nests), as one `-p` pipeline."""
    kernel = kernels(module)[0]
    name = kernel.sym_name.data
    steps: list[str] = []
    readers = [
        n
        for n, c in enumerate(computes(kernel))
        if any(isinstance(o, te.ReadOp) for o in c.body.walk())
    ]
    if readers and rng.random() < 0.7:
        n = rng.choice(readers)
        reads = {
            o.tensor: None for o in computes(kernel)[n].body.walk() if isinstance(o, te.ReadOp)
        }
        operand = rng.randrange(len(reads))
        shape = list(reads)[operand].type.get_shape()
        dim = rng.randrange(len(shape))
        factor = rng.randint(1, shape[dim])
        steps.append(
            f"te-pack{{kernel={name} compute={n} operand={operand} dim={dim} factor={factor}}}"
        )
        apply(module, steps[-1])
    for n, compute in enumerate(computes(kernel)):
        where = f"kernel={name} compute={n}"
        nest = default_nest(compute)
        for _ in range(rng.randint(0, 2)):
            lp = rng.choice(nest.loops)
            factor = rng.randint(1, lp.extent + 1)
            nest.apply(te.split(lp.name, factor))
            steps.append(f'te-split{{{where} axis="{lp.name}" factor={factor}}}')
        for _ in range(rng.randint(0, 2)):
            pairs = [
                (a, b) for a, b in zip(nest.loops, nest.loops[1:]) if a.reduction == b.reduction
            ]
            if pairs:
                a, b = rng.choice(pairs)
                nest.apply(te.fuse(a.name, b.name))
                steps.append(f"te-fuse{{{where} axes={_quoted(a.name, b.name)}}}")
        names = [lp.name for lp in nest.loops]
        if len(names) > 1:
            picked = rng.sample(names, rng.randint(2, len(names)))
            nest.apply(te.reorder(*picked))
            steps.append(f"te-reorder{{{where} order={_quoted(*picked)}}}")
        for hint in ("vectorize", "unroll", "parallel"):
            if rng.random() < 0.5:
                steps.append(f'te-{hint}{{{where} axis="{rng.choice(names)}"}}')
    return ",".join(steps)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("seed", range(4))
def test_random_schedules_with_fuse_and_pack_keep_results(case: str, seed: int):
    shapes, body = CASES[case]
    inputs = inputs_for(shapes, seed)
    expected = run(te_module((shapes, body)), inputs)
    module = te_module((shapes, body))
    for compute in module.walk():  # the random schedule replaces the default one
        compute.attributes.pop(te.SCHEDULE_ATTR, None)
    pipeline = random_pipeline(module.clone(), random.Random(f"{case}-{seed}"))
    apply(module, pipeline)
    got = run(module, inputs)
    for e, r in zip(expected, got, strict=True):
        np.testing.assert_allclose(r, e, rtol=1e-5, atol=1e-6, err_msg=pipeline)
