"""Browser tests: a live daphne serving the test database, and Debian's chromium driven by Playwright.

The server is channels' own test server process (`DaphneProcess`, as `ChannelsLiveServerTestCase`
uses it), forked after the test has written its data and settings, so it sees the same database,
INDEX_DIR and channel layer configuration as the test.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connections

from tests.browser.mturk_frame import mturk_site  # noqa: F401  (MTurk's frame; request it before the server)
from tests.chromium import CHROMIUM, launched

SERVER_START_SECONDS = 30

# A tiny Wikipedia: enough for the topic passages and for retrieval to find something per turn.
ARTICLES = [
    ("Blues", "Blues is a music genre and musical form which originated in the Deep South of the United States around the 1860s. Blues incorporated spirituals, work songs, field hollers and simple narrative ballads. The blues form is ubiquitous in jazz, rhythm and blues and rock and roll."),
    ("Jazz", "Jazz is a music genre that originated in the African-American communities of New Orleans in the late 19th century. Jazz is characterized by swing and blue notes, complex chords and improvisation."),
    ("Guitar", "The guitar is a fretted musical instrument that typically has six strings. It is played by strumming or plucking the strings with the fingers or a pick."),
    ("B.B. King", "Riley B. King, known as B.B. King, was an American blues singer and guitarist. He was called the King of the Blues."),
    ("Delta blues", "Delta blues is one of the earliest-known styles of blues. It originated in the Mississippi Delta and is played on the guitar and the harmonica."),
    ("Tea", "Tea is an aromatic beverage prepared by pouring hot water over cured leaves of the tea plant. After water, tea is the most widely consumed drink in the world."),
]


def _fresh_executor_in_child() -> None:
    """The server process is forked. Earlier tests may have started asgiref's one database thread
    in this process; a fork copies its executor but not the thread, and every
    database_sync_to_async call in the child would wait for it forever."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)


os.register_at_fork(after_in_child=_fresh_executor_in_child)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.path.exists(CHROMIUM):
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is not installed (make chromium)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def wow_knowledge(transactional_db, settings, tmp_path: Path):
    """A knowledge source imported and indexed the way researchers do it."""
    from retrieval.models import KnowledgeSource

    settings.INDEX_DIR = tmp_path / "indexes"
    path = tmp_path / "wiki.jsonl"
    path.write_text("\n".join(json.dumps({"title": t, "text": x}) for t, x in ARTICLES), encoding="utf-8")
    call_command("import_knowledge", "jsonl", str(path), source="browser-wiki", verbosity=0)
    call_command("build_index", source="browser-wiki", verbosity=0)
    return KnowledgeSource.objects.get(slug="browser-wiki")


@pytest.fixture
def wow_campaign(wow_knowledge):
    from collect.models import Campaign, Persona

    campaign = Campaign.objects.create(
        slug="wow-browser",
        name="Wizard of Wikipedia (browser test)",
        knowledge_source=wow_knowledge,
        # Two turns each: the wizard checks a sentence on one turn and "No sentence used" on the
        # other, and "End chat" is hidden until both have spoken twice.
        min_turns=2,
        max_turns=2,
        wait_timeout_seconds=120,
        disconnect_grace_seconds=120,
        completion_code="GW-BROWSER-OK",
        instructions="Talk about the topic for a few turns.",
    )
    Persona.objects.create(campaign=campaign, text="I play the guitar in a band at weekends.", topics=["Blues", "Jazz"])
    return campaign


@pytest.fixture
def daphne_server(wow_campaign, settings, monkeypatch) -> Iterator[str]:
    """daphne serving the ASGI app (HTTP, static files, websockets) against the test database."""
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]
    # The child is forked: it inherits settings (already naming the test database) as they are now.
    # Close our connections first so that it does not inherit an open socket to the database.
    connections.close_all()
    # No static wrapper of our own: groundwork.asgi serves /static/ itself (SERVE_STATIC), as in `make run`.
    # Reranks run in the server process even when a broker is configured (no rerank worker here).
    monkeypatch.setenv("GROUNDWORK_RERANK_MODE", "process")
    with daphne_running(DaphneProcess("127.0.0.1", partial(make_application, static_wrapper=None))) as server:
        yield f"http://127.0.0.1:{server.port.value}"


@contextmanager
def daphne_running(server: Any) -> Iterator[Any]:
    """Start a (forked) daphne.testing.DaphneProcess, yield it once it listens, and stop it after."""
    server.daemon = True
    server.start()
    if not server.ready.wait(timeout=SERVER_START_SECONDS):
        server.terminate()
        detail = "" if server.errors.empty() else server.errors.get(False)[1]
        raise RuntimeError(f"daphne did not start within {SERVER_START_SECONDS} s\n{detail}")
    try:
        yield server
    finally:
        server.terminate()
        server.join(timeout=10)


@pytest.fixture
def browser(daphne_server):
    with launched(timeout_ms=15_000) as chromium:
        yield chromium
