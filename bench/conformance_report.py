"""The side-by-side report of `python bench/conformance.py --all`: minitvm and ONNX Runtime on
ONNX's full node suite.

Pure functions over the runners' results (bench/conformance.py runs the cases), so
tests/unit/test_conformance_report.py checks them on fabricated results:

  * `out_of_scope`: the cases the issue puts outside minitvm (training, random generators,
    strings, domains other than the default one, opsets below 7), from the model alone (ops
    whose output shapes depend on values, NonZero and the like, are in scope since issue 19);
  * `reason`: a failure's short category ("unsupported op Foo", "element type bfloat16",
    "wrong result", "crash", ...), so that hundreds of failures read as a few dozen groups;
  * `op_rows` and `totals`: the per-op table;
  * `full_report`: all of it as text.
"""

from __future__ import annotations

import collections
import dataclasses
import re
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import onnx

MINITVM, ORT = "minitvm", "ort"


class Result(NamedTuple):
    """One case through one runner. `verdict`: pass, wrong (the outputs differ), error (an
    exception), crash (the child died), timeout."""

    verdict: str
    detail: str
    seconds: float


def result_json(result: Result) -> dict[str, Any]:
    return {"verdict": result.verdict, "detail": result.detail, "seconds": round(result.seconds, 4)}


# --------------------------------------------------------------------------------------------
# Scope
# --------------------------------------------------------------------------------------------

TRAINING = "training"
RANDOM = "random generator"
STRING = "string"
OTHER_DOMAIN = "not the default domain"
OLD_OPSET = "opset below 7"
SCOPES = (TRAINING, RANDOM, STRING, OTHER_DOMAIN, OLD_OPSET)

#: Issue 20's scope: the default ONNX domain at opsets 7 to the newest (ai.onnx.ml's
#: classical-ML ops and opsets 1-6 are outside it).
_DEFAULT_DOMAINS = ("", "ai.onnx")
_OLDEST_OPSET = 7

_TRAINING_DOMAIN = "ai.onnx.preview.training"  # Adagrad, Adam, Momentum, Gradient
_RANDOM_OPS = frozenset(
    {
        "Bernoulli",
        "Multinomial",
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
    }
)
_STRING_OPS = frozenset({"RegexFullMatch", "StringConcat", "StringNormalizer", "StringSplit"})


def out_of_scope(model: onnx.ModelProto) -> str | None:
    """Which of `SCOPES` puts the case of `model` outside minitvm (None: it is in scope).
    The nodes of subgraphs (If, Loop, Scan bodies) and of expanded function bodies count: an
    expanded Bernoulli draws from RandomUniformLike."""
    graph = model.graph
    nodes = list(_nodes(graph))
    if any(_is_training(node) for node in nodes):
        return TRAINING
    if any(node.op_type in _RANDOM_OPS for node in nodes):
        return RANDOM
    if any(node.op_type in _STRING_OPS for node in nodes) or _has_strings(graph):
        return STRING
    if any(node.domain not in _DEFAULT_DOMAINS for node in nodes):
        return OTHER_DOMAIN
    opsets = [o.version for o in model.opset_import if o.domain in _DEFAULT_DOMAINS]
    if opsets and opsets[0] < _OLDEST_OPSET:
        return OLD_OPSET
    return None


def _nodes(graph: onnx.GraphProto) -> Iterator[onnx.NodeProto]:
    for node in graph.node:
        yield node
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                yield from _nodes(attribute.g)
            elif attribute.type == onnx.AttributeProto.GRAPHS:
                for subgraph in attribute.graphs:
                    yield from _nodes(subgraph)


def _is_training(node: onnx.NodeProto) -> bool:
    """A training op, BatchNormalization with training_mode=1, or a Dropout whose
    training_mode input is given (it is fed at run time in every node test that gives it)."""
    if node.domain == _TRAINING_DOMAIN:
        return True
    attributes = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    if attributes.get("training_mode"):
        return True
    return node.op_type == "Dropout" and len(node.input) > 2 and node.input[2] != ""


