"""Entry and pairing. Pairing claims both waiting assignments with conditional UPDATEs, so two
servers pairing at once can never put one worker into two rooms, on SQLite or PostgreSQL."""

from __future__ import annotations

import random
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Room, RoomStatus, Worker
from collect import registry

# A waiting worker's page asks for its status every 5 s (static/js/waiting.js); one silent for longer
# than this has left.
WAITING_STALE_SECONDS = 45
LIVE_ROOM_STATUSES = (RoomStatus.CHOOSING_TOPIC, RoomStatus.PREPARING, RoomStatus.CHATTING, RoomStatus.RATING)


def worker_get_or_create(*, platform: str, external_id: str) -> Worker:
    from collect.lifecycle.links import pseudonym_for  # the id exports carry: a salted hash

    worker, _ = Worker.objects.get_or_create(
        platform=platform, external_id=external_id, defaults={"pseudonym": pseudonym_for(platform=platform, external_id=external_id)}
    )
    return worker


def assignment_start(
    *, campaign: Campaign, worker: Worker, study_id: str = "", session_id: str = "", turk_submit_to: str = ""
) -> Assignment:
    """The worker's live assignment in this campaign, or a new place in the waiting room."""
    live = (
        Assignment.objects.filter(campaign=campaign, worker=worker)
        .filter(
            status=AssignmentStatus.WAITING, created__gte=timezone.now() - timedelta(seconds=campaign.wait_timeout_seconds)
        )
        .first()
    ) or (
        Assignment.objects.filter(
            campaign=campaign, worker=worker, status=AssignmentStatus.PAIRED, room__status__in=LIVE_ROOM_STATUSES
        ).first()
    )
    if live:
        return live
    return Assignment.objects.create(
        campaign=campaign, worker=worker, study_id=study_id, session_id=session_id, turk_submit_to=turk_submit_to
    )


def waiting_expired(assignment: Assignment) -> bool:
    deadline = assignment.created + timedelta(seconds=assignment.campaign.wait_timeout_seconds)
    return timezone.now() >= deadline


def waiting_seen(*, assignment_id: int, connected: bool) -> None:
    # Only while waiting: once paired, presence belongs to the room page's socket.
    Assignment.objects.filter(pk=assignment_id, status=AssignmentStatus.WAITING).update(connected=connected, left_at=None if connected else timezone.now(), last_seen=timezone.now())


def waiting_expire(*, assignment_id: int) -> bool:
    """Close a waiting assignment whose time is up. True if it was closed now or before."""
    assignment = Assignment.objects.select_related("campaign").get(pk=assignment_id)
    if assignment.status == AssignmentStatus.TIMED_OUT:
        return True
    if assignment.status != AssignmentStatus.WAITING or not waiting_expired(assignment):
        return False
    from collect.lifecycle.outcomes import assignment_outcome_set

    assignment_outcome_set(assignment_id=assignment_id, outcome=Outcome.NO_PARTNER)
    return Assignment.objects.filter(pk=assignment_id, status=AssignmentStatus.TIMED_OUT).exists()


def room_pair(*, assignment_id: int) -> Room | None:
    """Pair this waiting worker with the longest-waiting other worker who is still on the page."""
    me = Assignment.objects.select_related("campaign").get(pk=assignment_id)
    if me.status == AssignmentStatus.PAIRED:
        return me.room
    if me.status != AssignmentStatus.WAITING or waiting_expired(me):
        return None
    campaign = me.campaign
    now = timezone.now()
    candidates = (
        Assignment.objects.filter(
            campaign=campaign,
            status=AssignmentStatus.WAITING,
            connected=True,
            created__gte=now - timedelta(seconds=campaign.wait_timeout_seconds),
            last_seen__gte=now - timedelta(seconds=WAITING_STALE_SECONDS),
        )
        .exclude(worker_id=me.worker_id)
        .order_by("created")
    )
    for partner in candidates[:5]:
        room = _claim_pair(campaign, me, partner)
        if room is not None:
            return room
    return None


def _claim_pair(campaign: Campaign, me: Assignment, partner: Assignment) -> Room | None:
    protocol = registry.protocol(campaign.protocol)
    with transaction.atomic():
        claimed = Assignment.objects.filter(pk__in=[me.pk, partner.pk], status=AssignmentStatus.WAITING).update(
            status=AssignmentStatus.PAIRED
        )
        if claimed != 2:
            transaction.set_rollback(True)
            return None
        room = protocol.room_create(campaign=campaign)
        roles = list(protocol.roles)
        random.shuffle(roles)
        now = timezone.now()
        for assignment, role in zip((me, partner), roles):
            # Both leave the waiting page now; the room page's socket marks them present again.
            Assignment.objects.filter(pk=assignment.pk).update(
                room=room, role=role, connected=False, left_at=now, last_seen=now
            )
    return room
