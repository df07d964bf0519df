"""Knowledge for stored messages, durably: retrieval for a message is done after its commit, and a
node can die in between. Every message that lacks it is found again (by a `sync` of its room, a
resend, or the periodic sweep) and retrieved then, so no turn is exported without its knowledge.

Where it runs: GROUNDWORK_KNOWLEDGE_MODE = "process" (the chat process's thread pool), "celery"
(the `default` queue; the knowledge frames are published to the room's group from the worker) or
"auto" (default): Celery when a broker is configured, else in-process.

With Celery, a worker outage must not leave the wizard without a panel: fallback_schedule has the
chat process retrieve a message itself when no worker has started it within
GROUNDWORK_KNOWLEDGE_DEADLINE_S (knowledge_claims.py decides who retrieves)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from django.conf import settings
from django.utils import timezone

from collect.models import Message
from collect.protocols import get_protocol
from collect.services import rooms
from collect.services.knowledge_claims import BUSY, claim_take_for_fallback
from groundwork.batching import Batcher
from retrieval.rerank import rerank_timeout_s
from retrieval.services import IndexNotBuilt

log = logging.getLogger(__name__)

MODES = ("auto", "process", "celery")


def knowledge_in_celery() -> bool:
    mode = settings.KNOWLEDGE_MODE
    return mode == "celery" or (mode == "auto" and not settings.CELERY_TASK_ALWAYS_EAGER)


def _retrieving_protocols() -> list[str]:
    from collect.models import Campaign

    names = [value for value, _ in Campaign._meta.get_field("protocol").choices]
    return [name for name in names if get_protocol(name).retrieves_per_message]


def message_lacks_knowledge(message: Message, protocol_name: str) -> bool:
    return get_protocol(protocol_name).retrieves_per_message and message.retrieved_passages is None


def messages_missing_knowledge(*, room_id: Any = None, older_than_s: float = 0.0, limit: int = 500) -> list[int]:
    """Ids of stored messages whose retrieval has not been saved, oldest first."""
    missing = Message.objects.filter(
        retrieved_passages__isnull=True, room__campaign__protocol__in=_retrieving_protocols()
    )
    if room_id is not None:
        missing = missing.filter(room_id=room_id)
    if older_than_s > 0:
        missing = missing.filter(created__lte=timezone.now() - timedelta(seconds=older_than_s))
    return list(missing.order_by("pk").values_list("pk", flat=True)[:limit])


def _send_batch(message_ids: list[int]) -> None:
    from collect.tasks import messages_knowledge

    messages_knowledge.delay(message_ids)


# At most one task per DISPATCH_WINDOW_S from a chat process, for the messages it stored meanwhile
# (groundwork/batching.py); a message after a quiet spell goes at once.
DISPATCH_WINDOW_S = 0.1
DISPATCH_MAX = 20
_dispatcher = Batcher(_send_batch, window_s=DISPATCH_WINDOW_S, max_items=DISPATCH_MAX, name="knowledge-dispatch")


def knowledge_dispatch(*, message_id: int) -> None:
    """Queue the retrieval of one stored message (Celery mode), batched with the others this process
    stores while a DISPATCH_WINDOW_S window runs. A task lost on the way is made up for by the sweep."""
    _dispatcher.add(message_id)


def rerank_dispatch(*, room_id: Any, role: str, frame: dict[str, Any]) -> None:
    """Queue the rerank of one knowledge panel on the `rerank` queue; the worker saves and
    publishes the reordered panel itself, so nobody waits for its result. A worker that reaches it
    after the rerank timeout drops it (the TF-IDF order stays)."""
    from collect.tasks import knowledge_rerank

    knowledge_rerank.apply_async(args=(str(room_id), role, frame), expires=rerank_timeout_s())


def reranks_dispatch(panels: list[tuple[str, str, dict[str, Any]]]) -> None:
    """rerank_dispatch for several panels (room id, role, frame), as one task."""
    from collect.tasks import knowledge_reranks

    knowledge_reranks.apply_async(args=(panels,), expires=rerank_timeout_s())


def room_knowledge_repair(*, room_id: Any) -> dict[str, dict[str, Any]]:
    """Retrieve for every message of the room that lacks it. In-process: done here, and the room's
    current knowledge frames (role → frame) are returned for broadcasting; with Celery: queued, and
    the worker publishes the frames ({} here)."""
    missing = messages_missing_knowledge(room_id=room_id)
    knowledge: dict[str, dict[str, Any]] = {}
    for message_id in missing:
        if knowledge_in_celery():
            knowledge_dispatch(message_id=message_id)
        else:
            knowledge.update(rooms.message_after(message_id=message_id).knowledge)
    return knowledge


Publish = Callable[[dict[str, dict[str, Any]]], Awaitable[None]]
_fallbacks: set[asyncio.Task] = set()  # kept referenced until done


# Deadlines a chat process waits for a worker that is busy (it started a task lately) before it
# retrieves the message itself all the same.
BUSY_WORKER_WAITS = 4


def fallback_schedule(*, message_id: int, publish: Publish) -> asyncio.Task | None:
    """Celery mode, on the chat process's event loop, after the message's retrieval was queued: if
    no worker has started it GROUNDWORK_KNOWLEDGE_DEADLINE_S later, retrieve it here and hand the
    knowledge frames (role -> frame) to `publish` (the consumer's broadcast_knowledge, which also
    queues the rerank). While a worker is busy (it started a task lately) the chat process waits
    up to BUSY_WORKER_WAITS deadlines for it. Costs nothing until the deadline and one claim round
    trip then (two when it retrieves)."""
    deadline = settings.KNOWLEDGE_DEADLINE_S
    if deadline <= 0:
        return None
    task = asyncio.get_running_loop().create_task(_fallback(message_id, deadline, publish))
    _fallbacks.add(task)
    task.add_done_callback(_fallbacks.discard)
    return task


def _still_lacking(message_id: int) -> bool:
    close_old_connections()
    try:
        return Message.objects.filter(pk=message_id, retrieved_passages__isnull=True).exists()
    finally:
        close_old_connections()


def _retrieve(message_id: int) -> rooms.After:
    close_old_connections()
    try:
        return rooms.message_after(message_id=message_id)
    finally:
        close_old_connections()


async def _fallback(message_id: int, deadline: float, publish: Publish) -> None:
    waited = 0.0
    for wait in range(1, BUSY_WORKER_WAITS + 1):
        await asyncio.sleep(deadline)
        waited += deadline
        claimed = await claim_take_for_fallback(message_id, wait_for_busy_worker=wait < BUSY_WORKER_WAITS)
        if claimed != BUSY:
            break
    if claimed is False:
        return  # a worker started it (the normal case)
    # Threads of the pool, not the event loop: retrieval is slow, and not the serialised database
    # thread either, so other rooms' messages are not held up behind it.
    if claimed is None and not await sync_to_async(_still_lacking, thread_sensitive=False)(message_id):
        return
    try:
        after = await sync_to_async(_retrieve, thread_sensitive=False)(message_id)
    except Message.DoesNotExist:
        return
    except IndexNotBuilt as error:
        log.error("message %s: %s", message_id, error)
        return
    except Exception:
        log.exception("message %s: retrieval failed here too; the knowledge sweep will try again", message_id)
        return
    log.warning("message %s: no worker started its retrieval within %.1f s; the chat process retrieved it", message_id, waited)
    await publish(after.knowledge)
