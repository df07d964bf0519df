"""Pings, written to the database together. A room page pings every 30 s, so a room's two pages
ping about as often as its members send chat messages at a human pace, and one UPDATE per ping
would double the database writes of a chat. A process collects the
members it heard from and stamps them all in one UPDATE every FLUSH_SECONDS. `last_seen` is read
with a slack of presence.PING_SLACK_SECONDS, far more than the flush adds; a process that dies
loses at most its last few seconds of pings, which the slack also covers."""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async

from collect.lifecycle import presence

log = logging.getLogger(__name__)
FLUSH_SECONDS = 5.0


class Heartbeats:
    def __init__(self) -> None:
        self.pending: set[int] = set()
        self.flusher: asyncio.Task | None = None

    def heard(self, assignment_id: int) -> None:
        self.pending.add(assignment_id)
        loop = asyncio.get_running_loop()
        if self.flusher is None or self.flusher.done() or self.flusher.get_loop() is not loop:
            self.flusher = loop.create_task(self._flush_soon())

    async def _flush_soon(self) -> None:
        # Until nothing is left: pings heard during a flush wait for the next round of this task.
        while self.pending:
            await asyncio.sleep(FLUSH_SECONDS)
            heard, self.pending = self.pending, set()
            try:
                await database_sync_to_async(presence.members_seen)(assignment_ids=heard)
            except Exception:  # a lost heartbeat ages a member by seconds; the next ping stamps them
                log.exception("could not record %d heartbeats", len(heard))


heartbeats = Heartbeats()
