"""Tuning tasks for a choice graph-winograd makes: each 3x3 conv's algorithm.

graph-winograd gives each 3x3 stride-1 conv the direct conv or a Winograd tile by a roofline
model of this machine (`passes/graph/winograd.py`: `best_tile`). A model is a model: on a CPU
where it is off, what is measured must win. So the choice is a tuning task, as a kernel's
schedule is, of one knob, `algorithm` (direct, f2x2, f4x4), keyed by the conv's
`choice_key` (its types, window and the target: CPU and threads):

    model ──graph passes up to graph-winograd──▶ 3x3 convs ──group by choice_key──▶
        ChoiceTask(key, knob algorithm, default = the model's pick, count, the conv alone)

A task's standalone module is the conv alone at the graph level, `@main(x, weight, bias)`.
Its measurement builder (`build_choice`) binds the weight and bias to seeded random constants
(Winograd needs a constant weight, transformed at compile time; binding it in the worker keeps
megabytes of weights out of the job) and compiles the conv with the candidate's algorithm:
its kernels (a direct conv, or two transforms around a batched GEMM) with their default
schedules. Every algorithm computes the same conv, so the default's outputs are the others'
reference, as a kernel's default's are for its schedules.

Where the model's weights outgrow the last-level cache, each of its convs reads its weight
from memory at each inference, and each run of a task starts with cold caches
(`MeasureJob.evict_bytes`): the algorithms differ most in how much weight they read
(Winograd's transformed weight is 1.8x the conv's with 2 x 2 tiles, 4x with 4 x 4), and run
back to back a weight of about the cache's size stays partly cached. Where the weights fit,
they stay cached from one inference to the next, and the runs are back to back: timed cold,
a 32 -> 32 conv at 28 x 28 (74 KB of weights) took 0.23 ms with any algorithm, warm 0.136
direct, 0.088 f2x2 and 0.058 f4x4 (AMD EPYC Zen 4, one thread), as in its model.

`tuner.search.tune` measures every algorithm of every such task first, then takes the kernel
tasks from the model compiled with the algorithms the records then hold: the kernels it tunes
are the ones the tuned model runs.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import onnx
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from minitvm.compiler import compile_module, load_model
from minitvm.dialects.graph import ConstantOp, ConvNchwcOp
from minitvm.dialects.graph.base import shape_of
from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.frontend import from_onnx
from minitvm.host import target_key
from minitvm.ir import make_context, parse_module, print_module
from minitvm.passes.graph.winograd import (
    ALGORITHM,
    ALGORITHMS,
    TILE_OF,
    choice_key,
    conv_of,
    model_pick,
)
from minitvm.pipeline import graph_passes
from minitvm.runtime import TensorSpec, random_arrays
from minitvm.schedules.base import Config, InvalidConfig, Knob
from minitvm.tuner.measure import MeasureJob, Runner, eviction_bytes
from minitvm.tuner.tasks import Task

#: The graph-winograd mode that compiles a conv with each algorithm.
MODE_OF = {algorithm: "never" if tile is None else algorithm for algorithm, tile in TILE_OF.items()}
#: The template name choice tasks carry in the records and reports.
TEMPLATE = "graph-winograd"


@dataclass(frozen=True)
class ChoiceTask(Task):
    """A conv's algorithm as a tuning task (see the module docstring): `module_text` is the
    conv alone at the graph level, `inputs` its image alone (the weight and bias are bound in
    the measurement worker). A config is `{"algorithm": one of ALGORITHMS}`."""

    def module(self, config: Config | None = None) -> ModuleOp:
        """The conv alone (graph level; the algorithm is chosen when it is compiled)."""
        if config is not None:
            self.check(config)
        return parse_module(self.module_text, filename=f"<task {self.name}>")

    def check(self, config: Config) -> None:
        self._check_knobs(config)
        if config.get(ALGORITHM) not in ALGORITHMS:
            raise InvalidConfig(
                f"{TEMPLATE}: {ALGORITHM} must be one of {', '.join(ALGORITHMS)}, "
                f"not {config.get(ALGORITHM)!r}"
            )

    def configs(self) -> list[dict[str, int | str]]:
        return [{ALGORITHM: algorithm} for algorithm in ALGORITHMS]

    #: What each run reads first (`MeasureJob.evict_bytes`): 0 where the model's weights fit
    #: in the last-level cache (see the module docstring).
    evict_bytes: int = 0

    def job(self, config: Config | None = None, **fields: object) -> MeasureJob:
        """The MeasureJob of the conv compiled with `config`'s algorithm (None: the default).
        A `builder` among `fields` (the tuner's builder of te-level modules) does not apply:
        the conv is built by `build_choice`."""
        chosen = dict(self.default_config or {}) if config is None else dict(config)
        self.check(chosen)
        fields.pop("builder", None)
        fields.setdefault("evict_bytes", self.evict_bytes)
        builder = functools.partial(build_choice, str(chosen[ALGORITHM]))
        return MeasureJob(
            self.module_text,
            self.inputs,
            self.outputs,
            self.num_threads,
            self.opt_level,
            builder=builder,
            **fields,  # type: ignore[arg-type]
        )


def build_choice(algorithm: str, job: MeasureJob) -> Runner:
    """Build a choice task's conv with `algorithm` (a measurement builder; see the module
    docstring): the arguments of `@main` past `job.inputs` become seeded random constants."""
    module = parse_module(job.module_text, filename="<candidate>")
    main = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    )
    bind_arguments(main, len(job.inputs), job.seed + 1)
    exe = compile_module(
        module, job.inputs, job.outputs, job.opt_level, job.num_threads,
        winograd=MODE_OF[algorithm],
    )  # fmt: skip
    return exe.run


def bind_arguments(main: func.FuncOp, keep: int, seed: int) -> None:
    """Replace the arguments of `main` after the first `keep` by constants of seeded random
    values (`runtime.random_arrays`), in place."""
    block = main.body.block
    bound = list(block.args[keep:])
    specs = [_spec(arg.name_hint or f"arg{n}", arg) for n, arg in enumerate(bound)]
    values = random_arrays(specs, seed)
    for arg, spec in zip(bound, specs, strict=True):
        constant = ConstantOp.from_array(values[spec.name], spec.name)
        constant.result.name_hint = spec.name
        Rewriter.insert_op(constant, InsertPoint.at_start(block))
        arg.replace_all_uses_with(constant.result)
    for arg in reversed(bound):
        block.erase_arg(arg)
    outputs = main.function_type.outputs.data
    main.function_type = FunctionType.from_lists([a.type for a in block.args], list(outputs))


def _spec(name: str, value: SSAValue) -> TensorSpec:
    assert isinstance(value.type, TensorType)
    return TensorSpec(name, shape_of(value.type), numpy_dtype_of(value.type.element_type))  # type: ignore[arg-type]


def conv_alone(op: ConvNchwcOp) -> tuple[ModuleOp, TensorSpec, TensorSpec]:
    """A module whose `@main(in0, weight[, bias])` is `op` alone, with the specs of its image
    and result."""
    operands = [op.input, op.weight, *([op.bias] if op.bias is not None else [])]
    block = Block(arg_types=[v.type for v in operands])
    for arg, name in zip(block.args, ("in0", "weight", "bias"), strict=False):
        arg.name_hint = name
    conv = op.clone(value_mapper=dict(zip(operands, block.args, strict=True)))
    conv.result.name_hint = "out0"
    block.add_ops([conv, func.ReturnOp(conv.result)])
    types = FunctionType.from_lists([a.type for a in block.args], [conv.result.type])
    main = func.FuncOp("main", types, Region(block))
    return ModuleOp([main]), _spec("in0", block.args[0]), _spec("out0", conv.result)


def weight_bytes(module: ModuleOp) -> int:
    """The bytes of the module's constants (its weights, after folding)."""
    total = 0
    for op in module.walk():
        if isinstance(op, ConstantOp):
            type_ = op.result.type
            assert isinstance(type_, TensorType)
            total += type_.element_count() * numpy_dtype_of(type_.element_type).itemsize
    return total


