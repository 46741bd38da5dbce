"""The compile pipeline, declared once: every pass `minitvm.compile` runs, in order, per opt level.

Each pass is made from the pass registry by its registered name, so the whole pipeline is a
`minitvm-opt -p` string (`pipeline_spec`) that rebuilds exactly what the compiler builds:

    minitvm import m.onnx | minitvm-opt -p "$(minitvm compile m.onnx --print-pipeline)" -t llvm

prints the LLVM IR of the compile as one module, as `minitvm compile --emit-llvm` does
(tests/unit/test_pipeline.py checks it on every `minitvm bench` model). `minitvm.compile`
runs the same passes but, from convert-te-to-loop on, on each kernel alone
(`kernel_stages`: kernel_build.py compiles and caches kernels one by one). At -O3 the
pipeline is:

    graph passes      graph-widen-bf16, graph-canonicalize, graph-fold-weight-layout,
                      graph-fold-batchnorm, graph-conv-transpose-as-conv, graph-conv-layout{block=16},
                      graph-winograd{mode=auto}, graph-pack-weights, graph-fuse, graph-dce
    graph -> te       convert-graph-to-te                      (kernels: WHAT)
    schedule          te-default-schedule, [te-apply-records{records=URL threads=N}]  (HOW)
    te -> loop        te-merge-kernels, convert-te-to-loop
    loop hints        loop-vectorize-transpose, loop-vectorize, loop-unroll, loop-vectorize
    loop passes       cse, loop-promote-accumulators, loop-sections, loop-plan-memory
    loop -> llvm      convert-loop-to-llvm

-O2 is the same; -O1 keeps only graph-widen-bf16, graph-canonicalize and graph-dce of the
graph passes; -O0 keeps only graph-widen-bf16 (codegen needs it) and has no loop passes (but
the schedule's hints still become code). (The frontend has already folded
constants; LLVM's own -O level is the same number, applied after this pipeline.) The stages
are the compile report's rows (up to the schedule as wall time, the kernels' stages as CPU
time over the processes that compiled them), and the IR levels it counts ops at.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.passes import ModulePass

from minitvm.passes.registry import make_pass
from minitvm.schedules.base import LANES, REGISTER_LANES

#: The channel block of the NCHW[x]c layout convolutions run in: one vector register of
#: floats, 16 with AVX-512 and 8 with AVX2 (at least 8). Blocks of 32 and 64 run the ResNet
#: block's conv no faster with AVX-512; with AVX2, a 16-float block takes two registers a
#: pixel, and a 7x7 conv's register block shrinks to one pixel: 512 -> 512 channels at 7x7,
#: best config of each block, 4.66 ms in NCHW16c and 2.78 in NCHW8c (AMD EPYC Zen 4 with
#: AVX-512 masked out, one thread; `bench/conv_layouts.py --blocks 8 16`).
CONV_BLOCK = max(REGISTER_LANES, LANES // 2)


@dataclass(frozen=True)
class Stage:
    """Passes that the compile report times as one row (`label`), and the IR level whose ops
    it counts after them (`level`, None: none)."""

    label: str
    passes: tuple[ModulePass, ...]
    level: str | None = None


def graph_passes(
    opt_level: int,
    conv_block: int = CONV_BLOCK,
    winograd: str = "auto",
    *,
    records: str | None = None,
    num_threads: int = 0,
    choices: tuple[str, ...] = (),
) -> list[ModulePass]:
    """Level 1 cleans up; level 2 and up also fold batch norms into weights, run convolutions
    in the NCHW{conv_block}c layout (3x3 ones as Winograd F(2x2, 3x3) or F(4x4, 3x3) where
    graph-winograd's `winograd` mode says so, or in mode "auto" the algorithm that `choices`
    or the `records` for this CPU and `num_threads` hold for the conv) and fuse ops into
    kernels. Fusion comes after canonicalization (which removes the reshape pairs and `x * 1`
    that would otherwise end up inside groups) and before DCE (which sweeps the constants
    that BN folding replaced)."""
    widen = make_pass("graph-widen-bf16")  # codegen needs it: at every level
    if opt_level < 1:
        return [widen]
    if opt_level < 2:
        return [widen, make_pass("graph-canonicalize"), make_pass("graph-dce")]
    return [
        widen,
        make_pass("graph-canonicalize"),
        make_pass("graph-fold-weight-layout"),
        make_pass("graph-fold-batchnorm"),
        make_pass("graph-conv-transpose-as-conv"),
        make_pass("graph-conv-layout", block=conv_block),
        make_pass(
            "graph-winograd", mode=winograd, records=records, threads=num_threads, choices=choices
        ),
        make_pass("graph-pack-weights"),
        make_pass("graph-fuse"),
        make_pass("graph-dce"),
    ]


def te_stages(
    opt_level: int = 3,
    *,
    records: str | None = None,
    num_threads: int = 0,
    conv_block: int = CONV_BLOCK,
    winograd: str = "auto",
    choices: tuple[str, ...] = (),
) -> list[Stage]:
    """From graph IR to scheduled te kernels (`compiler.lower_to_te`). With `records`, convs
    and kernels tuned for `num_threads` threads (0: every core) on this CPU get their tuned
    algorithms and schedules; `choices`: graph-winograd's (conv algorithms given in Python)."""
    passes = graph_passes(
        opt_level, conv_block, winograd, records=records, num_threads=num_threads, choices=choices
    )
    stages = [
        Stage("graph passes", tuple(passes), "graph (optimized)"),
        Stage("graph -> te", (make_pass("convert-graph-to-te"),)),
        Stage("schedule", (make_pass("te-default-schedule"),), "te"),
    ]
    if records is not None:
        tuned = make_pass("te-apply-records", records=records, threads=num_threads)
        stages.append(Stage("apply records", (tuned,), "te"))
    return stages


