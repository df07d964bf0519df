"""Calls to a model, bounded and taken in turn: at most EvalModel.max_concurrency run at once and
the others wait, first come first served whichever room they are for (one FIFO queue per model).
With the site's Redis (REDIS_URL) the bound and the order hold over every process that calls
models (the chat processes and the `models` workers); without it (the embedded mode), within this
process; Redis unreachable: within this process too, with a warning.

A call holds a ticket named for the reply it makes (e.g. "room:seq:model"): a second call for the
same reply while the first is queued or running is refused (AlreadyCalling), so a page that resyncs
while a slow reply is still coming does not call the model twice. The queue is one list: the first
`max_concurrency` tickets run, the rest wait their turn; a call that gives up or ends leaves it. A
ticket whose process died leaves it when its lease runs out (Redis's own clock)."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

# How often a call waiting in the Redis queue looks at its place (and renews its waiting lease).
POLL_S = 0.1
# A waiting ticket not renewed for this long belongs to a dead process.
WAIT_LEASE_S = 10.0


class AlreadyCalling(Exception):
    """A call for the same reply is queued or running (here or in another process)."""


class QueueTimeout(Exception):
    """The call waited its patience out without a free place."""


Waiting = Callable[[int], None]  # told the call's place in the queue (1: next) when it must wait, and each change


@contextmanager
def model_slot(*, model_id: int, limit: int, ticket: str, waiting: Waiting, patience: float, lease: float) -> Iterator[float]:
    """Hold one of the model's `limit` places while the block runs; yields the seconds waited.
    `lease`: how long the place may be held before a dead holder's is taken back. Raises
    AlreadyCalling, QueueTimeout."""
    started = time.monotonic()
    queue: _Queue = _redis_queue(model_id) if settings.REDIS_URL else _local_queue(model_id)
    try:
        queue.enter(ticket, limit=limit, waiting=waiting, deadline=started + patience, lease=lease)
    except ConnectionError as error:
        log.warning("model queue in Redis unavailable (%s); calls are bounded within this process only", error)
        queue = _local_queue(model_id)
        queue.enter(ticket, limit=limit, waiting=waiting, deadline=started + patience, lease=lease)
    try:
        yield time.monotonic() - started
    finally:
        queue.leave(ticket)


class _Queue:
    def enter(self, ticket: str, *, limit: int, waiting: Waiting, deadline: float, lease: float) -> None:
        raise NotImplementedError

    def leave(self, ticket: str) -> None:
        raise NotImplementedError


class _LocalQueue(_Queue):
    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.tickets: list[str] = []  # in order of arrival: the first `limit` run

    def enter(self, ticket: str, *, limit: int, waiting: Waiting, deadline: float, lease: float) -> None:
        shown = 0
        with self.changed:
            if ticket in self.tickets:
                raise AlreadyCalling(ticket)
            self.tickets.append(ticket)
        while True:
            with self.changed:
                position = self.tickets.index(ticket) - limit + 1
                if position <= 0:
                    return
                if position == shown:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self.tickets.remove(ticket)
                        self.changed.notify_all()
                        raise QueueTimeout(ticket)
                    self.changed.wait(left)
                    continue
            shown = position
            waiting(position)  # outside the lock: it publishes a frame

    def leave(self, ticket: str) -> None:
        with self.changed:
            if ticket in self.tickets:
                self.tickets.remove(ticket)
            self.changed.notify_all()


# KEYS: the queue (ticket → arrival number), the leases (ticket → expiry, Redis's clock in
# seconds), the arrival counter. ARGV: the ticket, its lease in seconds, whether to join the queue
# (1) or only look (0: a ticket that has expired is not put back). Returns the ticket's rank (0:
# first), -1 when joining finds it there already, -2 when looking finds it gone.
_PLACE = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
for _, dead in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', t)) do redis.call('ZREM', KEYS[1], dead) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', t)
local here = redis.call('ZSCORE', KEYS[1], ARGV[1])
if ARGV[3] == '1' then
  if here then return -1 end
  redis.call('ZADD', KEYS[1], redis.call('INCR', KEYS[3]), ARGV[1])
elseif not here then
  return -2
end
redis.call('ZADD', KEYS[2], t + tonumber(ARGV[2]), ARGV[1])
return redis.call('ZRANK', KEYS[1], ARGV[1])
"""


class _RedisQueue(_Queue):
    def __init__(self, client: Any, model_id: int) -> None:
        # Per database: two sites (or two test runs) may share one Redis.
        base = f"groundwork:model-calls:{settings.DATABASES['default']['NAME']}:{model_id}"
        self.keys = [base, f"{base}:leases", f"{base}:arrivals"]
        self.client = client
        self.place = client.register_script(_PLACE)

    def _rank(self, ticket: str, lease: float, join: bool) -> int:
        import redis

        try:
            return int(self.place(keys=self.keys, args=[ticket, lease, "1" if join else "0"]))
        except redis.RedisError as error:
            raise ConnectionError(str(error)) from error

    def enter(self, ticket: str, *, limit: int, waiting: Waiting, deadline: float, lease: float) -> None:
        rank = self._rank(ticket, WAIT_LEASE_S, True)
        if rank == -1:
            raise AlreadyCalling(ticket)
        shown = 0
        while rank >= limit:
            if rank - limit + 1 != shown:
                shown = rank - limit + 1
                waiting(shown)
            if time.monotonic() >= deadline:
                self.leave(ticket)
                raise QueueTimeout(ticket)
            time.sleep(POLL_S)
            rank = self._rank(ticket, WAIT_LEASE_S, False)
            if rank == -2:  # this process was stalled past its lease: back in at the end
                rank = self._rank(ticket, WAIT_LEASE_S, True)
        self._rank(ticket, lease, False)  # running: the call's own lease

    def leave(self, ticket: str) -> None:
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.zrem(self.keys[0], ticket)
            pipe.zrem(self.keys[1], ticket)
            pipe.execute()
        except Exception as error:  # noqa: BLE001 - its lease frees the place
            log.warning("could not leave the model queue (%s); the place is freed when its lease ends", error)


_local: dict[int, _LocalQueue] = {}
_redis: dict[int, _RedisQueue] = {}
_client: Any = None
_client_pid = 0
_guard = threading.Lock()


def _local_queue(model_id: int) -> _LocalQueue:
    with _guard:
        return _local.setdefault(model_id, _LocalQueue())


def _redis_queue(model_id: int) -> _RedisQueue:
    global _client, _client_pid
    with _guard:
        if _client is None or _client_pid != os.getpid():  # a forked worker opens its own
            import redis

            _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2.0, socket_connect_timeout=2.0)
            _client_pid = os.getpid()
            _redis.clear()
        if model_id not in _redis:
            _redis[model_id] = _RedisQueue(_client, model_id)
        return _redis[model_id]


def _fresh_after_fork() -> None:
    global _guard
    _guard = threading.Lock()
    _local.clear()


os.register_at_fork(after_in_child=_fresh_after_fork)
