"""The op spec interface and its table: one `Spec` per ONNX op type the fuzzer generates.

A spec is NNSmith's operator spec in small: given the graph drawn so far, it picks the values
its op consumes (or makes fresh inputs and weights that fit), draws attributes so that every
constraint of the op holds, states a bound on its outputs, and emits the node through
`GraphBuilder.emit` (which takes the output shapes from ONNX's shape inference and raises
`Reject` for a draw ONNX refuses; the generator then undoes it and draws again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minitvm.fuzz.graph import GraphBuilder

#: Every spec, by op type, in the order registered.
SPECS: dict[str, Spec] = {}


@dataclass
class Spec:
    """How to add one `op_type` node to a graph."""

    op_type: str

    def build(self, b: GraphBuilder) -> None:
        """Add one node (or raise Reject)."""
        raise NotImplementedError


def register(spec: Spec) -> Spec:
    if spec.op_type in SPECS:
        raise ValueError(f"two specs for {spec.op_type}")
    SPECS[spec.op_type] = spec
    return spec
