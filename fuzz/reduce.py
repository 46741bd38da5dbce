"""Delta debugging of a failing case down to a minimal graph that fails the same way.

Three moves, each kept only if the smaller case still fails with the same verdict class
(`fails` decides; the campaign's checks it in the sandbox, on the failing config only):

- keep one output alone;
- drop a node whose outputs are graph outputs, its value inputs becoming the outputs
  (shrinking from the end);
- cut a node: its outputs become fresh graph inputs holding the values they had (ONNX
  Runtime's, computed once: a cut changes no value), so it and what only it needed die
  (shrinking from the start); or they become initializers with those values (a failure of
  constant folding needs its operands constant).

Passes repeat until none of the moves helps, or the budget of checks is spent; the result is
1-minimal for these moves when the budget suffices.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np
import onnx

from minitvm.fuzz.graph import Case, Value, make_case, value_info, value_of


@dataclass(frozen=True)
class _Graph:
    """A case as the reducer edits it: nodes, graph inputs with their data, output names."""

    nodes: tuple[onnx.NodeProto, ...]
    feeds: dict[str, np.ndarray]
    outputs: tuple[str, ...]
    constants: dict[str, np.ndarray]  # values cut into initializers

    def live(self) -> _Graph:
        """Without the nodes no output needs, nor the inputs no live node reads."""
        needed, kept = set(self.outputs), []
        for node in reversed(self.nodes):
            if needed.intersection(node.output):
                kept.append(node)
                needed.update(node.input)
        feeds = {n: a for n, a in self.feeds.items() if n in needed}
        constants = {n: a for n, a in self.constants.items() if n in needed}
        return _Graph(tuple(reversed(kept)), feeds, self.outputs, constants)


class Reducer:
    """Shrinks `case` while `fails(smaller case)` holds, with at most `budget` checks."""

    def __init__(self, case: Case, fails: Callable[[Case], bool], budget: int = 100):
        self.case, self.fails, self.budget = case, fails, budget
        self.checks = 0
        graph = case.model.graph
        self.initializers = {i.name: onnx.numpy_helper.to_array(i) for i in graph.initializer}
        self.values = _value_types(case.model)
        self._values: dict[str, np.ndarray] | None = None

    def reduce(self) -> Case:
        graph = _Graph(tuple(self.case.model.graph.node), dict(self.case.feeds),
                       tuple(o.name for o in self.case.model.graph.output), {}).live()  # fmt: skip
        progress = True
        while progress and self.checks < self.budget:
            progress = False
            for candidate in self._candidates(graph):
                if self.checks >= self.budget:
                    break
                self.checks += 1
                if self.fails(self._case(candidate)):
                    graph, progress = candidate, True
                    break
        return self._case(graph)

    def _candidates(self, g: _Graph) -> Iterator[_Graph]:
        if len(g.outputs) > 1:
            for name in g.outputs:
                yield replace(g, outputs=(name,)).live()
        produced = {name for node in g.nodes for name in node.output}
        for i in reversed(range(len(g.nodes))):  # drop a last node
            node = g.nodes[i]
            if set(node.output) & set(g.outputs):
                new = [n for n in node.input if n in produced]
                rest = [o for o in g.outputs if o not in node.output]
                outputs = tuple(dict.fromkeys(rest + new))
                if outputs:
                    yield replace(g, nodes=g.nodes[:i] + g.nodes[i + 1:], outputs=outputs).live()
        for i in range(len(g.nodes)):  # cut a node: its values become inputs, or constants
            node = g.nodes[i]
            if len(g.nodes) > 1 and not set(node.output) & set(g.outputs):
                values = self._intermediates()
                cut = {n: values[n] for n in node.output if n}
                rest = g.nodes[:i] + g.nodes[i + 1:]
                yield replace(g, nodes=rest, feeds=dict(g.feeds) | cut).live()
                yield replace(g, nodes=rest, constants=dict(g.constants) | cut).live()

    def _case(self, g: _Graph) -> Case:
        inputs = [self.values[name] for name in g.feeds]
        outputs = [self._output(name) for name in g.outputs]
        return make_case(g.nodes, inputs, outputs, self.initializers | g.constants, g.feeds)

    def _output(self, name: str) -> Value:
        value = self.values[name]
        return replace(value, bits=0 if name in self.case.exact_outputs else None)

    def _intermediates(self) -> dict[str, np.ndarray]:
        """Every value of the original case, as ONNX Runtime computes it."""
        if self._values is None:
            from minitvm.runtime.ort import ort_session

            model = onnx.ModelProto()
            model.CopyFrom(self.case.model)
            graph = model.graph
            known = {o.name for o in graph.output}
            extra = [name for node in graph.node for name in node.output
                     if name and name not in known]  # fmt: skip
            graph.output.extend(value_info(self.values[n]) for n in extra)
            outputs = ort_session(model, 1)(self.case.feeds)
            self._values = dict(zip([o.name for o in graph.output], outputs, strict=True))
        return self._values


def _value_types(model: onnx.ModelProto) -> dict[str, Value]:
    """Shape and dtype of every value of a model (its inputs, outputs and intermediates)."""
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    graph = inferred.graph
    return {info.name: value_of(info)
            for info in [*graph.input, *graph.value_info, *graph.output]}  # fmt: skip
