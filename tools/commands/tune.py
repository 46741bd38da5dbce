"""`minitvm tune`: auto-tune a model's conv algorithms and kernel schedules (tuner/), or report
what records hold.

    minitvm tune model.onnx --trials N [--timeout S] [--records URL] [--sampler tpe|random]
                 [--workers K] [--seed S] [--num-threads T] [--input-shape ...]

An input given several `--input-shape`s (`ids=1x7 --input-shape ids=1x128`) is tuned as a
dynamic compile: the dimensions whose sizes differ stay symbolic, and each kernel of
symbolic sizes is measured at every shape, one config for all, which `minitvm compile`
with those dimensions dynamic applies.
    minitvm tune --report [--records URL] [--plot PNG]
"""

from __future__ import annotations

import argparse
import sys

from minitvm.bench.options import positive_float, positive_int
from minitvm.tools.inputs import load_onnx
from minitvm.tools.options import (
    CommandError,
    add_input_shape_option,
    add_winograd_option,
    save_plot,
)


def run_tune(args: argparse.Namespace) -> None:
    if args.report:
        report_records(args.records, None if args.no_plot else args.plot)
        return
    if args.model is None:
        raise CommandError("tune: give the model to tune (or --report to see what records hold)")
    if args.trials is None and args.timeout is None:
        raise CommandError("tune: give a budget: --trials N, --timeout SECONDS or both")
    model = load_onnx(args.model)
    from minitvm.tuner.tasks import shapes_and_sizes

    given: dict[str, list[tuple[int | str | None, ...]]] = {}
    for name, shape in args.input_shape:
        given.setdefault(name, []).append(shape)
    input_shapes, sizes = shapes_and_sizes(model, given)
    if sizes:
        print("tuning the kernels of symbolic sizes at "
              + "; ".join(", ".join(f"{k} = {v}" for k, v in s.items()) for s in sizes))  # fmt: skip
    from minitvm.tuner.progress import TuneProgress
    from minitvm.tuner.report import format_table, read_rows
    from minitvm.tuner.search import MeasureOptions, tune

    try:
        with TuneProgress() as progress:
            results = tune(
                model,
                args.records,
                trials=args.trials,
                timeout=args.timeout,
                sampler=args.sampler,
                workers=args.workers,
                seed=args.seed,
                num_threads=args.num_threads,
                input_shapes=input_shapes or None,
                sizes=sizes,
                opt_level=args.opt_level,
                winograd=args.winograd,
                measure=MeasureOptions(timeout=args.measure_timeout),
                on_event=progress,
                log=lambda line: print(line, file=sys.stderr, flush=True),
            )
    except KeyboardInterrupt:
        raise CommandError(
            f"interrupted; finished trials are kept in {args.records}: run the same command "
            "again to resume"
        ) from None
    print()
    rows = read_rows(args.records, keys={r.task.key for r in results}, sampler=args.sampler)
    sys.stdout.write(format_table(rows))
    use = f"minitvm compile {args.model} --records {args.records} --num-threads {args.num_threads}"
    if args.winograd != "auto":
        use += f" --winograd {args.winograd}"
    threads = f"{args.num_threads} thread{'s' if args.num_threads != 1 else ''}"
    if not sizes:  # (a dynamic compile is tuned at several shapes: no one model to time)
        tasks = [r.task for r in results]
        print(model_lines(model, args.records, tasks, input_shapes or None, args))
    print(f"\nrecords: {args.records} (tuned for {threads}; use them: {use})")


