"""Channel-layer group names. Every socket of a room is in the room's group; it is also in its
role's group, so that what only one role is shown (the wizard's knowledge panels) reaches only
that role's sockets, not every socket of the room only to be dropped there."""

from __future__ import annotations

from typing import Any

from collect.frames import frame_text


def room_group(room_id: Any) -> str:
    return f"room.{room_id}"


def role_group(room_id: Any, role: str) -> str:
    return f"room.{room_id}.{role}"


def assignment_group(assignment_id: Any) -> str:
    """The waiting page's socket for one assignment."""
    return f"assignment.{assignment_id}"


def knowledge_event(role: str, frame: dict[str, Any], *more: dict[str, Any]) -> dict[str, Any]:
    """The group event that carries a knowledge frame to `role_group(room, role)`, sent by the chat
    process itself (the embedded mode) or by a Celery worker (RoomConsumer.room_knowledge). The
    frame travels as the socket's text, encoded once by its sender: a panel of 7-14 passages is the
    largest frame a chat process relays, and decoding and re-encoding it there took about 5% of the
    process's Python time under load (py-spy, 1,000 rooms). `more`: frames sent after it in the
    same event (a panel and its knowledge.reranked, ranked by the task that retrieved it): one
    channel-layer message and one dispatch in the chat process, not one each. A chat process
    that reads only "text" still sends the panel."""
    event = {"type": "room.knowledge", "role": role, "text": frame_text(frame)}
    if more:
        event["more"] = [frame_text(f) for f in more]
    return event
