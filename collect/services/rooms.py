"""Everything that changes a room. Each action is one transaction; the caller broadcasts only after
it has committed (persist before broadcast). Protocol-specific rules come from the room's protocol."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from collect.errors import ProtocolError
from collect.models import Assignment, Message, Room, RoomStatus
from collect.protocols import get_protocol
from collect.protocols.base import Effect
from collect.services.matchmaking import LIVE_ROOM_STATUSES

# Pages ping every 15 s: a member silent this much longer than the grace period is gone even if
# their disconnect was never processed (daphne can drop connections without running disconnect()).
PING_SLACK_SECONDS = 45


@dataclass(frozen=True)
class Posted:
    message: Message
    created: bool  # False when the client_id was seen before: a resend


def member_get(*, room_id: str, worker_id: int | None) -> Assignment | None:
    if worker_id is None:
        return None
    return Assignment.objects.select_related("room", "campaign").filter(room_id=room_id, worker_id=worker_id).first()


def member_connected(*, assignment_id: int) -> None:
    now = timezone.now()
    Assignment.objects.filter(pk=assignment_id).update(
        open_sockets=F("open_sockets") + 1, connected=True, last_seen=now, left_at=None
    )


def member_disconnected(*, assignment_id: int) -> bool:
    """One of the member's sockets closed; True if the member is still connected by another."""
    with transaction.atomic():
        member = Assignment.objects.select_for_update().get(pk=assignment_id)
        member.open_sockets = max(0, member.open_sockets - 1)
        member.connected = member.open_sockets > 0
        member.left_at = None if member.connected else timezone.now()
        member.save(update_fields=["open_sockets", "connected", "left_at"])
    return member.connected


def member_seen(*, assignment_id: int) -> None:
    Assignment.objects.filter(pk=assignment_id).update(last_seen=timezone.now())


def _locked_room(room_id: Any) -> Room:
    # Row lock on PostgreSQL (of=self: it cannot lock the nullable side of an outer join); on
    # SQLite the IMMEDIATE write transaction itself serialises.
    return Room.objects.select_for_update(of=("self",)).select_related("campaign", "persona").get(pk=room_id)


def room_act(*, room_id: Any, assignment: Assignment, name: str, frame: dict[str, Any]) -> Effect:
    """A protocol's own action (WoW's topic choice, Curiosity's likes...), in one transaction."""
    with transaction.atomic():
        room = _locked_room(room_id)
        action = get_protocol(room.campaign.protocol).action(name)
        if action is None:
            raise ProtocolError("bad_frame", f"Unknown frame type {name!r}.")
        return action(room=room, assignment=assignment, frame=frame)


def message_post(*, room_id: Any, assignment: Assignment, client_id: str, text: str, frame: dict[str, Any]) -> Posted:
    """Store one utterance; the protocol validates its own part of the frame."""
    existing = Message.objects.filter(room_id=room_id, sender=assignment, client_id=client_id).first()
    if existing:
        return Posted(existing, created=False)
    try:
        with transaction.atomic():
            return Posted(_message_create(room_id, assignment, client_id, text, frame), created=True)
    except IntegrityError:
        # A concurrent resend with the same client_id won the race: answer with its message.
        existing = Message.objects.filter(room_id=room_id, sender=assignment, client_id=client_id).first()
        if existing is None:
            raise
        return Posted(existing, created=False)


def _message_create(room_id: Any, assignment: Assignment, client_id: str, text: str, frame: dict[str, Any]) -> Message:
    room = _locked_room(room_id)
    protocol = get_protocol(room.campaign.protocol)
    if room.status != RoomStatus.CHATTING:
        raise ProtocolError("wrong_state", "The chat is not open for messages.")
    count = room.messages.count()
    if protocol.next_role(room, count) != assignment.role:
        raise ProtocolError("not_your_turn", "Wait for your partner's reply.")
    fields = protocol.message_fields(room=room, assignment=assignment, frame=frame, count=count)
    message = Message.objects.create(
        room=room, seq=count + 1, sender=assignment, role=assignment.role, client_id=client_id, text=text, **fields
    )
    # Turns alternate, so after the second speaker's message both have spoken (count + 1) / 2 turns.
    if message.role != room.first_speaker and (count + 1) // 2 >= room.campaign.turn_limit:
        _end(room, status=RoomStatus.RATING, reason="turn limit reached")
    return message


def message_after(*, message_id: int) -> dict[str, dict[str, Any]]:
    """The protocol's slow per-message work (retrieval), after the commit; knowledge per role."""
    message = Message.objects.select_related("room__campaign", "room__persona").get(pk=message_id)
    return get_protocol(message.room.campaign.protocol).after_message(message=message)


def _turns(room: Room) -> dict[str, int]:
    turns = {role: 0 for role in get_protocol(room.campaign.protocol).roles}
    for role in room.messages.values_list("role", flat=True):
        turns[role] += 1
    return turns


def _end(room: Room, *, status: str, reason: str) -> None:
    room.status = status
    room.end_reason = reason
    room.ended = timezone.now()
    room.save(update_fields=["status", "end_reason", "ended"])


def chat_end(*, room_id: Any, assignment: Assignment) -> Room:
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.status != RoomStatus.CHATTING:
            raise ProtocolError("wrong_state", "The chat is not open.")
        if min(_turns(room).values()) < room.turns_required:
            raise ProtocolError(
                "too_early_to_end", f"Each of you must send {room.turns_required} messages before the chat can end."
            )
        _end(room, status=RoomStatus.RATING, reason=f"ended by the {assignment.role}")
    return room


def rating_submit(*, room_id: Any, assignment: Assignment, frame: dict[str, Any]) -> Room:
    with transaction.atomic():
        room = _locked_room(room_id)
        protocol = get_protocol(room.campaign.protocol)
        if assignment.role not in protocol.rating_roles:
            raise ProtocolError("not_allowed", f"The {assignment.role} has no rating form in this chat.")
        rating = protocol.rating_parse(frame)
        if room.status != RoomStatus.RATING:
            raise ProtocolError("wrong_state", "The chat is not waiting for a rating.")
        protocol.rate(room=room, role=assignment.role, rating=rating)
        if protocol.rated(room):
            room.status = RoomStatus.COMPLETE
            room.save(update_fields=["status"])
    return room


def _gone(room_id: Any, role: str, grace_seconds: float) -> bool:
    now = timezone.now()
    cutoff = now - timedelta(seconds=grace_seconds)
    stale = now - timedelta(seconds=grace_seconds + PING_SLACK_SECONDS)
    return Assignment.objects.filter(room_id=room_id, role=role).filter(
        Q(connected=False, left_at__lte=cutoff) | Q(last_seen__lte=stale)
    ).exists()


def room_abandon_if_partner_gone(*, room_id: Any, role: str, grace_seconds: float) -> bool:
    """End a live room as incomplete when the member in `role` has been away longer than the grace
    period. The partial dialogue is kept; the rating step is skipped."""
    if not _gone(room_id, role, grace_seconds):
        return False
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.status not in LIVE_ROOM_STATUSES or not _gone(room_id, role, grace_seconds):
            return False
        if room.status == RoomStatus.RATING:
            # The chat itself finished: keep it complete, without the missing rating.
            room.status = RoomStatus.COMPLETE
            room.save(update_fields=["status"])
        else:
            _end(room, status=RoomStatus.INCOMPLETE, reason=f"the {role} left")
    return True
