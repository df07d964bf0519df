"""The room socket, driven through the real ASGI stack with two workers and an outsider."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from collect.lifecycle import heartbeats
from collect.models import Assignment, Campaign, Message, Room, RoomStatus
from collect.tasktypes.wow import protocol as wow
from tests.collect.conftest import PairedRoom, make_room, session_cookie
from tests.collect.ws import connect, receive_ack, receive_until, send
from tests.paid.sweeper import beat_stand_in

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def path(paired: PairedRoom) -> str:
    return f"/ws/room/{paired.room.id}/"


async def join(paired: PairedRoom, seat) -> object:
    communicator = await connect(path(paired), seat.cookie)
    await receive_until(communicator, "state")
    return communicator


@database_sync_to_async
def stored(room: Room) -> list[Message]:
    return list(Message.objects.filter(room=room).order_by("seq"))


@database_sync_to_async
def reload(room: Room) -> Room:
    room.refresh_from_db()
    return room


async def test_it_sends_the_first_speaker_their_persona(paired: PairedRoom) -> None:
    wizard = await connect(path(paired), paired.wizard.cookie)
    apprentice = await connect(path(paired), paired.apprentice.cookie)
    wizard_state = await receive_until(wizard, "state")
    apprentice_state = await receive_until(apprentice, "state")
    assert wizard_state["role"] == "wizard" and wizard_state["status"] == "choosing_topic"
    assert wizard_state["persona"] == {"text": "I love playing the guitar.", "topics": ["Guitar", "Blues"]}
    assert apprentice_state["persona"] is None
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_it_refuses_an_outsider(paired: PairedRoom) -> None:
    outsider = await connect(path(paired), await database_sync_to_async(session_cookie)(paired.outsider))
    error = await outsider.receive_json_from()
    assert error["code"] == "not_member"
    assert (await outsider.receive_output())["code"] == 4403


async def test_it_refuses_a_socket_without_a_session(paired: PairedRoom) -> None:
    anonymous = await connect(path(paired), None)
    assert (await anonymous.receive_json_from())["code"] == "not_member"


async def test_it_opens_the_chat_when_the_first_speaker_picks_a_topic(paired: PairedRoom) -> None:
    wizard, apprentice = await join(paired, paired.wizard), await join(paired, paired.apprentice)
    await send(wizard, {"type": "choose_topic", "topic": "Guitar"})
    state = await receive_until(apprentice, "state")
    assert state["status"] == "chatting" and state["topic"] == "Guitar" and not state["your_turn"]
    knowledge = await receive_until(wizard, "knowledge")
    assert knowledge["passages"][0]["source"] == "chosen"
    assert knowledge["passages"][0]["sentences"][0].startswith("The guitar is a fretted")
    room = await reload(paired.room)
    assert room.topic == "Guitar" and room.topic_passage[0].startswith("The guitar")
    await wizard.disconnect()
    await apprentice.disconnect()


@pytest.mark.parametrize(
    ("who", "topic", "code"),
    [("apprentice", "Guitar", "not_your_turn"), ("wizard", "Chess", "bad_topic"), ("wizard", 7, "bad_frame")],
)
async def test_it_refuses_a_bad_topic_choice(paired: PairedRoom, who: str, topic: object, code: str) -> None:
    communicator = await join(paired, getattr(paired, who))
    await send(communicator, {"type": "choose_topic", "topic": topic})
    assert (await receive_until(communicator, "error"))["code"] == code
    assert (await reload(paired.room)).status == RoomStatus.CHOOSING_TOPIC
    await communicator.disconnect()


@pytest.fixture
def chatting(campaign) -> PairedRoom:
    return make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")


async def test_it_refuses_a_wizard_message_without_a_checked_sentence(chatting: PairedRoom) -> None:
    wizard = await join(chatting, chatting.wizard)
    await send(wizard, {"type": "message", "client_id": "m1", "text": "Hi!"})
    error = await receive_until(wizard, "error")
    assert error["code"] == "checked_required" and error["client_id"] == "m1"
    assert await stored(chatting.room) == []
    await wizard.disconnect()


@pytest.mark.parametrize(
    "checked",
    [
        {"source": "partner", "passage": 0, "sentence": 0, "knowledge_seq": 0},
        {"source": "partner", "passage": 0, "sentence": 0},
        {"source": "chosen", "passage": 0, "sentence": 99},
        {"source": "chosen", "passage": 1, "sentence": 0},
        {"source": "elsewhere", "passage": 0, "sentence": 0},
        {"source": "chosen", "passage": -1, "sentence": 0},
        "chosen_Guitar_0",
    ],
)
async def test_it_refuses_a_checked_sentence_that_was_not_shown(chatting: PairedRoom, checked: object) -> None:
    wizard = await join(chatting, chatting.wizard)
    await send(wizard, {"type": "message", "client_id": "m1", "text": "Hi!", "checked": checked})
    assert (await receive_until(wizard, "error"))["code"] in {"bad_checked", "bad_frame", "checked_required"}
    assert await stored(chatting.room) == []
    await wizard.disconnect()


async def test_it_stores_the_checked_sentence_and_relays_the_message(chatting: PairedRoom) -> None:
    wizard, apprentice = await join(chatting, chatting.wizard), await join(chatting, chatting.apprentice)
    checked = {"source": "chosen", "passage": 0, "sentence": 1}
    await send(wizard, {"type": "message", "client_id": "m1", "text": "Guitars have six strings!", "checked": checked})
    acked = await receive_ack(wizard, "m1")
    assert acked["type"] == "message" and acked["seq"] == 1  # its own message coming back is its ack
    relayed = await receive_until(apprentice, "message")
    assert relayed["text"] == "Guitars have six strings!" and "checked_sentence" not in relayed
    [message] = await stored(chatting.room)
    assert message.checked_sentence == {"chosen_Guitar_1": "It is played by strumming or plucking the strings with the fingers or a pick."}
    assert message.checked_passage == {"chosen_topic_0_Guitar": "Guitar"}
    assert message.knowledge_shown[0]["title"] == "Guitar"
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_relayed_message_carries_the_rooms_state_after_it(chatting: PairedRoom) -> None:
    """One frame per socket and message: the state rides inside the message frame."""
    wizard = await connect(path(chatting), chatting.wizard.cookie, raw=True)
    apprentice = await connect(path(chatting), chatting.apprentice.cookie, raw=True)
    await receive_until(wizard, "state")
    await receive_until(apprentice, "state")
    await send(wizard, {"type": "message", "client_id": "m1", "text": "Hello", "checked": {"no_passages_used": True}})
    relayed = await receive_until(apprentice, "message")
    assert relayed["seq"] == 1 and relayed["text"] == "Hello"
    assert relayed["state"]["type"] == "state" and relayed["state"]["role"] == "apprentice"
    assert relayed["state"]["last_seq"] == 1 and relayed["state"]["your_turn"] is True
    echoed = await receive_ack(wizard, "m1")
    assert echoed["type"] == "message" and echoed["checked_sentence"] == "no_passages_used"
    assert echoed["state"]["role"] == "wizard" and echoed["state"]["your_turn"] is False
    assert await apprentice.receive_nothing(0.3)  # no separate state frame follows
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_the_sender_gets_its_own_message_once_as_its_acknowledgement(chatting: PairedRoom) -> None:
    """No `ack` frame and no second copy through the channel layer: one frame for the sender."""
    wizard = await connect(path(chatting), chatting.wizard.cookie, raw=True)
    apprentice = await connect(path(chatting), chatting.apprentice.cookie, raw=True)
    await send(wizard, {"type": "sync", "after": 0})
    await send(apprentice, {"type": "sync", "after": 0})
    await send(wizard, {"type": "message", "client_id": "m1", "text": "Hello", "checked": {"no_passages_used": True}})
    assert (await receive_until(apprentice, "message"))["client_id"] == "m1"
    frames = []
    while not await wizard.receive_nothing(0.5):
        frames.append(await wizard.receive_json_from())
    assert [(f["type"], f.get("client_id")) for f in frames if f["type"] in ("message", "ack")] == [("message", "m1")]
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_it_stores_a_resent_message_once(chatting: PairedRoom) -> None:
    wizard = await join(chatting, chatting.wizard)
    frame = {"type": "message", "client_id": "same", "text": "Hello", "checked": {"no_passages_used": True}}
    await send(wizard, frame)
    first = await receive_ack(wizard, "same")
    await send(wizard, frame)
    second = await receive_ack(wizard, "same")
    assert first["seq"] == second["seq"] == 1
    assert (first["type"], second["type"]) == ("message", "ack")  # a resend is only re-acked
    [message] = await stored(chatting.room)
    assert message.checked_sentence == {"no_passages_used": "no_passages_used"}
    await wizard.disconnect()


async def test_it_refuses_a_message_out_of_turn(chatting: PairedRoom) -> None:
    apprentice = await join(chatting, chatting.apprentice)
    await send(apprentice, {"type": "message", "client_id": "a1", "text": "Me first"})
    assert (await receive_until(apprentice, "error"))["code"] == "not_your_turn"
    assert await stored(chatting.room) == []
    await apprentice.disconnect()


async def test_it_gives_the_wizard_knowledge_for_the_apprentices_turn(chatting: PairedRoom) -> None:
    wizard, apprentice = await join(chatting, chatting.wizard), await join(chatting, chatting.apprentice)
    await send(wizard, {"type": "message", "client_id": "w1", "text": "Do you play?", "checked": {"no_passages_used": True}})
    await receive_until(apprentice, "message")
    await send(apprentice, {"type": "message", "client_id": "a1", "text": "I prefer blues music from the Deep South"})
    knowledge = await receive_until(wizard, "knowledge")
    while not any(p["source"] == "partner" for p in knowledge["passages"]):
        knowledge = await receive_until(wizard, "knowledge")
    partner = [p for p in knowledge["passages"] if p["source"] == "partner"]
    assert partner[0]["title"] == "Blues" and len(partner) <= 7
    # The checked sentence may come from the partner's passages.
    stale = {"source": "partner", "passage": 0, "sentence": 0, "knowledge_seq": 0}
    await send(wizard, {"type": "message", "client_id": "w2", "text": "Blues began in the 1860s.", "checked": stale})
    assert (await receive_until(wizard, "error"))["code"] == "stale_knowledge"
    checked = {"source": "partner", "passage": 0, "sentence": 0, "knowledge_seq": knowledge["after_seq"]}
    await send(wizard, {"type": "message", "client_id": "w2", "text": "Blues began in the 1860s.", "checked": checked})
    await receive_ack(wizard, "w2")
    messages = await stored(chatting.room)
    assert list(messages[2].checked_sentence) == ["partner_Blues_0"]
    assert list(messages[1].retrieved_passages[0]) == ["Blues"]
    await wizard.disconnect()
    await apprentice.disconnect()


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_frame"),
        ('{"no": "type"}', "bad_frame"),
        ('{"type": "dance"}', "bad_frame"),
        ('{"type": "message", "client_id": "x"}', "bad_frame"),
        ('{"type": "message", "client_id": "x", "text": "   "}', "bad_frame"),
        ('{"type": "message", "client_id": "' + "x" * 65 + '", "text": "hi"}', "bad_frame"),
        ('{"type": "message", "client_id": "x", "text": "' + "a" * 1001 + '"}', "bad_frame"),
        ('{"type": "sync", "after": -1}', "bad_frame"),
        ('{"type": "rate", "rating": true}', "bad_rating"),
        ('{"type": "message", "text": "' + "a" * 9000 + '"}', "too_large"),
    ],
)
async def test_it_refuses_malformed_frames_and_stays_open(chatting: PairedRoom, raw: str, code: str) -> None:
    apprentice = await join(chatting, chatting.apprentice)
    await apprentice.send_to(text_data=raw)
    assert (await receive_until(apprentice, "error"))["code"] == code
    await send(apprentice, {"type": "ping"})
    assert (await receive_until(apprentice, "pong"))["type"] == "pong"
    assert await stored(chatting.room) == []
    await apprentice.disconnect()


async def test_it_refuses_binary_frames(chatting: PairedRoom) -> None:
    apprentice = await join(chatting, chatting.apprentice)
    await apprentice.send_to(bytes_data=b"\x00\x01")
    assert (await receive_until(apprentice, "error"))["code"] == "bad_frame"
    await apprentice.disconnect()


async def test_it_rate_limits_a_flood(chatting: PairedRoom, settings) -> None:
    settings.WS_RATE_PER_10S = 3
    apprentice = await join(chatting, chatting.apprentice)
    for _ in range(4):
        await send(apprentice, {"type": "ping"})
    for _ in range(3):
        await receive_until(apprentice, "pong")
    assert (await receive_until(apprentice, "error"))["code"] == "rate_limited"
    await apprentice.disconnect()


async def test_a_reconnecting_client_gets_what_it_missed(chatting: PairedRoom) -> None:
    wizard, apprentice = await join(chatting, chatting.wizard), await join(chatting, chatting.apprentice)
    await send(wizard, {"type": "message", "client_id": "w1", "text": "One", "checked": {"no_passages_used": True}})
    await receive_until(apprentice, "message")
    await apprentice.disconnect()
    await send(wizard, {"type": "message", "client_id": "w2", "text": "Two", "checked": {"no_passages_used": True}})
    assert (await receive_until(wizard, "error"))["code"] == "not_your_turn"
    apprentice = await join(chatting, chatting.apprentice)
    await send(apprentice, {"type": "message", "client_id": "a1", "text": "Back again"})
    await receive_ack(apprentice, "a1")
    await send(wizard, {"type": "message", "client_id": "w3", "text": "Three", "checked": {"no_passages_used": True}})
    await receive_ack(wizard, "w3")
    late = await join(chatting, chatting.apprentice)
    await send(late, {"type": "sync", "after": 1})
    missed = [await receive_until(late, "message"), await receive_until(late, "message")]
    assert [m["seq"] for m in missed] == [2, 3] and missed[1]["text"] == "Three"
    for communicator in (wizard, apprentice, late):
        await communicator.disconnect()


async def test_a_dialogue_runs_to_completion_with_a_rating(chatting: PairedRoom) -> None:
    wizard, apprentice = await join(chatting, chatting.wizard), await join(chatting, chatting.apprentice)
    none = {"no_passages_used": True}
    for turn in range(2):
        await send(wizard, {"type": "message", "client_id": f"w{turn}", "text": f"wizard {turn}", "checked": none})
        await receive_ack(wizard, f"w{turn}")
        if turn == 0:
            await send(wizard, {"type": "end"})
            assert (await receive_until(wizard, "error"))["code"] == "too_early_to_end"
        await send(apprentice, {"type": "message", "client_id": f"a{turn}", "text": f"apprentice {turn}"})
        await receive_ack(apprentice, f"a{turn}")
    state = await receive_until(wizard, "state")
    while not state["can_end"]:
        state = await receive_until(wizard, "state")
    await send(apprentice, {"type": "end"})
    state = await receive_until(apprentice, "state")
    while state["status"] != "rating":
        state = await receive_until(apprentice, "state")
    await send(wizard, {"type": "rate", "rating": 5})
    assert (await receive_until(wizard, "error"))["code"] == "not_allowed"
    await send(apprentice, {"type": "rate", "rating": 6})
    assert (await receive_until(apprentice, "error"))["code"] == "bad_rating"
    await send(apprentice, {"type": "rate", "rating": 4})
    state = await receive_until(wizard, "state")
    while state["status"] != "complete":
        state = await receive_until(wizard, "state")
    room = await reload(chatting.room)
    assert room.status == RoomStatus.COMPLETE and room.rating == 4 and room.end_reason == "ended by the apprentice"
    assert len(await stored(chatting.room)) == 4
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_room_ends_incomplete_when_a_partner_stays_away(chatting: PairedRoom) -> None:
    await database_sync_to_async(Campaign.objects.filter(pk=chatting.room.campaign_id).update)(
        disconnect_grace_seconds=0
    )
    wizard, apprentice = await join(chatting, chatting.wizard), await join(chatting, chatting.apprentice)
    await send(wizard, {"type": "message", "client_id": "w1", "text": "Hello", "checked": {"no_passages_used": True}})
    await receive_ack(wizard, "w1")
    await apprentice.disconnect()
    while (await receive_until(wizard, "partner"))["connected"]:
        pass
    with beat_stand_in():  # the lifecycle sweep ends the room (embedded: the server's own loop)
        state = await receive_until(wizard, "state")
        while state["status"] != "incomplete":
            state = await receive_until(wizard, "state")
    room = await reload(chatting.room)
    assert room.status == RoomStatus.INCOMPLETE and room.end_reason == "the apprentice left"
    assert [m.text for m in await stored(chatting.room)] == ["Hello"]
    await wizard.disconnect()


async def test_the_wizard_gets_a_reranked_panel_after_the_tfidf_one(chatting: PairedRoom, settings) -> None:
    # In this process even when a broker is configured (no rerank worker runs in this test).
    settings.RERANK_MODE = "process"
    wizard, apprentice = await join(chatting, chatting.wizard), await join(chatting, chatting.apprentice)
    await send(wizard, {"type": "message", "client_id": "w1", "text": "Hello!", "checked": {"no_passages_used": True}})
    await receive_until(apprentice, "message")
    await send(apprentice, {"type": "message", "client_id": "a1", "text": "Which dogs and cats make good pets?"})
    first = await receive_until(wizard, "knowledge")
    while first["after_seq"] != 2:
        first = await receive_until(wizard, "knowledge")
    reranked = await receive_until(wizard, "knowledge.reranked", timeout=10)
    while reranked["after_seq"] != 2:
        reranked = await receive_until(wizard, "knowledge.reranked", timeout=10)
    shown = {(p["source"], p["passage"], tuple(p["sentences"])) for p in first["passages"]}
    # The same passages, sentences never reordered inside one (checked indexes stay valid), scored.
    assert {(p["source"], p["passage"], tuple(p["sentences"])) for p in reranked["passages"]} == shown
    assert all(len(p["scores"]) == len(p["sentences"]) for p in reranked["passages"])
    best = [max(p["scores"]) for p in reranked["passages"]]
    assert best == sorted(best, reverse=True)
    # The stored panel names the model that ranked it.
    from retrieval.rankers.load import live_ranker, ranker_version

    stored = await database_sync_to_async(lambda: Room.objects.get(pk=chatting.room.pk).knowledge_reranked["wizard"])()
    assert stored["ranked_by"] == reranked["ranked_by"] == ranker_version(live_ranker())
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_late_disconnect_of_an_old_socket_does_not_mark_a_present_member_gone(chatting: PairedRoom) -> None:
    wizard = await join(chatting, chatting.wizard)
    old = await join(chatting, chatting.apprentice)
    new = await join(chatting, chatting.apprentice)  # a reload: the new socket opens first
    await old.disconnect()
    await send(wizard, {"type": "ping"})
    frames = []
    while (frame := await wizard.receive_json_from())["type"] != "pong":
        frames.append(frame)
    assert not any(f["type"] == "partner" and not f["connected"] for f in frames)
    apprentice = await database_sync_to_async(Assignment.objects.get)(pk=chatting.apprentice.assignment.pk)
    assert apprentice.connected and apprentice.left_at is None
    await new.disconnect()
    while (await receive_until(wizard, "partner"))["connected"]:
        pass
    for communicator in (wizard,):
        await communicator.disconnect()


@database_sync_to_async
def last_seen(assignment: Assignment) -> object:
    return Assignment.objects.values_list("last_seen", flat=True).get(pk=assignment.pk)


async def stamped_within(assignment: Assignment, since: object, seconds: float) -> bool:
    for _ in range(int(seconds / 0.05)):
        if await last_seen(assignment) > since:
            return True
        await asyncio.sleep(0.05)
    return False


async def stamper_stopped(seconds: float = 30.0) -> None:
    """This process's stamper has ended (no socket left open): a stamp that was under way has landed."""
    stamper = heartbeats.heartbeats.stamper
    if stamper is not None:
        await asyncio.wait_for(asyncio.shield(stamper), seconds)


