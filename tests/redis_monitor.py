"""The commands a piece of code makes Redis run, seen with MONITOR on a connection of its own (the
channel layer's tests: how many round trips a send or a read takes)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any


async def commands_during(action: Callable[[], Awaitable[None]], keep: Callable[[dict[str, Any]], bool]) -> list[str]:
    """The names of the commands Redis ran while `action()` ran, of those `keep` keeps. The calls a
    script makes (MONITOR lists them apart, as the script's) are left out."""
    import redis.asyncio

    client = redis.asyncio.Redis.from_url(os.environ["REDIS_URL"])
    seen: list[str] = []

    async def watch(monitor: Any) -> None:
        async for command in monitor.listen():
            if command.get("client_type") != "lua" and keep(command):
                seen.append(command["command"].split()[0].upper())

    async with client.monitor() as monitor:
        watching = asyncio.create_task(watch(monitor))
        await asyncio.sleep(0.1)
        await action()
        await asyncio.sleep(0.3)  # MONITOR's last lines
        watching.cancel()
    await client.aclose()
    return seen
