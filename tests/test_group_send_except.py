"""group_send_except (groundwork/channel_layer.py): a group send that leaves one channel out, on the
in-memory layer (the embedded mode) and on the Redis layer (second CI pass only)."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest
from channels.layers import InMemoryChannelLayer

from groundwork.channel_layer import ProcessReaderChannelLayer, group_send_except

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
