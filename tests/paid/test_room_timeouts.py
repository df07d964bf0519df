"""Over the real ASGI stack: the embedded sweep ends a room whose partner stalls or leaves, and
the waiting member's socket hears of it; a room stays open while both are present."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async
from prometheus_client import REGISTRY

from collect.models import Assignment, Campaign, Outcome, Room, RoomStatus
from tests.collect.conftest import PairedRoom, campaign, make_room  # noqa: F401  (campaign: a fixture)
from tests.collect.ws import connect, receive_until, send
from tests.paid.sweeper import beat_stand_in

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def seats(room: Room) -> dict[str, Assignment]:
    return {a.role: a for a in Assignment.objects.filter(room=room)}


async def sweeps_run(count: int, seconds: float = 10.0) -> None:
    """Wait until `count` more lifecycle sweeps have run in this process (groundwork_sweeps_total)."""
    def done() -> float:
        return REGISTRY.get_sample_value("groundwork_sweeps_total") or 0.0

    target, deadline = done() + count, time.monotonic() + seconds
    while done() < target:
        assert time.monotonic() < deadline, f"fewer than {count} sweeps ran in {seconds} s"
        await asyncio.sleep(0.05)


async def ended_state(communicator) -> dict:
    with beat_stand_in():
        state = await receive_until(communicator, "state", timeout=6)
        while state["status"] not in ("complete", "incomplete"):
            state = await receive_until(communicator, "state", timeout=6)
    return state


async def test_an_idle_partner_is_stalled_and_the_waiting_worker_gets_partner_stalled(campaign: Campaign) -> None:
    await database_sync_to_async(Campaign.objects.filter(pk=campaign.pk).update)(turn_timeout_seconds=1)
    paired: PairedRoom = await database_sync_to_async(make_room)(campaign, topic="Guitar")
    wizard = await connect(f"/ws/room/{paired.room.id}/", paired.wizard.cookie)
    apprentice = await connect(f"/ws/room/{paired.room.id}/", paired.apprentice.cookie)
    await receive_until(wizard, "state")
    # The first speaker (the wizard) never writes: after the turn timeout the sweep ends the room.
    state = await ended_state(apprentice)
    assert state["status"] == "incomplete" and state["end_reason"] == "the wizard did not reply in time"
    members = await seats(paired.room)
    assert (members["wizard"].outcome, members["apprentice"].outcome) == (Outcome.STALLED, Outcome.PARTNER_STALLED)
    assert members["apprentice"].completion_code == campaign.outcome_codes["partner_stalled"]
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_partner_who_closed_the_tab_left_after_the_grace_period(campaign: Campaign) -> None:
    await database_sync_to_async(Campaign.objects.filter(pk=campaign.pk).update)(disconnect_grace_seconds=1)
    paired: PairedRoom = await database_sync_to_async(make_room)(campaign, topic="Guitar")
    wizard = await connect(f"/ws/room/{paired.room.id}/", paired.wizard.cookie)
    apprentice = await connect(f"/ws/room/{paired.room.id}/", paired.apprentice.cookie)
    await receive_until(apprentice, "state")
    await apprentice.disconnect()
    state = await ended_state(wizard)
    assert state["end_reason"] == "the apprentice left"
    members = await seats(paired.room)
    assert (members["apprentice"].outcome, members["wizard"].outcome) == (Outcome.LEFT, Outcome.PARTNER_LEFT)
    await wizard.disconnect()


async def test_a_room_with_both_present_and_active_stays_open(campaign: Campaign) -> None:
    paired: PairedRoom = await database_sync_to_async(make_room)(campaign, topic="Guitar")
    wizard = await connect(f"/ws/room/{paired.room.id}/", paired.wizard.cookie)
    apprentice = await connect(f"/ws/room/{paired.room.id}/", paired.apprentice.cookie)
    await receive_until(wizard, "state")
    with beat_stand_in():
        await sweeps_run(3)
    await send(wizard, {"type": "ping"})
    await receive_until(wizard, "pong")
    room = await database_sync_to_async(Room.objects.get)(pk=paired.room.pk)
    assert room.status == RoomStatus.CHATTING
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_the_waiting_socket_refuses_a_worker_who_skipped_onboarding(campaign: Campaign) -> None:
    from collect.models import Worker
    from tests.collect.conftest import session_cookie

    await database_sync_to_async(Campaign.objects.filter(pk=campaign.pk).update)(
        onboarding={"quiz": [{"question": "Q?", "choices": ["a", "b"], "answer": 0}]}
    )
    worker = await database_sync_to_async(Worker.objects.create)(external_id="skipper")
    assignment = await database_sync_to_async(Assignment.objects.create)(campaign=campaign, worker=worker)
    socket = await connect(f"/ws/wait/{assignment.pk}/", await database_sync_to_async(session_cookie)(worker))
    assert (await socket.receive_json_from())["code"] == "onboarding_required"
    assert (await database_sync_to_async(Assignment.objects.get)(pk=assignment.pk)).connected is False
