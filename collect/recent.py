"""A room's last two messages, which every turn reads: the chat message path (to number and check
the next message) and the wizard's knowledge (WoW's dialog[i-1] and dialog[i-2]). One statement,
compiled once per connection (groundwork/round_trips.py)."""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS

from collect.models import Message, Room
from groundwork.round_trips import Param, Prepared, Read, run_together

FIELDS = ("id", "seq", "role", "retrieved_passages")
# Without the retrieval (retrieved_passages): for a message whose checks do not read it.
LEAN_FIELDS = FIELDS[:-1]
ROOM_ID = Param("room", Room._meta.pk)


def _last_two(fields: tuple[str, ...]) -> Prepared:
    return Prepared(lambda: Read(Message.objects.filter(room_id=ROOM_ID).order_by("-seq").values_list(*fields)[:2]))


RECENT = _last_two(FIELDS)
RECENT_LEAN = _last_two(LEAN_FIELDS)


def recent_messages(rows: list[tuple[Any, ...]], fields: tuple[str, ...] = FIELDS) -> list[Message]:
    """The messages of RECENT's rows (of `fields`: LEAN_FIELDS for RECENT_LEAN's), oldest first."""
    return [Message.from_db(DEFAULT_DB_ALIAS, fields, row) for row in reversed(rows)]


def last_two_messages(room_id: Any) -> list[Message]:
    """The room's last two messages, oldest first (only the columns in FIELDS loaded)."""
    [rows] = run_together(RECENT(room=room_id))
    return recent_messages(rows)
