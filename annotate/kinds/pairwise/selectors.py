"""What pairwise judgments say about the models: outcomes, win rates with binomial tests, and the
Bradley–Terry leaderboard.

Only task items count. An annotator whose mean score on the known-answer check pairs is below the
job's `review_min_gold_score` is excluded from the results (all their judgments); annotators who
failed the onboarding (qualification) set never get task items at all.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from statistics import fmean
from typing import Any

from annotate.kinds.pairwise import NAME
from annotate.kinds.pairwise.evaluation.bradley_terry import MIN_BATTLES, leaderboard
from annotate.kinds.pairwise.evaluation.groups import connecting_pairs, group_summary
from annotate.kinds.pairwise.evaluation.stats import win_rate_test
from annotate.models import Assignment, AssignmentStatus, ItemRole, Job
from collect.models import Worker

LEADERBOARD_ROUNDS = 1000


def pair_check_failures(*, job: Job) -> dict[int, float]:
    """worker id -> mean check-pair score, for the annotators below the job's threshold."""
    scores: dict[int, list[float]] = defaultdict(list)
    checks = Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED, item__role=ItemRole.GOLD)
    for worker_id, score in checks.values_list("worker_id", "score"):
        scores[worker_id].append(score or 0.0)
    means = {worker_id: fmean(values) for worker_id, values in scores.items()}
    return {worker_id: mean for worker_id, mean in means.items() if mean < job.review_min_gold_score}


def pair_outcomes(*, job: Job, include_excluded: bool = False) -> list[dict[str, Any]]:
    """One record per counted judgment: the two models and conversations, the winner, the reason.
    With include_excluded, the judgments of annotators who failed the check pairs too, marked
    `counted: false`."""
    excluded = pair_check_failures(job=job)
    answers = (
        Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED, item__role=ItemRole.TASK)
        .select_related("item", "worker")
        .order_by("submitted_at", "pk")
    )
    if not include_excluded:
        answers = answers.exclude(worker_id__in=list(excluded))
    outcomes = []
    for answer in answers:
        conversations = answer.item.payload["conversations"]
        a, b = conversations["a"], conversations["b"]
        outcomes.append({
            "item": answer.item.key,
            "model_a": a["model"],
            "model_b": b["model"],
            "conversation_a": a["id"],
            "conversation_b": b["id"],
            "winner": "model_a" if answer.answer["winner"] == "a" else "model_b",
            "shown_left": answer.item.payload["left"],
            "reason": answer.answer["reason"],
            "worker": answer.worker.pseudonym,
            "time_spent_ms": answer.time_spent_ms,
            "counted": answer.worker_id not in excluded,
        })
    return outcomes


def pairwise_results(outcomes: list[dict[str, Any]], *, rounds: int = LEADERBOARD_ROUNDS) -> dict[str, Any]:
    """Win rates of every two models (binomial test) and the leaderboard over all outcomes, with the
    leaderboard's groups and the pairs that would connect them (annotate.kinds.pairwise.evaluation.groups)."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for outcome in outcomes:
        a, b, winner = outcome["model_a"], outcome["model_b"], outcome["winner"]
        index = {"model_a": 0, "model_b": 1, "tie": 2}[winner]
        if a > b:
            a, b, index = b, a, (1, 0, 2)[index]
        counts[(a, b)][index] += 1
    models = sorted({name for pair in counts for name in pair})
    win_rates = []
    for a, b in itertools.combinations(models, 2):
        wins, losses, ties = counts.get((a, b), [0, 0, 0])
        win_rates.append({"model_a": a, "model_b": b, **win_rate_test(wins, losses, ties)})
    triples = [(o["model_a"], o["model_b"], o["winner"]) for o in outcomes]
    board = leaderboard(triples, rounds=rounds) if len(models) >= 2 else {}
    return {
        "judgments": len(outcomes),
        "win_rates": win_rates,
        "leaderboard": board,
        "groups": group_summary(board),
        "connect": connecting_pairs(board),
        "min_battles": MIN_BATTLES,
    }


def pairwise_section(*, job: Job, rounds: int = LEADERBOARD_ROUNDS) -> dict[str, Any]:
    excluded = pair_check_failures(job=job)
    pseudonyms = dict(Worker.objects.filter(pk__in=list(excluded)).values_list("pk", "pseudonym"))
    results = pairwise_results(pair_outcomes(job=job), rounds=rounds)
    return {
        "pairwise": {
            "question": job.question or "engaging",
            **results,
            "excluded_annotators": [
                {"worker": pseudonyms.get(worker_id, str(worker_id)), "check_score": score}
                for worker_id, score in sorted(excluded.items())
            ],
        }
    }


def campaign_pair_judgments(*, campaigns: list[str]) -> list[dict[str, Any]]:
    """Every judgment of the pairwise jobs built from these campaigns, for exports: the job and its
    question with each outcome; `counted` is false for annotators left out of the results."""
    jobs = Job.objects.filter(kind=NAME).order_by("created", "pk")
    records = []
    for job in jobs:
        if not set(campaigns) & set((job.source or {}).get("campaigns", [])):
            continue
        for outcome in pair_outcomes(job=job, include_excluded=True):
            records.append({"job": job.slug, "question": job.question or "engaging", **outcome})
    return records
