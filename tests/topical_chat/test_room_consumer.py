"""The Topical-Chat room through the real ASGI stack: alice is agent_1, bob agent_2, charlie an
outsider. Each refused frame is checked to have stored nothing: no message, no turn, no rating."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from collect.models import Message, Room, RoomStatus
from collect.tasktypes.topical_chat.models import TopicalConversation, TopicalTurn
from tests.collect.conftest import session_cookie
from tests.collect.ws import connect, receive_ack, receive_until, send
from tests.topical_chat.conftest import ENTITIES, TopicalRoom, make_campaign, make_room

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def path(paired: TopicalRoom) -> str:
    return f"/ws/room/{paired.room.id}/"


async def join(paired: TopicalRoom, seat) -> tuple[Any, dict, dict]:
    """A member's socket, their first state and their reading set (sent with a sync, as to the page)."""
    communicator = await connect(path(paired), seat.cookie)
    state = await receive_until(communicator, "state")
    await send(communicator, {"type": "sync", "after": 0})
    reading = await receive_until(communicator, "reading_set")
    return communicator, state, reading


async def both(paired: TopicalRoom) -> tuple[Any, Any]:
    first, _, _ = await join(paired, paired.first)
    second, _, _ = await join(paired, paired.second)
    return first, second


async def say(communicator: Any, text: str, client_id: str, **fields: Any) -> dict:
    await send(communicator, {"type": "message", "client_id": client_id, "text": text, **fields})
    return await receive_ack(communicator, client_id)


@database_sync_to_async
def stored(paired: TopicalRoom) -> list[tuple[int, str, list[str], str, str]]:
    """(seq, text, knowledge_source, sentiment, turn_rating) of every message, in order."""
    turns = {t.seq: t for t in TopicalTurn.objects.filter(room=paired.room)}
    rows = []
    for message in Message.objects.filter(room=paired.room).order_by("seq"):
        turn = turns.pop(message.seq)
        rows.append((message.seq, message.text, turn.knowledge_source, turn.sentiment, turn.turn_rating))
    assert turns == {}, f"turns without a message: {sorted(turns)}"
    return rows


@database_sync_to_async
def conversation_of(paired: TopicalRoom) -> TopicalConversation:
    return TopicalConversation.objects.get(room=paired.room)


@database_sync_to_async
def status_of(paired: TopicalRoom) -> str:
    return Room.objects.get(pk=paired.room.pk).status


async def close(*communicators: Any) -> None:
    for communicator in communicators:
        await communicator.disconnect()


FIRST = {"knowledge_source": ["FS2", "Personal Knowledge"], "sentiment": "Curious to dive deeper"}


async def test_each_partner_sees_their_own_reading_set_and_not_the_configuration(paired: TopicalRoom) -> None:
    first, state, mine = await join(paired, paired.first)
    second, _, theirs = await join(paired, paired.second)
    assert state["status"] == "chatting" and state["first_speaker"] == "agent_1" and state["topic"] == "Jazz"
    assert state["turn_to_rate"] is None and "config" not in state
    # Configuration B: the same entities and fun facts; agent_1 the shortened lead, agent_2 the summarized one.
    assert [f["entity"] for f in mine["facts"]] == [f["entity"] for f in theirs["facts"]] == ENTITIES
    assert {f["wiki_kind"] for f in mine["facts"]} == {"shortened"} and {f["wiki_kind"] for f in theirs["facts"]} == {"summarized"}
    assert [f["fun_facts"] for f in mine["facts"]] == [f["fun_facts"] for f in theirs["facts"]]
    assert mine["article"]["headline"] == "Jazz" and [s["key"] for s in mine["article"]["sections"]] == ["AS1", "AS2", "AS3", "AS4"]
    assert mine["sources"] == ["FS1", "FS2", "FS3", "AS1", "AS2", "AS3", "AS4", "Personal Knowledge"]
    assert "config" not in mine
    await close(first, second)


async def test_it_refuses_an_outsider_and_a_socket_without_a_session(paired: TopicalRoom) -> None:
    outsider = await connect(path(paired), await database_sync_to_async(session_cookie)(paired.outsider))
    assert (await outsider.receive_json_from())["code"] == "not_member"
    assert (await outsider.receive_output())["code"] == 4403
    anonymous = await connect(path(paired), None)
    assert (await anonymous.receive_json_from())["code"] == "not_member"
    assert await stored(paired) == []


