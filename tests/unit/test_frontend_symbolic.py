"""Symbolic dimensions in the frontend: a model's dynamic input dimensions become symbols,
shape rules and the import-time shape arithmetic of exporters (Shape -> Gather -> Concat ->
Reshape) carry them through, and what cannot be known before run time is a clear error
naming the node.

The strongest check is `assert_specializes`: the symbolic import, with the symbols given
values, has exactly the types of the import at those static shapes, value by value."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import models
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import SSAValue

import minitvm
from minitvm.dialects.graph.base import shape_of, tensor_type
from minitvm.errors import FrontendError, MinitvmError
from minitvm.frontend import from_onnx
from minitvm.symbolic import SymDim, evaluate


def _named_types(module: ModuleOp) -> dict[str, TensorType]:
    """Each SSA value's type by its name hint (the ONNX value it is), first definition."""
    found: dict[str, TensorType] = {}

    def note(value: SSAValue) -> None:
        if value.name_hint and isinstance(value.type, TensorType):
            found.setdefault(value.name_hint, value.type)

    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    note(arg)
        for result in op.results:
            note(result)
    return found


def _specialized(type_: TensorType, sizes: Mapping[str, int]) -> TensorType:
    return tensor_type([evaluate(d, sizes) for d in shape_of(type_)], type_.element_type)


def assert_specializes(
    model: onnx.ModelProto,
    sizes: Mapping[str, int],
    input_shapes: Mapping[str, Sequence[int]],
    at_least: int,
    bounds: Mapping[str, Sequence[int | str | None]] | None = None,
) -> ModuleOp:
    """Import `model` with its symbols (bounded by `bounds`, input_shapes with ranges) and at
    `input_shapes`; every value both imports name has the static type once the symbols take
    `sizes`. Returns the symbolic module."""
    symbolic, static = from_onnx(model, bounds), from_onnx(model, dict(input_shapes))
    symbolic_types, static_types = _named_types(symbolic), _named_types(static)
    common = sorted(set(symbolic_types) & set(static_types))
    assert len(common) >= at_least, f"only {len(common)} values in common"
    wrong = [
        (name, str(symbolic_types[name]), str(static_types[name]))
        for name in common
        if _specialized(symbolic_types[name], sizes) != static_types[name]
    ]
    assert not wrong, wrong[:5]
    return symbolic


def _main_types(module: ModuleOp) -> tuple[list[str], list[str]]:
    main = next(iter(module.ops))
    function_type = main.function_type  # type: ignore[attr-defined]
    return [str(t) for t in function_type.inputs], [str(t) for t in function_type.outputs]


def test_bert_layer_with_dynamic_batch_and_sequence() -> None:
    model = models.bert_encoder_layer(seq=16, hidden=64, heads=4, ffn=128, dynamic=True)
    module = assert_specializes(
        model, {"batch": 3, "seq": 7}, {"hidden_states": (3, 7, 64)}, at_least=40
    )
    dynamic = 'tensor<?x?x64xf32, #graph.dims<"batch", "seq">>'
    assert _main_types(module) == ([dynamic], [dynamic])
    text = str(module)
    # The attention scores are [batch, heads, seq, seq]; the heads' shape came from Shape.
    assert 'tensor<?x4x?x?xf32, #graph.dims<"batch", "seq", "seq">>' in text


def test_resnet18_with_dynamic_batch_and_image_size() -> None:
    model = models.with_dynamic_dims(
        models.resnet18(image=64), {"x": ["batch", None, "h", "w"]}
    )
    module = assert_specializes(
        model, {"batch": 2, "h": 61, "w": 48}, {"x": (2, 3, 61, 48)}, at_least=40
    )
    assert _main_types(module) == (
        ['tensor<?x3x?x?xf32, #graph.dims<"batch", "h", "w">>'],
        ['tensor<?x1000xf32, #graph.dims<"batch">>'],
    )
    # The stem: a 7x7/2 conv padded by 3, then a 3x3/2 max pool padded by 1.
    assert '#graph.dims<"batch", "floordiv(h - 1, 2) + 1", "floordiv(w - 1, 2) + 1">' in str(module)


