"""The blocked NCHW[x]c layout's ops: graph.layout_transform and graph.conv_nchwc.

ONNX has no blocked layout, so the oracle is graph.conv itself: conv_nchwc on blocked data
must equal conv on the unblocked data, blocked. Three levels are checked against it: the
numpy reference (`reference.evaluate`), the te lowering run by the te interpreter (which
also checks that every read is in bounds), and native code built by the compiler.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from minitvm.compiler import build, lower_to_te
from minitvm.dialects import graph as g
from minitvm.dialects import te, te_eval
from minitvm.dialects.graph import reference
from minitvm.dialects.graph.base import ShapeError, tensor_type
from minitvm.dialects.graph.constant import element_type_of
from minitvm.runtime import TensorSpec

RNG = np.random.default_rng(11)


def rand(*shape: int) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape).astype(np.float32)


def block_weight(w: np.ndarray, cb: int, mb: int) -> np.ndarray:
    """graph.conv's weight [M, C, KH, KW] as graph.conv_nchwc's [M/mb, C/cb, KH, KW, cb, mb]."""
    m, c, kh, kw = w.shape
    return w.reshape(m // mb, mb, c // cb, cb, kh, kw).transpose(0, 2, 4, 5, 3, 1).copy()


def module_of(inputs: list[np.ndarray], body: Callable[..., list[Operation]]) -> ModuleOp:
    """@main(inputs...) returning the results of the last op `body` makes from its args."""
    types = [TensorType(element_type_of(x.dtype), list(x.shape)) for x in inputs]
    block = Block(arg_types=types)
    ops = body(*block.args)
    block.add_ops([*ops, func.ReturnOp(*ops[-1].results)])
    main = func.FuncOp("main", (types, [r.type for r in ops[-1].results]), Region(block))
    module = ModuleOp([main])
    module.verify()
    return module


# --------------------------------------------------------------------------------------------
# Convolution cases
# --------------------------------------------------------------------------------------------


@dataclass
class ConvCase:
    id: str
    n: int
    c: int
    size: tuple[int, int]
    m: int
    kernel: tuple[int, int]
    cb: int
    mb: int = 16
    strides: tuple[int, int] = (1, 1)
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)
    dilations: tuple[int, int] = (1, 1)
    bias: bool = True
    group: int = 1  # 1, or c: depthwise

    def props(self) -> dict[str, object]:
        props: dict[str, object] = {"strides": list(self.strides), "pads": list(self.pads),
                                    "dilations": list(self.dilations)}  # fmt: skip
        return props if self.group == 1 else {**props, "group": self.group}

    @property
    def weight_cb(self) -> int:
        """The weight's input-channel block: a depthwise weight has one input channel."""
        return self.cb if self.group == 1 else 1

    def data(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        x = rand(self.n, self.c, *self.size)
        w = rand(self.m, self.c // self.group, *self.kernel)
        return x, w, (rand(self.m) if self.bias else None)


CONV_CASES = [
    ConvCase("3x3_s1_p1", 1, 32, (8, 8), 32, (3, 3), cb=16, pads=(1, 1, 1, 1)),
    ConvCase("3x3_s2_p1_nobias", 1, 32, (9, 8), 16, (3, 3), cb=16, strides=(2, 2),
             pads=(1, 1, 1, 1), bias=False),
    ConvCase("7x7_s2_p3_rgb", 1, 3, (15, 13), 16, (7, 7), cb=3, strides=(2, 2),
             pads=(3, 3, 3, 3)),
    ConvCase("1x1", 2, 32, (5, 6), 32, (1, 1), cb=16),
    ConvCase("1x1_s2_nobias", 1, 16, (7, 7), 16, (1, 1), cb=16, strides=(2, 2), bias=False),
    ConvCase("3x3_dilation2", 1, 16, (9, 9), 16, (3, 3), cb=16, pads=(2, 2, 2, 2),
             dilations=(2, 2)),
    ConvCase("3x1_asymmetric_pads", 1, 6, (6, 7), 32, (3, 1), cb=3, strides=(1, 2),
             pads=(1, 0, 0, 1)),
    ConvCase("rgb_cb3_mb8", 1, 3, (5, 5), 8, (3, 3), cb=3, mb=8, pads=(1, 1, 1, 1)),
    ConvCase("depthwise_3x3_p1", 1, 32, (8, 7), 32, (3, 3), cb=16, pads=(1, 1, 1, 1), group=32),
    ConvCase("depthwise_s2_dilation_asymmetric_nobias", 2, 16, (9, 7), 16, (3, 3), cb=16,
             strides=(2, 1), pads=(2, 1, 1, 0), dilations=(2, 1), bias=False, group=16),
]  # fmt: skip


def nchwc_module(case: ConvCase) -> tuple[ModuleOp, list[np.ndarray]]:
    """@main(x [N, C, H, W], w blocked, bias?): NCHW -> NCHW{cb}c, conv_nchwc, -> NCHW."""
    x, w, b = case.data()
    inputs = [x, block_weight(w, case.weight_cb, case.mb), *([b] if b is not None else [])]

    def body(xv: SSAValue, wv: SSAValue, *bv: SSAValue) -> list[Operation]:
        to_blocked = g.LayoutTransformOp.make(xv, src_layout="NCHW", dst_layout=g.blocked_layout(case.cb))
        conv = g.ConvNchwcOp.make(to_blocked.result, wv, bv[0] if bv else None, **case.props())
        back = g.LayoutTransformOp.make(conv.result, src_layout=g.blocked_layout(case.mb), dst_layout="NCHW")
        return [to_blocked, conv, back]

    return module_of(inputs, body), inputs


def conv_oracle(case: ConvCase, inputs: list[np.ndarray]) -> np.ndarray:
    """graph.conv's reference on the unblocked weight."""
    x, w, *b = inputs
    w_flat = reference.unblock_weight(w)
    conv = module_of([x, w_flat, *b], lambda xv, wv, *bv: [
        g.ConvOp.make(xv, wv, bv[0] if bv else None, **case.props())])
    return reference.run_module(conv, [x, w_flat, *b])[0]


# --------------------------------------------------------------------------------------------
# Reference semantics
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CONV_CASES, ids=[c.id for c in CONV_CASES])
def test_reference_conv_nchwc_is_conv_on_unblocked_data(case: ConvCase):
    x, w, b = case.data()
    bias = [b] if b is not None else []
    blocked = [reference.relayout(x, None, case.cb), block_weight(w, case.weight_cb, case.mb), *bias]
    conv_nchwc = module_of(blocked, lambda xv, wv, *bv: [
        g.ConvNchwcOp.make(xv, wv, bv[0] if bv else None, **case.props())])
    conv = module_of([x, w, *bias], lambda xv, wv, *bv: [
        g.ConvOp.make(xv, wv, bv[0] if bv else None, **case.props())])
    (got,) = reference.run_module(conv_nchwc, blocked)
    (want,) = reference.run_module(conv, [x, w, *bias])
    assert got.shape == (case.n, case.m // case.mb, *want.shape[2:], case.mb)
    np.testing.assert_allclose(reference.relayout(got, case.mb, None), want, rtol=1e-5, atol=1e-5)
    # The definition, element by element at a few points: y[n, mo, oh, ow, mi] = conv[n, m].
    for n, m, oh, ow in zip(*(RNG.integers(0, s, 5) for s in want.shape)):
        assert got[n, m // case.mb, oh, ow, m % case.mb] == want[n, m, oh, ow]


def test_weight_blocking_is_the_documented_index_map():
    w = rand(32, 6, 3, 2)
    wb = block_weight(w, 3, 16)
    assert wb.shape == (2, 2, 3, 2, 3, 16)
    for m, c, kh, kw in [(0, 0, 0, 0), (17, 4, 2, 1), (31, 5, 1, 0), (15, 3, 0, 1)]:
        assert wb[m // 16, c // 3, kh, kw, c % 3, m % 16] == w[m, c, kh, kw]
    np.testing.assert_array_equal(reference.unblock_weight(wb), w)


@pytest.mark.parametrize("blocks", [(16,), (8, 16), (16, 4), (1,), (32, 1, 2)])
def test_layout_transforms_round_trip(blocks: tuple[int, ...]):
    """NCHW -> NCHW{b1}c -> NCHW{b2}c -> ... -> NCHW is the identity; each blocked value
    holds channel c at [c // b, ..., c % b]."""
    x = rand(2, 32, 3, 5)
    layouts = ["NCHW", *(g.blocked_layout(b) for b in blocks), "NCHW"]

    def body(xv: SSAValue) -> list[Operation]:
        ops: list[Operation] = []
        for src, dst in itertools.pairwise(layouts):
            ops.append(g.LayoutTransformOp.make(ops[-1].results[0] if ops else xv,
                                                src_layout=src, dst_layout=dst))  # fmt: skip
        return ops

    module = module_of([x], body)
    np.testing.assert_array_equal(reference.run_module(module, [x])[0], x)
    main = next(iter(module.ops))
    assert isinstance(main, func.FuncOp)
    value = x
    for op, b in zip(main.body.block.ops, blocks):
        (value,) = reference.evaluate(op, [value])
        assert value.shape == (2, 32 // b, 3, 5, b)
        for c in (0, 1, b - 1, 17, 31):
            np.testing.assert_array_equal(value[:, c // b, :, :, c % b], x[:, c])


def test_layout_names_parse_and_print():
    assert g.parse_layout("NCHW") is None
    assert g.parse_layout("NCHW16c") == 16
    assert g.parse_layout(g.blocked_layout(3)) == 3
    for bad in ("NHWC", "NCHW0c", "NCHW016c", "NCHWc", "NCHW16C", "nchw16c", "NCHW-4c"):
        with pytest.raises(ShapeError, match=f'layout "{bad}" is neither "NCHW" nor'):
            g.parse_layout(bad)
    with pytest.raises(ValueError, match="block must be >= 1"):
        g.blocked_layout(0)


@pytest.mark.parametrize(
    ("shape", "src", "dst", "message"),
    [
        ((1, 24, 4, 4), "NCHW", "NCHW16c",
         "input 1x24x4x4 in NCHW has 24 channels, which NCHW16c cannot block"),
        ((1, 3, 4, 4, 8), "NCHW8c", "NCHW16c", "24 channels, which NCHW16c cannot block"),
        ((1, 4, 4, 4, 16), "NCHW16c", "NCHW16c", 'src_layout and dst_layout are both "NCHW16c"'),
        ((1, 4, 4, 4), "NCHW16c", "NCHW", "input 1x4x4x4 is not in layout NCHW16c"),
        ((1, 4, 4, 4, 8), "NCHW16c", "NCHW", "expected rank 5 with an inner block of 16"),
        ((1, 4, 4, 4, 8), "NCHW", "NCHW8c", "is not in layout NCHW (expected rank 4)"),
        ((1, 4, 4, 4), "NHWC", "NCHW8c", 'layout "NHWC" is neither'),
    ],
)  # fmt: skip
def test_layout_transform_rejects(shape, src, dst, message):
    x = Block(arg_types=[tensor_type(shape)]).args[0]
    with pytest.raises(VerifyException, match=message.replace("(", r"\(").replace(")", r"\)")):
        g.LayoutTransformOp.make(x, src_layout=src, dst_layout=dst)


# --------------------------------------------------------------------------------------------
# Lowering: te interpreter and native code
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CONV_CASES, ids=[c.id for c in CONV_CASES])
def test_lowering_runs_in_bounds_and_matches_conv(case: ConvCase):
    module, inputs = nchwc_module(case)
    want = conv_oracle(case, inputs)
    np.testing.assert_allclose(reference.run_module(module, inputs)[0], want, rtol=1e-5, atol=1e-5)
    # Graph passes would rewrite the transforms; this checks the ops' own lowering.
    lower_to_te(module, opt_level=0)
    module.verify()
    (got,) = te_eval.run_module(module, inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_conv_nchwc_lowers_to_pad_one_reduction_and_blocked_bias():
    case = CONV_CASES[0]
    module, _ = nchwc_module(case)
    lower_to_te(module, opt_level=0)
    computes = [o for o in module.walk() if isinstance(o, te.ComputeOp)]
    _, pad, conv, _, _ = computes
    assert [c.reduce_kind and c.reduce_kind.data for c in computes] == [None, None, "sum", None, None]
    assert conv.reduce_extents is not None
    assert conv.reduce_extents.get_values() == (2, 3, 3, 16)  # (C/cb, KH, KW, cb) = r0..r3
    assert [a.name_hint for a in conv.body.block.args] == ["i0", "i1", "i2", "i3", "i4", "r0", "r1", "r2", "r3"]
    assert tuple(pad.result.type.get_shape()) == (1, 2, 10, 10, 16)


def compile_and_run(module: ModuleOp, inputs: list[np.ndarray]) -> np.ndarray:
    main = next(op for op in module.ops if isinstance(op, func.FuncOp))
    specs = [TensorSpec(f"t{n}", tuple(t.get_shape()), np.dtype(np.float32))  # type: ignore[attr-defined]
             for n, t in enumerate(main.function_type.inputs)]
    outs = [TensorSpec("y", tuple(t.get_shape()), np.dtype(np.float32))  # type: ignore[attr-defined]
            for t in main.function_type.outputs]
    lower_to_te(module, opt_level=0)
    exe = build(module, specs, outs)
    return exe.run({s.name: x for s, x in zip(specs, inputs)})[0]


@pytest.mark.parametrize("case", [CONV_CASES[0], CONV_CASES[2], CONV_CASES[3], CONV_CASES[6],
                                  CONV_CASES[8], CONV_CASES[9]], ids=lambda c: c.id)  # fmt: skip
def test_compiled_conv_nchwc_matches_conv(case: ConvCase):
    module, inputs = nchwc_module(case)
    want = conv_oracle(case, inputs)
    np.testing.assert_allclose(compile_and_run(module, inputs), want, rtol=1e-4, atol=1e-4)


def test_compiled_reblocking_matches_reference():
    x = rand(1, 48, 3, 4)

    def body(xv: SSAValue) -> list[Operation]:
        a = g.LayoutTransformOp.make(xv, src_layout="NCHW", dst_layout="NCHW16c")
        b = g.LayoutTransformOp.make(a.result, src_layout="NCHW16c", dst_layout="NCHW3c")
        c = g.LayoutTransformOp.make(b.result, src_layout="NCHW3c", dst_layout="NCHW")
        return [a, b, c]

    np.testing.assert_array_equal(compile_and_run(module_of([x], body), [x]), x)
