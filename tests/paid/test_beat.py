"""With a broker, the sweep runs under Celery beat on a real worker (second CI pass only)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from collect.models import Assignment, Outcome, Room, RoomStatus
from tests.factories import make_campaign, make_room

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (os.environ.get("CELERY_BROKER_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs CELERY_BROKER_URL and a PostgreSQL DATABASE_URL",
    ),
]
ROOT = Path(__file__).resolve().parents[2]


def test_the_sweep_is_on_the_beat_schedule() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["collect-sweep"]
    assert entry["task"] == "collect.tasks.sweep"


def test_beat_and_a_worker_end_a_stalled_room(tmp_path: Path) -> None:
    campaign = make_campaign(turn_timeout_seconds=60)
    room = make_room(campaign, first_speaker="wizard")
    Room.objects.filter(pk=room.pk).update(activity_at=timezone.now() - timedelta(seconds=120))
    Assignment.objects.filter(room=room).update(connected=True, last_seen=timezone.now() + timedelta(minutes=10))
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "GROUNDWORK_SWEEP_SECONDS": "1",
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "groundwork", "worker", "-B", "-Q", "default", "--pool", "solo",
         "--loglevel", "WARNING", "--schedule", str(tmp_path / "beat-schedule")],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            room.refresh_from_db()
            if room.status == RoomStatus.INCOMPLETE:
                break
            time.sleep(0.5)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert room.status == RoomStatus.INCOMPLETE
    assert dict(Assignment.objects.filter(room=room).values_list("role", "outcome")) == {
        "wizard": Outcome.STALLED,
        "apprentice": Outcome.PARTNER_STALLED,
    }
