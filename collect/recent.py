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
RECENT = Prepared(lambda: Read(Message.objects.filter(room_id=ROOM_ID).order_by("-seq").values_list(*FIELDS)[:2]))
RECENT_LEAN = Prepared(lambda: Read(Message.objects.filter(room_id=ROOM_ID).order_by("-seq").values_list(*LEAN_FIELDS)[:2]))


def recent_messages(rows: list[tuple[Any, ...]], *, lean: bool = False) -> list[Message]:
    """The messages of RECENT's rows (RECENT_LEAN's when `lean`), oldest first."""
    fields = LEAN_FIELDS if lean else FIELDS
    return [Message.from_db(DEFAULT_DB_ALIAS, fields, row) for row in reversed(rows)]


def last_two_messages(room_id: Any) -> list[Message]:
    """The room's last two messages, oldest first (only the columns in FIELDS loaded)."""
    [rows] = run_together(RECENT(room=room_id))
    return recent_messages(rows)