async def test_an_open_socket_stamps_its_member_until_it_closes(paired: PairedRoom, monkeypatch) -> None:
    monkeypatch.setattr(heartbeats, "STAMP_SECONDS", 0.2)
    apprentice = await join(paired, paired.apprentice)
    long_ago = timezone.now() - timedelta(hours=1)
    members = [paired.apprentice.assignment.pk, paired.wizard.assignment.pk]
    await database_sync_to_async(Assignment.objects.filter(pk__in=members).update)(last_seen=long_ago)
    # The page sends nothing: its open socket is the heartbeat.
    assert await stamped_within(paired.apprentice.assignment, long_ago, 3)
    assert await last_seen(paired.wizard.assignment) == long_ago  # no socket, no stamp
    await apprentice.disconnect()
    await stamper_stopped()  # a stamp already under way lands
    assert not await stamped_within(paired.apprentice.assignment, await last_seen(paired.apprentice.assignment), 1)


async def test_a_socket_whose_instance_is_cancelled_stops_stamping(paired: PairedRoom, monkeypatch) -> None:
    """daphne cancels an application instance that does not end in time after its connection
    closed, and no disconnect() runs then: the member must not stay stamped by this process."""
    monkeypatch.setattr(heartbeats, "STAMP_SECONDS", 0.2)
    apprentice = await join(paired, paired.apprentice)
    assert heartbeats.heartbeats.open[paired.apprentice.assignment.pk] == 1
    apprentice.future.cancel()
    with pytest.raises(asyncio.CancelledError):
        await apprentice.future
    assert paired.apprentice.assignment.pk not in heartbeats.heartbeats.open
    await stamper_stopped()
    assert not await stamped_within(paired.apprentice.assignment, await last_seen(paired.apprentice.assignment), 1)
