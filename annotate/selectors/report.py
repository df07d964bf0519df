"""The researcher's numbers for one job: items, answers, agreement, labels and each annotator.

`annotation_report` returns plain JSON-ready data; the command prints it, the staff page draws it.
"""

from __future__ import annotations

from statistics import fmean, median
from typing import Any

from django.db.models import Count

from annotate import agreement
from annotate.models import Assignment, AssignmentStatus, Item, ItemRole, Job
from annotate.registry import annotation_kind
from annotate.selectors.answers import task_answers
from annotate.selectors.progress import job_progress
from collect.models import Worker


def annotation_report(*, job: Job) -> dict[str, Any]:
    """The job's report: job, progress, items and answers, the entries its kind computes (its
    `report`: "agreement" at least) and every annotator's figures."""
    roles = dict(Item.objects.filter(job=job).values_list("role").annotate(n=Count("pk")))
    answers = task_answers(job)
    report: dict[str, Any] = {
        "job": {"slug": job.slug, "name": job.name, "kind": job.kind, "overlap": job.overlap, "is_active": job.is_active},
        "progress": job_progress(job=job),
        "items": {role: roles.get(role, 0) for role in ItemRole.values},
        "answers": _answer_stats(job, answers),
    }
    section, decisions = annotation_kind(job.kind).part("report")(job, answers)
    report.update(section)
    report.setdefault("agreements", [report["agreement"]])
    report["annotators"] = _annotators(job, agreement.majority_agreement(decisions))
    return report


def _answer_stats(job: Job, answers: list[dict[str, Any]]) -> dict[str, Any]:
    by_role = dict(
        Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED)
        .values_list("item__role").annotate(n=Count("pk"))
    )
    times = [a["time_spent_ms"] for a in answers if a["time_spent_ms"] is not None]
    return {
        **{role: by_role.get(role, 0) for role in ItemRole.values},
        "median_time_ms": median(times) if times else None,
        "reported": sum(1 for a in answers if a["report_reason"]),
    }


def _annotators(job: Job, majority: dict[Any, tuple[int, int]]) -> list[dict[str, Any]]:
    rows: dict[int, dict[str, Any]] = {}
    submitted = Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED)
    for worker_id, role, score, time_ms in submitted.values_list("worker_id", "item__role", "score", "time_spent_ms"):
        row = rows.setdefault(worker_id, {"answers": 0, "gold": [], "qualification": [], "times": []})
        row["answers"] += 1
        if role != ItemRole.TASK and score is not None:
            row[role].append(score)
        if time_ms is not None:
            row["times"].append(time_ms)
    pseudonyms = dict(Worker.objects.filter(pk__in=list(rows)).values_list("pk", "pseudonym"))
    out = []
    for worker_id, row in rows.items():
        agree, total = majority.get(worker_id, (0, 0))
        gold = fmean(row["gold"]) if row["gold"] else None
        majority_share = agree / total if total else None
        reasons = []
        if gold is not None and gold < job.review_min_gold_score:
            reasons.append(f"gold score {gold:.2f} < {job.review_min_gold_score:.2f}")
        if majority_share is not None and majority_share < job.review_min_agreement:
            reasons.append(f"majority agreement {majority_share:.2f} < {job.review_min_agreement:.2f}")
        out.append({
            "worker": pseudonyms.get(worker_id, str(worker_id)),
            "answers": row["answers"],
            "gold_answers": len(row["gold"]),
            "gold_score": gold,
            "qualification_score": fmean(row["qualification"]) if row["qualification"] else None,
            "majority_agreement": majority_share,
            "majority_units": total,
            "median_time_ms": median(row["times"]) if row["times"] else None,
            "flagged": bool(reasons),
            "reasons": reasons,
        })
    return sorted(out, key=lambda r: (not r["flagged"], r["worker"]))


def figure_text(value: Any) -> str:
    """A report figure in text: "–" for none, a float to 3 decimals."""
    if value is None:
        return "–"
    return f"{value:.3f}" if isinstance(value, float) else str(value)
