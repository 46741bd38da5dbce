"""ONNX optional ops, resolved at import time: an optional is an `OptionalValue`
(`frontend/onnx_node.py`), the tensor or sequence it holds or none, and whether it holds
one is known while the graph is imported (as a sequence's length is). So these ops build
no graph op:

    Optional              an optional holding its input, or an empty one (`type` given)
    OptionalHasElement    a constant bool: true for a non-empty optional, or for a tensor or
                          sequence given in its place (opset 18), false for an empty or
                          missing input
    OptionalGetElement    the element (an error naming the node if the optional is empty);
                          a tensor or sequence given in its place passes through (opset 18)

An optional graph input is compiled for being given or not (`from_onnx`'s input_shapes:
None for an empty one); an empty optional graph output is no result of @main, and the
ONNX backend returns None for it (`io_names`, `absent_outputs`). An `If` whose condition
is known only at run time cannot give an optional (which branch it gives is then unknown
at import time): the condition must be known, as for sequences.
"""

from __future__ import annotations

import numpy as np

from minitvm.frontend.onnx_node import AnyValue, NodeContext, OptionalValue, converter


@converter("Optional", folds=True)
def convert_optional(ctx: NodeContext) -> list[AnyValue]:
    if ctx.has_input(0):
        element = ctx.any_value(0)
        if isinstance(element, OptionalValue):
            raise ctx.error("its input is an optional; an optional holds a tensor or a sequence")
        return [OptionalValue(element)]
    if not ctx.has_attr("type"):
        raise ctx.error("an empty optional (no input) needs the 'type' attribute")
    return [OptionalValue(None)]


@converter("OptionalHasElement", folds=True)
def convert_optional_has_element(ctx: NodeContext) -> list[AnyValue]:
    value = ctx.inputs[0] if ctx.inputs else None
    if isinstance(value, OptionalValue):
        value = value.element
    return [np.array(value is not None)]


@converter("OptionalGetElement", folds=True)
def convert_optional_get_element(ctx: NodeContext) -> list[AnyValue]:
    value = ctx.any_value(0)
    if not isinstance(value, OptionalValue):
        return [value]
    if value.element is None:
        raise ctx.error(f"the optional '{ctx.input_name(0)}' is empty: it has no element to get")
    return [value.element]
