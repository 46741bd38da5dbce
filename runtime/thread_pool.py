"""The thread pool parallel loops run on: native code, built once per process with llvmlite
(no xDSL in here).

Generated code hands a parallel loop to the runtime as `parallel_for(body, ctx, trip,
threads, grain)` (see lowering/loop_to_llvm/parallel.py): run `body(ctx, lo, hi)` over
[0, trip) in chunks of `grain` iterations on `threads` threads. This pool does it the way
ONNX Runtime's does, and unlike libgomp's `GOMP_parallel`:

- the calling thread takes chunks too, from the same atomic counter as the pool threads;
- it returns as soon as every chunk is *done*, without waiting for pool threads that have
  not woken up yet: they find no chunk left and wait again.

The second point is why the pool exists. A parallel region of libgomp, which ran our loops
before, ends in a barrier that every thread of the team has to reach. When another process
holds one of two cores, a team thread that has no core reaches it a scheduler time slice
(milliseconds) late, at every region. `python bench/busy_core.py`, 2 threads, tuned: the MLP
took 23.7 ms instead of 1.8 and the ResNet block 31.2 ms instead of 2.2 (ORT: 4.3 and 8.0 ms);
on this pool, 2.2 and 4.4 ms, and the same as libgomp on an idle machine. The runtime's
earlier fallback, Python threads handing out chunks, had the right semantics but paid for
the interpreter on every chunk when the machine was idle (MLP 1.7 ms, ResNet block 2.6).

After its last chunk a pool thread spins for `spin_ns` (waking a sleeping thread on a
virtual machine costs tens of microseconds, and a model's parallel loops follow each other
closely), yielding its core now and then to any other thread that wants it, then sleeps on a
condition variable until the next region. Pool threads a region
does not need (a run on fewer threads than an earlier one) go back to sleep at once.

Regions are numbered. A 64-bit word holds the region number (high half) and the next chunk
(low half); a thread claims a chunk with a compare-and-swap on the whole word, so a thread
that read an old region's fields can never run one of its chunks in a newer region: the
caller first bumps the number with no chunk left (`0xffffffff`), then writes the region's
fields, then opens it with chunk 0. A region is done when its `done` counter reaches the
chunk count; only chunks claimed in that region count, and the caller waits for them before
it reuses the fields. One caller at a time uses the pool (a second one, e.g. another
Executable run from another Python thread, runs its loop alone on its own thread).

Pool threads do not survive a fork: `after_fork` (registered with os.register_at_fork)
forgets them in the child, which starts new ones on its first parallel loop. The code is
never freed (its threads run it until the process exits).
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
from typing import TYPE_CHECKING

from minitvm.errors import MinitvmError
from minitvm.runtime.abi import THREAD_POOL

if TYPE_CHECKING:
    import llvmlite.binding as llvm

#: How long a pool thread spins after its last chunk before it sleeps, unless
#: MINITVM_POOL_SPIN_US says: ~5 ms, as long as libgomp's spin count we used to set. It spans
#: the gaps between one run's parallel loops and between back-to-back runs (a thread woken
#: from sleep on a virtual machine arrives tens of microseconds late or worse). With 200 us,
#: MobileNetV2 at 2 threads in `minitvm bench` took 4.4-8.2 ms against ORT's 4.2-5.1 (libgomp:
#: 4.4-5.0 against 4.4-5.0). The spinning thread calls sched_yield every 256 polls, so on a
#: core shared with another busy process it hands the core over instead of holding it: with
#: that process spinning on one of two cores, the ResNet block took 4.3 ms (bench/busy_core.py)
#: with a 5 ms spin; without yielding, 4.8 with a 200 us spin and 7.3 with 2 ms (ORT: 8.0).
DEFAULT_SPIN_NS = 5_000_000
SPIN_ENV = "MINITVM_POOL_SPIN_US"

_PAUSE = {"x86_64": "call void @llvm.x86.sse2.pause()", "AMD64": "call void @llvm.x86.sse2.pause()"}

_IR = """
%timespec = type {{ i64, i64 }}

