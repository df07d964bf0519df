from __future__ import annotations

from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from retrieval.index import TermMajorIndex, index_build, index_load
from retrieval.models import Article
from retrieval.tasks import build_index
from tests.retrieval.conftest import MakeSource

pytestmark = pytest.mark.django_db

ANIMALS = {
    "Dog": "The dog is a domesticated descendant of the wolf. Dogs bark.",
    "Cat": "The cat is a small domesticated carnivorous mammal. Cats purr.",
    "Axolotl": "The axolotl is a paedomorphic salamander native to Lake Xochimilco.",
    "Wolf": "The wolf is a large canine native to Eurasia and North America.",
}


def search(index_dir: Path, query: str, *, slug: str = "kb", k: int = 3) -> list[str]:
    hits = index_load(index_dir=index_dir, slug=slug).search(query, k=k)
    titles = dict(Article.objects.filter(pk__in=[pk for pk, _ in hits]).values_list("pk", "title"))
    return [titles[pk] for pk, _ in hits]


def test_it_ranks_the_article_with_a_distinctive_term_first(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)

    assert search(index_dir, "salamanders of lake xochimilco")[0] == "Axolotl"


def test_it_weighs_the_title_with_the_lead(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source({"Paris": "The capital of France.", "Lyon": "A city on the Rhône."})
    index_build(source_id=source.pk)

    assert search(index_dir, "paris", k=1) == ["Paris"]


def test_it_scores_a_term_in_half_of_a_two_document_collection(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source({"Dog": "Dogs bark loudly.", "Cat": "Cats purr quietly."})
    index_build(source_id=source.pk)

    hits = index_load(index_dir=index_dir, slug="kb").search("bark", k=2)

    assert [(Article.objects.get(pk=pk).title, score > 0) for pk, score in hits] == [("Dog", True)]


def test_it_ranks_by_shared_bigrams(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source({"A": "New York is a large city.", "B": "A new city in York was built."})
    index_build(source_id=source.pk)

    assert search(index_dir, "new york", k=2) == ["A", "B"]


def test_it_splits_chinese_into_characters(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source({"北京": "北京是中国的首都。", "上海": "上海是一座港口城市。"}, slug="zh", language="zh")
    index_build(source_id=source.pk)

    assert search(index_dir, slug="zh", query="中国首都", k=1) == ["北京"]


def test_it_finds_nothing_for_terms_it_has_never_seen(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)

    assert search(index_dir, "quantum chromodynamics") == []


def test_it_indexes_an_empty_source(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source({})

    meta = index_build(source_id=source.pk)

    assert meta["n_docs"] == 0
    assert search(index_dir, "dog") == []


def test_it_memory_maps_the_arrays(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)

    index = index_load(index_dir=index_dir, slug="kb")

    assert isinstance(index.data, np.memmap)
    assert isinstance(index.indices, np.memmap)
    assert Path(index.data.filename) == (index_dir / "kb" / "data.npy").resolve()


def test_it_loads_an_index_once_per_process(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)

    assert index_load(index_dir=index_dir, slug="kb") is index_load(index_dir=index_dir, slug="kb")


def test_it_reloads_after_a_rebuild(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)
    before = index_load(index_dir=index_dir, slug="kb")
    make_source({"Okapi": "The okapi is a giraffid native to the Congo."})
    index_build(source_id=source.pk)

    after = index_load(index_dir=index_dir, slug="kb")

    assert (before.meta["n_docs"], after.meta["n_docs"]) == (4, 5)
    assert search(index_dir, "okapi", k=1) == ["Okapi"]


def test_it_keeps_only_the_current_and_the_previous_build(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source(ANIMALS)
    for _ in range(3):
        index_build(source_id=source.pk)

    builds = sorted(path.name for path in (index_dir / ".builds" / "kb").iterdir())
    assert len(builds) == 2
    assert (index_dir / "kb").resolve().name == builds[-1]


def test_it_stores_one_row_per_present_term(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source(ANIMALS)
    meta = index_build(source_id=source.pk, n_features=2**20)

    index = index_load(index_dir=index_dir, slug="kb")

    assert len(index.indptr) == len(index.terms) + 1 == meta["n_terms"] + 1
    assert len(index.doc_ids) == 4
    assert (index.idf >= 1.0).all()


def test_it_builds_through_the_command(make_source: MakeSource, index_dir: Path) -> None:
    make_source(ANIMALS)
    out = StringIO()

    call_command("build_index", "--source", "kb", stdout=out, stderr=StringIO())

    assert "Indexed 4 articles of 'kb'" in out.getvalue()
    assert (index_dir / "kb" / "meta.json").is_file()


def test_it_refuses_an_unknown_source_in_the_command() -> None:
    with pytest.raises(CommandError, match="no knowledge source 'nope'"):
        call_command("build_index", "--source", "nope", stdout=StringIO(), stderr=StringIO())


def test_it_builds_through_the_celery_task(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source(ANIMALS)

    meta = build_index.apply(args=[source.pk]).get()

    assert meta["n_docs"] == 4
    assert index_load(index_dir=index_dir, slug="kb").meta["built_at"] == meta["built_at"]


def test_it_keeps_a_newer_build_that_is_not_published_yet(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source(ANIMALS)
    index_build(source_id=source.pk)
    newer = index_dir / ".builds" / "kb" / f"{2**62}-concurrent"
    newer.mkdir()
    (newer / "meta.json").write_text("{}")

    for _ in range(2):
        index_build(source_id=source.pk)

    assert newer.is_dir()


def test_a_blended_search_scores_the_weighted_sum_of_cosines(make_source: MakeSource, index_dir: Path) -> None:
    index_build(source_id=make_source(ANIMALS).pk)
    index = index_load(index_dir=index_dir, slug="kb")
    turn, topic = "a wolf descendant that barks", "cat"
    single = {q: dict(index.search(q, k=100)) for q in (turn, topic)}
    blended = index.search_blend([(turn, 1.0), (topic, 0.5)], k=100)
    expected = {pk: single[turn].get(pk, 0.0) + 0.5 * single[topic].get(pk, 0.0) for pk in {*single[turn], *single[topic]}}
    assert {pk for pk, _ in blended} == set(expected)
    for pk, score in blended:
        assert score == pytest.approx(expected[pk], rel=1e-5)
    assert [s for _, s in blended] == sorted((s for _, s in blended), reverse=True)
    assert index.search_blend([(turn, 1.0), (topic, 0.0)], k=100) == index.search(turn, k=100)


def test_it_matches_words_by_their_stems(make_source: MakeSource, index_dir: Path) -> None:
    source = make_source({"Composer": "She is a composer who composes film scores.", "Painter": "He paints portraits in oil."})
    index_build(source_id=source.pk)

    assert search(index_dir, "who composed it", k=1) == ["Composer"]


def test_an_index_built_without_stems_is_queried_with_its_own_tokens(make_source: MakeSource, index_dir: Path) -> None:
    index_build(source_id=make_source(ANIMALS).pk)
    index = index_load(index_dir=index_dir, slug="kb")
    unstemmed = TermMajorIndex(**{**vars(index), "meta": {k: v for k, v in index.meta.items() if k != "stems"}})

    assert index.vectorizer.build_analyzer()("Dogs barking") == ["dog", "bark", "dog bark"]
    assert unstemmed.vectorizer.build_analyzer()("Dogs barking") == ["dogs", "barking", "dogs barking"]
