"""What the tests that start real Celery workers share (second CI pass only): their skip, the
test database's address for a child process, and the worker itself."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent

needs_broker = pytest.mark.skipif(
    not (os.environ.get("CELERY_BROKER_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
    reason="needs CELERY_BROKER_URL and a PostgreSQL DATABASE_URL",
)


def child_database_url() -> str:
    """The test database (not the one DATABASE_URL names), for a process started by a test."""
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def celery_worker(*options: str, env: dict[str, str], log: IO[bytes] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """`celery -A groundwork worker OPTIONS` with `env`, stopped when the block ends."""
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "groundwork", "worker", *options],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT if log else None,
    )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()  # a worker stuck in a task must not outlive the test and take later tests' tasks
            process.wait()
            raise
