"""The commands a piece of code makes Redis run, seen with MONITOR on a connection of its own (the
channel layer's tests: how many round trips a send or a read takes)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable
from typing import Any


async def commands_during(action: Callable[[], Awaitable[None]], keep: Callable[[dict[str, Any]], bool]) -> list[str]:
    """The names of the commands Redis ran while `action()` ran, of those `keep` keeps. The calls a
    script makes (MONITOR lists them apart, as the script's) are left out."""
    import redis.asyncio

    client = redis.asyncio.Redis.from_url(os.environ["REDIS_URL"])
    other = redis.asyncio.Redis.from_url(os.environ["REDIS_URL"])
    end = f"commands-during-end-{uuid.uuid4().hex}"
    ended = asyncio.Event()
    seen: list[str] = []

    async def watch(monitor: Any) -> None:
        async for command in monitor.listen():
            if end in command["command"]:
                ended.set()  # MONITOR lists commands in the order Redis ran them: nothing of action() is left
                return
            if command.get("client_type") != "lua" and keep(command):
                seen.append(command["command"].split()[0].upper())

    async with client.monitor() as monitor:  # monitoring from here on (MONITOR has answered OK)
        watching = asyncio.create_task(watch(monitor))
        await action()
        await other.echo(end)
        await asyncio.wait_for(ended.wait(), 30)
        watching.cancel()
    await client.aclose()
    await other.aclose()
    return seen
