"""Celery mode: the chat process retrieves a stored message itself when no worker has started its
retrieval GROUNDWORK_KNOWLEDGE_DEADLINE_S after it was stored (a worker outage must not leave the
wizard without a panel). knowledge_claims.py decides who retrieves.

The check is on the hot path's process for every message, so it is batched: one queue per event
loop, in the order the messages were stored (every message gets the same deadline), and one task
that wakes when the oldest comes due and decides for every message due by then (and GATHER_S
after) with one pipelined Redis round trip. Under load that is one timer and one round trip for
several messages instead of a task, a timer and a round trip each. A message's decision is a
future: done once it was left to a worker, or retrieved here and published."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections

from collect.models import Message
from collect.services import rooms
from collect.consumers.db import retried_once
from collect.services.knowledge_claims import claim_release, claims_check_for_fallback, claims_take_for_fallback
from groundwork.service_errors import SERVICE_ERRORS, one_line, service_lost
from retrieval.services import IndexNotBuilt

log = logging.getLogger(__name__)
# Tries of a retrieved panel's publish when Redis is lost under it (_retrieve_here).
PUBLISH_TRIES = 3

Publish = Callable[[dict[str, dict[str, Any]]], Awaitable[None]]

# Deadlines a chat process waits for a worker that is busy (it started a task lately) before it
# retrieves the message itself all the same.
BUSY_WORKER_WAITS = 4
# Messages coming due this soon after the oldest are decided with it: one round trip for them all,
# for at most this much more wait past a deadline.
GATHER_S = 0.25

_decisions: set[asyncio.Future] = set()  # every undecided message's future, kept referenced until done
_retrievals: set[asyncio.Task] = set()  # the event loop keeps only weak references to tasks


@dataclass
class _Due:
    at: float  # loop time
    message_id: int
    publish: Publish
    deadline: float
    waits: int  # deadlines waited so far, this one included
    decided: asyncio.Future
    # The scheduling socket's context: its retrieval here runs in it, so that its log lines name
    # that message's room (groundwork/logs.py), not the room of whichever socket started the queue.
    context: contextvars.Context


class _Queue:
    def __init__(self) -> None:
        self.items: deque[_Due] = deque()
        self.task: asyncio.Task | None = None

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self.items:
                wait = self.items[0].at - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait + GATHER_S)
                now = loop.time()
                batch = []
                while self.items and self.items[0].at <= now:
                    batch.append(self.items.popleft())
                try:
                    await self._decide(batch)
                except Exception:
                    log.exception("knowledge fallback: deciding %d messages failed; the knowledge sweep will find them", len(batch))
                    for due in batch:
                        _settle(due)
        finally:
            # Nothing left that refers to the loop, so _queues can let it go once it is closed.
            self.task = None

    async def _decide(self, batch: list[_Due]) -> None:
        checked = await claims_check_for_fallback([due.message_id for due in batch])
        if checked is None:  # no claims: the database decides, message by message
            for due in batch:
                _retrieve_soon(due, by_database=True)
            return
        held, worker_seen = checked
        unclaimed = []
        for due, claimed in zip(batch, held):
            if claimed:
                _settle(due)  # a worker started it (the normal case)
            elif worker_seen and due.waits < BUSY_WORKER_WAITS:
                # A busy worker, not a dead one: the items are in due order, and this one is due last.
                due.at, due.waits = asyncio.get_running_loop().time() + due.deadline, due.waits + 1
                self.items.append(due)
            else:
                unclaimed.append(due)
        if not unclaimed:
            return
        taken = await claims_take_for_fallback([due.message_id for due in unclaimed])
        for due, ours in zip(unclaimed, taken or [None] * len(unclaimed)):
            if ours is False:
                _settle(due)  # a worker claimed it just now
            else:
                _retrieve_soon(due, by_database=ours is None)


_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue] = weakref.WeakKeyDictionary()


def fallback_schedule(*, message_id: int, publish: Publish) -> asyncio.Future | None:
    """Celery mode, on the chat process's event loop, after the message's retrieval was queued: if
    no worker has started it GROUNDWORK_KNOWLEDGE_DEADLINE_S later, retrieve it here and hand the
    knowledge frames (role -> frame) to `publish` (the consumer's broadcast_knowledge, which also
    queues the rerank). While a worker is busy (it started a task lately) the chat process waits
    up to BUSY_WORKER_WAITS deadlines for it. The future is done once that is decided (and any
    retrieval here published); None when the deadline is 0 (off)."""
    deadline = settings.KNOWLEDGE_DEADLINE_S
    if deadline <= 0:
        return None
    loop = asyncio.get_running_loop()
    queue = _queues.get(loop)
    if queue is None:
        queue = _queues[loop] = _Queue()
    decided = loop.create_future()
    _decisions.add(decided)
    decided.add_done_callback(_decisions.discard)
    queue.items.append(_Due(loop.time() + deadline, message_id, publish, deadline, 1, decided, contextvars.copy_context()))
    if queue.task is None or queue.task.done():  # it ends whenever its queue runs empty
        # A context of its own: the queue decides for every room's messages, so it names none.
        queue.task = loop.create_task(queue.run(), context=contextvars.Context())
    return decided


async def fallbacks_settled(timeout: float = 60) -> None:
    """Until every message this event loop scheduled has been decided (for tests and shutdown). A
    closed loop's are never decided: the queue that would have decided them went with it."""
    loop = asyncio.get_running_loop()
    await asyncio.wait_for(asyncio.gather(*[d for d in list(_decisions) if d.get_loop() is loop]), timeout=timeout)


