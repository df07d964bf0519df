"""The Redis channel layer, with one reader per process for the process's own channels.

channels_redis keeps the messages for all the sockets of one process in one Redis queue (a sorted
set), and its receive() drains it one message at a time: a lock that every waiting socket competes
for, then four round trips (restore the in-flight backup, pop, back the message up, clear the
backup), each of which waits for the busy event loop to come round again. At 1,000 rooms the chat
processes drained their queues more slowly than messages arrived, and channels_redis dropped group
messages over its capacity (docs/deployment.md).

Here one task per process and event loop pops up to READ_BATCH messages per round trip (blocking
only when the queue is empty: one BZMPOP per wake) and hands each to its socket's buffer; a
socket's receive() only waits on its buffer. The in-flight backup is left out: it guards a message
popped by a receive() that is then cancelled, and a message popped here goes straight to an
in-memory buffer, which a dying process loses either way (the pages then reconnect and catch up).
Group membership, the keys, serialization and sharding are channels_redis's own, and so are the
rules of capacity and expiry that the group send below keeps.

A Redis that restarts without its data loses every group membership, and redis-py reconnects
without a word: the sockets would stay open but hear nothing from their rooms. So the reader keeps
a marker key of its own in Redis and checks it every MARKER_CHECK_S; once it is gone, Redis is
treated as having gone away: every socket of the process gets the error, and the pages reconnect,
join their groups again and catch up.

group_send() takes two round trips where channels_redis's takes four: one script drops the group's
expired members and lists the rest, and one per Redis host drops each process queue's expired
messages and adds the message to the queues below their capacity (a full queue misses it, as
there). Every chat message and knowledge panel is a group send.

group_send_except() sends to a group but one of its channels (the chat message's sender, which
has answered its own socket): on this layer the channel is left out where channels_redis maps the
group's channels to their process queues, so a message whose partner is on another process costs
one queue entry, not two."""

from __future__ import annotations

import asyncio
import logging
import time
from contextvars import ContextVar
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer
from redis.exceptions import ResponseError

READ_BATCH = 100
MARKER_CHECK_S = 2.0
MARKER_TTL_S = 3600
log = logging.getLogger(__name__)

# KEYS[1]: a group. ARGV[1]: the score (join time) below which its members have expired.
_GROUP_MEMBERS = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""
# KEYS: process queues. ARGV: the message for each, then each one's capacity, then the time (the
# score), the score below which a queued message has expired, and the queues' time to live.
_GROUP_PUSH = """
local n = #KEYS
local now, expired, ttl = ARGV[2 * n + 1], ARGV[2 * n + 2], ARGV[2 * n + 3]
local over = 0
for i = 1, n do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, expired)
  if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[n + i]) then
    redis.call('ZADD', KEYS[i], now, ARGV[i])
    redis.call('EXPIRE', KEYS[i], ttl)
  else
    over = over + 1
  end
end
return over
"""


# The channel a group_send_except() in progress leaves out (read where channels_redis maps the
# group's channels to their Redis queues).
_SKIPPED: ContextVar[str | None] = ContextVar("skipped_channel", default=None)


class RedisLostData(ConnectionError):
    """Redis answers, but without the data it had (a restart without persistence, a failover)."""


