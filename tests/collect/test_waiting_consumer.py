"""Pairing through the waiting-room socket."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from collect.models import Assignment, AssignmentStatus, Campaign, Room, Worker
from collect.services import matchmaking
from tests.collect.conftest import session_cookie
from tests.collect.ws import connect, receive_until

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def enter(campaign: Campaign, name: str) -> tuple[Assignment, bytes]:
    worker = matchmaking.worker_get_or_create(platform="inhouse", external_id=name)
    return matchmaking.assignment_start(campaign=campaign, worker=worker), session_cookie(worker)


@database_sync_to_async
def reload(assignment: Assignment) -> Assignment:
    return Assignment.objects.get(pk=assignment.pk)


async def wait(assignment: Assignment, cookie: bytes):
    communicator = await connect(f"/ws/wait/{assignment.pk}/", cookie)
    return communicator, await communicator.receive_json_from()


async def test_it_pairs_two_waiting_workers(campaign: Campaign) -> None:
    alice, alice_cookie = await enter(campaign, "alice")
    bob, bob_cookie = await enter(campaign, "bob")
    alice_socket, first = await wait(alice, alice_cookie)
    assert first["type"] == "waiting" and first["timeout_seconds"] == campaign.wait_timeout_seconds
    bob_socket, _ = await wait(bob, bob_cookie)
    paired_alice = await receive_until(alice_socket, "paired")
    paired_bob = await receive_until(bob_socket, "paired")
    assert paired_alice["room_url"] == paired_bob["room_url"]
    assert {paired_alice["role"], paired_bob["role"]} == {"wizard", "apprentice"}
    alice, bob = await reload(alice), await reload(bob)
    assert alice.status == bob.status == AssignmentStatus.PAIRED and alice.room_id == bob.room_id
    room = await database_sync_to_async(Room.objects.get)(pk=alice.room_id)
    assert room.turns_required == 2 and room.persona_id is not None
    await alice_socket.disconnect()
    await bob_socket.disconnect()


async def test_it_never_pairs_a_worker_with_themself(campaign: Campaign) -> None:
    alice, cookie = await enter(campaign, "alice")
    again, _ = await enter(campaign, "alice")
    assert again.pk == alice.pk  # the same link twice is the same place in the queue
    second = await database_sync_to_async(Assignment.objects.create)(campaign=campaign, worker=alice.worker)
    first_socket, _ = await wait(alice, cookie)
    second_socket, frame = await wait(second, cookie)
    assert frame["type"] == "waiting"
    assert await first_socket.receive_nothing(timeout=0.3)
    assert (await reload(alice)).status == (await reload(second)).status == AssignmentStatus.WAITING
    await first_socket.disconnect()
    await second_socket.disconnect()


async def test_it_does_not_pair_with_someone_who_left_the_page(campaign: Campaign) -> None:
    alice, alice_cookie = await enter(campaign, "alice")
    alice_socket, _ = await wait(alice, alice_cookie)
    await alice_socket.disconnect()
    bob, bob_cookie = await enter(campaign, "bob")
    bob_socket, frame = await wait(bob, bob_cookie)
    assert frame["type"] == "waiting"
    assert await bob_socket.receive_nothing(timeout=0.3)
    assert (await reload(bob)).status == AssignmentStatus.WAITING
    await bob_socket.disconnect()


async def test_it_gives_up_after_the_campaign_wait(campaign: Campaign) -> None:
    await database_sync_to_async(Campaign.objects.filter(pk=campaign.pk).update)(wait_timeout_seconds=1)
    alice, cookie = await enter(campaign, "alice")
    socket, _ = await wait(alice, cookie)
    timeout = await receive_until(socket, "timeout", timeout=4)
    assert "no partner" in timeout["message"]
    assert (await reload(alice)).status == AssignmentStatus.TIMED_OUT
    await socket.disconnect()


async def test_it_refuses_another_workers_waiting_room(campaign: Campaign) -> None:
    alice, _ = await enter(campaign, "alice")
    charlie = await database_sync_to_async(Worker.objects.create)(external_id="charlie")
    socket = await connect(f"/ws/wait/{alice.pk}/", await database_sync_to_async(session_cookie)(charlie))
    assert (await socket.receive_json_from())["code"] == "not_member"
    assert (await socket.receive_output())["code"] == 4403


async def test_it_accepts_only_pings(campaign: Campaign) -> None:
    alice, cookie = await enter(campaign, "alice")
    socket, _ = await wait(alice, cookie)
    await socket.send_json_to({"type": "message", "text": "hello?"})
    assert (await receive_until(socket, "error"))["code"] == "bad_frame"
    await socket.send_json_to({"type": "ping"})
    assert (await receive_until(socket, "pong"))["type"] == "pong"
    await socket.disconnect()


async def test_a_page_that_missed_its_paired_frame_gets_it_by_asking(campaign: Campaign) -> None:
    alice, alice_cookie = await enter(campaign, "alice")
    bob, _ = await enter(campaign, "bob")
    socket, waiting = await wait(alice, alice_cookie)
    assert waiting["type"] == "waiting"
    # Bob is paired with alice by another process whose `paired` message to her never arrives.
    await database_sync_to_async(matchmaking.waiting_seen)(assignment_id=bob.pk, connected=True)
    room = await database_sync_to_async(matchmaking.room_pair)(assignment_id=bob.pk)
    assert room is not None
    await socket.send_json_to({"type": "status"})
    paired = await receive_until(socket, "paired")
    assert paired["room_url"] == f"/room/{room.pk}/"
    assert (await reload(alice)).status == AssignmentStatus.PAIRED
    await socket.disconnect()


async def test_asking_pairs_two_workers_whose_joins_missed_each_other(campaign: Campaign) -> None:
    alice, alice_cookie = await enter(campaign, "alice")
    socket, _ = await wait(alice, alice_cookie)
    # Bob's page connected on another process before alice's row was visible to it: no pairing.
    bob, _ = await enter(campaign, "bob")
    await database_sync_to_async(matchmaking.waiting_seen)(assignment_id=bob.pk, connected=True)
    await socket.send_json_to({"type": "status"})
    paired = await receive_until(socket, "paired")
    bob = await reload(bob)
    assert bob.status == AssignmentStatus.PAIRED and paired["room_url"] == f"/room/{bob.room_id}/"
    await socket.disconnect()


async def test_asking_while_no_partner_is_there_answers_waiting(campaign: Campaign) -> None:
    alice, cookie = await enter(campaign, "alice")
    socket, _ = await wait(alice, cookie)
    await socket.send_json_to({"type": "status"})
    answer = await receive_until(socket, "waiting")
    assert 0 < answer["remaining_seconds"] <= answer["timeout_seconds"]
    assert (await reload(alice)).status == AssignmentStatus.WAITING
    await socket.disconnect()
