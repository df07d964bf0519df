"""What a dead process leaves behind is repaired: a message stored but never broadcast, retrieval
never done. The death is simulated by storing through the service alone (the commit happened, the
broadcast and the retrieval did not); the repair goes through the real sockets."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from celery.signals import task_prerun
from channels.db import database_sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext

from collect.models import Message, Room
from collect.tasktypes.wow import protocol as wow
from collect.services import knowledge, rooms
from collect.tasks import knowledge_sweep
from retrieval.rankers.tfidf import TfidfRanker
from tests.collect.conftest import PairedRoom, Seat, make_room
from tests.collect.ws import connect, receive_ack, receive_until, send

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]
NONE_USED = {"no_passages_used": True}


@pytest.fixture
def chatting(campaign) -> PairedRoom:
    return make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")


async def synced(paired: PairedRoom, seat: Seat, after: int = 0):
    """A page's socket: connected, then `sync` as the page sends it on every (re)connect."""
    communicator = await connect(f"/ws/room/{paired.room.id}/", seat.cookie)
    await receive_until(communicator, "state")
    await send(communicator, {"type": "sync", "after": after})
    await receive_until(communicator, "state")
    return communicator


async def receive_message(communicator, seq: int) -> dict:
    """The message frame with this seq, skipping others (a sender also gets its own message back)."""
    while (frame := await receive_until(communicator, "message"))["seq"] != seq:
        pass
    return frame


@database_sync_to_async
def stored_without_broadcast(paired: PairedRoom, seat: Seat, client_id: str, text: str, checked=None) -> Message:
    frame = {"type": "message", "client_id": client_id, "text": text, **({"checked": checked} if checked else {})}
    posted = rooms.message_post(room_id=paired.room.id, assignment=seat.assignment, client_id=client_id, text=text, frame=frame)
    assert posted.created
    return posted.message


def post(paired: PairedRoom, seat: Seat, client_id: str, text: str, **frame) -> Message:
    return rooms.message_post(room_id=paired.room.id, assignment=seat.assignment, client_id=client_id, text=text,
                              frame={"type": "message", "text": text, **frame}).message


@database_sync_to_async
def retrieved(room: Room) -> list[object]:
    return list(Message.objects.filter(room=room).order_by("seq").values_list("retrieved_passages", flat=True))


async def test_a_resend_of_a_stored_message_reaches_the_partner_who_lacks_it(chatting: PairedRoom) -> None:
    wizard, apprentice = await synced(chatting, chatting.wizard), await synced(chatting, chatting.apprentice)
    await stored_without_broadcast(chatting, chatting.wizard, "w1", "Six strings!", NONE_USED)
    await send(wizard, {"type": "message", "client_id": "w1", "text": "Six strings!", "checked": NONE_USED})
    assert (await receive_ack(wizard, "w1")) == {"type": "ack", "client_id": "w1", "seq": 1}  # a resend
    relayed = await receive_until(apprentice, "message")
    assert (relayed["seq"], relayed["text"]) == (1, "Six strings!")
    state = await receive_until(apprentice, "state")
    assert state["your_turn"] is True
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_partner_who_has_the_message_does_not_get_it_twice(chatting: PairedRoom) -> None:
    wizard, apprentice = await synced(chatting, chatting.wizard), await synced(chatting, chatting.apprentice)
    frame = {"type": "message", "client_id": "w1", "text": "Hello", "checked": NONE_USED}
    await send(wizard, frame)
    assert (await receive_until(apprentice, "message"))["seq"] == 1
    assert (await receive_ack(wizard, "w1"))["type"] == "message"
    await send(wizard, frame)
    assert (await receive_ack(wizard, frame["client_id"]))["type"] == "ack"  # a resend
    await send(apprentice, {"type": "ping"})
    # Frames arrive in order: everything before the pong would have been a second copy.
    while (frame := await apprentice.receive_json_from(timeout=3))["type"] != "pong":
        assert frame["type"] != "message"
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_sync_brings_the_partner_and_the_knowledge_to_the_stored_state(chatting: PairedRoom) -> None:
    wizard, apprentice = await synced(chatting, chatting.wizard), await synced(chatting, chatting.apprentice)
    await send(wizard, {"type": "message", "client_id": "w1", "text": "Do you play?", "checked": NONE_USED})
    await receive_until(apprentice, "message")
    await receive_ack(wizard, "w1")
    # The apprentice's process dies after the commit: no broadcast, no retrieval.
    await apprentice.disconnect()
    await stored_without_broadcast(chatting, chatting.apprentice, "a1", "I prefer blues music from the Deep South")
    assert (await retrieved(chatting.room))[1] is None
    # Its page reconnects (to any process) and syncs from what it had seen.
    apprentice = await synced(chatting, chatting.apprentice, after=1)
    relayed = await receive_message(wizard, 2)
    assert (relayed["seq"], relayed["text"]) == (2, "I prefer blues music from the Deep South")
    panel = await receive_until(wizard, "knowledge")
    while not any(p["source"] == "partner" for p in panel["passages"]):
        panel = await receive_until(wizard, "knowledge")
    assert panel["after_seq"] == 2 and panel["passages"][1]["title"] == "Blues"
    assert all(passages is not None for passages in await retrieved(chatting.room))
    # The wizard can now answer from the repaired panel.
    checked = {"source": "partner", "passage": 0, "sentence": 0, "knowledge_seq": 2}
    await send(wizard, {"type": "message", "client_id": "w2", "text": "Blues began in the 1860s.", "checked": checked})
    assert (await receive_ack(wizard, "w2"))["seq"] == 3
    await wizard.disconnect()
    await apprentice.disconnect()


