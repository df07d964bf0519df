"""The Redis channel layer's one-reader-per-process receive (groundwork/channel_layer.py), against a
real Redis (second CI pass only): every socket gets its own messages, in order, however many
sockets wait at once; a socket that stops reading does not hold the others up; and when Redis goes
away every waiting socket is told."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from groundwork.channel_layer import ProcessReaderChannelLayer
from tests.redis_monitor import commands_during

pytestmark = [pytest.mark.services, pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")]


def layer(url: str | None = None) -> ProcessReaderChannelLayer:
    return ProcessReaderChannelLayer(hosts=[{"address": url or os.environ["REDIS_URL"], "socket_timeout": None}], capacity=1500)


async def test_every_socket_gets_its_own_group_messages_in_order() -> None:
    channels = layer()
    names = [await channels.new_channel() for _ in range(300)]
    groups = [f"t{uuid.uuid4().hex}.{i}" for i in range(150)]
    for i, name in enumerate(names):
        await channels.group_add(groups[i // 2], name)  # rooms of two

    async def read(name: str, count: int) -> list[int]:
        return [(await channels.receive(name))["n"] for _ in range(count)]

    readers = [asyncio.create_task(read(name, 5)) for name in names]
    for n in range(5):
        for group in groups:
            await channels.group_send(group, {"type": "t", "n": n, "group": group})
    got = await asyncio.wait_for(asyncio.gather(*readers), 30)
    assert got == [[0, 1, 2, 3, 4]] * len(names)
    await channels.flush()


async def test_a_socket_that_stops_reading_does_not_hold_up_the_others() -> None:
    channels = layer()
    idle, busy = await channels.new_channel(), await channels.new_channel()
    for n in range(20):
        await channels.send(idle, {"type": "t", "n": n})
    await channels.send(busy, {"type": "t", "n": 99})
    assert (await asyncio.wait_for(channels.receive(busy), 10))["n"] == 99
    assert (await asyncio.wait_for(channels.receive(idle), 10))["n"] == 0
    await channels.flush()


async def test_waiting_sockets_are_told_when_redis_cannot_be_reached() -> None:
    channels = layer("redis://127.0.0.1:1/0")  # nothing listens there
    names = [await channels.new_channel() for _ in range(3)]
    results = await asyncio.wait_for(
        asyncio.gather(*(channels.receive(name) for name in names), return_exceptions=True), 30
    )
    assert all(isinstance(result, Exception) for result in results), results


async def test_waiting_sockets_are_told_when_redis_comes_back_without_its_data(monkeypatch) -> None:
    """A Redis restarted without persistence answers again at once, but every group is gone: the
    reader's marker key is gone with them, and the sockets are told as if Redis had gone away."""
    import redis.asyncio

    from groundwork import channel_layer

    monkeypatch.setattr(channel_layer, "MARKER_CHECK_S", 0.2)
    channels = layer()
    name = await channels.new_channel()
    waiting = asyncio.create_task(channels.receive(name))
    client = redis.asyncio.Redis.from_url(os.environ["REDIS_URL"])
    pattern = f"{channels.prefix}marker.{channels.non_local_name(name)}"
    deadline = asyncio.get_running_loop().time() + 10
    while not (markers := [key async for key in client.scan_iter(match=pattern)]):  # the reader sets it once running
        assert asyncio.get_running_loop().time() < deadline, "the reader never set its marker"
        await asyncio.sleep(0.02)
    assert len(markers) == 1
    await client.delete(*markers)
    await client.aclose()
    with pytest.raises(channel_layer.RedisLostData):
        await asyncio.wait_for(waiting, 10)
    # A socket that receives afterwards gets a new reader, which works.
    await channels.send(name, {"type": "t", "n": 1})
    assert (await asyncio.wait_for(channels.receive(name), 10))["n"] == 1
    await channels.flush()


async def test_sends_from_task_code_reuse_their_redis_connections() -> None:
    """Celery tasks publish knowledge frames from synchronous code (groundwork/layer_publish.py):
    many sends arrive in order and open a connection or two, not one each."""
    import redis

    from groundwork import layer_publish

    channels = layer()
    name = await channels.new_channel()
    group = f"t{uuid.uuid4().hex}"
    await channels.group_add(group, name)
    server = redis.Redis.from_url(os.environ["REDIS_URL"])
    opened = server.info("stats")["total_connections_received"]
    for n in range(20):
        await asyncio.to_thread(layer_publish.group_send, group, {"type": "t", "n": n}, layer=channels)
    assert server.info("stats")["total_connections_received"] - opened <= 5
    got = [(await asyncio.wait_for(channels.receive(name), 10))["n"] for _ in range(20)]
    assert got == list(range(20))
    await channels.group_discard(group, name)  # not flush(): some of its connections live on the sender's loop


async def test_a_channel_of_another_prefix_read_first_leaves_the_sockets_their_reader() -> None:
    """The process's first receive may be for a channel made with another prefix (a readiness
    probe's); the sockets' channels, read after it, still get their messages."""
    channels = layer()
    probe = await channels.new_channel("probe.")
    await channels.send(probe, {"type": "t", "n": 1})
    assert (await asyncio.wait_for(channels.receive(probe), 10))["n"] == 1
    socket = await channels.new_channel()
    await channels.send(socket, {"type": "t", "n": 2})
    assert (await asyncio.wait_for(channels.receive(socket), 10))["n"] == 2
    await channels.flush()


async def reader_commands(channels: ProcessReaderChannelLayer, name: str, count: int) -> list[str]:
    """The commands Redis ran on this channel's queue while `count` messages were sent to it one
    at a time, each read before the next (as at a human pace)."""
    key = channels.prefix + channels.non_local_name(name)

    async def one_at_a_time() -> None:
        for n in range(count):
            await channels.send(name, {"type": "t", "n": n})
            assert (await asyncio.wait_for(channels.receive(name), 10))["n"] == n

    seen = await commands_during(one_at_a_time, lambda command: key in command["command"])
    await channels.flush()
    return seen


async def test_the_reader_takes_one_round_trip_per_wake() -> None:
    """A message that arrives while the queue is empty costs the reader one command (BZMPOP pops
    up to a batch and blocks while there is none), not a batch pop that finds nothing and then a
    blocking pop of one."""
    channels = layer()
    pops = [c for c in await reader_commands(channels, await channels.new_channel(), 10) if "POP" in c]
    assert set(pops) == {"BZMPOP"}, pops
    assert len(pops) <= 10 + 2, pops  # one per message, the one left waiting, a timed-out one


async def test_the_reader_falls_back_on_a_redis_without_bzmpop(monkeypatch) -> None:
    """Redis before 7.0 has no BZMPOP: the reader goes on with a batch pop, then a blocking one."""
    import redis.asyncio
    from redis.exceptions import ResponseError

    async def unknown(self, *args, **kwargs):
        raise ResponseError("unknown command 'BZMPOP', with args beginning with: ")

    monkeypatch.setattr(redis.asyncio.Redis, "bzmpop", unknown)
    channels = layer()
    pops = [c for c in await reader_commands(channels, await channels.new_channel(), 5) if "POP" in c]
    assert "BZPOPMIN" in pops and "ZPOPMIN" in pops and "BZMPOP" not in pops, pops
    assert channels._batch_blocking_pop is False
