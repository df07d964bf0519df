"""A waiting worker's presence comes from their open sockets, as a room member's does: the server
stamps an open waiting socket (the page sends nothing for it), and the worker is away, with the
grace period running, only once their last waiting socket has closed."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from collect.lifecycle import heartbeats
from collect.lifecycle.sweep import SweepResult, sweep_run
from collect.models import Assignment, AssignmentStatus, Campaign, Outcome
from collect.services.matchmaking import WAITING_STALE_SECONDS
from tests.collect.test_waiting_consumer import enter, reload, wait

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def quick_stamps(monkeypatch) -> None:
    monkeypatch.setattr(heartbeats, "STAMP_SECONDS", 0.2)


async def sweep(now: datetime | None = None) -> SweepResult:
    return await database_sync_to_async(sweep_run)(now=now)


async def stamped_after(assignment: Assignment, since: datetime, seconds: float = 5.0) -> bool:
    for _ in range(int(seconds / 0.05)):
        if (await reload(assignment)).last_seen > since:
            return True
        await asyncio.sleep(0.05)
    return False


async def test_an_open_waiting_socket_keeps_a_silent_page_waiting(campaign: Campaign) -> None:
    alice, cookie = await enter(campaign, "alice")
    socket, _ = await wait(alice, cookie)
    # The page has sent nothing for longer than the grace period and its slack.
    silent_since = timezone.now() - timedelta(seconds=campaign.disconnect_grace_seconds + WAITING_STALE_SECONDS + 60)
    await database_sync_to_async(Assignment.objects.filter(pk=alice.pk).update)(last_seen=silent_since)
    assert await stamped_after(alice, silent_since)  # its open socket is the heartbeat
    assert (await sweep()).waits_ended == []
    alice = await reload(alice)
    assert (alice.status, alice.connected) == (AssignmentStatus.WAITING, True)
    await socket.disconnect()


async def test_a_closed_waiting_page_is_away_at_once_and_left_after_the_grace(campaign: Campaign) -> None:
    alice, cookie = await enter(campaign, "alice")
    socket, _ = await wait(alice, cookie)
    await socket.disconnect()
    alice = await reload(alice)
    assert not alice.connected and alice.left_at is not None
    assert alice.pk not in heartbeats.heartbeats.open  # nothing stamps them any more
    grace = timedelta(seconds=campaign.disconnect_grace_seconds)
    assert (await sweep(now=alice.left_at + grace - timedelta(seconds=1))).waits_ended == []
    assert (await sweep(now=alice.left_at + grace + timedelta(seconds=1))).waits_ended == [alice.pk]
    alice = await reload(alice)
    assert (alice.status, alice.outcome, alice.completion_code) == (AssignmentStatus.LEFT, Outcome.LEFT, "")


@pytest.mark.parametrize("closed_first", [0, 1], ids=["older tab", "newer tab"])
async def test_closing_one_of_two_tabs_keeps_the_worker_waiting(campaign: Campaign, closed_first: int) -> None:
    alice, cookie = await enter(campaign, "alice")
    tabs = [(await wait(alice, cookie))[0] for _ in range(2)]
    await tabs[closed_first].disconnect()
    row = await reload(alice)
    assert row.connected and row.left_at is None
    later = timezone.now() + timedelta(seconds=campaign.disconnect_grace_seconds + 1)
    assert (await sweep(now=later)).waits_ended == []
    await tabs[1 - closed_first].disconnect()
    row = await reload(alice)
    assert not row.connected and row.left_at is not None
    assert (row.status, alice.pk in heartbeats.heartbeats.open) == (AssignmentStatus.WAITING, False)


async def test_a_waiting_socket_whose_instance_is_cancelled_stops_stamping(campaign: Campaign) -> None:
    """daphne cancels an instance that does not end in time after its connection closed, and runs
    no disconnect() then: the process must not keep the wait alive."""
    alice, cookie = await enter(campaign, "alice")
    socket, _ = await wait(alice, cookie)
    assert heartbeats.heartbeats.open[alice.pk] == 1
    socket.future.cancel()
    with pytest.raises(asyncio.CancelledError):
        await socket.future
    assert alice.pk not in heartbeats.heartbeats.open
