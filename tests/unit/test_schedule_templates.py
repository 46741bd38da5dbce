"""Schedule templates and kernel configs: every config of a space computes the same result,
invalid ones are rejected before building, task keys identify kernels by structure, and
configs given to `compile` replace the defaults.
"""

from __future__ import annotations

import random
from itertools import product

import numpy as np
import onnx
import pytest
from test_fusion import Net
from test_schedules import specs
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import minitvm
from minitvm.compiler import CONV_BLOCK, build, lower_to_te, random_inputs
from minitvm.dialects import loop, te
from minitvm.dialects.te_nest import scheduled_nest
from minitvm.frontend import from_onnx
from minitvm.lowering.te_to_loop import ConvertTeToLoopPass
from minitvm.machine import Measured
from minitvm.schedules import gemm
from minitvm.schedules.base import (
    L1_BYTES,
    L2_BYTES,
    MAX_ACCUMULATORS,
    VECTOR_REGISTERS,
    InvalidConfig,
    Knob,
)
from minitvm.schedules.conv import ConvNchwcTemplate, PointwiseConvNchwTemplate
from minitvm.schedules.gemm import (
    GemmTemplate,
    default_block,
    fits,
    widest_columns,
)
from minitvm.schedules.injective import InjectiveTemplate
from minitvm.schedules.kernel import (
    kernel_task_key,
    kernel_template,
    kernels,
    set_kernel_config,
)
from minitvm.schedules.pool import PoolNchwcTemplate
from minitvm.schedules.reduction import ReductionTemplate


def matmul_model(m: int, k: int, n: int) -> onnx.ModelProto:
    net = Net(1)
    x = net.input("x", [m, k])
    y = net.op("MatMul", [x, net.weight("w", [k, n], 0.1)])
    return net.model([net.op("Relu", [net.op("Add", [y, net.weight("b", [n])])])])


def conv_model(
    channels: int = 32, size: int = 10, twice: bool = False, out_channels: int = 32
) -> onnx.ModelProto:
    net = Net(2)
    x = net.input("x", [1, channels, size, size])
    w = net.weight("w", [out_channels, channels, 3, 3], 0.1)
    y = net.op("Relu", [net.op("Conv", [x, w], pads=[1, 1, 1, 1])])
    if twice:  # a second conv of the same shape: the same tuning task
        y = net.op("Conv", [y, net.weight("w2", [32, 32, 3, 3], 0.1)], pads=[1, 1, 1, 1])
    return net.model([y])


def depthwise_model(channels: int = 32, size: int = 10) -> onnx.ModelProto:
    net = Net(5)
    x = net.input("x", [1, channels, size, size])
    w = net.weight("w", [channels, 1, 3, 3], 0.3)
    return net.model([net.op("Relu", [net.op("Conv", [x, w], pads=[1, 1, 1, 1], group=channels)])])


def grouped_pointwise_model(size: int = 7) -> onnx.ModelProto:
    """A grouped 1x1 conv + bias + relu (ShuffleNet's): it stays NCHW."""
    net = Net(6)
    x = net.input("x", [1, 8, size, size])
    conv = net.op("Conv", [x, net.weight("w", [8, 4, 1, 1]), net.weight("b", [8])], group=2)
    return net.model([net.op("Relu", [conv])])


def blocked_pool_model(kind: str = "MaxPool") -> onnx.ModelProto:
    """A 1x1 conv (so that the pool runs blocked, as a 3-D pool) then a 3x3/2 pool."""
    net = Net(6)
    x = net.input("x", [1, 16, 11, 12])
    y = net.op("Conv", [x, net.weight("w", [32, 16, 1, 1], 0.3)])
    return net.model([net.op(kind, [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])])


def reduce_model() -> onnx.ModelProto:
    net = Net(3)
    x = net.input("x", [6, 96])
    return net.model([net.op("ReduceSum", [x, net.const("axes", np.array([1]))], keepdims=0)])


def reduction_model(op_type: str) -> onnx.ModelProto:
    """A reduction along the last axis of [6, 96] (opset 17: axes as an attribute); ArgMax's
    indices cast back to float."""
    net = Net(3)
    x = net.input("x", [6, 96])
    if op_type == "ArgMax":
        return net.model([net.op("Cast", [net.op("ArgMax", [x], axis=1)], to=onnx.TensorProto.FLOAT)])
    return net.model([net.op(op_type, [x], axes=[1], keepdims=0)])


def quantized_model(kind: str) -> onnx.ModelProto:
    """A float input quantized to u8, then QLinearMatMul by [64, 96] s8 weights ("gemm"), or
    QLinearConv 32 -> 32 3x3 ("conv", "conv_pool": then a 3x3/2 max pool of the u8 result),
    dequantized: integer GEMMs and convs (i32 accumulators), and an integer pool."""
    net = Net(7)
    rng = np.random.default_rng(7)
    scale = lambda name, value: net.const(name, np.array(value, np.float32))
    zero = lambda name, value: net.const(name, np.array(value, np.uint8))
    shape = [8, 64] if kind == "gemm" else [1, 32, 10, 10]
    x = net.op("QuantizeLinear", [net.input("x", shape), scale("sx", 0.02), zero("zx", 128)])
    w = net.const("w", rng.integers(-128, 128, [64, 96] if kind == "gemm" else [32, 32, 3, 3])
                  .astype(np.int8))  # fmt: skip
    w_params = [w, scale("sw", 0.01), net.const("zw", np.array(0, np.int8))]
    y_params = [scale("sy", 0.3), zero("zy", 100)]
    if kind == "gemm":
        y = net.op("QLinearMatMul", [x, scale("sx2", 0.02), zero("zx2", 128), *w_params, *y_params])
    else:
        y = net.op("QLinearConv", [x, scale("sx2", 0.02), zero("zx2", 128), *w_params, *y_params],
                   pads=[1, 1, 1, 1])  # fmt: skip
    if kind == "conv_pool":
        y = net.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    return net.model([net.op("DequantizeLinear", [y, scale("sy2", 0.3), zero("zy2", 100)])])


