"""How the debugger compiles: `minitvm.compile`'s options, shared by every compile of a
debugging session (the model, its instrumented copy, prefixes, subgraphs, replays)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import onnx


@dataclass(frozen=True)
class CompileOptions:
    input_shapes: Mapping[str, tuple[int, ...]] | None = None
    opt_level: int = 3
    records: str | None = None
    num_threads: int | None = None
    winograd: str = "auto"

    def shapes_of(self, model: onnx.ModelProto) -> dict[str, tuple[int, ...]] | None:
        """The given input shapes of `model`'s inputs (a cut subgraph has inputs of its own,
        all static, and may lack the model's)."""
        names = {value.name for value in model.graph.input}
        shapes = {n: s for n, s in (self.input_shapes or {}).items() if n in names}
        return shapes or None

    def kwargs(self, model: onnx.ModelProto) -> dict[str, object]:
        """`minitvm.compile`'s keyword arguments for `model`."""
        return {
            "input_shapes": self.shapes_of(model), "opt_level": self.opt_level,
            "records": self.records, "num_threads": self.num_threads, "winograd": self.winograd,
        }  # fmt: skip