def last_level_cache() -> int:
    """The size of this machine's largest data cache (`machine.describe_machine`; 0 if none
    is known, and then every model's weights outgrow it)."""
    from minitvm.machine import describe_machine

    sizes = [c.size for c in describe_machine().caches if c.kind != "instruction"]
    return max(sizes, default=0)


def choice_tasks(
    model: str | os.PathLike[str] | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int | str | None]] | None = None,
    num_threads: int = 1,
    opt_level: int = 3,
) -> list[ChoiceTask]:
    """The algorithm tasks of an ONNX model compiled for `num_threads` threads on this CPU,
    in order of first occurrence: one per distinct 3x3 conv graph-winograd may rewrite. A
    conv of sizes known only at run time is none (its batch included: it is measured as one
    conv); at opt levels without graph-winograd there are none."""
    passes = graph_passes(opt_level)
    names = [p.name for p in passes]
    if TEMPLATE not in names:
        return []
    module = from_onnx(load_model(model), input_shapes)  # type: ignore[arg-type]
    ctx = make_context()
    for graph_pass in passes[: names.index(TEMPLATE)]:
        graph_pass.apply(ctx, module)
    target = target_key(num_threads)
    evict = eviction_bytes() if weight_bytes(module) > last_level_cache() else 0
    groups: dict[str, list[ConvNchwcOp]] = {}
    for op in module.walk():
        if not isinstance(op, ConvNchwcOp) or not isinstance(op.weight.owner, ConstantOp):
            continue
        if conv_of(op) is None or not all(isinstance(d, int) for d in shape_of(op.input.type)):  # type: ignore[arg-type]
            continue
        groups.setdefault(choice_key(op, target), []).append(op)
    tasks = []
    for key, group in groups.items():
        op = group[0]
        conv = conv_of(op)
        assert conv is not None
        alone, image, result = conv_alone(op)
        tasks.append(
            ChoiceTask(
                key=key,
                name=f"conv3x3 {conv.channels}->{conv.outputs} at "
                f"{conv.output[0]}x{conv.output[1]} x{conv.n} ({ALGORITHM})",
                template=TEMPLATE,
                knobs=(Knob(ALGORITHM, ALGORITHMS),),
                default_config={ALGORITHM: model_pick(conv)},
                count=len(group),
                module_text=print_module(alone),
                inputs=(image,),
                outputs=(result,),
                target=target,
                num_threads=num_threads,
                opt_level=opt_level,
                kernel_names=tuple(o.result.name_hint or "conv" for o in group),
                evict_bytes=evict,
            )
        )
    return tasks
