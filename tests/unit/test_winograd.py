"""Winograd F(2x2, 3x3) and F(4x4, 3x3): the transform ops' reference against graph.conv,
graph-winograd's rewrite and cost model, the compiled convs against ONNX Runtime, and every
config of the transforms' schedule template."""

from __future__ import annotations

from itertools import product

import numpy as np
import onnx
import pytest
from test_fusion import Net, run_ort
from test_schedules import specs
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Block

import minitvm
from minitvm.compiler import build, lower_to_te
from minitvm.dialects import graph as g
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import ShapeError
from minitvm.dialects.graph.nn import Window
from minitvm.dialects.graph.reference import relayout
from minitvm.dialects.graph.winograd import TRANSFORMS, tile_grid, transform_weight, transforms
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx
from minitvm.passes.graph.winograd import Conv, Roofline, WinogradPass, best_tile
from minitvm.schedules.kernel import kernel_template, kernels, set_kernel_config
from minitvm.schedules.winograd import ORDERS


def _conv(x, w, b, pads):
    out = (x.shape[2] + pads[0] + pads[2] - 2, x.shape[3] + pads[1] + pads[3] - 2)
    return reference._convolve(x, w, b, Window((3, 3), (1, 1), tuple(pads), (1, 1)), 1, out)


@pytest.mark.parametrize(
    ("n", "c", "k", "h", "w", "pads"),
    [
        (1, 16, 32, 8, 8, (1, 1, 1, 1)),
        (2, 32, 16, 7, 9, (1, 1, 1, 1)),  # odd sizes: the last tiles hang over
        (1, 16, 16, 6, 5, (0, 0, 0, 0)),
        (1, 16, 16, 5, 6, (2, 1, 0, 2)),
    ],
)
@pytest.mark.parametrize("tile", TRANSFORMS)
def test_the_transforms_around_a_product_are_the_conv(n, c, k, h, w, pads, tile) -> None:
    """winograd_output(winograd_input(x) @ transform_weight(w)) = conv(x, w) + b, by the
    numpy reference, with zero rows past the tiles."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    weight = rng.standard_normal((k, c, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(k).astype(np.float32)
    expected = _conv(x, weight, bias, pads)
    oh, ow = expected.shape[2:]
    th, tw = tile_grid(oh, ow, tile)
    rows = n * th * tw + 3
    block = Block(arg_types=[TensorType(f32, [n, c // 16, h, w, 16])])
    v_op = g.WinogradInputOp.make(
        block.args[0], pads=list(pads[:2]), output=[oh, ow], rows=rows, tile=tile
    )
    v = reference.evaluate(v_op, [relayout(x, None, 16)])[0]
    assert v.shape == (transforms(tile).positions, rows, c) and not v[:, n * th * tw :].any()
    m = np.matmul(v, transform_weight(weight, tile))
    products = Block(arg_types=[TensorType(f32, list(m.shape)), TensorType(f32, [k])])
    y_op = g.WinogradOutputOp.make(
        products.args[0], products.args[1], output=[n, oh, ow], block=16, tile=tile
    )
    y = reference.evaluate(y_op, [m, bias])[0]
    np.testing.assert_allclose(relayout(y, 16, None), expected, rtol=1e-4, atol=1e-4)


def test_the_ops_check_their_shapes() -> None:
    block = Block(arg_types=[TensorType(f32, [1, 1, 8, 8, 16]), TensorType(f32, [16, 16, 32])])
    with pytest.raises(ShapeError, match="rows 15 is not enough for the 16 tiles"):
        g.WinogradInputOp.make(block.args[0], pads=[1, 1], output=[8, 8], rows=15)
    with pytest.raises(ShapeError, match="block 12 must divide the 32 channels"):
        g.WinogradOutputOp.make(block.args[1], None, output=[1, 8, 8], block=12)
    with pytest.raises(ShapeError, match=r"must be \[16, rows, K\] for tile 2"):
        g.WinogradOutputOp.make(block.args[0], None, output=[1, 8, 8], block=16)
    with pytest.raises(ShapeError, match=r"must be \[36, rows, K\] for tile 4"):
        g.WinogradOutputOp.make(block.args[1], None, output=[1, 8, 8], block=16, tile=4)
    with pytest.raises(ShapeError, match="Winograd tile 3 is not one of 2, 4"):
        g.WinogradInputOp.make(block.args[0], pads=[1, 1], output=[8, 8], rows=16, tile=3)


def conv_model(
    c: int = 16, k: int = 32, size: tuple[int, int] = (8, 8), batch: int = 1,
    pads: tuple[int, ...] = (1, 1, 1, 1), bias: bool = True, residual: bool = False,
    **attrs: object,
):  # fmt: skip
    """Conv 3x3 (+ bias) -> Relu, with a second conv and a residual add if `residual`."""
    net = Net(1)
    x = net.input("x", [batch, c, *size])
    group = int(attrs.get("group", 1))  # type: ignore[call-overload]
    inputs = [x, net.weight("w", [k, c // group, 3, 3], 0.2)] + (
        [net.weight("b", [k])] if bias else []
    )
    y = net.op("Relu", [net.op("Conv", inputs, pads=list(pads), **attrs)])
    if residual:
        z = net.op("Conv", [y, net.weight("w2", [k, k, 3, 3], 0.2)], pads=[1, 1, 1, 1])
        y = net.op("Relu", [net.op("Add", [z, y])])
    return net.model([y])


def _winograd_ops(model, mode: str = "always") -> set[str]:
    module = from_onnx(model)
    lower_to_te(module, num_threads=1, winograd=mode)
    return {k.sym_name.data.rstrip("_0123456789") for k in kernels(module)}


@pytest.mark.parametrize(
    "case",
    [
        {},
        {"size": (7, 9), "batch": 2, "bias": False},
        {"c": 24, "k": 40, "size": (6, 5), "pads": (0, 0, 0, 0)},  # NCHW8c
        {"size": (5, 6), "pads": (2, 1, 0, 2)},
        {"c": 32, "k": 32, "size": (14, 14), "residual": True},
    ],
    ids=["plain", "odd_batch2", "nchw8c_unpadded", "asymmetric_pads", "residual_block"],
)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mode", ["f2x2", "f4x4"])
def test_winograd_convs_match_onnx_runtime(case, threads, mode) -> None:
    model = conv_model(**case)
    assert "winograd_input" in _winograd_ops(model, mode)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    exe = minitvm.compile(model, winograd=mode, num_threads=threads)
    np.testing.assert_allclose(
        exe.run({"x": x})[0], run_ort(model, {"x": x})[0], rtol=1e-4, atol=1e-4
    )


@pytest.mark.parametrize(
    "attrs", [{"strides": [2, 2]}, {"dilations": [2, 2], "pads": [2, 2, 2, 2]}, {"group": 2}]
)
def test_only_dense_stride_1_convs_are_rewritten(attrs) -> None:
    case = {"c": 32, "k": 32, "size": (12, 12)} | attrs
    assert "winograd_input" not in _winograd_ops(conv_model(**case))


def test_the_mode_chooses() -> None:
    model = conv_model(c=3, k=64, size=(32, 32))
    assert "winograd_input" in _winograd_ops(model, "always")
    assert "winograd_input" not in _winograd_ops(conv_model(c=64, k=64), "never")
    with pytest.raises(
        MinitvmError, match="mode 'sometimes' is not one of auto, always, never, f2x2, f4x4"
    ):
        WinogradPass(mode="sometimes").apply(None, from_onnx(model))  # type: ignore[arg-type]


def test_the_cost_model_weighs_flops_saved_against_traffic() -> None:
    """On a 118 GFLOP/s, 34 GB/s core (AMD EPYC Zen 4): a 3-channel stem moves far more
    transformed data than its flops are worth; ResNet's 3x3 convs save 2.25x (4x with the
    larger tile) their flops for a few MB of traffic."""
    zen4 = Roofline(117.7e9, 33.7e9)

    def square(channels: int, size: int, outputs: int | None = None) -> Conv:
        return Conv(1, channels, outputs or channels, (size, size), (size, size))

    assert best_tile(square(3, 224, 64), roofline=zen4) is None
    assert best_tile(square(8, 224), roofline=zen4) is None
    for channels, size in ((64, 56), (128, 28), (256, 14)):
        assert best_tile(square(channels, size), roofline=zen4) == 4
    # 7 x 7 pixels: 4 x 4 tiles compute 8 x 8, and on a core with a third of the bandwidth
    # their 36 x 512 x 512 transformed weight outweighs the flops they save over 2 x 2 tiles
    assert best_tile(square(512, 7), roofline=Roofline(117.7e9, 10e9)) == 2
    # ... which 8 images share: their 4 x 4 tiles' flops then weigh more
    assert best_tile(Conv(8, 512, 512, (7, 7), (7, 7)), roofline=Roofline(117.7e9, 10e9)) == 4
    # where Winograd is not chosen, "always" still takes the better tile
    assert best_tile(square(3, 224, 64), direct=False, roofline=zen4) in TRANSFORMS
    # the same stem on a core with 10x the bandwidth: the traffic no longer matters
    assert best_tile(square(16, 224, 64), roofline=Roofline(117.7e9, 337e9)) is not None


@pytest.mark.parametrize(("mode", "size"), [("f2x2", (10, 10)), ("f4x4", (12, 12))])
def test_every_config_of_the_transforms_computes_the_same_result(mode, size) -> None:
    model = conv_model(c=16, k=32, size=size)
    module = from_onnx(model)
    lower_to_te(module, num_threads=1, winograd=mode)
    main = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    )
    ins, outs = specs(main.function_type.inputs), specs(main.function_type.outputs)
    x = np.random.default_rng(3).standard_normal(ins[0].shape).astype(np.float32)
    expected = run_ort(model, {"x": x})[0]
    for inner, outer in product(ORDERS["input"], ORDERS["output"]):
        module = from_onnx(model)
        lower_to_te(module, num_threads=1, winograd=mode)
        for kernel in kernels(module):
            found = kernel_template(kernel)
            if found is not None and found[1].name == "winograd":
                transform = found[0].attributes["te.winograd"].data  # type: ignore[attr-defined]
                set_kernel_config(kernel, {"order": inner if transform == "input" else outer})
        got = build(module, ins, outs, num_threads=1).run({ins[0].name: x})[0]
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4, err_msg=f"{inner} {outer}")


def test_the_tile_bench_checks_and_times_each_mode(tmp_path, capsys) -> None:
    """bench/winograd_tiles.py: every mode's build checked against the first's, then timed."""
    from minitvm.bench import winograd_tiles

    path = tmp_path / "conv.onnx"
    onnx.save(conv_model(c=16, k=16, size=(12, 12)), path)
    winograd_tiles.main([str(path), "--rounds", "2", "--modes", "f2x2", "f4x4", "never"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{path}, 1 thread(s), 2 rounds, against f2x2:"
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["f2x2", "f4x4", "never"]
    assert "1.000x" in lines[1]
