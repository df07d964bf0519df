"""A page resends a frame it has no acknowledgement for. A copy that reaches the socket which has
already applied and answered it (the answer was still on its way: a slow server) is only answered
again, from that socket's memory: no database work, no broadcast. A copy on another socket (the page
reconnected after a process died) takes the full path, which repairs what the dead process left."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from prometheus_client import REGISTRY

from collect.models import Message
from collect.tasktypes.wow import protocol as wow
from tests.collect.conftest import PairedRoom, make_room
from tests.collect.test_room_repair import synced
from tests.collect.ws import receive_ack, receive_until, send

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]
NONE_USED = {"no_passages_used": True}


@pytest.fixture
def chatting(campaign) -> PairedRoom:
    return make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")


def resends(answered: str) -> float:
    return REGISTRY.get_sample_value("groundwork_resends_total", {"answered": answered}) or 0.0


async def frames_before_pong(communicator) -> list[dict]:
    """Everything this socket is sent before the answer to a ping sent now (frames come in order)."""
    await send(communicator, {"type": "ping"})
    frames = []
    while (frame := await communicator.receive_json_from(timeout=3))["type"] != "pong":
        frames.append(frame)
    return frames


async def stored_and_settled(paired: PairedRoom, frame: dict):
    """Both members' sockets, after the wizard's message was stored, acknowledged, delivered, and
    every frame it led to was sent."""
    wizard, apprentice = await synced(paired, paired.wizard), await synced(paired, paired.apprentice)
    await send(wizard, frame)
    assert (await receive_ack(wizard, frame["client_id"]))["type"] == "message"
    assert (await receive_until(apprentice, "message"))["seq"] == 1
    await frames_before_pong(apprentice)
    await frames_before_pong(wizard)
    return wizard, apprentice


async def test_a_copy_of_a_message_on_the_socket_that_stored_it_is_only_acked_again(chatting: PairedRoom) -> None:
    frame = {"type": "message", "client_id": "w1", "text": "Six strings!", "checked": NONE_USED}
    wizard, apprentice = await stored_and_settled(chatting, frame)
    socket_before, database_before = resends("socket"), resends("database")

    await send(wizard, frame)
    assert await frames_before_pong(wizard) == [{"type": "ack", "client_id": "w1", "seq": 1}]
    # No catch-up broadcast: the partner's socket is sent nothing, not even the state again.
    assert await frames_before_pong(apprentice) == []
    assert (resends("socket") - socket_before, resends("database") - database_before) == (1, 0)
    assert await database_sync_to_async(Message.objects.filter(room=chatting.room).count)() == 1
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_copy_of_a_message_on_a_new_socket_is_looked_up_and_the_partner_is_caught_up(chatting: PairedRoom) -> None:
    frame = {"type": "message", "client_id": "w1", "text": "Six strings!", "checked": NONE_USED}
    wizard, apprentice = await stored_and_settled(chatting, frame)
    await wizard.disconnect()  # the page lost its socket before the acknowledgement reached it
    wizard = await synced(chatting, chatting.wizard, after=0)
    await frames_before_pong(wizard)
    await frames_before_pong(apprentice)
    database_before = resends("database")

    await send(wizard, frame)
    assert await frames_before_pong(wizard) == [{"type": "ack", "client_id": "w1", "seq": 1}]
    assert [f["type"] for f in await frames_before_pong(apprentice)] == ["state"]  # the catch-up
    assert resends("database") - database_before == 1
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_refused_frame_is_not_remembered_and_its_copy_is_applied_once_it_may_be(chatting: PairedRoom) -> None:
    wizard, apprentice = await synced(chatting, chatting.wizard), await synced(chatting, chatting.apprentice)
    early = {"type": "message", "client_id": "a1", "text": "Me first"}
    await send(apprentice, early)
    assert (await receive_until(apprentice, "error"))["code"] == "not_your_turn"
    await send(wizard, {"type": "message", "client_id": "w1", "text": "Six strings!", "checked": NONE_USED})
    await receive_ack(wizard, "w1")
    await send(apprentice, early)  # a copy of the refused frame, now in turn
    own = await receive_ack(apprentice, "a1")
    assert (own["type"], own["seq"], own["text"]) == ("message", 2, "Me first")
    await wizard.disconnect()
    await apprentice.disconnect()