def _has_strings(graph: onnx.GraphProto) -> bool:
    """A graph input or output holding strings (a tensor, or a sequence or optional of one)."""
    for value in (*graph.input, *graph.output):
        value_type = value.type
        while value_type.WhichOneof("value") in ("sequence_type", "optional_type"):
            kind = value_type.WhichOneof("value")
            value_type = getattr(value_type, kind).elem_type
        if value_type.tensor_type.elem_type == onnx.TensorProto.STRING:
            return True
    return False


# --------------------------------------------------------------------------------------------
# Reasons
# --------------------------------------------------------------------------------------------

#: (pattern over a failure's detail, the category it names), first match wins: minitvm's
#: messages (its frontend's FrontendError and the dialects' verifiers), then ONNX Runtime's.
_REASONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), category)
    for pattern, category in (
        (r"unsupported op\(s\) ([^;\n]+)", "unsupported op {0}"),
        (r"unsupported element type (\w+)", "element type {0}"),
        (r"unsupported '\w+' type (\w+)", "element type {0}"),
        (r"model opset (\d+) is not supported", "model opset {0}"),
        (r"imports no default-domain", "no default-domain (ai.onnx) opset"),
        (r"graph (?:input|output) '[^']*' has (\w+) type", "{0} graph value"),
        (r"must be a constant known at import time", "non-constant shape operand"),
        (r"training_mode=\S+ is not supported", "training mode"),
        (r"(\w+=\S+) is not supported", "attribute {0} not supported"),
        (r"unsupported (\w+) ('[^']*')", "attribute {0} {1} not supported"),
        (r"the (\w+) output is not supported", "output {0} not supported"),
        (r"dynamic dimension|unknown rank", "dynamic input shape"),
        (r"ONNX shape inference failed", "ONNX shape inference failed"),
        (r"(graph\.\w+: [^,;\n]+)", "{0}"),
        # ONNX Runtime
        (
            r"(?:Could not find an implementation|Failed to find kernel) for (\w+)",
            "no ORT kernel for {0}",
        ),
        (r"([\w.]+:\w+)\(-?\d+\) is not a registered", "{0} is not registered in ORT"),
        (r"Numpy_type \d+ can't be converted", "input type ORT's Python API cannot take"),
        (r"No corresponding Numpy type for Tensor Type\. (\w+)", "element type {0}"),
        (r"Exception during initialization", "ORT kernel initialization failed"),
        (r"while running (\w+) node", "{0} failed at run time"),
    )
)

#: numpy's names of ml_dtypes types (in minitvm's messages) and ONNX's (in ORT's and in Cast's
#: `to`), lower-cased without underscores, mostly agree; these do not.
_TYPE_ALIASES = {"float8e8m0fnu": "float8e8m0", "float4e2m1fn": "float4e2m1", "object": "string"}


def reason(result: Result) -> str:
    """A short category for a failure, from its verdict and detail (see `_REASONS`); an error
    no pattern knows is named by its exception type and message."""
    if result.verdict in ("crash", "timeout"):
        return result.verdict
    if result.verdict == "wrong":
        return "wrong result"
    for pattern, category in _REASONS:
        match = pattern.search(result.detail)
        if match:
            text = category.format(*match.groups())
            return _element_type(text) if text.startswith("element type ") else text
    return _other(result.detail)


def _element_type(category: str) -> str:
    name = category.removeprefix("element type ").lower().replace("_", "")
    return f"element type {_TYPE_ALIASES.get(name, name)}"


def _other(detail: str) -> str:
    """`Type: message` of an unrecognized error, without the node's name (it would make each
    case a group of its own)."""
    return _first_line(re.sub(r"node '[^']*' \((\w+), opset \d+\): ", r"\1: ", detail), 80)


# --------------------------------------------------------------------------------------------
# The per-op table
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class OpRow:
    """One op's line: its cases and each runner's passes (None: that runner did not run)."""

    op: str
    cases: int
    ort_pass: int | None
    minitvm_pass: int | None
    behind: int  # in scope, ORT passes and minitvm fails
    ahead: int  # minitvm passes and ORT fails
    out_of_scope: int

    @property
    def notes(self) -> str:
        notes = []
        if self.behind:
            notes.append(f"{self.behind} ORT passes, minitvm fails")
        if self.ahead:
            notes.append(f"{self.ahead} minitvm passes, ORT fails")
        if self.out_of_scope:
            notes.append(f"{self.out_of_scope} out of scope")
        return ", ".join(notes)


