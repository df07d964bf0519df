"""Live daphne servers for the browser tests, shared by the tests that can share one.

A server is channels' own test server process (`DaphneProcess`, as `ChannelsLiveServerTestCase`
uses it), forked from the test process: it inherits the settings, the environment and the test
database as they are at the fork, and serves the database's committed rows (the browser tests use
`transactional_db`), so data a test writes after the fork reaches it as well.

Forking one per test costs a fork and a start for each of some eighty tests. Instead the server is
kept for the next test if that test has the same configuration: the Django settings and the
environment a test sets up before it asks for a server (`configuration_key`). The next test then
gets the same server, with its own data (the database is flushed between transactional tests); one
whose settings differ (e.g. SECOND_FACTOR_REQUIRED) gets a server of its own configuration, and one
that patched an attribute (`monkeypatch.setattr`, which a fork would carry) a private one, stopped
after it. One server runs at a time, as one process does in the embedded mode: each runs the
embedded lifecycle sweep over the whole database and tells only its own sockets (its in-memory
channel layer) what it ended, so a second server would end rooms whose members never hear of it.

Before the database of a test is flushed, every request and socket of that test has ended on its
server (`DaphneServers.release` waits for the server's in-flight count to reach zero), so nothing a
test started writes into the next test's data; a server that does not settle is stopped.
"""

from __future__ import annotations

import asyncio
import hashlib
import multiprocessing
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connections
from django.utils.functional import LazyObject

SERVER_START_SECONDS = 30
SETTLE_SECONDS = 15  # how long a test's requests and sockets may take to end after its pages closed
# Set by pytest per test or phase, or by the shared chromium for the test process only: not part of
# what a server inherits that matters.
VOLATILE_ENVIRONMENT = {"PYTEST_CURRENT_TEST", "DJANGO_ALLOW_ASYNC_UNSAFE"}


def _fresh_state_in_child() -> None:
    """A server process is forked. Earlier tests may have started asgiref's one database thread in
    this process; a fork copies its executor but not the thread, and every database_sync_to_async
    call in the child would wait for it forever. And while Playwright's sync API is alive, this
    thread counts as running its event loop (tests/chromium.py): the child runs its own."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    asyncio._set_running_loop(None)


os.register_at_fork(after_in_child=_fresh_state_in_child)


@contextmanager
def daphne_running(server: Any) -> Iterator[Any]:
    """Start a (forked) daphne.testing.DaphneProcess, yield it once it listens, and stop it after."""
    _start(server)
    try:
        yield server
    finally:
        _stop(server)


def _start(server: Any) -> None:
    server.daemon = True
    server.start()
    if not server.ready.wait(timeout=SERVER_START_SECONDS):
        server.terminate()
        detail = "" if server.errors.empty() else server.errors.get(False)[1]
        raise RuntimeError(f"daphne did not start within {SERVER_START_SECONDS} s\n{detail}")


def _stop(server: Any) -> None:
    server.terminate()
    server.join(timeout=10)


def configuration_key(monkeypatch: pytest.MonkeyPatch) -> str | None:
    """What a server forked now would inherit that a test can set: every Django setting and the
    environment. None when the test patched an attribute or an item other than the environment
    (a fork would carry the patch; such a server is the test's own)."""
    from django.conf import settings

    if monkeypatch._setattr or any(target is not os.environ for target, *_ in monkeypatch._setitem):
        return None
    values = sorted((name, _rendered(getattr(settings, name))) for name in dir(settings) if name.isupper())
    environment = sorted((k, v) for k, v in os.environ.items() if k not in VOLATILE_ENVIRONMENT)
    return hashlib.sha256(repr((values, environment)).encode()).hexdigest()


def _rendered(value: Any) -> str:
    # A lazy setting (django-axes has some) shows its set-up function until first used: its value.
    return f"lazy {value}" if isinstance(value, LazyObject) else repr(value)


def _counted_application(active: Any) -> Any:
    """The project's ASGI application (as channels' live server makes it) counting the requests and
    sockets in progress in `active`, a number shared with the test process. In the server process."""
    from channels.testing.live import make_application

    application = make_application(static_wrapper=None)  # groundwork.asgi serves /static/ itself

    async def counted(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            return await application(scope, receive, send)
        with active.get_lock():
            active.value += 1
        try:
            await application(scope, receive, send)
        finally:
            with active.get_lock():
                active.value -= 1

    return counted


@dataclass
class Server:
    process: Any  # daphne.testing.DaphneProcess
    active: Any  # multiprocessing.Value: requests and sockets in progress
    key: str | None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.process.port.value}"

    def settled(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while self.active.value > 0:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True


class DaphneServers:
    """The live server of one test run (of one xdist worker), kept between tests of one configuration."""

    def __init__(self) -> None:
        self._kept: Server | None = None

    def acquire(self, key: str | None) -> Server:
        """A listening server for this configuration: the kept one, or one forked now (the kept
        one, of another configuration, stopped first)."""
        kept, self._kept = self._kept, None
        if kept is not None and key is not None and kept.key == key and kept.process.is_alive():
            self._kept = kept
            return kept
        if kept is not None:
            _stop(kept.process)
        server = self._fork(key)
        if key is not None:
            self._kept = server
        return server

    def release(self, server: Server) -> None:
        """The test is over and its pages are closed: wait for its requests and sockets to end
        on the server; stop the server if they do not, or if it was the test's own."""
        if server.key is None or not server.settled(SETTLE_SECONDS):
            if self._kept is server:
                self._kept = None
            _stop(server.process)

    def close(self) -> None:
        kept, self._kept = self._kept, None
        if kept is not None:
            _stop(kept.process)

    @staticmethod
    def _fork(key: str | None) -> Server:
        from functools import partial

        from daphne.testing import DaphneProcess

        active = multiprocessing.Value("i", 0)
        # The child is forked: it must not inherit an open socket to the database.
        connections.close_all()
        process = DaphneProcess("127.0.0.1", partial(_counted_application, active))
        _start(process)
        return Server(process, active, key)
