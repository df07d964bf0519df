"""A Wizard of Internet campaign's place on /research/ (through the registry): the index lists it
with its dataset, and an export from the browser gives the command's bytes; the demo campaign."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from collect.models import Campaign
from collect.tasktypes.woi.demo import DEMO_SLUG, demo_ensure
from tests.woi.released import sample_write

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(settings, tmp_path: Path) -> str:
    settings.VAR_DIR = tmp_path / "var"
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the export runs in the request
    call_command("import_dataset", "woi", str(sample_write(tmp_path / "valid.jsonl")), "--campaign", "woi-ex", stdout=io.StringIO())
    return "woi-ex"


def test_the_research_index_lists_the_campaign_and_exports_its_dataset(imported: str, tmp_path: Path) -> None:
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True))
    index = client.get("/research/").content.decode()
    assert f'data-testid="export-campaign-{imported}"' in index and ">Export woi<" in index
    started = client.post("/research/exports/start/", {"kind": "campaign", "slug": imported})
    assert b"manage.py export_dataset woi --campaign woi-ex --out DIR" in client.get(started["Location"]).content
    run = started["Location"]
    status = client.get(f"{run}status/").json()
    assert status["status"] == "done" and status["written"] == 2
    assert [f["name"] for f in status["files"]] == ["test.jsonl", "train.jsonl", "valid.jsonl"]
    body = b"".join(client.get(f"{run}files/valid.jsonl").streaming_content)
    assert body == (tmp_path / "valid.jsonl").read_bytes()


def test_the_demo_campaign_searches_the_demo_knowledge(knowledge) -> None:
    said: list[str] = []
    demo_ensure(wiki=knowledge, say=said.append)
    demo_ensure(wiki=knowledge, say=said.append)  # idempotent
    campaign = Campaign.objects.get(slug=DEMO_SLUG)
    assert campaign.protocol == "woi" and campaign.knowledge_source == knowledge and campaign.is_active
    assert (campaign.min_turns, campaign.max_turns) == (4, 4) and campaign.protocol_config == {}
    assert Campaign.objects.filter(slug=DEMO_SLUG).count() == 1 and "woi-demo" in said[0]
