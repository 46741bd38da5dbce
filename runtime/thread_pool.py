"""The thread pool parallel loops run on when libgomp is not there (no xDSL in here).

Generated code hands a parallel loop to `__minitvm_parallel_for(body, ctx, trip)`; in the
`threads` backend that calls the function pointer the runtime stored in the module, i.e.
`PARALLEL_FOR` below, with the thread count and a chunk size (`grain`). `threads - 1` pool
threads and the calling thread then take chunks [lo, lo + grain) of [0, trip) in turn until
none is left, each one a ctypes call of `body(ctx, lo, hi)`; ctypes releases the GIL for the
call, so the chunks run at once. The callback returns when every chunk is done (not waiting
for pool threads that have not started yet: on a busy machine they may get a core only
milliseconds later, and then find nothing left to do). Python only
hands out chunks (microseconds each); DESIGN.md measured such Python threads at 1.5-1.6x on
two cores against libgomp's 1.8x.

The same pool stands in for libgomp in a process forked after it ran libgomp's threads
(`libgomp_usable`); the pool itself starts afresh in a forked child.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor

#: `void body(void *ctx, int64_t lo, int64_t hi)`: the chunk ABI of an outlined loop.
CHUNK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
#: `void parallel_for(void *body, void *ctx, int64_t trip, int32_t threads, int64_t grain)`.
PARALLEL_FOR_TYPE = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32, ctypes.c_int64
)

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_chunks: dict[int, ctypes._CFuncPtr] = {}  # body address -> ctypes callable
_libgomp_pid: int | None = None  # the process that started libgomp's threads


def _after_fork_in_child() -> None:
    # The parent's pool threads do not exist here: start a new pool when one is needed.
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def note_libgomp_use() -> None:
    """Record that this process runs libgomp teams (an Executable is about to)."""
    global _libgomp_pid
    if _libgomp_pid is None:
        _libgomp_pid = os.getpid()


def libgomp_usable() -> bool:
    """False in a process forked from one that ran libgomp teams: GNU libgomp's threads do
    not survive a fork, and its next parallel region would wait for them forever."""
    return _libgomp_pid is None or _libgomp_pid == os.getpid()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            # Several Executables may run at once, each waiting on its own chunks: the pool
            # must not be what limits them (idle threads cost nothing).
            _pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="minitvm")
        return _pool


def _chunk(address: int) -> ctypes._CFuncPtr:
    fn = _chunks.get(address)
    if fn is None:
        fn = _chunks[address] = CHUNK(address)
    return fn


def parallel_for(body: int, ctx: int, trip: int, threads: int, grain: int) -> None:
    """Run `body(ctx, lo, hi)` over [0, trip) in chunks of `grain`, on `threads` threads."""
    fn = _chunk(body)
    starts = itertools.count(0, max(1, grain))  # next() is atomic: it holds the GIL

    def work() -> None:
        for lo in starts:
            if lo >= trip:
                return
            fn(ctx, lo, min(lo + grain, trip))

    futures: list[Future[None]] = []
    for _ in range(threads - 1):
        try:
            futures.append(_executor().submit(work))
        except RuntimeError:  # the pool is shut down (interpreter exit): fewer threads
            break
    work()
    for future in futures:
        if not future.cancel():  # a thread that never got a core has nothing to wait for
            future.result()


#: The C function pointer the runtime stores in `__minitvm_parallel_fallback`.
PARALLEL_FOR = PARALLEL_FOR_TYPE(parallel_for)
