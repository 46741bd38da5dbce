"""Output files that appear complete or not at all, for the command-line tools.

A compiler that dies halfway must not leave half a module behind where a build system would
take it for a result: the tools write to a temporary file beside the target and rename it
into place (atomic on POSIX) only once everything was written.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from typing import IO


@contextlib.contextmanager
def atomic_output(path: str) -> Iterator[IO[str]]:
    """A text stream whose content replaces `path` when the block exits without an error."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(
            dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp"
        )
    except OSError as e:  # name the file the user asked for, not our temporary one
        raise OSError(e.errno, e.strerror, path) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            yield stream
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give what open() would
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if e.filename is not None:  # about another file (one the block read)
            raise
        # A failed write (a full disk, a file-size limit) names no file: name the user's.
        raise OSError(e.errno, e.strerror, path) from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(text: str, output: str | None) -> None:
    """Write to `output` atomically, or to stdout when it is None."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with atomic_output(output) as stream:
        stream.write(text)


def write_bytes(data: bytes, path: str) -> None:
    """Write binary `data` (a PNG) to `path` atomically."""
    with atomic_output(path) as stream:
        stream.flush()
        stream.buffer.write(data)  # type: ignore[attr-defined]
