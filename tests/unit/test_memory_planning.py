"""loop-plan-memory: live ranges over @main, offsets that reuse dead buffers' bytes, and models
that compute the same with a planned arena that is (much) smaller than the sum of buffers."""

from __future__ import annotations

import random

import numpy as np
import onnxruntime as ort
import pytest
from models import light_model_path, with_random_weights
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr

import minitvm
from minitvm.compiler import random_inputs
from minitvm.dialects import loop
from minitvm.ir import parse_module
from minitvm.lowering.loop_to_llvm import lower_to_llvm
from minitvm.passes.loop.plan_memory import (
    LiveRange,
    PlanMemoryPass,
    assign_offsets,
    live_ranges,
)
from minitvm.runtime.abi import ALIGNMENT

CHAIN = """
func.func @f(%a: memref<256xf32>, %b: memref<256xf32>) {
  func.return
}
func.func @g(%a: memref<256xf32>, %b: memref<256xf32>, %c: memref<512xf32>, %s: memref<8xf32>) {
  func.return
}
func.func @main(%x: memref<256xf32>, %out: memref<512xf32>) {
  %a = loop.alloc : memref<256xf32>
  func.call @f(%x, %a) : (memref<256xf32>, memref<256xf32>) -> ()
  %b = loop.alloc : memref<256xf32>
  func.call @f(%a, %b) : (memref<256xf32>, memref<256xf32>) -> ()
  %c = loop.alloc : memref<256xf32>
  func.call @f(%b, %c) : (memref<256xf32>, memref<256xf32>) -> ()
  %d = loop.alloc : memref<512xf32>
  %s = loop.alloc : memref<8xf32>
  func.call @g(%c, %a, %d, %s) : (memref<256xf32>, memref<256xf32>, memref<512xf32>, memref<8xf32>) -> ()
  loop.copy %d, %out : memref<512xf32>, memref<512xf32>
  func.return
}
"""


def main_of(module) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main")


def planned(module) -> dict[str, tuple[int, int]]:
    """alloc name -> (offset, bytes) after the pass."""
    PlanMemoryPass().apply(Context(), module)
    result = {}
    for op in main_of(module).body.block.ops:
        if isinstance(op, loop.AllocOp):
            offset = op.attributes[loop.OFFSET_ATTR]
            assert isinstance(offset, IntegerAttr)
            size = 4 * int(np.prod(op.result.type.get_shape()))
            result[op.result.name_hint] = (offset.value.data, size)
    return result


def disjoint(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] + a[1] <= b[0] or b[0] + b[1] <= a[0]


def test_live_ranges_run_from_first_to_last_use() -> None:
    ranges = {r.alloc.result.name_hint: (r.first, r.last) for r in live_ranges(main_of(parse_module(CHAIN)).body.block)}
    # positions: 0 %a, 1 call, 2 %b, 3 call, 4 %c, 5 call, 6 %d, 7 %s, 8 call @g, 9 copy
    assert ranges == {"a": (1, 8), "b": (3, 5), "c": (5, 8), "d": (8, 9), "s": (8, 8)}


def test_dead_buffers_are_reused_and_call_arguments_never_alias() -> None:
    offsets = planned(parse_module(CHAIN))
    # %b dies at the call that defines %c, so %c cannot take %b's bytes (both are arguments
    # of that call); %a lives on to @g. Nothing is free for %c but fresh memory...
    for x, y in [("a", "b"), ("b", "c"), ("a", "c"), ("c", "d"), ("a", "d"), ("d", "s"), ("a", "s"), ("c", "s")]:
        assert disjoint(offsets[x], offsets[y]), (x, y, offsets)
    # ...while %d and %s (defined by the last call) reuse %b's, which is dead by then.
    assert not disjoint(offsets["b"], offsets["d"]) or not disjoint(offsets["b"], offsets["s"])
    assert all(offset % ALIGNMENT == 0 for offset, _ in offsets.values())


