"""Debian's chromium driven by Playwright's sync API (Playwright's own browser download cannot reach
the network here), for every browser test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

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


@contextmanager
def launched(*, timeout_ms: int) -> Iterator[object]:
    """A headless chromium; `timeout_ms` is the default wait of Playwright's expect()."""
    from playwright.sync_api import expect, sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    # Playwright's sync API runs an event loop in this thread; the test's ORM calls in between are
    # plain synchronous calls, which Django would otherwise refuse.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    expect.set_options(timeout=timeout_ms)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                yield browser
            finally:
                # While Playwright's loop runs in this thread, asgiref keeps Django's connections
                # in context variables, apart from the ones the database teardown closes: close
                # them here, or PostgreSQL refuses to drop the test database ("being accessed").
                connections.close_all()
                browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous
