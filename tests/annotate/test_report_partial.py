"""During a pilot no relevance item has all its votes yet: the report shows partial figures over
every vote so far, labeled as such, and `export_dataset wowpp --include-partial` writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from annotate.models import Job
from annotate.selectors.report import annotation_report
from tests.annotate.conftest import People, make_job
from tests.annotate.test_report import answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def pilot(people: People) -> Job:
    """Two items of five candidates, 3 votes wanted each, 2 given each (alice and bob)."""
    job = make_job("relevance", slug="pilot", items=2, overlap=3)
    for worker, picks in ((people.alice, [[1], [0, 1]]), (people.bob, [[1, 2], [0, 1]])):
        for selected in picks:
            answer(job, worker, selected=selected)
    return job


def test_the_report_shows_partial_figures_during_a_pilot(pilot: Job, capsys) -> None:
    report = annotation_report(job=pilot)
    assert report["progress"]["complete"] == 0
    assert report["agreement"]["units"] == 0 and report["relevance"]["items"] == 0  # complete items only
    partial = report["partial"]
    assert (partial["items"], partial["complete_items"], partial["partial_items"]) == (2, 0, 2)
    assert partial["votes_per_partial_item"] == 2.0
    assert partial["agreement"]["measure"] == "krippendorff_alpha" and partial["agreement"]["units"] == 10
    assert 0.0 < partial["agreement"]["value"] < 1.0  # they disagree on one sentence of ten
    # threshold 0.6: item 1 has sentence 1 at 2/2 (relevant) and 2 at 1/2; item 2 has 0 and 1 at 2/2
    assert partial["relevance"]["relevant_per_item"]["histogram"] == {"1": 1, "2": 1}
    assert partial["relevance"]["confidence_histogram"]["1.0"] == 3
    assert partial["relevance"]["confidence_histogram"]["0.5"] == 1
    call_command("annotation_report", pilot.slug)
    assert "partial     2 of 2 items still voting: krippendorff_alpha" in capsys.readouterr().out


def test_the_report_page_labels_the_partial_figures(pilot: Job, client: Client) -> None:
    client.force_login(User.objects.create(username="rita", is_staff=True))
    page = client.get(f"/annotate/jobs/{pilot.slug}/report/").content.decode()
    assert 'data-testid="partial"' in page and "Partial figures" in page
    assert "Krippendorff&#x27;s α (partial) over 10 units" in page or "Krippendorff's α (partial) over 10 units" in page
    assert "Relevant sentences per turn — partial: 2 items, 2 still voting" in page
    assert page.count('data-testid="chart"') == 2  # the partial charts, not empty complete ones


def test_no_partial_section_once_every_item_is_complete(pilot: Job, people: People) -> None:
    for _ in range(2):
        answer(pilot, people.charlie, selected=[1])
    report = annotation_report(job=pilot)
    assert report["progress"]["complete"] == 2 and "partial" not in report
    assert report["agreement"]["units"] == 10


def test_export_writes_partial_items_only_when_asked(pilot: Job, tmp_path: Path) -> None:
    call_command("export_dataset", "wowpp", "--job", pilot.slug, "--out", str(tmp_path / "complete.json"), verbosity=0)
    assert json.loads((tmp_path / "complete.json").read_text(encoding="utf-8")) == {}
    call_command("export_dataset", "wowpp", "--job", pilot.slug, "--include-partial",
                 "--out", str(tmp_path / "partial.json"), verbosity=0)
    records = json.loads((tmp_path / "partial.json").read_text(encoding="utf-8"))
    assert len(records) == 2
    first = records["k0"]
    assert first["partial"] is True and first["annotators"] == 2
    assert [s["confidence"] for s in first["annotated_sentences"]] == [0.0, 1.0, 0.5, 0.0, 0.0]
    assert [s["relevance"] for s in first["annotated_sentences"]][:3] == ["notRelevant", "relevant", "notRelevant"]
