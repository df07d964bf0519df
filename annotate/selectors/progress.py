"""How far a job, and one annotator in it, have come."""

from __future__ import annotations

from statistics import fmean
from typing import Any

from django.db.models import Count, F, Q, Sum, Value
from django.db.models.functions import Least
from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, Item, ItemRole, Job
from collect.models import Worker


def qualification_state(*, job: Job, worker: Worker) -> str:
    """none (the job has no qualification set) | pending | passed | failed."""
    total = Item.objects.filter(job=job, role=ItemRole.QUALIFICATION).count()
    if total == 0:
        return "none"
    scores = list(
        Assignment.objects.filter(
            job=job, worker=worker, status=AssignmentStatus.SUBMITTED, item__role=ItemRole.QUALIFICATION
        ).values_list("score", flat=True)
    )
    if len(scores) < total:
        return "pending"
    return "passed" if fmean(s or 0.0 for s in scores) >= job.qualification_min_score else "failed"


def worker_progress(*, job: Job, worker: Worker) -> dict[str, Any]:
    answered = Assignment.objects.filter(job=job, worker=worker, status=AssignmentStatus.SUBMITTED)
    total = Item.objects.filter(job=job, role=ItemRole.QUALIFICATION).count()
    progress = {"answered": answered.count(), "qualification": "none", "qualification_answered": 0, "qualification_total": total}
    if total:
        progress["qualification"] = qualification_state(job=job, worker=worker)
        progress["qualification_answered"] = answered.filter(item__role=ItemRole.QUALIFICATION).count()
    return progress


def job_progress_brief(*, job: Job) -> dict[str, Any]:
    """What an annotator sees of the whole job: one aggregate over the item index."""
    counts = Item.objects.filter(job=job, role=ItemRole.TASK).aggregate(
        items=Count("pk"), complete=Count("pk", filter=Q(answers_count__gte=job.overlap) | Q(imported_tally__isnull=False))
    )
    return {"items": counts["items"], "complete": counts["complete"]}


def job_progress(*, job: Job) -> dict[str, Any]:
    """Task items only: gold and qualification items have no overlap to reach.

    An item counts at most `job.overlap` answers towards `votes` and `percent`: answers beyond it
    (the overlap lowered in the admin after annotation started) finish nothing, so a job with one
    item over-answered and another unanswered is not shown as done. `answers_given` counts every
    submitted task answer. A job with no items yet is at 0%."""
    tasks = Item.objects.filter(job=job, role=ItemRole.TASK)
    imported = tasks.filter(imported_tally__isnull=False).count()
    counts = tasks.filter(imported_tally__isnull=True).aggregate(
        items=Count("pk"),
        complete=Count("pk", filter=Q(answers_count__gte=job.overlap)),
        started=Count("pk", filter=Q(answers_count__gt=0)),
        votes=Sum(Least(F("answers_count"), Value(job.overlap))),
        answers_given=Sum("answers_count"),
    )
    items = counts["items"] + imported
    votes_needed = counts["items"] * job.overlap
    votes = counts["votes"] or 0
    if votes_needed:
        percent = round(100.0 * votes / votes_needed, 1)
    else:
        percent = 100.0 if imported else 0.0  # imported tallies are finished; no items is not done
    return {
        "items": items,
        "complete": counts["complete"] + imported,
        "started": counts["started"] + imported,
        "votes": votes,
        "answers_given": counts["answers_given"] or 0,
        "votes_needed": votes_needed,
        "percent": percent,
        "reserved_now": Assignment.objects.filter(
            job=job, status=AssignmentStatus.ASSIGNED, expires_at__gt=timezone.now()
        ).count(),
        "annotators": Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED)
        .values("worker").distinct().count(),
    }
