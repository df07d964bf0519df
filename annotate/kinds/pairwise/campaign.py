"""A model-chat campaign's results: its conversations (collect.tasktypes.modelchat's selector) and the
pairwise jobs built from it, put through annotate.kinds.pairwise.evaluation.results; the pairwise judgments also
per ACUTE question (all the campaign's jobs asking it pooled: one leaderboard per question); and,
in a campaign showing several models' replies per turn, the evaluators' picks as judgments of their
own leaderboard (`choice_results`)."""

from __future__ import annotations

from typing import Any

from annotate.kinds.pairwise.evaluation.results import evaluation_results
from annotate.kinds.pairwise import NAME
from annotate.models import Job
from annotate.kinds.pairwise.selectors import LEADERBOARD_ROUNDS, pair_check_failures, pair_outcomes, pairwise_results, pairwise_section
from annotate.kinds.pairwise.pairs import ACUTE_QUESTIONS
from collect.tasktypes.modelchat.prism import choice_judgments
from collect.tasktypes.modelchat.selectors import modelchat_conversations, modelchat_settings
from collect.models import Campaign


def campaign_pairwise_jobs(*, campaign: Campaign) -> list[Job]:
    jobs = Job.objects.filter(kind=NAME).order_by("created", "pk")
    return [job for job in jobs if campaign.slug in (job.source or {}).get("campaigns", [])]


def campaign_evaluation(*, campaign: Campaign, rounds: int = LEADERBOARD_ROUNDS) -> dict[str, Any]:
    settings = modelchat_settings(campaign=campaign)
    conversations = modelchat_conversations(campaigns=[campaign.slug])
    jobs = campaign_pairwise_jobs(campaign=campaign)
    pairwise = [{"job": job.slug, "name": job.name, **pairwise_section(job=job, rounds=rounds)["pairwise"]} for job in jobs]
    results = evaluation_results(
        conversations,
        questions=[q.key for q in settings.questions],
        problems=list(settings.problems),
        pairwise=pairwise,
    )
    return {
        "campaign": {"slug": campaign.slug, "name": campaign.name},
        **results,
        "pairwise_by_question": pairwise_by_question(jobs=jobs, rounds=rounds),
        "choices": choice_results(campaign=campaign, rounds=rounds),
    }


def choice_results(*, campaign: Campaign, rounds: int = LEADERBOARD_ROUNDS) -> dict[str, Any] | None:
    """Win rates and the leaderboard of the evaluators' picks among several models' replies
    (protocol_config.prism: the picked model beats each other one shown); None when the campaign
    has no picks. The one place the results read those judgments."""
    outcomes = list(choice_judgments(campaigns=[campaign.slug]))
    return pairwise_results(outcomes, rounds=rounds) if outcomes else None


def pairwise_by_question(*, jobs: list[Job], rounds: int = LEADERBOARD_ROUNDS) -> list[dict[str, Any]]:
    """One leaderboard per ACUTE question asked by these jobs, in the questions' order: the counted
    judgments of every job asking it, with the jobs and how many judges were left out."""
    by_question: dict[str, list[Job]] = {}
    for job in jobs:
        by_question.setdefault(job.question or "engaging", []).append(job)
    sections = []
    for question in [q for q in ACUTE_QUESTIONS if q in by_question]:
        asked = by_question[question]
        outcomes = [outcome for job in asked for outcome in pair_outcomes(job=job)]
        sections.append({
            "question": str(question),
            "text": ACUTE_QUESTIONS[question]["question"],
            "jobs": [job.slug for job in asked],
            "excluded_judges": sum(len(pair_check_failures(job=job)) for job in asked),
            **pairwise_results(outcomes, rounds=rounds),
        })
    return sections
