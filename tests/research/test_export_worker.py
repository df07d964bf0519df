"""An export started from /research/ runs on a real Celery worker of the `index` queue, which
writes the files the page then serves (second CI pass only)."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.research.test_exports import staff_client
from tests.services import celery_worker, child_database_url, needs_broker

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), needs_broker]
WAIT_S = 120


@pytest.fixture
def index_worker(settings, tmp_path: Path):
    settings.VAR_DIR = tmp_path / "var"
    settings.CELERY_TASK_ALWAYS_EAGER = False  # as with CELERY_BROKER_URL set
    env = {**os.environ, "DATABASE_URL": child_database_url(), "GROUNDWORK_VAR_DIR": str(settings.VAR_DIR)}
    with celery_worker("-Q", "index", "--pool", "solo", "--loglevel", "WARNING", env=env) as worker:
        yield worker


def test_a_worker_writes_the_export_the_page_serves(index_worker, tmp_path: Path) -> None:
    from tests.collect.test_export_wow import wow_room
    from tests.factories import make_campaign

    campaign = make_campaign(slug="ex-queued", protocol="wow")
    for n, topic in enumerate(["Blues", "Jazz", "Tea"]):
        wow_room(campaign, topic=topic, marker=f"room {n}")
    client = staff_client()
    run = client.post("/research/exports/start/", {"kind": "campaign", "slug": "ex-queued"})["Location"]
    deadline = time.monotonic() + WAIT_S
    while (status := client.get(f"{run}status/").json())["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline, f"the export is still {status['status']} after {WAIT_S} s"
        time.sleep(0.2)
    assert status["status"] == "done", status["error"]
    out = tmp_path / "command"
    call_command("export_dataset", "wow", "--campaign", "ex-queued", "--out", str(out), stdout=io.StringIO())
    for path in sorted(out.iterdir()):
        response = client.get(f"{run}files/{path.name}")
        assert b"".join(response.streaming_content) == path.read_bytes(), path.name
