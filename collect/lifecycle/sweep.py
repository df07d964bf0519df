"""The periodic sweep: ends what no page will end. Runs under Celery beat with a broker
(collect.tasks.sweep) and as a background task of the server process in the embedded mode
(collect.lifecycle.background). Every step is idempotent, so two sweeps at once are harmless.

- waiting assignments past the campaign's wait timeout → `no_partner`; those whose page went away
  (its last socket closed the grace period ago, or no heartbeat for the grace period plus the
  slack) → `left`;
- live rooms with a member away past the grace period → `left` for them, `partner_left` for the
  other (both `left` when both are gone); a model's seat (model chat) is never away;
- live rooms idle past the turn timeout → `stalled` for the member whose move it was,
  `partner_stalled` for the other;
- a room in its rating step ends complete when either happens there (the chat itself was done);
- ended rooms whose members have no outcome yet get theirs (rooms_settle)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from collect.lifecycle.outcomes import assignment_outcome_set, room_outcomes_set, rooms_settle
from collect.lifecycle.presence import gone_filter
from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Room, RoomStatus
from collect import registry
from collect.services.matchmaking import LIVE_ROOM_STATUSES, WAITING_STALE_SECONDS
from groundwork import metrics


@dataclass
class SweepResult:
    waits_ended: list[int] = field(default_factory=list)  # assignment ids
    rooms_ended: list[str] = field(default_factory=list)  # room ids
    settled: int = 0


def sweep_run(*, now: datetime | None = None) -> SweepResult:
    now = now or timezone.now()
    result = SweepResult()
    with metrics.SWEEP_SECONDS.time():
        # Two small queries, not one OR across both joins (that multiplies assignments by rooms).
        ids = set(Assignment.objects.filter(status=AssignmentStatus.WAITING).values_list("campaign_id", flat=True).distinct())
        ids |= set(Room.objects.filter(status__in=LIVE_ROOM_STATUSES).values_list("campaign_id", flat=True).distinct())
        for campaign in Campaign.objects.filter(pk__in=ids):
            result.waits_ended += _end_waits(campaign, now)
            result.rooms_ended += _end_abandoned_rooms(campaign, now)
            result.rooms_ended += _end_stalled_rooms(campaign, now)
        result.settled = rooms_settle()
    metrics.SWEEPS.inc()
    metrics.SWEEP_ENDED.labels("waits").inc(len(result.waits_ended))
    metrics.SWEEP_ENDED.labels("rooms").inc(len(result.rooms_ended))
    return result


def _end_waits(campaign: Campaign, now: datetime) -> list[int]:
    waiting = Assignment.objects.filter(campaign=campaign, status=AssignmentStatus.WAITING)
    expired = now - timedelta(seconds=campaign.wait_timeout_seconds)
    closed = now - timedelta(seconds=campaign.disconnect_grace_seconds)
    silent = now - timedelta(seconds=campaign.disconnect_grace_seconds + WAITING_STALE_SECONDS)
    ended = []
    # An open waiting socket is stamped by its process (lifecycle.heartbeats) and a closed one
    # sets left_at, so the grace counts from the close, as in a room.
    away = Q(left_at__lte=closed) | Q(last_seen__lte=silent)
    for pk, created in waiting.filter(Q(created__lte=expired) | away).values_list("pk", "created"):
        outcome = Outcome.NO_PARTNER if created <= expired else Outcome.LEFT
        if assignment_outcome_set(assignment_id=pk, outcome=outcome):
            ended.append(pk)
    return ended


def _end_abandoned_rooms(campaign: Campaign, now: datetime) -> list[str]:
    gone = gone_filter(grace_seconds=campaign.disconnect_grace_seconds, now=now)
    room_ids = (
        Assignment.objects.filter(campaign=campaign, status=AssignmentStatus.PAIRED, room__status__in=LIVE_ROOM_STATUSES)
        .filter(gone)
        .values_list("room_id", flat=True)
        .distinct()
    )
    ended = []
    for room_id in list(room_ids):
        with transaction.atomic():
            room = _locked_live(room_id)
            if room is None:
                continue
            gone_roles = set(room.members.filter(gone).values_list("role", flat=True))
            if not gone_roles:
                continue
            if room.status == RoomStatus.RATING:
                _finish(room, RoomStatus.COMPLETE, "rating skipped: a member left", {})
            elif len(gone_roles) > 1:
                _finish(room, RoomStatus.INCOMPLETE, "both workers left", {role: Outcome.LEFT for role in gone_roles})
            else:
                (role,) = gone_roles
                partner = registry.protocol(campaign.protocol).partner_of(role)
                _finish(room, RoomStatus.INCOMPLETE, f"the {role} left", {role: Outcome.LEFT, partner: Outcome.PARTNER_LEFT})
        ended.append(str(room_id))
    return ended


def _end_stalled_rooms(campaign: Campaign, now: datetime) -> list[str]:
    # Rooms idle past the shortest time any move has are candidates; each is then held to the
    # time of the move it waits for (a protocol may give each role its own: turn_timeout_of).
    protocol = registry.protocol(campaign.protocol)
    statuses = {protocol.setup_status, RoomStatus.CHATTING}
    shortest = min(
        [campaign.turn_timeout_seconds]
        + [protocol.turn_timeout_seconds(campaign=campaign, role=role, status=status) for role in protocol.roles for status in statuses]
    )
    candidates = now - timedelta(seconds=shortest)
    ended = []
    for room_id in list(Room.objects.filter(campaign=campaign, status__in=LIVE_ROOM_STATUSES, activity_at__lte=candidates).values_list("pk", flat=True)):
        with transaction.atomic():
            room = _locked_live(room_id)
            if room is None or room.activity_at > now - timedelta(seconds=turn_timeout_of(room)):
                continue
            if room.status == RoomStatus.RATING:
                _finish(room, RoomStatus.COMPLETE, "rating skipped: no rating in time", {})
            else:
                role = turn_role(room)
                partner = registry.protocol(campaign.protocol).partner_of(role)
                outcomes = {role: Outcome.STALLED, partner: Outcome.PARTNER_STALLED}
                _finish(room, RoomStatus.INCOMPLETE, f"the {role} did not reply in time", outcomes)
        ended.append(str(room_id))
    return ended


def turn_timeout_of(room: Room) -> int:
    """Seconds the room's current move has (the rating step: the campaign's turn timeout)."""
    if room.status == RoomStatus.RATING:
        return room.campaign.turn_timeout_seconds
    protocol = registry.protocol(room.campaign.protocol)
    return protocol.turn_timeout_seconds(campaign=room.campaign, role=turn_role(room), status=room.status)


def turn_role(room: Room) -> str:
    """The member whose move it is: the next speaker while chatting, else the protocol's setup role."""
    protocol = registry.protocol(room.campaign.protocol)
    if room.status == RoomStatus.CHATTING:
        return protocol.next_role(room, room.messages.count())
    return protocol.setup_role(room)


def _locked_live(room_id: Any) -> Room | None:
    room = Room.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=room_id)
    return room if room.status in LIVE_ROOM_STATUSES else None


def _finish(room: Room, status: str, reason: str, outcomes: dict[str, str]) -> None:
    now = timezone.now()
    room.status = status
    room.end_reason = room.end_reason if status == RoomStatus.COMPLETE and room.end_reason else reason
    room.ended = room.ended or now
    room.save(update_fields=["status", "end_reason", "ended"])
    room_outcomes_set(room=room, outcomes=outcomes)