@pytest.mark.skipif(bool(os.environ.get("CELERY_BROKER_URL")), reason="with a broker: test_knowledge_worker.py")
def test_the_sweep_retrieves_for_messages_a_dead_process_left_without_knowledge(chatting: PairedRoom) -> None:
    frame = {"type": "message", "client_id": "w1", "text": "Blues and jazz", "checked": NONE_USED}
    rooms.message_post(room_id=chatting.room.id, assignment=chatting.wizard.assignment, client_id="w1", text="Blues and jazz", frame=frame)
    assert knowledge.messages_missing_knowledge(room_id=chatting.room.id) != []
    assert knowledge_sweep(older_than_s=0) == 1  # eager Celery in this pass: retrieved at once
    assert knowledge.messages_missing_knowledge() == []
    [passages] = Message.objects.filter(room=chatting.room).values_list("retrieved_passages", flat=True)
    assert list(passages[0]) in (["Blues"], ["Jazz"])


async def drained(communicator) -> None:
    """Until the socket has sent everything it had to (what the partner's joining and syncing
    gave it), so that a frame checked next was sent after what follows."""
    while not await communicator.receive_nothing(timeout=0.5):
        await communicator.receive_from()


async def test_a_partner_who_missed_a_change_of_state_gets_it_when_the_other_syncs(chatting: PairedRoom) -> None:
    await database_sync_to_async(Room.objects.filter(pk=chatting.room.pk).update)(status="rating")
    wizard, apprentice = await synced(chatting, chatting.wizard), await synced(chatting, chatting.apprentice)
    await drained(wizard)
    # The apprentice's rating ends the room; its process dies before the broadcast.
    await database_sync_to_async(rooms.rating_submit)(
        room_id=chatting.room.id, assignment=chatting.apprentice.assignment, frame={"type": "rate", "rating": 4}
    )
    await apprentice.disconnect()
    again = await synced(chatting, chatting.apprentice)
    assert (await receive_until(wizard, "state"))["status"] == "complete"
    await wizard.disconnect()
    await again.disconnect()


