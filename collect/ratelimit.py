"""Rate limits. One connection's frames are counted in the connection (`RateLimiter`); everything
else — frames per worker and per IP over all their sockets, new sockets, joins, API calls — is
counted in a store every process shares: Redis when REDIS_URL is set, this process's memory
otherwise (the embedded mode has one process). Windows are fixed (a count per key per window), so
a burst across a window boundary may reach twice the limit; what matters is that a flood is cut.

With Redis, each process first counts an event in its own memory, and only once a key's count
there passes a local share of the limit (LOCAL_SHARE of it) does it count in Redis, adding the
events it had kept to itself. Workers at a human pace (a frame every few seconds) then cost no
round trip per frame; a flood is still counted in Redis after its first few frames, and with N
processes a key can overshoot its limit by at most (N − 1) local shares.

If Redis cannot be reached the limits fail open (logged): a rate limit must not take the chat down.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from groundwork import metrics

log = logging.getLogger(__name__)
KEY_PREFIX = "gw:rate:"
LOCAL_SHARE = 0.25


class RateLimiter:
    """At most `limit` events in any `window` seconds (a sliding window, per connection)."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._times: list[float] = []

    def allow(self) -> bool:
        now = time.monotonic()
        self._times = [t for t in self._times if now - t < self.window]
        if len(self._times) >= self.limit:
            return False
        self._times.append(now)
        return True


@dataclass(frozen=True)
class Limited:
    """A refused event: which limit, for whom, and how long until its window ends."""

    rule: str
    who: str  # "worker" or "ip"
    limit: int
    window: int
    retry_after: int

    @property
    def message(self) -> str:
        source = "this worker" if self.who == "worker" else "this network address"
        what = {"frames": "frames", "sockets": "new connections", "joins": "joins", "api": "requests"}.get(self.rule, self.rule)
        return (
            f"Too many {what}: at most {self.limit} per {self.window} s from {source}. "
            f"Wait {self.retry_after} s and try again."
        )


def _counters(rule: str, *, worker: Any, ip: str | None, now: float) -> list[tuple[str, str, int, int]]:
    """(key, who, limit, window) for each limit that applies to this event."""
    limits = settings.RATE_LIMITS.get(rule, {})
    out = []
    for who, ident in (("worker", worker), ("ip", ip)):
        if ident is None or who not in limits or (who == "ip" and ident in settings.RATE_LIMIT_EXEMPT_IPS):
            continue
        limit, window = limits[who]
        out.append((f"{KEY_PREFIX}{rule}:{who}:{ident}:{int(now // window)}", who, limit, window))
    return out


def _verdict(rule: str, counters: list[tuple[str, str, int, int]], counts: list[int], now: float) -> Limited | None:
    for (_key, who, limit, window), count in zip(counters, counts):
        if count > limit:
            retry = max(1, int(window - now % window + 0.999))
            metrics.RATE_LIMITED.labels(rule, who).inc()
            return Limited(rule=rule, who=who, limit=limit, window=window, retry_after=retry)
    return None


class _MemoryStore:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()

    def incr(self, keys: list[tuple[str, int]]) -> list[int]:
        with self.lock:
            if len(self.counts) > 50_000:
                self.counts.clear()  # every key is a window that is over within minutes
            out = []
            for key, _ in keys:
                self.counts[key] = self.counts.get(key, 0) + 1
                out.append(self.counts[key])
            return out

    def clear(self) -> None:
        with self.lock:
            self.counts.clear()


_memory = _MemoryStore()  # the shared store of the embedded mode
_local = _MemoryStore()  # this process's own counts, in front of Redis
# One round trip per event: add to each key (ARGV: amount, expiry, ...), start its expiry with it.
COUNT_SCRIPT = """
local counts = {}
for i, key in ipairs(KEYS) do
  local added = tonumber(ARGV[2 * i - 1])
  local n = redis.call('INCRBY', key, added)
  if n == added then redis.call('EXPIRE', key, ARGV[2 * i]) end
  counts[i] = n
end
return counts
"""
_sync_script: Any = None
_async_scripts: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _script_sync() -> Any:
    global _sync_script
    if _sync_script is None:
        import redis

        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1.0, socket_connect_timeout=1.0)
        _sync_script = client.register_script(COUNT_SCRIPT)
    return _sync_script


