"""A model reply lost with a process that died mid-call is asked for again when the evaluator's
page resyncs, once the model's time is up; before that, a resync asks nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from collect.tasktypes.modelchat.models import ModelTurn
from collect.models import Message
from collect.services import rooms
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import Evaluator

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def human_message_without_reply(evaluator: Evaluator, *, age_seconds: float) -> None:
    """The evaluator's message stored, as if the process died before the model's turn."""
    rooms.room_act(room_id=evaluator.room.id, assignment=evaluator.assignment, name="choose_topic", frame={"topic": "Guitar"})
    posted = rooms.message_post(room_id=evaluator.room.id, assignment=evaluator.assignment, client_id="h1", text="Hello?", frame={})
    Message.objects.filter(pk=posted.message.pk).update(created=timezone.now() - timedelta(seconds=age_seconds))


async def test_a_resync_asks_again_for_a_lost_reply(dana: Evaluator) -> None:
    await human_message_without_reply(dana, age_seconds=60)  # kb-retrieval: 5 s × 2 attempts + 5 s
    socket = await connect(f"/ws/room/{dana.room.id}/", dana.cookie)
    await send(socket, {"type": "sync", "after": 0})
    while (frame := await receive_until(socket, "message", timeout=10))["role"] != "wizard":
        pass
    await socket.disconnect()
    assert frame["seq"] == 2 and await ModelTurn.objects.acount() == 1


async def test_a_resync_waits_while_the_reply_may_still_come(dana: Evaluator) -> None:
    await human_message_without_reply(dana, age_seconds=1)
    socket = await connect(f"/ws/room/{dana.room.id}/", dana.cookie)
    await send(socket, {"type": "sync", "after": 0})
    assert (await receive_until(socket, "message"))["role"] == "apprentice"  # the evaluator's own, resent by the sync
    await receive_until(socket, "state")
    assert await socket.receive_nothing(timeout=1.5)
    await socket.disconnect()
    assert await Message.objects.acount() == 1
