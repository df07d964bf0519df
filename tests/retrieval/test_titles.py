"""The articles a chat turn names (retrieval/titles.py): which spellings name a title and which do
not, and the titles stored with an index build."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from retrieval import services
from retrieval.index import index_build, index_load
from retrieval.models import Article, KnowledgeSource
from retrieval.titles import FILES, TitleIndex, title_index_of
from tests.retrieval.conftest import MakeSource

TITLES = [
    "Florence", "Manhattan Project", "Sistine Chapel", "Sistine Chapel ceiling", "Paco de Lucía", "Dune (novel)",
    "Mercury (planet)", "Mercury (element)", "Well", "The Who", "United States", "US", "1933", "Leonardo da Vinci",
    "Nice", "Ceres (dwarf planet)", "Time travel",
]


@pytest.fixture(scope="module")
def titles() -> TitleIndex:
    return title_index_of(enumerate(TITLES, start=1))


def named(titles: TitleIndex, text: str, **options: str) -> list[str]:
    return [TITLES[pk - 1] for pk in titles.named(text, stop_words=ENGLISH_STOP_WORDS, **options)]


def test_a_name_inside_a_question_is_found(titles: TitleIndex) -> None:
    assert named(titles, "Did he ever visit Florence?") == ["Florence"]
    assert named(titles, "Was he in Florence when the Manhattan Project began?") == ["Florence", "Manhattan Project"]


def test_a_title_of_several_words_matches_in_any_case_and_the_longest_wins(titles: TitleIndex) -> None:
    assert named(titles, "what about the manhattan project?") == ["Manhattan Project"]
    assert named(titles, "who painted the sistine chapel ceiling?") == ["Sistine Chapel ceiling"]
    assert named(titles, "Is time travel possible?") == ["Time travel"]


def test_accents_and_qualifiers_are_not_needed(titles: TitleIndex) -> None:
    assert named(titles, "Is Paco de Lucia a guitarist?") == ["Paco de Lucía"]
    assert named(titles, "Who wrote Dune? Is Ceres a planet?") == ["Dune (novel)", "Ceres (dwarf planet)"]


def test_a_bare_name_that_two_articles_share_names_neither(titles: TitleIndex) -> None:
    assert named(titles, "Is it hotter on Mercury than on Venus?") == []


def test_one_word_is_a_title_only_as_written_and_not_as_the_first_word_of_a_sentence(titles: TitleIndex) -> None:
    assert named(titles, "did he ever visit florence?") == []
    assert named(titles, "Well, I think it was in Nice. Florence is far.") == ["Nice"]


def test_stop_words_and_numbers_are_not_titles_but_acronyms_are(titles: TitleIndex) -> None:
    assert named(titles, "Did the who play there in 1933? Tell us!") == []
    assert named(titles, "I saw The Who in the US.") == ["The Who", "US"]


def test_each_article_once_in_order_and_never_the_topic(titles: TitleIndex) -> None:
    text = "Was it Florence or Nice? Leonardo da Vinci loved Florence."
    assert named(titles, text) == ["Florence", "Nice", "Leonardo da Vinci"]
    assert named(titles, text, exclude="Leonardo da Vinci") == ["Florence", "Nice"]
    assert named(titles, "") == []


@pytest.mark.django_db
def test_an_index_build_stores_the_titles_and_loading_it_reads_them(make_source: MakeSource) -> None:
    source = make_source({"Florence": "Florence is a city in Tuscany.", "Dune (novel)": "Dune is a novel by Frank Herbert."})
    index_build(source_id=source.pk)

    index = index_load(index_dir=services.settings.INDEX_DIR, slug=source.slug)

    assert index.titles is not None
    ids = dict(Article.objects.filter(source=source).values_list("title", "pk"))
    assert index.titles.named("Did he read Dune in Florence?") == [ids["Dune (novel)"], ids["Florence"]]
    assert sorted(index.titles.title(e) for e in range(len(index.titles.keys))) == ["Dune (novel)", "Dune (novel)", "Florence"]
    assert np.all(np.diff(index.titles.keys.astype(np.float64)) >= 0)


@pytest.mark.django_db
def test_an_index_built_without_titles_reads_them_from_the_database_once(make_source: MakeSource) -> None:
    source = make_source({"Florence": "Florence is a city in Tuscany.", "Tuscany": "Tuscany is a region of Italy."})
    index_build(source_id=source.pk)
    build = (services.settings.INDEX_DIR / source.slug).resolve()
    for name in FILES:
        (build / f"{name}.npy").unlink()
    (build / "meta.json").touch()  # a new modification time: the build is loaded again

    passages = services.passages_for_turn(source_id=source.pk, text="Is Florence near the sea?", k=1)

    assert [p["title"] for p in passages] == ["Florence"]
    KnowledgeSource.objects.filter(pk=source.pk).update(name="renamed")  # no title is read again
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(services, "title_index_of", lambda rows: pytest.fail("titles read twice"))
        services.passages_for_turn(source_id=source.pk, text="What about Tuscany?", k=1, source_slug=source.slug)
