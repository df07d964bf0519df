"""Scheduling the model's reply from the room socket, never on the event loop: on the Celery
`models` queue (a local checkpoint's: `local_models`) when a broker is configured (the worker posts
and broadcasts), else on a thread of this process (its own pool: a turn waiting for its model's
queue holds a thread, and must not hold one the event loop's other work needs). The evaluator's
message is already acked and broadcast when this starts."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections

from collect.groups import room_group
from groundwork.service_errors import SERVICE_ERRORS, one_line
from collect.tasktypes.modelchat.local_queue import room_model_queue
from collect.tasktypes.modelchat.progress import Publish, publisher_on_loop
from collect.tasktypes.modelchat.protocol import PARTNER
from collect.tasktypes.modelchat.turns import model_reply_owed, model_turn_after, model_turn_take

log = logging.getLogger(__name__)

_pending: set[asyncio.Task] = set()  # referenced until done
# Embedded mode: the model turns under way in this process (most of them waiting for the model).
TURN_THREADS = 64
_turns = ThreadPoolExecutor(max_workers=TURN_THREADS, thread_name_prefix="model-turn")


def _fresh_after_fork() -> None:
    global _turns
    _turns = ThreadPoolExecutor(max_workers=TURN_THREADS, thread_name_prefix="model-turn")


os.register_at_fork(after_in_child=_fresh_after_fork)


async def _on_turn_thread(func: Callable[..., Any], *args: Any) -> Any:
    context = contextvars.copy_context()  # the log context (room=...) goes with it
    return await asyncio.get_running_loop().run_in_executor(_turns, lambda: context.run(func, *args))


def reply_soon(*, room_id: str, seq: int) -> None:
    """Start the model's reply to message `seq` of this room, if it is a model room."""
    task = asyncio.create_task(_reply(room_id, seq))
    _pending.add(task)
    task.add_done_callback(_pending.discard)


def _take(room_id: str, seq: int, publish: Publish) -> dict[str, Any] | None:
    close_old_connections()
    try:
        return model_turn_take(room_id=room_id, after_seq=seq, publish=publish)
    finally:
        close_old_connections()


def _after(room_id: str, seq: int) -> None:
    close_old_connections()
    try:
        model_turn_after(room_id=room_id, seq=seq)
    finally:
        close_old_connections()


def _enqueue(room_id: str, seq: int, queue: str) -> None:
    from collect.tasktypes.modelchat.tasks import model_turn

    model_turn.apply_async(kwargs={"room_id": room_id, "after_seq": seq}, queue=queue)


def reply_to_last(*, room_id: str) -> None:
    """Post the reply the evaluator picked among several (prism.py) to the room's last message."""
    task = asyncio.create_task(_reply_to_last(room_id))
    _pending.add(task)
    task.add_done_callback(_pending.discard)


async def _reply_to_last(room_id: str) -> None:
    try:
        seq = await database_sync_to_async(_last_seq)(room_id)
    except SERVICE_ERRORS as error:  # the evaluator's page resyncs, which asks again (reply_if_owed)
        log.warning("room %s: the picked reply not posted, service lost: %s", room_id, one_line(error))
        return
    if seq:
        await _reply(room_id, seq, typing=False)


def _last_seq(room_id: str) -> int:
    from collect.models import Message

    return Message.objects.filter(room_id=room_id).order_by("-seq").values_list("seq", flat=True).first() or 0


async def _reply(room_id: str, seq: int, *, typing: bool = True) -> None:
    try:
        queue = await database_sync_to_async(room_model_queue)(room_id=room_id)
        if queue is None:
            return
        # The evaluator's page shows "partner is typing" until the reply (or an apology) comes.
        if typing:
            await get_channel_layer().group_send(room_group(room_id), {"type": "room.typing", "role": PARTNER, "after_seq": seq})
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            await sync_to_async(_enqueue, thread_sensitive=False)(room_id, seq, queue)
            return
        publish = publisher_on_loop(asyncio.get_running_loop(), room_id)
        event = await _on_turn_thread(_take, room_id, seq, publish)
        if event is not None:
            await get_channel_layer().group_send(room_group(room_id), event)
            if event["type"] == "room.message":
                await _on_turn_thread(_after, room_id, event["message"]["seq"])
    except SERVICE_ERRORS as error:  # the evaluator's page resyncs, which asks again (reply_if_owed)
        log.warning("room %s: the model's reply to #%d skipped, service lost: %s", room_id, seq, one_line(error))
    except Exception:  # noqa: BLE001 - logged; the evaluator can resend after a sync
        log.exception("room %s: the model's reply to #%d failed", room_id, seq)


def reply_if_owed(*, room_id: str) -> None:
    """On a resync: retry a model reply that never came, or ask for the DuConv variant's opening
    (see turns.model_reply_owed)."""
    task = asyncio.create_task(_reply_if_owed(room_id))
    _pending.add(task)
    task.add_done_callback(_pending.discard)


async def _reply_if_owed(room_id: str) -> None:
    try:
        seq = await database_sync_to_async(model_reply_owed)(room_id=room_id)
    except SERVICE_ERRORS as error:
        log.warning("room %s: could not check for a missing model reply, service lost: %s", room_id, one_line(error))
        return
    except Exception:  # noqa: BLE001
        log.exception("room %s: could not check for a missing model reply", room_id)
        return
    if seq is not None:
        if seq:
            log.warning("room %s: the model's reply to #%d never came; asking again", room_id, seq)
        await _reply(room_id, seq)