def test_unnamed_dynamic_dimensions_get_a_symbol_each() -> None:
    model = _model(
        [helper.make_node("Relu", ["x"], ["y"])], {"x": (None, "n", 4)}, ["y"], dims_only=True
    )
    assert _main_types(from_onnx(model))[0] == ['tensor<?x?x4xf32, #graph.dims<"x_0", "n">>']


def test_dim_params_that_are_not_names_are_made_names() -> None:
    model = _model(
        [helper.make_node("Add", ["a", "b"], ["y"])],
        {"a": ("batch size", "2n"), "b": ("batch size", "2n")}, ["y"], dims_only=True,
    )  # fmt: skip
    assert _main_types(from_onnx(model))[1] == [
        'tensor<?x?xf32, #graph.dims<"batch_size", "_2n">>'
    ]


# -- import-time shape arithmetic -------------------------------------------------------------


def _model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Mapping[str, Sequence[int | str | None]],
    outputs: Sequence[str],
    consts: Mapping[str, np.ndarray] | None = None,
    *,
    opset: int = 17,
    dims_only: bool = False,
) -> onnx.ModelProto:
    del dims_only  # (the inputs' dims are given as they are)
    graph = helper.make_graph(
        list(nodes),
        "symbolic",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in (consts or {}).items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def _shape_chain_model() -> onnx.ModelProto:
    """x [batch, seq, 8] reshaped to [batch * seq, 8 / 2, 2] by the arithmetic exporters write
    (with an Equal/Where that replaces -1s, as PyTorch's reshape export does); x plus ones of
    its own shape (ConstantOfShape); Size minus ReduceProd of the shape; and x reshaped to
    [-1, max(shape[1:], 1)]."""
    n = helper.make_node
    ones = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    nodes = [
        n("Shape", ["x"], ["shape"]),
        n("Gather", ["shape", "i0"], ["b"], axis=0),
        n("Gather", ["shape", "i1"], ["s"], axis=0),
        n("Gather", ["shape", "i2"], ["h"], axis=0),
        n("Mul", ["b", "s"], ["bs"]),
        n("Div", ["h", "two"], ["half"]),
        n("Cast", ["half"], ["half32"], to=TensorProto.INT32),
        n("Cast", ["half32"], ["half64"], to=TensorProto.INT64),
        n("Unsqueeze", ["bs", "axes0"], ["bs1"]),
        n("Unsqueeze", ["half64", "axes0"], ["half1"]),
        n("Concat", ["bs1", "half1", "two1"], ["target"], axis=0),
        n("Equal", ["target", "minus1"], ["is_minus1"]),
        n("Where", ["is_minus1", "ones3", "target"], ["target2"]),
        n("Reshape", ["x", "target2"], ["y"]),
        n("ConstantOfShape", ["shape"], ["ones"], value=ones),
        n("Add", ["x", "ones"], ["x1"]),
        n("Size", ["x"], ["count"]),
        n("ReduceProd", ["shape"], ["count2"], keepdims=0),
        n("Sub", ["count", "count2"], ["zero"]),
        n("Slice", ["shape", "starts1", "ends3"], ["tail"]),
        n("Max", ["tail", "one1"], ["tail_max"]),
        n("Concat", ["minus1", "tail_max"], ["tail_shape"], axis=0),
        n("Reshape", ["x1", "tail_shape"], ["z"]),
    ]
    consts = {
        "i0": np.array(0, np.int64), "i1": np.array(1, np.int64), "i2": np.array(2, np.int64),
        "two": np.array(2, np.int64), "axes0": _i64(0), "two1": _i64(2), "minus1": _i64(-1),
        "ones3": _i64(1, 1, 1), "starts1": _i64(1), "ends3": _i64(3), "one1": _i64(1),
    }  # fmt: skip
    return _model(nodes, {"x": ("batch", "seq", 8)}, ["y", "x1", "zero", "z"], consts)


def test_exporters_shape_arithmetic_folds_on_symbols() -> None:
    model = _shape_chain_model()
    module = assert_specializes(model, {"batch": 2, "seq": 5}, {"x": (2, 5, 8)}, at_least=4)
    outputs = _main_types(module)[1]
    assert outputs == [
        'tensor<?x4x2xf32, #graph.dims<"batch*seq">>',
        'tensor<?x?x8xf32, #graph.dims<"batch", "seq">>',
        "tensor<i64>",  # Size - ReduceProd(Shape) is 0 whatever the sizes are
        'tensor<?x?x8xf32, #graph.dims<"batch", "seq">>',
    ]
    # ConstantOfShape of a symbolic shape broadcasts its scalar at run time.
    assert "graph.expand" in str(module)


def _gather_dim() -> list[onnx.NodeProto]:
    """dim = x.shape[axis], the way exporters read a size."""
    return [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "axis"], ["dim"], axis=0),
    ]


