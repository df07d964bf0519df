"""A model chat over the real socket: the evaluator picks a topic, chats with the built-in
knowledgeable bot, labels its turns, ends and answers; the selectors give the record back."""

from __future__ import annotations

import pytest

from collect.tasktypes.modelchat.models import ModelChat, ModelTurn
from collect.tasktypes.modelchat.selectors import modelchat_conversations
from collect.models import Message
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import Evaluator

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


async def next_model_message(socket) -> dict:
    while True:
        frame = await receive_until(socket, "message", timeout=10)
        if frame["role"] == "wizard":
            return frame


async def test_a_model_chat_from_topic_to_answers(dana: Evaluator) -> None:
    socket = await connect(f"/ws/room/{dana.room.id}/", dana.cookie)
    state = await receive_until(socket, "state")
    assert state["role"] == "apprentice" and state["status"] == "choosing_topic"
    assert state["persona"]["topics"] == ["Guitar", "Blues"]
    assert [p["key"] for p in state["problems"]][:2] == ["contradiction", "repetitive"]
    await send(socket, {"type": "choose_topic", "topic": "Blues"})
    state = await receive_until(socket, "state")
    assert state["status"] == "chatting" and state["your_turn"]

    for turn in range(2):
        await send(socket, {"type": "message", "client_id": f"h{turn}", "text": "Where does the blues come from?"})
        reply = await next_model_message(socket)
        assert reply["seq"] == 2 * turn + 2
        if turn == 0:
            # Before labelling the model's message, the evaluator may not go on.
            await send(socket, {"type": "message", "client_id": "early", "text": "And then?"})
            assert (await receive_until(socket, "error"))["code"] == "label_required"
        await send(socket, {"type": "label", "seq": reply["seq"], "problems": ["none"] if turn else ["repetitive"]})
    state = await receive_until(socket, "state")
    while not state["can_end"]:
        state = await receive_until(socket, "state")
    await send(socket, {"type": "end"})
    for bad in ({"engagingness": 6}, {"engagingness": 0}, {"engagingness": "4"}, {"engagingness": True}, {}, {"engagingness": 4, "fun": 2}):
        await send(socket, {"type": "rate", "answers": bad})
        assert (await receive_until(socket, "error"))["code"] == "bad_rating", bad
    await send(socket, {"type": "rate", "rating": 4})  # the WoW form is not this protocol's
    assert (await receive_until(socket, "error"))["code"] == "bad_rating"
    assert await ModelChat.objects.filter(answers__isnull=False).acount() == 0
    await send(socket, {"type": "rate", "answers": {"engagingness": 4}})
    state = await receive_until(socket, "state")
    while state["status"] != "complete":
        state = await receive_until(socket, "state")
    await socket.disconnect()

    chat = await ModelChat.objects.select_related("room").aget(room=dana.room)
    assert chat.seen is False and chat.answers == {"engagingness": 4} and chat.room.rating == 4
    (record,) = await _records()
    assert record.model == "kb-retrieval" and record.arm == "model" and record.topic == "Blues"
    assert [t.speaker for t in record.turns] == ["human", "model", "human", "model"]
    assert record.turn_problems == [("repetitive",), ("none",)]
    assert len(record.latencies_ms) == 2 and all(t.error == "" for t in record.turns)
    # The knowledgeable bot answers with knowledge sentences, stored as a wizard's checked sentence.
    assert all(t.checked_sentence == t.text for t in record.turns if t.speaker == "model")


async def _records():
    from channels.db import database_sync_to_async

    return await database_sync_to_async(modelchat_conversations)()


async def test_labels_go_on_model_messages_only(dana: Evaluator) -> None:
    socket = await connect(f"/ws/room/{dana.room.id}/", dana.cookie)
    await send(socket, {"type": "choose_topic", "topic": "Guitar"})
    await send(socket, {"type": "message", "client_id": "h0", "text": "Do you play the guitar?"})
    reply = await next_model_message(socket)
    for frame, code in (
        ({"type": "label", "seq": 1, "problems": ["none"]}, "bad_label"),  # the evaluator's own message
        ({"type": "label", "seq": reply["seq"], "problems": []}, "bad_label"),  # "none" must be explicit
        ({"type": "label", "seq": reply["seq"], "problems": ["none", "repetitive"]}, "bad_label"),
        ({"type": "label", "seq": reply["seq"], "problems": ["rude"]}, "bad_label"),
        ({"type": "label", "seq": 99, "problems": ["none"]}, "bad_label"),
        ({"type": "label", "seq": 2**64, "problems": ["none"]}, "bad_frame"),  # past any seq there can be
        ({"type": "rate", "answers": {"engagingness": 3}}, "wrong_state"),  # before the minimum turns
    ):
        await send(socket, frame)
        error = await receive_until(socket, "error")
        assert error["code"] == code, frame
    await socket.disconnect()
    assert await ModelTurn.objects.filter(problems__isnull=False).acount() == 0
    assert await ModelChat.objects.filter(answers__isnull=False).acount() == 0
    assert await Message.objects.acount() == 2