def test_lowering_follows_the_planned_offsets() -> None:
    module = parse_module(CHAIN)
    offsets = planned(module)
    _, info = lower_to_llvm(module)
    assert [o for o, _ in info.allocs] == [offsets[n][0] for n in "abcds"]
    assert info.arena_size == max(o + -(-s // 64) * 64 for o, s in offsets.values())
    assert info.arena_size < sum(-(-s // 64) * 64 for _, s in offsets.values())


def test_unplanned_allocs_go_above_planned_ones() -> None:
    module = parse_module(CHAIN)
    PlanMemoryPass().apply(Context(), module)
    block = main_of(module).body.block
    allocs = [op for op in block.ops if isinstance(op, loop.AllocOp)]
    del allocs[1].attributes[loop.OFFSET_ATTR]  # %b: laid out after the planned ones
    _, info = lower_to_llvm(module)
    top = max(o + -(-s // 64) * 64 for n, (o, s) in enumerate(info.allocs) if n != 1)
    assert info.allocs[1][0] == top
    assert info.arena_size == top + 1024


@pytest.mark.parametrize("seed", range(20))
def test_random_ranges_never_share_bytes_while_both_live(seed: int) -> None:
    rng = random.Random(seed)
    block = main_of(parse_module(CHAIN)).body.block
    alloc = next(op for op in block.ops if isinstance(op, loop.AllocOp))
    ranges = []
    for _ in range(rng.randint(1, 40)):
        first = rng.randint(0, 50)
        ranges.append(LiveRange(alloc, 64 * rng.randint(1, 20), first, first + rng.randint(0, 10)))
    offsets, arena = assign_offsets(ranges)
    for n, (a, oa) in enumerate(zip(ranges, offsets)):
        assert oa % ALIGNMENT == 0 and oa + a.size <= arena
        for b, ob in zip(ranges[n + 1 :], offsets[n + 1 :]):
            if a.overlaps(b):
                assert disjoint((oa, a.size), (ob, b.size)), (a, b, oa, ob)
    # Never worse than no reuse, never better than the most bytes live at one time.
    peak = max(sum(r.size for r in ranges if r.first <= t <= r.last) for t in range(62))
    assert peak <= arena <= sum(r.size for r in ranges)


# ------------------------------------------------------------------------------ whole models


def ort_outputs(model, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


@pytest.mark.parametrize(
    "name", ["squeezenet", pytest.param("resnet50", marks=pytest.mark.slow)]
)
def test_light_models_match_ort_in_a_planned_arena(name: str) -> None:
    import onnx

    model = with_random_weights(onnx.load(light_model_path(name)))
    exe = minitvm.compile(model)
    assert exe.arena_bytes == exe.stats["arena_bytes"]
    assert exe.arena_bytes * 4 < exe.stats["arena_bytes_unplanned"]
    feeds = random_inputs(exe, seed=1)
    got = exe.run(feeds)
    for ours, theirs in zip(got, ort_outputs(model, feeds), strict=True):
        atol = 1e-4 * min(1.0, float(np.abs(theirs).max()))
        np.testing.assert_allclose(ours, theirs, rtol=1e-3, atol=atol)


_SYMBOLIC = """
func.func private @k(memref<?x8xf32, #graph.dims<"n">>, memref<?x8xf32, #graph.dims<"n">>) -> ()
func.func private @w(memref<?x8xf32, #graph.dims<"n">>, memref<?xf32, #graph.dims<"2*n">>) -> ()
func.func @main(%x: memref<?x8xf32, #graph.dims<"n">>, %y: memref<?x8xf32, #graph.dims<"n">>) attributes {loop.symbols = ["n"]} {
  %a = loop.alloc : memref<?x8xf32, #graph.dims<"n">>
  %b = loop.alloc : memref<?xf32, #graph.dims<"2*n">>
  %c = loop.alloc : memref<?x8xf32, #graph.dims<"n">>
  func.call @k(%x, %a) : (memref<?x8xf32, #graph.dims<"n">>, memref<?x8xf32, #graph.dims<"n">>) -> ()
  func.call @w(%a, %b) : (memref<?x8xf32, #graph.dims<"n">>, memref<?xf32, #graph.dims<"2*n">>) -> ()
  func.call @w(%c, %b) : (memref<?x8xf32, #graph.dims<"n">>, memref<?xf32, #graph.dims<"2*n">>) -> ()
  func.call @k(%c, %y) : (memref<?x8xf32, #graph.dims<"n">>, memref<?x8xf32, #graph.dims<"n">>) -> ()
  func.return
}
"""


def test_buffers_of_run_time_size_share_slots_sized_by_the_largest() -> None:
    """%a dies where %c is born: they share a slot; %b lives across both: its own slot, above
    it. A slot is as big as its largest buffer at run time (a `max` of their sizes)."""
    module = parse_module(_SYMBOLIC)
    PlanMemoryPass().apply(Context(), module)
    main = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main")
    offsets = [op.attributes[loop.OFFSET_ATTR] for op in main.body.block.ops if isinstance(op, loop.AllocOp)]
    assert [str(o) for o in offsets] == ["0 : i64", '"64*floordiv(32*n + 63, 64)"', "0 : i64"]
    _, info = lower_to_llvm(module)
    assert info.symbols == ["n"]
    assert info.arena_size_expr == "64*floordiv(32*n + 63, 64) + 64*floordiv(8*n + 63, 64)"
