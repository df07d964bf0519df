"""The knowledge fallback's decision at the deadline, in both passes: without Redis the database
decides (a message still without its retrieval is retrieved and its panel published; one already
retrieved is left alone); with Redis (services pass) the claim decides, and a worker's claim holds
against the fallback and against another task, but not against the redelivery of its own task."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from channels.db import database_sync_to_async

from collect.models import Message
from collect.tasktypes.wow import protocol as wow
from collect.services import knowledge_fallback, rooms
from collect.services.knowledge_claims import claim_holder, claim_release, claims_take_for_worker
from tests.collect.conftest import PairedRoom, make_room

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def chatting(campaign, settings) -> PairedRoom:
    settings.KNOWLEDGE_DEADLINE_S = 0.05
    return make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")


def post_turns(chatting: PairedRoom) -> Message:
    """The wizard's message and the apprentice's answer, stored as the consumer stores them; the
    apprentice's is returned (its retrieval makes the wizard's next panel)."""
    turns = ((chatting.wizard, "w1", "Do you play?"), (chatting.apprentice, "a1", "I prefer blues music from the Deep South"))
    for seat, client_id, text in turns:
        frame = {"type": "message", "client_id": client_id, "text": text, "checked": {"no_passages_used": True}}
        posted = rooms.message_post(room_id=chatting.room.id, assignment=seat.assignment, client_id=client_id, text=text, frame=frame)
    return posted.message


class Published:
    def __init__(self) -> None:
        self.frames: list[dict[str, dict[str, Any]]] = []

    async def __call__(self, frames: dict[str, dict[str, Any]]) -> None:
        self.frames.append(frames)


async def fallback(message_id: int) -> Published:
    published = Published()
    decided = knowledge_fallback.fallback_schedule(message_id=message_id, publish=published)
    assert decided is not None
    await decided
    return published


@pytest.fixture
def without_redis(settings) -> None:
    settings.REDIS_URL = ""


async def test_without_redis_a_message_still_lacking_its_retrieval_is_retrieved_here(chatting: PairedRoom, without_redis) -> None:
    message = await database_sync_to_async(post_turns)(chatting)
    published = await fallback(message.pk)
    (frames,) = published.frames
    assert frames[wow.WIZARD]["after_seq"] == 2 and frames[wow.WIZARD]["passages"][1]["title"] == "Blues"
    stored = await database_sync_to_async(Message.objects.get)(pk=message.pk)
    assert stored.retrieved_passages is not None


async def test_without_redis_a_message_already_retrieved_is_left_alone(chatting: PairedRoom, without_redis) -> None:
    message = await database_sync_to_async(post_turns)(chatting)
    await database_sync_to_async(rooms.message_after)(message_id=message.pk)  # as a worker would
    assert (await fallback(message.pk)).frames == []


def test_the_deadline_zero_turns_the_fallback_off(settings) -> None:
    settings.KNOWLEDGE_DEADLINE_S = 0
    assert knowledge_fallback.fallback_schedule(message_id=1, publish=Published()) is None


@pytest.mark.services
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")
class TestClaims:
    async def test_a_worker_claim_holds_against_the_fallback(self, chatting: PairedRoom) -> None:
        message = await database_sync_to_async(post_turns)(chatting)
        assert await database_sync_to_async(claims_take_for_worker)([message.pk], task_id="t1") == [message.pk]
        assert (await fallback(message.pk)).frames == []
        assert await database_sync_to_async(claim_holder)(message.pk) == "worker:t1"
        stored = await database_sync_to_async(Message.objects.get)(pk=message.pk)
        assert stored.retrieved_passages is None  # left to the worker

    async def test_the_fallback_claim_holds_against_a_late_worker(self, chatting: PairedRoom) -> None:
        message = await database_sync_to_async(post_turns)(chatting)
        (frames,) = (await fallback(message.pk)).frames
        assert frames[wow.WIZARD]["after_seq"] == 2
        assert (await database_sync_to_async(claim_holder)(message.pk)).startswith("fallback:")
        assert await database_sync_to_async(claims_take_for_worker)([message.pk], task_id="late") == []

    def test_a_redelivered_task_keeps_its_claim_and_another_task_does_not_get_it(self) -> None:
        ids = [2_000_000_001, 2_000_000_002]
        try:
            assert claims_take_for_worker(ids, task_id="first") == ids
            assert claims_take_for_worker(ids, task_id="first") == ids  # redelivered after its worker died
            assert claims_take_for_worker(ids, task_id="second") == []
        finally:
            for message_id in ids:
                claim_release(message_id)

    async def test_messages_due_together_are_decided_with_one_round_trip(self, settings, monkeypatch) -> None:
        """The claims of messages stored moments apart are checked together, not one by one."""
        settings.KNOWLEDGE_DEADLINE_S = 0.2
        ids = [2_000_000_011 + i for i in range(5)]
        checks: list[list[int]] = []
        check = knowledge_fallback.claims_check_for_fallback

        async def counted(message_ids: list[int]) -> Any:
            checks.append(list(message_ids))
            return await check(message_ids)

        monkeypatch.setattr(knowledge_fallback, "claims_check_for_fallback", counted)
        published = Published()
        try:
            assert await database_sync_to_async(claims_take_for_worker)(ids, task_id="t5") == ids
            decisions = [knowledge_fallback.fallback_schedule(message_id=m, publish=published) for m in ids]
            await asyncio.wait_for(asyncio.gather(*decisions), timeout=60)
        finally:
            for message_id in ids:
                await database_sync_to_async(claim_release)(message_id)
        assert checks == [ids] and published.frames == []
