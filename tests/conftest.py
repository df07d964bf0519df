"""Shared fixtures. Tests marked `services` need PostgreSQL/Redis and run only in the second pass."""

from __future__ import annotations

import json
import os
import threading
import weakref
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db.backends.signals import connection_created

SERVICE_VARS = ("DATABASE_URL", "REDIS_URL")
# With a broker, every index build would queue an encoding of its source's sentences for whichever
# worker a later test starts; the tests of that path ask for it (tests/retrieval/test_sentence_vectors.py).
os.environ.setdefault("GROUNDWORK_SENTENCE_VECTORS", "off")

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if any(os.environ.get(var) for var in SERVICE_VARS):
        return
    skip = pytest.mark.skip(reason="needs DATABASE_URL / REDIS_URL (second CI pass)")
    for item in items:
        if "services" in item.keywords:
            item.add_marker(skip)


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


@pytest.fixture
def knowledge(db, index_dir: Path, tmp_path: Path):
    return import_articles(tmp_path, "test-wiki")


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
