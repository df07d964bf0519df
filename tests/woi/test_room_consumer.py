"""A Wizard of Internet room through the real ASGI stack: alice is the wizard, bob the apprentice,
charlie an outsider. Every refused frame is checked to have stored nothing."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from collect.models import RoomStatus
from collect.tasktypes.woi.models import WoiDialogue, WoiSearch
from collect.tasktypes.woi.searching import searches_settled
from tests.collect.ws import connect, receive_until, send
from tests.woi.conftest import WoiRoom
from tests.woi.ws import PERSONA, chatting, join, messages, panel, refused, room, say, searches, turns

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]

async def test_the_apprentice_writes_a_persona_and_the_wizard_sees_it(paired: WoiRoom) -> None:
    wizard, state = await join(paired, paired.wizard)
    assert state["status"] == RoomStatus.PREPARING and state["persona_form"] is None  # the wizard waits
    apprentice, _ = await join(paired, paired.apprentice)
    await send(apprentice, PERSONA)
    first = await receive_until(wizard, "search_results")
    assert first["persona"] == "My favorite book is Dune.\nI reread it every summer on the beach."
    assert first["shown"] is None and first["latest"] is None and first["after_seq"] == 0
    assert (await receive_until(apprentice, "persona"))["persona"].startswith("My favorite book is Dune.")
    stored = await room(paired)
    assert stored.status == RoomStatus.CHATTING and stored.topic == "My favorite book is Dune."
    # A reload gets both again (knowledge_for).
    await send(apprentice, {"type": "sync", "after": 0})
    assert (await receive_until(apprentice, "persona"))["persona"].endswith("on the beach.")
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_search_shows_documents_and_a_reply_selects_sentences_across_two(paired: WoiRoom) -> None:
    wizard, apprentice = await chatting(paired)
    await send(wizard, {"type": "search", "client_id": "s1", "query": "guitar and blues music"})
    pending = await panel(wizard, status="pending")
    assert pending["latest"]["query"] == "guitar and blues music" and pending["shown"] is None
    done = await panel(wizard, status="done")
    documents = done["shown"]["documents"]
    # Every article the index finds for the query, up to the five asked for.
    assert 2 <= len(documents) <= 5 and {"Guitar", "Blues"} <= {d["title"] for d in documents}
    assert all(set(d) == {"content", "url", "title"} and d["content"] for d in documents)
    assert documents[0]["url"].startswith("https://en.wikipedia.org/wiki/")
    search_id = done["shown"]["search"]
    chosen = [[0, 1], [1, 0]]
    reply = await say(wizard, "Blues grew out of work songs, and the guitar carries it.", "w1",
                      selected={"search": search_id, "sentences": chosen})
    assert reply["seq"] == 1
    [turn] = await turns(paired)
    assert turn.seq == 1 and turn.search_id == search_id
    assert turn.selected[0] == [False] and turn.selected[1][1] and turn.selected[2][0]
    assert sum(map(sum, turn.selected)) == 2 and [len(r) for r in turn.selected[1:]] == [len(d["content"]) for d in documents]
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_the_chat_ends_and_the_apprentice_rates(paired: WoiRoom) -> None:
    wizard, apprentice = await chatting(paired)
    for n in range(2):
        assert (await say(wizard, f"Hello again ({n})", f"w{n}", selected={"search": None, "sentences": []}))["seq"] == 2 * n + 1
        await say(apprentice, f"Tell me more ({n})", f"a{n}")
    await send(apprentice, {"type": "end"})
    while (await receive_until(apprentice, "state"))["status"] != RoomStatus.RATING:
        pass
    await send(wizard, {"type": "rate", "rating": 3})
    assert (await receive_until(wizard, "error"))["code"] == "not_allowed"  # only the apprentice rates
    await send(apprentice, {"type": "rate", "rating": 4})
    while (await receive_until(apprentice, "state"))["status"] != RoomStatus.COMPLETE:
        pass
    stored = await room(paired)
    assert stored.rating == 4 and [t.selected for t in await turns(paired)] == [[[True]], [[True]]]
    await wizard.disconnect()
    await apprentice.disconnect()


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"choice": "book", "item": "Dune", "detail": "too short"}, "persona_too_short"),
        ({"choice": "film", "item": "Dune", "detail": "I reread it every summer on the beach."}, "bad_persona"),
        ({"choice": "book", "detail": "I reread it every summer on the beach."}, "bad_frame"),  # the template's item
        ({"choice": "book", "item": "Dune\x1b[31m", "detail": "I reread it every summer on the beach."}, "bad_frame"),
        ({"choice": "book", "item": "x" * 101, "detail": "I reread it every summer on the beach."}, "bad_frame"),
    ],
)
async def test_a_bad_persona_is_refused_and_stores_nothing(paired: WoiRoom, frame: dict, code: str) -> None:
    apprentice, _ = await join(paired, paired.apprentice)
    error = await refused(apprentice, {"type": "write_persona", "client_id": "p", **frame})
    assert error["code"] == code and error["client_id"] == "p"
    dialogue = await database_sync_to_async(WoiDialogue.objects.get)(room=paired.room)
    assert dialogue.persona == "" and (await room(paired)).status == RoomStatus.PREPARING
    await apprentice.disconnect()


async def test_only_the_apprentice_writes_the_persona_and_only_once(paired: WoiRoom) -> None:
    wizard, _ = await join(paired, paired.wizard)
    assert (await refused(wizard, {**PERSONA, "client_id": "w"}))["code"] == "not_allowed"
    await wizard.disconnect()
    wizard, apprentice = await chatting(paired)
    assert (await refused(apprentice, {**PERSONA, "client_id": "p2"}))["code"] == "wrong_state"
    await wizard.disconnect()
    await apprentice.disconnect()


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("", "bad_frame"),
        ("   ", "bad_frame"),
        ("x" * 301, "bad_frame"),
        ("guitar\x07", "bad_frame"),  # a control character
        ("\u200b\u200b", "bad_frame"),  # nothing visible
        (42, "bad_frame"),
    ],
)
async def test_a_bad_query_is_refused_like_a_bad_message_and_stores_nothing(paired: WoiRoom, query: Any, code: str) -> None:
    wizard, apprentice = await chatting(paired)
    error = await refused(wizard, {"type": "search", "client_id": "s", "query": query})
    assert error["code"] == code and error["client_id"] == "s"
    assert await searches(paired) == []
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_query_with_a_lone_surrogate_is_refused(paired: WoiRoom) -> None:
    wizard, apprentice = await chatting(paired)
    await wizard.send_to(text_data='{"type": "search", "client_id": "s", "query": "guitar \\ud83d"}')
    error = await receive_until(wizard, "error")
    assert error["code"] == "bad_frame" and "lone surrogate" in error["message"]
    assert await searches(paired) == []
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_searching_is_the_wizards_on_their_turn_in_the_chat(campaign) -> None:
    from tests.woi.conftest import make_room

    paired = await database_sync_to_async(make_room)(campaign, first_speaker="apprentice")
    wizard, _ = await join(paired, paired.wizard)
    assert (await refused(wizard, {"type": "search", "query": "blues"}))["code"] == "wrong_state"  # the persona is not written
    await wizard.disconnect()
    wizard, apprentice = await chatting(paired)
    assert (await refused(apprentice, {"type": "search", "query": "blues"}))["code"] == "not_allowed"
    assert (await refused(wizard, {"type": "search", "query": "blues"}))["code"] == "not_your_turn"  # the apprentice opens
    assert await searches(paired) == []
    await say(apprentice, "I love the blues!", "a1")
    await send(wizard, {"type": "search", "client_id": "s1", "query": "blues"})
    assert (await panel(wizard, status="done"))["after_seq"] == 1
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_reply_must_say_what_it_used_of_the_panel_on_screen(paired: WoiRoom) -> None:
    wizard, apprentice = await chatting(paired)
    reply = {"type": "message", "client_id": "w1", "text": "Guitars have six strings."}
    assert (await refused(wizard, reply))["code"] == "selection_required"
    await send(wizard, {"type": "search", "client_id": "s1", "query": "guitar strings"})
    first = (await panel(wizard, status="done"))["shown"]
    stale = {**reply, "selected": {"search": None, "sentences": []}}
    assert (await refused(wizard, stale))["code"] == "stale_search"  # documents are on screen now
    outside = {**reply, "selected": {"search": first["search"], "sentences": [[0, 99]]}}
    assert (await refused(wizard, outside))["code"] == "bad_selection"
    await send(wizard, {"type": "search", "client_id": "s2", "query": "jazz music"})
    second = (await panel(wizard, status="done"))["shown"]
    old = {**reply, "selected": {"search": first["search"], "sentences": [[0, 0]]}}
    assert (await refused(wizard, old))["code"] == "stale_search"  # the newer search's documents replaced them
    assert await messages(paired) == [] and await turns(paired) == []
    assert (await say(wizard, "Jazz swings.", "w1", selected={"search": second["search"], "sentences": [[0, 0]]}))["seq"] == 1
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_outsiders_are_refused_and_their_frames_store_nothing(paired: WoiRoom) -> None:
    from tests.collect.conftest import session_cookie

    charlie = await database_sync_to_async(session_cookie)(paired.outsider)
    for cookie in (charlie, None):  # a worker of another room; nobody at all
        outsider = await connect(f"/ws/room/{paired.room.id}/", cookie)
        # Sent at once, before the refusal can arrive: the consumer must not act on them.
        for frame in ({**PERSONA, "client_id": "x"}, {"type": "search", "client_id": "y", "query": "blues"}):
            await send(outsider, frame)
        assert (await outsider.receive_json_from(timeout=10))["code"] == "not_member"
        if cookie is not None:
            assert (await outsider.receive_output(timeout=5))["code"] == 4403
        await outsider.disconnect()
    assert await searches(paired) == [] and (await room(paired)).status == RoomStatus.PREPARING


@pytest.mark.parametrize(
    "selected",
    [
        "all of them",
        {"sentences": []},  # no search named
        {"search": "1", "sentences": []},
        {"search": True, "sentences": []},
        {"search": None, "sentences": [[True, 0]]},
        {"search": None, "sentences": [["0", "1"]]},
        {"search": None, "sentences": [[0, 1, 2]]},
        {"search": None, "sentences": [[0, 0]] * 201},
        {"search": None, "sentences": {"0": 1}},
    ],
)
async def test_a_malformed_selection_is_refused_and_stores_nothing(paired: WoiRoom, selected: Any) -> None:
    wizard, apprentice = await chatting(paired)
    error = await refused(wizard, {"type": "message", "client_id": "w1", "text": "Hello!", "selected": selected})
    assert error["code"] in ("bad_frame", "selection_required", "bad_selection") and error["client_id"] == "w1"
    assert await messages(paired) == [] and await turns(paired) == []
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_search_a_dead_process_left_pending_runs_when_the_page_syncs(paired: WoiRoom) -> None:
    from datetime import timedelta

    from django.utils import timezone

    wizard, apprentice = await chatting(paired)
    # Stored by a process that died before it ran it; and one whose runner's claim has long expired.
    lost = await database_sync_to_async(WoiSearch.objects.create)(room=paired.room, after_seq=0, query="guitar strings")
    stale = timezone.now() - timedelta(minutes=5)
    await database_sync_to_async(WoiSearch.objects.create)(room=paired.room, after_seq=0, query="tea leaves", claimed_at=stale)
    await send(wizard, {"type": "sync", "after": 0})
    done = await panel(wizard, status="done")
    while done["latest"]["query"] != "tea leaves" or done["latest"]["status"] != "done":
        done = await receive_until(wizard, "search_results", timeout=10)
    await searches_settled()
    statuses = await database_sync_to_async(lambda: list(WoiSearch.objects.order_by("pk").values_list("query", "status")))()
    assert statuses == [("guitar strings", "done"), ("tea leaves", "done")] and lost.pk
    await wizard.disconnect()
    await apprentice.disconnect()