def _passes(results: Mapping[str, Mapping[str, Result]], runner: str, name: str) -> bool | None:
    """Whether `runner` passes `name`; None when it did not run."""
    return results[runner][name].verdict == "pass" if runner in results else None


def behind_ort(
    results: Mapping[str, Mapping[str, Result]], scopes: Mapping[str, str | None], name: str
) -> bool:
    """The target's failures: in scope, ORT passes and minitvm does not."""
    return (
        scopes.get(name) is None
        and _passes(results, ORT, name) is True
        and _passes(results, MINITVM, name) is False
    )


def ahead_of_ort(results: Mapping[str, Mapping[str, Result]], name: str) -> bool:
    return _passes(results, MINITVM, name) is True and _passes(results, ORT, name) is False


def _pass_count(
    results: Mapping[str, Mapping[str, Result]], runner: str, names: Sequence[str]
) -> int | None:
    if runner not in results:
        return None
    return sum(results[runner][n].verdict == "pass" for n in names)


def op_rows(
    ops: Mapping[str, str],
    scopes: Mapping[str, str | None],
    results: Mapping[str, Mapping[str, Result]],
) -> list[OpRow]:
    """A row per op, ops first and their expanded function bodies after."""
    by_op: dict[str, list[str]] = collections.defaultdict(list)
    for name, op in ops.items():
        by_op[op].append(name)
    return [
        OpRow(
            op,
            len(names),
            _pass_count(results, ORT, names),
            _pass_count(results, MINITVM, names),
            behind=sum(behind_ort(results, scopes, n) for n in names),
            ahead=sum(ahead_of_ort(results, n) for n in names),
            out_of_scope=sum(scopes.get(n) is not None for n in names),
        )
        for op, names in sorted(
            by_op.items(), key=lambda item: (item[0].endswith("(expanded)"), item[0])
        )
    ]


def totals(rows: Sequence[OpRow]) -> OpRow:
    """The table's total line: every column summed (None stays None: a runner not run)."""

    def total(column: str) -> int | None:
        values = [getattr(row, column) for row in rows]
        return None if any(v is None for v in values) else sum(values)

    return OpRow(
        "total",
        sum(row.cases for row in rows),
        total("ort_pass"),
        total("minitvm_pass"),
        behind=sum(row.behind for row in rows),
        ahead=sum(row.ahead for row in rows),
        out_of_scope=sum(row.out_of_scope for row in rows),
    )


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------


def group_by_reason(
    names: Sequence[str], results: Mapping[str, Result]
) -> list[tuple[str, list[str]]]:
    """`names` grouped by `reason`, the largest group first."""
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for name in names:
        groups[reason(results[name])].append(name)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


def _cell(value: int | None) -> str:
    return "-" if value is None else str(value)


def _table(rows: Sequence[OpRow]) -> list[str]:
    width = max(len(row.op) for row in (*rows, totals(rows))) + 2
    lines = [f"{'op':<{width}}{'cases':>6}{'ORT pass':>10}{'minitvm pass':>14}  notes"]
    for row in (*rows, totals(rows)):
        cells = f"{row.cases:>6}{_cell(row.ort_pass):>10}{_cell(row.minitvm_pass):>14}"
        lines.append(f"{row.op:<{width}}{cells}  {row.notes}".rstrip())
    return lines


def _first_line(text: str, width: int = 120) -> str:
    """The detail's first line, without the frontend's list of every op it supports."""
    line = next((s.strip() for s in text.splitlines() if s.strip()), "") or "error"
    line = re.sub(r"; supported ops: .*", "", line)
    return line if len(line) <= width else line[: width - 3] + "..."


