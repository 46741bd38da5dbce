"""Tuning tasks: the distinct tunable kernels of a model, each a small module of its own.

The first step of `minitvm tune`. A model is lowered to the te level as `minitvm.compile`
would lower it; each te kernel with a schedule template is a candidate for tuning, and
kernels that compute the same thing (equal `kernel_task_key`: structure + target) are one
task, tuned once and applied to every occurrence:

    model ──lower_to_te──▶ kernels ──group by task key──▶ Task(key, knobs, default, count,
                                                              standalone module text, ...)

A task's standalone module holds one instance of its kernel and a `@main` that takes every
argument of the kernel as an input (weights included: they are fed seeded random data, which
is all a timing needs) and returns what the kernel returns. `Task.job(config)` turns a config
into the `MeasureJob` that `tuner/measure.py` builds and times. The tuner spends its time
where the latency is: a task's weight is `count` times its default latency.

A kernel of symbolic sizes (a model compiled with dimensions left to run time) is one code
for every size, so its task is measured at the sizes it is asked for (`Task.sizes`: each a
run, their times' geometric mean the figure) and one config serves them all; its template
decides under `size_hints`, as te-default-schedule and te-apply-records do, so that the task
key is the one a dynamic compile looks up. A symbolic kernel without sizes is not a task.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import onnx
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Region

from minitvm.compiler import CONV_BLOCK, load_model, lower_to_te
from minitvm.dialects import te
from minitvm.dialects.graph.base import shape_of
from minitvm.dialects.graph.constant import numpy_dtype_of
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx
from minitvm.host import target_key
from minitvm.ir import parse_module, print_module
from minitvm.lowering.te_to_loop import symbols_used
from minitvm.runtime import TensorSpec
from minitvm.schedules.base import Config, InvalidConfig, Knob
from minitvm.schedules.kernel import (
    kernel_task_key,
    kernel_template,
    kernels,
    set_kernel_config,
)
from minitvm.symbolic import bare_symbol, size_hints
from minitvm.tuner.measure import MeasureJob


def _dims(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape)) or "scalar"


@dataclass(frozen=True)
class Task:
    """One distinct tunable kernel of a model (see the module docstring).

    `knobs` is the search space (its template's), `default_config` what an untuned compile
    uses (None: the template's block does not fit the shape and the kernel keeps the plain
    loop order, which no config expresses), `count` how many kernels of the model it stands
    for, `kernel_names` their names. Pickles cheaply (module text, no IR)."""

    key: str
    name: str
    template: str
    knobs: tuple[Knob, ...]
    default_config: dict[str, int | str] | None
    count: int
    module_text: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    target: str
    num_threads: int
    opt_level: int = 3
    kernel_names: tuple[str, ...] = ()
    #: For a kernel of symbolic sizes, the symbols' values it is measured at (each a tuple of
    #: (name, size) pairs); empty for a static kernel.
    sizes: tuple[tuple[tuple[str, int], ...], ...] = ()
    _module: list[ModuleOp] = field(default_factory=list, init=False, compare=False, repr=False)

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "_module": []}  # the parsed module stays behind

    def module(self, config: Config | None = None) -> ModuleOp:
        """A fresh copy of the standalone module, its kernel scheduled by `config` (None: the
        default schedule). Raises InvalidConfig for a config the template rejects."""
        if not self._module:
            self._module.append(parse_module(self.module_text, filename=f"<task {self.name}>"))
        module = self._module[0].clone()
        if config is not None:
            self._check_knobs(config)
            with _hinted(self.sizes):
                set_kernel_config(_the_kernel(module), config)
        return module

    def _check_knobs(self, config: Config) -> None:
        unknown = sorted(set(config) - {knob.name for knob in self.knobs})
        if unknown:
            raise InvalidConfig(f"{self.template}: no knob named {', '.join(unknown)}")

    def check(self, config: Config) -> None:
        """Raise InvalidConfig unless `config` is a valid schedule of this task (nothing built)."""
        self._check_knobs(config)
        if not self._module:
            self.module()
        with _hinted(self.sizes):
            anchor, template = _template(_the_kernel(self._module[0]))
            template.schedule(anchor, config)

    def job(self, config: Config | None = None, **fields: object) -> MeasureJob:
        """The MeasureJob of this task under `config` (None: its default schedule); other
        MeasureJob fields (seed, reference, builder, ...) as keywords."""
        text = self.module_text if config is None else print_module(self.module(config))
        return MeasureJob(
            text,
            self.inputs,
            self.outputs,
            self.num_threads,
            self.opt_level,
            **{"sizes": self.sizes, **fields},  # type: ignore[arg-type]
        )

    def configs(self) -> list[dict[str, int | str]]:
        """Every valid config of the space, in knob order (the space is small: a few hundred)."""
        names = [knob.name for knob in self.knobs]
        valid = []
        for values in itertools.product(*(knob.choices for knob in self.knobs)):
            config = dict(zip(names, values, strict=True))
            try:
                self.check(config)
            except InvalidConfig:
                continue
            valid.append(config)
        return valid


def _hinted(symbolic: object) -> contextlib.AbstractContextManager[None]:
    """Where a symbolic kernel's template decides (`symbolic` true: a symbolic task's sizes, or
    the kernel's being symbolic): under `size_hints`; a static one's as is."""
    return size_hints() if symbolic else contextlib.nullcontext()


def _template(kernel: func.FuncOp):  # -> (anchor compute, ScheduleTemplate)
    found = kernel_template(kernel)
    assert found is not None, "a task's kernel has a template by construction"
    return found


def _the_kernel(module: ModuleOp) -> func.FuncOp:
    (kernel,) = kernels(module)
    return kernel


def standalone_module(kernel: func.FuncOp) -> tuple[ModuleOp, list[TensorSpec], list[TensorSpec]]:
    """A module holding a copy of `kernel` and a `@main` that calls it on its own inputs
    (`in0`, `in1`, ...) and returns its results (`out0`, ...), with their TensorSpecs."""
    types = kernel.function_type
    block = Block(arg_types=types.inputs.data)
    for n, arg in enumerate(block.args):
        arg.name_hint = f"in{n}"
    call = func.CallOp(kernel.sym_name.data, list(block.args), list(types.outputs.data))
    block.add_ops([call, func.ReturnOp(*call.results)])
    main = func.FuncOp("main", (types.inputs.data, types.outputs.data), Region(block))
    module = ModuleOp([kernel.clone(), main])

    def specs(prefix: str, kinds: Sequence[object]) -> list[TensorSpec]:
        result = []
        for n, type_ in enumerate(kinds):
            assert isinstance(type_, TensorType)
            result.append(
                TensorSpec(f"{prefix}{n}", shape_of(type_), numpy_dtype_of(type_.element_type))
            )
        return result

    return module, specs("in", types.inputs.data), specs("out", types.outputs.data)


def tasks_of_module(
    module: ModuleOp,
    num_threads: int,
    opt_level: int = 3,
    sizes: Sequence[Mapping[str, int]] = (),
) -> list[Task]:
    """The tasks of a te-level module (after `lower_to_te`), in order of first occurrence;
    a kernel of symbolic sizes is measured at `sizes` (the values of the model's symbols;
    none given: it is no task)."""
    target = target_key(num_threads)
    groups: dict[str, list[func.FuncOp]] = {}
    for kernel in kernels(module):
        symbolic = te.is_symbolic_kernel(kernel)
        if symbolic and not sizes:
            continue
        with _hinted(symbolic):
            if kernel_template(kernel) is not None:
                groups.setdefault(kernel_task_key(kernel, target), []).append(kernel)
    tasks = []
    for key, group in groups.items():
        kernel = group[0]
        used = sorted(symbols_used(kernel)) if te.is_symbolic_kernel(kernel) else []
        measured_at = tuple(
            tuple((name, int(values[name])) for name in used) for values in sizes
        ) if used else ()  # fmt: skip
        with _hinted(measured_at):
            anchor, template = _template(kernel)
            space = template.space(anchor)
            default = template.default_config(anchor)
        assert space is not None
        standalone, inputs, outputs = standalone_module(kernel)
        name = f"{kernel.sym_name.data} {_dims(inputs[0].shape)} -> {_dims(outputs[0].shape)}"
        tasks.append(
            Task(
                key=key,
                name=name,
                template=template.name,
                knobs=tuple(space),
                default_config=default,
                count=len(group),
                module_text=print_module(standalone),
                inputs=tuple(inputs),
                outputs=tuple(outputs),
                target=target,
                num_threads=num_threads,
                opt_level=opt_level,
                kernel_names=tuple(k.sym_name.data for k in group),
                sizes=tuple(dict.fromkeys(measured_at)),  # (each set once)
            )
        )
    return tasks


def extract_tasks(
    model: str | os.PathLike[str] | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    num_threads: int = 1,
    opt_level: int = 3,
    conv_block: int = CONV_BLOCK,
    winograd: str = "auto",
    sizes: Sequence[Mapping[str, int]] = (),
    schedules: Mapping[str, Config] | None = None,
) -> list[Task]:
    """The tuning tasks of an ONNX model (path or ModelProto) compiled for `num_threads`
    threads on this CPU: one per distinct kernel with a schedule template. `conv_block` and
    `winograd`: see `minitvm.compiler.lower_to_te`. `input_shapes` may leave dimensions
    dynamic (None), as `minitvm.compile` takes them; the kernels that then have symbolic
    sizes are measured at `sizes` (values of the model's symbols, `{"seq": 128}`).
    `schedules`: the convs' algorithms to lower the model with (`tuner/choices.py`), by their
    choice keys, as `minitvm.compile` takes them (kernels' configs would change the tasks'
    default schedules: leave them out)."""
    module = from_onnx(load_model(model), input_shapes)
    lower_to_te(
        module, opt_level, num_threads=num_threads, conv_block=conv_block, winograd=winograd,
        schedules=schedules,
    )  # fmt: skip
    return tasks_of_module(module, num_threads, opt_level, sizes)


def shapes_and_sizes(
    model: str | os.PathLike[str] | onnx.ModelProto,
    shapes: Mapping[str, Sequence[Sequence[int | str | None]]],
) -> tuple[dict[str, tuple[int | str | None, ...]], list[dict[str, int]]]:
    """Several shapes of the inputs -> one dynamic compile measured at each: the
    `input_shapes` that leave every dimension whose sizes differ dynamic (None), and the
    model's symbols' values at each shape (`extract_tasks`' `sizes`). An input given one shape
    keeps it at every one; the others must all be given as many. With one shape each: those
    shapes, and no sizes (a static tune)."""
    counts = {len(v) for v in shapes.values() if len(v) > 1}
    if len(counts) > 1:
        raise MinitvmError(
            "inputs given several shapes must be given as many each: "
            + ", ".join(f"{n} ({len(v)})" for n, v in shapes.items() if len(v) > 1)
        )
    if not counts:
        return {name: tuple(v[0]) for name, v in shapes.items()}, []
    (count,) = counts
    compile_shapes: dict[str, tuple[int | str | None, ...]] = {}
    for name, given in shapes.items():
        ranks = {len(s) for s in given}
        if len(ranks) > 1:
            raise MinitvmError(f"input '{name}' is given shapes of different ranks")
        compile_shapes[name] = tuple(
            dims[0] if len(set(dims)) == 1 else None for dims in zip(*given, strict=True)
        )
    main = next(op for op in from_onnx(load_model(model), compile_shapes).ops
                if isinstance(op, func.FuncOp) and op.sym_name.data == "main")  # fmt: skip
    declared = {arg.name_hint: shape_of(arg.type) for arg in main.body.block.args}  # type: ignore[arg-type]
    sizes: list[dict[str, int]] = []
    for n in range(count):
        values: dict[str, int] = {}
        for name, given in shapes.items():
            shape = given[n if len(given) > 1 else 0]
            for dim, size in zip(declared.get(name, ()), shape, strict=False):
                symbol_name = bare_symbol(dim)
                if symbol_name is None or not isinstance(size, int):
                    continue
                if values.setdefault(symbol_name, size) != size:
                    raise MinitvmError(
                        f"shape {n + 1} gives '{symbol_name}' two sizes ({values[symbol_name]}, {size})"
                    )
        sizes.append(values)
    return compile_shapes, sizes