def add_relu_model() -> onnx.ModelProto:
    net = Net(4)
    x = net.input("x", [4, 64])
    return net.model([net.op("Relu", [net.op("Add", [x, net.weight("b", [64])])])])


def te_module(
    model: onnx.ModelProto, conv_block: int = CONV_BLOCK, winograd: str = "never"
) -> ModuleOp:
    """The model's scheduled te kernels; 3x3 convs direct unless `winograd` says otherwise
    (these tests are about the direct conv template; test_winograd.py has the other)."""
    module = from_onnx(model)
    lower_to_te(module, num_threads=1, conv_block=conv_block, winograd=winograd)
    return module


def run(module: ModuleOp, feeds: list[np.ndarray]) -> np.ndarray:
    main = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    )
    ins, outs = specs(main.function_type.inputs), specs(main.function_type.outputs)
    return build(module, ins, outs, num_threads=1).run({s.name: x for s, x in zip(ins, feeds)})[0]


def templated_kernel(module: ModuleOp, template: str) -> func.FuncOp:
    """The first kernel whose schedule `template` makes."""
    return next(
        k
        for k in kernels(module)
        if (t := kernel_template(k)) is not None and t[1].name == template
    )


def sample(space, rng: random.Random) -> dict:
    return {knob.name: rng.choice(knob.choices) for knob in space}


@pytest.mark.parametrize(
    ("model", "template", "shape"),
    [
        (lambda: matmul_model(8, 64, 96), GemmTemplate, (8, 64)),
        (lambda: conv_model(), ConvNchwcTemplate, (1, 32, 10, 10)),
        (lambda: depthwise_model(), ConvNchwcTemplate, (1, 32, 10, 10)),
        (lambda: conv_model(out_channels=24), ConvNchwcTemplate, (1, 32, 10, 10)),
        (lambda: blocked_pool_model(), PoolNchwcTemplate, (1, 16, 11, 12)),
        (lambda: blocked_pool_model("AveragePool"), PoolNchwcTemplate, (1, 16, 11, 12)),
        (lambda: grouped_pointwise_model(), PointwiseConvNchwTemplate, (1, 8, 7, 7)),
        (reduce_model, ReductionTemplate, (6, 96)),
        (lambda: reduction_model("ReduceProd"), ReductionTemplate, (6, 96)),
        (lambda: reduction_model("ReduceLogSumExp"), ReductionTemplate, (6, 96)),
        (lambda: reduction_model("ArgMax"), ReductionTemplate, (6, 96)),
        (add_relu_model, InjectiveTemplate, (4, 64)),
        (lambda: quantized_model("gemm"), GemmTemplate, (8, 64)),
        (lambda: quantized_model("conv"), ConvNchwcTemplate, (1, 32, 10, 10)),
        (lambda: quantized_model("conv_pool"), PoolNchwcTemplate, (1, 32, 10, 10)),
    ],
    ids=[
        "gemm",
        "conv_nchwc",
        "depthwise_conv_nchwc",
        "conv_nchw8c",
        "max_pool_nchwc",
        "avg_pool_nchwc",
        "pointwise_conv_nchw",
        "reduction",
        "reduction_prod",
        "reduction_log_sum_exp",
        "reduction_arg_max",
        "injective",
        "integer_gemm",
        "integer_conv_nchwc",
        "integer_max_pool_nchwc",
    ],
)
def test_every_valid_config_computes_the_default_result(model, template, shape) -> None:
    proto = model()
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    expected = run(te_module(proto), [x])
    rng = random.Random(4)
    space = template().space(kernel_template(templated_kernel(te_module(proto), template.name))[0])  # type: ignore[index]
    assert space is not None
    tried = 0
    while tried < min(5, len(list(product(*(k.choices for k in space))))):
        module = te_module(proto)
        kernel = templated_kernel(module, template.name)
        config = sample(space, rng)
        try:
            set_kernel_config(kernel, config)
        except InvalidConfig:
            continue
        tried += 1
        np.testing.assert_allclose(
            run(module, [x]), expected, rtol=1e-4, atol=1e-5, err_msg=str(config)
        )


def test_gemm_prefetches_the_next_strip_of_b_where_b_leaves_the_l2() -> None:
    """B of 8 MiB (more than half of any L2 here) read by several blocks of rows: by default
    the next strip of B is prefetched, a vector of it per block of rows (#te.prefetch on the
    column strips and the blocks of rows; on the blocks of K when K is blocked), and every
    variant computes what the plain schedule does, tails of rows and columns included. One
    block of rows (M = 2: AVX-512's 2 x 64 and AVX2's 2 x 32 alike; AVX2 runs M = 4 as two)
    has nothing to spread the prefetches over; rows first has no strip that several blocks
    of rows read in turn."""
    proto = matmul_model(37, 1024, 2048 + 17)
    anchor, template = kernel_template(templated_kernel(te_module(proto), "gemm"))  # type: ignore[misc]
    config = template.default_config(anchor)
    assert config["prefetch"] == int(bool(L2_BYTES))  # type: ignore[index]
    config = {**config, "prefetch": 1}  # type: ignore[dict-item]
    assert template.schedule(anchor, {**config, "k_block": 0})[-1] == te.prefetch("i1.o", "i0.o")
    assert template.schedule(anchor, {**config, "k_block": 256})[-1] == te.prefetch("r0.o", "i0.o")
    with pytest.raises(InvalidConfig, match="cols_first only"):
        template.schedule(anchor, {**config, "tile_order": "rows_first"})
    x = np.random.default_rng(7).standard_normal((37, 1024)).astype(np.float32)
    results = []
    for prefetch, k_block in [(0, 0), (1, 0), (1, 256)]:
        module = te_module(proto)
        variant = {**config, "prefetch": prefetch, "k_block": k_block}
        set_kernel_config(templated_kernel(module, "gemm"), variant)
        results.append(run(module, [x]))
    for result in results[1:]:
        np.testing.assert_allclose(result, results[0], rtol=1e-5, atol=1e-5)
    single = kernel_template(templated_kernel(te_module(matmul_model(2, 1024, 2048)), "gemm"))
    assert single is not None
    config = single[1].default_config(single[0])
    assert config["rows"] == 2 and config["prefetch"] == 0  # type: ignore[index]


