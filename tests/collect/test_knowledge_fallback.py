"""A `default` worker outage leaves no wizard turn without its panel: a message whose retrieval no
worker has started within GROUNDWORK_KNOWLEDGE_DEADLINE_S is retrieved by the chat process, and a
message a worker did start is retrieved by that worker alone. Second CI pass only (real Celery
worker, Redis, PostgreSQL)."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

import pytest
from channels.db import database_sync_to_async

from collect.models import Message
from collect.tasktypes.wow import protocol as wow
from collect.services import knowledge_fallback, rooms
from collect.services.knowledge_claims import claim_holder
from tests.collect.conftest import PairedRoom, make_room
from tests.collect.nodes import node_env
from tests.collect.ws import connect, receive_until, send
from tests.services import celery_worker, needs_broker, tracebacks

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    needs_broker,
]

FALLBACK_LOG = "the chat process retrieved it"
QUESTIONS = ["I prefer blues music from the Deep South", "Who played the guitar in jazz bands?", "Is the blues older than jazz?"]


@pytest.fixture
def celery_mode(settings) -> None:
    settings.KNOWLEDGE_MODE = "celery"
    settings.KNOWLEDGE_DEADLINE_S = 2.0  # the default, said here because the test relies on it


@pytest.fixture
def chatting(campaign) -> PairedRoom:
    return make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")


class Worker:
    """A real `default` worker, which the test can stop mid-dialogue. The tests' ranker is lexical,
    so this worker reranks the panels it retrieves itself; the chat process's own retrievals queue
    theirs on the `rerank` queue, which no worker here reads."""

    def __init__(self, index_dir: Path, log: Path) -> None:
        env = {**node_env(index_dir), "GROUNDWORK_KNOWLEDGE_MODE": "celery", "GROUNDWORK_RERANK_MODE": "celery"}
        self.log = log
        self.context = celery_worker("-Q", "default", "--pool", "solo", "--loglevel", "INFO",
                                     "--without-gossip", "--without-mingle", env=env, log=log.open("wb"))
        self.process = self.context.__enter__()
        deadline = time.monotonic() + 120
        while " ready." not in log.read_text():  # consuming from the queue
            assert self.process.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the worker did not start"
            time.sleep(0.2)

    def stop(self) -> None:
        if self.context is not None:
            self.context.__exit__(None, None, None)
            self.context = None


async def apprentice_turn(chatting: PairedRoom, wizard, apprentice, n: int) -> tuple[dict, float]:
    """One wizard message and one apprentice message; the wizard's panel for the apprentice's turn
    and how long after the send it came."""
    await send(wizard, {"type": "message", "client_id": f"w{n}", "text": f"Do you play? ({n})", "checked": {"no_passages_used": True}})
    await receive_until(apprentice, "message", timeout=30)
    await receive_until(wizard, "message", timeout=30)  # its own, acknowledged
    sent = time.monotonic()
    await send(apprentice, {"type": "message", "client_id": f"a{n}", "text": QUESTIONS[n % len(QUESTIONS)]})
    apprentice_seq = 2 * n + 2
    while True:
        panel = await receive_until(wizard, "knowledge", timeout=30)
        if panel["after_seq"] == apprentice_seq:
            return panel, time.monotonic() - sent


def stored(chatting: PairedRoom) -> list[Message]:
    return list(Message.objects.filter(room=chatting.room).order_by("seq"))


async def test_with_no_worker_every_wizard_turn_gets_its_panel(chatting: PairedRoom, celery_mode, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="collect.services.knowledge_fallback")
    path = f"/ws/room/{chatting.room.id}/"
    wizard, apprentice = await connect(path, chatting.wizard.cookie), await connect(path, chatting.apprentice.cookie)
    for n in range(3):
        panel, waited = await apprentice_turn(chatting, wizard, apprentice, n)
        assert any(p["source"] == "partner" for p in panel["passages"])
        assert waited < 15, f"turn {n}: the panel took {waited:.1f} s"
    await knowledge_fallback.fallbacks_settled()
    messages = await database_sync_to_async(stored)(chatting)
    assert len(messages) == 6 and all(m.retrieved_passages is not None for m in messages)
    holders = await database_sync_to_async(lambda: [claim_holder(m.pk) for m in messages])()
    assert all(h is not None and h.startswith("fallback:") for h in holders), holders
    assert sum(FALLBACK_LOG in r.getMessage() for r in caplog.records) == 6
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_worker_stopped_mid_dialogue(chatting: PairedRoom, celery_mode, index_dir: Path, tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="collect.services.knowledge_fallback")
    worker = await asyncio.to_thread(Worker, index_dir, tmp_path / "worker.log")
    path = f"/ws/room/{chatting.room.id}/"
    wizard, apprentice = await connect(path, chatting.wizard.cookie), await connect(path, chatting.apprentice.cookie)
    try:
        # Worker healthy: it retrieves every message, and the chat process leaves them to it.
        for n in range(2):
            await apprentice_turn(chatting, wizard, apprentice, n)
        await knowledge_fallback.fallbacks_settled()
        messages = await database_sync_to_async(stored)(chatting)
        holders = await database_sync_to_async(lambda: [claim_holder(m.pk) for m in messages])()
        assert len(holders) == 4 and all(h is not None and h.startswith("worker:") for h in holders), holders
        assert not any(FALLBACK_LOG in r.getMessage() for r in caplog.records)
        # The last turn's panel is followed by its reranked order, ranked by the `default` worker
        # (nothing reads the `rerank` queue); then nothing: one panel per turn, none sent twice.
        reranked = await receive_until(wizard, "knowledge.reranked", timeout=30)
        assert reranked["after_seq"] == 4 and all("scores" in p for p in reranked["passages"])
        assert await wizard.receive_nothing(timeout=0.5)

        await asyncio.to_thread(worker.stop)
        for n in range(2, 4):
            panel, waited = await apprentice_turn(chatting, wizard, apprentice, n)
            assert waited < 15, f"turn {n}: the panel took {waited:.1f} s"
        await knowledge_fallback.fallbacks_settled()
        messages = await database_sync_to_async(stored)(chatting)
        assert len(messages) == 8 and all(m.retrieved_passages is not None for m in messages)
        holders = await database_sync_to_async(lambda: [claim_holder(m.pk) for m in messages[4:]])()
        assert all(h is not None and h.startswith("fallback:") for h in holders), holders
        await asyncio.to_thread(worker.stop)
        assert tracebacks(worker.log) == 0
    finally:
        await asyncio.to_thread(worker.stop)
        await wizard.disconnect()
        await apprentice.disconnect()


async def test_a_busy_worker_is_waited_for_a_while_and_then_not(chatting: PairedRoom, celery_mode, settings, caplog, monkeypatch) -> None:
    """On a saturated machine the worker lags but lives: the chat process waits for it (up to
    BUSY_WORKER_WAITS deadlines) rather than retrieving as well; a worker gone quiet is not."""
    from collect.services.knowledge_claims import claims_take_for_worker

    caplog.set_level(logging.WARNING, logger="collect.services.knowledge_fallback")
    settings.KNOWLEDGE_DEADLINE_S = 0.5

    def posted(client_id: str) -> int:
        frame = {"type": "message", "client_id": client_id, "text": "Blues and jazz", "checked": {"no_passages_used": True}}
        role = chatting.wizard if client_id.startswith("w") else chatting.apprentice
        return rooms.message_post(room_id=chatting.room.id, assignment=role.assignment, client_id=client_id,
                                  text="Blues and jazz", frame=frame).message.pk

    published: list[dict] = []

    async def publish(frames: dict) -> None:
        published.append(frames)

    # The messages the chat process checked (once per deadline) and those it then took to
    # retrieve itself: a decision records both in one step of the event loop.
    checked: list[int] = []
    taken: list[int] = []
    check, take = knowledge_fallback.claims_check_for_fallback, knowledge_fallback.claims_take_for_fallback

    async def counted_check(message_ids: list[int]):
        held = await check(message_ids)
        checked.extend(message_ids)
        return held

    async def counted_take(message_ids: list[int]):
        taken.extend(message_ids)
        return await take(message_ids)

    monkeypatch.setattr(knowledge_fallback, "claims_check_for_fallback", counted_check)
    monkeypatch.setattr(knowledge_fallback, "claims_take_for_fallback", counted_take)

    # A worker started a task just now (another message), then starts this one after two deadlines.
    await database_sync_to_async(claims_take_for_worker)([10**9], task_id="busy")
    first = await database_sync_to_async(posted)("w1")
    waiting = knowledge_fallback.fallback_schedule(message_id=first, publish=publish)
    deadline = time.monotonic() + 10
    while first not in checked:  # its first deadline
        assert time.monotonic() < deadline, "no decision on the message within 10 s"
        await asyncio.sleep(0.05)
    assert first not in taken and not waiting.done()  # past its deadline, still waiting for the busy worker
    assert await database_sync_to_async(claims_take_for_worker)([first], task_id="late") == [first]
    await asyncio.wait_for(waiting, timeout=10)
    assert published == [] and await database_sync_to_async(claim_holder)(first) == "worker:late"

    # The worker stays busy but never starts the next one: retrieved here after BUSY_WORKER_WAITS deadlines.
    second = await database_sync_to_async(posted)("a1")
    started = time.monotonic()
    waiting = knowledge_fallback.fallback_schedule(message_id=second, publish=publish)
    while not waiting.done():
        await database_sync_to_async(claims_take_for_worker)([10**9 + 1], task_id="busy")  # busy with others
        await asyncio.sleep(0.2)
    assert time.monotonic() - started >= knowledge_fallback.BUSY_WORKER_WAITS * 0.5
    assert len(published) == 1 and await database_sync_to_async(claim_holder)(second) == f"fallback:{os.getpid()}"
    assert [r.getMessage() for r in caplog.records if FALLBACK_LOG in r.getMessage()] == [
        f"message {second}: no worker started its retrieval within 2.0 s; the chat process retrieved it"
    ]


async def test_a_panel_whose_publish_meets_a_lost_redis_is_one_log_line(chatting: PairedRoom, celery_mode, caplog) -> None:
    # Redis restarting under the publish: the panel is stored (the page's sync sends it), and the
    # loss is one warning, not an asyncio task exception nobody retrieves.
    from redis.exceptions import ConnectionError as RedisConnectionError

    from tests.factories import add_message

    caplog.set_level(logging.WARNING)
    message = await database_sync_to_async(add_message)(chatting.room, wow.APPRENTICE, QUESTIONS[0])

    tries: list[float] = []

    async def publish(frames: dict) -> None:
        tries.append(time.monotonic())
        raise RedisConnectionError("Connection closed by server.")

    knowledge_fallback.fallback_schedule(message_id=message.pk, publish=publish)
    await knowledge_fallback.fallbacks_settled()
    await asyncio.sleep(0)  # an unretrieved task exception would be reported by now, at the latest on collection
    import gc

    gc.collect()
    lines = [r.getMessage() for r in caplog.records]
    assert any(f"message {message.pk}: publishing its panel skipped, service lost: redis.exceptions.ConnectionError" in line for line in lines), lines
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert len(tries) == knowledge_fallback.PUBLISH_TRIES == 3 and tries[2] - tries[0] >= 1.5  # after 0.5 s, then 1 s
    assert (await database_sync_to_async(Message.objects.get)(pk=message.pk)).retrieved_passages is not None
