"""What a real daphne does with oversized frames and unknown socket paths (the communicator tests
skip daphne's own websocket layer). The server is groundwork.serve's: frames up to daphne's limit
(1 MiB, --websocket-max-message-size) reach the consumer and get `too_large`; larger ones are
skipped by the server and get the same error; either way the socket stays open. Only a message
past serve.DISCARD_FACTOR times the limit is cut, with close 1009 and a reason, and the
consumer's disconnect() still runs."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
from django.db import connections
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from collect.models import Assignment, Message
from groundwork import serve
from tests.live import daphne_running  # the fork hook comes with it
from tests.collect.conftest import PairedRoom, make_room

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def handshake_process(*args: Any, **kwargs: Any) -> Any:
    """channels' DaphneProcess running groundwork.serve's server. The child re-imports daphne.server
    after the fork, so the server class is swapped there, before it runs."""
    from daphne.testing import DaphneProcess

    from groundwork.serve import with_frame_limits

    class GroundworkDaphneProcess(DaphneProcess):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.setup = self.with_frame_limits

        def with_frame_limits(self) -> None:
            self.server.__class__ = with_frame_limits(type(self.server))

    return GroundworkDaphneProcess(*args, **kwargs)


@pytest.fixture
def server(settings, monkeypatch) -> Iterator[str]:
    from channels.testing.live import make_application

    # The forked server inherits this: a message past 4 MiB is cut (64 MiB in production).
    monkeypatch.setattr(serve, "DISCARD_FACTOR", 4)
    connections.close_all()  # the forked child must not share our database socket
    with daphne_running(handshake_process("127.0.0.1", partial(make_application, static_wrapper=None))) as process:
        yield f"127.0.0.1:{process.port.value}"


@pytest.fixture
def room(campaign) -> PairedRoom:
    return make_room(campaign, topic="Guitar")


async def next_of(ws, kind: str) -> dict:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if frame["type"] == kind:
            return frame


def test_oversized_frames_get_an_error_and_only_a_flood_is_cut_with_a_reason(room: PairedRoom, server: str) -> None:
    headers = {"Cookie": room.apprentice.cookie.decode()}

    async def talk() -> tuple[list[dict], int | None, str]:
        async with connect(f"ws://{server}/ws/room/{room.room.id}/", origin="http://127.0.0.1", additional_headers=headers, max_size=None) as ws:
            await next_of(ws, "state")
            errors = []
            # Under daphne's limit (refused by Groundwork), over it (skipped by the server), and
            # over it in several frames: each gets `too_large`, and the socket still answers.
            await ws.send(json.dumps({"type": "message", "client_id": "big", "text": "a" * 1_000_000}))
            errors.append(await next_of(ws, "error"))
            await ws.send(json.dumps({"type": "message", "client_id": "huge", "text": "a" * 2_000_000}))
            errors.append(await next_of(ws, "error"))
            await ws.send(["b" * 700_000, "b" * 700_000, "b" * 700_000])
            errors.append(await next_of(ws, "error"))
            await ws.send(json.dumps({"type": "ping"}))
            await next_of(ws, "pong")
            try:
                await ws.send("x" * (5 * 1024 * 1024))
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            except ConnectionClosed as closed:
                return errors, closed.rcvd.code if closed.rcvd else None, closed.rcvd.reason if closed.rcvd else ""
        raise AssertionError("unreachable")

    errors, code, reason = asyncio.run(talk())
    assert [error["code"] for error in errors] == ["too_large"] * 3
    assert "1048576 bytes" in errors[1]["message"]
    assert code == 1009 and "exceeds payload limit of 1048576 octets" in reason
    assert not Message.objects.filter(room=room.room).exists()
    # daphne ran the consumer's disconnect(): the member is not left "connected".
    deadline = time.monotonic() + 60  # waited for: a busy machine runs the disconnect late
    while Assignment.objects.get(pk=room.apprentice.assignment.pk).connected and time.monotonic() < deadline:
        time.sleep(0.1)
    assert Assignment.objects.get(pk=room.apprentice.assignment.pk).connected is False


def test_an_unknown_socket_path_is_refused_with_a_reason_not_a_500(server: str) -> None:
    async def talk() -> tuple[dict, int]:
        async with connect(f"ws://{server}/ws/nowhere/", origin="http://127.0.0.1") as ws:
            error = json.loads(await asyncio.wait_for(ws.recv(), 10))
            try:
                await asyncio.wait_for(ws.recv(), 10)
            except ConnectionClosed as closed:
                return error, closed.rcvd.code
        raise AssertionError("unreachable")

    error, code = asyncio.run(talk())
    assert error["code"] == "not_found" and code == 4404
    with pytest.raises(urllib.error.HTTPError) as plain_http:
        urllib.request.urlopen(f"http://{server}/ws/nowhere/", timeout=10)
    assert plain_http.value.code == 404
