"""Ops whose output sizes depend on values, and sizes fed at run time: minitvm (one compile
for every value) against ONNX Runtime, on the shapes models meet them at.

    TopK              k of a GPT-2 vocabulary row (1x50257), k fixed and k fed at run time
    Unique            100 000 int64, 10 000 distinct
    NonMaxSuppression a YOLO head's 8400 boxes: 4 classes above 0.99, 80 classes above 0.25
                      (scores^4: a detector's few confident boxes), and 1000 boxes, no threshold
    NonZero           a 1x1024x1024 activation, a tenth of it non-zero
    Range, Reshape    a padding mask to the longest of 8 lengths; a Reshape to a fed shape

Every case is checked first (minitvm's outputs equal ONNX Runtime's: shapes, types,
values), then each round runs both once in turn (interleaved), `--rounds` rounds after
`--warmup` untimed ones; the table gives the median (and best) milliseconds and the ratio of
the medians. It is a measurement, not a test:

    python bench/data_dependent.py [--rounds 20] [--warmup 3] [--threads 1] [case ...]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import minitvm
from minitvm.runtime.ort import ort_session
from minitvm.runtime.timing import timed_runs

F, I64 = TensorProto.FLOAT, TensorProto.INT64
#: name -> (model, feeds)
Case = tuple[onnx.ModelProto, dict[str, np.ndarray]]


def _model(nodes: Sequence[onnx.NodeProto], inputs: dict[str, tuple[int, list]], outputs: Sequence[str],
           consts: dict[str, np.ndarray] | None = None) -> onnx.ModelProto:  # fmt: skip
    graph = helper.make_graph(
        list(nodes), "case",
        [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(v, k) for k, v in (consts or {}).items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _top_k(rng: np.random.Generator) -> dict[str, Case]:
    logits = rng.standard_normal((1, 50257)).astype(np.float32)
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"])
    cases = {
        f"TopK k={k} of 1x50257": (_model([node], {"x": (F, [1, 50257])}, ["v", "i"], {"k": np.array([k])}), {"x": logits})
        for k in (1, 50, 256)
    }  # fmt: skip
    fed = _model([node], {"x": (F, [1, 50257]), "k": (I64, [1])}, ["v", "i"])
    for k in (50, 50257):
        cases[f"TopK k={k} fed at run time"] = (fed, {"x": logits, "k": np.array([k])})
    return cases


def _nms(rng: np.random.Generator, classes: int, boxes: int, most: int, threshold: float | None) -> Case:
    names = ["b", "s", "max", "iou", *(["th"] if threshold is not None else [])]
    consts = {"max": np.array([most]), "iou": np.float32([0.45])}
    if threshold is not None:
        consts["th"] = np.float32([threshold])
    model = _model([helper.make_node("NonMaxSuppression", names, ["selected"])],
                   {"b": (F, [1, boxes, 4]), "s": (F, [1, classes, boxes])}, ["selected"], consts)  # fmt: skip
    corner = rng.random((1, boxes, 2)) * 600
    corners = np.concatenate([corner, corner + 20 + rng.random((1, boxes, 2)) * 80], -1).astype(np.float32)
    return model, {"b": corners, "s": (rng.random((1, classes, boxes)) ** 4).astype(np.float32)}


def cases() -> dict[str, Case]:
    rng = np.random.default_rng(0)
    mask_nodes = [
        helper.make_node("ReduceMax", ["lengths"], ["longest"], keepdims=0),
        helper.make_node("Range", ["zero", "longest", "one"], ["positions"]),
        helper.make_node("Unsqueeze", ["lengths", "axis1"], ["column"]),
        helper.make_node("Less", ["positions", "column"], ["mask"]),
    ]
    mask_consts = {"zero": np.array(0), "one": np.array(1), "axis1": np.array([1])}
    activation = rng.standard_normal((1, 1024, 1024)).astype(np.float32)
    activation[rng.random(activation.shape) < 0.9] = 0
    return {
        **_top_k(rng),
        "Unique of 100000 int64": (
            _model([helper.make_node("Unique", ["x"], ["y", "i", "inv", "c"])], {"x": (I64, ["n"])},
                   ["y", "i", "inv", "c"]),
            {"x": rng.integers(0, 10000, 100_000)},
        ),
        "NMS 4 classes x 8400, score > 0.99": _nms(rng, 4, 8400, 100, 0.99),
        "NMS 80 classes x 8400, score > 0.25": _nms(rng, 80, 8400, 100, 0.25),
        "NMS 1 class x 1000, no threshold": _nms(rng, 1, 1000, 1000, None),
        "NonZero of 1x1024x1024, 10% set": (
            _model([helper.make_node("NonZero", ["x"], ["y"])], {"x": (F, [1, 1024, 1024])}, ["y"]),
            {"x": activation},
        ),
        "padding mask to max(8 lengths)": (
            _model(mask_nodes, {"lengths": (I64, ["batch"])}, ["mask"], mask_consts),
            {"lengths": rng.integers(1, 513, 8)},
        ),
        "Reshape 64x768 to a fed shape": (
            _model([helper.make_node("Reshape", ["x", "s"], ["y"])], {"x": (F, [64, 768]), "s": (I64, [3])}, ["y"]),
            {"x": rng.standard_normal((64, 768)).astype(np.float32), "s": np.array([1, 64, 768])},
        ),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="substrings of the case names to run (default: all)")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    chosen = {n: c for n, c in cases().items() if not args.cases or any(s in n for s in args.cases)}
    print(f"{'case':38} {'minitvm ms':>18} {'ORT ms':>18} {'minitvm / ORT':>14}")
    for name, (model, feeds) in chosen.items():
        exe = minitvm.compile(model, num_threads=args.threads)
        ort = ort_session(model, args.threads)
        runners: dict[str, Callable[[], list[np.ndarray]]] = {
            "minitvm": lambda exe=exe, feeds=feeds: exe.run(feeds),
            "ort": lambda ort=ort, feeds=feeds: ort(feeds),
        }
        outputs, seconds = timed_runs(runners, args.warmup, args.rounds)
        for got, want in zip(outputs["minitvm"], outputs["ort"], strict=True):
            if got.shape != want.shape or got.dtype != want.dtype or not np.array_equal(got, want):
                raise SystemExit(f"{name}: minitvm's {got.dtype}{list(got.shape)} differs from ONNX Runtime's "
                                 f"{want.dtype}{list(want.shape)}")  # fmt: skip
        med = {k: statistics.median(v) * 1e3 for k, v in seconds.items()}
        best = {k: min(v) * 1e3 for k, v in seconds.items()}
        print(f"{name:38} {med['minitvm']:8.3f} ({best['minitvm']:7.3f}) "
              f"{med['ort']:8.3f} ({best['ort']:7.3f}) {med['minitvm'] / med['ort']:13.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
