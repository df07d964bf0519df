"""What the tests share across a run stays what each test would have made for itself: a restored
knowledge source is the import's and searches like it (tests/knowledge.py), and a live server is
shared only by tests whose configuration it has (tests/live.py)."""

from __future__ import annotations

from pathlib import Path
from urllib.error import HTTPError
from urllib.request import urlopen

import pytest
from django.conf import settings as django_settings

from retrieval.index.store import index_load
from retrieval.models import Article, Sentence
from tests.conftest import ARTICLES, import_articles
from tests.live import DaphneServers, configuration_key

pytestmark = pytest.mark.backends

QUERIES = ["guitar strings pick", "hot water leaves", "highest mountain Himalayas", "swing and blue notes"]


def _contents(source_id: int) -> list[tuple[str, str, list[str]]]:
    return [
        (a.title, a.lead, list(Sentence.objects.filter(article=a).order_by("position").values_list("text", flat=True)))
        for a in Article.objects.filter(source_id=source_id).order_by("title")
    ]


def _found(slug: str, index_dir: Path) -> list[list[str]]:
    index = index_load(index_dir=index_dir, slug=slug)
    titles = dict(Article.objects.values_list("pk", "title"))
    return [[titles[pk] for pk, _ in index.search(query, k=3)] for query in QUERIES]


@pytest.mark.django_db
def test_a_restored_source_holds_and_finds_what_a_fresh_import_does(knowledge, index_dir: Path, tmp_path: Path) -> None:
    fresh = import_articles(tmp_path, "fresh-wiki", ARTICLES)
    assert _contents(knowledge.pk) == _contents(fresh.pk)
    assert not set(Article.objects.filter(source=knowledge).values_list("pk", flat=True)) & set(
        Article.objects.filter(source=fresh).values_list("pk", flat=True)
    )
    assert _found(knowledge.slug, index_dir) == _found(fresh.slug, index_dir)
    assert _found(knowledge.slug, index_dir)[0][0] == "Guitar"


@pytest.mark.django_db
def test_each_test_gets_its_own_copy(knowledge) -> None:
    Article.objects.filter(source=knowledge).delete()  # gone for this test only (the next asserts it has them)


@pytest.mark.django_db
def test_the_next_test_has_them_again(knowledge) -> None:
    assert Article.objects.filter(source=knowledge).count() == len(ARTICLES)


def test_a_server_is_shared_only_by_tests_of_its_configuration(settings, monkeypatch) -> None:
    before = configuration_key(monkeypatch)
    assert before is not None and configuration_key(monkeypatch) == before
    settings.SECOND_FACTOR_REQUIRED = "superusers" if django_settings.SECOND_FACTOR_REQUIRED != "superusers" else "none"
    changed = configuration_key(monkeypatch)
    assert changed != before
    monkeypatch.setenv("GROUNDWORK_TEST_ONLY_VARIABLE", "1")
    assert configuration_key(monkeypatch) not in (before, changed)
    monkeypatch.setattr("retrieval.services.lead_cache_clock", lambda: 0.0)
    assert configuration_key(monkeypatch) is None  # a patched attribute: the test's own server


def _answers(url: str) -> int:
    try:
        with urlopen(f"{url}/", timeout=30) as response:
            return response.status
    except HTTPError as error:
        return error.code


@pytest.mark.django_db(transaction=True)
def test_the_next_test_of_the_same_configuration_gets_the_same_server(daphne_servers: DaphneServers, monkeypatch) -> None:
    first = daphne_servers.acquire(configuration_key(monkeypatch))
    assert _answers(first.url) < 500
    daphne_servers.release(first)
    again = daphne_servers.acquire(configuration_key(monkeypatch))
    assert again is first and again.process.is_alive()
    daphne_servers.release(again)
    private = daphne_servers.acquire(None)  # another configuration: the kept server stops first
    assert private is not first and not first.process.is_alive() and _answers(private.url) < 500
    daphne_servers.release(private)
    assert not private.process.is_alive()
