"""Browser tests: Debian's chromium driven by Playwright against a live daphne serving the test
database (tests/chromium.py, tests/live.py).

The browser is the run's one chromium, each test in contexts of its own; the server is one forked
for the test's configuration (settings and environment as the test has them when it asks for
`daphne_server`) and shared with the later tests of the same configuration. Fixtures that change
settings the server must see (mturk_site, a campaign's own settings) come before `daphne_server`
or `browser` among a test's parameters.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.mturk_frame import mturk_site  # noqa: F401  (MTurk's frame; request it before the server)
from tests.chromium import CHROMIUM, SharedChromium
from tests.knowledge import Snapshots
from tests.live import DaphneServers, configuration_key

# A tiny Wikipedia: enough for the topic passages and for retrieval to find something per turn.
ARTICLES = [
    ("Blues", "Blues is a music genre and musical form which originated in the Deep South of the United States around the 1860s. Blues incorporated spirituals, work songs, field hollers and simple narrative ballads. The blues form is ubiquitous in jazz, rhythm and blues and rock and roll."),
    ("Jazz", "Jazz is a music genre that originated in the African-American communities of New Orleans in the late 19th century. Jazz is characterized by swing and blue notes, complex chords and improvisation."),
    ("Guitar", "The guitar is a fretted musical instrument that typically has six strings. It is played by strumming or plucking the strings with the fingers or a pick."),
    ("B.B. King", "Riley B. King, known as B.B. King, was an American blues singer and guitarist. He was called the King of the Blues."),
    ("Delta blues", "Delta blues is one of the earliest-known styles of blues. It originated in the Mississippi Delta and is played on the guitar and the harmonica."),
    ("Tea", "Tea is an aromatic beverage prepared by pouring hot water over cured leaves of the tea plant. After water, tea is the most widely consumed drink in the world."),
    # What an apprentice asks in a Blues room (two questions of bench/data/panel_questions.json),
    # and more of the blues beside them.
    ("Harmonica", "The harmonica, also known as a French harp or mouth organ, is a free reed wind instrument. It is played by using the lips and tongue to direct air into or out of its holes. The most common type has ten holes and is often called a blues harp."),
    ("Chuck Berry", "Charles Edward Anderson Berry was an American guitarist, singer and songwriter. Nicknamed the Father of Rock and Roll, he turned rhythm and blues into rock and roll with songs such as Johnny B. Goode."),
    ("Deep South", "The Deep South is a cultural and geographic subregion of the Southern United States. It was the home of cotton plantations in the 19th century."),
    ("Rhythm and blues", "Rhythm and blues is a genre of popular music that originated in African American communities in the 1940s. Blues bands of the time played piano, guitars, bass and drums."),
    ("Electric blues", "Electric blues is blues played with amplified instruments: the electric guitar, the electric bass and an amplified harmonica."),
    ("Twelve-bar blues", "The twelve-bar blues is the most common chord progression of the blues, twelve bars of three chords."),
]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.path.exists(CHROMIUM):
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is not installed (make chromium)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def wow_knowledge(transactional_db, settings, live_dir: Path, tmp_path: Path, knowledge_snapshots: Snapshots):
    """`browser-wiki`: ARTICLES imported and indexed the way researchers do it (this test's own copy
    of the run's one import, tests/knowledge.py), under the INDEX_DIR the run's servers share."""
    settings.INDEX_DIR = live_dir / "indexes"
    return knowledge_snapshots.source(slug="browser-wiki", articles=tuple(ARTICLES), index_dir=settings.INDEX_DIR, work_dir=tmp_path)


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
def daphne_server(wow_campaign, settings, monkeypatch, daphne_servers: DaphneServers, shared_chromium: SharedChromium) -> Iterator[str]:
    """The URL of a daphne serving the ASGI app (HTTP, static files, websockets) against the test
    database, with this test's settings."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]
    # Reranks run in the server process even when a broker is configured (no rerank worker here).
    settings.RERANK_MODE = "process"  # read once at start-up: set before the server is forked
    server = daphne_servers.acquire(configuration_key(monkeypatch))
    yield server.url
    # The test's pages closed, then its requests and sockets ended, before its data is flushed.
    shared_chromium.close_contexts()
    daphne_servers.release(server)


@pytest.fixture
def browser(daphne_server, shared_chromium: SharedChromium) -> Any:
    return shared_chromium.browser(timeout_ms=15_000)
