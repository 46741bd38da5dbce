"""Two `minitvm tune` processes share one set of studies through PostgreSQL, as tuners on
several machines would: together they run the budget once, no trial is lost or numbered
twice, and the records they leave apply to a compile.

The server comes from `MINITVM_TEST_POSTGRES_URL` (`.ci/run` starts Debian's PostgreSQL and
sets it, see `.ci/postgres`). Each run works in a database of its own, dropped at the end.
Without the variable the test is skipped, except under CI (`CI=true`), where a missing
server is a failure.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tuner_cli import minitvm, pinned_kernels, tuned_kernels
from tuner_processes import assert_budget_shared, tune_together

SERVER = os.environ.get("MINITVM_TEST_POSTGRES_URL")

if SERVER is None and os.environ.get("CI") != "true":
    pytest.skip("MINITVM_TEST_POSTGRES_URL is not set (.ci/postgres starts a server)", allow_module_level=True)


@pytest.fixture
def database() -> Iterator[str]:
    """A fresh database on the server, as a SQLAlchemy URL; dropped afterwards."""
    assert SERVER is not None, "CI must set MINITVM_TEST_POSTGRES_URL (.ci/run does)"
    import psycopg2

    name = f"minitvm_test_{uuid.uuid4().hex[:12]}"
    admin = psycopg2.connect(SERVER.replace("postgresql+psycopg2://", "postgresql://"))
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {name}")
    try:
        yield re.sub(r"/[^/]*$", f"/{name}", SERVER)
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


def test_two_tuners_share_the_studies_through_postgresql(tmp_path: Path, database: str) -> None:
    budget = 10
    model = tune_together(tmp_path, database, budget)
    assert_budget_shared(database, budget)

    compiled = minitvm("compile", model, "--records", database, "--num-threads", "1", "--winograd", "never")
    assert compiled.returncode == 0, compiled.stderr
    assert tuned_kernels(compiled.stdout) == pinned_kernels(model, database)
    run = minitvm("run", model, "--records", database, "--num-threads", "1", "--compare-ort")
    assert run.returncode == 0, run.stderr
    assert "PASS" in run.stdout
