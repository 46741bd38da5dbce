"""Every test session gets a cache directory of its own (kernel objects, the machine's
description): a session starts cold, compiling every kernel at least once, and nothing a
session writes or a developer's cache holds can decide another session's results."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_created: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    path = tempfile.mkdtemp(prefix="minitvm-test-cache-")
    _created.append(path)
    os.environ["MINITVM_CACHE_DIR"] = path


def pytest_unconfigure(config: pytest.Config) -> None:
    for path in _created:
        shutil.rmtree(path, ignore_errors=True)
