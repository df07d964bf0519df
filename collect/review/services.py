"""Review decisions. One call acts on one or many assignments (bulk) and is all or nothing: every
assignment is checked first, and a refused one changes nothing. The platform calls happen after
the commit; their result is stored on each ReviewAction (sent / failed / recorded for the CSV)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from collect.models import Assignment, Campaign, Decision, Worker
from collect.models_paid import ProviderStatus, ReviewAction
from collect.providers import ProviderError, provider_for

ACTIONS = ("approve", "soft_reject", "reject", "bonus", "block", "unblock", "note")
DECISIONS = {"approve": Decision.APPROVED, "soft_reject": Decision.SOFT_REJECTED, "reject": Decision.REJECTED}
MAX_BONUS_CENTS = 10_000
MAX_TEXT = 500


class ReviewError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class ReviewRequest:
    action: str
    amount_cents: int = 0
    message: str = ""  # bonus message, approval feedback, rejection reason, block reason or note


def _check(request: ReviewRequest, assignments: Sequence[Assignment], wanted: int, *, currency: str) -> None:
    if request.action not in ACTIONS:
        raise ReviewError("bad_action", f"Unknown action {request.action!r}; one of {', '.join(ACTIONS)}.")
    if len(assignments) != wanted or not assignments:
        raise ReviewError("not_found", "Some of these assignments do not exist in this campaign.")
    if len(request.message) > MAX_TEXT:
        raise ReviewError("too_long", f"The message may be at most {MAX_TEXT} characters.")
    unfinished = [a for a in assignments if not a.outcome]
    if unfinished and request.action not in ("block", "unblock", "note"):
        raise ReviewError("not_finished", f"Not finished yet: {_named(unfinished)}.")
    if request.action in DECISIONS:
        decided = [a for a in assignments if a.decision]
        if decided:
            raise ReviewError("already_decided", f"Already decided (a decision is final): {_named(decided)}.")
    if request.action == "reject" and not request.message.strip():
        raise ReviewError("reason_required", "A rejection needs a reason the worker will read.")
    if request.action == "note" and not request.message.strip():
        raise ReviewError("empty_note", "The note is empty.")
    if request.action == "bonus":
        if not isinstance(request.amount_cents, int) or isinstance(request.amount_cents, bool) or request.amount_cents <= 0:
            raise ReviewError("bad_amount", "A bonus must be a positive amount.")
        if request.amount_cents > MAX_BONUS_CENTS:
            raise ReviewError("bad_amount", f"A bonus may be at most {MAX_BONUS_CENTS / 100:.2f} {currency}.")
        unpaid = [a for a in assignments if a.decision not in (Decision.APPROVED, Decision.SOFT_REJECTED)]
        if unpaid:
            raise ReviewError("not_approved", f"Not approved yet, so no bonus: {_named(unpaid)}. Approve them first.")


def _named(assignments: Sequence[Assignment]) -> str:
    """The assignments as the review page shows them: worker pseudonym, role and outcome."""
    return "; ".join(f"{a.worker.pseudonym} ({', '.join(filter(None, [a.role, a.outcome or 'still in the study']))})" for a in assignments)


def review_apply(*, campaign: Campaign, assignment_ids: Sequence[int], request: ReviewRequest, staff: str) -> list[ReviewAction]:
    ids = sorted(set(assignment_ids))
    with transaction.atomic():
        assignments = list(
            Assignment.objects.humans()
            .select_for_update(of=("self",))
            .select_related("worker")
            .filter(campaign=campaign, pk__in=ids)
            .order_by("pk")
        )
        _check(request, assignments, len(ids), currency=campaign.currency)
        actions = [_record(a, request, staff) for a in assignments]
    for action in actions:
        _send(action)
    return actions


def _record(assignment: Assignment, request: ReviewRequest, staff: str) -> ReviewAction:
    now = timezone.now()
    if request.action in DECISIONS:
        assignment.decision, assignment.decision_reason, assignment.decided_at = DECISIONS[request.action], request.message, now
    elif request.action == "bonus":
        assignment.bonus_cents += request.amount_cents
    elif request.action == "note":
        assignment.notes = f"{assignment.notes}\n{staff}: {request.message}".strip()
    elif request.action in ("block", "unblock"):
        blocked = request.action == "block"
        Worker.objects.filter(pk=assignment.worker_id).update(blocked=blocked, blocked_reason=request.message if blocked else "")
    assignment.save(update_fields=["decision", "decision_reason", "decided_at", "bonus_cents", "notes"])
    return ReviewAction.objects.create(
        assignment=assignment, action=request.action, amount_cents=request.amount_cents, message=request.message, staff=staff
    )


def _send(action: ReviewAction) -> None:
    """The platform call for one stored action (soft-reject pays: it approves on the platform)."""
    assignment = Assignment.objects.select_related("worker").get(pk=action.assignment_id)
    provider = provider_for(assignment.worker.platform)
    if provider is None or action.action in ("note", "unblock"):
        return  # recorded: paid through the CSV export, or nothing to send
    try:
        if action.action in ("approve", "soft_reject"):
            detail = provider.approve(assignment, action.message)
        elif action.action == "reject":
            detail = provider.reject(assignment, action.message)
        elif action.action == "bonus":
            detail = provider.bonus(assignment, action.amount_cents, action.message, f"groundwork-{action.pk}")
        else:
            detail = provider.block(assignment, action.message)
        status = ProviderStatus.SENT
    except ProviderError as error:
        detail, status = str(error), ProviderStatus.FAILED
    ReviewAction.objects.filter(pk=action.pk).update(provider_status=status, provider_detail=detail[:2000])
