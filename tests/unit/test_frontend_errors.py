"""Every way an import can fail raises a FrontendError whose message says what, where, and
what is supported instead."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from minitvm.errors import FrontendError, MinitvmError
from minitvm.frontend import from_onnx
from minitvm.frontend.onnx_node import size_operands_at_import


def model_of(
    nodes: Sequence[onnx.NodeProto],
    inputs: dict[str, Sequence[int | str]],
    outputs: Sequence[str],
    opset: int,
    consts: dict[str, np.ndarray] | None = None,
    *,
    domains: Sequence[str] = (),
) -> onnx.ModelProto:
    graph = helper.make_graph(
        list(nodes),
        "test",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in (consts or {}).items()],
    )
    opsets = [helper.make_opsetid("", opset), *(helper.make_opsetid(d, 1) for d in domains)]
    return helper.make_model(graph, opset_imports=opsets)


def import_error(model: onnx.ModelProto | str, **kwargs: object) -> str:
    with pytest.raises(FrontendError) as info:
        from_onnx(model, **kwargs)  # type: ignore[arg-type]
    return str(info.value)


def test_frontend_error_is_a_minitvm_error() -> None:
    assert issubclass(FrontendError, MinitvmError) and issubclass(MinitvmError, Exception)


def test_unsupported_op() -> None:
    nodes = [helper.make_node("RandomNormalLike", ["x"], ["y"], name="noise")]
    message = import_error(model_of(nodes, {"x": (1, 4, 4)}, ["y"], 13))
    assert message.startswith("node 'noise' (RandomNormalLike, opset 13): unsupported op")
    assert "supported ops: Abs, Acos, Acosh, Add," in message and "Where" in message


def test_unsupported_op_of_another_domain() -> None:
    nodes = [helper.make_node("FusedGemm", ["x"], ["y"], name="fused", domain="com.microsoft")]
    message = import_error(model_of(nodes, {"x": (2, 2)}, ["y"], 13, domains=["com.microsoft"]))
    assert "node 'fused' (FusedGemm, opset 13): unsupported op com.microsoft.FusedGemm" in message


def test_unnamed_node_is_named_by_position_and_output() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("StringNormalizer", ["r"], ["y"]),
    ]
    message = import_error(model_of(nodes, {"x": (2,)}, ["y"], 13))
    assert message.startswith("node '#1 -> y' (StringNormalizer, opset 13): unsupported op")


@pytest.mark.parametrize("opset", [6, 29])
def test_unsupported_opset(opset: int) -> None:
    model = model_of([helper.make_node("Relu", ["x"], ["y"])], {"x": (2,)}, ["y"], opset)
    assert import_error(model) == f"model opset {opset} is not supported; supported opsets: 7 to 28"


def test_resize_unknown_mode_is_unsupported() -> None:
    nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="up", mode="area")]
    model = model_of(nodes, {"x": (1, 1, 2, 2)}, ["y"], 13, {"scales": np.float32([1, 1, 2, 2])})
    message = import_error(model)
    assert message == (
        "node 'up' (Resize, opset 13): unsupported mode 'area'; supported: 'nearest', "
        "'linear', 'cubic'"
    )


def test_resize_antialias_needs_a_filter() -> None:
    nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="down", antialias=1)]
    model = model_of(nodes, {"x": (1, 1, 4, 4)}, ["y"], 18, {"scales": np.float32([1, 1, .5, .5])})
    assert import_error(model) == (
        "node 'down' (Resize, opset 18): antialias=1 applies to modes 'linear' and 'cubic', "
        "not 'nearest'"
    )


def test_resize_crop_needs_a_box_per_axis() -> None:
    nodes = [helper.make_node("Resize", ["x", "roi", "scales"], ["y"], name="crop",
                              coordinate_transformation_mode="tf_crop_and_resize")]
    consts = {"roi": np.float32([0, 1]), "scales": np.float32([1, 1, 2, 2])}
    message = import_error(model_of(nodes, {"x": (1, 1, 2, 2)}, ["y"], 13, consts))
    assert message == (
        "node 'crop' (Resize, opset 13): tf_crop_and_resize needs roi with 8 entries (starts, "
        "then ends, of axes [0, 1, 2, 3]), got 2"
    )


def test_pad_wrap_is_unsupported_before_opset_19() -> None:
    nodes = [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad", mode="wrap")]
    model = model_of(nodes, {"x": (2, 2)}, ["y"], 18, {"pads": np.array([1, 1, 1, 1], np.int64)})
    message = import_error(model)
    assert message.startswith("node 'pad' (Pad, opset 18): unsupported mode 'wrap'")
    assert message.endswith("supported: 'constant', 'reflect', 'edge'")


def test_unknown_auto_pad() -> None:
    nodes = [
        helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], auto_pad="SAME")
    ]
    message = import_error(model_of(nodes, {"x": (1, 1, 4, 4)}, ["y"], 11))
    assert message.startswith("node 'pool' (MaxPool, opset 11): unsupported auto_pad 'SAME'")


def test_dynamic_dim_without_input_shapes() -> None:
    """The import keeps the dimension as a symbol (test_dynamic_compile.py compiles such
    models once for every size); input_shapes pins it."""
    model = model_of([helper.make_node("Relu", ["x"], ["y"])], {"x": ("batch", 3)}, ["y"], 13)
    assert '#graph.dims<"batch">' in str(from_onnx(model))
    assert "#graph.dims" not in str(from_onnx(model, input_shapes={"x": (2, 3)}))


def test_bad_input_shapes() -> None:
    model = model_of([helper.make_node("Relu", ["x"], ["y"])], {"x": ("batch", 3)}, ["y"], 13)
    assert "names 'z', which are not model inputs" in import_error(model, input_shapes={"z": (1,)})
    assert "rank 3" in import_error(model, input_shapes={"x": (1, 2, 3)})


def test_non_constant_shape_operand() -> None:
    """Pad's pads must be known at import; a Reshape's shape may be computed at run time,
    except where the caller asks for size operands at import (the ONNX backend's fallback)."""
    nodes = [
        helper.make_node("Relu", ["s"], ["s2"], name="relu"),
        helper.make_node("Pad", ["x", "target"], ["p"], name="pad"),
        helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape"),
    ]
    graph = helper.make_graph(
        nodes,
        "test",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("target", TensorProto.INT64, [2]),
            helper.make_tensor_value_info("s", TensorProto.FLOAT, [2]),
        ],
        [helper.make_empty_tensor_value_info("y")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert import_error(model).startswith(
        "node 'pad' (Pad, opset 13): input 1 ('pads', value 'target') "
        "must be a constant known at import time"
    )
    del model.graph.node[1]
    assert "graph.iota" in str(from_onnx(model))
    with size_operands_at_import():
        assert import_error(model).startswith(
            "node 'reshape' (Reshape, opset 13): input 1 ('shape', value 'target') "
            "must be a constant known at import time"
        )


def test_training_mode_batch_norm() -> None:
    params = {n: np.ones(3, np.float32) for n in ("s", "b", "m", "v")}
    nodes = [
        helper.make_node(
            "BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn", training_mode=1
        )
    ]
    message = import_error(model_of(nodes, {"x": (2, 3, 4)}, ["y"], 15, params))
    assert message.startswith(
        "node 'bn' (BatchNormalization, opset 15): training_mode=1 is not supported"
    )


def test_batch_norm_running_statistics_are_unsupported() -> None:
    params = {n: np.ones(3, np.float32) for n in ("s", "b", "m", "v")}
    nodes = [
        helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "mean"], name="bn")
    ]
    message = import_error(model_of(nodes, {"x": (2, 3, 4)}, ["y", "mean"], 9, params))
    assert message.startswith(
        "node 'bn' (BatchNormalization, opset 9): output 1 ('mean') is a training statistic"
    )


