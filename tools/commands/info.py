"""`minitvm info`: the machine minitvm compiles for, as it describes it (machine.py).

    minitvm info [--remeasure] [--json]

The CPU, its vector registers and ISA extensions, its caches, the cores this process may use,
and the measured FMA throughput and memory bandwidth of one core (measured at first use and
cached per machine; `--remeasure` measures again).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minitvm.machine import Machine

#: ISA extensions worth naming, in the order shown, by their LLVM feature names.
NOTABLE_FEATURES = (
    "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512vnni", "avx512bf16", "avx512fp16",
    "amx-tile", "amx-bf16", "amx-int8", "avx2", "fma", "f16c", "avxvnni",
)  # fmt: skip


def _bytes(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def format_machine(machine: Machine) -> str:
    """The description as a few labelled lines."""
    isa = [f for f in NOTABLE_FEATURES if f in machine.features]
    caches = ", ".join(
        f"L{c.level}{'d' if c.kind == 'data' else 'i' if c.kind == 'instruction' else ''} "
        f"{_bytes(c.size)}" + (f" (shared by {c.shared_by})" if c.shared_by > 1 else "")
        for c in machine.caches
    )
    lines = [
        f"CPU          {machine.model} (LLVM: {machine.llvm_cpu}), {machine.cores} "
        f"core{'s' if machine.cores != 1 else ''} usable",
        f"vectors      {machine.vector_registers} x {machine.vector_bits}-bit "
        f"({machine.f32_lanes} fp32 lanes)",
        f"ISA          {' '.join(isa) or 'none of ' + ', '.join(NOTABLE_FEATURES[:4])}",
        f"caches       {caches or 'unknown (sysfs lists none)'}",
    ]
    measured = machine.measured
    if measured is not None:
        lines += [
            f"FMA peak     {measured.fma_gflops:.1f} GFLOP/s fp32 per core, "
            f"{measured.fma_gflops * machine.cores:.1f} on {machine.cores} "
            f"(measured: {measured.fma_chains} chains of vector FMAs)",
            f"memory       {measured.bandwidth_gbs:.1f} GB/s read, one core (measured: "
            f"{_bytes(measured.bandwidth_bytes)} streamed)",
        ]
        if measured.l2_bandwidth_gbs is not None:
            l2 = machine.cache(2)
            lines.append(
                f"L2           {measured.l2_bandwidth_gbs:.1f} GB/s read, one core (measured: "
                f"{_bytes(l2.size // 2) if l2 else 'half of it'} read over and over)"
            )
        lines.append(f"measured     {measured.when}")
    return "\n".join(lines) + "\n"


def run_info(args: argparse.Namespace) -> None:
    from minitvm.machine import cache_path, describe_machine

    machine = describe_machine(remeasure=args.remeasure)
    if args.json:
        json.dump({**asdict(machine), "vector_bits": machine.vector_bits,
                   "vector_registers": machine.vector_registers}, sys.stdout, indent=1)  # fmt: skip
        sys.stdout.write("\n")
        return
    sys.stdout.write(format_machine(machine))
    print(f"cache        {cache_path(machine)}")


def add_info_command(subparsers: argparse._SubParsersAction) -> None:  # pyright: ignore[reportPrivateUsage]
    p = subparsers.add_parser(
        "info",
        help="describe this machine: CPU, vectors, caches, measured FMA peak and bandwidth",
        description="Describe the machine minitvm compiles for: the CPU and its ISA "
        "extensions, vector registers, caches and cores, and one core's fp32 FMA throughput "
        "and memory bandwidth (measured at first use, cached per machine).",
    )
    p.add_argument("--remeasure", action="store_true", help="measure again, ignoring the cache")
    p.add_argument("--json", action="store_true", help="print the description as JSON")
    p.set_defaults(run=run_info)
