"""The declared pipeline (pipeline.py) is what the compiler runs: printed by `minitvm compile
--print-pipeline` and run by minitvm-opt on `minitvm import`'s graph IR, it rebuilds the
compiler's LLVM IR byte for byte, on every `minitvm bench` model, untuned and with tuning
records that change its kernels (all but the cases whose hundreds of MB of weights would go
through IR text: `Case.large_weights`)."""

from __future__ import annotations

import itertools
from pathlib import Path

import onnx
import optuna
import pytest

from minitvm.bench.suite import CASES
from minitvm.compiler import llvm_ir
from minitvm.records import open_storage
from minitvm.schedules.base import InvalidConfig
from minitvm.tools import cli, minitvm_opt
from minitvm.tuner.search import Baseline, prepare_study
from minitvm.tuner.space import distributions
from minitvm.tuner.tasks import Task, extract_tasks


def _other_config(task: Task) -> dict[str, int | str] | None:
    """The first valid config of `task`'s space that is not its default."""
    names = [knob.name for knob in task.knobs]
    for values in itertools.product(*(knob.choices for knob in task.knobs)):
        config = dict(zip(names, values, strict=True))
        if config == task.default_config:
            continue
        try:
            task.check(config)
        except InvalidConfig:
            continue
        return config
    return None


def records_changing_every_task(model: onnx.ModelProto, path: Path) -> str:
    """Records in which each of `model`'s tasks (one thread) has a config other than its
    default as its best trial."""
    url = f"sqlite:///{path}"
    storage = open_storage(url, create=True)
    for task in extract_tasks(model, num_threads=1):
        config = _other_config(task)
        if config is None:
            continue
        study = prepare_study(storage, task, "tpe", Baseline(1.0, 0.0, ()))
        trial = optuna.trial.create_trial(
            params=config, distributions=distributions(task.knobs), value=0.5
        )
        study.add_trial(trial)
    return url


def opt_llvm_ir(model_path: Path, tmp_path: Path, *options: str) -> str:
    """`minitvm import model | minitvm-opt -p "$(minitvm compile model --print-pipeline
    options...)" -t llvm`, through files."""
    graph, spec, out = tmp_path / "graph.mlir", tmp_path / "pipeline.txt", tmp_path / "opt.ll"
    assert cli.main(["import", str(model_path), "-o", str(graph)]) == 0
    printed = cli.main(["compile", str(model_path), "--print-pipeline", *options, "-o", str(spec)])
    assert printed == 0
    pipeline = spec.read_text().strip()
    assert minitvm_opt.main([str(graph), "-p", pipeline, "-t", "llvm", "-o", str(out)]) == 0
    return out.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("case", [name for name, case in CASES.items() if not case.large_weights])
def test_minitvm_opt_rebuilds_the_compilers_llvm_ir(case: str, tmp_path: Path) -> None:
    model = CASES[case].build()
    path = tmp_path / f"{case}.onnx"
    onnx.save(model, str(path))

    untuned = llvm_ir(model, num_threads=1)
    assert opt_llvm_ir(path, tmp_path, "--num-threads", "1") == untuned

    records = records_changing_every_task(model, tmp_path / "records.db")
    tuned = llvm_ir(model, num_threads=1, records=records)
    assert tuned != untuned, "the records changed no kernel"
    assert opt_llvm_ir(path, tmp_path, "--num-threads", "1", "--records", records) == tuned
