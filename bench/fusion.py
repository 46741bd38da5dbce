"""Fusion on a light model: kernel counts and latency with and without the fusion passes.

    python bench/fusion.py [model] [runs]     (default: resnet50, 5 runs)

Three builds of the same model, all with LLVM at O3 and one thread, differing only in the
graph passes: `unfused` (graph_pipeline(1): canonicalize, dce), `fold-bn` (+ BN folding),
`fused` (graph_pipeline(3): + graph-fuse). The runs are interleaved; medians are printed with
every sample, and the ratio to the unfused build. Wall time, and the CPU time of this thread
(the kernels run on it with one thread), which other processes on a busy machine disturb less.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import onnx
from xdsl.dialects import func

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from models import light_model_path, with_random_weights

from minitvm.compiler import _io_specs, _main, build, random_inputs
from minitvm.dialects.te import KERNEL_ATTR
from minitvm.frontend import from_onnx
from minitvm.ir import make_context
from minitvm.lowering.graph_to_te import ConvertGraphToTePass
from minitvm.passes.graph.canonicalize import CanonicalizePass
from minitvm.passes.graph.dce import DeadCodeEliminationPass
from minitvm.passes.graph.fold_batchnorm import FoldBatchNormPass
from minitvm.passes.graph.fuse import FusePass
from minitvm.passes.te.default_schedule import DefaultSchedulePass

VARIANTS = {
    "unfused": [CanonicalizePass(), DeadCodeEliminationPass()],
    "fold-bn": [CanonicalizePass(), FoldBatchNormPass(), DeadCodeEliminationPass()],
    "fused": [CanonicalizePass(), FoldBatchNormPass(), FusePass(), DeadCodeEliminationPass()],
}


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "resnet50"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    model = with_random_weights(onnx.load(light_model_path(name)), seed=0)
    exes = {}
    for variant, passes in VARIANTS.items():
        ctx = make_context()
        module = from_onnx(model)
        inputs, outputs = _io_specs(model, _main(module))
        for graph_pass in passes:
            graph_pass.apply(ctx, module)
        ConvertGraphToTePass().apply(ctx, module)
        DefaultSchedulePass().apply(ctx, module)
        kernels = sum(1 for f in module.ops if isinstance(f, func.FuncOp) and KERNEL_ATTR in f.attributes)
        print(f"{name} {variant}: {kernels} kernels")
        exes[variant] = build(module, inputs, outputs, opt_level=3, num_threads=1, ctx=ctx)
    feeds = random_inputs(exes["unfused"], seed=1)
    for exe in exes.values():
        exe.run(feeds)  # warm up
    wall: dict[str, list[float]] = {v: [] for v in exes}
    cpu: dict[str, list[float]] = {v: [] for v in exes}
    for _ in range(runs):
        for variant, exe in exes.items():
            start, start_cpu = time.perf_counter(), time.thread_time()
            exe.run(feeds)
            wall[variant].append(time.perf_counter() - start)
            cpu[variant].append(time.thread_time() - start_cpu)
    for label, times in (("wall", wall), ("cpu", cpu)):
        base = statistics.median(times["unfused"])
        for variant, samples in times.items():
            median = statistics.median(samples)
            print(f"{name} {variant} {label}: median {1e3 * median:.1f} ms "
                  f"({base / median:.2f}x vs unfused); samples "
                  f"{', '.join(f'{1e3 * t:.1f}' for t in samples)}")


if __name__ == "__main__":
    main()
