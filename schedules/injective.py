"""Elementwise and data-movement computes: LLVM's auto-vectorizer on the plain loop order by
default, explicit vectors where a period split makes whole vectors (see `innermost.py`).
"""

from __future__ import annotations

from minitvm.dialects import te
from minitvm.schedules.base import LANES
from minitvm.schedules.innermost import InnermostVectorTemplate


class InjectiveTemplate(InnermostVectorTemplate):
    """Elementwise and data-movement computes (a fused kernel's last compute once the rest
    is inlined, layout transforms)."""

    name = "injective"

    def applies(self, compute: te.ComputeOp) -> bool:
        return compute.reduce_kind is None

    def default_config(self, compute: te.ComputeOp) -> dict[str, int | str] | None:
        """Explicit vectors on a period split into whole vectors (see `period`), else LLVM's
        auto-vectorizer on the plain loop."""
        head, _, extent = self._innermost(compute)
        return {"lanes": LANES if head and extent % LANES == 0 else 0, "unroll": 1}