def test_training_mode_dropout() -> None:
    nodes = [helper.make_node("Dropout", ["x", "", "train"], ["y"], name="drop")]
    model = model_of(nodes, {"x": (2, 3)}, ["y"], 13, {"train": np.array(True)})
    assert import_error(model).startswith("node 'drop' (Dropout, opset 13): training_mode=true")


def test_max_pool_storage_order_is_0_or_1() -> None:
    nodes = [helper.make_node("MaxPool", ["x"], ["y", "idx"], name="pool", kernel_shape=[2, 2],
                              storage_order=2)]
    message = import_error(model_of(nodes, {"x": (1, 1, 4, 4)}, ["y", "idx"], 12))
    assert message == "node 'pool' (MaxPool, opset 12): storage_order must be 0 or 1, got 2"


def test_integer_matmul_takes_8_bit_inputs() -> None:
    nodes = [helper.make_node("MatMulInteger", ["a", "b"], ["y"], name="mm")]
    model = model_of(nodes, {"a": (2, 3)}, ["y"], 10, {"b": np.ones((3, 2), np.int8)})
    assert import_error(model) == (
        "node 'mm' (MatMulInteger, opset 10): input 0 must be uint8 or int8, got float32"
    )


def test_bitcast_widths_must_agree() -> None:
    nodes = [helper.make_node("BitCast", ["x"], ["y"], name="bits", to=TensorProto.INT64)]
    assert import_error(model_of(nodes, {"x": (3,)}, ["y"], 26)) == (
        "node 'bits' (BitCast, opset 26): graph.bitcast: f32 has 32 bits but i64 has 64; "
        "the widths must agree"
    )


