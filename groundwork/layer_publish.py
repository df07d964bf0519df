"""Group sends from synchronous code outside the chat processes (Celery tasks).

async_to_sync runs each call on an event loop of its own, and channels_redis keeps its Redis
connections per event loop: every knowledge frame a worker published opened and dropped its own
connections. Here a worker process keeps one event loop in a thread for its sends, started on first
use (after the fork, in each worker process), so its connections are reused.

The in-memory layer (the embedded mode, where tasks run inside the chat process) is left to
async_to_sync: its queues belong to the chat process's own loop, which async_to_sync hands the send
to when it is called under it."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

SEND_TIMEOUT_S = 10.0

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid = 0


def _sender_loop() -> asyncio.AbstractEventLoop:
    global _loop, _loop_pid
    with _lock:
        if _loop is None or _loop_pid != os.getpid():
            _loop, _loop_pid = asyncio.new_event_loop(), os.getpid()
            threading.Thread(target=_loop.run_forever, name="channel-layer-sender", daemon=True).start()
        return _loop


def group_send(group: str, event: dict[str, Any], *, layer: Any = None) -> None:
    layer = layer or get_channel_layer()
    if isinstance(layer, InMemoryChannelLayer):
        async_to_sync(layer.group_send)(group, event)
        return
    asyncio.run_coroutine_threadsafe(layer.group_send(group, event), _sender_loop()).result(SEND_TIMEOUT_S)
