"""What a fact is shown with: its article, its section and, when its first words point back
("It lies…", "Founded in 1897, it…", "During this period, …"), the sentence before it in its
paragraph or the article's title. The fact's own text stays the same."""

from __future__ import annotations

import pytest

from collect.tasktypes.curiosity.facts import bank_select, topic_facts
from retrieval.curiosity.context import Line, contexts, points_back
from retrieval.models import Article, Sentence

POINTING_BACK = [
    "It is popular as a pet.",
    "These include the red fox and the arctic fox.",
    "Further south, its range extends into Mexico.",
    "During this period, the first known written reference to Japan was recorded.",
    "Founded in 1897, it is one of the former Imperial Universities.",
    "Located in the Pacific Ocean off the northeast coast of the Asian mainland, it is bordered by seas.",
    "Born in Italy and raised in Los Angeles from the age of five, his rags-to-riches story is famous.",
    "At its height, it covered the entirety of Spain and Portugal.",
    "The city is the capital of Japan.",
    "In 1945 it became a republic.",
    "However, the treaty was never signed.",
    "Other banned groups include the Beguines.",
    "For millennia thereafter, the syntax of written Chinese was imitated.",
]
ON_ITS_OWN = [
    "Japan is an island country in East Asia.",
    "Emperor Meiji was Emperor of Japan from 30 January 1867 until his death in 1912.",
    "Milan is considered Italy's economic capital, and its metropolitan area accounts for about 20%.",
    "Centred on the left bank of the Rhine, Cologne is located on the River Rhine.",
    "The guitar is a fretted musical instrument.",
    "Tokyo is the country's capital and largest city.",
    "The capital Windhoek was founded as a German fort.",
]


@pytest.mark.parametrize("text", POINTING_BACK)
def test_it_sees_first_words_that_point_back(text: str) -> None:
    assert points_back(text)


@pytest.mark.parametrize("text", ON_ITS_OWN)
def test_it_leaves_a_sentence_that_reads_on_its_own(text: str) -> None:
    assert not points_back(text)


def test_the_context_is_the_sentence_before_in_the_paragraph_else_the_title() -> None:
    lines = [
        Line("", None, "Kyoto University is a national research university in Kyoto."),
        Line("", None, "Founded in 1897, it is one of the former Imperial Universities."),
        Line("Geography", 0, "The red fox is common."),
        Line("Geography", 1, "Further south, its range extends into Mexico."),  # first of its paragraph
        Line("Geography", 1, "It is popular as a pet."),
        Line("Geography", 1, "These include the arctic fox."),  # before it, one that points back too
    ]
    shown = contexts(lines, title="Fox")
    assert shown == [
        "", "Kyoto University is a national research university in Kyoto.", "", "Fox",
        "Further south, its range extends into Mexico.",
        "Further south, its range extends into Mexico. It is popular as a pet.",
    ]
    assert contexts(lines, title="Fox", language="zh") == [""] * len(lines)
    assert contexts([Line("", None, "It is Fox's den.")], title="Fox") == [""]  # names the title already


@pytest.mark.django_db
def test_the_bank_shows_each_fact_with_its_article_section_and_context(facts_source) -> None:
    tahiti = Article.objects.get(source=facts_source, title="Tahiti")
    bank = bank_select(topic_facts(tahiti), context="Pacific Ocean", known=set(), aspects=["Geography"], per_category=3)
    by_text = {f["text"]: f for f in bank}
    lies = by_text["It lies in the southern Pacific Ocean."]
    # Each fact of the test db is a paragraph of its own: the context is the article's title.
    assert (lies["article"], lies["section"], lies["context"]) == ("Tahiti", "Geography", "Tahiti")
    assert all(f["context"] == "" for f in bank if not points_back(f["text"]))
    # The fact's text is its own (the export writes it from the same row); the context is beside it.
    assert Sentence.objects.get(article=tahiti, fact_id=lies["fid"]).text == lies["text"]
