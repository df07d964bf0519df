"""Submitting an answer: only to your own reservation, once, with ids and acts the item has."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotate.models import DIALOG_ACTS, Assignment, AssignmentStatus, Item, ItemRole, JobKind
from annotate.services import AnnotationError
from annotate.services.assignment import slots_taken
from annotate.services.pairs import pair_answer_clean
from collect.models import Worker

MAX_TIME_SPENT_MS = 24 * 3600 * 1000
MAX_REASON_CHARS = 1000
_ACTS = frozenset(DIALOG_ACTS)


def answer_submit(
    *,
    item_id: int,
    worker: Worker,
    selected: list[int] | None = None,
    acts: list[list[str]] | None = None,
    scores: dict[str, int] | None = None,
    report_reason: str = "",
    choice: str | None = None,
    reason: str | None = None,
    time_spent_ms: int | None = None,
    now: datetime | None = None,
) -> Assignment:
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
        if item.job.kind == JobKind.DUCONV_EVAL:
            from annotate.duconv import clean_scores

            if selected is not None or acts is not None:
                raise AnnotationError("bad_answer", "a DuConv evaluation answer has only `scores`")
            answer = clean_scores(scores)
        elif scores is not None:
            raise AnnotationError("bad_answer", "`scores` belong to DuConv evaluation jobs")
        elif item.job.kind == JobKind.PAIRWISE:
            if selected is not None or acts is not None or report_reason:
                raise AnnotationError("bad_answer", "a pairwise answer has `choice` (left or right) and `reason` only")
            answer = pair_answer_clean(item.payload, choice, reason)
        elif choice is not None or reason is not None:
            raise AnnotationError("bad_answer", "`choice` and `reason` belong to pairwise answers")
        elif item.job.kind == JobKind.RELEVANCE:
            if acts is not None or report_reason:
                raise AnnotationError("bad_answer", "a relevance answer has only `selected` (sentence ids)")
            answer = {"selected": clean_selected(item, selected)}
        else:
            if selected is not None:
                raise AnnotationError("bad_answer", "a dialog-act answer has `acts` (one list per message), not `selected`")
            answer = {"acts": clean_acts(item, acts, reported=bool(report_reason.strip()))}
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
        assignment.score = answer_score(answer, item.gold) if item.gold is not None else None
        assignment.save()
        # A report labels nothing: the item still needs `overlap` real answers.
        if item.role == ItemRole.TASK and not reason:
            Item.objects.filter(pk=item.pk).update(answers_count=F("answers_count") + 1)
    return assignment


def clean_selected(item: Item, selected: Any) -> list[int]:
    if not isinstance(selected, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in selected):
        raise AnnotationError("bad_answer", "`selected` must be a list of sentence ids (an empty list: none is relevant)")
    count = len(item.payload["candidates"])
    unknown = sorted({i for i in selected if not 0 <= i < count})
    if unknown:
        raise AnnotationError(
            "unknown_sentence", f"sentence id(s) {', '.join(map(str, unknown))} not in item {item.pk} (ids 0–{count - 1})"
        )
    if len(set(selected)) != len(selected):
        raise AnnotationError("duplicate_sentence", "each sentence id may be selected once")
    return sorted(selected)


def clean_acts(item: Item, acts: Any, *, reported: bool) -> list[list[str]]:
    count = len(item.payload["messages"])
    if acts is None and reported:
        return [[] for _ in range(count)]
    if not isinstance(acts, list) or not all(isinstance(m, list) for m in acts):
        raise AnnotationError("bad_answer", "`acts` must be a list with one list of dialog acts per message")
    if len(acts) != count:
        raise AnnotationError("bad_answer", f"`acts` must have one list per message: {count}, not {len(acts)}")
    for index, message_acts in enumerate(acts):
        unknown = [a for a in message_acts if a not in _ACTS]
        if unknown:
            raise AnnotationError(
                "unknown_act", f"message {index}: unknown dialog act {unknown[0]!r}; choose from {', '.join(DIALOG_ACTS)}"
            )
        if len(set(message_acts)) != len(message_acts):
            raise AnnotationError("bad_answer", f"message {index}: each dialog act may be given once")
    order = {act: n for n, act in enumerate(DIALOG_ACTS)}
    return [sorted(message_acts, key=order.__getitem__) for message_acts in acts]


def clean_reason(reason: Any) -> str:
    if not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS:
        raise AnnotationError("bad_report", f"the report reason must be text of at most {MAX_REASON_CHARS} characters")
    return reason.strip()


def answer_units(answer: dict[str, Any]) -> set[Any]:
    """The yes-decisions of an answer: selected sentence ids, (message index, act) pairs, or the
    winning conversation of a pair."""
    if "winner" in answer:
        return {answer["winner"]}
    if "selected" in answer:
        return set(answer["selected"])
    return {(index, act) for index, acts in enumerate(answer["acts"]) for act in acts}


def answer_score(answer: dict[str, Any], gold: dict[str, Any]) -> float:
    """Jaccard overlap with the known answer's yes-decisions; 1.0 when both say 'none'."""
    if "coherence" in answer:
        from annotate.duconv import scores_agreement

        return scores_agreement(answer, gold)
    given, known = answer_units(answer), answer_units(gold)
    union = given | known
    return len(given & known) / len(union) if union else 1.0