def kernel_stages(opt_level: int = 3) -> list[Stage]:
    """From one scheduled te kernel to the llvm dialect: what `build_stages` does to each
    kernel, run on a module of that kernel alone (kernel_build.py compiles kernels one by
    one, each to its own object code, so that each can be cached and compiled on its own
    core). The same passes, but for te-merge-kernels, which needs the whole module."""
    hints = ("loop-vectorize-transpose", "loop-vectorize", "loop-unroll", "loop-vectorize")
    loop = ("cse", "loop-promote-accumulators", "loop-sections", "loop-plan-memory")
    loop = loop if opt_level >= 1 else ()
    return [
        Stage("te -> loop", (make_pass("convert-te-to-loop"),)),
        Stage("loop unroll/vectorize", tuple(make_pass(name) for name in hints)),
        Stage("loop passes", tuple(make_pass(name) for name in loop), "loop"),
        Stage("loop -> llvm", (make_pass("convert-loop-to-llvm"),), "llvm"),
    ]


def build_stages(opt_level: int = 3) -> list[Stage]:
    """From scheduled te kernels to the llvm dialect, as one module (`compiler.llvm_ir`,
    `minitvm-opt`): kernels that are the same code merged first, then lowered; the
    schedule's unroll and vectorize hints become code before any other loop pass."""
    first, *rest = kernel_stages(opt_level)
    return [replace(first, passes=(make_pass("te-merge-kernels"), *first.passes)), *rest]


def compile_stages(
    opt_level: int = 3,
    *,
    records: str | None = None,
    num_threads: int = 0,
    conv_block: int = CONV_BLOCK,
    winograd: str = "auto",
) -> list[Stage]:
    """The whole pipeline, graph IR to llvm dialect (see the module docstring)."""
    te = te_stages(
        opt_level, records=records, num_threads=num_threads, conv_block=conv_block,
        winograd=winograd,
    )  # fmt: skip
    return [*te, *build_stages(opt_level)]


def pipeline_spec(stages: list[Stage]) -> str:
    """The pipeline as a `minitvm-opt -p` string."""
    return ",".join(str(p.pipeline_pass_spec()) for stage in stages for p in stage.passes)
