"""Shared fixtures. Tests marked `services` need PostgreSQL/Redis and run only in the second pass;
those marked `backends` run in both passes (tests/test_second_pass.py says which must be)."""

from __future__ import annotations

import json
import os
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db.backends.signals import connection_created

from tests.chromium import SharedChromium
from tests.knowledge import Snapshots
from tests.live import DaphneServers

SERVICE_VARS = ("DATABASE_URL", "REDIS_URL")
SHARED_CHROMIUM = SharedChromium()
# Forked while the chromium runs, a server holds Playwright's pipe to its driver open: the servers
# stop before the chromium does, or stopping it would wait for them.
DAPHNE_SERVERS = DaphneServers()

ARTICLES = [
    ("Guitar", "The guitar is a fretted musical instrument that typically has six strings. It is played by strumming or plucking the strings with the fingers or a pick. The sound is projected acoustically or through an amplifier."),
    ("Blues", "Blues is a music genre and musical form which originated in the Deep South of the United States around the 1860s. Blues incorporated spirituals, work songs, field hollers and ballads. The blues form is ubiquitous in jazz and rock and roll."),
    ("Jazz", "Jazz is a music genre that originated in the African-American communities of New Orleans. Jazz is characterized by swing and blue notes, complex chords and improvisation."),
    ("Cat", "The cat is a small domesticated carnivorous mammal. Cats are valued by humans for companionship and for hunting vermin. A cat sleeps for most of the day."),
    ("Dog", "The dog is a domesticated descendant of the wolf. Dogs were the first species to be domesticated by humans. Dogs are kept as pets and working animals."),
    ("Tea", "Tea is an aromatic beverage prepared by pouring hot water over cured leaves of the tea plant. After water, tea is the most widely consumed drink in the world."),
    ("Coffee", "Coffee is a beverage brewed from roasted coffee beans. Darkly coloured, bitter and slightly acidic, coffee has a stimulating effect on humans because of its caffeine content."),
    ("Mount Everest", "Mount Everest is Earth's highest mountain above sea level, located in the Himalayas. Its elevation is 8,849 metres. Climbers attempt the summit every spring."),
    ("Science fiction", "Science fiction is a genre of speculative fiction dealing with imaginative concepts such as futuristic science, space exploration and time travel. It is often called the literature of ideas."),
    ("Time travel", "Time travel is the hypothetical activity of traveling into the past or future. Time travel is a widely recognized concept in philosophy and fiction, particularly science fiction."),
]


# Session fixtures too costly to build once per process: under pytest-xdist (`-n`, the Makefile's
# --dist loadgroup) the tests that use one run in one worker, which builds it once.
ONE_WORKER_FIXTURES = ("smollm2_server",)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for name in ONE_WORKER_FIXTURES:
            if name in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(name))
    # The tests that drive the shared chromium last, so that no other test runs while it is alive
    # (tests/chromium.py); the order is otherwise kept.
    items.sort(key=lambda item: "shared_chromium" in getattr(item, "fixturenames", ()))
    if any(os.environ.get(var) for var in SERVICE_VARS):
        return
    skip = pytest.mark.skip(reason="needs DATABASE_URL / REDIS_URL (second CI pass)")
    for item in items:
        if "services" in item.keywords:
            item.add_marker(skip)


def pytest_runtest_setup(item: pytest.Item) -> None:
    fixtures = getattr(item, "fixturenames", ())
    if "daphne_servers" not in fixtures:
        DAPHNE_SERVERS.close()  # its lifecycle sweep would run beside a test that does not expect it
    if "shared_chromium" not in fixtures:
        SHARED_CHROMIUM.stop()  # a test that needs no browser may need the event loop it holds


@pytest.fixture(scope="session")
def shared_chromium(django_db_setup) -> Iterator[SharedChromium]:
    """The run's one chromium, started by the first browser test (tests/chromium.py); stopped
    before the test database is dropped."""
    yield SHARED_CHROMIUM
    DAPHNE_SERVERS.close()
    SHARED_CHROMIUM.stop()


@pytest.fixture
def chromium_browser(shared_chromium: SharedChromium) -> Iterator[Any]:
    """The run's chromium (a playwright Browser, expect() waiting up to 10 s), for a test against
    Django's live_server; the contexts the test opens are closed after it."""
    yield shared_chromium.browser(timeout_ms=10_000)
    shared_chromium.close_contexts()


@pytest.fixture(scope="session")
def daphne_servers(django_db_setup, shared_chromium: SharedChromium) -> Iterator[DaphneServers]:
    """The run's live daphne servers, by configuration (tests/live.py); stopped before the test
    database is dropped, and before the chromium."""
    yield DAPHNE_SERVERS
    DAPHNE_SERVERS.close()


@pytest.fixture(scope="session")
def smollm2_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """SmolLM2 served by `transformers serve` (tests/modelchat/smollm2_serve.py), started once for
    every test that talks to it over HTTP: its start is the slowest set-up of the suite. Skips the
    test when the server cannot run here."""
    from tests.modelchat.smollm2_serve import serve_missing, smollm2_served

    missing = serve_missing()
    if missing is not None:
        pytest.skip(f"needs the served SmolLM2: {missing}")
    with smollm2_served(tmp_path_factory.mktemp("serve") / "serve.log") as served:
        yield served


