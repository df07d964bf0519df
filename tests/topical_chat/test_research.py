"""Topical-Chat's place on /research/, through the registry: its campaigns are listed with their
export, which writes the command's files (both folders of them) and counts its conversations."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from collect.exporters import ExportOptions, export_dataset, export_progress
from tests.topical_chat import sample

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(settings, tmp_path: Path) -> str:
    settings.VAR_DIR = tmp_path / "var"
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the export runs in the request
    call_command("import_dataset", "topical_chat", str(sample.write(tmp_path / "release")), job="tc-research", stdout=io.StringIO())
    return "tc-research"


def test_staff_export_a_campaign_from_research_with_the_commands_bytes(imported: str, tmp_path: Path) -> None:
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True))
    index = client.get("/research/")
    assert index.status_code == 200 and f'data-testid="export-campaign-{imported}"'.encode() in index.content

    started = client.post("/research/exports/start/", {"kind": "campaign", "slug": imported})
    run = started["Location"]
    assert f"manage.py export_dataset topical_chat --campaign {imported} --out DIR".encode() in client.get(run).content
    status = client.get(f"{run}status/").json()
    assert status["status"] == "done"
    out = tmp_path / "command"
    call_command("export_dataset", "topical_chat", "--campaign", imported, "--out", str(out), stdout=io.StringIO())
    expected = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.json"))}
    assert "conversations/valid_freq.json" in expected and "reading_sets/post-build/valid_freq.json" in expected
    assert sorted(f["name"] for f in status["files"]) == sorted(expected)
    body = b"".join(client.get(f"{run}files/conversations/valid_freq.json").streaming_content)
    assert body == expected["conversations/valid_freq.json"] == (tmp_path / "release/conversations/valid_freq.json").read_bytes()
    archive = client.get(f"{run}files/{imported}-topical_chat.zip")
    with zipfile.ZipFile(io.BytesIO(b"".join(archive.streaming_content))) as zipped:
        assert {n: zipped.read(n) for n in zipped.namelist()} == expected

    outsider = Client()
    outsider.force_login(User.objects.create_user("olly", password="x"))
    assert outsider.get("/research/").status_code == 403
    assert outsider.get(f"{run}files/conversations/valid_freq.json").status_code == 403


def test_the_export_counts_each_conversation_once(imported: str, tmp_path: Path) -> None:
    ticks: list[int] = []
    token = export_progress.set(lambda: ticks.append(1))
    try:
        result = export_dataset("topical_chat", tmp_path / "out", ExportOptions(campaigns=(imported,)))
    finally:
        export_progress.reset(token)
    assert len(ticks) == result.counts["conversations/valid_freq.json"] == 3


def test_the_dashboard_and_review_pages_chart_its_ratings(imported: str) -> None:
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True))
    dashboard = client.get(f"/research/{imported}/dashboard/")
    assert dashboard.status_code == 200
    page = dashboard.content.decode()
    for title in ("Agent 1 ratings of the conversation", "Agent 2 ratings of the conversation", "Turn ratings by the partner"):
        assert title in page
    assert client.get(f"/research/{imported}/review/").status_code == 200
    from collect.models import Campaign, Room
    from collect.tasktypes.topical_chat.protocol import TOPICAL_CHAT

    campaign = Campaign.objects.get(slug=imported)
    charts = TOPICAL_CHAT.rating_histograms(campaign=campaign, rooms=Room.objects.filter(campaign=campaign))
    assert charts == [
        ("Agent 1 ratings of the conversation", [("Poor", 0), ("Not Good", 0), ("Passable", 1), ("Good", 1), ("Excellent", 1)]),
        ("Agent 2 ratings of the conversation", [("Poor", 0), ("Not Good", 1), ("Passable", 0), ("Good", 1), ("Excellent", 0)]),
        ("Turn ratings by the partner", [("Poor", 1), ("Not Good", 1), ("Passable", 1), ("Good", 2), ("Excellent", 3)]),
    ]
