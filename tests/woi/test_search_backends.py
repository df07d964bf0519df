"""The search backends against a real search server on localhost (search_server.py) and the test
knowledge: ParlAI's contract is spoken as the WoI collection spoke it, and a server that is down,
slow or answers garbage fails the search with a message saying so."""

from __future__ import annotations

import time

import pytest

from collect.tasktypes.woi.config import SearchConfig, config_of
from collect.tasktypes.woi.search import DOWN, ERROR, GARBAGE, SLOW, UNUSABLE, SearchFailed, Source, documents_search
from collect.tasktypes.woi.search.http import documents_of
from tests.woi.search_server import closed_port_url, search_server

pytestmark = pytest.mark.backends

NOWHERE = Source(0, "", "en")


def http(url: str, *, documents: int = 5, timeout_s: float = 2.0) -> SearchConfig:
    return config_of({"search": {"backend": "http", "url": url, "documents": documents, "timeout_s": timeout_s}}).search


def test_it_posts_the_query_and_count_and_splits_each_document_into_sentences() -> None:
    with search_server() as server:
        found = documents_search(config=http(server.url, documents=2), source=NOWHERE, query="mount fuji")
    assert server.requests == [{"path": "/search_server", "type": "application/x-www-form-urlencoded", "form": {"q": ["mount fuji"], "n": ["2"]}}]
    assert found == [
        {"content": ["Mount Fuji is the highest mountain in Japan.", "It is a volcano.", "It last erupted in 1707."],
         "url": "https://example.org/fuji", "title": "Mount Fuji"},
        {"content": ["Hiking is a long walk.", "Trails lead to the summit."], "url": "https://example.org/hiking", "title": "Hiking"},
    ]


@pytest.mark.parametrize(
    ("mode", "code", "says"),
    [
        ("error", ERROR, "answered HTTP 500"),
        ("garbage", GARBAGE, "is not JSON"),
        ("wrong", GARBAGE, 'has no "response" list'),
    ],
)
def test_a_misbehaving_server_fails_the_search_saying_how(mode: str, code: str, says: str) -> None:
    with search_server() as server:
        server.mode = mode
        with pytest.raises(SearchFailed) as failed:
            documents_search(config=http(server.url), source=NOWHERE, query="fuji")
    assert failed.value.code == code and says in failed.value.message


def test_a_server_that_is_down_fails_the_search_at_once() -> None:
    started = time.monotonic()
    with pytest.raises(SearchFailed) as failed:
        documents_search(config=http(closed_port_url()), source=NOWHERE, query="fuji")
    assert failed.value.code == DOWN and "cannot be reached" in failed.value.message
    assert time.monotonic() - started < 1.5


def test_a_slow_server_fails_the_search_after_the_campaigns_timeout() -> None:
    with search_server() as server:
        server.mode, server.delay = "slow", 3.0
        started = time.monotonic()
        with pytest.raises(SearchFailed) as failed:
            documents_search(config=http(server.url, timeout_s=0.5), source=NOWHERE, query="fuji")
        waited = time.monotonic() - started
    assert failed.value.code == SLOW and "within 0.5 s" in failed.value.message
    assert 0.5 <= waited < 2.0


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (b'{"response": ["just a string"]}', "document 0 of the search server's answer is not a JSON object"),
        (b'{"response": [{"url": "u", "title": "t"}]}', 'document 0 of the search server\'s answer has no string "content"'),
        (b'{"response": [{"content": "a", "url": 3}]}', "has a url that is not a string"),
        (b'{"response": [{"content": "a\\u0000b"}]}', "has a content that is not valid text"),
        (b'{"response": [{"content": "ok"}, {"content": "a \\ud83d b"}]}', "document 1 of the search server's answer has a content that is not valid text"),
        (b"\xff\xfe", "is not JSON"),
    ],
)
def test_documents_that_cannot_be_shown_are_garbage(answer: bytes, says: str) -> None:
    with pytest.raises(SearchFailed) as failed:
        documents_of(answer, 5)
    assert failed.value.code == GARBAGE and says in failed.value.message


def test_missing_url_and_title_are_empty_as_in_parlai() -> None:
    assert documents_of(b'{"response": [{"content": "One.\\nTwo."}]}', 5) == [{"content": ["One.", "Two."], "url": "", "title": ""}]


def test_a_campaign_whose_search_settings_are_unusable_fails_every_search() -> None:
    with pytest.raises(SearchFailed) as failed:
        documents_search(config=SearchConfig(broken="protocol_config.search.url must be ..."), source=NOWHERE, query="x")
    assert failed.value.code == UNUSABLE


@pytest.mark.django_db(transaction=True)  # the search runs on a thread of its own: it sees what is committed
def test_the_store_backend_searches_the_knowledge_source(knowledge) -> None:
    source = Source(knowledge.pk, knowledge.slug, knowledge.language)
    found = documents_search(config=SearchConfig(documents=2), source=source, query="hot water tea leaves")
    assert found[0]["title"] == "Tea" and found[0]["url"] == "https://en.wikipedia.org/wiki/Tea" and len(found) <= 2
    assert found[0]["content"][0].startswith("Tea is an aromatic beverage")
    mount = documents_search(config=SearchConfig(url_template="https://kb.example/{language}/{title}"), source=source, query="Everest summit")
    assert mount[0]["url"] == "https://kb.example/en/Mount_Everest"


@pytest.mark.django_db(transaction=True)  # the search runs on a thread of its own: it sees what is committed
def test_a_source_without_an_index_fails_the_search(knowledge, settings, tmp_path) -> None:
    settings.INDEX_DIR = tmp_path / "no-indexes"
    with pytest.raises(SearchFailed) as failed:
        documents_search(config=SearchConfig(), source=Source(knowledge.pk, knowledge.slug, "en"), query="tea")
    assert failed.value.code == DOWN and "build_index" in failed.value.message


def _search_in_child(url: str) -> list[str]:
    return [d["title"] for d in documents_search(config=http(url), source=NOWHERE, query="fuji")]


def test_a_process_forked_after_a_search_searches_with_threads_of_its_own() -> None:
    import multiprocessing

    with search_server() as server:
        assert _search_in_child(server.url)  # this process's search threads exist now
        # A forked process (the browser tests' server, a prefork worker) has none of them.
        with multiprocessing.get_context("fork").Pool(1) as pool:
            titles = pool.apply_async(_search_in_child, (server.url,)).get(timeout=20)
    assert titles == ["Mount Fuji", "Hiking", "Onsen"]
