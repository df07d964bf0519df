"""Running the wizard's searches off the event loop, on the knowledge path WoW's retrieval takes
(collect/services/knowledge.py): on a Celery worker (the `default` queue) when the knowledge runs
there, else on a thread of the chat process. The search action stores the query and shows
"Searching…" in its own transaction; its search starts once that has committed
(Protocol.action_relayed), and the finished panel is published to the wizard's sockets.

Who runs a search takes a claim on it first (a conditional update of `claimed_at`): with Celery,
a worker that starts it in time; when none has within GROUNDWORK_KNOWLEDGE_DEADLINE_S, the chat
process that queued it (a worker outage must not leave the wizard waiting). A claim older than the
campaign's search timeout plus CLAIM_SLACK_S belongs to someone who died: the search may be taken
again, as it is when the wizard's page syncs after a reconnect (Protocol.room_synced).

Whatever the backend does (down, slow, garbage), the search ends `failed` with its message and the
wizard can search again or reply; nothing else in the room waits for it. A search still running
when the wizard replies is closed as `failed` ("abandoned") by the reply: its documents were never
shown, so they are not part of the dataset."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections
from django.db.models import Q
from django.utils import timezone

from collect.groups import knowledge_event, role_group
from collect.models import Message, RoomStatus
from collect.services.knowledge import knowledge_in_celery
from collect.tasktypes.woi import WIZARD
from collect.tasktypes.woi.config import config_for
from collect.tasktypes.woi.models import SearchStatus, WoiSearch
from collect.tasktypes.woi.panel import panel_frame
from collect.tasktypes.woi.search import ERROR, SearchFailed, Source, documents_search
from groundwork.service_errors import SERVICE_ERRORS, one_line

log = logging.getLogger(__name__)

CLAIM_SLACK_S = 30.0
ABANDONED = "abandoned"

_tasks: set[asyncio.Task] = set()  # the event loop keeps only weak references to tasks


def searches_start(*, room_id: str) -> None:
    """On the event loop: start the room's searches that nobody runs (normally the one just asked)."""
    task = asyncio.get_running_loop().create_task(_start(room_id))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def searches_settled(timeout: float = 30) -> None:
    """Until every search this event loop started has been run or handed over (tests, shutdown)."""
    loop = asyncio.get_running_loop()
    while pending := [t for t in list(_tasks) if t.get_loop() is loop and not t.done()]:
        await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), timeout=timeout)


async def _start(room_id: str) -> None:
    try:
        for search_id in await _off_loop(unclaimed_searches, room_id):
            if knowledge_in_celery():
                await _off_loop(_enqueue, search_id)
                if settings.KNOWLEDGE_DEADLINE_S > 0:
                    await asyncio.sleep(settings.KNOWLEDGE_DEADLINE_S)
                    # No worker took it in time: this process runs it (a claim decides who does).
                    await _run_and_publish(room_id, search_id, claimant="fallback")
            else:
                await _run_and_publish(room_id, search_id, claimant="process")
    except SERVICE_ERRORS as error:
        log.warning("room %s: searches not started, service lost: %s", room_id, one_line(error))
    except Exception:  # logged; the page's next sync starts it again
        log.exception("room %s: starting its searches failed", room_id)


async def _run_and_publish(room_id: str, search_id: int, *, claimant: str) -> None:
    ran = await _off_loop(search_run, search_id, claimant)
    if ran is not None:
        await get_channel_layer().group_send(role_group(room_id, WIZARD), knowledge_event(WIZARD, ran[1]))


async def _off_loop(func: Any, *args: Any) -> Any:
    """On a thread of the pool (not the event loop, nor the one thread database_sync_to_async
    serialises on), with the connection checks every such thread needs."""

    def call() -> Any:
        close_old_connections()
        try:
            return func(*args)
        finally:
            close_old_connections()

    return await sync_to_async(call, thread_sensitive=False)()


def _enqueue(search_id: int) -> None:
    from collect.tasktypes.woi.tasks import search_run_task

    search_run_task.apply_async(args=(search_id,), argsrepr=repr((search_id,)), kwargsrepr="{}")


def unclaimed_searches(room_id: Any) -> list[int]:
    """The pending searches of the chatting room's current turn that nobody holds a live claim on."""
    count = Message.objects.filter(room_id=room_id).count()
    pending = WoiSearch.objects.filter(
        room_id=room_id, room__status=RoomStatus.CHATTING, after_seq=count, status=SearchStatus.PENDING
    ).select_related("room__campaign")
    return [s.pk for s in pending if _claimable(s)]


def _claimable(search: WoiSearch) -> bool:
    if search.claimed_at is None:
        return True
    expiry = config_for(search.room.campaign).search.timeout_s + CLAIM_SLACK_S
    return search.claimed_at < timezone.now() - timedelta(seconds=expiry)


def search_claim(search: WoiSearch) -> bool:
    """Take the search on (True), unless someone holds a live claim on it or it has ended."""
    now = timezone.now()
    expiry = config_for(search.room.campaign).search.timeout_s + CLAIM_SLACK_S
    free = Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - timedelta(seconds=expiry))
    return WoiSearch.objects.filter(free, pk=search.pk, status=SearchStatus.PENDING).update(claimed_at=now) == 1


def search_run(search_id: int, claimant: str) -> tuple[str, dict[str, Any]] | None:
    """Run one search if it can be claimed and store how it ended; (its room's id, the wizard's
    panel frame to publish there), or None when someone else runs it (or ran it). Synchronous: a
    Celery worker's, or a chat process's pool thread's."""
    search = WoiSearch.objects.select_related("room__campaign__knowledge_source").filter(pk=search_id).first()
    if search is None or not search_claim(search):
        return None
    campaign = search.room.campaign
    source = campaign.knowledge_source
    fields: dict[str, Any]
    try:
        documents = documents_search(
            config=config_for(campaign).search, source=Source(source.pk, source.slug, source.language), query=search.query
        )
        fields = {"status": SearchStatus.DONE, "documents": documents}
    except SearchFailed as failure:
        fields = {"status": SearchStatus.FAILED, "error_code": failure.code, "error": failure.message[:500]}
    except Exception as error:  # any backend fault fails this search only
        log.exception("search %s: the backend failed", search_id)
        fields = {"status": SearchStatus.FAILED, "error_code": ERROR, "error": f"the search failed: {one_line(error)}"[:500]}
    # Only a search still pending is finished: the wizard's reply may have closed it meanwhile.
    stored = WoiSearch.objects.filter(pk=search_id, status=SearchStatus.PENDING).update(finished_at=timezone.now(), **fields)
    if not stored:
        return None
    if fields["status"] == SearchStatus.FAILED:
        log.warning("search %s in room %s failed (%s, by %s): %s", search_id, search.room_id, fields["error_code"], claimant, fields["error"])
    return str(search.room_id), panel_frame(room_id=search.room_id, after_seq=search.after_seq)


def searches_abandon(*, room_id: Any, after_seq: int) -> None:
    """The wizard replied: searches of that turn still running will never be shown."""
    WoiSearch.objects.filter(room_id=room_id, after_seq=after_seq, status=SearchStatus.PENDING).update(
        status=SearchStatus.FAILED, error_code=ABANDONED, error="the wizard replied before its documents came",
        finished_at=timezone.now(),
    )
