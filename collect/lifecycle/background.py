"""The embedded mode's sweep: a background task on the server's event loop, started by the first
socket that connects. With a broker, Celery beat runs collect.tasks.sweep instead."""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async
from django.conf import settings

from groundwork.service_errors import SERVICE_ERRORS, one_line
from collect.lifecycle.notify import sweep_notify
from collect.lifecycle.sweep import sweep_run

log = logging.getLogger(__name__)
_task: asyncio.Task | None = None


def embedded() -> bool:
    return bool(settings.CELERY_TASK_ALWAYS_EAGER) and settings.SWEEP_SECONDS > 0


def sweeper_ensure() -> None:
    """Start the sweep loop on the running event loop unless one already runs there."""
    global _task
    if not embedded():
        return
    loop = asyncio.get_running_loop()
    if _task is not None and not _task.done() and _task.get_loop() is loop:
        return
    _task = loop.create_task(_sweep_forever())


async def _sweep_forever() -> None:
    loop = asyncio.get_running_loop()
    while True:
        # A fixed rate: a long sweep does not push the next one a whole interval further away.
        started = loop.time()
        try:
            await sweep_notify(await database_sync_to_async(sweep_run)())
        except SERVICE_ERRORS as error:  # a lost database or Redis: the next sweep tries again
            log.warning("lifecycle sweep skipped, service lost: %s", one_line(error))
        except Exception:  # a failed sweep is logged; the next one tries again
            log.exception("lifecycle sweep failed")
        await asyncio.sleep(max(0.0, settings.SWEEP_SECONDS - (loop.time() - started)))