async def test_a_partner_who_missed_a_change_of_state_gets_it_when_the_other_comes_back_without_a_sync(chatting: PairedRoom) -> None:
    """A page that finds the room ended as its socket connects leaves, maybe before its sync is
    answered (or the sync fails on a lost database): its coming back is enough."""
    await database_sync_to_async(Room.objects.filter(pk=chatting.room.pk).update)(status="rating")
    wizard, apprentice = await synced(chatting, chatting.wizard), await synced(chatting, chatting.apprentice)
    await drained(wizard)
    await database_sync_to_async(rooms.rating_submit)(
        room_id=chatting.room.id, assignment=chatting.apprentice.assignment, frame={"type": "rate", "rating": 4}
    )
    await apprentice.disconnect()
    again = await connect(f"/ws/room/{chatting.room.id}/", chatting.apprentice.cookie)
    assert (await receive_until(again, "state"))["status"] == "complete"
    await again.disconnect()  # no sync
    assert (await receive_until(wizard, "state"))["status"] == "complete"
    await wizard.disconnect()


def test_retrieval_that_runs_after_the_wizard_answered_keeps_its_passages_but_sends_no_stale_panel(chatting: PairedRoom) -> None:
    """Retrieval behind a long queue: the apprentice's message is retrieved only after the wizard has
    answered. Its passages are stored for the export; the panel for that past turn is not sent."""
    post(chatting, chatting.wizard, "w1", "Do you play the guitar?", checked=NONE_USED)
    asked = post(chatting, chatting.apprentice, "a1", "I prefer the blues")
    post(chatting, chatting.wizard, "w2", "The blues came from the Deep South.", checked=NONE_USED)
    assert rooms.message_after(message_id=asked.pk).knowledge == {}
    assert Message.objects.get(pk=asked.pk).retrieved_passages
    latest = post(chatting, chatting.apprentice, "a2", "Who played the blues on guitar?")
    panel = rooms.message_after(message_id=latest.pk).knowledge[wow.WIZARD]
    assert panel["after_seq"] == latest.seq and panel["passages"]


def test_the_knowledge_for_a_turn_takes_three_statements(chatting: PairedRoom) -> None:
    """What a knowledge worker does for every message, once the articles it finds were read before:
    read the message with its room, save its retrieval, read the last two messages for the panel."""
    post(chatting, chatting.wizard, "w1", "Do you play the guitar?", checked=NONE_USED)
    rooms.message_after(message_id=post(chatting, chatting.apprentice, "a1", "I prefer the blues").pk)
    post(chatting, chatting.wizard, "w2", "The blues came from the Deep South.", checked=NONE_USED)
    asked = post(chatting, chatting.apprentice, "a2", "I prefer the blues")

    with CaptureQueriesContext(connection) as statements:
        panel = rooms.message_after(message_id=asked.pk).knowledge[wow.WIZARD]

    assert len(statements) == 3
    assert panel["after_seq"] == asked.seq
    partner = [p for p in panel["passages"] if p["source"] == "partner"]
    assert [{p["title"]: p["sentences"]} for p in partner] == Message.objects.get(pk=asked.pk).retrieved_passages != []


def test_a_rerank_that_comes_after_the_wizard_answered_ranks_nothing(chatting: PairedRoom, monkeypatch) -> None:
    """A rerank behind a backlog: by the time a worker takes it the wizard has answered, so the
    panel is out of date and ranking it would only waste the worker's time."""
    import collect.tasks

    ranked: list[int] = []
    monkeypatch.setattr(collect.tasks, "panel_rank", lambda **kw: ranked.append(len(kw["passages"])) or {
        "type": "knowledge.reranked", "after_seq": kw["after_seq"], "passages": kw["passages"], "ranked_by": "test"})
    post(chatting, chatting.wizard, "w1", "Do you play the guitar?", checked=NONE_USED)
    asked = post(chatting, chatting.apprentice, "a1", "I prefer the blues")
    panel = rooms.message_after(message_id=asked.pk).knowledge[wow.WIZARD]
    collect.tasks.knowledge_rerank.run(str(chatting.room.id), wow.WIZARD, panel)
    assert ranked == [len(panel["passages"])]
    assert Room.objects.get(pk=chatting.room.pk).knowledge_reranked[wow.WIZARD]["after_seq"] == asked.seq
    post(chatting, chatting.wizard, "w2", "The blues came from the Deep South.", checked=NONE_USED)
    collect.tasks.knowledge_rerank.run(str(chatting.room.id), wow.WIZARD, panel)
    assert ranked == [len(panel["passages"])]


