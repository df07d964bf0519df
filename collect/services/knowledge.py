"""Knowledge for stored messages, durably: retrieval for a message is done after its commit, and a
node can die in between. Every message that lacks it is found again (by a `sync` of its room, a
resend, or the periodic sweep) and retrieved then, so no turn is exported without its knowledge.

Where it runs: GROUNDWORK_KNOWLEDGE_MODE = "process" (the chat process's thread pool), "celery"
(the `default` queue; the knowledge frames are published to the room's group from the worker) or
"auto" (default): Celery when a broker is configured, else in-process.

With Celery, a worker outage must not leave the wizard without a panel: knowledge_fallback.py has
the chat process retrieve a message itself when no worker has started it within
GROUNDWORK_KNOWLEDGE_DEADLINE_S."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from collect.models import Message
from collect import registry
from collect.services import rooms
from groundwork.batching import Batcher
from retrieval.rerank import rerank_timeout_s

log = logging.getLogger(__name__)

MODES = ("auto", "process", "celery")


def knowledge_in_celery() -> bool:
    mode = settings.KNOWLEDGE_MODE
    return mode == "celery" or (mode == "auto" and not settings.CELERY_TASK_ALWAYS_EAGER)


def _retrieving_protocols() -> list[str]:
    return [name for name in registry.task_type_names() if registry.protocol(name).retrieves_per_message]


def message_lacks_knowledge(message: Message, protocol_name: str) -> bool:
    return registry.protocol(protocol_name).retrieves_per_message and message.retrieved_passages is None


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

    # The ids' repr for monitoring, made here: Celery's own (saferepr) costs the busy chat process more.
    options = {"args": (message_ids,), "argsrepr": repr((message_ids,)), "kwargsrepr": "{}"}
    try:
        messages_knowledge.apply_async(**options)
    except AttributeError:
        # A broker restart can leave kombu's Redis channel closed under a pooled producer, whose
        # next publish fails in kombu with "'NoneType' object has no attribute 'client'" (kombu's
        # _connparams; celery/kombu issue reports since 3.0): the batch goes once more on a
        # connection of its own, which opens a new channel.
        with messages_knowledge.app.connection_for_write() as connection:
            messages_knowledge.apply_async(**options, connection=connection)


# At most one task per DISPATCH_WINDOW_S from a chat process, for the messages it stored meanwhile
# (groundwork/batching.py); a message after a quiet spell goes at once.
DISPATCH_WINDOW_S = 0.2
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