def test_a_batch_of_gemms_prefetches_where_the_batch_leaves_the_l2(monkeypatch) -> None:
    """Winograd F(4x4, 3x3)'s product at 14 x 14, 256 channels: 36 GEMMs of 16 x 256 @
    256 x 256. One matrix of B (256 KiB) fits in half a 1 MiB L2, the batch (9 MiB) does
    not: in a model it comes from memory, and the next strip is prefetched."""
    monkeypatch.setattr(gemm, "L2_BYTES", 1 << 20)
    module = te_module(conv_model(256, 14, out_channels=256), winograd="f4x4")
    anchor, template = kernel_template(templated_kernel(module, "gemm"))  # type: ignore[misc]
    assert anchor.shape == (36, 16, 256)
    assert template.default_config(anchor)["prefetch"] == 1  # type: ignore[index]
    monkeypatch.setattr(gemm, "L2_BYTES", 32 << 20)  # (the whole batch in half of it)
    assert template.default_config(anchor)["prefetch"] == 0  # type: ignore[index]


def test_a_classifier_shares_its_column_blocks_among_threads() -> None:
    """y[0, j] = sum_k x[0, k] w[k, j] on 200 columns (16 does not divide them: no GEMM
    block): the reduction template blocks the columns and runs the blocks outermost, where
    the default parallel loop goes, and every config of its space computes the same result."""
    proto = matmul_model(1, 64, 200)
    anchor, template = kernel_template(templated_kernel(te_module(proto), "reduction"))  # type: ignore[misc]
    space = {k.name: k.choices for k in template.space(anchor)}  # type: ignore[union-attr]
    assert space == {"lanes": (0, 8), "unroll": (1,), "column_block": (0, 8, 40)}
    assert template.default_config(anchor) == {"lanes": 8, "unroll": 1, "column_block": 40}
    nest = scheduled_nest(anchor)
    assert [(lp.name, lp.extent, lp.hints) for lp in nest.loops] == [
        ("i0", 1, set()), ("i1.o", 5, {loop.PARALLEL_HINT}), ("r0", 64, set()),
        ("i1.i.o", 5, set()), ("i1.i.i", 8, {loop.VECTORIZE_HINT}),
    ]  # fmt: skip
    x = np.random.default_rng(6).standard_normal((1, 64)).astype(np.float32)
    results = []
    for values in product(*space.values()):
        module = te_module(proto)
        set_kernel_config(templated_kernel(module, "reduction"), dict(zip(space, values)))
        results.append(run(module, [x]))
    assert len(results) == 6  # 8 lanes divide every block: all valid
    for result in results[1:]:
        np.testing.assert_allclose(result, results[0], rtol=1e-5, atol=1e-5)
    # with two rows the rows are the threads' share: no blocks
    anchor, template = kernel_template(
        templated_kernel(te_module(matmul_model(2, 64, 200)), "reduction")
    )  # type: ignore[misc]
    assert [k.name for k in template.space(anchor)] == ["lanes", "unroll"]  # type: ignore[union-attr]
    assert scheduled_nest(anchor).loops[0].hints == {loop.PARALLEL_HINT}


def test_a_grouped_pointwise_conv_runs_register_blocks_of_its_rows_when_they_are_short() -> None:
    """Up to 14x14 pixels the reduction moves outside the rows, which run as one loop that
    input and output walk contiguously, in register blocks of one group's output channels x
    pixels: up to 4 channels x the most pixels whose accumulators take half the vector
    registers. Where a block has several channels the bias and relu then run after the
    anchor (its channel loop is split), else after each channel."""
    # (oc_block, pixel_block) at 7x7, 14x14 and 11x11. 16 zmm: 4 channels x 49 pixels (4
    # vectors each), and 121 pixels (8 vectors) in 2 channels. 8 ymm: 49 pixels (7 vectors)
    # in one channel, 2 x 28 (4 each), and 121 (16) not even in one: one channel, all 121.
    blocks = {
        32: {7: (4, 49), 14: (4, 49), 11: (2, 121)},
        16: {7: (1, 49), 14: (2, 28), 11: (1, 121)},
    }[VECTOR_REGISTERS]

    def nest(oc_block: int, split_pixels: bool) -> list[str]:
        channels, block = (["i1.o"], ["i1.i"]) if oc_block > 1 else (["i1"], [])
        pixels = ["i2.i3.fused.o"] if split_pixels else []
        inner = "i2.i3.fused.i" if split_pixels else "i2.i3.fused"
        return ["i0", *channels, *pixels, "r0", "r1", "r2", *block, inner]

    # the pixel blocks: 16 to 256 pixels that divide their count, or all of them
    for size, pixel_blocks in [(7, (49,)), (14, (28, 49, 98, 196)), (11, (121,))]:
        kernel = templated_kernel(te_module(grouped_pointwise_model(size)), "conv_nchw")
        anchor, template = kernel_template(kernel)  # type: ignore[misc]
        space = [(k.name, k.choices) for k in template.space(anchor)]  # type: ignore[union-attr]
        # 2 groups of 4 output channels: a block never straddles two groups
        assert space == [
            ("fuse_rows", (0, 1)), ("oc_block", (1, 2, 4)), ("pixel_block", pixel_blocks),
        ]  # fmt: skip
        oc_block, pixel_block = blocks[size]
        assert template.default_config(anchor) == {
            "fuse_rows": 1, "oc_block": oc_block, "pixel_block": pixel_block,
        }  # fmt: skip
        names = [lp.name for lp in scheduled_nest(anchor).loops]
        assert names == nest(oc_block, pixel_block < size * size), size
        ops = kernel.body.block.ops
        epilogue = [c for c in ops if isinstance(c, te.ComputeOp) and c is not anchor][-1]
        axis = "i0" if oc_block > 1 else "i1"
        assert te.compute_at("anchor", axis) in epilogue.schedule, size
    large = kernel_template(templated_kernel(te_module(grouped_pointwise_model(15)), "conv_nchw"))
    assert large is not None
    assert large[1].default_config(large[0]) == {"fuse_rows": 0, "oc_block": 1, "pixel_block": 225}
    assert large[0].schedule == ()


