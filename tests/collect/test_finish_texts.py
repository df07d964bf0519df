"""The finish page's words for the worker left behind: "what you wrote has been kept" only for a
worker who wrote something."""

from __future__ import annotations

from html import unescape

import pytest
from django.test import Client
from django.utils import timezone

from collect.lifecycle.outcomes import room_outcomes_set
from collect.models import Message, Outcome, RoomStatus
from tests.collect.conftest import PairedRoom, Seat, make_room

pytestmark = pytest.mark.django_db

KEPT = "What you wrote has been kept"


def _stall_wizard(paired: PairedRoom) -> None:
    """The wizard's turn ran out: the sweep's outcomes, set as it sets them."""
    room = paired.room
    room.status, room.ended, room.end_reason = RoomStatus.INCOMPLETE, timezone.now(), "the wizard did not reply in time"
    room.save()
    room_outcomes_set(room=room, outcomes={"wizard": Outcome.STALLED, "apprentice": Outcome.PARTNER_STALLED})


def _finish_page(seat: Seat, room_id: object) -> str:
    client = Client()
    name, value = seat.cookie.decode().split("=", 1)
    client.cookies[name] = value
    response = client.get(f"/room/{room_id}/done/")
    assert response.status_code == 200
    return unescape(response.content.decode())


def test_it_does_not_claim_kept_writing_from_a_worker_who_wrote_nothing(campaign) -> None:
    paired = make_room(campaign, topic="Blues")
    _stall_wizard(paired)
    page = _finish_page(paired.apprentice, paired.room.id)
    assert "did not reply in time" in page and "You are paid for your time" in page
    assert KEPT not in page


def test_it_tells_a_worker_who_wrote_that_their_messages_are_kept(campaign) -> None:
    paired = make_room(campaign, topic="Blues", first_speaker="apprentice")
    Message.objects.create(room=paired.room, seq=1, sender=paired.apprentice.assignment, role="apprentice", client_id="c-1", text="Hi!")
    _stall_wizard(paired)
    page = _finish_page(paired.apprentice, paired.room.id)
    assert KEPT in page and "stopped replying" in page
