"""Who is in a room, from heartbeat timestamps in the database, never from a process's memory: a
node that dies leaves its members' `last_seen` to age, and the sweep (any process) sees them gone."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from collect.models import MODEL_PLATFORM, Assignment

# An open socket's member is stamped every heartbeats.STAMP_SECONDS by its process: a member not
# stamped for this much longer than the grace period is gone even if their disconnect was never
# processed (their process died).
PING_SLACK_SECONDS = 45


def member_connected(*, assignment_id: int, socket: str) -> None:
    """A room socket opened; it becomes the member's newest socket."""
    Assignment.objects.filter(pk=assignment_id).update(socket=socket, connected=True, last_seen=timezone.now(), left_at=None)


def member_disconnected(*, assignment_id: int, socket: str) -> bool:
    """A room socket closed. True if the member is still connected by a newer socket: the late
    close of the old socket of a reload must not mark a present worker as gone."""
    closed = Assignment.objects.filter(pk=assignment_id, socket=socket).update(connected=False, left_at=timezone.now())
    return closed == 0


def members_seen(*, assignment_ids: Iterable[int]) -> None:
    ids = list(assignment_ids)
    if connection.vendor != "postgresql":
        Assignment.objects.filter(pk__in=ids).update(last_seen=timezone.now())
        return
    # One array parameter, not one placeholder per member: psycopg binds parameters client-side,
    # and a query with hundreds of placeholders is split and quoted in Python on every flush.
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Assignment._meta.db_table} SET last_seen = %s WHERE id = ANY(%s)", [timezone.now(), ids]
        )


def gone_filter(*, grace_seconds: float, now: datetime, prefix: str = "") -> Q:
    """Members away longer than the grace period: their socket closed that long ago, or nothing
    was heard from them (ping, frame) for the grace period plus the ping slack. A model's seat is
    never away (it has no socket and no heartbeat)."""
    closed = now - timedelta(seconds=grace_seconds)
    silent = now - timedelta(seconds=grace_seconds + PING_SLACK_SECONDS)
    away = Q(**{f"{prefix}left_at__lte": closed}) | Q(**{f"{prefix}last_seen__lte": silent}) | Q(
        **{f"{prefix}last_seen__isnull": True, f"{prefix}created__lte": silent}
    )
    return away & ~Q(**{f"{prefix}worker__platform": MODEL_PLATFORM})


def partner_present(*, room_id: Any, role: str) -> bool:
    """Whether the other member of the room has a socket open and has been heard from lately."""
    recent = timezone.now() - timedelta(seconds=PING_SLACK_SECONDS)
    here = Q(left_at__isnull=True, last_seen__gte=recent, connected=True) | Q(worker__platform=MODEL_PLATFORM)
    return Assignment.objects.filter(here, room_id=room_id).exclude(role=role).exists()
