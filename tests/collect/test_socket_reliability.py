"""Acknowledgements and the frames a page resends: an ack never depends on the page's sync cursor,
an action resent with its client_id is applied once and acked each time, a message refused as
stale_knowledge brings the panel it lacked, and a lost database or Redis under a socket ends it
with 4500 and one log line (no traceback) without leaving its member marked connected."""

from __future__ import annotations

import asyncio
import logging

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from collect import selectors
from collect.groups import room_group
from groundwork import close_codes
from collect.models import ActionReceipt, Assignment, Room, RoomStatus
from collect.tasktypes.wow import protocol as wow
from collect.services import rooms
from tests.collect.conftest import PairedRoom, make_room
from tests.collect.test_resend_copies import frames_before_pong, resends
from tests.collect.test_room_repair import synced
from tests.collect.ws import connect, receive_ack, receive_until, send

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]
NONE_USED = {"no_passages_used": True}


@pytest.fixture
def chatting(campaign) -> PairedRoom:
    return make_room(campaign, first_speaker=wow.APPRENTICE, topic="Guitar")


@database_sync_to_async
def reload(room: Room) -> Room:
    room.refresh_from_db()
    return room


@database_sync_to_async
def receipts(room: Room) -> list[str]:
    return list(ActionReceipt.objects.filter(room=room).values_list("kind", flat=True))


async def test_a_state_read_before_a_message_the_socket_has_sent_is_not_sent_after_it(chatting: PairedRoom) -> None:
    # broadcast_state reads the room, then broadcasts: a message stored on another process in
    # between reaches the partner first. Sent after it, the older state would say it is not
    # their turn, and the page would wait for good.
    apprentice = await synced(chatting, chatting.apprentice)
    wizard = await synced(chatting, chatting.wizard)
    before = await database_sync_to_async(selectors.room_snapshot)(chatting.room.id)
    await send(apprentice, {"type": "message", "client_id": "a1", "text": "Do you play the guitar?"})
    assert (await receive_until(wizard, "message"))["seq"] == 1
    assert (await receive_until(wizard, "state"))["last_seq"] == 1  # the state the message carried
    await get_channel_layer().group_send(room_group(chatting.room.id), {"type": "room.state", "snapshot": before})
    state = await receive_until(wizard, "state")
    assert (state["last_seq"], state["your_turn"]) == (1, True)
    await apprentice.disconnect()
    await wizard.disconnect()


async def test_a_sync_beyond_the_last_seq_does_not_hide_the_senders_ack(chatting: PairedRoom) -> None:
    # The page's cursor says 40 in a room with no message (a page of another room's tab, a bug):
    # its next message must still be acknowledged, and the partner's still delivered to it.
    apprentice = await synced(chatting, chatting.apprentice, after=40)
    wizard = await synced(chatting, chatting.wizard)
    await send(apprentice, {"type": "message", "client_id": "a1", "text": "Do you play the guitar?"})
    ack = await receive_ack(apprentice, "a1")
    assert ack["seq"] == 1
    await receive_until(wizard, "knowledge")
    await send(wizard, {"type": "message", "client_id": "w1", "text": "I do.", "checked": NONE_USED})
    assert (await receive_ack(wizard, "w1"))["seq"] == 2
    relayed = await receive_until(apprentice, "message")
    assert relayed["seq"] == 2 and relayed["client_id"] == "w1"
    await apprentice.disconnect()
    await wizard.disconnect()


async def test_a_resent_topic_choice_is_applied_once_and_acked_each_time(campaign) -> None:
    paired = await database_sync_to_async(make_room)(campaign, first_speaker=wow.WIZARD)
    wizard = await synced(paired, paired.wizard)
    frame = {"type": "choose_topic", "topic": "Guitar", "client_id": "t1"}
    await send(wizard, frame)
    assert (await receive_ack(wizard, "t1"))["action"] == "choose_topic"
    await receive_until(wizard, "state")  # the first copy's broadcasts, then its knowledge
    while not await wizard.receive_nothing(0.5):
        await wizard.receive_json_from()
    socket_before = resends("socket")
    # The page had no ack yet when it sent the same frame again: this socket, which applied it,
    # answers from memory, without the state and the knowledge again (old servers answered wrong_state).
    await send(wizard, frame)
    assert await frames_before_pong(wizard) == [{"type": "ack", "client_id": "t1", "action": "choose_topic"}]
    assert resends("socket") - socket_before == 1
    assert (await reload(paired.room)).status == RoomStatus.CHATTING
    assert await receipts(paired.room) == ["choose_topic"]
    await wizard.disconnect()
    # A copy on a new socket (the ack was lost with a process) is looked up: acked, applied once.
    wizard = await synced(paired, paired.wizard)
    await send(wizard, frame)
    assert (await receive_ack(wizard, "t1"))["action"] == "choose_topic"
    assert await receipts(paired.room) == ["choose_topic"]
    await wizard.disconnect()


