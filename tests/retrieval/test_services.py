from __future__ import annotations

import pytest
from django.test.utils import CaptureQueriesContext
from django.db import connection

from retrieval.index import index_build
from retrieval import services
from retrieval.models import Article, KnowledgeSource
from retrieval.services import IndexNotBuilt, passages_for_query, topic_passage
from tests.retrieval.conftest import MakeSource

pytestmark = pytest.mark.django_db

ANIMALS = {
    "Dog": "The dog is a domesticated descendant of the wolf. Dogs bark at strangers.",
    "Cat": "The cat is a small domesticated carnivorous mammal. Cats purr.",
    "Axolotl": "The axolotl is a salamander. It lives in Lake Xochimilco. It regrows limbs.",
    "Wolf": "The wolf is a large canine native to Eurasia and North America.",
}


class Clock:
    """A monotonic clock that moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def animals(make_source: MakeSource) -> KnowledgeSource:
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)
    return source


def test_it_returns_titles_and_lead_sentences_in_rank_order(animals: KnowledgeSource) -> None:
    passages = passages_for_query(source_id=animals.pk, query="a wolf descendant that barks", k=2)

    assert passages == [
        {"title": "Dog", "sentences": ["The dog is a domesticated descendant of the wolf.", "Dogs bark at strangers."]},
        {"title": "Wolf", "sentences": ["The wolf is a large canine native to Eurasia and North America."]},
    ]


def test_it_returns_at_most_k_passages(animals: KnowledgeSource) -> None:
    assert len(passages_for_query(source_id=animals.pk, query="the domesticated dog cat wolf", k=2)) == 2


def test_it_fetches_new_passages_in_two_queries(animals: KnowledgeSource) -> None:
    passages_for_query(source_id=animals.pk, query="warm up the index cache")

    with CaptureQueriesContext(connection) as queries:
        passages_for_query(source_id=animals.pk, query="salamander lake", k=7)

    assert len(queries) == 2  # the source's slug, then the sentences with their titles


def test_passages_read_once_are_not_read_again(animals: KnowledgeSource) -> None:
    first = passages_for_query(source_id=animals.pk, query="salamander lake", k=7)

    with CaptureQueriesContext(connection) as queries:
        again = passages_for_query(source_id=animals.pk, query="salamander lake", k=7, source_slug=animals.slug)

    assert again == first
    assert len(queries) == 0


def test_a_caller_changing_its_passages_does_not_change_the_next_callers(animals: KnowledgeSource) -> None:
    first = passages_for_query(source_id=animals.pk, query="salamander lake", k=1)
    first[0]["sentences"].append("Changed by the caller.")
    first[0]["title"] = "Changed"

    assert passages_for_query(source_id=animals.pk, query="salamander lake", k=1) == [
        {"title": "Axolotl", "sentences": ["The axolotl is a salamander.", "It lives in Lake Xochimilco.", "It regrows limbs."]}
    ]


def test_a_rebuilt_index_reads_its_articles_again(animals: KnowledgeSource) -> None:
    assert passages_for_query(source_id=animals.pk, query="salamander lake", k=1)[0]["title"] == "Axolotl"
    Article.objects.filter(title="Axolotl").update(title="Ambystoma mexicanum")
    assert passages_for_query(source_id=animals.pk, query="salamander lake", k=1)[0]["title"] == "Axolotl"

    index_build(source_id=animals.pk)

    assert passages_for_query(source_id=animals.pk, query="salamander lake", k=1)[0]["title"] == "Ambystoma mexicanum"


def test_an_article_renamed_in_the_admin_is_seen_once_its_passage_expires(
    make_source: MakeSource, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    monkeypatch.setattr(services, "lead_cache_clock", clock)
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)
    passages_for_query(source_id=source.pk, query="salamander lake", k=1)
    Article.objects.filter(title="Axolotl").update(title="Ambystoma mexicanum")

    clock.now += services.LEAD_CACHE_SECONDS - 1
    assert passages_for_query(source_id=source.pk, query="salamander lake", k=1)[0]["title"] == "Axolotl"
    clock.now += 1

    assert passages_for_query(source_id=source.pk, query="salamander lake", k=1)[0]["title"] == "Ambystoma mexicanum"


def test_the_least_recently_used_passages_are_dropped_first(make_source: MakeSource, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "LEAD_CACHE_ARTICLES", 2)
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)
    for query in ("salamander xochimilco", "purr", "salamander xochimilco", "bark at strangers"):
        passages_for_query(source_id=source.pk, query=query, k=1, source_slug=source.slug)

    with CaptureQueriesContext(connection) as axolotl:
        passages_for_query(source_id=source.pk, query="salamander xochimilco", k=1, source_slug=source.slug)
    with CaptureQueriesContext(connection) as cat:
        passages_for_query(source_id=source.pk, query="purr", k=1, source_slug=source.slug)

    assert (len(axolotl), len(cat)) == (0, 1)


def test_an_expired_passage_read_again_counts_as_recently_used(make_source: MakeSource, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "LEAD_CACHE_ARTICLES", 2)
    clock = Clock()
    monkeypatch.setattr(services, "lead_cache_clock", clock)
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)
    for query in ("salamander xochimilco", "purr"):
        passages_for_query(source_id=source.pk, query=query, k=1, source_slug=source.slug)
    clock.now += services.LEAD_CACHE_SECONDS
    passages_for_query(source_id=source.pk, query="salamander xochimilco", k=1, source_slug=source.slug)  # read again
    passages_for_query(source_id=source.pk, query="bark at strangers", k=1, source_slug=source.slug)  # drops one

    with CaptureQueriesContext(connection) as axolotl:
        passages_for_query(source_id=source.pk, query="salamander xochimilco", k=1, source_slug=source.slug)

    assert len(axolotl) == 0


@pytest.mark.parametrize("query", ["", "   ", "\n"])
def test_it_returns_nothing_for_an_empty_query(make_source: MakeSource, query: str) -> None:
    source = make_source(ANIMALS)

    assert passages_for_query(source_id=source.pk, query=query) == []


def test_it_raises_index_not_built_without_an_index(make_source: MakeSource) -> None:
    source = make_source(ANIMALS)

    with pytest.raises(IndexNotBuilt, match="build_index --source kb"):
        passages_for_query(source_id=source.pk, query="dog")


def test_it_leaves_out_articles_deleted_since_the_build(animals: KnowledgeSource) -> None:
    Article.objects.filter(title="Axolotl").delete()

    assert passages_for_query(source_id=animals.pk, query="salamander lake xochimilco") == []


def test_topic_passage_returns_the_article_with_that_exact_title(animals: KnowledgeSource) -> None:
    assert topic_passage(source_id=animals.pk, title="Axolotl") == [
        "The axolotl is a salamander.",
        "It lives in Lake Xochimilco.",
        "It regrows limbs.",
    ]


def test_topic_passage_needs_no_index_for_an_exact_title(make_source: MakeSource) -> None:
    source = make_source(ANIMALS)

    assert topic_passage(source_id=source.pk, title="Cat", max_sentences=1) == [
        "The cat is a small domesticated carnivorous mammal."
    ]


def test_topic_passage_falls_back_to_the_best_match(animals: KnowledgeSource) -> None:
    assert topic_passage(source_id=animals.pk, title="the axolotl", max_sentences=1) == [
        "The axolotl is a salamander."
    ]


def test_topic_passage_stops_at_max_sentences(animals: KnowledgeSource) -> None:
    assert topic_passage(source_id=animals.pk, title="Axolotl", max_sentences=2) == [
        "The axolotl is a salamander.",
        "It lives in Lake Xochimilco.",
    ]


@pytest.mark.parametrize("title", ["", "quantum chromodynamics"])
def test_topic_passage_returns_nothing_without_a_match(animals: KnowledgeSource, title: str) -> None:
    assert topic_passage(source_id=animals.pk, title=title) == []


def test_topic_passage_raises_index_not_built_when_it_needs_the_fallback(make_source: MakeSource) -> None:
    source = make_source(ANIMALS)

    with pytest.raises(IndexNotBuilt):
        topic_passage(source_id=source.pk, title="salamanders")


def test_it_reads_only_the_given_source(animals: KnowledgeSource, make_source: MakeSource) -> None:
    other = make_source({"Axolotl": "An axolotl brand of bicycles."}, slug="bikes")

    assert topic_passage(source_id=other.pk, title="Axolotl") == ["An axolotl brand of bicycles."]
    with pytest.raises(IndexNotBuilt):
        passages_for_query(source_id=other.pk, query="axolotl")


FILMS = {
    "Star Wars": "Star Wars is a space opera franchise created by George Lucas.",
    "Star cluster": "A star cluster is a group of stars held together by gravity.",
    "Punic Wars": "The Punic Wars were three wars between Rome and Carthage.",
    "Johann Strauss": "Johann Strauss composed waltzes in Vienna.",
}


def test_a_turns_words_that_repeat_the_topic_count_once(make_source: MakeSource) -> None:
    source = make_source(FILMS)
    index_build(source_id=source.pk)
    ask = lambda turn: passages_for_query(source_id=source.pk, query=turn, k=4, topic="Star Wars", topic_weight=1.0)

    assert ask("Who composed the music for Star Wars?") == ask("Who composed the music?")
    assert ask("Who composed the music?")[1]["title"] == "Johann Strauss"  # "composed" meets "composers" by its stem


def test_a_topic_without_an_article_is_blended_by_its_title_alone(animals: KnowledgeSource) -> None:
    passages = passages_for_query(source_id=animals.pk, query="which one barks", k=1, topic="wolves and dogs", topic_weight=1.0)

    assert [p["title"] for p in passages] == ["Dog"]


def test_the_topics_part_of_the_query_is_made_once(animals: KnowledgeSource) -> None:
    passages_for_query(source_id=animals.pk, query="warm up", topic="Dog", topic_weight=1.0, source_slug=animals.slug)
    passages_for_query(source_id=animals.pk, query="salamander lake", k=7, topic="Dog", topic_weight=1.0, source_slug=animals.slug)

    with CaptureQueriesContext(connection) as queries:
        passages_for_query(source_id=animals.pk, query="salamander lake", k=7, topic="Dog", topic_weight=1.0, source_slug=animals.slug)

    assert len(queries) == 0


# --- A chat turn by its own words (passages_for_turn) -------------------------------------------


def titles_of(passages: list) -> list[str]:
    return [p["title"] for p in passages]


def test_a_turn_gets_the_articles_it_names_first(animals: KnowledgeSource) -> None:
    turn = "Is the Axolotl a domesticated descendant of the wolf that barks at strangers?"
    assert titles_of(passages_for_query(source_id=animals.pk, query=turn, k=3)) == ["Dog", "Axolotl", "Wolf"]

    assert titles_of(services.passages_for_turn(source_id=animals.pk, text=turn, k=2)) == ["Axolotl", "Dog"]


def test_a_turn_with_content_words_is_not_blended_with_the_topic(animals: KnowledgeSource) -> None:
    turn = "Does it live in a lake?"
    assert titles_of(services.passages_for_turn(source_id=animals.pk, text=turn, topic="Dog")) == ["Axolotl"]
    assert titles_of(services.passages_for_turn(source_id=animals.pk, text="Does it purr?", topic="Dog")) == ["Cat"]


def test_a_turn_with_nothing_of_its_own_is_asked_with_the_topic(animals: KnowledgeSource) -> None:
    for turn in ("Yes, I agree! That's so cool.", "Tell me more about the dog, please."):
        blended = passages_for_query(source_id=animals.pk, query=turn, topic="Dog", topic_weight=1.0)
        assert services.passages_for_turn(source_id=animals.pk, text=turn, topic="Dog") == blended
        assert titles_of(blended)[0] == "Dog"
    assert services.passages_for_turn(source_id=animals.pk, text="  ", topic="Dog") == []
