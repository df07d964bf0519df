"""A chat process's SIGTERM (groundwork/shutdown.py): stop listening, close every websocket with
4503 server_restarting, exit once the sockets' handlers have finished or the grace has passed."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import websockets

from tests.collect.nodes import free_port, wait_application

pytestmark = pytest.mark.backends

ROOT = Path(__file__).resolve().parent.parent
SOCKETS = 3


def serve(tmp_path: Path, **env: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    log = tmp_path / "serve.log"
    import os

    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "groundwork.serve", "-b", "127.0.0.1", "-p", str(port), "tests.drain_app:application"],
            cwd=ROOT, env={**os.environ, "DRAIN_LOG": str(tmp_path / "drain.log"), **env},
            stdout=out, stderr=subprocess.STDOUT,
        )
    wait_application(port, process, seconds=90, what="groundwork.serve", log=log)
    return process, port


async def open_sockets(port: int) -> list[websockets.ClientConnection]:
    sockets = [await websockets.connect(f"ws://127.0.0.1:{port}/ws/", open_timeout=30) for _ in range(SOCKETS)]
    for index, ws in enumerate(sockets):  # each is served: an echo came back
        await ws.send(f"hello {index}")
        assert await asyncio.wait_for(ws.recv(), 30) == f"hello {index}"
    return sockets


async def closes(ws: websockets.ClientConnection) -> tuple[int | None, str | None]:
    try:
        await asyncio.wait_for(ws.recv(), 30)
    except websockets.ConnectionClosed as closed:
        return (closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else (None, None)
    raise AssertionError("the socket got a frame instead of its close")


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except OSError:
        return True
    return False


def test_sigterm_closes_every_socket_with_4503_and_exits_after_their_handlers(tmp_path: Path) -> None:
    process, port = serve(tmp_path, DRAIN_DISCONNECT_S="0.5", GROUNDWORK_SHUTDOWN_GRACE_S="60")

    async def scenario() -> list[tuple[int | None, str | None]]:
        sockets = await open_sockets(port)
        process.send_signal(signal.SIGTERM)
        return await asyncio.gather(*(closes(ws) for ws in sockets))

    try:
        assert asyncio.run(scenario()) == [(4503, "server_restarting")] * SOCKETS
        assert refused(port), "a process draining must not accept new connections"
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
    # It waited for every socket's disconnect handler (0.5 s each) before it stopped.
    assert (tmp_path / "drain.log").read_text().splitlines() == ["disconnected 4503"] * SOCKETS


def test_a_handler_that_does_not_finish_is_cut_at_the_grace(tmp_path: Path) -> None:
    process, port = serve(tmp_path, DRAIN_DISCONNECT_S="300", GROUNDWORK_SHUTDOWN_GRACE_S="1")

    async def scenario() -> list[tuple[int | None, str | None]]:
        sockets = await open_sockets(port)
        process.send_signal(signal.SIGTERM)
        return await asyncio.gather(*(closes(ws) for ws in sockets))

    try:
        assert asyncio.run(scenario()) == [(4503, "server_restarting")] * SOCKETS
        signalled = time.monotonic()
        assert process.wait(timeout=60) == 0
        # The grace (1 s) plus the reactor's stop, not the handlers' 300 s (a generous bound: a busy
        # machine stops late).
        assert time.monotonic() - signalled < 150
    finally:
        process.kill()
    assert not (tmp_path / "drain.log").exists()


def test_a_second_sigterm_stops_at_once(tmp_path: Path) -> None:
    process, port = serve(tmp_path, DRAIN_DISCONNECT_S="300", GROUNDWORK_SHUTDOWN_GRACE_S="600")

    async def scenario() -> None:
        sockets = await open_sockets(port)
        process.send_signal(signal.SIGTERM)
        await asyncio.gather(*(closes(ws) for ws in sockets))

    try:
        asyncio.run(scenario())
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)  # not the 600 s grace
    finally:
        process.kill()


def test_an_idle_keep_alive_connection_is_closed_by_the_drain(tmp_path: Path) -> None:
    """A proxy keeps connections to a chat process open between requests; a draining process
    closes them at once, so that no new request goes over one, while it still waits for its
    sockets' handlers (300 s here: the test then stops it with a second SIGTERM)."""
    process, port = serve(tmp_path, DRAIN_DISCONNECT_S="300", GROUNDWORK_SHUTDOWN_GRACE_S="600")
    try:
        keep_alive = socket.create_connection(("127.0.0.1", port), timeout=30)
        keep_alive.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = b""
        while not answer.endswith(b"0\r\n\r\n"):  # the chunked body's end
            answer += keep_alive.recv(4096)
        assert answer.startswith(b"HTTP/1.1 200")

        async def a_socket_open() -> None:
            ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/", open_timeout=30)
            process.send_signal(signal.SIGTERM)
            assert await closes(ws) == (4503, "server_restarting")

        asyncio.run(a_socket_open())
        # Closed before the socket's close was sent, so at once; daphne itself would cut the
        # socket's handler (and so end the drain) only after its application_close_timeout, 10 s.
        keep_alive.settimeout(5)
        assert keep_alive.recv(4096) == b""  # closed by the server while it drains
        assert process.poll() is None
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    finally:
        process.kill()