def _script_async() -> Any:
    """One client per event loop: redis.asyncio connections belong to the loop that opened them."""
    import asyncio

    import redis.asyncio

    loop = asyncio.get_running_loop()
    script = _async_scripts.get(loop)
    if script is None:
        client = redis.asyncio.Redis.from_url(settings.REDIS_URL, socket_timeout=1.0, socket_connect_timeout=1.0)
        script = _async_scripts[loop] = client.register_script(COUNT_SCRIPT)
    return script



@dataclass
class _Event:
    """One event, counted in this process (in the embedded mode, its only count). `shared`: for the
    counters past their local share, {index: amount still to add in Redis}."""

    rule: str
    counters: list[tuple[str, str, int, int]]
    counts: list[int]
    shared: dict[int, int]
    now: float

    def script_call(self) -> dict[str, list[Any]]:
        args: list[Any] = []
        for i, added in self.shared.items():
            args += [added, self.counters[i][3] + 1]
        return {"keys": [self.counters[i][0] for i in self.shared], "args": args}

    def verdict(self, totals: list[int] | None = None) -> Limited | None:
        """The refusal, if any, with Redis's totals for the shared counters."""
        for i, total in zip(self.shared, totals or []):
            self.counts[i] = int(total)
        return _verdict(self.rule, self.counters, self.counts, self.now)


def _counted(rule: str, *, worker: Any, ip: str | None) -> _Event | None:
    """Count the event in this process; None when no limit applies to it. With Redis, the counters
    past their local share are to be added there: the events kept back so far with the first, 1 after."""
    now = time.time()
    counters = _counters(rule, worker=worker, ip=ip, now=now)
    if not counters:
        return None
    keys = [(key, window) for key, _, _, window in counters]
    if not settings.REDIS_URL:
        return _Event(rule, counters, _memory.incr(keys), {}, now)
    counts = _local.incr(keys)
    shared = {}
    for i, ((_, _, limit, _), count) in enumerate(zip(counters, counts)):
        share = int(limit * LOCAL_SHARE)
        if count > share:
            shared[i] = count if count == share + 1 else 1
    return _Event(rule, counters, counts, shared, now)


def _fail_open(error: Exception) -> None:
    log.warning("rate limits off for this event: Redis did not answer (%r)", error)


def rate_check(rule: str, *, worker: Any = None, ip: str | None = None) -> Limited | None:
    """Counts one event of `rule` for the worker and the IP; the refusal if either is over its limit."""
    event = _counted(rule, worker=worker, ip=ip)
    if event is None:
        return None
    if not event.shared:
        return event.verdict()
    try:
        totals = _script_sync()(**event.script_call())
    except Exception as error:  # noqa: BLE001 - fail open, see the module docstring
        _fail_open(error)
        return None
    return event.verdict(totals)


async def arate_check(rule: str, *, worker: Any = None, ip: str | None = None) -> Limited | None:
    """rate_check for consumers, without leaving the event loop."""
    event = _counted(rule, worker=worker, ip=ip)
    if event is None:
        return None
    if not event.shared:
        return event.verdict()
    try:
        totals = await _script_async()(**event.script_call())
    except Exception as error:  # noqa: BLE001 - fail open, see the module docstring
        _fail_open(error)
        return None
    return event.verdict(totals)


def rate_limits_reset() -> None:
    """Forget every count (tests, and an operator lifting a block)."""
    _memory.clear()
    _local.clear()
    if settings.REDIS_URL:
        client = _script_sync().registered_client
        keys = list(client.scan_iter(match=f"{KEY_PREFIX}*", count=1000))
        if keys:
            client.delete(*keys)
