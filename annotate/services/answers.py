"""Submitting an answer: only to your own reservation, once, in the shape the item's kind takes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotate.models import Assignment, AssignmentStatus, Item, ItemRole
from annotate.registry import annotation_kind
from annotate.services import AnnotationError
from annotate.services.assignment import slots_taken
from collect.models import Worker

MAX_TIME_SPENT_MS = 24 * 3600 * 1000
MAX_REASON_CHARS = 1000


def answer_submit(
    *,
    item_id: int,
    worker: Worker,
    report_reason: str = "",
    time_spent_ms: int | None = None,
    now: datetime | None = None,
    **fields: Any,
) -> Assignment:
    """Store the worker's answer to the item they hold. `fields`: the answer's fields of the item's
    kind (its `answer_fields`, e.g. `selected`); `report_reason`: a report of the item instead of
    labels, where the kind allows it. AnnotationError for anything the kind or the reservation refuses."""
    now = now or timezone.now()
    with transaction.atomic():
        # The item's lock orders this against assignment_next's reservations of the same item.
        item = Item.objects.select_for_update().select_related("job").filter(pk=item_id).first()
        if item is None:
            raise AnnotationError("no_item", f"there is no item {item_id}", status=404)
        assignment = Assignment.objects.filter(item=item, worker=worker).first()
        if assignment is None or assignment.status == AssignmentStatus.RELEASED:
            raise AnnotationError("not_assigned", f"item {item_id} is not assigned to you", status=403)
        if assignment.status == AssignmentStatus.SUBMITTED:
            raise AnnotationError("already_answered", f"you have already answered item {item_id}", status=409)
        given = {name: value for name, value in fields.items() if value is not None}
        if report_reason:
            given["report_reason"] = report_reason
        answer = annotation_kind(item.job.kind).part("answer")(item, given)
        reason = clean_reason(report_reason)
        if time_spent_ms is not None and not 0 <= time_spent_ms <= MAX_TIME_SPENT_MS:
            raise AnnotationError("bad_time", f"time_spent_ms must be between 0 and {MAX_TIME_SPENT_MS}")
        if assignment.expires_at <= now and item.role == ItemRole.TASK:
            if slots_taken(item=item, now=now, exclude_worker=worker) >= item.job.overlap:
                raise AnnotationError(
                    "reservation_expired", f"your reservation of item {item_id} expired and it went to others", status=409
                )
        assignment.status = AssignmentStatus.SUBMITTED
        assignment.submitted_at = now
        assignment.answer = answer
        assignment.report_reason = reason
        elapsed = int((now - assignment.assigned_at).total_seconds() * 1000)
        assignment.time_spent_ms = time_spent_ms if time_spent_ms is not None else min(elapsed, MAX_TIME_SPENT_MS)
        assignment.score = answer_score(answer, item.gold, kind=item.job.kind) if item.gold is not None else None
        assignment.save()
        # A report labels nothing: the item still needs `overlap` real answers.
        if item.role == ItemRole.TASK and not reason:
            Item.objects.filter(pk=item.pk).update(answers_count=F("answers_count") + 1)
    return assignment


def clean_reason(reason: Any) -> str:
    if not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS:
        raise AnnotationError("bad_report", f"the report reason must be text of at most {MAX_REASON_CHARS} characters")
    return reason.strip()


def answer_score(answer: dict[str, Any], gold: dict[str, Any], *, kind: str) -> float:
    """Agreement of an answer with the known one, by the kind's measure (its `score`)."""
    return annotation_kind(kind).part("score")(answer, gold)


def fields_refuse(given: dict[str, Any], allowed: tuple[str, ...], message: str) -> None:
    """For a kind's `answer`: AnnotationError("bad_answer", message) when a field other than the
    `allowed` ones was given."""
    if set(given) - set(allowed):
        raise AnnotationError("bad_answer", message)