class ProcessReaderChannelLayer(RedisChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # One reader per event loop and process queue: channels made with another prefix
        # (`new_channel("x.")`) have a queue of their own.
        self._readers: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Task] = {}
        # False once Redis has said it has no BZMPOP (before 7.0).
        self._batch_blocking_pop = True
        self._scripts: dict[str, Any] = {}

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert self.require_valid_group_name(group), "Group name not valid"
        connection = self.connection(self.consistent_hash(group))
        now = time.time()
        members = await self._script(connection, _GROUP_MEMBERS)(
            keys=[self._group_key(group)], args=[int(now) - self.group_expiry], client=connection
        )
        channels = [name.decode("utf8") for name in members]
        by_connection, messages, capacities = self._map_channel_keys_to_connection(channels, message)
        for index, keys in by_connection.items():
            host = self.connection(index)
            over = await self._script(host, _GROUP_PUSH)(
                keys=keys,
                args=[*(messages[k] for k in keys), *(capacities[k] for k in keys), now, int(now) - int(self.expiry), self.expiry],
                client=host,
            )
            if over:
                log.info("%s of %s channels over capacity in group %s", over, len(channels), group)

    def _script(self, connection: Any, text: str) -> Any:
        """A Lua script run by its hash (the text is sent once per Redis, not with every call)."""
        if text not in self._scripts:
            self._scripts[text] = connection.register_script(text)
        return self._scripts[text]

    async def receive(self, channel: str) -> dict[str, Any]:
        if "!" not in channel:
            return await super().receive(channel)  # a shared channel: read directly
        assert self.require_valid_channel_name(channel)
        self._reader_ensure(self.non_local_name(channel))
        try:
            item = await self.receive_buffer[channel].get()
        except asyncio.CancelledError:
            # The consumer is going away: nothing reads this buffer any more.
            self.receive_buffer.pop(channel, None)
            raise
        if isinstance(item, BaseException):
            raise item
        return item

    def _map_channel_keys_to_connection(self, channel_names: list[str], message: dict[str, Any]) -> Any:
        skipped = _SKIPPED.get()
        if skipped is not None:
            channel_names = [name for name in channel_names if name != skipped]
        return super()._map_channel_keys_to_connection(channel_names, message)

    def _reader_ensure(self, real_channel: str) -> None:
        loop = asyncio.get_running_loop()
        reader = self._readers.get((loop, real_channel))
        if reader is None or reader.done():
            for old in [known for known in self._readers if known[0].is_closed()]:
                del self._readers[old]
            self._readers[loop, real_channel] = loop.create_task(self._read(real_channel))

    async def _read(self, real_channel: str) -> None:
        key = self.prefix + real_channel
        marker = f"{self.prefix}marker.{real_channel}"
        connection = self.connection(self.consistent_hash(real_channel))
        loop = asyncio.get_running_loop()
        checked: float | None = None
        while True:
            try:
                if checked is None or loop.time() - checked >= MARKER_CHECK_S:
                    await self._marker_check(connection, marker, first=checked is None)
                    checked = loop.time()
                popped = await self._pop(connection, key, timeout=min(self.brpop_timeout, MARKER_CHECK_S))
            except asyncio.CancelledError:
                raise
            except Exception as error:
                # Redis went away: every socket of this process gets the error (its consumer ends
                # and the page reconnects and resyncs, as with channels_redis's own receive). The
                # next receive() starts a new reader.
                for buffer in list(self.receive_buffer.values()):
                    buffer.put_nowait(error)
                return
            for content, _ in popped:
                message = self.deserialize(content)
                # One copy per Redis queue: the channels of this process it is for ride along.
                targets = message.pop("__asgi_channel__", real_channel)
                for target in targets if isinstance(targets, list) else [targets]:
                    self.receive_buffer[target].put_nowait(message)

    async def _pop(self, connection: Any, key: str, *, timeout: float) -> list[Any]:
        """Up to READ_BATCH messages of the queue (member, score), waiting up to `timeout` while it
        is empty. BZMPOP (Redis 7) does both in one round trip; on an older Redis a batch pop,
        and when it finds nothing a blocking pop of one."""
        if self._batch_blocking_pop:
            try:
                reply = await connection.bzmpop(timeout, 1, [key], min=True, count=READ_BATCH)
            except ResponseError as error:
                if "unknown command" not in str(error).lower():
                    raise
                self._batch_blocking_pop = False
            else:
                return reply[1] if reply else []
        popped = await connection.zpopmin(key, READ_BATCH)
        if popped:
            return popped
        waited = await connection.bzpopmin(key, timeout=timeout)
        return [(waited[1], waited[2])] if waited else []

    @staticmethod
    async def _marker_check(connection: Any, marker: str, *, first: bool) -> None:
        if first:
            await connection.set(marker, 1, ex=MARKER_TTL_S)
        elif not await connection.expire(marker, MARKER_TTL_S):  # 0: the key is gone
            raise RedisLostData("Redis lost its data (restarted or failed over): this process's groups are gone")


async def group_send_except(layer: Any, group: str, message: dict[str, Any], *, skip: str) -> None:
    """`layer.group_send(group, message)` to every channel of the group but `skip`: a socket that
    has just answered its own client need not hear the same thing back from Redis. On a layer of
    another kind every channel gets it, `skip` included, which must then ignore it."""
    if isinstance(layer, ProcessReaderChannelLayer):
        token = _SKIPPED.set(skip)
        try:
            await layer.group_send(group, message)
        finally:
            _SKIPPED.reset(token)
    elif isinstance(layer, InMemoryChannelLayer):
        layer.require_valid_group_name(group)
        layer._clean_expired()  # as its group_send does first
        for channel in list(layer.groups.get(group, {})):
            if channel != skip:
                try:
                    await layer.send(channel, message)
                except ChannelFull:
                    pass  # as its group_send does: a full channel misses the message
    else:
        await layer.group_send(group, message)
