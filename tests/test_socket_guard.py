"""A chat process whose database is gone while a page's socket connects (Channels' AuthMiddleware
reads the session from it before any consumer runs) logs one line and closes the socket with 4500,
so that the page comes back (groundwork/socket_guard.py); daphne never sees the error. The
database is a PostgreSQL address where nothing listens: a real connection refused, no stand-in."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
import websockets

from groundwork import close_codes
from tests.collect.nodes import START_SECONDS, Node, free_port, wait_listening

# It starts its own process against a database that is gone, whatever the pass: once is enough, in
# the second pass, where PostgreSQL's client is certain to be installed.
pytestmark = pytest.mark.services


def test_a_socket_whose_database_is_gone_is_closed_with_4500(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CELERY_BROKER_URL")},
        "DATABASE_URL": f"postgres://groundwork@127.0.0.1:{free_port()}/gone",
        "SECRET_KEY": "socket-guard-test-only-secret-key-of-enough-length-0123456789",
        "GROUNDWORK_INDEX_DIR": str(tmp_path / "indexes"),
        "GROUNDWORK_LOG_FORMAT": "text",
    }
    node = Node(env, tmp_path / "node.log")
    node.start()
    try:
        # Listening, never ready (/readyz asks the database); a socket waits for the application.
        wait_listening(node.port, node.process, seconds=START_SECONDS, what="daphne", log=node.log)

        async def connect() -> websockets.ConnectionClosed:
            async with websockets.connect(
                f"ws://127.0.0.1:{node.port}/ws/room/00000000-0000-0000-0000-000000000001/",
                additional_headers={"Cookie": "sessionid=a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5", "Origin": "http://127.0.0.1"},
                open_timeout=60,
            ) as socket:
                try:
                    await asyncio.wait_for(socket.recv(), 60)
                except websockets.ConnectionClosed as closed:
                    return closed
            raise AssertionError("the socket got a frame")

        closed = asyncio.run(connect())
    finally:
        node.stop()
    assert closed.rcvd is not None and closed.rcvd.code == close_codes.SERVICE_LOST
    log = node.log.read_text(errors="replace")
    assert "service lost before its consumer, closing with 4500" in log
    assert "Exception inside application" not in log and "Traceback" not in log, log[-3000:]
