"""Which pass, on which ONNX node, a failing compile fails in: `minitvm debug` on a model
that does not compile.

A compile is the frontend, then the declared pipeline's passes (`pipeline.py`), then LLVM;
`compiler.compile` runs the passes from te-merge-kernels on kernel by kernel in forked
processes, where a failure says little. So a failed compile is replayed here stage by stage,
pass by pass, on one module in this process (`pipeline.compile_stages`: the same passes),
and the first pass that raises is the culprit; if every pass succeeds, LLVM is.

Passes see graph ops, not ONNX nodes (the frontend keeps no back-mapping), so the node is
found by compiling prefixes of the graph: the shortest prefix that fails in the same pass
ends with the node that makes it fail (a binary search, assuming that a prefix which fails
stays failing when nodes are added: a node that fails does not heal by being used).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import onnx

from minitvm.debug.graphs import prefix
from minitvm.debug.options import CompileOptions
from minitvm.errors import MinitvmError

#: The stage and pass names for a failure after every pass ran (the kernels' object code,
#: @main's, the JIT).
LLVM_STAGE, LLVM_PASS = "LLVM + JIT", "llvm"


class CompileFailure(MinitvmError):
    """The model does not compile: the message names the node and the pass."""

    def __init__(self, message: str, stage: str, pass_name: str, node: onnx.NodeProto | None):
        super().__init__(message)
        self.stage = stage
        self.pass_name = pass_name
        self.node = node


@dataclass(frozen=True)
class FailedPass:
    stage: str
    pass_name: str
    error: Exception


def failing_pass(model: onnx.ModelProto, options: CompileOptions) -> FailedPass | None:
    """Replay the compile of `model` pass by pass; the first pass that raises (the frontend
    counts as the pass "import"), or None when every pass runs (a failure, if any, is then
    LLVM's)."""
    from minitvm.compiler import load_model
    from minitvm.frontend import from_onnx
    from minitvm.host import default_num_threads
    from minitvm.ir import make_context
    from minitvm.pipeline import compile_stages

    try:
        module = from_onnx(load_model(model), options.shapes_of(model))
    except Exception as error:  # noqa: BLE001  (whatever the frontend raises is the finding)
        return FailedPass("import", "frontend", error)
    stages = compile_stages(
        options.opt_level, records=options.records,
        num_threads=options.num_threads or default_num_threads(), winograd=options.winograd,
    )  # fmt: skip
    ctx = make_context()
    for stage in stages:
        for stage_pass in stage.passes:
            try:
                stage_pass.apply(ctx, module)
            except Exception as error:  # noqa: BLE001
                return FailedPass(stage.label, stage_pass.name, error)
    return None


def diagnose(
    model: onnx.ModelProto,
    options: CompileOptions,
    error: Exception,
    types: dict[str, onnx.TypeProto],
    compiles: Callable[[onnx.ModelProto], bool],
) -> CompileFailure:
    """The CompileFailure for `error`, raised by compiling `model`: the pass (replayed) and
    the node (prefix search). `compiles(m)` says whether a model compiles (for failures that
    only LLVM shows)."""
    failed = failing_pass(model, options)
    stage, pass_name = (failed.stage, failed.pass_name) if failed else (LLVM_STAGE, LLVM_PASS)
    cause = failed.error if failed else error

    def fails(count: int) -> bool:
        part = prefix(model, count, types)
        if failed is None:
            return not compiles(part)
        again = failing_pass(part, options)
        return again is not None and (again.stage, again.pass_name) == (stage, pass_name)

    low, high = 1, len(model.graph.node)
    node = None
    if high and fails(high):
        while low < high:
            middle = (low + high) // 2
            if fails(middle):
                high = middle
            else:
                low = middle + 1
        node = model.graph.node[high - 1]
    reason = str(cause) if isinstance(cause, MinitvmError) else f"{type(cause).__name__}: {cause}"
    where = f"pass {pass_name} (stage '{stage}')"
    if node is not None:
        label = f"node '{node.name or f'#{high - 1}'}'"
        if reason.startswith(f"{label} ("):  # the frontend's errors name the node already
            reason = reason.split("): ", 1)[-1]
        message = f"{label} ({node.op_type}) fails to compile in {where}: {reason}"
    else:
        message = f"the model fails to compile in {where} (no single node found): {reason}"
    return CompileFailure(message, stage, pass_name, node)
