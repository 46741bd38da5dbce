"""A compile instrumented to time each kernel call as the model runs (`instrument=True`,
lowering/kernel_clock.py, runtime/kernel_clock.py): the same outputs, one clock per call site
of @main named after its kernel, every call counted, and the kernels' time within the run."""

from __future__ import annotations

import time

import numpy as np
import pytest
from onnx import helper
from test_conv_layout import residual_stage
from test_frontend_control_flow import I64, F, loop_body, model

import minitvm as mt
from minitvm.compiler import lower_to_te, random_inputs
from minitvm.errors import MinitvmError
from minitvm.frontend import from_onnx
from minitvm.passes.te.merge_kernels import kernel_text
from minitvm.schedules.kernel import kernels


@pytest.mark.parametrize("threads", [1, 2])
def test_every_kernel_call_of_the_model_is_timed_as_it_runs(threads: int) -> None:
    m = residual_stage(seed=0)
    exe = mt.compile(m, num_threads=threads, instrument=True)
    plain = mt.compile(m, num_threads=threads)
    assert plain.kernel_clock is None
    feeds = random_inputs(exe, seed=0)
    np.testing.assert_array_equal(exe.run(feeds)[0], plain.run(feeds)[0])

    clock = exe.kernel_clock
    assert clock is not None
    module = from_onnx(m)
    lower_to_te(module, num_threads=threads)
    # one site per kernel call, named after the kernel it calls, also where equal kernels
    # became one function (te-merge-kernels: 13 kernels, 11 functions)
    assert list(clock.sites) == [k.sym_name.data for k in kernels(module)]
    assert len({kernel_text(k) for k in kernels(module)}) < len(clock.sites)
    clock.reset()
    start = time.perf_counter()
    exe.run(feeds)
    wall = time.perf_counter() - start
    seconds, calls = clock.read()
    assert calls.tolist() == [1] * len(clock.sites)
    assert (seconds > 0).all()
    if threads == 1:  # the kernels run one after another within the run
        assert seconds.sum() <= 1.05 * wall
    clock.reset()
    assert clock.read()[1].tolist() == [0] * len(clock.sites)


def test_a_kernel_in_a_loop_counts_each_call() -> None:
    """A Loop of run-time trip count runs its body's kernels once per trip."""
    node = helper.make_node(
        "Loop", ["M", "", "acc0"], ["acc"], name="repeat", body=loop_body(with_scan=False)
    )
    m = model([node], {"acc0": (F, [4]), "x": (F, [4]), "M": (I64, [])}, ["acc"])
    exe = mt.compile(m, num_threads=1, instrument=True)
    clock = exe.kernel_clock
    assert clock is not None and clock.sites
    feeds = {"acc0": np.ones(4, np.float32), "x": np.ones(4, np.float32)}
    for trips in (0, 7):
        clock.reset()
        exe.run({**feeds, "M": np.array(trips, np.int64)})
        _, calls = clock.read()
        assert calls.tolist() == [trips] * len(clock.sites)


def test_an_instrumented_compile_is_not_exported(tmp_path) -> None:
    exe = mt.compile(residual_stage(seed=0), num_threads=1, instrument=True)
    with pytest.raises(MinitvmError, match="instrument=True"):
        exe.export(str(tmp_path / "model.so"))
    assert not (tmp_path / "model.so").exists()