async def test_a_resent_rating_is_acked_and_the_partner_gets_the_ended_state_again(chatting: PairedRoom) -> None:
    await database_sync_to_async(lambda: Room.objects.filter(pk=chatting.room.pk).update(status=RoomStatus.RATING))()
    apprentice = await synced(chatting, chatting.apprentice)
    frame = {"type": "rate", "rating": 4, "client_id": "r1"}
    # The first copy committed but its ack and broadcast died with its process.
    await database_sync_to_async(rooms.rating_submit)(
        room_id=chatting.room.id, assignment=chatting.apprentice.assignment, frame=frame, client_id="r1"
    )
    wizard = await connect(f"/ws/room/{chatting.room.id}/", chatting.wizard.cookie)
    await receive_until(wizard, "state")
    await send(apprentice, frame)
    assert (await receive_ack(apprentice, "r1"))["action"] == "rate"
    assert (await receive_until(wizard, "state"))["status"] == "complete"
    room = await reload(chatting.room)
    assert room.status == RoomStatus.COMPLETE and room.rating == 4
    await apprentice.disconnect()
    await wizard.disconnect()


async def test_an_action_without_a_client_id_still_works(campaign) -> None:
    paired = await database_sync_to_async(make_room)(campaign, first_speaker=wow.WIZARD)
    wizard = await synced(paired, paired.wizard)
    await send(wizard, {"type": "choose_topic", "topic": "Guitar"})
    assert (await receive_until(wizard, "state"))["status"] == "chatting"
    assert await receipts(paired.room) == []
    await send(wizard, {"type": "choose_topic", "topic": "Guitar", "client_id": ""})
    error = await receive_until(wizard, "error")
    assert error["code"] == "bad_frame"
    await wizard.disconnect()


async def test_a_message_refused_as_stale_brings_the_panel_whose_retrieval_was_lost(chatting: PairedRoom) -> None:
    wizard = await synced(chatting, chatting.wizard)
    shown = await receive_until(wizard, "knowledge")  # the topic's panel, after_seq 0
    # The apprentice's message committed; its retrieval died with a dropped database connection.
    await database_sync_to_async(rooms.message_post)(
        room_id=chatting.room.id, assignment=chatting.apprentice.assignment, client_id="a1",
        text="I prefer blues music from the Deep South", frame={"type": "message"},
    )
    checked = {"source": "partner", "passage": 0, "sentence": 0, "knowledge_seq": shown["after_seq"]}
    await send(wizard, {"type": "message", "client_id": "w1", "text": "Six of them.", "checked": checked})
    frames = [await wizard.receive_json_from(timeout=5) for _ in range(2)]
    while not any(f["type"] == "knowledge" and f["after_seq"] == 1 for f in frames):
        frames.append(await wizard.receive_json_from(timeout=5))
    assert any(f["type"] == "error" and f["code"] == "stale_knowledge" for f in frames), frames
    panel = next(f for f in frames if f["type"] == "knowledge" and f["after_seq"] == 1)
    assert any(p["source"] == "partner" for p in panel["passages"]), panel
    # Checked again on the panel that came, the message is stored.
    checked = {"source": "partner", "passage": 0, "sentence": 0, "knowledge_seq": 1}
    await send(wizard, {"type": "message", "client_id": "w1", "text": "Six of them.", "checked": checked})
    assert (await receive_ack(wizard, "w1"))["seq"] == 2
    await wizard.disconnect()


