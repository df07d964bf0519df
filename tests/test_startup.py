"""A chat process listens while its application is still importing (groundwork/startup.py): it is
alive (/healthz 200) and not ready (/readyz 503) until the import is done, every other request is
held and then served by the application, and an import that fails ends the process. The start-up
time itself is measured by bench/startup_time.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.backends

ROOT = Path(__file__).resolve().parent.parent
# Generous: a loaded CI machine may take long to start Python; the 5 s target is the bench's.
BOUND_S = 60
# tests/slow_start_app.py waits for this file before it finishes importing.
GATE_VARIABLE = "SLOW_START_GATE"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(port: int, path: str) -> tuple[int | None, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=BOUND_S) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return None, b""


def until(port: int, path: str, status: int, server: subprocess.Popen[bytes]) -> bytes:
    deadline = time.monotonic() + BOUND_S
    while True:
        answered, body = get(port, path)
        if answered == status:
            return body
        assert server.poll() is None, f"the server exited ({server.returncode})"
        assert time.monotonic() < deadline, f"{path} did not answer {status} within {BOUND_S} s (last: {answered})"
        time.sleep(0.05)


def serve(application: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "groundwork.serve", "-b", "127.0.0.1", "-p", str(port), application],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.fixture
def stopped() -> Iterator[list[subprocess.Popen[bytes]]]:
    servers: list[subprocess.Popen[bytes]] = []
    yield servers
    for server in servers:
        if server.poll() is None:
            server.terminate()
            server.wait(30)


def test_it_is_alive_and_not_ready_until_the_application_has_imported(tmp_path: Path, stopped) -> None:
    gate, port = tmp_path / "gate", free_port()
    server = serve("tests.slow_start_app:application", port, {**os.environ, GATE_VARIABLE: str(gate)})
    stopped.append(server)

    assert until(port, "/healthz", 200, server) == b'{"status": "ok"}'
    assert get(port, "/readyz") == (503, b'{"status": "not ready: loading"}')
    held: list[tuple[int | None, bytes]] = []
    page = threading.Thread(target=lambda: held.append(get(port, "/")))
    page.start()
    time.sleep(0.5)
    assert not held, "a page was answered before the application was there"

    gate.touch()  # the import finishes
    page.join(BOUND_S)
    assert held == [(200, b"app")]
    # From now on the application answers everything, its probes included.
    assert until(port, "/readyz", 200, server) == b"app"
    assert get(port, "/healthz") == (200, b"app")


def test_an_application_that_cannot_be_imported_ends_the_process(stopped) -> None:
    server = serve("tests.no_such_module:application", free_port(), dict(os.environ))
    stopped.append(server)
    assert server.wait(BOUND_S) == 1
    assert b"No module named 'tests.no_such_module'" in server.stderr.read()


def test_the_chat_application_serves_its_probes_after_a_start(tmp_path: Path, stopped) -> None:
    port = free_port()
    env = {**os.environ, "GROUNDWORK_VAR_DIR": str(tmp_path), "SECRET_KEY": "startup-test-secret-key-" + "0" * 40}
    server = serve("groundwork.asgi:application", port, env)
    stopped.append(server)
    assert until(port, "/healthz", 200, server) == b'{"status": "ok"}'
    body = until(port, "/readyz", 200, server)
    assert b'"database": "ok"' in body and b'"channel_layer": "ok"' in body
