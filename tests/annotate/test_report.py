"""The researcher's report: the command, and the staff-only page with its charts."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from annotate.models import ItemRole, Job
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from annotate.services.jobs import ItemSpec, items_add
from tests.annotate.conftest import People, make_job, relevance_payload

pytestmark = pytest.mark.django_db


def answer(job: Job, worker, **body) -> None:
    item_id = assignment_next(job=job, worker=worker).assignment.item_id
    answer_submit(item_id=item_id, worker=worker, **body)


def test_it_reports_relevance_agreement_and_flags_a_careless_annotator(capsys, people: People) -> None:
    job = make_job("relevance", items=2, overlap=3, gold_rate=0.0)
    items_add(job=job, specs=[ItemSpec(key="g", payload=relevance_payload(9), role=ItemRole.GOLD, gold={"selected": [1]})])
    for worker, picks in ((people.alice, [[1], [0, 1]]), (people.bob, [[1], [0, 1]]), (people.charlie, [[3, 4], [2]])):
        for selected in picks:
            answer(job, worker, selected=selected)
    Job.objects.filter(pk=job.pk).update(gold_rate=1.0)
    job.refresh_from_db()
    answer(job, people.charlie, selected=[4])  # the gold item, wrong
    call_command("annotation_report", job.slug, "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["items"] == {"task": 2, "gold": 1, "qualification": 0}
    assert report["answers"]["task"] == 6 and report["answers"]["gold"] == 1
    agreement = report["agreement"]
    assert agreement["measure"] == "fleiss_kappa" and agreement["units"] == 10 and agreement["raters_per_unit"] == 3
    assert -1.0 <= agreement["value"] < 1.0
    assert report["relevance"]["relevant_per_item"]["histogram"] == {"1": 1, "2": 1}
    rows = {row["worker"]: row for row in report["annotators"]}
    charlie = rows[people.charlie.pseudonym]
    assert charlie["flagged"] and charlie["gold_score"] == 0.0 and len(charlie["reasons"]) == 2
    assert rows[people.alice.pseudonym]["majority_agreement"] == 1.0 and not rows[people.alice.pseudonym]["flagged"]


def test_it_reports_krippendorffs_alpha_for_dialog_acts(capsys, acts_job: Job, people: People) -> None:
    answer(acts_job, people.alice, acts=[["request_topic"], ["inform_response"], []])
    answer(acts_job, people.bob, acts=[["request_topic"], ["inform_response"], ["feedback_positive"]])
    call_command("annotation_report", acts_job.slug, "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["progress"]["items"] == 3 and report["progress"]["votes"] == 2 and report["progress"]["started"] == 1
    assert report["agreement"]["measure"] == "krippendorff_alpha" and report["agreement"]["units"] == 3 * 16
    assert 0.5 < report["agreement"]["value"] < 1.0
    assert report["dialog_acts"]["act_frequency"]["request_topic"] == 1
    call_command("annotation_report", acts_job.slug)
    assert "krippendorff_alpha" in capsys.readouterr().out


def test_it_shows_the_report_page_to_staff_only(client: Client, relevance_job: Job, people: People) -> None:
    answer(relevance_job, people.alice, selected=[1])
    url = f"/annotate/jobs/{relevance_job.slug}/report/"
    assert client.get(url).status_code == 302  # to the admin login
    client.force_login(User.objects.create(username="rita", is_staff=True))
    page = client.get(url)
    assert page.status_code == 200
    assert page.content.count(b'data-testid="chart"') == 2 and b"Relevant sentences per turn" in page.content
    assert page.content.count(b'data-testid="chart-table"') == 2  # the numbers as tables too
    assert b"vendor/chartjs/chart.umd.min.js" in page.content and b"<script>" not in page.content  # no inline script
    jobs = client.get("/annotate/jobs/")
    assert jobs.status_code == 200 and relevance_job.slug.encode() in jobs.content