async def test_a_sentence_of_the_current_panel_is_taken_though_the_wizards_own_retrieval_was_lost(chatting: PairedRoom, settings) -> None:
    """The wizard's last message committed, its retrieval died with a dropped database connection:
    the panel for the apprentice's reply has the partner's passages and none of the wizard's own.
    A sentence of the partner's passages is named by the same indexes whether the wizard's come
    later or not, so it is not refused as stale."""
    settings.KNOWLEDGE_MODE = "process"
    wizard, apprentice = await synced(chatting, chatting.wizard), await synced(chatting, chatting.apprentice)
    await send(apprentice, {"type": "message", "client_id": "a1", "text": "Do you play the guitar?"})
    await receive_ack(apprentice, "a1")
    await database_sync_to_async(rooms.message_post)(
        room_id=chatting.room.id, assignment=chatting.wizard.assignment, client_id="w1",
        text="I do, six strings.", frame={"type": "message", "checked": NONE_USED},
    )
    await send(apprentice, {"type": "message", "client_id": "a2", "text": "I prefer blues music from the Deep South"})
    panel = await receive_until(wizard, "knowledge", timeout=10)
    while not (panel["after_seq"] == 3 and any(p["source"] == "partner" for p in panel["passages"])):
        panel = await receive_until(wizard, "knowledge", timeout=10)
    assert not any(p["source"] == "self" for p in panel["passages"])
    checked = {"source": "partner", "passage": 0, "sentence": 0, "knowledge_seq": 3}
    await send(wizard, {"type": "message", "client_id": "w2", "text": "Blues began in the 1860s.", "checked": checked})
    frame = await wizard.receive_json_from(timeout=10)
    while frame.get("client_id") != "w2" and frame["type"] != "error":
        frame = await wizard.receive_json_from(timeout=10)
    assert frame["type"] == "message" and frame["seq"] == 4, frame
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_lost_database_in_a_group_event_closes_with_4500_and_one_log_line(chatting: PairedRoom, monkeypatch, caplog) -> None:
    wizard = await synced(chatting, chatting.wizard)

    def lost(*args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(selectors, "room_snapshot", lost)
    caplog.set_level(logging.INFO)
    layer = get_channel_layer()
    await layer.group_send(_room_group(chatting.room.id), {"type": "room.catchup", "last_seq": 0, "from": "x"})
    closed = await _close_of(wizard)
    assert closed["code"] == close_codes.SERVICE_LOST and closed["reason"] == "service_lost"
    assert [r for r in caplog.records if r.exc_info] == []
    assert any("service lost" in r.getMessage() for r in caplog.records)


async def test_redis_lost_at_disconnect_still_marks_the_member_gone(chatting: PairedRoom, monkeypatch, caplog) -> None:
    wizard = await synced(chatting, chatting.wizard)
    assert await _connected(chatting.wizard.assignment)
    layer = get_channel_layer()

    async def lost(*args, **kwargs):
        raise RedisConnectionError("Connection closed by server.")

    monkeypatch.setattr(layer, "group_discard", lost)
    monkeypatch.setattr(layer, "group_send", lost)
    caplog.set_level(logging.INFO)
    await wizard.disconnect()
    assert not await _connected(chatting.wizard.assignment)
    assert [r for r in caplog.records if r.exc_info] == []


async def test_redis_lost_under_the_socket_closes_it_with_4500_and_marks_the_member_gone(chatting: PairedRoom, monkeypatch, caplog) -> None:
    layer = get_channel_layer()
    gone = asyncio.Event()
    receive = layer.receive

    async def receive_until_redis_goes(channel: str) -> dict:
        # As the Redis layer's reader does when Redis goes away: the waiting receive() raises.
        message, went = asyncio.ensure_future(receive(channel)), asyncio.ensure_future(gone.wait())
        done, _ = await asyncio.wait({message, went}, return_when=asyncio.FIRST_COMPLETED)
        if message in done:
            went.cancel()
            return message.result()
        message.cancel()
        raise RedisConnectionError("Connection closed by server.")

    monkeypatch.setattr(layer, "receive", receive_until_redis_goes)
    wizard = await synced(chatting, chatting.wizard)
    assert await _connected(chatting.wizard.assignment)
    caplog.set_level(logging.INFO)

    async def lost(*args, **kwargs):
        raise RedisConnectionError("Connection closed by server.")

    monkeypatch.setattr(layer, "group_discard", lost)
    monkeypatch.setattr(layer, "group_send", lost)
    gone.set()
    closed = await _close_of(wizard)
    assert closed["code"] == close_codes.SERVICE_LOST
    assert not await _connected(chatting.wizard.assignment)
    assert [r for r in caplog.records if r.exc_info] == []


def _room_group(room_id) -> str:
    from collect.groups import room_group

    return room_group(str(room_id))


async def _close_of(communicator) -> dict:
    while True:
        output = await communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output


@database_sync_to_async
def _connected(assignment: Assignment) -> bool:
    return Assignment.objects.get(pk=assignment.pk).connected


async def test_a_lost_database_while_joining_the_waiting_room_closes_with_4500_and_one_log_line(campaign, monkeypatch, caplog) -> None:
    from collect.services import matchmaking
    from tests.collect.conftest import session_cookie

    @database_sync_to_async
    def enter():
        worker = matchmaking.worker_get_or_create(platform="inhouse", external_id="alice")
        return matchmaking.assignment_start(campaign=campaign, worker=worker), session_cookie(worker)

    assignment, cookie = await enter()

    def lost(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(matchmaking, "waiting_seen", lost)
    caplog.set_level(logging.INFO)
    waiting = await connect(f"/ws/wait/{assignment.pk}/", cookie)
    closed = await _close_of(waiting)
    assert closed["code"] == close_codes.SERVICE_LOST and closed["reason"] == "service_lost"
    assert [r for r in caplog.records if r.exc_info] == []
    assert any("WaitingConsumer" in r.getMessage() and "service lost" in r.getMessage() for r in caplog.records)
