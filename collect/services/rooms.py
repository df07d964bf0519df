"""Everything that changes a room. Each action is one transaction; the caller broadcasts only after
it has committed (persist before broadcast)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from collect.errors import ProtocolError
from collect.models import Assignment, Message, Room, RoomStatus
from collect.protocols import wow
from collect.selectors import last_two_messages
from collect.services.matchmaking import LIVE_ROOM_STATUSES
from retrieval import services as retrieval


@dataclass(frozen=True)
class Posted:
    message: Message
    created: bool  # False when the client_id was seen before: a resend


def member_get(*, room_id: str, worker_id: int | None) -> Assignment | None:
    if worker_id is None:
        return None
    return Assignment.objects.select_related("room", "campaign").filter(room_id=room_id, worker_id=worker_id).first()


def member_presence(*, assignment_id: int, connected: bool) -> None:
    now = timezone.now()
    Assignment.objects.filter(pk=assignment_id).update(connected=connected, last_seen=now, left_at=None if connected else now)


def _locked_room(room_id: Any) -> Room:
    # Row lock on PostgreSQL; on SQLite the write transaction itself serialises.
    # of=self: PostgreSQL cannot lock the nullable side (persona) of an outer join.
    return Room.objects.select_for_update(of=("self",)).select_related("campaign", "persona").get(pk=room_id)


def topic_choose(*, room_id: Any, assignment: Assignment, topic: str) -> Room:
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.status != RoomStatus.CHOOSING_TOPIC:
            raise ProtocolError("wrong_state", "The topic has already been chosen.")
        if assignment.role != room.first_speaker:
            raise ProtocolError("not_your_turn", "Your partner chooses the topic.")
        if topic not in wow.topic_options(room):
            raise ProtocolError("bad_topic", "Choose one of the topics offered to you.")
        room.topic = topic
        room.topic_passage = retrieval.topic_passage(source_id=room.campaign.knowledge_source_id, title=topic)
        room.status = RoomStatus.CHATTING
        room.save(update_fields=["topic", "topic_passage", "status"])
    return room


def message_post(
    *, room_id: Any, assignment: Assignment, client_id: str, text: str, checked: dict[str, Any] | None | str
) -> Posted:
    """Store one utterance. `checked` is the parsed wizard selection (None = no sentence used) or
    the string "missing" when the frame had none."""
    existing = Message.objects.filter(room_id=room_id, sender=assignment, client_id=client_id).first()
    if existing:
        return Posted(existing, created=False)
    try:
        with transaction.atomic():
            return Posted(_message_create(room_id, assignment, client_id, text, checked), created=True)
    except IntegrityError:
        # A concurrent resend with the same client_id won the race: answer with its message.
        existing = Message.objects.filter(room_id=room_id, sender=assignment, client_id=client_id).first()
        if existing is None:
            raise
        return Posted(existing, created=False)


def _message_create(room_id: Any, assignment: Assignment, client_id: str, text: str, checked: Any) -> Message:
    room = _locked_room(room_id)
    if room.status != RoomStatus.CHATTING:
        raise ProtocolError("wrong_state", "The chat is not open for messages.")
    count = room.messages.count()
    if wow.next_role(room, count) != assignment.role:
        raise ProtocolError("not_your_turn", "Wait for your partner's reply.")
    fields: dict[str, Any] = {}
    if assignment.role == wow.WIZARD:
        if checked == "missing":
            raise ProtocolError("checked_required", "Check the knowledge sentence you used, or 'No sentence used'.")
        knowledge = wow.knowledge_for_wizard(room, last_two_messages(room.pk))
        sentence, passage = wow.checked_keys(knowledge, checked)
        fields = {"knowledge_shown": knowledge, "checked_sentence": sentence, "checked_passage": passage}
    message = Message.objects.create(
        room=room, seq=count + 1, sender=assignment, role=assignment.role, client_id=client_id, text=text, **fields
    )
    # Turns alternate, so after the second speaker's message both have spoken (count + 1) / 2 turns.
    if message.role != room.first_speaker and (count + 1) // 2 >= room.campaign.turn_limit:
        _end(room, status=RoomStatus.RATING, reason="turn limit reached")
    return message


def _turns(room: Room) -> dict[str, int]:
    turns = {role: 0 for role in wow.roles}
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
        turns = _turns(room)
        if min(turns.values()) < room.turns_required:
            raise ProtocolError(
                "too_early_to_end", f"Each of you must send {room.turns_required} messages before the chat can end."
            )
        _end(room, status=RoomStatus.RATING, reason=f"ended by the {assignment.role}")
    return room


def rating_submit(*, room_id: Any, assignment: Assignment, rating: int) -> Room:
    with transaction.atomic():
        room = _locked_room(room_id)
        if assignment.role != wow.rating_role:
            raise ProtocolError("not_allowed", "Only the apprentice rates the chat.")
        if room.status != RoomStatus.RATING:
            raise ProtocolError("wrong_state", "The chat is not waiting for a rating.")
        if not 1 <= rating <= 5:
            raise ProtocolError("bad_rating", "The rating must be between 1 and 5.")
        room.rating = rating
        room.status = RoomStatus.COMPLETE
        room.save(update_fields=["rating", "status"])
    return room


# Pages ping every 15 s: a member silent this much longer than the grace period is gone even if
# their disconnect was never processed (daphne can drop connections without running disconnect()).
PING_SLACK_SECONDS = 45


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
            # The chat itself finished: keep it complete, without a rating.
            room.status = RoomStatus.COMPLETE
            room.save(update_fields=["status"])
        else:
            _end(room, status=RoomStatus.INCOMPLETE, reason=f"the {role} left")
    return True


def message_retrieve(*, message_id: int) -> Message:
    """Retrieve knowledge for one utterance (7 articles, lead paragraphs) and store it on the message."""
    message = Message.objects.select_related("room__campaign").get(pk=message_id)
    if message.retrieved_passages is None:
        passages = retrieval.passages_for_query(source_id=message.room.campaign.knowledge_source_id, query=message.text, k=7)
        message.retrieved_passages = [{p["title"]: p["sentences"]} for p in passages]
        message.save(update_fields=["retrieved_passages"])
    return message
