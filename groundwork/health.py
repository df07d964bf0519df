"""Probes for a load balancer: /healthz says the process is up; /readyz says it can serve, i.e. its
database and its channel layer both answer, and names what is down (503) when not."""

from __future__ import annotations

import asyncio
import logging
import uuid

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import close_old_connections, connection
from django.http import HttpRequest, JsonResponse

PROBE_TIMEOUT_S = 3.0
log = logging.getLogger(__name__)


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _database() -> None:
    close_old_connections()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        close_old_connections()


async def _channel_layer() -> None:
    """A real round trip through the layer (Redis in production): send to a fresh channel, read it
    back. A channel of its own, not one of this process's (`new_channel()`, a name with "!"): those
    are all read from the process's one queue by its reader (groundwork/channel_layer.py), which
    the probe has no business touching."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    channel = f"readyz.{uuid.uuid4().hex}"
    await layer.send(channel, {"type": "readyz.probe"})
    message = await layer.receive(channel)
    if message.get("type") != "readyz.probe":
        raise RuntimeError("the channel layer returned another message")


async def _check(probe: object) -> str:
    try:
        if asyncio.iscoroutinefunction(probe):
            await asyncio.wait_for(probe(), PROBE_TIMEOUT_S)
        else:
            await asyncio.wait_for(sync_to_async(probe, thread_sensitive=False)(), PROBE_TIMEOUT_S)
    except asyncio.TimeoutError:
        return f"down: no answer within {PROBE_TIMEOUT_S:g} s"
    except Exception as error:  # noqa: BLE001 - any failure means "not ready"
        # The details (hosts, users) go to the log, not to whoever can reach the probe.
        log.warning("readyz: %s is down: %r", getattr(probe, "__name__", probe), error)
        return f"down: {type(error).__name__}"
    return "ok"


async def readyz(request: HttpRequest) -> JsonResponse:
    database, layer = await asyncio.gather(_check(_database), _check(_channel_layer))
    checks = {"database": database, "channel_layer": layer}
    down = [name for name, result in checks.items() if result != "ok"]
    body = {"status": "ok" if not down else f"not ready: {', '.join(down)} down", **checks}
    return JsonResponse(body, status=503 if down else 200)
