"""The lifecycle sweep: every wait and every room ends with an outcome per worker, and the right code."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from collect.lifecycle.outcomes import code_for
from collect.lifecycle.sweep import sweep_run
from collect.models import Assignment, AssignmentStatus, Outcome, Room, RoomStatus
from collect.services import rooms
from tests.factories import add_message, make_campaign, make_room, make_worker

pytestmark = pytest.mark.django_db


def later(seconds: float):
    return timezone.now() + timedelta(seconds=seconds)


def members(room: Room) -> dict[str, Assignment]:
    return {a.role: a for a in Assignment.objects.filter(room=room)}


def present(room: Room) -> None:
    Assignment.objects.filter(room=room).update(connected=True, last_seen=timezone.now(), left_at=None)


def test_it_ends_a_wait_past_the_timeout_as_no_partner_with_its_code() -> None:
    campaign = make_campaign(wait_timeout_seconds=60)
    waiting = Assignment.objects.create(campaign=campaign, worker=make_worker(), last_seen=timezone.now())
    assert sweep_run(now=later(30)).waits_ended == []
    assert sweep_run(now=later(61)).waits_ended == [waiting.pk]
    waiting.refresh_from_db()
    assert (waiting.status, waiting.outcome) == (AssignmentStatus.TIMED_OUT, Outcome.NO_PARTNER)
    assert waiting.completion_code == campaign.outcome_codes["no_partner"] != ""


def test_a_worker_who_closed_the_waiting_page_left_and_gets_no_code() -> None:
    campaign = make_campaign(wait_timeout_seconds=600, disconnect_grace_seconds=10)
    waiting = Assignment.objects.create(campaign=campaign, worker=make_worker(), last_seen=timezone.now())
    sweep_run(now=later(60))
    waiting.refresh_from_db()
    assert (waiting.status, waiting.outcome, waiting.completion_code) == (AssignmentStatus.LEFT, Outcome.LEFT, "")


def test_a_member_away_past_the_grace_period_left_and_the_partner_is_paid() -> None:
    campaign = make_campaign(disconnect_grace_seconds=60)
    room = make_room(campaign)
    present(room)
    Assignment.objects.filter(room=room, role="apprentice").update(connected=False, left_at=timezone.now())
    assert sweep_run(now=later(30)).rooms_ended == []
    assert sweep_run(now=later(61)).rooms_ended == [str(room.pk)]
    room.refresh_from_db()
    seats = members(room)
    assert (room.status, room.end_reason) == (RoomStatus.INCOMPLETE, "the apprentice left")
    assert (seats["apprentice"].outcome, seats["apprentice"].completion_code) == (Outcome.LEFT, "")
    assert seats["wizard"].outcome == Outcome.PARTNER_LEFT
    assert seats["wizard"].completion_code == code_for(campaign, Outcome.PARTNER_LEFT) != ""
    assert {a.status for a in seats.values()} == {AssignmentStatus.FINISHED}


def test_a_member_whose_node_died_is_gone_once_their_heartbeat_is_old() -> None:
    """No disconnect was ever processed (left_at stays empty): the silence alone ends the room."""
    campaign = make_campaign(disconnect_grace_seconds=10)
    room = make_room(campaign)
    present(room)
    Assignment.objects.filter(room=room, role="wizard").update(last_seen=timezone.now() - timedelta(seconds=120))
    sweep_run()
    assert members(room)["wizard"].outcome == Outcome.LEFT
    assert members(room)["apprentice"].outcome == Outcome.PARTNER_LEFT


def test_when_both_are_gone_both_left() -> None:
    campaign = make_campaign(disconnect_grace_seconds=10)
    room = make_room(campaign)
    Assignment.objects.filter(room=room).update(connected=False, left_at=timezone.now())
    sweep_run(now=later(11))
    assert {a.outcome for a in members(room).values()} == {Outcome.LEFT}


def test_an_idle_room_ends_with_the_member_whose_turn_it_was_stalled() -> None:
    campaign = make_campaign(turn_timeout_seconds=180)
    room = make_room(campaign, first_speaker="wizard")
    present(room)
    add_message(room, "wizard", "Hello there!")
    Room.objects.filter(pk=room.pk).update(activity_at=timezone.now())
    Assignment.objects.filter(room=room).update(last_seen=later(170))  # still pinging
    assert sweep_run(now=later(170)).rooms_ended == []
    Assignment.objects.filter(room=room).update(last_seen=later(181))
    assert sweep_run(now=later(181)).rooms_ended == [str(room.pk)]
    room.refresh_from_db()
    seats = members(room)
    assert room.status == RoomStatus.INCOMPLETE and room.end_reason == "the apprentice did not reply in time"
    assert (seats["apprentice"].outcome, seats["apprentice"].completion_code) == (Outcome.STALLED, "")
    assert seats["wizard"].outcome == Outcome.PARTNER_STALLED
    assert seats["wizard"].completion_code == campaign.outcome_codes["partner_stalled"]


def test_a_message_restarts_the_turn_clock(knowledge) -> None:
    campaign = make_campaign(knowledge_source=knowledge, turn_timeout_seconds=100)
    room = make_room(campaign, first_speaker="wizard")
    Room.objects.filter(pk=room.pk).update(activity_at=timezone.now() - timedelta(seconds=90))
    present(room)
    wizard = members(room)["wizard"]
    rooms.message_post(room_id=room.pk, assignment=wizard, client_id="w1", text="Hi", frame={"checked": {"no_passages_used": True}})
    assert sweep_run(now=later(20)).rooms_ended == []


def test_a_room_idle_in_its_rating_step_ends_complete_and_everyone_is_paid() -> None:
    campaign = make_campaign(turn_timeout_seconds=60)
    room = make_room(campaign, status=RoomStatus.RATING)
    present(room)
    Assignment.objects.filter(room=room).update(last_seen=later(61))
    sweep_run(now=later(61))
    room.refresh_from_db()
    assert room.status == RoomStatus.COMPLETE
    assert {(a.outcome, a.completion_code) for a in members(room).values()} == {(Outcome.COMPLETED, campaign.completion_code)}


def test_a_rated_room_gives_both_workers_completed() -> None:
    campaign = make_campaign()
    room = make_room(campaign, status=RoomStatus.RATING)
    rooms.rating_submit(room_id=room.pk, assignment=members(room)["apprentice"], frame={"type": "rate", "rating": 4})
    assert {(a.status, a.outcome) for a in members(room).values()} == {(AssignmentStatus.FINISHED, Outcome.COMPLETED)}


def test_it_settles_ended_rooms_left_paired_and_never_overwrites_an_outcome() -> None:
    campaign = make_campaign()
    room = make_room(campaign, status=RoomStatus.COMPLETE)
    assert sweep_run().settled == 1
    assert {a.outcome for a in members(room).values()} == {Outcome.COMPLETED}
    assert sweep_run().settled == 0
    assert not Assignment.objects.filter(status=AssignmentStatus.PAIRED).exists()


def test_a_live_room_with_present_members_is_left_alone() -> None:
    campaign = make_campaign()
    room = make_room(campaign)
    present(room)
    result = sweep_run()
    assert result.rooms_ended == [] and result.waits_ended == []
    assert {a.outcome for a in members(room).values()} == {""}
