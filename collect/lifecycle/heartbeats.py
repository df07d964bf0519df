"""Heartbeats: a chat process stamps `last_seen` on every member whose room socket (or waiting
socket, for a worker still waiting) it holds open, all of them in one UPDATE every STAMP_SECONDS.

A socket stays open only while its page is there to answer: daphne pings a connection that has
been quiet for a while and closes it when no pong comes (groundwork/serve.py), and a browser
answers those pings itself, even for a page in a background tab whose timers it throttles. So the
pages send no heartbeat frames of their own, and the chat processes read none. A process that
dies stops stamping: its members' `last_seen` ages, and the sweep (any process) ends their rooms
(presence.PING_SLACK_SECONDS)."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter

from channels.db import database_sync_to_async

from groundwork.service_errors import SERVICE_ERRORS, one_line
from collect.lifecycle import presence

log = logging.getLogger(__name__)
STAMP_SECONDS = 15.0


class Heartbeats:
    def __init__(self) -> None:
        self.open: Counter[int] = Counter()  # member → room and waiting sockets open in this process
        self.stamper: asyncio.Task | None = None

    def opened(self, assignment_id: int) -> None:
        self.open[assignment_id] += 1
        loop = asyncio.get_running_loop()
        if self.stamper is None or self.stamper.done() or self.stamper.get_loop() is not loop:
            self.stamper = loop.create_task(self._stamp())

    def closed(self, assignment_id: int) -> None:
        self.open[assignment_id] -= 1
        if self.open[assignment_id] <= 0:
            del self.open[assignment_id]

    async def _stamp(self) -> None:
        # Until no socket is left; the next one to open starts it again.
        while self.open:
            await asyncio.sleep(STAMP_SECONDS)
            members = list(self.open)
            if not members:
                return
            try:
                await database_sync_to_async(presence.members_seen)(assignment_ids=members)
            except SERVICE_ERRORS as error:  # a missed stamp ages the members by seconds; the next one stamps them
                log.warning("could not stamp %d members' heartbeats, service lost: %s", len(members), one_line(error))
            except Exception:
                log.exception("could not stamp %d members' heartbeats", len(members))


heartbeats = Heartbeats()


class Stamp:
    """One socket's place in this process's heartbeats: its member is stamped from `hold()` until
    `release()`, counted once however often either is called (a socket's cleanup may run twice)."""

    def __init__(self, assignment_id: int, beats: Heartbeats = heartbeats) -> None:
        self.assignment_id = assignment_id
        self.beats = beats
        self.held = False

    def hold(self) -> None:
        if not self.held:
            self.beats.opened(self.assignment_id)
            self.held = True

    def release(self) -> None:
        if self.held:
            self.beats.closed(self.assignment_id)
            self.held = False
