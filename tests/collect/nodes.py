"""Real daphne processes for the multi-process fault tests: each serves the test database and the
Redis channel layer, and can be killed with SIGKILL and started again on the same port."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from groundwork.topology import haproxy_config
from tests.services import child_database_url

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 90
# The server processes' connections are named, so that a test can cut exactly those.
NODE_APPLICATION = "groundwork-node"
# The marks of a test module that runs chat processes behind the real HAProxy.
PROXIED_SERVICES = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs Debian's haproxy (make haproxy; make test installs it)"),
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs REDIS_URL and a PostgreSQL DATABASE_URL",
    ),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen[bytes], *, seconds: float, what: str, log: Path | None = None) -> None:
    """Until something accepts connections on `port`; fails if `process` exits first."""
    def tail() -> str:
        return log.read_text()[-3000:] if log is not None else ""

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"{what} exited: {tail()}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{what} on {port} did not start: {tail()}")


def wait_application(port: int, process: subprocess.Popen[bytes], *, seconds: float, what: str, log: Path | None = None) -> None:
    """Until `GET /readyz` answers 200: a chat process listens before its application has loaded
    (groundwork/startup.py) and answers 503 until then, as a proxy sees it; fails if `process` exits."""
    import urllib.error
    import urllib.request

    wait_listening(port, process, seconds=seconds, what=what, log=log)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"{what} exited: {log.read_text()[-3000:] if log else ''}"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what} on {port} did not load its application within {seconds} s")


def node_env(index_dir: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": f"{child_database_url()}?application_name={NODE_APPLICATION}",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "fault-tests-only-secret-key-of-enough-length-0123456789",
        "GROUNDWORK_INDEX_DIR": str(index_dir),
        # Not the developer's var/ranker: a model promoted there must not rank in the tests' processes.
        "GROUNDWORK_RANKER_DIR": str(index_dir.parent / "ranker"),
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
    reading the client's address from the X-Forwarded-For of the proxy on 127.0.0.1 only)."""

    def __init__(self, env: dict[str, str], log: Path, *, proxied: bool = False) -> None:
        self.port = free_port()
        self.env, self.log = env, log
        if proxied:
            self.env = {"GROUNDWORK_TRUSTED_PROXIES": "127.0.0.1", **env}
        self.server = ["groundwork.serve"] if proxied else ["daphne"]
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
        """Until the process answers /readyz with 200: it listens at once, and is ready once its
        application has loaded (groundwork/startup.py)."""
        assert self.process is not None
        wait_listening(self.port, self.process, seconds=START_SECONDS, what="daphne", log=self.log)
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=10) as response:
                    if response.status == 200:
                        return
            except OSError:  # 503 (an HTTPError) while the application loads, or a refused connection
                pass
            assert self.process.poll() is None, f"daphne exited: {self.log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"daphne on {self.port} not ready: {self.log.read_text()[-3000:]}"
            time.sleep(0.1)

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
        wait_listening(self.port, self.process, seconds=10, what="redis-server")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


class HAProxy:
    """Debian's haproxy with the configuration `make run-prod` generates, in front of `node_ports`."""

    def __init__(self, workdir: Path, node_ports: list[int]) -> None:
        self.port = free_port()
        self.config = workdir / "haproxy.cfg"
        self.config.write_text(haproxy_config(port=self.port, node_ports=node_ports, ready_path="/readyz"))
        self.log = workdir / "haproxy.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(["haproxy", "-db", "-f", str(self.config)], stdout=out, stderr=subprocess.STDOUT)
        wait_listening(self.port, self.process, seconds=20, what="haproxy", log=self.log)

    def get(self, path: str) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
