"""/research/ranker/: the retrained versions with their scores and training sizes, the live one, a
chart of held-out MRR@1 and the recent runs with why they ended as they did; staff only."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from retrieval.training.services import ranker_retrain
from tests.factories import make_campaign
from tests.retrieval.collected import collected_rooms, heldout_file
from tests.retrieval.retrain_fixtures import ranker_dir  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db
URL = "/research/ranker/"


def logged_in(*, staff: bool) -> Client:
    username = "rita" if staff else "walt"
    user = User.objects.filter(username=username).first() or User.objects.create_user(username, password="x", is_staff=staff)
    client = Client()
    client.force_login(user)
    return client


def test_staff_see_the_versions_the_chart_and_the_runs(ranker_dir: Path, tmp_path: Path) -> None:
    empty = logged_in(staff=True).get(URL).content.decode()
    assert "No retrained version yet: the shipped model ranks." in empty and "No run yet." in empty
    ranker_retrain(heldout=tmp_path / "missing.json")
    collected_rooms(make_campaign(), range(0, 20))
    ranker_retrain(heldout=heldout_file(tmp_path / "h.json", range(100, 120)))

    page = logged_in(staff=False).get(URL)
    assert page.status_code == 302 and "/login/" in page["Location"]
    html = logged_in(staff=True).get(URL).content.decode()
    assert "Live model: <strong>v0001</strong>" in html
    assert "<strong>v0001</strong> <span class=\"badge\">live</span>" in html
    assert "<td>20</td><td>20</td><td>0</td>" in html  # dialogues, wizard turns, relevance items
    assert "<td>1.000</td>" in html and "shipped-lexical: 0.000" in html
    assert "Held-out MRR@1 per version" in html
    assert html.index(">promoted<") < html.index(">failed<")  # newest run first
    assert "missing.json" in html and "the live model stays" in html


def test_anonymous_visitors_are_sent_to_log_in(ranker_dir: Path) -> None:
    page = Client().get(URL)
    assert page.status_code == 302 and "/login/" in page["Location"]
