"""A real `python -m groundwork.serve` process on the test database, for the tests that read what a
server writes (its access log) or what several processes recorded (its /metrics)."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

from tests.collect.nodes import START_SECONDS, free_port, wait_application
from tests.services import child_database_url

ROOT = Path(__file__).resolve().parents[2]


def child_db_url() -> str:
    """The test database for a child process: the SQLite file of the first pass or PostgreSQL's."""
    if connection.vendor == "sqlite":
        return f"sqlite:///{connection.settings_dict['NAME']}"
    return child_database_url()


def child_env(index_dir: Path, **extra: str) -> dict[str, str]:
    """The embedded mode on the test database: no broker or Redis layer of the services pass (a
    child must not take other tests' tasks), retrieval in the process."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND",
                                                            "PROMETHEUS_MULTIPROC_DIR", "GROUNDWORK_LOG_FORMAT")}
    return {
        **env,
        "DATABASE_URL": child_db_url(),
        "GROUNDWORK_INDEX_DIR": str(index_dir),
        "GROUNDWORK_KNOWLEDGE_MODE": "process",
        "GROUNDWORK_RERANK_MODE": "process",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


class _Refuse(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_NO_REDIRECTS = urllib.request.build_opener(_Refuse)


class Server:
    def __init__(self, port: int, process: subprocess.Popen[bytes], out: Path, err: Path) -> None:
        self.port, self.process, self.out, self.err = port, process, out, err

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
        """One request, redirects not followed."""
        request = urllib.request.Request(self.base + path, headers=headers or {})
        try:
            with _NO_REDIRECTS.open(request, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def output(self) -> str:
        return self.out.read_text(errors="replace") + self.err.read_text(errors="replace")


@contextmanager
def served(env: dict[str, str], workdir: Path, name: str = "serve") -> Iterator[Server]:
    """`python -m groundwork.serve` on a free port, stdout and stderr kept apart; stopped after."""
    port = free_port()
    out, err = workdir / f"{name}.out", workdir / f"{name}.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "groundwork.serve", "-b", "127.0.0.1", "-p", str(port), "groundwork.asgi:application"],
            cwd=ROOT, env=env, stdout=stdout, stderr=stderr,
        )
    server = Server(port, process, out, err)
    try:
        wait_application(port, process, seconds=START_SECONDS, what="groundwork.serve", log=err)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
