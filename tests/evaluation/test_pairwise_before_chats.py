"""A pairwise job built before its campaign has chats of two models (the demo's, before anyone
chatted) is still that campaign's: its results page lists it, its export is the model-chat one as
for every pairwise job, and its annotators are told there are no items yet."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from annotate.models import Job
from annotate.selectors.progress import job_progress
from research.targets import export_target_for_job
from tests.evaluation.campaign import make_campaign

pytestmark = pytest.mark.django_db


def test_a_pairwise_job_without_pairs_yet_belongs_to_its_campaign() -> None:
    campaign = make_campaign()
    with pytest.raises(CommandError, match="at least two models"):
        call_command("create_annotation_job", "early-pairs", "--kind", "pairwise", "--campaign", campaign.slug, stdout=io.StringIO())
    job = Job.objects.get(slug="early-pairs")
    assert job.source["campaigns"] == [campaign.slug]
    assert export_target_for_job(job=job).dataset == "modelchat"
    assert job_progress(job=job)["percent"] == 0.0
    staff = Client()
    staff.force_login(User.objects.create(username="rita", is_staff=True))
    page = staff.get(f"/annotate/results/{campaign.slug}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "No pairwise job has been built" not in text and "early-pairs" in text
