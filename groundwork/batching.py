"""Items from many threads, handed on in batches by one thread of their own.

A chat process queues a Celery task for every stored message. Publishing one costs the process
about a millisecond of CPU (Celery builds the message, kombu a Redis client for it), and each task
costs the worker its own overhead besides the work. A Batcher sends at most once per `window_s`:
an item that comes after a quiet spell goes at once, and the items that come while a window is
still running go together when it ends (or as soon as `max_items` are waiting). Under load that is
a few messages per task instead of one, for at most `window_s` more delay; when quiet, no delay.

`add` never blocks on the send. A send that fails is logged and its items are dropped, so callers
must have another way to find them again (the knowledge sweep does, for messages without their
retrieval). A lost service (groundwork.service_errors: the broker restarting) is one log line; any
other failure is a bug and keeps its traceback."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from groundwork.service_errors import SERVICE_ERRORS, one_line

log = logging.getLogger(__name__)


class Batcher:
    def __init__(self, send: Callable[[list[Any]], None], *, window_s: float, max_items: int, name: str) -> None:
        self.send, self.window_s, self.max_items, self.name = send, window_s, max_items, name
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._items: list[Any] = []
        self._thread: threading.Thread | None = None
        os.register_at_fork(after_in_child=self._after_fork)

    def add(self, item: Any) -> None:
        with self._lock:
            self._items.append(item)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            # Wake the sender only when that changes what it waits for: the first item, and a full
            # batch. A wake-up per item would cost each its own thread switch on the busy chat
            # process.
            if len(self._items) == 1 or len(self._items) >= self.max_items:
                self._arrived.notify()

    def _run(self) -> None:
        sent_at = float("-inf")
        while True:
            with self._lock:
                self._arrived.wait_for(lambda: self._items)
                window_left = sent_at + self.window_s - time.monotonic()
                if window_left > 0:
                    self._arrived.wait_for(lambda: len(self._items) >= self.max_items, timeout=window_left)
                batch, self._items = self._items[: self.max_items], self._items[self.max_items :]
            sent_at = time.monotonic()
            try:
                self.send(batch)
            except SERVICE_ERRORS as error:
                log.warning("%s: sending %d items failed, service lost; they are dropped: %s", self.name, len(batch), one_line(error))
            except Exception:
                log.exception("%s: sending %d items failed; they are dropped", self.name, len(batch))

    def _after_fork(self) -> None:
        # A forked child has the lock's state and the items but not the thread: start over.
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._items = []
        self._thread = None