def test_string_constant_is_unsupported() -> None:
    nodes = [
        helper.make_node("Constant", [], ["c"], name="const", value_string="hi"),
        helper.make_node("Identity", ["x"], ["y"]),
    ]
    message = import_error(model_of(nodes, {"x": (1,)}, ["y", "c"], 13))
    assert message.startswith(
        "node 'const' (Constant, opset 13): unsupported value attribute (value_string)"
    )


def test_unsupported_element_type() -> None:
    nodes = [helper.make_node("Cast", ["x"], ["y"], name="cast", to=TensorProto.FLOAT8E4M3FN)]
    message = import_error(model_of(nodes, {"x": (2,)}, ["y"], 19))
    assert message.startswith(
        "node 'cast' (Cast, opset 19): unsupported 'to' type FLOAT8E4M3FN; supported: float32"
    )


def test_undefined_input() -> None:
    nodes = [helper.make_node("Relu", ["nowhere"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "test", [], [helper.make_empty_tensor_value_info("y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert (
        "node 'relu' (Relu, opset 13): input 'nowhere' is not defined before use"
        in import_error(model)
    )


def test_missing_file(tmp_path: object) -> None:
    assert import_error("/nonexistent/model.onnx").startswith(
        "cannot read ONNX model '/nonexistent/model.onnx'"
    )


def test_shape_mismatch_names_the_node() -> None:
    nodes = [helper.make_node("Add", ["a", "b"], ["y"], name="add")]
    message = import_error(model_of(nodes, {"a": (2, 3), "b": (4,)}, ["y"], 13))
    assert message.startswith("node 'add' (Add, opset 13):") and "do not broadcast" in message


def test_an_initializer_whose_data_does_not_fit_its_shape() -> None:
    model = model_of([helper.make_node("Add", ["x", "w"], ["y"])], {"x": [4, 4]}, ["y"], 17)
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4, 4])
    w.raw_data = np.arange(5, dtype=np.float32).tobytes()  # 5 elements for a 4x4
    model.graph.initializer.append(w)
    message = import_error(model)
    assert "initializer 'w': its data (20 bytes of raw_data) does not match its shape 4x4 and element type FLOAT" in message


def test_a_constant_whose_data_does_not_fit_its_shape() -> None:
    value = TensorProto(name="v", data_type=TensorProto.FLOAT, dims=[3])
    value.raw_data = b"\0" * 8
    node = helper.make_node("Constant", [], ["c"], name="the_constant", value=value)
    model = model_of([node, helper.make_node("Add", ["x", "c"], ["y"])], {"x": [3]}, ["y"], 17)
    message = import_error(model)
    assert "the_constant" in message and "attribute 'value': its data (8 bytes of raw_data) does not match its shape 3" in message
