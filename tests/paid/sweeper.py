"""Where no embedded sweep runs (a broker is configured: beat's job), a test stands in for beat and
its worker: a thread that runs the sweep task every few tenths of a second."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection


@contextmanager
def beat_stand_in(interval: float = 0.3) -> Iterator[None]:
    from collect.lifecycle.background import embedded
    from collect.tasks import sweep

    if embedded():
        yield
        return
    stop = threading.Event()

    def run() -> None:
        try:
            while not stop.wait(interval):
                sweep()
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=10)