@word = internal global i64 0, align 64
@done = internal global i64 0, align 64
@gen = internal global i32 0, align 64
@body = internal global ptr null, align 64
@ctx = internal global ptr null
@trip = internal global i64 0
@grain = internal global i64 0
@nchunks = internal global i64 0
@wanted = internal global i32 0
@busy = internal global i32 0, align 64
@spawned = internal global i32 0
@sleepers = internal global i32 0, align 64
@mutex = internal global [128 x i8] zeroinitializer, align 64
@cond = internal global [128 x i8] zeroinitializer, align 64
@minitvm_pool_spin_ns = global i64 {spin_ns}

declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_detach(i64)
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare i32 @clock_gettime(i32, ptr)
declare i32 @sched_yield()
declare void @llvm.x86.sse2.pause()
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define internal void @relax() {{
  {pause}
  ret void
}}

define internal i64 @now_ns() {{
  %ts = alloca %timespec, align 8
  %rc = call i32 @clock_gettime(i32 1, ptr %ts)
  %s = load i64, ptr %ts, align 8
  %ns.slot = getelementptr inbounds %timespec, ptr %ts, i32 0, i32 1
  %ns = load i64, ptr %ns.slot, align 8
  %s.ns = mul i64 %s, 1000000000
  %t = add i64 %s.ns, %ns
  ret i64 %t
}}

; claim and run chunks of region %g until none is left (or a newer region started)
define internal void @work(i32 %g) {{
entry:
  %g64 = zext i32 %g to i64
  %tag = shl i64 %g64, 32
  br label %grab
grab:
  %w = load atomic i64, ptr @word seq_cst, align 8
  %wtag = and i64 %w, -4294967296
  %same = icmp eq i64 %wtag, %tag
  br i1 %same, label %check, label %out
check:
  %c = and i64 %w, 4294967295
  %n = load atomic i64, ptr @nchunks monotonic, align 8
  %left = icmp ult i64 %c, %n
  br i1 %left, label %claim, label %out
claim:
  %w1 = add i64 %w, 1
  %pair = cmpxchg ptr @word, i64 %w, i64 %w1 seq_cst seq_cst
  %ok = extractvalue {{ i64, i1 }} %pair, 1
  br i1 %ok, label %run, label %grab
run:
  %body = load atomic ptr, ptr @body monotonic, align 8
  %ctx = load atomic ptr, ptr @ctx monotonic, align 8
  %grain = load atomic i64, ptr @grain monotonic, align 8
  %trip = load atomic i64, ptr @trip monotonic, align 8
  %lo = mul i64 %c, %grain
  %end = add i64 %lo, %grain
  %last = icmp slt i64 %trip, %end
  %hi = select i1 %last, i64 %trip, i64 %end
  call void %body(ptr %ctx, i64 %lo, i64 %hi)
  %before = atomicrmw add ptr @done, i64 1 seq_cst
  br label %grab
out:
  ret void
}}

