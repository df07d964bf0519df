"""The Curiosity room through the real ASGI stack: alice is the user, bob the assistant, charlie an
outsider. Each refused frame is checked to have stored nothing."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from collect.models import Message, Room, RoomStatus
from collect.tasktypes.curiosity.models import CuriosityDialog
from tests.collect.conftest import session_cookie
from tests.collect.ws import connect, receive_ack, receive_until, send
from tests.collect.conftest import CuriosityRoom

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def path(paired: CuriosityRoom) -> str:
    return f"/ws/room/{paired.room.id}/"


async def join(paired: CuriosityRoom, seat) -> Any:
    communicator = await connect(path(paired), seat.cookie)
    await receive_until(communicator, "state")
    return communicator


@database_sync_to_async
def dialog_of(paired: CuriosityRoom) -> CuriosityDialog:
    return CuriosityDialog.objects.get(room=paired.room)


@database_sync_to_async
def messages(paired: CuriosityRoom) -> list[Message]:
    return list(Message.objects.filter(room=paired.room).order_by("seq"))


@database_sync_to_async
def room_status(paired: CuriosityRoom) -> str:
    return Room.objects.get(pk=paired.room.pk).status


async def chatting(paired: CuriosityRoom, known: int = 2) -> tuple[Any, Any, dict]:
    """Both connected, the user has marked `known` entities; returns (user, assistant, facts frame)."""
    user, assistant = await join(paired, paired.user), await join(paired, paired.assistant)
    # Germany alone is mentioned by five facts: three rooted facts are always there to show.
    await send(user, {"type": "mark_known", "entities": ["Germany", "South Africa", "Windhoek"][:known]})
    await receive_until(user, "state")
    facts = await receive_until(assistant, "facts")
    return user, assistant, facts


async def say(communicator: Any, text: str, client_id: str, **fields: Any) -> dict:
    await send(communicator, {"type": "message", "client_id": client_id, "text": text, **fields})
    return await receive_ack(communicator, client_id)


async def until_status(communicator: Any, status: str) -> dict:
    while True:
        state = await receive_until(communicator, "state")
        if state["status"] == status:
            return state


async def error(communicator: Any) -> dict:
    return await receive_until(communicator, "error")


async def close(*communicators: Any) -> None:
    for communicator in communicators:
        await communicator.disconnect()


async def test_it_shows_the_user_the_entities_and_the_assistant_the_summary(paired: CuriosityRoom) -> None:
    user = await connect(path(paired), paired.user.cookie)
    assistant = await connect(path(paired), paired.assistant.cookie)
    mine, theirs = await receive_until(user, "state"), await receive_until(assistant, "state")
    dialog = await dialog_of(paired)
    assert mine["status"] == theirs["status"] == "preparing"
    assert mine["first_speaker"] == "user" and mine["topic"] == "Namibia"
    assert mine["related_entities"] == dialog.related_entities and len(dialog.related_entities) == 13
    assert mine["aspects"] == dialog.aspects and len(dialog.aspects) == 2 and not mine["can_switch"]
    assert theirs["summary"].startswith("Namibia is a country") and "aspects" not in theirs
    assert "related_entities" not in theirs and "known_entities" not in theirs
    await close(user, assistant)


async def test_it_refuses_an_outsider(paired: CuriosityRoom) -> None:
    outsider = await connect(path(paired), await database_sync_to_async(session_cookie)(paired.outsider))
    assert (await outsider.receive_json_from())["code"] == "not_member"


async def test_it_opens_the_chat_once_the_user_marks_what_they_know(paired: CuriosityRoom) -> None:
    user, assistant, facts = await chatting(paired, known=3)
    dialog = await dialog_of(paired)
    assert sorted(dialog.known_entities) == ["Germany", "South Africa", "Windhoek"] and dialog.marked_at is not None
    assert dialog.first_aspect == dialog.aspects[0] and dialog.second_aspect is None
    assert await room_status(paired) == RoomStatus.CHATTING
    assert facts["after_seq"] == 0 and len(facts["facts"]) == 9
    # Each fact with where it comes from and what it is read after; its category is not revealed.
    assert all(set(f) == {"fid", "text", "article", "section", "context"} for f in facts["facts"])
    assert {f["article"] for f in facts["facts"]} == {"Namibia"}
    assert {f["section"] for f in facts["facts"]} <= {"", "History", "Economy", "Geography", "Culture"}
    await close(user, assistant)


@pytest.mark.parametrize(
    ("who", "entities", "code"),
    [("assistant", [], "not_allowed"), ("user", ["Atlantis"], "bad_entities"), ("user", "Germany", "bad_frame")],
)
async def test_it_refuses_a_bad_marking(paired: CuriosityRoom, who: str, entities: Any, code: str) -> None:
    communicator = await join(paired, getattr(paired, who))
    await send(communicator, {"type": "mark_known", "entities": entities})
    assert (await error(communicator))["code"] == code
    assert await room_status(paired) == RoomStatus.PREPARING
    assert (await dialog_of(paired)).marked_at is None
    await close(communicator)


async def test_the_assistant_stores_every_shown_fact_with_its_source_and_use(paired: CuriosityRoom) -> None:
    user, assistant, _ = await chatting(paired)
    await say(user, "What about the history of Germany there?", "u1")
    bank = await receive_until(assistant, "facts")
    assert bank["after_seq"] == 1
    used = [bank["facts"][0]["fid"], bank["facts"][4]["fid"]]
    await say(assistant, "It was a German colony.", "a1", used_facts=used)
    stored = await messages(paired)
    assert stored[0].facts == [] and not stored[0].liked
    facts = stored[1].facts
    assert [f["fid"] for f in facts] == [f["fid"] for f in bank["facts"]]
    assert [f["fid"] for f in facts if f["used"]] == used
    assert sorted(f["source"] for f in facts) == ["known"] * 3 + ["random"] * 3 + ["section"] * 3
    await close(user, assistant)


async def test_it_refuses_the_use_of_a_fact_that_was_not_shown(paired: CuriosityRoom) -> None:
    user, assistant, _ = await chatting(paired)
    await say(user, "Tell me something.", "u1")
    bank = await receive_until(assistant, "facts")
    hidden = max(f["fid"] for f in bank["facts"]) + 100_000
    await send(assistant, {"type": "message", "client_id": "a1", "text": "Hmm", "used_facts": [hidden]})
    refused = await error(assistant)
    assert refused["code"] == "bad_fact" and refused["client_id"] == "a1"
    await send(assistant, {"type": "message", "client_id": "a2", "text": "Hmm", "used_facts": "all"})
    assert (await error(assistant))["code"] == "bad_frame"
    assert len(await messages(paired)) == 1
    await close(user, assistant)


async def test_the_user_likes_and_unlikes_an_assistant_message(paired: CuriosityRoom) -> None:
    user, assistant, _ = await chatting(paired)
    await say(user, "Hello!", "u1")
    await receive_until(assistant, "facts")
    await say(assistant, "Hi there.", "a1")
    await send(user, {"type": "like", "seq": 2, "liked": True})
    assert await receive_until(user, "liked") == {"type": "liked", "seq": 2, "liked": True}
    assert (await receive_until(assistant, "liked"))["liked"] is True
    assert (await messages(paired))[1].liked
    await send(user, {"type": "like", "seq": 2, "liked": False})
    await receive_until(user, "liked")
    stored = (await messages(paired))[1]
    assert not stored.liked and stored.liked_at is None
    await close(user, assistant)


@pytest.mark.parametrize(
    ("who", "seq", "code"),
    [("assistant", 2, "not_allowed"), ("user", 1, "bad_like"), ("user", 9, "bad_like"), ("user", 2**64, "bad_frame")],
)
async def test_it_refuses_a_bad_like(paired: CuriosityRoom, who: str, seq: int, code: str) -> None:
    user, assistant, _ = await chatting(paired)
    await say(user, "Hello!", "u1")
    await receive_until(assistant, "facts")
    await say(assistant, "Hi there.", "a1")
    await send(getattr(paired, who) is paired.user and user or assistant, {"type": "like", "seq": seq, "liked": True})
    assert (await error(user if who == "user" else assistant))["code"] == code
    assert not any(m.liked for m in await messages(paired))
    await close(user, assistant)


async def test_the_user_switches_aspect_once(paired: CuriosityRoom) -> None:
    user, assistant, _ = await chatting(paired)
    await say(user, "Hello!", "u1")
    await receive_until(assistant, "facts")
    dialog = await dialog_of(paired)
    first, second = dialog.aspects
    await send(user, {"type": "switch_aspect", "aspect": "Cuisine"})
    assert (await error(user))["code"] == "bad_aspect"
    await send(user, {"type": "switch_aspect", "aspect": first})
    assert (await error(user))["code"] == "bad_aspect"
    assert (await dialog_of(paired)).second_aspect is None
    await send(user, {"type": "switch_aspect", "aspect": second})
    state = await receive_until(user, "state")
    assert state["current_aspect"] == second and not state["can_switch"]
    bank = await receive_until(assistant, "facts")
    assert bank["after_seq"] == 1
    dialog = await dialog_of(paired)
    assert (dialog.first_aspect, dialog.second_aspect, dialog.switched_after_seq) == (first, second, 1)
    assert dialog.switched_at is not None
    await send(user, {"type": "switch_aspect", "aspect": first})
    assert (await error(user))["code"] == "already_switched"
    await send(assistant, {"type": "switch_aspect", "aspect": second})
    assert (await error(assistant))["code"] == "not_allowed"
    assert (await dialog_of(paired)).second_aspect == second
    await close(user, assistant)


async def test_both_rate_the_dialog_and_their_partner(paired: CuriosityRoom) -> None:
    user, assistant, _ = await chatting(paired)
    for turn in range(2):
        await say(user, f"Question {turn}?", f"u{turn}")
        await receive_until(assistant, "facts")
        await say(assistant, f"Answer {turn}.", f"a{turn}")
    await send(user, {"type": "end"})
    await until_status(assistant, "rating")
    await send(user, {"type": "rate", "dialog_rating": 6, "partner_rating": 3})
    assert (await error(user))["code"] == "bad_rating"
    await send(user, {"type": "rate", "dialog_rating": 4, "partner_rating": 3})
    await send(assistant, {"type": "rate", "dialog_rating": 5, "partner_rating": 2})
    await until_status(assistant, "complete")
    assert await room_status(paired) == RoomStatus.COMPLETE
    dialog = await dialog_of(paired)
    assert (dialog.user_dialog_rating, dialog.user_other_agent_rating) == (4, 3)
    assert (dialog.assistant_dialog_rating, dialog.assistant_other_agent_rating) == (5, 2)
    await close(user, assistant)


async def test_a_reconnecting_assistant_gets_the_messages_likes_and_bank(paired: CuriosityRoom) -> None:
    user, assistant, _ = await chatting(paired)
    await say(user, "Hello!", "u1")
    bank = await receive_until(assistant, "facts")
    await say(assistant, "Hi there.", "a1", used_facts=[bank["facts"][2]["fid"]])
    await send(user, {"type": "like", "seq": 2})
    await receive_until(user, "liked")
    await say(user, "More please.", "u2")
    await assistant.disconnect()
    again = await join(paired, paired.assistant)
    await send(again, {"type": "sync", "after": 0})
    first, second = await receive_until(again, "message"), await receive_until(again, "message")
    assert first["role"] == "user" and "liked" not in first
    assert second["liked"] is True and second["used_facts"] == [bank["facts"][2]["fid"]]
    current = await receive_until(again, "facts")
    assert current["after_seq"] == 3
    await close(user, again)