def _groups(
    title: str,
    names: Sequence[str],
    results: Mapping[str, Result],
    ops: Mapping[str, str],
    whose: str,
    every_case: bool = True,
) -> list[str]:
    """A section: `names` by `whose` reason, each group with its ops, one example's detail
    and (with `every_case`) every case's name."""
    lines = [f"\n{title} ({len(names)}, by {whose} reason):"]
    for category, group in group_by_reason(names, results):
        by_op = collections.Counter(ops[n] for n in group)
        lines.append(f"  {len(group):4} {category}")
        lines.append("       ops: " + ", ".join(f"{op} {n}" for op, n in sorted(by_op.items())))
        lines.append(f"       e.g. {group[0]}: {_first_line(results[group[0]].detail)}")
        if every_case:
            lines += ["       " + line for line in textwrap.wrap(", ".join(group), 93)]
    return lines


def _scope_lines(
    ops: Mapping[str, str],
    scopes: Mapping[str, str | None],
    results: Mapping[str, Mapping[str, Result]],
) -> list[str]:
    """The out-of-scope cases per category, with how many each runner passes anyway."""
    total = sum(scopes.get(n) is not None for n in ops)
    lines = [f"\nout of minitvm's scope ({total}):"]
    for scope in SCOPES:
        names = [n for n in ops if scopes.get(n) == scope]
        passes = ", ".join(
            f"{runner} passes {_pass_count(results, runner, names)}"
            for runner in (ORT, MINITVM)
            if runner in results
        )
        lines.append(f"  {len(names):4} {scope}" + (f" ({passes})" if passes else ""))
    return lines


def _comparison(
    ops: Mapping[str, str],
    scopes: Mapping[str, str | None],
    results: Mapping[str, Mapping[str, Result]],
) -> list[str]:
    """The target's failures (every case named), the cases minitvm passes and ORT fails, and
    the in-scope cases neither passes (counts only: no runner to catch up with)."""
    behind = [n for n in ops if behind_ort(results, scopes, n)]
    ahead = [n for n in ops if ahead_of_ort(results, n)]
    neither = [
        n
        for n in ops
        if scopes.get(n) is None
        and not _passes(results, MINITVM, n)
        and not _passes(results, ORT, n)
    ]
    return [
        *_groups(
            "in scope, ORT passes and minitvm fails", behind, results[MINITVM], ops, "minitvm's"
        ),
        *_groups("minitvm passes and ORT fails", ahead, results[ORT], ops, "ORT's"),
        *_groups("in scope, neither passes", neither, results[MINITVM], ops, "minitvm's", False),
    ]


def _timing(results: Mapping[str, Mapping[str, Result]]) -> list[str]:
    lines = []
    for runner, by_case in results.items():
        seconds = sorted(((r.seconds, n) for n, r in by_case.items()), reverse=True)
        lines.append(
            f"\n{runner}: {sum(s for s, _ in seconds):.1f} s in the cases; slowest: "
            + ", ".join(f"{n} {s:.2f} s" for s, n in seconds[:3])
        )
    return lines


def full_report(
    ops: Mapping[str, str],
    scopes: Mapping[str, str | None],
    results: Mapping[str, Mapping[str, Result]],
) -> str:
    """The per-op table, the totals, the out-of-scope counts, then (both runners run) the
    comparison, or (one runner) that runner's in-scope failures by reason; the time spent."""
    rows = op_rows(ops, scopes, results)
    total = totals(rows)
    lines = _table(rows)
    lines.append(
        f"\n{total.cases} cases: ORT passes {_cell(total.ort_pass)}, minitvm passes "
        f"{_cell(total.minitvm_pass)}, {total.out_of_scope} out of minitvm's scope"
    )
    if ORT in results and MINITVM in results:
        lines.append(f"in scope, ORT passes and minitvm fails: {total.behind} (the target is 0)")
    lines += _scope_lines(ops, scopes, results)
    if ORT in results and MINITVM in results:
        lines += _comparison(ops, scopes, results)
    else:
        for runner, by_case in results.items():
            failing = [n for n in ops if scopes.get(n) is None and by_case[n].verdict != "pass"]
            lines += _groups(f"in scope, {runner} fails", failing, by_case, ops, f"{runner}'s")
    lines += _timing(results)
    return "\n".join(lines)
