"""Real daphne processes for the multi-process fault tests: each serves the test database and the
Redis channel layer, and can be killed with SIGKILL and started again on the same port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.services import child_database_url

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 90
# The server processes' connections are named, so that a test can cut exactly those.
NODE_APPLICATION = "groundwork-node"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def node_env(index_dir: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": f"{child_database_url()}?application_name={NODE_APPLICATION}",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "fault-tests-only-secret-key-of-enough-length-0123456789",
        "GROUNDWORK_INDEX_DIR": str(index_dir),
        # The fault tests measure the room, not the rate limit; retrieval runs in the chat process.
        "GROUNDWORK_WS_RATE_PER_10S": "10000",
        "GROUNDWORK_RATE_LIMITS": "frames.worker=0/10,sockets.worker=0/60",
        # The scripted pages join by plain ?worker= links, as the in-process tests do.
        "GROUNDWORK_UNSIGNED_LINKS": "1",
        "GROUNDWORK_KNOWLEDGE_MODE": "process",
        "GROUNDWORK_RERANK_MODE": "process",
        "CONN_MAX_AGE": "300",
        **extra,
    }


class Node:
    """A daphne process; `proxied`: as `make run-prod` runs one behind HAProxy (groundwork.serve,
    reading the client's address from X-Forwarded-For)."""

    def __init__(self, env: dict[str, str], log: Path, *, proxied: bool = False) -> None:
        self.port = free_port()
        self.env, self.log = env, log
        self.server = ["groundwork.serve", "--proxy-headers"] if proxied else ["daphne"]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", *self.server, "-b", "127.0.0.1", "-p", str(self.port), "groundwork.asgi:application"],
                cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
            )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            assert self.process is not None and self.process.poll() is None, self.log.read_text()[-3000:]
            try:
                socket.create_connection(self.address, timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError(f"daphne on {self.port} did not start: {self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


class RedisServer:
    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
