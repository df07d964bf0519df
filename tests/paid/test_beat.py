"""With a broker, the sweep runs under Celery beat on a real worker (second CI pass only)."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from collect.models import Assignment, Outcome, Room, RoomStatus
from tests.factories import make_campaign, make_room
from tests.services import celery_worker, needs_broker, child_database_url

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    needs_broker,
]


def test_the_sweep_is_on_the_beat_schedule() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["collect-sweep"]
    assert entry["task"] == "collect.tasks.sweep"


def test_beat_and_a_worker_end_a_stalled_room(tmp_path: Path) -> None:
    campaign = make_campaign(turn_timeout_seconds=60)
    room = make_room(campaign, first_speaker="wizard")
    Room.objects.filter(pk=room.pk).update(activity_at=timezone.now() - timedelta(seconds=120))
    Assignment.objects.filter(room=room).update(connected=True, last_seen=timezone.now() + timedelta(minutes=10))
    env = {**os.environ, "DATABASE_URL": child_database_url(), "GROUNDWORK_SWEEP_SECONDS": "1"}
    options = ("-B", "-Q", "default", "--pool", "solo", "--loglevel", "WARNING", "--schedule", str(tmp_path / "beat-schedule"))
    with celery_worker(*options, env=env):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            room.refresh_from_db()
            if room.status == RoomStatus.INCOMPLETE:
                break
            time.sleep(0.5)
    assert room.status == RoomStatus.INCOMPLETE
    assert dict(Assignment.objects.filter(room=room).values_list("role", "outcome")) == {
        "wizard": Outcome.STALLED,
        "apprentice": Outcome.PARTNER_STALLED,
    }