def model_lines(
    model: object, records: str, tasks: list, input_shapes: object, args: argparse.Namespace
) -> str:
    """The whole model's latency compiled without and with the records, timed side by side:
    what the tuning bought the model, which the kernels' speedups, each measured alone with
    its operands hot, need not tell (a kernel alone faster by 1.1-1.4x has given the model
    nothing). Where the tuned model is the slower, the configs that slow it alone are dropped
    from the records (`tuner/model_check.py`), and the model timed again."""
    from minitvm.tuner.model_check import MODEL_CHECK_ROUNDS, check_model

    options = {"input_shapes": input_shapes, "opt_level": args.opt_level, "num_threads": args.num_threads,
               "winograd": args.winograd}  # fmt: skip
    check = check_model(model, records, tasks, options)
    if check is None:
        return "the model has sizes known only at run time: give --input-shape to time it tuned"
    lines = [
        f"the model, timed side by side ({MODEL_CHECK_ROUNDS} rounds): {check.default_ms:.3f} ms "
        f"default -> {check.tuned_ms:.3f} ms tuned ({check.default_ms / check.tuned_ms:.2f}x)"
    ]
    if check.dropped:
        dropped = ", ".join(
            f"{name} ({ratio:.3f}x the model's time)" for name, ratio in check.dropped
        )
        kept = (check.examined or 0) - len(check.dropped)
        lines.append(
            f"the tuned model was the slower: dropped from the records the configs that, each "
            f"applied alone, did not make the model faster: {dropped}; {kept} kept"
        )
        assert check.retuned_ms is not None
        before, after = check.retuned_ms
        lines.append(
            f"the model, timed side by side again: {before:.3f} ms default -> {after:.3f} ms "
            f"tuned ({before / after:.2f}x)"
        )
    elif check.examined:
        lines.append(
            f"the tuned model was the slower, but each of the {check.examined} configs the "
            "records pin made it faster alone: all kept"
        )
    return "\n".join(lines)


def report_records(records: str, plot: str | None) -> None:
    from minitvm.tuner.report import convergence_png, format_table, read_rows

    rows = read_rows(records)
    sys.stdout.write(format_table(rows))
    if plot and rows:
        save_plot(convergence_png(rows), plot)
        print(f"\nconvergence plot: {plot}")


def add_tune_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    from minitvm.records import DEFAULT_RECORDS

    p = subparsers.add_parser(
        "tune",
        help="auto-tune a model's conv algorithms and kernel schedules (Optuna TPE); --report "
        "shows the records",
        description="Find faster schedules for a model's kernels: one Optuna study per distinct "
        "kernel (tuning task), each candidate built and timed in a worker process (a candidate "
        "that crashes, hangs or computes a wrong result is a failed trial), trials and time "
        "shared by each task's weight in the model's latency. Trials are kept in --records as "
        "they finish: a killed run loses none, and the same command resumes it (--trials is "
        "the total in the records). First, with --winograd auto, each distinct 3x3 conv is "
        "timed with every algorithm (direct, Winograd f2x2 and f4x4; outside --trials) and the "
        "kernels are those of the model with the fastest. Compile with the results: minitvm "
        "compile --records URL.",
    )
    p.add_argument("model", nargs="?", help="path to an .onnx file (not with --report)")
    p.add_argument("--trials", type=positive_int, metavar="N",
                   help="trials in all, split among the tasks by weight")  # fmt: skip
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS",
                   help="wall-time limit of this run, split among the tasks by weight")  # fmt: skip
    p.add_argument("--records", default=DEFAULT_RECORDS, metavar="URL",
                   help=f"Optuna storage: any SQLAlchemy URL, e.g. postgresql://user@host/db "
                   f"to share studies among machines (default {DEFAULT_RECORDS})")  # fmt: skip
    p.add_argument("--sampler", choices=("tpe", "random"), default="tpe",
                   help="tpe (default) or random, the baseline; each has its own studies")  # fmt: skip
    p.add_argument("--workers", type=positive_int, default=1, metavar="K",
                   help="tuning processes sharing the studies (default 1; more than one on a "
                   "machine disturbs the timings of each)")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="seed of the sampler (default 0)")
    p.add_argument("--num-threads", type=positive_int, default=None, metavar="N",
                   help="threads the kernels are tuned for; records apply to compiles with "
                   "the same count (default: all cores, as compile's default)")  # fmt: skip
    add_input_shape_option(p)
    p.add_argument("-O", dest="opt_level", type=int, choices=range(4), default=3, metavar="N",
                   help="optimization level 0-3 the model is compiled at (default 3)")  # fmt: skip
    add_winograd_option(p)
    p.add_argument("--measure-timeout", type=positive_float, metavar="SECONDS",
                   help="limit per candidate, build and runs (default: from the default "
                   "schedule's times, at least 10 s)")  # fmt: skip
    p.add_argument("--report", action="store_true",
                   help="print default vs best latency per task in --records, write --plot")  # fmt: skip
    p.add_argument("--plot", default="minitvm_convergence.png", metavar="PNG",
                   help="--report: convergence plot, best latency vs trial (default "
                   "minitvm_convergence.png)")  # fmt: skip
    p.add_argument("--no-plot", action="store_true", help="--report: no plot")
    p.set_defaults(run=run_tune)
