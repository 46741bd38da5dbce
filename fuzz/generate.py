"""Random graphs from the op specs: nodes are added one at a time, each consuming values the
graph already has (so graphs are DAGs with reuse and several outputs) or fresh inputs and
weights; a draw an op's constraints reject is undone and drawn again.

`generate(seed, index)` is deterministic: the same seed and index give the same Case.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from minitvm.errors import MinitvmError
from minitvm.fuzz import elementwise, nn, tensor  # noqa: F401  (they register their specs)
from minitvm.fuzz.graph import Case, GraphBuilder, Reject
from minitvm.fuzz.spec import SPECS

#: Draws per node before the generator gives up on that node.
_TRIES = 20


def op_types(ops: Sequence[str] | None = None) -> list[str]:
    """The op types to draw from: `ops` checked against the table, or all of them."""
    if not ops:
        return list(SPECS)
    unknown = [op for op in ops if op not in SPECS]
    if unknown:
        raise MinitvmError(f"fuzz: no spec for {', '.join(unknown)} "
                           f"(known: {', '.join(sorted(SPECS))})")  # fmt: skip
    return list(ops)


def case_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index])))


def generate(seed: int, index: int, ops: Sequence[str] | None = None, max_nodes: int = 8) -> Case:
    """Graph `index` of the campaign `seed`: 1 to max_nodes nodes of the given op types (the
    first of them when `ops` is given, so each asked-for op type appears), drawn uniformly."""
    rng = case_rng(seed, index)
    kinds = op_types(ops)
    b = GraphBuilder(rng)
    target = int(rng.integers(1, max_nodes + 1))
    first = kinds[index % len(kinds)]
    for _ in range(_TRIES):  # a graph has at least one node, whatever the draws
        if b.nodes:
            return b.case()
        for i in range(target):
            op = first if i == 0 else kinds[int(rng.integers(len(kinds)))]
            for _ in range(_TRIES):
                mark = b.mark()
                try:
                    SPECS[op].build(b)
                    break
                except Reject:
                    b.rollback(mark)
    if not b.nodes:
        raise RuntimeError(f"the {first} spec drew nothing in {_TRIES**2} tries")
    return b.case()