async def test_a_message_carries_its_marks_and_the_reply_rates_it(paired: TopicalRoom) -> None:
    first, second = await both(paired)
    await say(first, "Do you like jazz? Louis Armstrong was one of its first stars.", "a1", **FIRST)
    relayed = await receive_until(second, "message")
    # The partner sees the message, not what its sender marked.
    assert relayed["text"].startswith("Do you like jazz?") and "knowledge_source" not in relayed and "sentiment" not in relayed
    await say(second, "I do! He recorded What a Wonderful World in 1967.", "b1",
              knowledge_source=["FS2"], sentiment="Happy", turn_rating="Good")
    assert await stored(paired) == [
        (1, "Do you like jazz? Louis Armstrong was one of its first stars.", ["FS2", "Personal Knowledge"], "Curious to dive deeper", "Good"),
        (2, "I do! He recorded What a Wonderful World in 1967.", ["FS2"], "Happy", ""),
    ]
    # A member who comes back gets their own marks, and the ratings they gave, on the messages.
    again = await connect(path(paired), paired.second.cookie)
    await send(again, {"type": "sync", "after": 0})
    one, two = await receive_until(again, "message"), await receive_until(again, "message")
    assert one["seq"] == 1 and one["turn_rating"] == "Good" and "sentiment" not in one
    assert two["seq"] == 2 and two["knowledge_source"] == ["FS2"] and two["sentiment"] == "Happy"
    await close(first, second, again)


async def test_the_marks_are_stored_in_the_releases_order(paired: TopicalRoom) -> None:
    first, second = await both(paired)
    await say(first, "Hi!", "a1", knowledge_source=["Personal Knowledge", "FS3", "AS1"], sentiment="Neutral")
    assert (await stored(paired))[0][2] == ["AS1", "FS3", "Personal Knowledge"]
    await close(first, second)


LONG = "x" * 5000


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"sentiment": "Happy"}, "knowledge_source_required"),
        ({"knowledge_source": [], "sentiment": "Happy"}, "knowledge_source_required"),
        ({"knowledge_source": "FS1", "sentiment": "Happy"}, "bad_knowledge_source"),
        ({"knowledge_source": [1], "sentiment": "Happy"}, "bad_knowledge_source"),
        ({"knowledge_source": ["FS9"], "sentiment": "Happy"}, "bad_knowledge_source"),
        ({"knowledge_source": ["personal knowledge"], "sentiment": "Happy"}, "bad_knowledge_source"),
        ({"knowledge_source": ["FS1", "FS1"], "sentiment": "Happy"}, "bad_knowledge_source"),
        ({"knowledge_source": ["FS1\x1b[31m"], "sentiment": "Happy"}, "bad_knowledge_source"),
        ({"knowledge_source": [LONG], "sentiment": "Happy"}, "bad_knowledge_source"),
        ({"knowledge_source": ["FS1"]}, "sentiment_required"),
        ({"knowledge_source": ["FS1"], "sentiment": "Curious to Dive Deeper"}, "bad_sentiment"),  # the README's spelling
        ({"knowledge_source": ["FS1"], "sentiment": "Happy\x07"}, "bad_sentiment"),
        ({"knowledge_source": ["FS1"], "sentiment": ["Happy"]}, "bad_sentiment"),
        ({"knowledge_source": ["FS1"], "sentiment": "Happy", "turn_rating": "Good"}, "bad_turn_rating"),  # nothing to rate yet
    ],
)
async def test_it_refuses_a_first_message_with_bad_marks(paired: TopicalRoom, fields: dict, code: str) -> None:
    first, second = await both(paired)
    await send(first, {"type": "message", "client_id": "a1", "text": "Hello there", **fields})
    refused = await receive_until(first, "error")
    assert refused["code"] == code and refused["client_id"] == "a1"
    assert len(refused["message"]) < 400  # a long value is not quoted back whole
    assert await stored(paired) == []
    await close(first, second)


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({}, "turn_rating_required"),
        ({"turn_rating": "good"}, "bad_turn_rating"),
        ({"turn_rating": "Very good"}, "bad_turn_rating"),
        ({"turn_rating": 4}, "bad_turn_rating"),
        ({"turn_rating": "Good\x00"}, "bad_frame"),  # NUL: refused for every frame (collect/frames.py)
    ],
)
async def test_it_refuses_a_reply_without_a_good_rating_of_the_message_it_answers(paired: TopicalRoom, fields: dict, code: str) -> None:
    first, second = await both(paired)
    await say(first, "Hello there", "a1", **FIRST)
    await send(second, {"type": "message", "client_id": "b1", "text": "Hi", "knowledge_source": ["FS1"], "sentiment": "Happy", **fields})
    assert (await receive_until(second, "error"))["code"] == code
    assert [row[4] for row in await stored(paired)] == [""]  # message 1 still unrated, no message 2
    await close(first, second)


