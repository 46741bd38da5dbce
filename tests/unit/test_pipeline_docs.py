"""README.md's and docs/architecture.md's pipeline lists are the declared pipeline: the pass
names they show, in order, are the passes a compile runs (pipeline.py), and every other pass
name they show is a registered pass a user may run by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from minitvm.passes.registry import all_passes
from minitvm.pipeline import compile_stages

ROOT = Path(__file__).resolve().parents[2]


def _declared() -> list[str]:
    stages = compile_stages(3, records="sqlite:///r.db", num_threads=1)
    return [p.name for stage in stages for p in stage.passes]


def _diagram_pass_names(text: str) -> list[str]:
    """The registered pass names in the first code block that shows the pipeline, in order."""
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```$", text, re.S | re.M)
    block = next(b for b in blocks if "convert-graph-to-te" in b)
    names = set(all_passes())
    return [w for w in re.findall(r"[a-z][a-z0-9-]+", block) if w in names]


@pytest.mark.parametrize("doc", ["README.md", "docs/architecture.md"])
def test_the_documented_pipeline_is_the_declared_one(doc: str) -> None:
    shown = _diagram_pass_names((ROOT / doc).read_text())
    declared = _declared()
    assert [name for name in shown if name in declared] == declared
    by_hand = [name for name in shown if name not in declared]
    assert all(name.startswith("te-") for name in by_hand), by_hand