def _settle(due: _Due) -> None:
    if not due.decided.done():
        due.decided.set_result(None)


def _retrieve_soon(due: _Due, *, by_database: bool) -> None:
    task = asyncio.get_running_loop().create_task(_retrieve_here(due, by_database=by_database), context=due.context)
    _retrievals.add(task)
    task.add_done_callback(_retrievals.discard)
    task.add_done_callback(lambda _: _settle(due))


def _still_lacking(message_id: int) -> bool:
    close_old_connections()
    try:
        return Message.objects.filter(pk=message_id, retrieved_passages__isnull=True).exists()
    finally:
        close_old_connections()


def _retrieve(message_id: int) -> rooms.After:
    close_old_connections()
    try:
        # Once more on a new connection if the database dropped this one (retrieval saves once).
        return retried_once(rooms.message_after)(message_id=message_id)
    finally:
        close_old_connections()


async def _retrieve_here(due: _Due, *, by_database: bool) -> None:
    message_id = due.message_id
    # Threads of the pool, not the event loop: retrieval is slow, and not the serialised database
    # thread either, so other rooms' messages are not held up behind it.
    if by_database and not await sync_to_async(_still_lacking, thread_sensitive=False)(message_id):
        return
    try:
        after = await sync_to_async(_retrieve, thread_sensitive=False)(message_id)
    except Message.DoesNotExist:
        return
    except IndexNotBuilt as error:
        log.error("message %s: %s", message_id, error)
        return
    except Exception as error:
        if service_lost(error):  # a known failing dependency is one line, not a traceback
            log.warning("message %s: retrieval failed here too, service lost; the knowledge sweep will try again: %s",
                        message_id, one_line(error))
        else:
            log.exception("message %s: retrieval failed here too; the knowledge sweep will try again", message_id)
        if not by_database:
            # The claim is this process's: let it go, so that a page's `sync` has a worker retrieve
            # the message now rather than after CLAIM_TTL_S.
            await sync_to_async(claim_release, thread_sensitive=False)(message_id)
        return
    waited = due.deadline * due.waits
    log.warning("message %s: no worker started its retrieval within %.1f s; the chat process retrieved it", message_id, waited)
    # Redis may be gone under the publish (a restart, back within a second or two): the panel is
    # stored, and tried again after 0.5 s and 1 s, since a page that synced before it was stored
    # would otherwise wait for its own overdue ask. Then one log line, never an unretrieved task
    # exception.
    for attempt in range(PUBLISH_TRIES):
        try:
            await due.publish(after.knowledge)
            return
        except SERVICE_ERRORS as error:
            if attempt == PUBLISH_TRIES - 1:
                log.warning("message %s: publishing its panel skipped, service lost: %s", message_id, one_line(error))
                return
            await asyncio.sleep(0.5 * 2**attempt)