@pytest.fixture(scope="session")
def live_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Files that the tests sharing a live server share with it (its INDEX_DIR, for one)."""
    return tmp_path_factory.mktemp("live")


@pytest.fixture
def index_dir(settings, tmp_path: Path) -> Path:
    settings.INDEX_DIR = tmp_path / "indexes"
    return settings.INDEX_DIR


def import_articles(tmp_path: Path, slug: str, articles: list[tuple[str, str]] = ARTICLES):
    """A knowledge source built the way researchers build one: import a JSON Lines file, index it."""
    from retrieval.models import KnowledgeSource

    path = tmp_path / f"{slug}.jsonl"
    path.write_text("\n".join(json.dumps({"title": t, "text": x}) for t, x in articles), encoding="utf-8")
    call_command("import_knowledge", "jsonl", str(path), source=slug)
    call_command("build_index", source=slug)
    return KnowledgeSource.objects.get(slug=slug)


@pytest.fixture(scope="session")
def knowledge_snapshots(tmp_path_factory: pytest.TempPathFactory) -> Snapshots:
    return Snapshots(tmp_path_factory.mktemp("knowledge"))


@pytest.fixture
def knowledge(db, index_dir: Path, tmp_path: Path, knowledge_snapshots: Snapshots):
    """`test-wiki`: ARTICLES imported and indexed as import_articles does it, this test's own copy
    of the run's one import (tests/knowledge.py)."""
    return knowledge_snapshots.source(slug="test-wiki", articles=tuple(ARTICLES), index_dir=index_dir, work_dir=tmp_path)


@pytest.fixture(autouse=True, scope="session")
def close_thread_connections(django_db_setup, django_db_blocker):
    """Consumers and retrieval open connections in worker threads (database_sync_to_async, the
    thread pool); close them before the test database is dropped, or PostgreSQL refuses to."""
    yield
    import gc
    import warnings

    from django.db.backends.base.base import BaseDatabaseWrapper

    with warnings.catch_warnings():
        # isinstance() on every live object touches deprecated module proxies (torch's) too.
        warnings.simplefilter("ignore")
        wrappers = [obj for obj in gc.get_objects() if _is_wrapper(obj, BaseDatabaseWrapper)]
    for wrapper in wrappers:
        if wrapper.connection is not None:
            # The raw driver connection: Django's close() refuses to close another thread's.
            wrapper.connection.close()


def _is_wrapper(obj: object, kind: type) -> bool:
    # type(), not isinstance(): isinstance falls back to obj.__class__, which evaluates a lazy
    # object left in memory (a request's SimpleLazyObject user queries the database, refused here).
    try:
        return issubclass(type(obj), kind)
    except ReferenceError:  # a weak proxy whose object is gone (asyncio and websockets keep some)
        return False


# Every database connection the test process opens, to close those whose thread has ended (below).
_opened: list[weakref.ref] = []


def _track_connection(sender: object, connection: object, **kwargs: object) -> None:
    _opened.append(weakref.ref(connection))


connection_created.connect(_track_connection, weak=False)


@pytest.fixture(autouse=True)
def close_connections_of_ended_threads():
    """Each async test runs on its own event loop, whose executor threads each open a connection
    and end with the loop; their connections stay referenced by Django's connection handler and
    open on the server. Over a thousand tests that exhausts PostgreSQL's 100 connections, beside
    the live servers some tests start. Closed here once their thread has gone (a thread still
    alive keeps its connection: it may still use it)."""
    yield
    alive = {thread.ident for thread in threading.enumerate()}
    kept = []
    for ref in _opened:
        wrapper = ref()
        if wrapper is None or wrapper.connection is None:
            continue
        if wrapper._thread_ident in alive:
            kept.append(ref)
            continue
        try:
            wrapper.connection.close()  # the raw connection: Django refuses to close another thread's
        except Exception:  # already broken: nothing to release
            pass
        wrapper.connection = None
    _opened[:] = kept


@pytest.fixture(autouse=True)
def knowledge_in_process(settings):
    """Retrieval after a message runs in the test's own process, with or without a broker; tests of
    the Celery path (tests/collect/test_knowledge_worker.py) start a real worker and say so."""
    settings.KNOWLEDGE_MODE = "process"


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """Each async test runs on its own event loop; a cached Redis layer would keep locks and
    connections bound to the previous test's loop."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Rate-limit counts are kept per window in a shared store (Redis in the services pass); each
    test starts with none, so that ids reused by a fresh test database inherit nothing."""
    from collect.ratelimit import rate_limits_reset

    rate_limits_reset()
    yield


@pytest.fixture(autouse=True)
def paid_study_defaults(settings):
    """Test links are unsigned `?worker=` links (tests of signed links turn this off), and the
    embedded lifecycle sweep runs often enough for a test to wait for it."""
    settings.UNSIGNED_LINKS = True
    settings.SWEEP_SECONDS = 0.5
