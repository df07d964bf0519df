"""Planning a pairwise study: create_annotation_job's power-analysis and sampling options on a job,
and the plan on the job's report (command and page), pair by pair against what the items allow."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from annotate.models import Job
from tests.annotate.conftest import make_job
from tests.annotate.judged_pairs import pairwise_job

pytestmark = pytest.mark.django_db


def create(*args: str) -> str:
    out = io.StringIO()
    call_command("create_annotation_job", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def job() -> Job:
    return pairwise_job("study", {("A", "B"): 80, ("A", "C"): 80, ("B", "C"): 80}, overlap=3)


def test_it_plans_the_judgments_an_existing_job_needs(job: Job) -> None:
    out = create(job.slug, "--kind", "pairwise", "--detect-win-rate", "0.6", "--active-sampling", "--max-judgments", "700")
    job.refresh_from_db()
    assert job.plan["judgments"] == 210 and job.plan["power"] == 0.8 and job.plan["alpha"] == 0.05
    assert job.active_sampling and job.max_judgments == 700 and not job.stop_when_separated
    assert "210 judgments per pair of models (normal approximation 194); 3 pairs: 630 judgments" in out
    assert "pair        A vs B: 0 judgments counted, 240 possible (items × overlap)" in out
    assert "sampling    active sampling; budget 700 judgments" in out
    create(job.slug, "--kind", "pairwise", "--detect-points", "35", "--power", "0.9", "--no-active-sampling", "--stop-when-separated")
    job.refresh_from_db()
    assert job.plan["judgments"] > 240 and not job.active_sampling and job.stop_when_separated and job.max_judgments == 700


def test_a_plan_beyond_the_items_is_flagged_on_the_report(client: Client, job: Job) -> None:
    create(job.slug, "--kind", "pairwise", "--detect-win-rate", "0.55")  # 820 per pair; the items take 240
    client.force_login(User.objects.create(username="rita", is_staff=True))
    page = client.get(f"/annotate/jobs/{job.slug}/report/").content.decode()
    assert "820 judgments per pair of models" in page and page.count('data-testid="study-short"') == 3
    out = io.StringIO()
    call_command("annotation_report", job.slug, stdout=out)
    assert "A vs B: 0 judgments counted, 240 possible (items × overlap), 580 short of the plan" in out.getvalue()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--detect-win-rate", "0.5"], "power analysis: the win rate to detect must be between 0 and 1 and differ from 0.5"),
        (["--detect-win-rate", "0.6", "--power", "1.5"], "power analysis: α must be between 0 and 1 and the power between α and 1"),
        (["--max-judgments", "-1"], "--max-judgments must be ≥ 0"),
    ],
)
def test_it_refuses_a_plan_it_cannot_make(job: Job, args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        create(job.slug, "--kind", "pairwise", *args)
    job.refresh_from_db()
    assert job.plan == {} and job.max_judgments == 0


def test_study_options_belong_to_pairwise_jobs(db) -> None:
    acts = make_job("dialog_acts")
    with pytest.raises(CommandError, match="--active-sampling takes --kind pairwise"):
        create(acts.slug, "--kind", "dialog_acts", "--active-sampling")
    with pytest.raises(CommandError, match="--campaign is needed to create a job"):
        create("new-job", "--kind", "pairwise", "--detect-win-rate", "0.6")
    assert not Job.objects.filter(slug="new-job").exists()
