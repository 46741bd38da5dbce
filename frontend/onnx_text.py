"""ONNX TfIdfVectorizer (opset 9) over integer tokens, as comparisons with its n-gram pool (a
constant known at import time); no graph op of its own.

The pool of n-grams becomes a table per n-gram length n, [P_n, n]. For each length and skip
distance d (d = 1 only for unigrams, 1..max_skip_count + 1 otherwise, as the reference scans)
the windows X[s], X[s + d], ..., X[s + (n-1)d] of every start s are compared with every pool
n-gram at once:

    hit[r, s, p] = and over j of graph.equal(X[r, s + j·d], pool[p, j])     [N, W, P_n]
    count[r, p] += graph.reduce_sum over s of hit

and one graph.matmul with a constant 0/1 matrix [P, output size] adds each pool n-gram's
count into its output coordinate (ngram_indexes), TFIDF's scaled by its weight; IDF selects
the weight of each coordinate found. Weights belong to pool n-grams, as the spec and ONNX
Runtime have it (ONNX's reference indexes them by output coordinate, which differs when
ngram_indexes is not the identity; no node test has weights). Work is O(N · C · P · n)
per skip distance, without the reference's trie: fine for the pools and sequence lengths of
the models that use it (sklearn text pipelines). String pools need string tensors, which
minitvm does not have.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.dialects.graph.constant import element_type_of
from minitvm.frontend.onnx_node import NodeContext, Value, converter


def pool_ngrams(ctx: NodeContext, lo: int, hi: int) -> dict[tuple[int, ...], int]:
    """Each pool n-gram of length lo..hi and its position in the pool (which indexes
    ngram_indexes and weights), counted over the whole pool, the lengths outside lo..hi
    too, as the reference numbers them; an n-gram listed twice keeps its last position."""
    pool = ctx.attr_ints("pool_int64s") or []
    starts = ctx.attr_ints("ngram_counts") or []
    indexes = ctx.attr_ints("ngram_indexes") or []
    ids: dict[tuple[int, ...], int] = {}
    next_id = 0
    for size, start in enumerate(starts, 1):
        end = starts[size] if size < len(starts) else len(pool)
        if start > end or end > len(pool):
            raise ctx.error(f"ngram_counts {starts} are not ascending offsets into the pool of "
                            f"{len(pool)}")  # fmt: skip
        count = (end - start) // size
        if lo <= size <= hi:
            for i in range(count):
                ids[tuple(pool[start + i * size : start + (i + 1) * size])] = next_id + i
        next_id += count
    if next_id > len(indexes):
        raise ctx.error(f"the pool has {next_id} n-grams but ngram_indexes {len(indexes)} entries")
    return ids


@converter("TfIdfVectorizer")
def convert_tfidf_vectorizer(ctx: NodeContext) -> list[Value]:
    if ctx.has_attr("pool_strings"):
        raise ctx.error("pool_strings needs string tensors, which are not supported; only "
                        "pool_int64s")  # fmt: skip
    if not ctx.has_attr("pool_int64s"):
        raise ctx.error("one of pool_int64s and pool_strings must be given")
    dtype = ctx.dtype(0)
    if dtype not in (np.int32, np.int64):
        raise ctx.error(f"X must be int32 or int64 (an integer pool), got {dtype}")
    shape = ctx.shape(0)
    if len(shape) not in (1, 2):
        raise ctx.error(f"X must be [C] or [N, C], got {list(shape)}")
    rows, length = (1, shape[0]) if len(shape) == 1 else shape
    mode = ctx.attr_choice("mode", "TF", ("TF", "IDF", "TFIDF"))
    lo, hi = ctx.attr_int("min_gram_length", 1), ctx.attr_int("max_gram_length", 1)
    skips = ctx.attr_int("max_skip_count", 0)
    if not 1 <= lo <= hi or skips < 0:
        raise ctx.error(f"min_gram_length {lo}, max_gram_length {hi} and max_skip_count {skips} "
                        "must satisfy 1 <= min <= max and skips >= 0")  # fmt: skip
    indexes = ctx.attr_ints("ngram_indexes") or []
    if not indexes or min(indexes) < 0:
        raise ctx.error(f"ngram_indexes {indexes} must be non-empty and non-negative")
    size = max(indexes) + 1
    out_shape = [size] if len(shape) == 1 else [rows, size]
    ngrams = pool_ngrams(ctx, lo, hi)
    x = ctx.tensor(0)
    if dtype != np.int64:
        x = ctx.make1(g.CastOp, x, to=element_type_of(np.dtype(np.int64)))
    x = ctx.make1(g.ReshapeOp, x, shape=[rows, length, 1])
    counts: list[SSAValue] = []  # [N, P_n] per n-gram length, in the order of `found_ids`
    found_ids: list[int] = []
    for n in sorted({len(t) for t in ngrams}):
        table = [t for t in ngrams if len(t) == n]
        pool = np.array(table, np.int64)  # [P_n, n]
        total: SSAValue | None = None
        for d in range(1, 2 if n == 1 else skips + 2):
            windows = length - (n - 1) * d
            if windows <= 0:
                continue
            hit: SSAValue | None = None
            for j in range(n):
                token = ctx.make1(g.SliceOp, x, starts=[0, j * d, 0],
                                  ends=[rows, j * d + windows, 1], steps=[1, 1, 1])  # fmt: skip
                same = ctx.make1(
                    g.EqualOp, token, _const(ctx, pool[None, None, :, j], f"pool{n}_{j}")
                )
                hit = same if hit is None else ctx.make1(g.AndOp, hit, same)
            assert hit is not None
            found = ctx.make1(g.CastOp, hit, to=element_type_of(np.dtype(np.float32)))
            found = ctx.make1(g.ReduceSumOp, found, axes=[1], keepdims=0)
            total = found if total is None else ctx.make1(g.AddOp, total, found)
        if total is not None:
            counts.append(total)
            found_ids += [ngrams[t] for t in table]
    if not counts:
        return [np.zeros(out_shape, np.float32)]
    found = counts[0] if len(counts) == 1 else ctx.make1(g.ConcatOp, counts, axis=1)
    y = _weigh(ctx, found, found_ids, mode, size)
    return [ctx.make1(g.ReshapeOp, y, shape=out_shape)]


def _const(ctx: NodeContext, array: np.ndarray, tag: str) -> SSAValue:
    return ctx.materialize(array, f"{ctx.node.output[0]}_{tag}")


def _weigh(ctx: NodeContext, counts: SSAValue, ids: list[int], mode: str, size: int) -> SSAValue:
    """The output [N, size] of the counts [N, P] of the pool n-grams `ids`: TF adds each
    count into its coordinate; TFIDF adds weight · count; IDF gives a coordinate its n-gram's
    weight (1 without weights; the last n-gram's where several share it) if it was found."""
    indexes = ctx.attr_ints("ngram_indexes") or []
    weights = ctx.attr("weights")
    w = np.ones(len(indexes), np.float32) if weights is None else np.array(weights, np.float32)
    if w.shape != (len(indexes),):
        raise ctx.error(f"weights has {w.size} entries for {len(indexes)} pool n-grams")
    columns = [indexes[i] for i in ids]
    scatter = np.zeros((len(ids), size), np.float32)
    scatter[np.arange(len(ids)), columns] = w[ids] if mode == "TFIDF" else 1
    y = ctx.make1(g.MatMulOp, counts, _const(ctx, scatter, "coordinates"))
    if mode != "IDF":
        return y
    column_weights = np.zeros(size, np.float32)
    for i in sorted(ids):
        column_weights[indexes[i]] = w[i]
    zero = _const(ctx, np.array(0, np.float32), "zero")
    found = ctx.make1(g.GreaterOp, y, zero)
    return ctx.make1(g.WhereOp, found, _const(ctx, column_weights, "weights"), zero)
