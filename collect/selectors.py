"""Read-only views of rooms, shaped as the frames the websocket sends."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.db.models import Count
from django.urls import reverse
from django.utils import timezone

from collect.models import Message, Room, RoomStatus
from collect import registry
from collect.protocols.base import Protocol
from collect.recent import ROOM_ID
from groundwork.round_trips import Prepared, Read, run_together


def room_snapshot(room_id: Any, *, room: Room | None = None, message_count: int | None = None) -> dict[str, Any]:
    """The room-level facts every member's `state` frame is built from. `room` (loaded with its
    campaign and persona) and `message_count` spare the queries when the caller has them."""
    room = room or Room.objects.select_related("campaign", "persona").get(pk=room_id)
    protocol = registry.protocol(room.campaign.protocol)
    if message_count is not None and type(protocol).next_role is Protocol.next_role:
        # Turns alternate from the first speaker, so the count alone gives each role's turns.
        first = room.first_speaker
        turns = {first: (message_count + 1) // 2, protocol.partner_of(first): message_count // 2}
    else:
        turns = {role: 0 for role in protocol.roles}
        for row in Message.objects.filter(room_id=room_id).values("role").annotate(n=Count("id")):
            turns[row["role"]] = row["n"]
    count = sum(turns.values())
    next_role = protocol.next_role(room, count)
    return {
        "room": str(room.id),
        "protocol": protocol.name,
        "status": room.status,
        "first_speaker": room.first_speaker,
        "turns": turns,
        "turns_required": room.turns_required,
        "turn_limit": room.campaign.turn_limit,
        # The turn timeout's clock (collect.lifecycle.sweep), for the page's warning and countdown:
        # the time of the move the room waits for.
        "turn_timeout": _move_timeout(protocol, room, next_role),
        "idle_seconds": round(max(0.0, (timezone.now() - room.activity_at).total_seconds()), 1),
        "next_role": next_role,
        "last_seq": count,
        "end_reason": room.end_reason,
        "done_url": done_url(str(room.id)),
        "extra": protocol.snapshot_extra(room),
    }


def _move_timeout(protocol: Protocol, room: Room, next_role: str) -> int:
    """collect.lifecycle.sweep.turn_timeout_of, from what the snapshot has read already."""
    if room.status == RoomStatus.CHATTING:
        return protocol.turn_timeout_seconds(campaign=room.campaign, role=next_role, status=room.status)
    if room.status == protocol.setup_status:
        return protocol.turn_timeout_seconds(campaign=room.campaign, role=protocol.setup_role(room), status=room.status)
    return room.campaign.turn_timeout_seconds


@lru_cache(maxsize=8192)
def done_url(room_id: str) -> str:
    # Reversing a URL costs about a millisecond here, a fifth of storing a chat message; a room's
    # snapshot is built for every message of the room, its URL never changes.
    return reverse("collect:done", args=[room_id])


def state_for(snapshot: dict[str, Any], *, role: str, partner_connected: bool) -> dict[str, Any]:
    chatting = snapshot["status"] == RoomStatus.CHATTING
    protocol = registry.protocol(snapshot["protocol"])
    return {
        "type": "state",
        **{k: v for k, v in snapshot.items() if k not in ("extra", "next_role", "protocol")},
        "role": role,
        "your_turn": chatting and snapshot["next_role"] == role,
        "can_end": chatting and min(snapshot["turns"].values()) >= snapshot["turns_required"],
        "partner_connected": partner_connected,
        # Last, so that a protocol may narrow the common rules (DuConv: only the agent ends).
        **protocol.state_for_role({**snapshot, **snapshot["extra"]}, role),
    }


def message_event(message: Message) -> dict[str, Any]:
    """A relayed message as every member may see it; see message_for for per-role extras."""
    return {"type": "message", "seq": message.seq, "role": message.role, "text": message.text, "client_id": message.client_id}


def message_extras(message: Message, protocol_name: str) -> dict[str, dict[str, Any]]:
    protocol = registry.protocol(protocol_name)
    return {role: protocol.message_event_extra(message, role) for role in protocol.roles}


def messages_after(*, room_id: Any, after: int, upto: int, role: str) -> list[dict[str, Any]]:
    """The messages with seqs after `after` and up to `upto`, as `role` sees them."""
    room = Room.objects.select_related("campaign").get(pk=room_id)
    protocol = registry.protocol(room.campaign.protocol)
    messages = Message.objects.filter(room_id=room_id, seq__gt=after, seq__lte=upto).order_by("seq")
    return [{**message_event(m), **protocol.message_event_extra(m, role)} for m in messages]


def knowledge_for(*, room_id: Any, role: str) -> dict[str, Any] | None:
    room = Room.objects.select_related("campaign", "persona").get(pk=room_id)
    return registry.protocol(room.campaign.protocol).knowledge_for(room=room, role=role)


def knowledge_reranked_for(*, room_id: Any, role: str, after_seq: int) -> dict[str, Any] | None:
    """`role`'s reranked panel for the turn after message `after_seq`, if one was made."""
    saved = Room.objects.values_list("knowledge_reranked", flat=True).get(pk=room_id) or {}
    frame = saved.get(role)
    return frame if frame and frame.get("after_seq") == after_seq else None


# Turns the reranker reads: WoW's rerankers condition on the recent dialogue, not all of it.
CONTEXT_TURNS = 4


_CONTEXT_ROOM = Prepared(lambda: Read(Room.objects.filter(pk=ROOM_ID).values_list("topic", "campaign__knowledge_source__language")))
_CONTEXT_TURNS = Prepared(lambda: Read(
    Message.objects.filter(room_id=ROOM_ID).order_by("-seq").values_list("seq", "text")[:CONTEXT_TURNS]
))


def dialogue_context(*, room_id: Any, after_seq: int) -> dict[str, Any] | None:
    """What the panel for the turn after message `after_seq` is ranked against: {"topic": the chosen
    topic or "", "turns": the last few utterances, oldest first, "language": the knowledge source's};
    None once the chat has moved past that turn (a rerank behind a backlog), when ranking it would
    be wasted. One round trip (groundwork/round_trips.py): the rerank worker asks it for every panel."""
    room_rows, recent = run_together(_CONTEXT_ROOM(room=room_id), _CONTEXT_TURNS(room=room_id))  # not the room's panels
    if not room_rows:
        raise Room.DoesNotExist(f"No room {room_id}.")
    topic, language = room_rows[0]
    if (recent[0][0] if recent else 0) != after_seq:
        return None
    return {"topic": topic or "", "turns": [text for _, text in reversed(recent)], "language": language or "en"}


