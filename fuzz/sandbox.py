"""Checks in a child process: a segfault in generated code or an endless loop ends the child,
and is reported as that case's "crash" or "hang", not the campaign's end.

One child serves case after case (its imports of xDSL, ONNX, ONNX Runtime and LLVM take
seconds; a case takes about as long). It is a spawned process (nothing of the parent's
threads or locks), leading a process group of its own so that a hang is stopped with
everything it started (the kernel builds fork children). After a crash or a hang the next
check starts a fresh child. The clock of a check starts when the child is ready. (A spawned
child re-imports the parent's main module: run the fuzzer from a file, the CLI or pytest,
not from a script piped to `python -`.)
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from collections.abc import Sequence
from multiprocessing.connection import Connection
from types import TracebackType

from minitvm.fuzz.check import CONFIGS, Config, Verdict
from minitvm.fuzz.graph import Case

#: A child's imports take seconds; a start longer than this is a failure of its own.
STARTUP_S = 300.0


def serve(conn: Connection) -> None:
    """The child: check every case it is sent until the pipe closes."""
    os.setsid()
    from minitvm.fuzz.check import check

    conn.send("ready")
    while True:
        try:
            model, feeds, exact, configs = conn.recv()
        except EOFError:
            return
        import onnx

        conn.send(check(Case(onnx.load_model_from_string(model), feeds, exact), configs))


class Sandbox:
    """`check` in a child process, with a deadline of `timeout` seconds per case."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None

    def check(self, case: Case, configs: Sequence[Config] = CONFIGS) -> Verdict:
        conn = self._start()
        conn.send((case.model.SerializeToString(), case.feeds, case.exact_outputs, list(configs)))
        try:
            if conn.poll(self.timeout):
                return conn.recv()
        except (EOFError, ConnectionError):
            return Verdict("crash", detail=self._died())
        self.close()
        return Verdict("hang", detail=f"no verdict within {self.timeout:g} s")

    def _start(self) -> Connection:
        if self._conn is not None and self._process is not None and self._process.is_alive():
            return self._conn
        self.close()
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        process = context.Process(target=serve, args=(child,), name="minitvm-fuzz-check")
        process.start()
        child.close()
        self._process, self._conn = process, parent
        try:
            ready = parent.poll(STARTUP_S) and parent.recv() == "ready"
        except EOFError:
            ready = False
        if not ready:
            self.close()
            raise RuntimeError("the fuzzer's checking process did not start")
        return parent

    def _died(self) -> str:
        """How the child ended (it is gone: the next check starts another)."""
        process = self._process
        assert process is not None
        process.join(10)
        code = process.exitcode
        self.close()
        if code is not None and code < 0:
            return f"the checking process died of {signal.Signals(-code).name}"
        return f"the checking process exited with code {code}"

    def close(self) -> None:
        """Stop the child and everything it started."""
        if self._conn is not None:
            self._conn.close()
        process = self._process
        if process is not None and process.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.join(10)
        self._process = self._conn = None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:  # fmt: skip
        self.close()
