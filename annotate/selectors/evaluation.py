"""A model-chat campaign's results: its conversations (collect.modelchat's selector) and the
pairwise jobs built from it, put through annotate.evaluation.results."""

from __future__ import annotations

from typing import Any

from annotate.evaluation.results import evaluation_results
from annotate.models import Job, JobKind
from annotate.selectors.pairs import LEADERBOARD_ROUNDS, pairwise_section
from collect.modelchat.selectors import modelchat_conversations, modelchat_settings
from collect.models import Campaign


def campaign_pairwise_jobs(*, campaign: Campaign) -> list[Job]:
    jobs = Job.objects.filter(kind=JobKind.PAIRWISE).order_by("created", "pk")
    return [job for job in jobs if campaign.slug in (job.source or {}).get("campaigns", [])]


def campaign_evaluation(*, campaign: Campaign, rounds: int = LEADERBOARD_ROUNDS) -> dict[str, Any]:
    settings = modelchat_settings(campaign=campaign)
    conversations = modelchat_conversations(campaigns=[campaign.slug])
    pairwise = [
        {"job": job.slug, "name": job.name, **pairwise_section(job=job, rounds=rounds)["pairwise"]}
        for job in campaign_pairwise_jobs(campaign=campaign)
    ]
    results = evaluation_results(
        conversations,
        questions=[q.key for q in settings.questions],
        problems=list(settings.problems),
        pairwise=pairwise,
    )
    return {"campaign": {"slug": campaign.slug, "name": campaign.name}, **results}
