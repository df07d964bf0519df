"""`make run-prod`'s topology as the supervision tests run it: `python -m groundwork.topology run`
(supervisord in the foreground) against the test database and Redis, with pids read and programs
killed through supervisord's control socket."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from groundwork.supervision import alive, control
from tests.collect.nodes import ROOT, free_port, node_env

START_SECONDS = 180


def topology_env(index_dir: Path, **extra: str) -> dict[str, str]:
    """The fault tests' server environment (test database, plain links, no rate limits), with the
    wizard's retrieval on the topology's Celery workers, as in production."""
    return node_env(index_dir, GROUNDWORK_KNOWLEDGE_MODE="celery", GROUNDWORK_RERANK_MODE="celery",
                    CELERY_BROKER_URL=os.environ.get("CELERY_BROKER_URL") or os.environ["REDIS_URL"], **extra)


class Supervised:
    """One machine's topology: `options` are groundwork.topology's (--roles, --nodes, --workers…)."""

    def __init__(self, workdir: Path, env: dict[str, str], *options: str) -> None:
        self.out = workdir / "prod"
        self.port = free_port()
        self.chat_ports = [free_port(), free_port()]
        self.env, self.options = env, options
        self.log = workdir / "supervisord.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, *more: str) -> None:
        command = [sys.executable, "-m", "groundwork.topology", "run", "--out", str(self.out),
                   "--port", str(self.port), *self.options, *more]
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=output, stderr=subprocess.STDOUT)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def infos(self) -> dict[str, dict]:
        return {info["name"]: info for info in control(self.out).supervisor.getAllProcessInfo()}

    def wait_running(self, seconds: float = START_SECONDS) -> dict[str, int]:
        """Until every program is RUNNING; their pids."""
        deadline = time.monotonic() + seconds
        while True:
            assert self.process is not None and self.process.poll() is None, self.tail()
            try:
                infos = self.infos()
            except OSError:
                infos = {}
            if infos and all(info["statename"] == "RUNNING" for info in infos.values()):
                return {name: info["pid"] for name, info in infos.items()}
            assert time.monotonic() < deadline, f"not all RUNNING: {infos}\n{self.tail()}"
            time.sleep(0.2)

    def wait_ready(self, port: int, seconds: float = START_SECONDS) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as response:
                    if response.status == 200:
                        return
            except (OSError, urllib.error.HTTPError):
                pass
            time.sleep(0.2)
        raise AssertionError(f"nothing ready on {port}:\n{self.tail()}")

    def kill(self, name: str) -> int:
        pid = self.infos()[name]["pid"]
        os.kill(pid, signal.SIGKILL)
        return pid

    def kill_all(self) -> None:
        """The machine dies: supervisord and every process it runs, SIGKILLed."""
        pids = [info["pid"] for info in self.infos().values() if info["pid"]]
        assert self.process is not None
        self.process.kill()
        self.process.wait()
        for pid in pids:
            try:
                os.killpg(pid, signal.SIGKILL)  # a Celery worker's pool processes too
            except ProcessLookupError:
                pass
        for pid in pids:
            while alive(pid):
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        subprocess.run([sys.executable, "-m", "groundwork.topology", "stop", "--out", str(self.out)],
                       cwd=ROOT, capture_output=True, timeout=180)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill_all()
