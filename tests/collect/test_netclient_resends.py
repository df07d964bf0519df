"""The load bench's worker resends an unacknowledged frame as the pages do (static/js/socket.js):
after RESEND_S, then each copy after twice the wait of the one before, up to RESEND_MAX_S, so a
server that answers late gets fewer copies rather than more. Checked against a real websocket
server that never answers; only lower bounds on the gaps, which a busy machine cannot break."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from websockets.asyncio.server import serve

from tests.collect import netclient
from tests.collect.netclient import Worker, resend_wait


def test_each_wait_doubles_up_to_the_cap() -> None:
    assert [resend_wait(copies) for copies in range(1, 7)] == [5.0, 10.0, 20.0, 30.0, 30.0, 30.0]


async def test_a_worker_sends_each_copy_of_an_unanswered_frame_later_than_the_one_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(netclient, "RESEND_S", 0.05)
    monkeypatch.setattr(netclient, "RESEND_MAX_S", 0.4)
    arrived: list[float] = []
    enough = asyncio.Event()

    async def silent(socket) -> None:
        async for raw in socket:
            if json.loads(raw).get("client_id") == "c1":
                arrived.append(time.monotonic())
                if len(arrived) == 7:
                    enough.set()

    async with serve(silent, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        worker = Worker("w1", "campaign", [("127.0.0.1", port)])
        worker.socket = await worker._connect("/")
        frame = {"type": "message", "client_id": "c1", "text": "Hello"}
        worker.unacked["c1"] = frame
        worker.copies["c1"] = (time.monotonic(), 1)
        await worker._send(frame)
        resender = asyncio.create_task(worker._resend_overdue())
        try:
            await asyncio.wait_for(enough.wait(), timeout=60)
        finally:
            resender.cancel()
            await worker.socket.close()

    gaps = [later - earlier for earlier, later in zip(arrived, arrived[1:])]
    waits = [resend_wait(copies) for copies in range(1, len(gaps) + 1)]
    assert waits == [0.05, 0.1, 0.2, 0.4, 0.4, 0.4]
    # Sent no sooner than its wait after the copy before (a little slack for the two sends' own
    # scheduling): without the backoff every gap would be about 0.05 s.
    assert all(gap >= wait * 0.8 for gap, wait in zip(gaps, waits)), (gaps, waits)
    assert worker.stats.resends >= 6


async def test_a_wizard_asks_for_a_late_panel_less_often_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(netclient, "KNOWLEDGE_OVERDUE_S", 0.05)
    asked: list[float] = []

    async def no_knowledge(socket) -> None:
        async for raw in socket:
            if json.loads(raw).get("type") == "sync":
                asked.append(time.monotonic())

    async with serve(no_knowledge, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        worker = Worker("w1", "campaign", [("127.0.0.1", port)], knowledge_wait_s=1.0)
        worker.socket = await worker._connect("/")
        began = time.monotonic()
        await worker._checked(1)  # gives up after knowledge_wait_s: the panel never comes
        await worker.socket.close()

    assert worker.stats.knowledge_missed == 1
    # Asked 0.05 s into the wait, then 0.1, 0.2 and 0.4 s after each ask: four asks fit in the
    # second (the fifth would be 1.55 s in); asking every 0.05 s would have made about twenty.
    assert 1 <= worker.stats.knowledge_resyncs == len(asked) <= 4
    gaps = [later - earlier for earlier, later in zip([began, *asked], asked)]
    assert all(gap >= 0.05 * 2**number * 0.8 for number, gap in enumerate(gaps)), gaps