async def test_it_refuses_a_lone_surrogate_in_any_mark(paired: TopicalRoom) -> None:
    first, second = await both(paired)
    for field in ("knowledge_source", "sentiment"):
        value = '["FS1\\ud800"]' if field == "knowledge_source" else '"Happy\\udc00"'
        other = '"sentiment": "Happy"' if field == "knowledge_source" else '"knowledge_source": ["FS1"]'
        raw = f'{{"type": "message", "client_id": "a-{field}", "text": "Hello", "{field}": {value}, {other}}}'
        await first.send_to(text_data=raw)
        refused = await receive_until(first, "error")
        assert refused["code"] == "bad_frame" and "surrogate" in refused["message"]
    assert await stored(paired) == []
    await close(first, second)


async def test_the_article_is_not_a_source_where_it_is_not_shown(jazz_source) -> None:
    paired = await database_sync_to_async(make_room)(await database_sync_to_async(make_campaign)(jazz_source, configs=["C"]))
    first, state, reading = await join(paired, paired.first)
    assert reading["article"] is None and reading["sources"] == ["FS1", "FS2", "FS3", "Personal Knowledge"]
    await send(first, {"type": "message", "client_id": "a1", "text": "Hi", "knowledge_source": ["AS1"], "sentiment": "Happy"})
    refused = await receive_until(first, "error")
    assert refused["code"] == "bad_knowledge_source" and "'AS1' is not in your reading set" in refused["message"]
    assert await stored(paired) == []
    await close(first)


async def test_a_conversation_ends_with_both_ratings_and_the_last_messages(paired: TopicalRoom) -> None:
    first, second = await both(paired)
    await say(first, "One", "a1", **FIRST)
    await say(second, "Two", "b1", knowledge_source=["FS1"], sentiment="Neutral", turn_rating="Excellent")
    await say(first, "Three", "a2", knowledge_source=["AS2"], sentiment="Surprised", turn_rating="Passable")
    await say(second, "Four", "b2", knowledge_source=["FS3"], sentiment="Sad", turn_rating="Not Good")
    await send(first, {"type": "end", "client_id": "end-1"})
    for communicator in (first, second):
        while (state := await receive_until(communicator, "state"))["status"] != "rating":
            pass
        owes = communicator is first
        assert state["turn_to_rate"] == (4 if owes else None)  # agent_1 received the last message
    # agent_1 owes the last message's rating; agent_2 has none to give.
    await send(first, {"type": "rate", "client_id": "r1", "conversation_rating": "Good"})
    assert (await receive_until(first, "error"))["code"] == "turn_rating_required"
    await send(second, {"type": "rate", "client_id": "r2", "conversation_rating": "Good", "turn_rating": "Poor"})
    assert (await receive_until(second, "error"))["code"] == "bad_turn_rating"
    for bad in ({"conversation_rating": 5}, {"conversation_rating": "great"}, {"conversation_rating": "Good\x1b[0m"},
                {"conversation_rating": "Good", "turn_rating": "Bad"}, {}):
        await send(first, {"type": "rate", **bad})
        assert (await receive_until(first, "error"))["code"] == "bad_rating", bad
    await first.send_to(text_data='{"type": "rate", "conversation_rating": "Good\\ud800", "turn_rating": "Good"}')
    assert (await receive_until(first, "error"))["code"] == "bad_frame"
    conversation = await conversation_of(paired)
    assert (conversation.rating_agent_1, conversation.rating_agent_2) == ("", "")
    assert [row[4] for row in await stored(paired)] == ["Excellent", "Passable", "Not Good", ""]

    await send(first, {"type": "rate", "client_id": "r3", "conversation_rating": "Excellent", "turn_rating": "Good"})
    await send(second, {"type": "rate", "client_id": "r4", "conversation_rating": "Passable"})
    while (await receive_until(second, "state"))["status"] != "complete":
        pass
    conversation = await conversation_of(paired)
    assert (conversation.rating_agent_1, conversation.rating_agent_2) == ("Excellent", "Passable")
    assert [row[4] for row in await stored(paired)] == ["Excellent", "Passable", "Not Good", "Good"]
    assert await status_of(paired) == RoomStatus.COMPLETE
    await close(first, second)
