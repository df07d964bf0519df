"""How an assignment ended, and the completion code that outcome earns.

Every paid outcome has a code by default, so the partner who was left behind and the worker who
waited in vain are paid; a worker who stalled, left or returned the task gets none. A model's seat
(model chat) is no worker: it gets no outcome and no code, only closed when its room ends."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Room, RoomStatus

PAID_OUTCOMES = (Outcome.COMPLETED, Outcome.PARTNER_LEFT, Outcome.PARTNER_STALLED, Outcome.NO_PARTNER, Outcome.SCREENED_OUT)
UNPAID_OUTCOMES = (Outcome.STALLED, Outcome.LEFT, Outcome.RETURNED)


def default_codes() -> dict[str, str]:
    """Fresh codes for every paid outcome but `completed` (that one is Campaign.completion_code)."""
    return {str(outcome): secrets.token_hex(4).upper() for outcome in PAID_OUTCOMES if outcome != Outcome.COMPLETED}


def code_for(campaign: Campaign, outcome: str) -> str:
    """The completion code for `outcome` in this campaign; "" when it earns none."""
    codes = campaign.outcome_codes if isinstance(campaign.outcome_codes, dict) else {}
    if outcome in codes:
        return str(codes[outcome] or "")
    if outcome == Outcome.COMPLETED:
        return campaign.completion_code
    return ""


def assignment_outcome_set(*, assignment_id: int, outcome: str) -> bool:
    """Record how one assignment ended, once: a later call never overwrites it. True if set now.
    A waiting assignment is closed only while still waiting, so a pairing that claims it at the
    same moment wins and the outcome is not recorded."""
    campaign = Campaign.objects.get(assignments__pk=assignment_id)
    fields = {"outcome": outcome, "ended_at": timezone.now(), "completion_code": code_for(campaign, outcome)}
    open_ = Assignment.objects.humans().filter(pk=assignment_id, outcome="")
    if open_.filter(room__isnull=False).update(status=AssignmentStatus.FINISHED, **fields):
        return True
    return open_.filter(room__isnull=True, status=AssignmentStatus.WAITING).update(status=_unpaired_status(outcome), **fields) == 1


def assignment_return(*, assignment_id: int) -> bool:
    """A waiting worker gives the task back: `returned`, no code. Only while still waiting (never
    a seated worker), so a pairing at the same moment wins. True if recorded now."""
    fields = {"outcome": Outcome.RETURNED, "ended_at": timezone.now(), "completion_code": ""}
    return (
        Assignment.objects.filter(pk=assignment_id, outcome="", room__isnull=True, status=AssignmentStatus.WAITING).update(
            status=AssignmentStatus.LEFT, **fields
        )
        == 1
    )


def _unpaired_status(outcome: str) -> str:
    return AssignmentStatus.TIMED_OUT if outcome == Outcome.NO_PARTNER else AssignmentStatus.LEFT


def room_outcomes_set(*, room: Room, outcomes: Mapping[str, str]) -> None:
    """Record each member's outcome (by role) for a room that has just ended, in the caller's transaction."""
    for member in room.members.humans().filter(outcome=""):
        assignment_outcome_set(assignment_id=member.pk, outcome=outcomes.get(member.role, Outcome.COMPLETED))
    room.members.model_seats().filter(status=AssignmentStatus.PAIRED).update(status=AssignmentStatus.FINISHED)
    # Its authenticity signals, for review: off the chat path, once the end has committed.
    transaction.on_commit(lambda: _signals_queue(room.pk))


def _signals_queue(room_id: object) -> None:
    from collect.tasks import authenticity_signals  # the tasks module imports this one's callers

    try:
        authenticity_signals.delay(str(room_id))
    except Exception as error:  # noqa: BLE001 - a lost broker costs the signals until review, never the ending
        logging.getLogger(__name__).warning("room %s: authenticity signals not queued: %r", room_id, error)


def room_finished_outcomes(room: Room) -> dict[str, str]:
    """Outcomes for a room that ended by itself (complete; or incomplete without a recorded cause)."""
    if room.status == RoomStatus.COMPLETE:
        return {member.role: Outcome.COMPLETED for member in room.members.all()}
    return {member.role: Outcome.PARTNER_LEFT for member in room.members.all()}


def rooms_settle(*, limit: int = 500) -> int:
    """Ended rooms whose members still show no outcome (a protocol ended it, or a process died
    between the two writes): give them their outcomes now. Returns how many rooms it settled."""
    # A model's seat never has an outcome: only a seat still open marks its room unsettled.
    no_outcome = Assignment.objects.humans().filter(outcome="")
    ended = (
        Room.objects.filter(status__in=(RoomStatus.COMPLETE, RoomStatus.INCOMPLETE))
        .filter(Q(members__in=no_outcome) | Q(members__status=AssignmentStatus.PAIRED))
        .distinct()[:limit]
    )
    settled = 0
    for room in ended:
        with transaction.atomic():
            room_outcomes_set(room=room, outcomes=room_finished_outcomes(room))
        settled += 1
    return settled
