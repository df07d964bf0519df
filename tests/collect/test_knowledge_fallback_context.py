"""The knowledge fallback's lines name the room of the message they are about: one queue decides for
every room's messages, but each retrieval runs in the context of the socket that scheduled it."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

from collect.services import knowledge_fallback
from groundwork.logs import ContextFilter, log_context


async def test_each_fallback_line_names_its_own_messages_room(settings, monkeypatch, caplog) -> None:
    settings.KNOWLEDGE_DEADLINE_S = 0.01
    monkeypatch.setattr(knowledge_fallback, "_still_lacking", lambda message_id: True)
    monkeypatch.setattr(knowledge_fallback, "_retrieve", lambda message_id: SimpleNamespace(knowledge={}))

    async def no_claims(ids):  # the embedded default: no Redis, the database decides
        return None

    monkeypatch.setattr(knowledge_fallback, "claims_check_for_fallback", no_claims)
    caplog.set_level(logging.WARNING, logger=knowledge_fallback.__name__)

    async def publish(frames) -> None:
        logging.getLogger(knowledge_fallback.__name__).warning("published")

    # Room r1's socket starts the queue; r2's and r3's messages join it while it waits.
    for message_id, room in [(11, "r1"), (12, "r2"), (13, "r3")]:
        with log_context(room=room):
            knowledge_fallback.fallback_schedule(message_id=message_id, publish=publish)
    await knowledge_fallback.fallbacks_settled(timeout=10)
    await asyncio.sleep(0)  # the retrievals' last callbacks

    named = []
    for record in caplog.records:
        ContextFilter().filter(record)
        named.append((record.getMessage().split(":")[0], record.room))
    retrieved = {m: room for m, room in named if m.startswith("message ")}
    assert retrieved == {"message 11": "r1", "message 12": "r2", "message 13": "r3"}
    assert sorted(room for m, room in named if m == "published") == ["r1", "r2", "r3"]
