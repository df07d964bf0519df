"""group_send_except (groundwork/channel_layer.py): a group send that leaves one channel out, on the
in-memory layer (the embedded mode) and on the Redis layer (second CI pass only)."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest
from channels.layers import InMemoryChannelLayer

from groundwork.channel_layer import ProcessReaderChannelLayer, group_send_except
from tests.redis_monitor import commands_during

pytestmark = pytest.mark.backends

needs_redis = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")


def redis_layer() -> ProcessReaderChannelLayer:
    return ProcessReaderChannelLayer(hosts=[{"address": os.environ["REDIS_URL"], "socket_timeout": None}], capacity=1500)


async def nothing_for(layer, channel: str, seconds: float = 0.3) -> bool:
    try:
        await asyncio.wait_for(layer.receive(channel), seconds)
    except asyncio.TimeoutError:
        return True
    return False


async def test_the_in_memory_layer_leaves_the_channel_out() -> None:
    layer = InMemoryChannelLayer()
    sender, other = await layer.new_channel(), await layer.new_channel()
    for channel in (sender, other):
        await layer.group_add("room", channel)
    await group_send_except(layer, "room", {"type": "t", "n": 1}, skip=sender)
    assert (await asyncio.wait_for(layer.receive(other), 1))["n"] == 1
    assert await nothing_for(layer, sender)
    await group_send_except(layer, "nobody", {"type": "t"}, skip=sender)  # an empty group: no error


@pytest.mark.services
@needs_redis
async def test_the_redis_layer_leaves_the_channel_out() -> None:
    here, there = redis_layer(), redis_layer()  # two processes' layers
    sender, beside = await here.new_channel(), await here.new_channel()
    partner = await there.new_channel()
    group = f"t{uuid.uuid4().hex}"
    for layer, channel in ((here, sender), (here, beside), (there, partner)):
        await layer.group_add(group, channel)
    await group_send_except(here, group, {"type": "t", "n": 1}, skip=sender)
    assert (await asyncio.wait_for(there.receive(partner), 5))["n"] == 1
    assert (await asyncio.wait_for(here.receive(beside), 5))["n"] == 1  # the same process's other socket
    assert await nothing_for(here, sender)

    # The sender alone in its process: nothing is sent there.
    await here.group_discard(group, beside)
    await group_send_except(here, group, {"type": "t", "n": 2}, skip=sender)
    assert (await asyncio.wait_for(there.receive(partner), 5))["n"] == 2
    assert await nothing_for(here, sender)
    # And a plain group_send afterwards reaches every channel again.
    await here.group_send(group, {"type": "t", "n": 3})
    assert (await asyncio.wait_for(here.receive(sender), 5))["n"] == 3
    await here.flush()
    await there.flush()


async def group_commands(layer: ProcessReaderChannelLayer, group: str, message: dict) -> list[str]:
    """The commands Redis was sent for one group_send, but for the readers' pops and the greeting
    of a newly opened connection."""
    others = ("BZMPOP", "HELLO", "SELECT", "CLIENT", "PING")
    return await commands_during(
        lambda: layer.group_send(group, message), lambda command: command["command"].split()[0].upper() not in others
    )


@pytest.mark.services
@needs_redis
async def test_a_redis_group_send_takes_two_round_trips_and_keeps_capacity_and_expiry() -> None:
    here, there = redis_layer(), redis_layer()
    a, b, c = await here.new_channel(), await here.new_channel(), await there.new_channel()
    group = f"t{uuid.uuid4().hex}"
    for layer, channel in ((here, a), (here, b), (there, c)):
        await layer.group_add(group, channel)
    await here.group_send(group, {"type": "t", "n": 0})  # the scripts are loaded once
    assert [(await asyncio.wait_for(layer.receive(ch), 5))["n"] for layer, ch in ((here, a), (here, b), (there, c))] == [0, 0, 0]

    commands = await group_commands(here, group, {"type": "t", "n": 1})
    assert commands == ["EVALSHA", "EVALSHA"], commands
    assert [(await asyncio.wait_for(layer.receive(ch), 5))["n"] for layer, ch in ((here, a), (here, b), (there, c))] == [1, 1, 1]

    # A member whose membership has expired is dropped and gets nothing.
    stale = await there.new_channel()
    await there.group_add(group, stale)
    server = here.connection(0)
    await server.zadd(here._group_key(group), {stale: 1})  # joined in 1970
    await here.group_send(group, {"type": "t", "n": 2})
    assert (await asyncio.wait_for(there.receive(c), 5))["n"] == 2
    assert await nothing_for(there, stale)
    assert stale.encode() not in await server.zrange(here._group_key(group), 0, -1)

    # A process queue at its capacity misses the message; the others get it.
    small = ProcessReaderChannelLayer(hosts=[{"address": os.environ["REDIS_URL"], "socket_timeout": None}], capacity=1)
    full, fine = await small.new_channel(), await here.new_channel()
    crowded = f"t{uuid.uuid4().hex}"
    await small.group_add(crowded, full)
    await here.group_add(crowded, fine)
    await small.send(full, {"type": "t", "n": "first"})  # its queue now holds one: full
    await small.group_send(crowded, {"type": "t", "n": 3})
    assert (await asyncio.wait_for(here.receive(fine), 5))["n"] == 3
    assert (await asyncio.wait_for(small.receive(full), 5))["n"] == "first"
    assert await nothing_for(small, full)
    for layer in (here, there, small):
        await layer.flush()