class Encoding:
    """The TF-IDF ranker, said to run an encoder (as the MiniLM and cross-encoder rankers do)."""

    encodes = True
    name = "encoding"

    def __init__(self) -> None:
        self.tfidf = TfidfRanker()

    def score(self, context, candidates, *, topic=""):
        return self.tfidf.score(context, candidates, topic=topic)


@contextmanager
def tasks_started() -> Iterator[list[str]]:
    """The names of the Celery tasks started meanwhile (run eagerly here, as a worker would run them)."""
    started: list[str] = []

    def count(sender=None, **_) -> None:
        started.append(sender.name)

    task_prerun.connect(count, weak=False)
    try:
        yield started
    finally:
        task_prerun.disconnect(count)


async def test_a_lexical_panel_is_reranked_by_the_task_that_retrieved_it(chatting: PairedRoom, settings) -> None:
    """The tests' ranker runs no encoder: the retrieval task ranks the panel itself, saves it on the
    room and sends it right after the panel, in the same event; no rerank task is queued."""
    import collect.tasks

    settings.CELERY_TASK_ALWAYS_EAGER = True  # a queued rerank task would run here, and be seen
    await database_sync_to_async(post)(chatting, chatting.wizard, "w1", "Do you play music?", checked=NONE_USED)
    asked = await database_sync_to_async(post)(chatting, chatting.apprentice, "a1", "I prefer the blues")
    # Connected, not synced: a sync would have this process retrieve for the message itself.
    wizard = await connect(f"/ws/room/{chatting.room.id}/", chatting.wizard.cookie)
    await receive_until(wizard, "state")
    with tasks_started() as started:
        assert await database_sync_to_async(collect.tasks.messages_knowledge.run)([asked.pk]) == 1
    panel = await receive_until(wizard, "knowledge")
    reranked = await wizard.receive_json_from(timeout=10)  # the very next frame
    assert started == []
    assert (panel["after_seq"], reranked["type"], reranked["after_seq"]) == (asked.seq, "knowledge.reranked", asked.seq)
    assert sorted(p["title"] for p in reranked["passages"]) == sorted(p["title"] for p in panel["passages"])
    assert all(len(p["scores"]) == len(p["sentences"]) for p in reranked["passages"])
    room = await database_sync_to_async(Room.objects.get)(pk=chatting.room.pk)
    assert room.knowledge_reranked[wow.WIZARD] == reranked
    assert await wizard.receive_nothing(timeout=0.3)
    await wizard.disconnect()


def test_panels_whose_ranker_encodes_go_to_the_rerank_queue_as_one_task(campaign, chatting: PairedRoom, settings,
                                                                       monkeypatch) -> None:
    """A retrieval task's panels for a ranker that encodes go to the rerank queue (a GPU node's work)
    as one task (a task's own cost was more than ranking a panel); each is still ranked, saved on
    its room and published."""
    import collect.tasks
    import retrieval.rerank

    settings.CELERY_TASK_ALWAYS_EAGER = True  # the rerank task runs here, as a worker would run it
    encoding = Encoding()
    monkeypatch.setattr(retrieval.rerank, "live_ranker", lambda **_: encoding)
    other = make_room(campaign, first_speaker=wow.WIZARD, topic="Blues")
    asked = []
    for paired, text in ((chatting, "I prefer the blues"), (other, "Who played jazz in New Orleans?")):
        post(paired, paired.wizard, "w1", "Do you play music?", checked=NONE_USED)
        asked.append(post(paired, paired.apprentice, "a1", text))
    with tasks_started() as started:
        assert collect.tasks.messages_knowledge.run([m.pk for m in asked]) == 2
    assert started == ["collect.tasks.knowledge_reranks"]
    for paired, message in ((chatting, asked[0]), (other, asked[1])):
        reranked = Room.objects.get(pk=paired.room.pk).knowledge_reranked[wow.WIZARD]
        assert reranked["after_seq"] == message.seq and all("scores" in p for p in reranked["passages"])
        assert reranked["ranked_by"] == "encoding"
