"""The Curiosity room page and the researcher's analysis page."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from collect.tasktypes.curiosity.analysis import like_rates_by_source
from collect.tasktypes.curiosity.exporter import DB_FILE
from collect.tasktypes.curiosity.importer import curiosity_import
from collect.models import Campaign
from tests.collect.conftest import CuriosityRoom
from tests.curiosity.dialogs import dialog, md5, write_dialogs
from tests.curiosity.factdb import write_factdb
from tests.staff import admin_login

pytestmark = pytest.mark.django_db


def test_a_curiosity_room_gets_its_own_screen(client: Client, paired: CuriosityRoom) -> None:
    client.get(f"/join/{paired.room.campaign.slug}/?worker=alice")
    page = client.get(f"/room/{paired.room.id}/")
    assert page.status_code == 200
    assert b"curiosity/room.js" in page.content and b'data-role="user"' in page.content
    assert b'data-testid="known-form"' in page.content and b'data-testid="fact-bank"' not in page.content


@pytest.fixture
def imported(tmp_path: Path, factdb_dir: Path) -> Campaign:
    db = tmp_path / DB_FILE
    ids = write_factdb(db)["Namibia"]
    # Per dialog: one liked assistant message using a rooted fact, one unliked using none.
    path = write_dialogs(tmp_path / "curiosity_dialogs.train.json", [dialog(1, "Namibia", ids), dialog(2, "Namibia", ids)], md5(db))
    curiosity_import(path=path, facts=db, campaign="imported")
    return Campaign.objects.get(slug="imported")


def test_it_computes_the_like_rate_by_fact_source(imported: Campaign) -> None:
    analysis = like_rates_by_source(campaigns=[imported])
    rates = {rate.key: (rate.liked, rate.messages) for rate in analysis.rates}
    assert rates == {"known": (2, 2), "section": (0, 0), "random": (0, 0), "none": (0, 2)}
    assert (analysis.dialogues, analysis.assistant_messages, analysis.liked) == (2, 4, 2)
    known = analysis.rates[0]
    assert known.rate == 1.0 and 0.3 < known.interval[0] < 1.0 == known.interval[1]


def test_the_analysis_page_is_for_staff_only(client: Client, imported: Campaign) -> None:
    anonymous = client.get("/research/curiosity/")
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous.url
    User.objects.create_user("ra", password="x", is_staff=True)
    assert admin_login(client, "ra", "x").status_code == 302
    page = client.get("/research/curiosity/?campaign=imported")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-source="known" data-rate="100.0"' in html and 'data-source="none" data-rate="0.0"' in html
    # Drawn by the vendored chart library from its JSON, not as inline SVG.
    assert 'data-testid="interval-chart"' in html and '"kind": "interval"' in html and "<svg" not in html
    assert "2 dialogues" in html
    assert client.get("/research/curiosity/?campaign=nope").status_code == 404
