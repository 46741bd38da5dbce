"""`fork_map(fn, items, jobs)`: `[fn(x) for x in items]` on `jobs` cores, by forking.

Kernels are compiled in xDSL (Python, one core per process) and LLVM; a model's kernels are
independent, so they can be compiled on every core. Forked children start in milliseconds
with the parent's memory (its IR included: nothing is parsed or sent to them but the
results coming back), where spawned workers take 0.6-1.5 s to import xDSL and the compiler
(tuner/measure.py measured it) and would need every kernel printed and parsed again.

    parent ── fork ──▶ child 1 ... child jobs-1      each, and the parent too, takes the
      │                                              next item from a shared counter (the
      └── one reader thread per child ◀── pipe ──    dearest first, if `items` is sorted so),
                                                     runs fn on it and sends the result back

A child that fails on an item (an exception) or dies (a crash, a kill) sends nothing for it;
the parent runs fn on every item without a result itself, after the others, so an error is
raised in the parent, with its own traceback, exactly as a serial run raises it. Results
must pickle.

Forking is safe here because the children only run fn and exit (`os._exit`): they take no
lock that another of the parent's threads (the runtime's pool, OpenBLAS, ONNX Runtime) may
hold, and Python's and glibc's own are reset across fork. Where fork is unavailable, in a
daemon process (multiprocessing forbids it children: the tuner's measuring workers, which
must not compete with their own timing anyway), with one job or one item, the map runs
serially.
"""

from __future__ import annotations

import multiprocessing
import threading
import warnings
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def can_fork() -> bool:
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
    )


def fork_map(fn: Callable[[T], R], items: Sequence[T], jobs: int) -> list[R]:
    """`[fn(x) for x in items]`, the items shared out among this process and `jobs - 1`
    forked children as each becomes free."""
    count = len(items)
    if jobs <= 1 or count < 2 or not can_fork():
        return [fn(item) for item in items]
    context = multiprocessing.get_context("fork")
    lock = context.Lock()
    taken = context.RawValue("q", 0)

    def take() -> int | None:
        with lock:
            index = int(taken.value)
            if index >= count:
                return None
            taken.value = index + 1
            return index

    results: dict[int, R] = {}
    children, readers = [], []
    for _ in range(min(jobs, count) - 1):
        receive, send = context.Pipe(duplex=False)
        child = context.Process(target=_child, args=(send, take, fn, items), daemon=True)
        with warnings.catch_warnings():  # Python 3.12+ frowns on forking with threads
            warnings.simplefilter("ignore", DeprecationWarning)
            child.start()
        send.close()
        reader = threading.Thread(target=_read, args=(receive, results), daemon=True)
        reader.start()
        children.append(child)
        readers.append(reader)
    try:
        while (index := take()) is not None:
            results[index] = fn(items[index])
    except BaseException:  # an error or Ctrl-C here: the children's work is moot
        for child in children:
            child.terminate()
        raise
    finally:
        for reader in readers:
            reader.join()
        for child in children:
            child.join()
    return [results[i] if i in results else fn(items[i]) for i in range(count)]


def _child(
    send: Connection, take: Callable[[], int | None], fn: Callable[[Any], Any], items: Sequence[Any]
) -> None:
    while (index := take()) is not None:
        try:
            result = fn(items[index])
        except BaseException:  # noqa: BLE001, S112  (the parent runs it again, and raises there)
            continue
        send.send((index, result))
    send.close()


def _read(receive: Connection, results: dict[int, Any]) -> None:
    while True:
        try:
            index, result = receive.recv()
        except (EOFError, OSError):
            break
        results[index] = result
    receive.close()
