"""A fuzzing campaign: generate `count` graphs from a seed, check each in the sandbox, reduce
and save every failure, and count what was covered.

Coverage is counted over the graphs minitvm was checked on (not the discarded ones): the op
types, and the (producer op, consumer op) pairs of their edges.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from minitvm.fuzz.check import Verdict
from minitvm.fuzz.generate import generate, op_types
from minitvm.fuzz.graph import Case
from minitvm.fuzz.reduce import Reducer
from minitvm.fuzz.sandbox import Sandbox
from minitvm.fuzz.store import save_failure, summary_line


@dataclass
class Failure:
    case_id: str
    verdict: Verdict
    summary: str


@dataclass
class Stats:
    generated: int = 0
    checked: int = 0  # not discarded: minitvm compiled (or tried to)
    passed: int = 0
    discarded: int = 0
    ort_departs: int = 0  # minitvm matches ONNX's reference where ONNX Runtime does not
    failures: list[Failure] = field(default_factory=list)
    ops: Counter[str] = field(default_factory=Counter)
    pairs: set[tuple[str, str]] = field(default_factory=set)
    seconds: float = 0.0

    @property
    def per_minute(self) -> float:
        return 60.0 * self.generated / self.seconds if self.seconds else 0.0

    def by_class(self) -> Counter[str]:
        return Counter(f.verdict.kind for f in self.failures)

    def cover(self, case: Case) -> None:
        producer = {out: node.op_type for node in case.model.graph.node for out in node.output}
        for node in case.model.graph.node:
            self.ops[node.op_type] += 1
            self.pairs.update((producer[i], node.op_type) for i in node.input if i in producer)


def run_campaign(seed: int, count: int, *, ops: Sequence[str] | None = None, max_nodes: int = 8,
                 timeout: float = 180.0, output: Path | None = None, reduce_budget: int = 60,
                 progress: Callable[[Stats], None] = lambda stats: None) -> Stats:  # fmt: skip
    """Graphs 0..count-1 of `seed`; failures reduced and, with `output`, saved there."""
    op_types(ops)  # unknown op types are the user's error, before anything starts
    stats = Stats()
    start = time.perf_counter()
    with Sandbox(timeout) as sandbox:
        for index in range(count):
            case = generate(seed, index, ops, max_nodes)
            stats.generated += 1
            verdict = sandbox.check(case)
            if verdict.kind == "discard":
                stats.discarded += 1
            else:
                stats.checked += 1
                stats.cover(case)
                if verdict.kind == "ort-departs":
                    stats.ort_departs += 1
                elif verdict.failed:
                    stats.failures.append(_reduce(sandbox, f"s{seed}-{index}", case, verdict,
                                                  output, reduce_budget))  # fmt: skip
                else:
                    stats.passed += 1
            stats.seconds = time.perf_counter() - start
            progress(stats)
    return stats


def _reduce(sandbox: Sandbox, case_id: str, case: Case, verdict: Verdict, output: Path | None,
            budget: int) -> Failure:  # fmt: skip
    """Reduce a failing case (on its failing config only) and save it."""
    configs = [verdict.config] if verdict.config else None

    def fails(smaller: Case) -> bool:
        again = sandbox.check(smaller, configs) if configs else sandbox.check(smaller)
        return again.same_failure(verdict)

    reduced = Reducer(case, fails, budget).reduce()
    final = sandbox.check(reduced, configs) if configs else sandbox.check(reduced)
    if not final.same_failure(verdict):  # flaky: keep the original as it failed
        reduced, final = case, verdict
    if output is not None:
        line = save_failure(output, case_id, case, reduced, final)
    else:
        line = summary_line(reduced, final, len(case.op_types))
    return Failure(case_id, final, line)