; a pool thread: wait for a new region (spin, then sleep), take chunks if it is one of the
; region's `wanted` helpers and spin again after, else sleep until the next region
define internal ptr @worker(ptr %arg) {{
entry:
  %idx = ptrtoint ptr %arg to i32
  %g0 = load atomic i32, ptr @gen seq_cst, align 4
  br label %wait
wait:
  %seen = phi i32 [ %g0, %entry ], [ %g, %help ]
  %t0 = call i64 @now_ns()
  %spin = load atomic i64, ptr @minitvm_pool_spin_ns monotonic, align 8
  %deadline = add i64 %t0, %spin
  br label %poll
poll:
  %k = phi i32 [ 0, %wait ], [ %k1, %relaxed ], [ %k1, %clock ]
  %gs = load atomic i32, ptr @gen seq_cst, align 4
  %news = icmp ne i32 %gs, %seen
  br i1 %news, label %job, label %relaxed
relaxed:
  call void @relax()
  %k1 = add i32 %k, 1
  %k.low = and i32 %k1, 255
  %tick = icmp eq i32 %k.low, 0
  br i1 %tick, label %clock, label %poll
clock:
  %yielded = call i32 @sched_yield()
  %now = call i64 @now_ns()
  %late = icmp sgt i64 %now, %deadline
  br i1 %late, label %sleep, label %poll
sleep:
  %asleep = phi i32 [ %seen, %clock ], [ %g, %job ]
  %l = call i32 @pthread_mutex_lock(ptr @mutex)
  %s0 = atomicrmw add ptr @sleepers, i32 1 seq_cst
  br label %sleep.check
sleep.check:
  %gw = load atomic i32, ptr @gen seq_cst, align 4
  %still = icmp eq i32 %gw, %asleep
  br i1 %still, label %sleep.wait, label %sleep.done
sleep.wait:
  %cw = call i32 @pthread_cond_wait(ptr @cond, ptr @mutex)
  br label %sleep.check
sleep.done:
  %s1 = atomicrmw sub ptr @sleepers, i32 1 seq_cst
  %u = call i32 @pthread_mutex_unlock(ptr @mutex)
  br label %job
job:
  %g = phi i32 [ %gs, %poll ], [ %gw, %sleep.done ]
  %want = load atomic i32, ptr @wanted monotonic, align 4
  %in = icmp ult i32 %idx, %want
  br i1 %in, label %help, label %sleep
help:
  call void @work(i32 %g)
  br label %wait
}}

define void @minitvm_pool_parallel_for(ptr %body, ptr %ctx, i64 %trip, i32 %threads, i64 %grain) {{
entry:
  %tid = alloca i64, align 8
  ; chunks of at least one iteration, fewer than 0xffffffff of them (else: serially)
  %tiny = icmp slt i64 %grain, 1
  %step = select i1 %tiny, i64 1, i64 %grain
  %up = add i64 %trip, %step
  %up1 = sub i64 %up, 1
  %chunks = udiv i64 %up1, %step
  %fits = icmp ult i64 %chunks, 4294967295
  %several = icmp sgt i32 %threads, 1
  %many = and i1 %several, %fits
  br i1 %many, label %try, label %serial
try:
  %pair = cmpxchg ptr @busy, i32 0, i32 1 seq_cst seq_cst
  %got = extractvalue {{ i32, i1 }} %pair, 1
  br i1 %got, label %spawn, label %serial
serial:
  call void %body(ptr %ctx, i64 0, i64 %trip)
  ret void
spawn:
  %want = sub i32 %threads, 1
  %have = load i32, ptr @spawned, align 4
  %short = icmp slt i32 %have, %want
  br i1 %short, label %create, label %publish
create:
  %i = phi i32 [ %have, %spawn ], [ %i1, %created ]
  %i64 = zext i32 %i to i64
  %argp = inttoptr i64 %i64 to ptr
  %rc = call i32 @pthread_create(ptr %tid, ptr null, ptr @worker, ptr %argp)
  %failed = icmp ne i32 %rc, 0
  br i1 %failed, label %publish, label %created
created:
  %t = load i64, ptr %tid, align 8
  %d = call i32 @pthread_detach(i64 %t)
  %i1 = add i32 %i, 1
  store i32 %i1, ptr @spawned, align 4
  %more = icmp slt i32 %i1, %want
  br i1 %more, label %create, label %publish
publish:
  %g.old = load atomic i32, ptr @gen seq_cst, align 4
  %g = add i32 %g.old, 1
  %g64 = zext i32 %g to i64
  %tag = shl i64 %g64, 32
  %closed = or i64 %tag, 4294967295
  store atomic i64 %closed, ptr @word seq_cst, align 8
  store atomic ptr %body, ptr @body monotonic, align 8
  store atomic ptr %ctx, ptr @ctx monotonic, align 8
  store atomic i64 %trip, ptr @trip monotonic, align 8
  store atomic i64 %step, ptr @grain monotonic, align 8
  store atomic i64 %chunks, ptr @nchunks monotonic, align 8
  store atomic i32 %want, ptr @wanted monotonic, align 4
  store atomic i64 0, ptr @done seq_cst, align 8
  store atomic i64 %tag, ptr @word seq_cst, align 8
  store atomic i32 %g, ptr @gen seq_cst, align 4
  %sl = load atomic i32, ptr @sleepers seq_cst, align 4
  %asleep = icmp sgt i32 %sl, 0
  br i1 %asleep, label %wake, label %share
wake:
  %l = call i32 @pthread_mutex_lock(ptr @mutex)
  %b = call i32 @pthread_cond_broadcast(ptr @cond)
  %u = call i32 @pthread_mutex_unlock(ptr @mutex)
  br label %share
share:
  call void @work(i32 %g)
  br label %join
join:
  %k = phi i32 [ 0, %share ], [ %k1, %join.relax ], [ %k1, %join.yield ]
  %n.done = load atomic i64, ptr @done seq_cst, align 8
  %finished = icmp eq i64 %n.done, %chunks
  br i1 %finished, label %finish, label %join.relax
join.relax:
  call void @relax()
  %k1 = add i32 %k, 1
  %k.low = and i32 %k1, 63
  %tick = icmp eq i32 %k.low, 0
  br i1 %tick, label %join.yield, label %join
join.yield:
  %y = call i32 @sched_yield()
  br label %join
finish:
  store atomic i32 0, ptr @busy seq_cst, align 4
  ret void
}}