@pytest.mark.parametrize(
    ("node", "consts", "message"),
    [
        (
            helper.make_node("Equal", ["dim", "seven"], ["y"], name="eq"),
            {"seven": np.array(7, np.int64)},
            (
                "node 'eq' (Equal, opset 17): cannot decide whether seq - 7 is 0 before run "
                "time; fix the input dimensions with input_shapes"
            ),
        ),
    ],
)
def test_what_only_the_run_time_knows_is_a_clear_error(
    node: onnx.NodeProto, consts: dict[str, np.ndarray], message: str
) -> None:
    model = _model(
        [*_gather_dim(), node], {"x": (2, "seq")}, ["y"], {"axis": np.array(1, np.int64), **consts}
    )
    with pytest.raises(FrontendError) as info:
        from_onnx(model)
    assert str(info.value) == message


def test_sizes_used_as_data_and_ranges_of_a_run_time_count() -> None:
    """`x + seq` reads the size as a tensor (graph.sizes), `1 / float(seq)` too (then
    graph.cast), `Range(0, seq)` counts it (graph.range); all specialize to what the static
    import computes."""
    n = helper.make_node
    nodes = [
        *_gather_dim(),
        n("Cast", ["x"], ["xi"], to=TensorProto.INT64),
        n("Add", ["xi", "dim"], ["y"]),
        n("Range", ["zero", "dim", "two"], ["evens"]),
        n("Cast", ["dim"], ["dim_f"], to=TensorProto.FLOAT),
        n("Reciprocal", ["dim_f"], ["inv"]),
    ]
    consts = {"axis": np.array(1, np.int64), "zero": np.array(0, np.int64), "two": np.array(2, np.int64)}
    module = assert_specializes(
        _model(nodes, {"x": (2, "seq")}, ["y", "evens", "inv"], consts), {"seq": 7}, {"x": (2, 7)}, 3
    )
    assert _main_types(module)[1] == [
        'tensor<2x?xi64, #graph.dims<"seq">>', 'tensor<?xi64, #graph.dims<"floordiv(seq + 1, 2)">>',
        "tensor<f32>",
    ]
    assert 'graph.sizes {values = #graph.sizes<"seq">} : tensor<i64>' in str(module)


def test_two_inputs_dimensions_an_op_needs_equal_are_one_size() -> None:
    """An Add of inputs declared [n] and [m], a U-Net's Concat of a skip connection [1, 4, h,
    w] with an upsampled [1, 4, H, W]: the second name is taken for the first (recorded in
    `minitvm.unified_dims`), and the run time checks that the inputs agree, as for any size
    two inputs share. An expression of a symbol against another stays an error."""
    add = _model(
        [helper.make_node("Add", ["a", "b"], ["y"], name="add")], {"a": ("n",), "b": ("m",)}, ["y"]
    )
    module = from_onnx(add)
    assert str(module.attributes["minitvm.unified_dims"]) == '{m = "n"}'
    exe = minitvm.compile(add, num_threads=1)
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(exe.run({"a": x, "b": x})[0], 2 * x)
    with pytest.raises(MinitvmError, match=r"input 'b' dimension 0 is 4, but the model says n = 5 there"):
        exe.run({"a": x, "b": x[:4]})
    skip = _model(
        [helper.make_node("Concat", ["up", "skip"], ["y"], axis=1)],
        {"up": (1, 4, "H", "W"), "skip": (1, 4, "h", "w")}, ["y"],
    )  # fmt: skip
    exe = minitvm.compile(skip, num_threads=1)
    assert exe.symbols == ["H", "W"]
    up, same = np.ones((1, 4, 6, 7), np.float32), np.zeros((1, 4, 6, 7), np.float32)
    assert exe.run({"up": up, "skip": same})[0].shape == (1, 8, 6, 7)
    pooled = _model(
        [helper.make_node("Slice", ["a", "starts", "ends", "axes", "steps"], ["half"]),
         helper.make_node("Add", ["half", "b"], ["y"], name="add")],
        {"a": ("n",), "b": ("m",)}, ["y"],
        {"starts": _i64(0), "ends": _i64(2**62), "axes": _i64(0), "steps": _i64(2)},
    )  # fmt: skip
    with pytest.raises(FrontendError, match=r"node 'add' \(Add, opset 17\): graph.add: shapes .* do not broadcast"):
        from_onnx(pooled)


