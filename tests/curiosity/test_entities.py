"""Entity linking against the store's titles (longest match, case-aware) and popularity."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.entities import link_source, popularity, trie_build
from retrieval.models import Article, Mention
from tests.conftest import import_articles

pytestmark = pytest.mark.django_db


def test_it_takes_the_longest_match_and_respects_case() -> None:
    trie = trie_build(["New York", "New York City", "York", "Time travel", "US", "B.B. King", "Guitar"])
    assert trie.find("She moved to New York City, then to York.") == ["New York City", "York"]
    assert trie.find("time travel and Time travel") == ["Time travel"]
    assert trie.find("let us go to the US") == ["US"]
    # Only the first letter of a title of several words folds; one-word common nouns stay out.
    assert trie.find("a guitar in new york") == []
    assert trie.find("a Guitar in York") == ["Guitar", "York"]
    assert trie.find("B.B. King played the blues") == ["B.B. King"]
    assert trie.find("New York", exclude="New York") == []


def test_it_links_a_source_and_counts_inlinks(index_dir: Path, tmp_path: Path) -> None:
    source = import_articles(tmp_path, "linked")
    created = link_source(source_id=source.pk)
    assert created > 0
    time_travel = Mention.objects.filter(sentence__article__title="Science fiction", title="Time travel").get()
    assert time_travel.entity.title == "Time travel"
    assert not Mention.objects.filter(sentence__article__title="Blues", title="Blues").exists()  # not itself
    # "science fiction" in Time travel's text links to Science fiction (first letter lower case).
    assert Mention.objects.filter(sentence__article__title="Time travel", title="Science fiction").exists()
    assert Article.objects.filter(source=source, entities_linked=False).count() == 0
    fiction = Article.objects.get(source=source, title="Science fiction")
    assert fiction.inlinks == Mention.objects.filter(entity=fiction).values("sentence__article").distinct().count() == 1
    ranks = popularity(source_id=source.pk, titles=["Science fiction", "Tea", "Nowhere"])
    assert ranks == {"Science fiction": 1, "Tea": 0, "Nowhere": 0}
    assert link_source(source_id=source.pk) == 0  # already linked


def test_imported_page_views_rank_entities(facts_source) -> None:
    ranks = popularity(source_id=facts_source.pk, titles=["Germany", "Otjiwarongo", "Namibia"])
    assert ranks == {"Germany": 900_000, "Otjiwarongo": 5_000, "Namibia": 500_000}
