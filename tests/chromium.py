"""Debian's chromium driven by Playwright's sync API (Playwright's own browser download cannot reach
the network here), for every browser test.

One chromium serves the browser tests of a run (`SharedChromium`), each test in browser contexts
of its own, closed after it. Between its calls Playwright's sync API leaves this thread marked as
running its event loop: while it is alive, Django's synchronous ORM calls are allowed here
(DJANGO_ALLOW_ASYNC_UNSAFE) and no async test can run. So the browser tests run after the others
(tests/conftest.py orders them last) and the chromium is stopped before any other test that
follows one (`pytest_runtest_setup` there).
"""

from __future__ import annotations

import os
from typing import Any

from django.db import connections

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"
_UNSET = object()
_async_unsafe_before: Any = _UNSET  # its value before the shared chromium started, while it runs


def _async_unsafe_restore() -> None:
    if _async_unsafe_before is _UNSET:
        return
    if _async_unsafe_before is None:
        os.environ.pop(ASYNC_UNSAFE, None)
    else:
        os.environ[ASYNC_UNSAFE] = _async_unsafe_before


# A process forked while the chromium runs (a test server) checks Django's async safety as usual.
os.register_at_fork(after_in_child=_async_unsafe_restore)


class SharedChromium:
    """A headless chromium started on first use and kept until `stop`."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None

    @property
    def running(self) -> bool:
        return self._browser is not None

    def browser(self, *, timeout_ms: int) -> Any:
        """The chromium (a playwright Browser); `timeout_ms` is the default wait of expect()."""
        global _async_unsafe_before
        from playwright.sync_api import expect, sync_playwright

        if self._browser is None:
            _async_unsafe_before = os.environ.get(ASYNC_UNSAFE)
            # Playwright's sync API runs an event loop in this thread; the test's ORM calls in
            # between are plain synchronous calls, which Django would otherwise refuse.
            os.environ[ASYNC_UNSAFE] = "true"
            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        expect.set_options(timeout=timeout_ms)
        return self._browser

    def close_contexts(self) -> None:
        """Close what a test opened (its contexts, their pages and sockets)."""
        if self._browser is None:
            return
        for context in list(self._browser.contexts):
            context.close()
        # While Playwright's loop runs in this thread, asgiref keeps Django's connections in context
        # variables, apart from the ones the database teardown closes: close them here, or
        # PostgreSQL refuses to drop the test database ("being accessed").
        connections.close_all()

    def stop(self) -> None:
        global _async_unsafe_before
        if self._browser is None:
            return
        self.close_contexts()
        try:
            self._browser.close()
        finally:
            self._playwright.stop()
            self._browser = self._playwright = None
            _async_unsafe_restore()
            _async_unsafe_before = _UNSET

