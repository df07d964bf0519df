"""Read-only views of rooms, shaped as the frames the websocket sends."""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.urls import reverse

from collect.models import Message, Room, RoomStatus
from collect.protocols import wow


def room_snapshot(room_id: Any) -> dict[str, Any]:
    """The room-level facts every member's `state` frame is built from."""
    room = Room.objects.select_related("persona").get(pk=room_id)
    turns = {role: 0 for role in wow.roles}
    for row in Message.objects.filter(room_id=room_id).values("role").annotate(n=Count("id")):
        turns[row["role"]] = row["n"]
    count = sum(turns.values())
    return {
        "room": str(room.id),
        "status": room.status,
        "first_speaker": room.first_speaker,
        "topic": room.topic,
        "persona": {"text": room.persona.text, "topics": wow.topic_options(room)} if room.persona else None,
        "turns": turns,
        "turns_required": room.turns_required,
        "next_role": wow.next_role(room, count),
        "last_seq": count,
        "end_reason": room.end_reason,
        "done_url": reverse("collect:done", args=[room.id]),
    }


def state_for(snapshot: dict[str, Any], *, role: str, partner_connected: bool) -> dict[str, Any]:
    chatting = snapshot["status"] == RoomStatus.CHATTING
    choosing = snapshot["status"] == RoomStatus.CHOOSING_TOPIC
    show_persona = choosing and role == snapshot["first_speaker"]
    return {
        "type": "state",
        **{k: v for k, v in snapshot.items() if k not in ("persona", "next_role")},
        "role": role,
        "persona": snapshot["persona"] if show_persona else None,
        "your_turn": chatting and snapshot["next_role"] == role,
        "can_end": chatting and min(snapshot["turns"].values()) >= snapshot["turns_required"],
        "partner_connected": partner_connected,
    }


def message_event(message: Message) -> dict[str, Any]:
    event = {"type": "message", "seq": message.seq, "role": message.role, "text": message.text, "client_id": message.client_id}
    if message.checked_sentence is not None:
        event["checked_sentence"] = next(iter(message.checked_sentence.values()))
    return event


def messages_after(*, room_id: Any, after: int) -> list[dict[str, Any]]:
    return [message_event(m) for m in Message.objects.filter(room_id=room_id, seq__gt=after).order_by("seq")]


def last_two_messages(room_id: Any) -> list[Message]:
    """The wizard's knowledge depends on the last two turns only (WoW's dialog[i-1], dialog[i-2])."""
    recent = Message.objects.filter(room_id=room_id).only("role", "retrieved_passages").order_by("-seq")[:2]
    return list(reversed(recent))


def wizard_knowledge(*, room_id: Any) -> dict[str, Any]:
    room = Room.objects.get(pk=room_id)
    recent = last_two_messages(room_id)
    return {
        "type": "knowledge",
        "after_seq": Message.objects.filter(room_id=room_id).count(),
        "passages": wow.knowledge_for_wizard(room, recent),
    }


def partner_connected(*, room_id: Any, role: str) -> bool:
    return Room.objects.get(pk=room_id).members.exclude(role=role).filter(connected=True).exists()
