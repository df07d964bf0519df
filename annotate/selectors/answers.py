"""The answers a job's figures are computed from."""

from __future__ import annotations

from typing import Any

from annotate.models import Assignment, AssignmentStatus, ItemRole, Job


def task_answers(job: Job) -> list[dict[str, Any]]:
    """The submitted answers to the job's task items (gold and qualification items check the
    annotators, they are not data), by item then submission: {item_id, worker_id, answer,
    report_reason, time_spent_ms}."""
    return list(
        Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED, item__role=ItemRole.TASK)
        .order_by("item_id", "submitted_at", "pk")
        .values("item_id", "worker_id", "answer", "report_reason", "time_spent_ms")
    )
