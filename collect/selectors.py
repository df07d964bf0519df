"""Read-only views of rooms, shaped as the frames the websocket sends."""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.urls import reverse

from collect.models import Message, Room, RoomStatus
from collect.protocols import get_protocol


def room_snapshot(room_id: Any) -> dict[str, Any]:
    """The room-level facts every member's `state` frame is built from."""
    room = Room.objects.select_related("campaign", "persona").get(pk=room_id)
    protocol = get_protocol(room.campaign.protocol)
    turns = {role: 0 for role in protocol.roles}
    for row in Message.objects.filter(room_id=room_id).values("role").annotate(n=Count("id")):
        turns[row["role"]] = row["n"]
    count = sum(turns.values())
    return {
        "room": str(room.id),
        "protocol": protocol.name,
        "status": room.status,
        "first_speaker": room.first_speaker,
        "turns": turns,
        "turns_required": room.turns_required,
        "next_role": protocol.next_role(room, count),
        "last_seq": count,
        "end_reason": room.end_reason,
        "done_url": reverse("collect:done", args=[room.id]),
        "extra": protocol.snapshot_extra(room),
    }


def state_for(snapshot: dict[str, Any], *, role: str, partner_connected: bool) -> dict[str, Any]:
    chatting = snapshot["status"] == RoomStatus.CHATTING
    protocol = get_protocol(snapshot["protocol"])
    return {
        "type": "state",
        **{k: v for k, v in snapshot.items() if k not in ("extra", "next_role", "protocol")},
        **protocol.state_for_role({**snapshot, **snapshot["extra"]}, role),
        "role": role,
        "your_turn": chatting and snapshot["next_role"] == role,
        "can_end": chatting and min(snapshot["turns"].values()) >= snapshot["turns_required"],
        "partner_connected": partner_connected,
    }


def message_event(message: Message) -> dict[str, Any]:
    """A relayed message as every member may see it; see message_for for per-role extras."""
    return {"type": "message", "seq": message.seq, "role": message.role, "text": message.text, "client_id": message.client_id}


def message_extras(message: Message, protocol_name: str) -> dict[str, dict[str, Any]]:
    protocol = get_protocol(protocol_name)
    return {role: protocol.message_event_extra(message, role) for role in protocol.roles}


def messages_after(*, room_id: Any, after: int, role: str) -> list[dict[str, Any]]:
    room = Room.objects.select_related("campaign").get(pk=room_id)
    protocol = get_protocol(room.campaign.protocol)
    messages = Message.objects.filter(room_id=room_id, seq__gt=after).order_by("seq")
    return [{**message_event(m), **protocol.message_event_extra(m, role)} for m in messages]


def knowledge_for(*, room_id: Any, role: str) -> dict[str, Any] | None:
    room = Room.objects.select_related("campaign", "persona").get(pk=room_id)
    return get_protocol(room.campaign.protocol).knowledge_for(room=room, role=role)


def partner_connected(*, room_id: Any, role: str) -> bool:
    return Room.objects.get(pk=room_id).members.exclude(role=role).filter(connected=True).exists()


# Turns the reranker reads: WoW's rerankers condition on the recent dialogue, not all of it.
CONTEXT_TURNS = 4


def dialogue_context(*, room_id: Any) -> dict[str, Any]:
    """What knowledge is ranked against: {"topic": the chosen topic or "", "turns": the last few
    utterances, oldest first}."""
    room = Room.objects.get(pk=room_id)
    recent = list(Message.objects.filter(room_id=room_id).order_by("-seq").values_list("text", flat=True)[:CONTEXT_TURNS])
    return {"topic": room.topic or "", "turns": recent[::-1]}
