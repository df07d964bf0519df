"""The Curiosity demo `make run` serves: a knowledge source built from the bundled demo Wikipedia
(lead paragraphs only, so no sections of its own) in the shape Curiosity needs.

Each topic is a country. Its facts are its own lead sentences (the lead, never an aspect) and the
lead sentences of other demo articles that name it, grouped into aspects by the category of the
article they come from (a Geography article's sentence about Japan is a Geography fact of Japan).
The articles those facts mention are the entities the user marks before chatting, so rooted,
aspect and general facts all exist: the nine-fact bank is full from the first turn."""

from __future__ import annotations

import re
from collections import defaultdict

from django.db import transaction

from collect.curiosity.prior import source_prepare
from collect.models import Campaign, Protocol
from retrieval.entities import title_trie
from retrieval.models import LEAD_SECTION, Article, KnowledgeSource, Sentence

DEMO_SLUG = "curiosity-demo"
DEMO_SOURCE = "curiosity-demo"
TOPICS = ("Japan", "Italy", "France", "Germany", "Egypt", "Greece", "Mexico", "India", "China", "Brazil")
# Demo categories -> aspect names; the other categories (Uncategorized, sciences) make no aspect.
ASPECTS = {
    "Geography": "Geography", "History": "History", "People": "Notable people", "Arts": "Culture",
    "Society and social sciences": "Society", "Everyday life": "Daily life", "Philosophy and religion": "Religion",
    "Technology": "Technology", "Biology and health sciences": "Nature",
}
MIN_FACTS, MAX_FACTS = 4, 8  # per aspect
MIN_CHARS, MAX_CHARS = 40, 300
# A sentence opening with one of these leans on the one before it, which the assistant never sees.
DANGLING = {"it", "its", "they", "their", "he", "his", "she", "her", "this", "these", "those", "however", "furthermore",
            "also", "but", "and", "outside", "in", "the", "many", "some", "there"}


def _facts_about(wiki: KnowledgeSource, topic: str) -> dict[str, list[tuple[str, list[str]]]]:
    """{aspect: [(sentence, entities it mentions)]}, sentences that mention entities first."""
    trie = title_trie(wiki.pk)
    named = re.compile(rf"\b{re.escape(topic)}\b")
    rows = (
        Sentence.objects.filter(article__source=wiki, text__contains=topic)
        .exclude(article__title=topic)
        .order_by("article__title", "position")
        .values_list("article__category", "text")
    )
    found: dict[str, list[tuple[str, list[str]]]] = defaultdict(list)
    for category, text in rows:
        text = " ".join(text.split())
        aspect = ASPECTS.get(category)
        first = text.split(" ", 1)[0].lower().strip(",")
        if aspect is None or not named.search(text) or not MIN_CHARS <= len(text) <= MAX_CHARS or first in DANGLING:
            continue
        found[aspect].append((text, trie.find(text, exclude=topic)))
    return {aspect: sorted(facts, key=lambda f: not f[1])[:MAX_FACTS] for aspect, facts in found.items() if len(facts) >= MIN_FACTS}


@transaction.atomic
def curiosity_demo_source_build(*, wiki: KnowledgeSource) -> KnowledgeSource:
    """The demo source (built once): TOPICS with their aspects, and every entity their facts name."""
    source, created = KnowledgeSource.objects.get_or_create(
        slug=DEMO_SOURCE, defaults={"name": "Countries with aspects (Curiosity demo, from the demo Wikipedia)"}
    )
    if not created and source.articles.exists():
        return source
    leads = {a.title: a for a in Article.objects.filter(source=wiki, title__in=TOPICS)}
    entities: set[str] = set()
    for topic in TOPICS:
        aspects = _facts_about(wiki, topic)
        if topic not in leads or len(aspects) < 2:
            continue
        article = Article.objects.create(source=source, title=topic, lead=leads[topic].lead, category=leads[topic].category)
        own = Sentence.objects.filter(article=leads[topic]).order_by("position").values_list("text", flat=True)
        texts = [(LEAD_SECTION, text) for text in own]
        for aspect, facts in aspects.items():
            texts += [(aspect, text) for text, _ in facts]
            entities.update(title for _, titles in facts for title in titles)
        Sentence.objects.bulk_create(
            Sentence(article=article, section=section, position=n, text=text) for n, (section, text) in enumerate(texts)
        )
    entities -= set(TOPICS)
    Article.objects.bulk_create(
        Article(source=source, title=a.title, lead=a.lead, category=a.category, entities_linked=True)
        for a in Article.objects.filter(source=wiki, title__in=entities)
    )
    source_prepare(source.pk)  # mentions, and in-links as the entities' popularity
    return source


def curiosity_demo_ensure(*, wiki: KnowledgeSource) -> Campaign:
    source = curiosity_demo_source_build(wiki=wiki)
    topics = sorted(source.articles.filter(title__in=TOPICS).values_list("title", flat=True))
    campaign, _ = Campaign.objects.get_or_create(
        slug=DEMO_SLUG,
        defaults={
            "name": "Curiosity: a curious user and an assistant (demo)",
            "protocol": Protocol.CURIOSITY,
            "knowledge_source": source,
            "min_turns": 4,
            "max_turns": 8,
            "turn_limit": 8,
            "protocol_config": {"topics": topics, "tag": "demo"},
            "instructions": (
                "The user first marks the entities they know, then asks about the topic and its two aspects and likes "
                "the answers they enjoy. The assistant answers from the bank of facts shown and ticks the facts used."
            ),
        },
    )
    return campaign