def test_symbols_compile_only_once_pinned() -> None:
    """Until the lowering takes symbols, `input_shapes` pins them, and the import is static."""
    model = models.bert_encoder_layer(seq=16, hidden=64, heads=4, ffn=128, dynamic=True)
    module = from_onnx(model, {"hidden_states": (1, 16, 64)})
    assert "#graph.dims" not in str(module)
    assert all(isinstance(d, int) for t in _named_types(module).values() for d in shape_of(t))
    assert not any(isinstance(d, SymDim) for d in shape_of(_named_types(module)["output"]))


# -- real exports with dynamic axes (tests/models/export_models.py) ---------------------------

ONNX_DIR = os.path.join(os.path.dirname(__file__), "..", "models", "onnx")


def test_vit_exported_with_a_dynamic_batch() -> None:
    """torch.onnx's ViT: the class token is expanded to [batch, 1, 64] by a shape computed
    from the input's (Shape, Gather, Concat, Equal, Where, Expand)."""
    model = onnx.load(os.path.join(ONNX_DIR, "vit_dynamic.onnx"))
    module = assert_specializes(model, {"batch": 3}, {"pixel_values": (3, 3, 32, 32)}, at_least=90)
    assert _main_types(module)[1] == [
        'tensor<?x17x64xf32, #graph.dims<"batch">>', 'tensor<?x64xf32, #graph.dims<"batch">>'
    ]


def test_gpt2_exported_with_dynamic_batch_and_sequence() -> None:
    """torch.onnx's GPT-2: positions are Range(0, sequence) (graph.range), the causal mask
    multiplies them by `sequence` itself (a graph.sizes tensor of the run-time size)."""
    model = onnx.load(os.path.join(ONNX_DIR, "gpt2_dynamic.onnx"))
    shapes = {"input_ids": (2, 9), "attention_mask": (2, 9)}
    module = assert_specializes(model, {"batch": 2, "sequence": 9}, shapes, at_least=150)
    text = str(module)
    assert 'graph.range {start = 0 : i64, delta = 1 : i64} : tensor<?xi64, #graph.dims<"sequence">>' in text
    assert 'graph.sizes {values = #graph.sizes<"sequence">} : tensor<1xi64>' in text
    assert _main_types(module)[1] == ['tensor<?x?x1000xf32, #graph.dims<"batch", "sequence">>']


def test_a_size_needed_equal_to_a_clamp_of_it_names_the_bound_that_makes_it_so() -> None:
    """`s` against `min(8, s)` broadcasts exactly where s <= 8, against `max(8, s)` where
    s >= 8; against `min(8, t)`, or `min(s, t)`, no one bound says so."""
    from xdsl.dialects.builtin import IntegerAttr, i64

    from minitvm.dialects import graph as g
    from minitvm.dialects.graph.base import ClampedSize, ShapeError, broadcast_shapes, tensor_type
    from minitvm.symbolic import SYMBOL_RANGE, symbol, sym_max, sym_min

    s, t = symbol("s"), symbol("t")
    for clamp, bound in ((sym_min(8, s), (1, 8)), (sym_max(s, 8), (8, SYMBOL_RANGE[1]))):
        for shapes in (((2, s), (1, clamp)), ((clamp,), (2, s))):
            with pytest.raises(ClampedSize) as info:
                broadcast_shapes("graph.add", *shapes)
            assert (info.value.symbol, info.value.bound) == ("s", bound)
    for other in (sym_min(8, t), sym_min(s, t), 2 * sym_min(8, s)):
        with pytest.raises(ShapeError) as info:
            broadcast_shapes("graph.add", (s,), (other,))
        assert not isinstance(info.value, ClampedSize)
    # a Concat needs its inputs' other dimensions equal: the same error
    parts = [tensor_type((2, s)), tensor_type((3, sym_min(8, s)))]
    with pytest.raises(ClampedSize) as info:
        g.ConcatOp.infer_result_types(parts, {"axis": IntegerAttr(0, i64)})
    assert (info.value.symbol, info.value.bound) == ("s", (1, 8))


