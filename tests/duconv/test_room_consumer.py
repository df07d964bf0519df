"""A DuConv room through the real ASGI stack: bob is the agent, alice the user. Every refused frame
is checked to have stored nothing."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from collect.models import Message, RoomStatus
from collect.tasktypes.duconv.models import DuConvSession
from tests.collect.ws import connect, receive_until, send
from tests.collect.conftest import DuConvRoom
from tests.duconv.conftest import GOAL

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


async def join(paired: DuConvRoom, seat) -> tuple[Any, dict]:
    communicator = await connect(f"/ws/room/{paired.room.id}/", seat.cookie)
    # Generous: the first connection of a run opens the Redis layer and database on a busy machine.
    state = await receive_until(communicator, "state", timeout=15)
    return communicator, state


@database_sync_to_async
def stored(paired: DuConvRoom) -> list[Message]:
    return list(Message.objects.filter(room=paired.room).order_by("seq"))


@database_sync_to_async
def session(paired: DuConvRoom) -> DuConvSession:
    return DuConvSession.objects.select_related("room").get(room=paired.room)


async def say(communicator: Any, text: str, client_id: str, **fields: Any) -> dict:
    await send(communicator, {"type": "message", "client_id": client_id, "text": text, **fields})
    while True:
        frame = await communicator.receive_json_from(timeout=3)
        if frame["type"] == "error" or (frame["type"] in ("message", "ack") and frame.get("client_id") == client_id):
            return frame  # the message coming back is its acknowledgement


async def test_the_agent_sees_the_goal_and_the_user_only_the_chat(paired: DuConvRoom) -> None:
    agent, agent_state = await join(paired, paired.agent)
    user, user_state = await join(paired, paired.user)
    assert agent_state["goal_path"] == GOAL[0] and agent_state["your_turn"]
    assert "goal_path" not in user_state and user_state["instruction"] and not user_state["your_turn"]
    await send(agent, {"type": "sync", "after": 0})
    goal = await receive_until(agent, "goal")
    assert goal["path"] == GOAL[0] and goal["relations"] == GOAL[1:]
    assert [e["entity"] for e in goal["entities"]][:2] == ["Inception", "Christopher Nolan"]
    await send(user, {"type": "sync", "after": 0})
    await receive_until(user, "state")
    await send(user, {"type": "ping"})
    assert (await receive_until(user, "pong"))["type"] == "pong"  # no goal frame came before it
    await agent.disconnect()
    await user.disconnect()


async def test_a_full_chat_marks_triples_ends_and_is_rated(paired: DuConvRoom) -> None:
    agent, _ = await join(paired, paired.agent)
    user, _ = await join(paired, paired.user)
    s = await session(paired)
    director = next(i for i, t in enumerate(s.knowledge) if t[1] == "directed by" and t[0] == "Inception")
    year = next(i for i, t in enumerate(s.knowledge) if t[1] == "release year" and t[0] == "Inception")
    assert (await say(agent, "你看过《Inception》吗？2010年的电影。", "a1", knowledge_used=[year]))["seq"] == 1
    relayed = await receive_until(user, "message")
    assert relayed["text"] == "你看过《Inception》吗？2010年的电影。" and "knowledge_used" not in relayed
    await say(user, "看过，很好看！", "u1")
    await say(agent, "It was directed by Christopher Nolan.", "a2", knowledge_used=[director])
    # Resending the same client id stores nothing new and re-acks the same seq.
    assert (await say(agent, "It was directed by Christopher Nolan.", "a2", knowledge_used=[director]))["seq"] == 3
    await send(agent, {"type": "end"})
    assert (await receive_until(agent, "error"))["code"] == "too_early_to_end"  # user has spoken once
    await say(user, "他还拍了什么？", "u2")
    await send(user, {"type": "end"})
    assert (await receive_until(user, "error"))["code"] == "not_allowed"
    await send(agent, {"type": "end"})
    while (await receive_until(user, "state"))["status"] != RoomStatus.RATING:
        pass
    await send(user, {"type": "rate", "rating": 4})
    while (await receive_until(user, "state"))["status"] != RoomStatus.COMPLETE:
        pass
    messages = await stored(paired)
    assert [m.knowledge_used for m in messages] == [[year], None, [director], None]
    assert (await session(paired)).user_rating == 4
    await agent.disconnect()
    await user.disconnect()


async def test_the_agent_cannot_end_before_both_topics_were_mentioned(paired: DuConvRoom) -> None:
    agent, _ = await join(paired, paired.agent)
    user, _ = await join(paired, paired.user)
    for n in range(2):
        await say(agent, "Do you like Inception?", f"a{n}")
        await say(user, "Yes.", f"u{n}")
    await send(agent, {"type": "end"})
    error = await receive_until(agent, "error")
    assert error["code"] == "too_early_to_end" and "Christopher Nolan" in error["message"]
    assert (await session(paired)).room.status == RoomStatus.CHATTING
    await agent.disconnect()
    await user.disconnect()


@pytest.mark.parametrize(
    ("who", "frame", "code"),
    [
        ("user", {"text": "我先说！"}, "not_your_turn"),  # a non-agent speaking first
        ("agent", {"text": "你好", "knowledge_used": [999]}, "bad_triple"),  # a triple not shown
        ("agent", {"text": "你好", "knowledge_used": ["0"]}, "bad_frame"),
    ],
)
async def test_bad_messages_are_refused_and_store_nothing(paired: DuConvRoom, who: str, frame: dict, code: str) -> None:
    communicator, _ = await join(paired, getattr(paired, who))
    error = await say(communicator, client_id="c1", **frame)
    assert error["type"] == "error" and error["code"] == code and error["message"]
    assert await stored(paired) == []
    await communicator.disconnect()


async def test_a_user_who_speaks_first_is_told_the_agent_opens(paired: DuConvRoom) -> None:
    user, _ = await join(paired, paired.user)
    error = await say(user, "我先说！", "u1")
    assert error["code"] == "not_your_turn" and "The agent opens the conversation" in error["message"]
    assert await stored(paired) == []
    await user.disconnect()


async def test_a_user_cannot_mark_triples(paired: DuConvRoom) -> None:
    agent, _ = await join(paired, paired.agent)
    user, _ = await join(paired, paired.user)
    await say(agent, "你好！", "a1")
    error = await say(user, "你好", "u1", knowledge_used=[0])
    assert error["code"] == "not_allowed" and "Only the agent" in error["message"]
    assert len(await stored(paired)) == 1
    await agent.disconnect()
    await user.disconnect()


async def test_an_outsider_is_refused(paired: DuConvRoom) -> None:
    from tests.collect.conftest import session_cookie

    cookie = await database_sync_to_async(session_cookie)(paired.outsider)
    communicator = await connect(f"/ws/room/{paired.room.id}/", cookie)
    assert (await receive_until(communicator, "error"))["code"] == "not_member"
    await communicator.disconnect()

