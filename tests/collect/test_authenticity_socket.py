"""Authenticity through the room socket: the record is stored with the message, a missing or bad
one never refuses it, and the campaign's copy rule refuses a whole knowledge sentence, saying why."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from collect.models import Campaign, Message, Room
from collect.tasktypes.wow import protocol as wow
from tests.collect.conftest import PairedRoom, make_room
from tests.collect.ws import connect, receive_ack, receive_until, send

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]

CHECKED = {"source": "chosen", "passage": 0, "sentence": 1}
SENTENCE = "It is played by strumming or plucking the strings with the fingers or a pick."


@pytest.fixture
def chatting(campaign: Campaign) -> PairedRoom:
    return make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")


@database_sync_to_async
def stored(room: Room) -> list[Message]:
    return list(Message.objects.filter(room=room).order_by("seq"))


@database_sync_to_async
def policy_set(campaign_id: int, policy: dict) -> None:
    Campaign.objects.filter(pk=campaign_id).update(authenticity_policy=policy)


async def wizard_socket(paired: PairedRoom):
    communicator = await connect(f"/ws/room/{paired.room.id}/", paired.wizard.cookie)
    await receive_until(communicator, "state")
    return communicator


async def test_the_pages_record_is_stored_with_the_message(chatting: PairedRoom) -> None:
    wizard = await wizard_socket(chatting)
    record = {"v": 1, "compose_ms": 5000, "typing_ms": 4000, "typed_chars": 25, "paste": {}, "hidden_ms": 0,
              "panel_ms": 5000, "passages": ["Guitar"], "compositions": 0}
    await send(wizard, {"type": "message", "client_id": "m1", "text": "Guitars have six strings!", "checked": CHECKED, "authenticity": record})
    await receive_ack(wizard, "m1")
    [message] = await stored(chatting.room)
    assert message.authenticity["client_status"] == "ok"
    assert message.authenticity["client"]["typed_chars"] == 25 and message.authenticity["server"]["chars"] == 25
    await wizard.disconnect()


@pytest.mark.parametrize(
    ("record", "status"),
    [(None, "absent"), ("forged", "invalid"), ({"v": 1, "typed_chars": -3, "typing_ms": [1]}, "invalid")],
)
async def test_a_missing_or_bad_record_never_refuses_the_message(chatting: PairedRoom, record: object, status: str) -> None:
    wizard = await wizard_socket(chatting)
    frame = {"type": "message", "client_id": "m1", "text": "Guitars have six strings!", "checked": CHECKED}
    if record is not None:
        frame["authenticity"] = record
    await send(wizard, frame)
    acked = await receive_ack(wizard, "m1")
    assert acked["seq"] == 1
    [message] = await stored(chatting.room)
    assert message.authenticity["client"] is None and message.authenticity["client_status"] == status
    assert message.authenticity["reason"]
    await wizard.disconnect()


async def test_the_copy_rule_refuses_a_whole_knowledge_sentence_and_says_why(chatting: PairedRoom) -> None:
    await policy_set(chatting.room.campaign_id, {"wizard": {"copy": "refuse"}})
    wizard = await wizard_socket(chatting)
    await send(wizard, {"type": "message", "client_id": "m1", "text": f"Well, {SENTENCE.lower()}", "checked": CHECKED})
    error = await receive_until(wizard, "error")
    assert error["code"] == "knowledge_copied" and error["client_id"] == "m1"
    assert "in your own words" in error["message"]
    assert await stored(chatting.room) == []
    # The same facts in the worker's own words go through.
    await send(wizard, {"type": "message", "client_id": "m2", "text": "You strum or pluck it, with fingers or a pick.", "checked": CHECKED})
    assert (await receive_ack(wizard, "m2"))["seq"] == 1
    await wizard.disconnect()


async def test_without_the_copy_rule_a_copied_sentence_is_stored(chatting: PairedRoom) -> None:
    wizard = await wizard_socket(chatting)
    await send(wizard, {"type": "message", "client_id": "m1", "text": SENTENCE, "checked": CHECKED})
    assert (await receive_ack(wizard, "m1"))["seq"] == 1
    await wizard.disconnect()
