"""The DuConv variant over the real socket: the model, DuConv's agent, opens; the evaluator, DuConv's
user, sees nothing of the goal, labels, chats, ends and answers. An HTTP model gets the goal and
its triples, and the triples it names are checked against what it was given."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from collect.tasktypes.modelchat.bots import GoalBot
from collect.tasktypes.modelchat.calls import APOLOGY
from collect.tasktypes.modelchat.models import ModelChat, ModelTurn
from collect.tasktypes.modelchat.selectors import modelchat_conversations
from collect.models import Message
from collect.tasktypes.duconv.models import DuConvSession
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import GOAL, Endpoint, Evaluator, http_model, seat
from tests.modelchat.test_room import next_model_message

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def dora(dc_campaign) -> Evaluator:
    return seat(dc_campaign, "dora")


async def _label(socket, seq: int) -> None:
    await send(socket, {"type": "label", "seq": seq, "problems": ["none"]})
    state = await receive_until(socket, "state")
    while str(seq) not in state["labels"]:
        state = await receive_until(socket, "state")


async def test_the_model_opens_and_the_user_sees_only_the_chat(dora: Evaluator) -> None:
    socket = await connect(f"/ws/room/{dora.room.id}/", dora.cookie)
    state = await receive_until(socket, "state")
    assert state["role"] == "apprentice" and state["status"] == "chatting" and not state["your_turn"]
    assert state["topic"] == "Free chat" and state["persona"] is None and "instruction" in state
    assert "Inception" not in json.dumps(state) and "Nolan" not in json.dumps(state)
    await send(socket, {"type": "message", "client_id": "early", "text": "Hi!"})
    error = await receive_until(socket, "error")
    assert error["code"] == "not_your_turn" and "opens the conversation" in error["message"]

    await send(socket, {"type": "sync", "after": 0})  # the evaluator is there: the model opens
    opening = await next_model_message(socket)
    assert opening["seq"] == 1 and "knowledge_used" not in opening
    await _label(socket, 1)
    for turn in range(2):
        await send(socket, {"type": "message", "client_id": f"h{turn}", "text": "Oh really? Tell me more."})
        reply = await next_model_message(socket)
        assert reply["seq"] == 2 * turn + 3
        await _label(socket, reply["seq"])
    await send(socket, {"type": "choose_topic", "topic": "Inception"})
    assert (await receive_until(socket, "error"))["code"] == "wrong_state"  # no topic to choose here
    await send(socket, {"type": "end"})
    await send(socket, {"type": "rate", "answers": {"engagingness": 5}})
    state = await receive_until(socket, "state")
    while state["status"] != "complete":
        state = await receive_until(socket, "state")
    await socket.disconnect()

    session = await DuConvSession.objects.aget(room=dora.room)
    assert session.goal == GOAL and len(session.knowledge) >= 2
    messages = [m async for m in Message.objects.filter(room=dora.room).order_by("seq")]
    assert [m.role for m in messages] == ["wizard", "apprentice"] * 2 + ["wizard"]
    assert all(m.retrieved_passages == [] for m in messages)  # nothing retrieved, nothing left to repair
    for message in messages[::2]:
        (used,) = message.knowledge_used
        assert message.text == GoalBot.sentence(session.knowledge[used])
        assert (await ModelTurn.objects.aget(message=message)).knowledge_used == [used]
    assert all(m.knowledge_used is None for m in messages[1::2])
    chat = await ModelChat.objects.aget(room=dora.room)
    assert chat.seen is True and chat.answers == {"engagingness": 5}
    (record,) = await database_sync_to_async(modelchat_conversations)(campaigns=["mc-duconv"])
    assert record.goal == GOAL and record.knowledge == session.knowledge and record.topic == "Inception"
    assert [t.speaker for t in record.turns][:2] == ["model", "human"]
    assert record.goal_completion == 2  # Inception, then the relation naming Nolan; three triples used


async def test_an_http_model_gets_the_goal_and_only_triples_it_was_given_count(dc_campaign, endpoint: Endpoint) -> None:
    await database_sync_to_async(http_model)(endpoint)
    eli = await database_sync_to_async(seat)(dc_campaign, "eli", model="owner-model")
    # Ids 0 and 1 (one as the triple itself) were given; 99, a made-up triple and a string were not.
    endpoint.respond[0] = lambda body: (200, json.dumps({
        "text": "Have you seen Inception?",
        "knowledge_used": [0, 99, body["knowledge"][1], ["Inception", "directed by", "Nobody"], "x"],
    }).encode(), 0.0)
    socket = await connect(f"/ws/room/{eli.room.id}/", eli.cookie)
    await receive_until(socket, "state")
    await send(socket, {"type": "sync", "after": 0})
    opening = await next_model_message(socket)
    assert opening["text"] == "Have you seen Inception?"

    session = await DuConvSession.objects.aget(room=eli.room)
    assert endpoint.requests == [{"history": [], "topic": "Inception", "knowledge": session.knowledge, "goal": GOAL, "language": "en"}]
    message = await Message.objects.aget(room=eli.room, seq=1)
    turn = await ModelTurn.objects.aget(message=message)
    assert message.knowledge_used == [0, 1] and turn.error == ""
    assert turn.knowledge_used[1] == 99  # what the model said is kept on its turn

    # knowledge_used of the wrong shape: a bad reply, so the partner apologises.
    endpoint.respond[0] = lambda body: (200, json.dumps({"text": "Nolan!", "knowledge_used": "Inception"}).encode(), 0.0)
    await _label(socket, 1)
    await send(socket, {"type": "message", "client_id": "h1", "text": "No, what is it?"})
    reply = await next_model_message(socket)
    await socket.disconnect()
    assert reply["text"] == APOLOGY
    assert endpoint.requests[-1]["history"] == ["Have you seen Inception?", "No, what is it?"]
    turn = await ModelTurn.objects.select_related("message").aget(message__room=eli.room, message__seq=3)
    assert turn.error.startswith("bad reply: knowledge_used must be a list") and turn.message.knowledge_used is None


async def test_the_no_knowledge_baseline_works_as_an_agent(dc_campaign) -> None:
    fay = await database_sync_to_async(seat)(dc_campaign, "fay", model="no-knowledge")
    socket = await connect(f"/ws/room/{fay.room.id}/", fay.cookie)
    await receive_until(socket, "state")
    await send(socket, {"type": "sync", "after": 0})
    opening = await next_model_message(socket)
    await socket.disconnect()
    assert "Inception" in opening["text"]  # the topic is the goal's topic A
    turn = await ModelTurn.objects.select_related("message").aget(message__room=fay.room)
    assert turn.error == "" and turn.message.knowledge_used is None
