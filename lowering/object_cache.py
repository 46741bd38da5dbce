"""The kernel cache: object code on disk, by kernel content and target.

Lowering a kernel and compiling it with LLVM is most of a compile (light ResNet-50: 6.5 of
8 s), and the same kernels come back: the next compile of the model, another model with the
same layers, a tuning trial that changed one kernel of many, `minitvm export` after a run.
So each kernel's object code is kept under a key taken at the te level, after scheduling (a
hit skips every stage after it):

    key = sha256(compiler fingerprint, LLVM CPU and features, opt level, the kernel's text)

The kernel's text (`str` of the te function, its name replaced) holds its computation, its
shapes and its schedule; the fingerprint covers what turns that text into code: minitvm's
own sources (`compiler_fingerprint`) and the versions of xDSL, llvmlite and LLVM. The
object defines one global symbol, the kernel, named after the key (`kernel_symbol`), so an
entry serves any model whatever it named the kernel; the JIT and `minitvm export` link the
same objects (position-independent, symbols hidden).

On disk: `$MINITVM_CACHE_DIR/kernels/<key[:2]>/<key>` (default `~/.cache/minitvm`), one file
per kernel: a JSON header line (what the caller needs without lowering the kernel: its
scratch buffers, whether it has parallel loops, its op counts; and the object's size and
digest) followed by the object code. Files are written to a temporary name and renamed into
place, so processes compiling at once never read half an entry (two writing one key write
the same bytes; the last rename wins). An entry that does not check out (a bad header, a
wrong size or digest: a disk or a person that damaged it) is a miss, and is written anew.
Hits refresh the file's time; when the cache grows past `MINITVM_CACHE_MAX_MB` (default
1024) the least recently used entries go until it is under three quarters of that (its size
is kept in `kernels/.usage` between full counts, which are dear: `ObjectCache.prune`). A tuning
run writes one entry per trial, a few tens of KB each. `MINITVM_CACHE=off` turns the cache
off (kernels are still compiled one by one, and on every core).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

from minitvm.errors import MinitvmError
from minitvm.machine import cache_dir

#: Set to "off" (or 0, no, false) to compile every kernel afresh and store nothing.
CACHE_ENV = "MINITVM_CACHE"
#: The cache's size limit in MiB.
CACHE_MAX_ENV = "MINITVM_CACHE_MAX_MB"
DEFAULT_MAX_MB = 1024
#: The cache's size as last counted plus what was written since (see `ObjectCache.prune`).
USAGE_FILE = ".usage"
#: How long a count is trusted before the entries are counted again.
USAGE_MAX_AGE_S = 3600.0
#: Bumped when the entry format changes (old entries then never match).
FORMAT = 1

_PACKAGE = Path(__file__).resolve().parents[1]
#: Parts of the package that cannot change the code a kernel compiles to.
_NOT_COMPILER = {"tests", "bench", "examples", "docs", "tools"}


@dataclass(frozen=True)
class KernelObject:
    """One kernel compiled: its object code and what its callers need to know about it."""

    #: The kernel's global symbol in `code` (hidden visibility).
    symbol: str
    #: ELF object code, position-independent.
    code: bytes
    #: Its buffer arguments: inputs, outputs, then scratch buffers, whose memref types (as
    #: text) @main must allocate.
    num_inputs: int
    num_outputs: int
    scratch: tuple[str, ...]
    #: Whether it calls `__minitvm_parallel_for` (the module linking it must define it).
    parallel: bool
    #: Ops at the loop and llvm levels, for the compile report.
    op_counts: dict[str, int] = field(default_factory=dict)
    #: Seconds its stages took when it was compiled (none when it came from the cache).
    seconds: dict[str, float] = field(default_factory=dict, compare=False)
    #: The symbols whose values follow its buffers, as i64 arguments (`loop.SYMBOLS_ATTR`).
    symbols: tuple[str, ...] = ()

    def header(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "symbol": self.symbol,
            "num_inputs": self.num_inputs,
            "num_outputs": self.num_outputs,
            "scratch": list(self.scratch),
            "parallel": self.parallel,
            "op_counts": self.op_counts,
            **({"symbols": list(self.symbols)} if self.symbols else {}),
            "size": len(self.code),
            "sha256": hashlib.sha256(self.code).hexdigest(),
        }

    @staticmethod
    def from_entry(data: bytes) -> KernelObject | None:
        """The kernel an entry file holds, or None if the entry does not check out."""
        line, _, code = data.partition(b"\n")
        try:
            head = json.loads(line)
            if head["format"] != FORMAT or head["size"] != len(code):
                return None
            if head["sha256"] != hashlib.sha256(code).hexdigest():
                return None
            return KernelObject(
                str(head["symbol"]), code, int(head["num_inputs"]), int(head["num_outputs"]),
                tuple(map(str, head["scratch"])), bool(head["parallel"]),
                {str(k): int(v) for k, v in head["op_counts"].items()},
                symbols=tuple(map(str, head.get("symbols", ()))),
            )  # fmt: skip
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


def kernel_symbol(key: str) -> str:
    """The symbol a kernel with this key is compiled under (96 bits of the key)."""
    return f"minitvm_k{key[:24]}"


@functools.cache
def compiler_fingerprint() -> str:
    """A digest of everything besides a kernel's text that decides its object code: the
    compiler's Python sources and the xDSL, llvmlite and LLVM it runs on."""
    digest = hashlib.sha256()
    versions = (metadata.version("xdsl"), llvmlite.__version__, llvm.llvm_version_info)
    digest.update(repr(versions).encode())
    for path in sorted(_compiler_sources()):
        digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _compiler_sources() -> list[Path]:
    sources = []
    for root, dirs, files in os.walk(_PACKAGE):
        top = Path(root) == _PACKAGE
        dirs[:] = [
            d for d in dirs
            if not d.startswith((".", "__")) and not (top and d in _NOT_COMPILER)
        ]  # fmt: skip
        sources += [Path(root, f) for f in files if f.endswith(".py")]
    return sources