def test_pointwise_conv_blocks_need_fused_rows_and_registers() -> None:
    kernel = templated_kernel(te_module(grouped_pointwise_model(14)), "conv_nchw")
    anchor, template = kernel_template(kernel)  # type: ignore[misc]
    with pytest.raises(InvalidConfig, match="register blocks need fuse_rows"):
        template.schedule(anchor, {"fuse_rows": 0, "oc_block": 2, "pixel_block": 196})
    message = f"4 channels x 196 pixels need more than {MAX_ACCUMULATORS} accumulator"
    with pytest.raises(InvalidConfig, match=message):
        template.schedule(anchor, {"fuse_rows": 1, "oc_block": 4, "pixel_block": 196})
    # one channel and all the pixels: the rows fused, accumulating in memory as before
    assert template.schedule(anchor, {"fuse_rows": 1, "oc_block": 1, "pixel_block": 196}) == [
        te.reorder("i0", "i1", "r0", "r1", "r2", "i2", "i3"), te.fuse("i2", "i3"),
        te.vectorize("i2.i3.fused"),
    ]  # fmt: skip


def test_gemm_space_and_default() -> None:
    kernel = templated_kernel(te_module(matmul_model(8, 512, 128)), "gemm")
    anchor, template = kernel_template(kernel)  # type: ignore[misc]
    assert template.name == "gemm"
    space = {k.name: k.choices for k in template.space(anchor)}  # type: ignore[union-attr]
    assert space["rows"] == (1, 2, 3, 4, 5, 6, 7, 8)  # (any height: a shorter block ends M)
    assert space["cols"] == (16, 32, 64, 128)
    assert space["k_block"] == (0, 32, 64, 128, 256)
    # the weights are packed: all of K where the strip (512 x cols floats) fits in half the
    # L2; else (two blocks of rows read each block of B) the deepest block of K, 64 at
    # least, whose B block fits in half the L1 (48 KiB: 64)
    rows, cols = default_block(8, range(1, 9), (64, 32, 16))  # type: ignore[misc]
    strip_in_l2 = bool(L2_BYTES) and 512 * cols * 4 <= L2_BYTES // 2
    fitting = [k for k in (64, 128, 256) if L1_BYTES and k * cols * 4 <= L1_BYTES // 2]
    if strip_in_l2:
        k_block = 0
    else:
        k_block = max(fitting) if fitting else 256
    # (B, 256 KiB, stays in L2 from one run to the next: no prefetch)
    assert template.default_config(anchor) == {
        "rows": rows, "cols": cols, "lanes": 16, "k_block": k_block, "tile_order": "cols_first",
        "prefetch": 0 if L2_BYTES >= 2 * 512 * 128 * 4 else 1,
    }  # fmt: skip
    # 6 x 64 (AVX-512) or 6 x 16 (AVX2), evened out over 8 rows: two blocks of 4
    assert (rows, cols) == {32: (4, 64), 16: (4, 16)}[VECTOR_REGISTERS]
    # one block of rows (M = 4) reads each column strip once: no blocking of K for L1 pays
    single = templated_kernel(te_module(matmul_model(4, 512, 128)), "gemm")
    anchor, template = kernel_template(single)  # type: ignore[misc]
    config = template.default_config(anchor)
    k_block = 0 if L2_BYTES and 512 * config["cols"] * 4 <= L2_BYTES // 2 else 256  # type: ignore[operator]
    assert config["k_block"] == k_block  # type: ignore[index]


@pytest.mark.parametrize(
    ("fma", "l2", "rows", "streams"),
    [(107.7, 110.0, 4, True), (245.0, 120.0, 4, False), (245.0, 120.0, 8, True),
     (107.7, 110.0, 2, False), (107.7, None, 4, False)],
)  # fmt: skip
def test_b_streams_from_l2_where_the_l2_keeps_up_with_the_fmas(
    monkeypatch: pytest.MonkeyPatch, fma: float, l2: float | None, rows: int, streams: bool
) -> None:
    """A block of `rows` rows at the FMA peak needs 2 / rows bytes of B a flop: a Zen 4 core
    (107.7 GFLOP/s, L2 about 110 GB/s) streams a 4-row block's B from L2, a Sapphire Rapids
    core (245 GFLOP/s) does not, unless the block is taller; nothing measured, nothing
    streamed."""
    measured = Measured(fma, 24, 24.0, 1 << 26, "now", l2_bandwidth_gbs=l2)
    monkeypatch.setattr(gemm, "measured_here", lambda: measured)
    assert gemm.streams_b_from_l2(rows) == streams


@pytest.mark.parametrize("streams", [True, False])
def test_gemm_k_block_follows_where_b_streams_from(
    monkeypatch: pytest.MonkeyPatch, streams: bool
) -> None:
    """GPT-2-like 64 x 768 @ 768 x 1000 packed (AVX-512's 64 columns: a strip of 768 x 64
    floats, 192 KiB, in half of a 1 MiB L2): all of K, wherever B streams from. A 3072-deep
    product whose strip (768 KiB) does not fit in half the L2: where B streams from L2 at
    the FMA peak, the deepest block whose B block fits in half the L2; else blocks that fit
    in half the L1 (AVX2's 16 columns: every strip fits, all of K)."""
    monkeypatch.setattr(gemm, "streams_b_from_l2", lambda rows: streams)
    monkeypatch.setattr(gemm, "L1_BYTES", 32 << 10)
    monkeypatch.setattr(gemm, "L2_BYTES", 1 << 20)
    anchor, template = kernel_template(templated_kernel(te_module(matmul_model(64, 768, 1000)), "gemm"))  # type: ignore[misc]
    config = template.default_config(anchor)
    assert config is not None and config["cols"] == widest_columns(4)
    assert config["k_block"] == 0
    anchor, template = kernel_template(templated_kernel(te_module(matmul_model(64, 3072, 128)), "gemm"))  # type: ignore[misc]
    in_l1 = {64: 64, 16: 0}[config["cols"]]  # type: ignore[index]
    in_l2 = {64: 512, 16: 0}[config["cols"]]  # type: ignore[index]
    assert template.default_config(anchor)["k_block"] == (in_l2 if streams else in_l1)  # type: ignore[index]


@pytest.mark.parametrize(
    ("registers", "lanes", "height", "block"),
    [
        (32, 16, 64, (6, 64)), (32, 16, 1000, (6, 64)), (32, 16, 7, (4, 64)), (32, 16, 3, (3, 64)),
        (32, 16, 8, (4, 64)), (32, 16, 16, (6, 64)),
        (32, 16, 1, (1, 64)), (16, 8, 64, (6, 16)), (16, 8, 1024, (6, 16)), (16, 8, 8, (4, 16)),
        (16, 8, 13, (5, 16)), (16, 8, 1, (1, 32)),
    ],
)  # fmt: skip
def test_gemm_register_block_follows_the_register_file(
    monkeypatch: pytest.MonkeyPatch,
    registers: int,
    lanes: int,
    height: int,
    block: tuple[int, int],
) -> None:
    """With AVX-512's 32 16-lane registers, 6 x 64 holds 24 accumulators, the fewest loads
    per FMA of the blocks that hold 16 or more (10 for 24; 4 x 64, 8 for 16); AVX2's 16
    8-lane ones hold at most 12 beside a row of B and A's broadcast: 6 x 16 (BLIS's Haswell
    kernel; 4 x 32 would take 21 registers). Blocks are evened out over M: 7 rows are 4 + 3,
    8 rows two blocks of 4 (not 6 + 2), 13 rows with AVX2 5 + 5 + 3; a short M is one block."""
    monkeypatch.setattr("minitvm.schedules.gemm.VECTOR_REGISTERS", registers)
    monkeypatch.setattr("minitvm.schedules.base.REGISTER_LANES", lanes)
    assert default_block(height, range(1, 17), (64, 32, 16)) == block
    assert fits(*block)


@pytest.mark.parametrize("height", [5, 7, 33, 64])
def test_gemm_blocks_that_do_not_divide_m_end_with_a_shorter_block(height: int) -> None:
    """Every block height the registers hold on a product of M rows it does not divide: the
    rows left after the whole blocks run as one shorter block, equal to the reference.
    Blocks of 32 columns where they fit (all with AVX-512), else of 16 (AVX2: 3, 5 and 6
    rows; 7 x 16 would take 17 of its 16 registers)."""
    proto = matmul_model(height, 96, 128)
    x = np.random.default_rng(height).standard_normal((height, 96)).astype(np.float32)
    expected = run(te_module(proto), [x])
    for rows in (r for r in (3, 5, 6, 7) if r <= height and fits(r, 16)):
        cols = 32 if fits(rows, 32) else 16
        module = te_module(proto)
        kernel = templated_kernel(module, "gemm")
        set_kernel_config(kernel, {"rows": rows, "cols": cols, "lanes": 16, "k_block": 32,
                                   "tile_order": "rows_first", "prefetch": 0})  # fmt: skip
        np.testing.assert_allclose(run(module, [x]), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("height", "width"), [(6, 50), (13, 201)])
def test_gemm_column_blocks_that_do_not_divide_n_end_with_a_shorter_block(
    height: int, width: int
) -> None:
    """N that no column block divides (packed in panels, the last one partly padding): every
    block width up to N is in the space, the widest that fits the default; the columns left after the
    whole blocks run as one shorter block, peeled in turn into whole vectors and single
    columns, so no element is guarded (no loop.if); with the fused bias and ReLU, equal to
    the reference."""
    proto = matmul_model(height, 64, width)
    kernel = templated_kernel(te_module(proto), "gemm")
    anchor, template = kernel_template(kernel)  # type: ignore[misc]
    space = {k.name: k.choices for k in template.space(anchor)}  # type: ignore[union-attr]
    assert space["cols"] == tuple(c for c in (16, 32, 48, 64, 96, 128) if c <= width)
    if width > 64:
        assert template.default_config(anchor)["cols"] == widest_columns(4)  # type: ignore[index]
    x = np.random.default_rng(width).standard_normal((height, 64)).astype(np.float32)
    expected = run(te_module(proto), [x])
    np.testing.assert_allclose(expected, np.asarray(minitvm.compile(proto).run({"x": x})[0]))
    for cols, rows in product(space["cols"], (4, 5)):
        if not fits(rows, cols):
            continue
        module = te_module(proto)
        set_kernel_config(templated_kernel(module, "gemm"), {
            "rows": rows, "cols": cols, "lanes": 16, "k_block": 0, "tile_order": "cols_first",
            "prefetch": 0,
        })  # fmt: skip
        ConvertTeToLoopPass().apply(Context(), lowered := module.clone())
        assert not any(isinstance(op, loop.IfOp) for op in lowered.walk()), (rows, cols)
        np.testing.assert_allclose(run(module, [x]), expected, rtol=1e-4, atol=1e-5)


def test_gemm_default_blocks_k_of_a_strided_b() -> None:
    """B read in place (a run-time operand, few rows): blocks of 256 rows of B, the widest
    block of 4 rows the register file holds (4 x 64 with AVX-512)."""
    net = Net(1)
    x, w = net.input("x", [8, 512]), net.input("w", [512, 128])
    kernel = templated_kernel(te_module(net.model([net.op("MatMul", [x, w])])), "gemm")
    anchor, template = kernel_template(kernel)  # type: ignore[misc]
    assert template.default_config(anchor) == {
        "rows": 4, "cols": widest_columns(4), "lanes": 16, "k_block": 256,
        "tile_order": "cols_first", "prefetch": 0,
    }  # fmt: skip


def test_conv_space_and_default() -> None:
    kernel = templated_kernel(te_module(conv_model(size=14)), "conv_nchwc")
    anchor, template = kernel_template(kernel)  # type: ignore[misc]
    assert template.name == "conv_nchwc"
    space = {k.name: k.choices for k in template.space(anchor)}  # type: ignore[union-attr]
    # rows of up to MAX_ACCUMULATORS pixels; 2 channel blocks in NCHW16c, 4 in NCHW8c
    assert space["ow_block"] == tuple(b for b in (1, 2, 7, 14) if b <= MAX_ACCUMULATORS)
    assert space["oc_block"] == {16: (1, 2), 8: (1, 2, 4)}[CONV_BLOCK]
    # the most FMAs per load in half the registers: with AVX-512 7 pixels x both channel
    # blocks (14 FMAs for 7 broadcasts and 2 loads), with AVX2 2 pixels x all 4 (8 FMAs for
    # 2 broadcasts and 4 loads)
    config = template.default_config(anchor)
    assert (config["ow_block"], config["oc_block"]) == {32: (7, 2), 16: (2, 4)}[VECTOR_REGISTERS]


def pointwise_model(channels: int, out_channels: int, size: int) -> onnx.ModelProto:
    """A 1x1 conv + bias + relu: blocked NCHW16c."""
    net = Net(7)
    x = net.input("x", [1, channels, size, size])
    w, b = net.weight("w", [out_channels, channels, 1, 1], 0.1), net.weight("b", [out_channels])
    return net.model([net.op("Relu", [net.op("Conv", [x, w, b])])])


@pytest.mark.parametrize("l1_bytes", [32 * 1024, 48 * 1024, 8 * 1024, None])
def test_conv_default_blocks_the_channels_whose_weights_fit_in_l1(
    monkeypatch: pytest.MonkeyPatch, l1_bytes: int | None
) -> None:
    """YOLOv5's 512 -> 128 1x1 conv at 40x40: each block of 4 pixels x 4 output channel blocks
    of 16 (AVX-512; AVX2: 4 x 2 blocks of 8) would stream 128 KiB (32 KiB) of weights; the
    reduction is split into the deepest blocks of input channel blocks (at least 64
    multiply-adds) whose weights (4 KiB, 512 bytes each) fit in half the L1. No split
    without an L1 to fit, or when no such block fits: for a 3x3 conv, none where the weights
    of one input channel block do not fit either (36 KiB with AVX-512); AVX2's (4.5 KiB) fit
    in half of all but the 8 KiB L1, and are split the same way."""
    monkeypatch.setattr("minitvm.schedules.conv.L1_BYTES", l1_bytes)
    kernel = templated_kernel(te_module(pointwise_model(512, 128, 40)), "conv_nchwc")
    anchor, template = kernel_template(kernel)  # type: ignore[misc]
    space = {k.name: k.choices for k in template.space(anchor)}  # type: ignore[union-attr]
    blocks = 512 // CONV_BLOCK
    assert space["c_block"] == (0, *(c for c in range(1, blocks) if blocks % c == 0))
    config = template.default_config(anchor)
    assert (config["ow_block"], config["oc_block"]) == {32: (4, 4), 16: (4, 2)}[VECTOR_REGISTERS]

    def c_block(in_blocks: int, taps: int, oc_block: int) -> int:
        """The deepest block of `in_blocks` input channel blocks that fits in half the L1."""
        per_block = oc_block * taps * CONV_BLOCK * CONV_BLOCK * 4
        fitting = [
            c for c in range(1, in_blocks) if in_blocks % c == 0 and l1_bytes
            and c * per_block <= l1_bytes // 2 and c * taps * CONV_BLOCK >= 64
        ]  # fmt: skip
        return max(fitting, default=0)

    assert config["c_block"] == c_block(blocks, 1, config["oc_block"])  # type: ignore[arg-type]
    three_by_three = templated_kernel(
        te_module(conv_model(channels=128, size=40, out_channels=128)), "conv_nchwc"
    )
    anchor, template = kernel_template(three_by_three)  # type: ignore[misc]
    config = template.default_config(anchor)
    expected = c_block(128 // CONV_BLOCK, 9, config["oc_block"])  # type: ignore[arg-type]
    assert config["c_block"] == expected
    if CONV_BLOCK == 16:
        assert expected == 0


def test_conv_default_splits_no_reduction_of_a_row_of_two_blocks_too_many_to_keep(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ResNet-50's 1024 -> 256 1x1 conv at 14x14: 7 pixels x 2 channel blocks, two blocks a
    row. LLVM unrolls the loop over those two and keeps both blocks' 28 accumulators in
    registers across the blocks of input channels, where only 32 registers hold them and
    their operands: so the reduction is not split. At 10x10 (5 x 2, 20 accumulators) and
    for rows of more blocks it may be."""
    from minitvm.schedules.conv import _row_outgrows_the_registers

    monkeypatch.setattr("minitvm.schedules.conv.L1_BYTES", 48 * 1024)
    # AVX-512's register file, on any CPU: 32 registers of 16 lanes
    monkeypatch.setattr("minitvm.schedules.conv.VECTOR_REGISTERS", 32)
    monkeypatch.setattr("minitvm.schedules.conv.MAX_ACCUMULATORS", 28)
    monkeypatch.setattr("minitvm.schedules.base.REGISTER_LANES", 16)
    assert _row_outgrows_the_registers(14, 7, 2, 16)  # 28 + 7 + 2 > 32
    assert not _row_outgrows_the_registers(10, 5, 2, 16)  # 20 + 5 + 2
    assert not _row_outgrows_the_registers(28, 4, 4, 16)  # a loop of 7 blocks
    assert not _row_outgrows_the_registers(14, 14, 1, 16)  # one block
    kernel = templated_kernel(te_module(pointwise_model(1024, 256, 14)), "conv_nchwc")
    anchor, template = kernel_template(kernel)  # type: ignore[misc]
    config = template.default_config(anchor)
    if (config["ow_block"], config["oc_block"]) == (7, 2):  # (AVX-512's block)
        assert config["c_block"] == 0


@pytest.mark.parametrize("size", [14, 10, 28])
def test_a_pointwise_conv_keeps_its_vectors_in_registers(size: int) -> None:
    """The innermost loops of a 1x1 conv's kernel store no vector register on the stack
    (spills: what the split reduction of a 14x14 row cost before it was left whole)."""
    import re

    import llvmlite.binding as llvm

    from minitvm.compiler import llvm_ir
    from minitvm.host import target_machine
    from minitvm.lowering.jit import optimize

    tm = target_machine()
    module = llvm.parse_assembly(llvm_ir(pointwise_model(1024, 256, size), num_threads=1))
    optimize(module, tm)
    kernels = [
        body
        for body in tm.emit_assembly(module).split(".Lfunc_end")
        if re.search(r"^fused_conv_nchwc\w*__par\d+:", body, re.M)
    ]
    assert kernels
    for body in kernels:
        assert not re.search(r"vmov[au]ps\s+%[xyz]mm\d+, -?\d*\(%rsp\)", body)


@pytest.mark.parametrize(
    ("oc_block", "reduction_order", "c_block"),
    [(1, "c_kh_kw", 2), (2, "c_kh_kw", 4), (4, "kh_kw_c", 1), (2, "c_kh_kw", 0)],
)
def test_blocked_channel_reductions_compute_the_default_result(
    oc_block: int, reduction_order: str, c_block: int
) -> None:
    """A split reduction runs each block over the whole row before the next, the epilogue
    (bias + relu, attached per row or after the nest) once the last block is in. Rows of 4
    pixels, or 3 where 4 x 4 channel blocks would take more accumulators than there are
    (AVX2's 12)."""
    proto = pointwise_model(128, 64, 12)
    x = np.random.default_rng(3).standard_normal((1, 128, 12, 12)).astype(np.float32)
    expected = run(te_module(proto), [x])
    module = te_module(proto)
    ow_block = 4 if 4 * oc_block <= MAX_ACCUMULATORS else 3  # (a channel block: one register)
    config = {"ow_block": ow_block, "oc_block": oc_block, "reduction_order": reduction_order,
              "unroll_kw": 0, "c_block": c_block}  # fmt: skip
    set_kernel_config(templated_kernel(module, "conv_nchwc"), config)
    np.testing.assert_allclose(run(module, [x]), expected, rtol=1e-4, atol=1e-5)


def test_depthwise_conv_default_is_a_row_of_one_block() -> None:
    """A depthwise conv loads an input vector per pixel: more channel blocks share nothing.
    Its row is the widest whose accumulators, inputs and weights fit in the registers: 7 of
    the 14 pixels with AVX-512 (14 would keep 33 values in 32 registers); with AVX2's 16
    only 2 would fit, too few FMA chains, so 7 stays."""
    net = Net(2)
    x = net.input("x", [1, 32, 14, 14])
    w = net.weight("w", [32, 1, 3, 3], 0.1)
    model = net.model([net.op("Conv", [x, w], pads=[1, 1, 1, 1], group=32)])
    anchor, template = kernel_template(templated_kernel(te_module(model), "conv_nchwc"))  # type: ignore[misc]
    config = template.default_config(anchor)
    assert (config["ow_block"], config["oc_block"]) == (7, 1)


@pytest.mark.parametrize(
    ("size", "stride", "registers", "ow_block"),
    [(112, 1, 32, 8), (112, 1, 16, 4), (112, 2, 32, 8), (112, 2, 16, 4), (14, 1, 16, 7), (7, 1, 32, 7)],
)
def test_depthwise_row_fits_its_values_in_the_registers(
    monkeypatch: pytest.MonkeyPatch, size: int, stride: int, registers: int, ow_block: int
) -> None:
    """A row of ow pixels at stride s keeps ow accumulators, (ow - 1) * s + 3 inputs and 3
    weights (one vector each): the widest that fits (at 112x112 stride 1: 8 pixels, 21
    values, in 32 registers; 4, 13 values, in 16), unless that is under half the widest
    row (14x14 with 16 registers: 2 fit, 7 stays)."""
    from minitvm.schedules.conv import _depthwise_row

    monkeypatch.setattr("minitvm.schedules.conv.VECTOR_REGISTERS", registers)
    monkeypatch.setattr("minitvm.schedules.conv.MAX_ACCUMULATORS", registers - 4)
    net = Net(2)
    x = net.input("x", [1, 32, size, size])
    w = net.weight("w", [32, 1, 3, 3], 0.1)
    conv = net.op("Conv", [x, w], pads=[1, 1, 1, 1], group=32, strides=[stride, stride])
    anchor, _ = kernel_template(templated_kernel(te_module(net.model([conv])), "conv_nchwc"))  # type: ignore[misc]
    assert _depthwise_row(anchor, 1) == ow_block


@pytest.mark.parametrize("block", [32, 64])
def test_conv_default_fits_blocks_of_several_vectors(block: int) -> None:
    """In NCHW64c (`lower_to_te(conv_block=64)`) a pixel's output channels are 4 vectors of
    AVX-512: the default row block shrinks to 2 pixels (8 accumulators, within half the
    registers) instead of failing at 14; with 2 vectors (NCHW32c), 7 pixels. AVX2's 8 ymm
    (half its registers) hold 2 pixels of NCHW32c's 4 vectors, one of NCHW64c's 8."""
    ow_block = {32: {32: 7, 64: 2}, 16: {32: 2, 64: 1}}[VECTOR_REGISTERS][block]
    model = conv_model(channels=64, size=14, out_channels=64)
    x = np.random.default_rng(1).standard_normal((1, 64, 14, 14)).astype(np.float32)
    module = te_module(model, conv_block=block)
    anchor, template = kernel_template(templated_kernel(module, "conv_nchwc"))  # type: ignore[misc]
    assert anchor.shape[4] == block
    assert template.default_config(anchor)["ow_block"] == ow_block
    np.testing.assert_allclose(run(module, [x]), run(te_module(model), [x]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("template", "model", "config", "message"),
    [
        (
            GemmTemplate,
            lambda: matmul_model(8, 64, 128),
            {"rows": 8, "cols": 128, "lanes": 16, "k_block": 0, "tile_order": "cols_first",
             "prefetch": 0},  # fmt: skip
            r"needs \d+ vector registers",
        ),
        (
            GemmTemplate,
            lambda: matmul_model(8, 64, 128),
            {"rows": 10, "cols": 16, "lanes": 16, "k_block": 0, "tile_order": "cols_first",
             "prefetch": 0},  # fmt: skip
            "rows = 10",  # (taller than M)
        ),
        (
            ConvNchwcTemplate,
            lambda: conv_model(size=20),
            # the widest row in the space x 2 channel blocks: 20 x 2 over AVX-512's 28
            # accumulators, 10 x 2 over AVX2's 12
            {
                "ow_block": max(b for b in (10, 20) if b <= MAX_ACCUMULATORS),
                "oc_block": 2,
                "reduction_order": "c_kh_kw",
                "unroll_kw": 0,
                "c_block": 0,
            },
            "accumulator",
        ),
    ],
)
def test_invalid_configs_are_rejected_before_anything_changes(
    template, model, config, message
) -> None:
    kernel = templated_kernel(te_module(model()), template.name)
    before = str(kernel)
    with pytest.raises(InvalidConfig, match=message):
        set_kernel_config(kernel, config)
    assert str(kernel) == before


def test_task_keys_identify_kernels_by_structure_and_target() -> None:
    module = te_module(conv_model(channels=32, twice=True))
    convs = [k for k in kernels(module) if kernel_template(k)[1].name == "conv_nchwc"]  # type: ignore[index]
    assert len(convs) == 2
    # same shapes and epilogue-free second conv vs conv+relu: different kernels
    keys = {kernel_task_key(k, "t1") for k in convs}
    assert len(keys) == 2
    again = [
        k
        for k in kernels(te_module(conv_model(channels=32, twice=True)))
        if kernel_template(k)[1].name == "conv_nchwc"
    ]  # type: ignore[index]
    assert [kernel_task_key(k, "t1") for k in again] == [kernel_task_key(k, "t1") for k in convs]
    assert kernel_task_key(convs[0], "t1") != kernel_task_key(convs[0], "t2")
    # schedules do not change the key
    set_kernel_config(
        convs[0],
        {"ow_block": 5, "oc_block": 2, "reduction_order": "kh_kw_c", "unroll_kw": 1, "c_block": 0},
    )
    assert kernel_task_key(convs[0], "t1") == kernel_task_key(again[0], "t1")


def test_task_keys_change_with_the_search_space(monkeypatch: pytest.MonkeyPatch) -> None:
    """Records are keyed by template and space too: a config tuned for another space (an
    older minitvm's) is never looked up for this one, where it might not even be valid."""
    conv = templated_kernel(te_module(conv_model()), "conv_nchwc")
    before = kernel_task_key(conv, "t1")
    space = ConvNchwcTemplate.space

    def wider(self, compute):  # type: ignore[no-untyped-def]
        knobs = space(self, compute)
        if knobs is None:
            return None
        return [Knob("unroll_kw", (0, 1, 2)) if k.name == "unroll_kw" else k for k in knobs]

    monkeypatch.setattr(ConvNchwcTemplate, "space", wider)
    assert kernel_task_key(conv, "t1") != before


def test_configs_keep_the_inlining_of_an_anchorless_chain() -> None:
    """A reshape + transpose + add chain is one kernel whose first steps are inlined into
    the last; giving it a config keeps them inlined (the kernel measured is the one run)."""
    net = Net(3)
    x = net.input("x", [8, 48])
    y = net.op("Reshape", [x, net.const("shape", np.array([8, 3, 16], np.int64))])
    y = net.op("Transpose", [y], perm=[1, 2, 0])
    y = net.op("Add", [y, net.weight("b", [3, 16, 8])])
    module = te_module(net.model([y]))
    (kernel,) = [k for k in kernels(module) if kernel_template(k) is not None]

    def computes(kernel: func.FuncOp) -> list[te.ComputeOp]:
        return [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]

    inlined = [n for n, c in enumerate(computes(kernel)) if te.InlineAttr() in c.schedule]
    assert inlined
    anchor, template = kernel_template(kernel)  # type: ignore[misc]
    config = dict(
        zip(
            [k.name for k in template.space(anchor)],
            [k.choices[-1] for k in template.space(anchor)],
        )
    )
    set_kernel_config(kernel, config)
    assert [n for n, c in enumerate(computes(kernel)) if te.InlineAttr() in c.schedule] == inlined


def test_compile_applies_the_configs_it_is_given() -> None:
    from minitvm.host import target_key

    proto = conv_model()
    kernel = templated_kernel(te_module(proto), "conv_nchwc")
    key = kernel_task_key(kernel, target_key(1))
    config = {"ow_block": 2, "oc_block": 2, "reduction_order": "kh_kw_c", "unroll_kw": 1,
              "c_block": 0}  # fmt: skip
    tuned = minitvm.compile(proto, num_threads=1, schedules={key: config}, winograd="never")
    default = minitvm.compile(proto, num_threads=1, winograd="never")
    assert tuned.stats["report"].op_counts["tuned kernels"] == 1
    feeds = random_inputs(default)
    np.testing.assert_allclose(tuned.run(feeds)[0], default.run(feeds)[0], rtol=1e-5, atol=1e-6)
    # the config was really used: its primitives are in the te kernel it compiles
    module = from_onnx(proto)
    lower_to_te(module, num_threads=1, schedules={key: config}, winograd="never")
    anchor = kernel_template(templated_kernel(module, "conv_nchwc"))[0]  # type: ignore[index]
    assert te.split("i1", 2) in anchor.schedule and te.unroll("r2") in anchor.schedule


def test_a_long_reduction_carries_a_vector_accumulator_by_default() -> None:
    module = te_module(reduce_model())
    anchor, template = kernel_template(templated_kernel(module, "reduction"))  # type: ignore[misc]
    assert anchor.schedule == (te.vectorize("r0"),)
    x = np.random.default_rng(5).standard_normal((6, 96)).astype(np.float32)
    np.testing.assert_allclose(run(module, [x]), x.sum(axis=1), rtol=1e-5, atol=1e-5)
