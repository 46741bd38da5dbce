"""Would the conv layout's channel block be worth a tuning knob? Every config, every block.

    python bench/conv_layouts.py resnet_block --blocks 16 32 64
    python bench/conv_layouts.py model.onnx --kernel fused_conv_nchwc_3 --num-threads 2

graph-conv-layout runs convolutions in NCHW16c, one 16-float vector per pixel's channel
block. TVM makes the block (its `tile_ic`/`tile_oc`) part of a conv's search space, which
is what leaves most of its conv spaces far from their best and gives a learned search its
edge over random draws. This measures whether that would hold here: for each block it
compiles the model with `lower_to_te(conv_block=...)`, takes the same conv kernel's tuning
task and measures every valid config of it (in a `tuner.measure.Measurer` worker, checked
against that block's default schedule). It prints per block the default and the best, and
for all blocks together how many configs are within `--within` (5%) of the best of all:
the chance that a random draw from the joint space lands near the best. Weights are fed
random data, as in tuning. It is a measurement, not a test.

The conv is the heaviest conv_nchwc task at the first block (occurrences x default latency)
unless `--kernel` names one of its kernels. Convs run direct here (graph-winograd's mode
"never"): the question is the direct conv's layout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence

from minitvm.bench.compare_samplers import model_of
from minitvm.compiler import CONV_BLOCK
from minitvm.errors import MinitvmError
from minitvm.tuner.measure import Measurer
from minitvm.tuner.search import Baseline, MeasureOptions, format_seconds, measure_baselines
from minitvm.tuner.tasks import Task, extract_tasks

CONV_TEMPLATE = "conv_nchwc"


def conv_task(
    tasks: Sequence[Task], kernel: str | None, measurer: Measurer
) -> tuple[Task, Baseline]:
    """The task holding `kernel` (None: the heaviest conv) with its measured default."""
    convs = [
        t
        for t in tasks
        if t.template == CONV_TEMPLATE and (kernel is None or kernel in t.kernel_names)
    ]
    if not convs:
        raise MinitvmError(
            f"no {CONV_TEMPLATE} task" + (f" holds kernel {kernel}" if kernel else "")
        )
    measured = []
    for task, baseline in zip(
        convs, measure_baselines(convs, measurer, MeasureOptions()), strict=True
    ):
        if not isinstance(baseline, Baseline):
            raise MinitvmError(
                f"{task.name}: the default schedule failed ({baseline.status.value}: {baseline.message})"
            )
        measured.append((task.count * baseline.seconds, task, baseline))
    _, task, baseline = max(measured, key=lambda row: row[0])
    return task, baseline


def every_config(task: Task, baseline: Baseline, measurer: Measurer) -> list[tuple[float, dict]]:
    """(median seconds, config) of every valid config that builds and computes the right
    result, fastest first."""
    timeout = max(10.0, 5.0 * (baseline.build_seconds + 20 * baseline.seconds))
    results = []
    for config in task.configs():
        result = measurer.run(task.job(config, seed=0, reference=baseline.outputs), timeout=timeout)
        if result.ok and result.median_seconds is not None:
            results.append((result.median_seconds, config))
    return sorted(results, key=lambda row: row[0])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="an .onnx path or resnet_block")
    parser.add_argument(
        "--blocks", type=int, nargs="+", default=[CONV_BLOCK, 2 * CONV_BLOCK, 4 * CONV_BLOCK]
    )
    parser.add_argument("--kernel", help="a kernel of the conv task (default: the heaviest conv)")
    parser.add_argument("--num-threads", type=int, default=1)
    parser.add_argument("--within", type=float, default=0.05)
    args = parser.parse_args(argv)
    try:
        model = model_of(args.model)
        per_block: dict[int, list[tuple[float, dict]]] = {}
        kernel = args.kernel
        with Measurer() as measurer:
            for block in args.blocks:
                tasks = extract_tasks(
                    model, num_threads=args.num_threads, conv_block=block, winograd="never"
                )
                task, baseline = conv_task(tasks, kernel, measurer)
                kernel = kernel or task.kernel_names[0]  # the same conv at every block
                per_block[block] = every_config(task, baseline, measurer)
                fastest, config = per_block[block][0]
                print(
                    f"NCHW{block}c  {task.name}: {len(per_block[block])} configs, default "
                    f"{format_seconds(baseline.seconds)}, best {format_seconds(fastest)} {config}",
                    flush=True,
                )
    except MinitvmError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    best = min(rows[0][0] for rows in per_block.values())
    bound = best * (1.0 + args.within)
    for block, rows in per_block.items():
        near = sum(1 for seconds, _ in rows if seconds <= bound)
        median = statistics.median(seconds for seconds, _ in rows)
        print(
            f"NCHW{block}c  {near} of {len(rows)} within {args.within:.0%} of the best of all; median config {format_seconds(median)}"
        )
    near = sum(1 for rows in per_block.values() for seconds, _ in rows if seconds <= bound)
    total = sum(len(rows) for rows in per_block.values())
    print(
        f"all blocks: best {format_seconds(best)}; {near} of {total} configs ({near / total:.0%}) "
        f"within {args.within:.0%} of it"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
