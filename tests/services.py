"""What the tests that start real Celery workers share (second CI pass only): their skip, the
test database's address for a child process, the worker itself, the count of tracebacks in a
process's output, and a connection PostgreSQL cuts at an exact write."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import kombu
import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent

needs_broker = pytest.mark.skipif(
    not (os.environ.get("CELERY_BROKER_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
    reason="needs CELERY_BROKER_URL and a PostgreSQL DATABASE_URL",
)


TRACEBACK = "Traceback (most recent call last)"


def tracebacks(*logs: Path) -> int:
    """Tracebacks written to these output files (a known failing dependency is one line: none)."""
    return sum(log.read_text(errors="replace").count(TRACEBACK) for log in logs)


def child_database_url() -> str:
    """The test database (not the one DATABASE_URL names), for a process started by a test."""
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def celery_worker(*options: str, env: dict[str, str], log: IO[bytes] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """`celery -A groundwork worker OPTIONS` with `env`, stopped when the block ends. The queues
    named by `-Q name,…` are emptied first: a task an earlier test left there (a rerank past its
    expiry, the retrieval of a room since deleted) is not this test's."""
    if "-Q" in options and env.get("CELERY_BROKER_URL"):
        queues_purge(env["CELERY_BROKER_URL"], options[options.index("-Q") + 1].split(","))
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


def queues_purge(broker_url: str, queues: list[str]) -> None:
    """Drop every message waiting in these queues of the broker (a queue never declared has none)."""
    with kombu.Connection(broker_url, connect_timeout=5) as broker:
        channel = broker.default_channel
        for queue in queues:
            channel.queue_purge(queue)


@contextmanager
def connection_killed_on(table: str, event: str, *, times: int | None = None) -> Iterator[None]:
    """While the block runs, a connection about to write a row of `table` (`event`: INSERT or
    UPDATE, e.g. "UPDATE OF retrieved_passages") is terminated by PostgreSQL itself, as a failover
    cuts it: every time, or the first `times` times. A real lost database at an exact point."""
    kill = "PERFORM pg_terminate_backend(pg_backend_pid());"
    if times is not None:
        kill = f"IF nextval('groundwork_test_kills') <= {int(times)} THEN {kill} END IF;"
    with connection.cursor() as cursor:
        cursor.execute("CREATE SEQUENCE groundwork_test_kills")
        cursor.execute(f"CREATE FUNCTION groundwork_test_die() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {kill} RETURN NEW; END $$")
        cursor.execute(f"CREATE TRIGGER groundwork_test_die BEFORE {event} ON {table} FOR EACH ROW EXECUTE FUNCTION groundwork_test_die()")
    try:
        yield
    finally:
        connection.close()  # it may be one that was killed
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TRIGGER groundwork_test_die ON {table}")
            cursor.execute("DROP FUNCTION groundwork_test_die()")
            cursor.execute("DROP SEQUENCE groundwork_test_kills")