def test_bert_exported_with_dynamic_axes_is_bounded_by_its_position_table() -> None:
    """torch.onnx's BERT slices its 64 position ids to `min(64, sequence)` and adds them to
    the tokens' `sequence` rows, which needs sequences of at most 64: the import takes that
    bound itself and records it (the run time refuses longer ones, as ONNX Runtime fails on
    them); a bound given within it narrows it, one outside it is an error."""
    from minitvm.frontend.onnx import symbol_bounds

    model = onnx.load(os.path.join(ONNX_DIR, "bert_dynamic.onnx"))
    names = ("input_ids", "attention_mask", "token_type_ids")
    module = from_onnx(model)
    assert symbol_bounds(module) == {"sequence": (1, 64)}
    assert 'ends = #graph.sizes<1, "sequence">' in str(module)
    assert symbol_bounds(from_onnx(model, dict.fromkeys(names, (None, "8..32")))) == {"sequence": (8, 32)}
    with pytest.raises(FrontendError, match=r"graph.add: shapes \[batch, sequence, 64\], 1x64x64 do not broadcast"):
        from_onnx(model, dict.fromkeys(names, (None, "65..100")))
    module = assert_specializes(
        model, {"batch": 2, "sequence": 11}, dict.fromkeys(names, (2, 11)), at_least=150,
        bounds=dict.fromkeys(names, (None, "1..64")),
    )  # fmt: skip
    assert symbol_bounds(module) == {"sequence": (1, 64)}
    assert 'ends = #graph.sizes<1, "sequence">' in str(module)


def test_bounds_that_do_not_parse_or_overlap_are_errors() -> None:
    model = _model([helper.make_node("Add", ["a", "b"], ["y"])], {"a": ("n",), "b": ("n",)}, ["y"])
    with pytest.raises(FrontendError, match=r"dimension 0 as '0\.\.4'; a bound is written 'lo\.\.hi' with 1 <= lo"):
        from_onnx(model, {"a": ("0..4",)})
    with pytest.raises(FrontendError, match="bounds dimension 'n' to ranges that do not overlap"):
        from_onnx(model, {"a": ("1..4",), "b": ("8..9",)})


# -- graph passes on symbolic IR --------------------------------------------------------------


@pytest.mark.parametrize(
    "model",
    [
        pytest.param(lambda: models.bert_encoder_layer(seq=16, hidden=64, heads=4, ffn=128, dynamic=True), id="bert_layer"),
        pytest.param(lambda: models.with_dynamic_dims(models.resnet18(image=64), {"x": ["batch", None, "h", "w"]}), id="resnet18"),
        pytest.param(lambda: models.with_dynamic_dims(models.mobilenet_v2(image=64), {"x": ["batch", None, "h", "w"]}), id="mobilenet_v2"),
        pytest.param(lambda: onnx.load(os.path.join(ONNX_DIR, "gpt2_dynamic.onnx")), id="gpt2_export"),
    ],
)  # fmt: skip
def test_graph_passes_keep_symbolic_types(model: object) -> None:
    """Every graph pass of -O3 runs on symbolic IR (layouts, BN folding, packed weights,
    fusion), and what it leaves verifies and round-trips through the text form."""
    from minitvm.ir import make_context, parse_module
    from minitvm.pipeline import graph_passes

    module = from_onnx(model())  # type: ignore[operator]
    ctx = make_context()
    for graph_pass in graph_passes(3):
        graph_pass.apply(ctx, module)
    module.verify()
    text = str(module)
    assert "#graph.dims" in text and ("graph.fused" in text)
    assert str(parse_module(text)) == text