; in a forked child: the parent's pool threads are gone
define void @minitvm_pool_after_fork() {{
  store i32 0, ptr @spawned, align 4
  store i32 0, ptr @sleepers, align 4
  store i32 0, ptr @busy, align 4
  call void @llvm.memset.p0.i64(ptr @mutex, i8 0, i64 128, i1 false)
  call void @llvm.memset.p0.i64(ptr @cond, i8 0, i64 128, i1 false)
  ret void
}}
"""


def _spin_ns() -> int:
    value = os.environ.get(SPIN_ENV)
    if value is None:
        return DEFAULT_SPIN_NS
    try:
        microseconds = float(value)
    except ValueError:
        microseconds = -1.0
    if not 0 <= microseconds < 1e9:
        raise MinitvmError(f"{SPIN_ENV} must be a number of microseconds >= 0, got '{value}'")
    return int(microseconds * 1000)


@functools.cache
def _pool() -> llvm.ExecutionEngine:
    import llvmlite.binding as llvm  # here: loading an exported library needs no LLVM

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    pause = _PAUSE.get(platform.machine(), "")
    module = llvm.parse_assembly(_IR.format(spin_ns=_spin_ns(), pause=pause))
    module.verify()
    target = llvm.Target.from_default_triple().create_target_machine(opt=2)
    engine = llvm.create_mcjit_compiler(module, target)
    engine.finalize_object()
    # Pool threads run this code until the process exits: never free it, not even while
    # the interpreter shuts down (which would otherwise dispose of the engine under them).
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(engine))
    after_fork = ctypes.CFUNCTYPE(None)(engine.get_function_address("minitvm_pool_after_fork"))
    os.register_at_fork(after_in_child=after_fork)
    return engine


def parallel_for_address() -> int:
    """The address of the pool's `parallel_for`, an `abi.THREAD_POOL` (built on first use)."""
    return _pool().get_function_address("minitvm_pool_parallel_for")


def parallel_for(body: int, ctx: int, trip: int, threads: int, grain: int) -> None:
    """Run `body(ctx, lo, hi)` over [0, trip) in chunks of `grain` on `threads` threads
    (what generated code calls; from Python for tests and experiments)."""
    THREAD_POOL(parallel_for_address())(body, ctx, trip, threads, grain)
