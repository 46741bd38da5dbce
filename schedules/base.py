"""What every schedule template is: a kernel class's schedule as a function of its knobs.

A template recognises a class of te computes by their structure and turns a *config* (one
value per knob) into a list of schedule primitives. Its `default_config` is what untuned
compiles use (te-default-schedule); its `space` is the search space the tuner explores. A
config that breaks a template's constraints (more accumulators than vector registers) is
rejected by `schedule` with `InvalidConfig` before anything is built, so the tuner prunes it
without measuring. The templates themselves are one module each beside this one;
`templates.py` lists them in the order they are tried.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute

from minitvm.symbolic import SymDim
from minitvm.dialects import te
from minitvm.errors import MinitvmError
from minitvm.host import host_register_file
from minitvm.machine import find_cache, read_caches

#: fp32 lanes of the vectors the schedules emit (`<16 x float>`): one zmm register with
#: AVX-512, two ymm registers with AVX2 (LLVM splits them).
LANES = 16

#: The host's vector register file: how many registers, and the fp32 lanes of each.
VECTOR_REGISTERS, _REGISTER_BITS = host_register_file()
REGISTER_LANES = _REGISTER_BITS // 32

#: Registers a register block's accumulators may take: all but 4, which the broadcast operand
#: and the loaded vectors need (28 zmm with AVX-512, 12 ymm with AVX2).
MAX_ACCUMULATORS = VECTOR_REGISTERS - 4


#: Bytes of the L1 data and L2 caches of one core, as sysfs lists them (None where it lists
#: none).
L1_BYTES = getattr(find_cache(read_caches(), 1), "size", None)
L2_BYTES = getattr(find_cache(read_caches(), 2), "size", None)


def registers_for(floats: int, lanes: int = LANES) -> int:
    """Vector registers that `floats` accumulators held in `lanes`-wide vectors take: a
    vector wider than a register takes several, a narrower one a whole register."""
    return -(-floats // min(lanes, REGISTER_LANES)) if lanes else floats


Config = Mapping[str, int | str]


class InvalidConfig(MinitvmError):
    """A config outside a template's constraints: pruned before it is built."""


@dataclass(frozen=True)
class Knob:
    """One tunable choice of a template and the values it may take for one compute."""

    name: str
    choices: tuple[int | str, ...]


def is_sum(compute: te.ComputeOp) -> bool:
    return compute.reduce_kind is not None and compute.reduce_kind.data == "sum"


def divisors(n: int | SymDim, candidates: Sequence[int]) -> tuple[int, ...]:
    """The candidates that split `n` evenly; all of them for a size known only at run time
    (its split is guarded, its full tiles peeled from the last one: te_to_loop)."""
    if isinstance(n, SymDim):
        return tuple(candidates)
    return tuple(c for c in candidates if c <= n and n % c == 0)


class ScheduleTemplate(ABC):
    """A kernel class's schedule as a function of its knobs (see the module docstring)."""

    name: str = ""

    @abstractmethod
    def space(self, compute: te.ComputeOp) -> list[Knob] | None:
        """The knobs for `compute`, or None if the template does not apply to it."""

    @abstractmethod
    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        """The untuned config, or None when the plain loop order is the better default."""

    @abstractmethod
    def schedule(self, compute: te.ComputeOp, config: Config) -> list[Attribute]:
        """The primitives of `config`; raises InvalidConfig if `config` breaks a constraint."""

    def check(self, compute: te.ComputeOp, config: Config) -> None:
        """Raise InvalidConfig unless every knob of the space has a value among its choices."""
        space = self.space(compute)
        if space is None:
            raise InvalidConfig(f"schedule template '{self.name}' does not apply to this compute")
        for knob in space:
            if config.get(knob.name) not in knob.choices:
                raise InvalidConfig(
                    f"schedule template '{self.name}': {knob.name} = {config.get(knob.name)!r} "
                    f"is not one of {list(knob.choices)}"
                )


def vector_block(lanes: int) -> bool:
    """A channel block the conv template vectorizes: whole 16-lane vectors, or one 8-lane
    vector (NCHW8c, for channel counts 16 does not divide)."""
    return lanes % LANES == 0 or lanes == LANES // 2


def vectors_per_pixel(lanes: int) -> int:
    """Vector registers per pixel of a channel block (an 8-lane block takes one)."""
    return registers_for(lanes, lanes)


def placed_elsewhere(compute: te.ComputeOp) -> bool:
    """Inlined into its readers or attached to another compute's nest: no loops of its own."""
    return any(isinstance(p, te.InlineAttr | te.ComputeAtAttr) for p in compute.schedule)
