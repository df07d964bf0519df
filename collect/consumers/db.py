"""The database hop of the chat message path.

Channels' database_sync_to_async closes "old" connections before and after every call; with
connection health checks on, that makes every call start with a `SELECT 1` round trip, which the
profile of the message path showed as its largest single cost (docs/deployment.md). This hop keeps
its connections instead (one per thread of the pool it runs on), and handles the case those checks are for: when the connection has died
(a dropped connection, a database restart) the call fails, the dead connection is closed and the
call is made once more on a new one. Only for calls that may run twice: one transaction that
either committed or not (message_post is idempotent on client_id), or reads."""

from __future__ import annotations

from typing import Any

from asgiref.sync import SyncToAsync
from django.db import InterfaceError, OperationalError, connections


def _close_dead() -> None:
    for connection in connections.all(initialized_only=True):
        connection.close_if_unusable_or_obsolete()


def retried_once(func: Any) -> Any:
    """`func` made once more on a new connection when its connection has died (for idempotent work)."""

    def call(**kwargs: Any) -> Any:
        try:
            return func(**kwargs)
        except (OperationalError, InterfaceError):
            _close_dead()
            return func(**kwargs)

    return call


class HotPathSyncToAsync(SyncToAsync):
    def thread_handler(self, loop: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().thread_handler(loop, *args, **kwargs)
        except (OperationalError, InterfaceError):
            _close_dead()
            return super().thread_handler(loop, *args, **kwargs)


def hot_path_sync_to_async(func: Any) -> Any:
    """Like database_sync_to_async without the per-call connection checks, retried once on a dead
    connection, and on the thread pool rather than the one thread that serialises every
    database_sync_to_async call of the process: each pool thread keeps its own connection, so the
    round trips of different rooms overlap instead of queueing. Order within a room is kept: a
    consumer handles one frame at a time, and message_post locks the room row."""
    return HotPathSyncToAsync(func, thread_sensitive=False)
