"""The campaign dashboard's conformance table: the campaign's finished dialogues beside the original
dataset's published figures, a difference that stands out highlighted; staff only."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.collect.test_export_wow import wow_room
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db


def staff() -> Client:
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True))
    return client


def rows(page: str) -> dict[str, tuple[str, bool]]:
    """statistic -> (this campaign's figure, highlighted) from the conformance table."""
    table = page.split('data-testid="conformance"', 1)[1]
    found = re.findall(r'<tr( class="is-flagged"[^>]*)?>\s*<td>([^<]+)</td><td>([^<]+)</td>', table)
    return {name: (value, bool(flag)) for flag, name, value in found}


def test_the_dashboard_shows_the_conformance_table_and_highlights_what_stands_out() -> None:
    short = make_campaign(slug="short-chats", protocol="wow")
    for topic in ("Tea", "Jazz"):
        wow_room(short, topic=topic, messages=5)  # 5 turns a dialogue: 45% under the published 9.05
    typical = make_campaign(slug="typical-chats", protocol="wow")
    wow_room(typical, topic="Tea", messages=9)

    page = staff().get("/research/short-chats/dashboard/").content.decode()
    figures = rows(page)
    assert figures["dialogues"] == ("2", False)
    assert figures["turns per dialogue"] == ("5.00", True)
    assert figures["topics"] == ("2", False)
    assert "Dinan et al. 2019" in page and "more than 25% away" in page

    assert rows(staff_again().get("/research/typical-chats/dashboard/").content.decode())["turns per dialogue"] == ("9.00", False)


def staff_again() -> Client:
    client = Client()
    client.force_login(User.objects.get(username="rita"))
    return client


def test_a_campaign_without_dialogues_says_so_and_the_refresh_skips_the_table() -> None:
    make_campaign(slug="fresh", protocol="wow")
    client = staff()
    assert "No finished dialogue yet." in client.get("/research/fresh/dashboard/").content.decode()
    assert 'data-testid="conformance"' not in client.get("/research/fresh/dashboard/?fragment=1").content.decode()


def test_only_staff_see_it() -> None:
    make_campaign(slug="closed", protocol="wow")
    outsider = Client()
    outsider.force_login(User.objects.create_user("olly", password="x"))
    assert outsider.get("/research/closed/dashboard/").status_code == 302  # the admin's decorator: to its login
    assert Client().get("/research/closed/dashboard/").status_code == 302


def test_a_campaign_its_exporter_refuses_gets_the_reason_not_an_error(monkeypatch) -> None:
    from collect.exporters import ExportError

    make_campaign(slug="refused", protocol="wow")

    def refuse(campaign):
        raise ExportError("room 1 message 2: role 'x' is not wizard/apprentice")

    monkeypatch.setattr("research.views.dashboard.campaign_conformance", refuse)
    page = staff().get("/research/refused/dashboard/")
    assert page.status_code == 200
    assert "No report: room 1 message 2: role &#x27;x&#x27; is not wizard/apprentice" in page.content.decode()
