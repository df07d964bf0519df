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


def test_a_name_inside_a_longer_name_is_not_named() -> None:
    from retrieval.entities import name_mentioned

    assert not name_mentioned("The first reference was in the Chinese Book of Han.", "Book")
    assert not name_mentioned("Ezra Weston Loomis Pound was an American poet.", "Ezra")
    assert not name_mentioned("It borders the Sea of Japan.", "Japan")
    assert not name_mentioned("the Cathedral of Saint Mary of the Flower", "Flower")
    assert name_mentioned("Rome is the capital of Italy; other cities include Milan.", "Milan")
    assert name_mentioned("Milan is the capital of Lombardy.", "Milan")  # capitalised as the first word only
    assert name_mentioned("Japan and China signed.", "Japan") and name_mentioned("in Nazi Germany and in Germany", "Germany")
    assert name_mentioned("Mussolini was appointed Prime Minister.", "Benito Mussolini")  # linked, not matched


def test_a_title_written_in_lower_case_or_only_first_in_a_sentence_is_a_common_noun() -> None:
    from retrieval.entities import common_noun

    assert common_noun("Flower", "A flower, also known as a bloom or blossom, is the reproductive structure.")
    assert common_noun("Rock music", "Rock music is a genre. Early rock music drew on the blues.")
    assert common_noun("1", "1 is a number.")
    assert common_noun("Gibbon", "Gibbons are apes in the family Hylobatidae. Gibbons live in forests.")
    # One word only ever capitalised as a sentence's first: nothing shows it is a name.
    assert common_noun("Graffiti", "Graffiti is writing or drawings made on a wall. Graffiti ranges from words to murals.")
    assert not common_noun("Milan", "Milan is a city. Rome is the capital of Italy; other cities include Milan.")
    assert not common_noun("Carmen", "Carmen is an opera by Georges Bizet. Bizet wrote Carmen in 1875.")
    assert not common_noun("Rock and roll music", "Rock and roll music is a genre.")  # several words: the lower case decides
