"""Who retrieves a stored message's knowledge: a Celery worker that started the task, or, when none
has started it by the deadline, the chat process that stored the message. Each takes a claim on the
message first (Redis SET NX, one key per message, expiring after CLAIM_TTL_S); whoever gets it
retrieves, the other leaves it. Without Redis (REDIS_URL unset) there is no claim to take: the chat
process retrieves when the message still lacks its retrieval after the deadline, and a worker that
was merely slow retrieves the same passages again (TF-IDF is deterministic; the save overwrites
them with the same value)."""

from __future__ import annotations

import asyncio
import logging
import os
import weakref
from collections.abc import Callable
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

# Longer than any retrieval takes; once it expires, the knowledge sweep may retrieve a message whose
# claimant died before saving.
CLAIM_TTL_S = 60
# Connections a chat process's event loop uses for claims at most.
ASYNC_CONNECTIONS = 20
# A worker that started a retrieval task this recently is busy, not gone: a chat process past a
# message's deadline waits for it a while longer instead of retrieving too (on a saturated machine,
# retrieving in the chat processes as well only slows everything further).
WORKER_SEEN_S = 5
WORKER = "worker"
FALLBACK = "fallback"

_sync_client: Any = None
_sync_pid = 0
_async_clients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def claims_enabled() -> bool:
    return bool(settings.REDIS_URL)


def claim_key(message_id: int) -> str:
    # Per database: two sites (or two test runs) may share one Redis.
    return f"groundwork:knowledge-claim:{settings.DATABASES['default']['NAME']}:{message_id}"


def worker_seen_key() -> str:
    return f"groundwork:knowledge-worker-seen:{settings.DATABASES['default']['NAME']}"


def _client_sync() -> Any:
    global _sync_client, _sync_pid
    if _sync_client is None or _sync_pid != os.getpid():  # a forked worker opens its own
        import redis

        _sync_client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2.0, socket_connect_timeout=2.0)
        _sync_pid = os.getpid()
    return _sync_client


def _client_async() -> Any:
    """One client per event loop: redis.asyncio connections belong to the loop that opened them."""
    import redis.asyncio

    loop = asyncio.get_running_loop()
    client = _async_clients.get(loop)
    if client is None:
        # A blocking pool: a burst of claims at one deadline waits for a connection instead of
        # failing with "Too many connections" once the pool is spent.
        pool = redis.asyncio.BlockingConnectionPool.from_url(
            settings.REDIS_URL, max_connections=ASYNC_CONNECTIONS, timeout=5.0, socket_timeout=2.0, socket_connect_timeout=2.0
        )
        client = _async_clients[loop] = redis.asyncio.Redis(connection_pool=pool)
    return client


def claims_take_for_worker(message_ids: list[int], *, task_id: str) -> list[int]:
    """The messages this task may retrieve: those it claimed now, or had claimed already (a task
    redelivered after its worker died). One pipelined round trip. Redis unreachable: all of them,
    since a retrieval done twice is better than none."""
    if not claims_enabled() or not message_ids:
        return list(message_ids)
    owner = f"{WORKER}:{task_id}".encode()
    try:
        pipe = _client_sync().pipeline(transaction=False)
        pipe.set(worker_seen_key(), owner, ex=WORKER_SEEN_S)
        for message_id in message_ids:
            pipe.set(claim_key(message_id), owner, nx=True, ex=CLAIM_TTL_S)
            pipe.get(claim_key(message_id))
        replies = pipe.execute()
    except Exception as error:  # noqa: BLE001 - any Redis failure: retrieve without a claim
        log.warning("knowledge claims unavailable (%s); retrieving without them", error)
        return list(message_ids)
    return [m for m, holder in zip(message_ids, replies[2::2]) if holder == owner]


async def _pipelined(queue: Callable[[Any], None]) -> list[Any] | None:
    """The replies to the commands `queue` adds to a pipeline, in one round trip on this event
    loop's client. None: no claims here (no Redis, or Redis unreachable); the database decides."""
    if not claims_enabled():
        return None
    try:
        pipe = _client_async().pipeline(transaction=False)
        queue(pipe)
        return await pipe.execute()
    except Exception as error:  # noqa: BLE001 - any Redis failure: the database decides
        log.warning("knowledge claims unavailable (%s); the database decides", error)
        return None


async def claims_check_for_fallback(message_ids: list[int]) -> tuple[list[bool], bool] | None:
    """For messages past their deadline, one pipelined round trip: whether each is claimed (a worker
    started it, the normal case), and whether any worker started a task within WORKER_SEEN_S (the
    queue is slow rather than unserved). None as _pipelined."""

    def queue(pipe: Any) -> None:
        pipe.exists(worker_seen_key())
        for message_id in message_ids:
            pipe.exists(claim_key(message_id))

    replies = await _pipelined(queue)
    if replies is None:
        return None
    seen, *held = replies
    return [bool(h) for h in held], bool(seen)


async def claims_take_for_fallback(message_ids: list[int]) -> list[bool] | None:
    """Take the claims for the chat process, one pipelined round trip: True where it now holds the
    claim (no worker started the message), False where someone else does. None as _pipelined."""
    owner = f"{FALLBACK}:{os.getpid()}"

    def queue(pipe: Any) -> None:
        for message_id in message_ids:
            pipe.set(claim_key(message_id), owner, nx=True, ex=CLAIM_TTL_S)

    replies = await _pipelined(queue)
    return None if replies is None else [bool(t) for t in replies]


def claim_release(message_id: int) -> None:
    if claims_enabled():
        try:
            _client_sync().delete(claim_key(message_id))
        except Exception as error:  # noqa: BLE001 - it expires anyway
            log.warning("message %s: knowledge claim not released (%s)", message_id, error)


def claim_holder(message_id: int) -> str | None:
    """Who holds the claim on a message ("worker:<task id>" or "fallback:<pid>"), for checks."""
    value = _client_sync().get(claim_key(message_id))
    return value.decode() if value is not None else None