def kernel_key(text: str, cpu: str, features: str, opt_level: int) -> str:
    """The cache key of a kernel whose te text (name replaced) is `text`."""
    digest = hashlib.sha256(compiler_fingerprint().encode())
    digest.update(f"\0{cpu}\0{features}\0O{opt_level}\0".encode())
    digest.update(text.encode())
    return digest.hexdigest()


def cache_enabled() -> bool:
    return os.environ.get(CACHE_ENV, "on").strip().lower() not in ("off", "0", "no", "false")


class ObjectCache:
    """The kernel entries under `root` (default: `$MINITVM_CACHE_DIR/kernels`)."""

    def __init__(self, root: str | os.PathLike[str] | None = None, max_bytes: int | None = None):
        self.root = Path(root) if root is not None else cache_dir() / "kernels"
        if max_bytes is None:
            max_bytes = _max_mb() * (1 << 20)
        self.max_bytes = max_bytes

    def path(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> KernelObject | None:
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        kernel = KernelObject.from_entry(data)
        if kernel is None or kernel.symbol != kernel_symbol(key):
            return None
        try:
            os.utime(path)  # recently used: the last to be pruned
        except OSError:
            pass
        return kernel

    def put(self, key: str, kernel: KernelObject) -> int:
        """Store an entry (atomically); the bytes written. A cache that cannot be written is
        no error (0 bytes): the kernel is then compiled again next time."""
        path = self.path(key)
        data = json.dumps(kernel.header(), sort_keys=True).encode() + b"\n" + kernel.code
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(path, data)
        except OSError:
            return 0
        return len(data)

    def prune(self, written: int | None = None) -> int:
        """Remove least recently used entries while the cache is over its limit (down to
        three quarters of it); the number removed.

        Counting the cache means a stat of every entry: 0.6 s per compile once it holds
        70,000 (a fuzzing campaign's worth), more than the compile itself. So the total a
        scan counts is kept in `.usage` with the bytes written since (`written`: what the
        caller just stored), and the entries are counted again only when that estimate
        passes the limit, or when the last count is over an hour old (processes writing at
        once may each miss the other's bytes: the estimate drifts low, never for long).
        Without `written`, the entries are counted now."""
        usage = self._usage()
        if written is not None and usage is not None:
            counted, at = usage
            if counted + written <= self.max_bytes and time.time() - at < USAGE_MAX_AGE_S:
                self._set_usage(counted + written, at)
                return 0
        total, removed = self._prune_now()
        self._set_usage(total, time.time())
        return removed

    def _prune_now(self) -> tuple[int, int]:
        """(bytes left, entries removed) after a full count."""
        entries = []
        try:
            with os.scandir(self.root) as subs:
                for sub in subs:
                    if not sub.is_dir(follow_symlinks=False):
                        continue
                    with os.scandir(sub.path) as files:
                        for entry in files:
                            try:
                                stat = entry.stat(follow_symlinks=False)
                            except OSError:
                                continue
                            entries.append((stat.st_mtime, stat.st_size, entry.path))
        except OSError:
            return 0, 0
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return total, 0
        removed = 0
        for _, size, path in sorted(entries):
            if total <= self.max_bytes * 3 // 4:
                break
            try:
                os.unlink(path)
            except OSError:
                continue
            total -= size
            removed += 1
        return total, removed

    def _usage(self) -> tuple[int, float] | None:
        """(bytes, when counted) from `.usage`; None when it is missing or damaged."""
        try:
            record = json.loads((self.root / USAGE_FILE).read_text())
            return int(record["bytes"]), float(record["counted_at"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _set_usage(self, total: int, counted_at: float) -> None:
        record = json.dumps({"bytes": total, "counted_at": counted_at}).encode()
        try:
            _write_atomically(self.root / USAGE_FILE, record)
        except OSError:
            pass


def _write_atomically(path: Path, data: bytes) -> None:
    """Write to a temporary name beside `path`, then rename it into place: a reader sees the
    old file or the new one, never half of one."""
    fd, temp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def _max_mb() -> int:
    value = os.environ.get(CACHE_MAX_ENV, "").strip()
    if not value:
        return DEFAULT_MAX_MB
    if not value.isdigit():
        raise MinitvmError(f"{CACHE_MAX_ENV} must be a whole number of MiB, got '{value}'")
    return int(value)
