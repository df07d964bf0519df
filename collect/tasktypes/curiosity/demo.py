"""The Curiosity demo `make run` serves: a knowledge source built from the bundled demo Wikipedia
(lead paragraphs only, so no sections of its own) in the shape Curiosity needs.

Each topic is a country. Its facts are its own lead sentences (the lead, never an aspect) and, as
facts of its aspects, passages of other demo articles that name it, grouped into aspects by the
category of the article they come from (a Geography article's sentence about Japan is a Geography
fact of Japan). A passage is one paragraph: the sentence that names the country, after the one or
two sentences of its article it points back to ("Founded in 1897, it is…" comes after "Kyoto
University is…"), so that the fact bank can show each fact after its context
(retrieval/curiosity/context.py).

The entities the user marks are those the facts mention: the article each passage comes from (its
article names the country), and the demo articles the sentences name, except one named only in
passing: it counts when the country's own lead names it or its own lead names the country ("Los
Angeles" in an Italian-born actor's sentence does not). Which of them are names, not common nouns,
collect/tasktypes/curiosity/prior.py decides for any source."""

from __future__ import annotations

from typing import Callable

import re
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import transaction

from collect.tasktypes.curiosity.prior import source_prepare
from collect.models import Campaign
from collect.tasktypes.curiosity import NAME
from retrieval.curiosity.context import points_back
from retrieval.entities import name_mentioned, title_trie
from retrieval.models import LEAD_SECTION, Article, KnowledgeSource, Mention, Sentence

DEMO_SLUG = "curiosity-demo"
DEMO_SOURCE = "curiosity-demo"
TOPICS = ("Japan", "Italy", "France", "Germany", "Egypt", "Greece", "Mexico", "India", "China", "Brazil")
DEMONYMS = {
    "Japan": "Japanese", "Italy": "Italian", "France": "French", "Germany": "German", "Egypt": "Egyptian",
    "Greece": "Greek", "Mexico": "Mexican", "India": "Indian", "China": "Chinese", "Brazil": "Brazilian",
}
# Demo categories -> aspect names; the other categories (Uncategorized, sciences) make no aspect.
ASPECTS = {
    "Geography": "Geography", "History": "History", "People": "Notable people", "Arts": "Culture",
    "Society and social sciences": "Society", "Everyday life": "Daily life", "Philosophy and religion": "Religion",
    "Technology": "Technology", "Biology and health sciences": "Nature",
}
PLACES = "Geography"  # the demo category whose articles are places (countries are "Uncategorized")
# A lead that says what its title is, "X is a country in…", "…the largest continent": a place.
PLACE_LEAD = re.compile(
    r"^[^.]*?\b(?:is|was|are|were)\b(?: \S+){0,8}? (?:country|countries|city|capital|continent|subcontinent|region|"
    r"island|islands|archipelago|sea|ocean|river|lake|state|province|territory|peninsula|town|desert|strait|gulf|"
    r"mountains?|range|plateau|county|prefecture|municipality|metropolis|microstate|enclave)\b"
)
MIN_FACTS, MAX_FACTS = 3, 8  # sentences per aspect (3: the bank's aspect facts)
MIN_CHARS, MAX_CHARS = 40, 300
CONTEXT_SENTENCES = 2  # at most this many sentences before the one that names the country


@dataclass
class Passage:
    """Sentences of one article (`origin`), in order, the last naming the country."""

    origin: str
    texts: list[str]
    mentions: list[list[str]] = field(default_factory=list)


def _passages(wiki: KnowledgeSource, topic: str, places: _Places) -> dict[str, list[Passage]]:
    """{aspect: [passage]}, one passage an article: its first sentence that names the topic, after
    the sentences it points back to."""
    hits = (
        Sentence.objects.filter(article__source=wiki, text__contains=topic)
        .exclude(article__title=topic)
        .order_by("article__title", "position")
        .values_list("article_id", "article__title", "article__category", "position", "text")
    )
    first: dict[int, tuple[str, str, int, str]] = {}
    for article_id, title, category, position, text in hits:
        text = " ".join(text.split())
        if article_id in first or ASPECTS.get(category) is None:
            continue
        if MIN_CHARS <= len(text) <= MAX_CHARS and places.names(text, topic):
            first[article_id] = (title, ASPECTS[category], position, text)
    earlier: dict[int, dict[int, str]] = defaultdict(dict)
    wanted = [(a, p) for a, (title, _, p, text) in first.items() if p > 0 and (points_back(text) or not _names(text, title))]
    if wanted:
        rows = Sentence.objects.filter(article_id__in=[a for a, _ in wanted], position__lt=max(p for _, p in wanted))
        for article_id, position, text in rows.values_list("article_id", "position", "text"):
            earlier[article_id][position] = " ".join(text.split())
    found: dict[str, list[Passage]] = defaultdict(list)
    for article_id, (title, aspect, position, text) in first.items():
        texts = [text]
        while (points_back(texts[0]) or not _names(texts[0], title)) and len(texts) <= CONTEXT_SENTENCES:
            before = earlier[article_id].get(position - len(texts))
            if before is None:
                break
            texts.insert(0, before)
        # The first sentence says what the passage is about; each later one names it too or is
        # shown after the one before it (it points back).
        readable = not points_back(texts[0]) and _names(texts[0], title)
        # A sentence before the one naming the country is a fact of the country too: it must be
        # about the country, by its name or its adjective ("A katana is a Japanese sword…").
        on_topic = all(re.search(rf"\b(?:{re.escape(topic)}|{DEMONYMS.get(topic, topic)})\b", t) for t in texts)
        readable = readable and on_topic and all(points_back(t) or _names(t, title) for t in texts[1:])
        if readable and sum(map(len, texts)) <= 2 * MAX_CHARS:
            found[aspect].append(Passage(title, texts))
    return found


def _names(text: str, title: str) -> bool:
    """Whether the text names the article it comes from by the first or last capitalised word of
    its title ("Kiarostami", "bulbuls", "Capuchin" but not just "monkey", "International" or
    "Rights" but not just "the Covenant"), so that a reader knows what it is about."""
    words = [w for w in re.findall(r"\w{4,}", title.split(" (")[0].split(",")[0]) if w[0].isupper()]
    return any(re.search(rf"\b{re.escape(word)}", text, re.IGNORECASE) for word in {*words[:1], *words[-1:]})


class _Places:
    """Which demo articles are places, read once each."""

    def __init__(self, wiki: KnowledgeSource) -> None:
        self.wiki, self.trie, self.known = wiki, title_trie(wiki.pk), {}

    def lead(self, title: str) -> str | None:
        """The lead of a place, None for any other title."""
        if title not in self.known:
            article = Article.objects.filter(source=self.wiki, title=title).values_list("lead", "category").first()
            place = article is not None and (article[1] == PLACES or PLACE_LEAD.match(article[0]) is not None)
            self.known[title] = article[0] if place else None
        return self.known[title]

    def names(self, text: str, topic: str) -> bool:
        """Whether the text names the country itself: on its own, or inside the name of something
        that is not another place ("Empire of Japan", "Nazi Germany"; not "New Mexico", "Gulf of
        Mexico")."""
        within = re.compile(rf"\b{re.escape(topic)}\b")
        found = self.trie.find(text)
        if topic in found and name_mentioned(text, topic):
            return True
        return any(t != topic and within.search(t) and self.lead(t) is None for t in found)


def _aspects(passages: dict[str, list[Passage]]) -> dict[str, list[Passage]]:
    """Each aspect's passages up to MAX_FACTS sentences, self-contained ones first; aspects with
    fewer than MIN_FACTS sentences are left out."""
    chosen = {}
    for aspect, candidates in passages.items():
        kept, count = [], 0
        for passage in sorted(candidates, key=lambda p: (len(p.texts) > 1, p.origin)):
            if count + len(passage.texts) <= MAX_FACTS:
                kept.append(passage)
                count += len(passage.texts)
        if count >= MIN_FACTS:
            chosen[aspect] = kept
    return chosen


@transaction.atomic
def curiosity_demo_source_build(*, wiki: KnowledgeSource) -> KnowledgeSource:
    """The demo source (built once): TOPICS with their aspects, and every entity their facts name."""
    source, created = KnowledgeSource.objects.get_or_create(
        slug=DEMO_SOURCE, defaults={"name": "Countries with aspects (Curiosity demo, from the demo Wikipedia)"}
    )
    if not created and source.articles.exists():
        return source
    trie, places = title_trie(wiki.pk), _Places(wiki)
    wiki_articles = {a.title: a for a in Article.objects.filter(source=wiki, title__in=TOPICS)}
    # (topic, [(section, paragraph, text, mentioned titles)])
    built: list[tuple[Article, list[tuple[str, int, str, list[str]]]]] = []
    for topic in TOPICS:
        aspects = _aspects(_passages(wiki, topic, places))
        if topic not in wiki_articles or len(aspects) < 2:
            continue
        lead = [" ".join(t.split()) for t in Sentence.objects.filter(article=wiki_articles[topic]).order_by("position").values_list("text", flat=True)]
        in_lead = {title for text in lead for title in trie.find(text, exclude=topic)}
        lines = [(LEAD_SECTION, 0, text, trie.find(text, exclude=topic)) for text in lead]
        for aspect, passages in aspects.items():
            for paragraph, passage in enumerate(passages):
                for text in passage.texts:
                    lines.append((aspect, paragraph, text, [passage.origin, *trie.find(text, exclude=topic)]))
        built.append((wiki_articles[topic], _linked_only(lines, topic=topic, wiki=wiki, in_lead=in_lead)))
    _store(source, wiki, built)
    source_prepare(source.pk)  # in-links as the entities' popularity
    return source


def _linked_only(lines: list, *, topic: str, wiki: KnowledgeSource, in_lead: set[str]) -> list:
    """The lines with their mentions kept only where the entity is linked to the topic: named in
    the topic's own lead, the article a passage comes from, or an article whose lead names the
    topic ("Los Angeles" in an Italian-born actor's sentence is none of these)."""
    titles = {title for *_, mentioned in lines for title in mentioned}
    named = re.compile(rf"\b{re.escape(topic)}\b")
    naming = {t for t, lead in Article.objects.filter(source=wiki, title__in=titles).values_list("title", "lead") if named.search(lead)}
    kept = []
    for section, paragraph, text, mentioned in lines:
        origin = mentioned[0] if section != LEAD_SECTION else None
        keep = [t for t in dict.fromkeys(mentioned) if t != topic and (t in in_lead or t == origin or t in naming)]
        kept.append((section, paragraph, text, keep))
    return kept


def _store(source: KnowledgeSource, wiki: KnowledgeSource, built: list) -> None:
    titles = {t for _, lines in built for *_, mentioned in lines for t in mentioned} - set(TOPICS)
    Article.objects.bulk_create(
        Article(source=source, title=a.title, lead=a.lead, category=a.category, entities_linked=True)
        for a in Article.objects.filter(source=wiki, title__in=titles)
    )
    for wiki_article, lines in built:
        article = Article.objects.create(
            source=source, title=wiki_article.title, lead=wiki_article.lead, category=wiki_article.category, entities_linked=True
        )
        Sentence.objects.bulk_create(
            Sentence(article=article, section=section, position=n, text=text, paragraph_index=paragraph)
            for n, (section, paragraph, text, _) in enumerate(lines)
        )
    ids = dict(Article.objects.filter(source=source).values_list("title", "pk"))
    sentences = Sentence.objects.filter(article__source=source).values_list("article__title", "position", "pk")
    by_position = {(title, position): pk for title, position, pk in sentences}
    Mention.objects.bulk_create(
        Mention(sentence_id=by_position[(wiki_article.title, n)], title=title, entity_id=ids.get(title))
        for wiki_article, lines in built
        for n, (*_, mentioned) in enumerate(lines)
        for title in mentioned
        if title in ids
    )


def curiosity_demo_ensure(*, wiki: KnowledgeSource) -> Campaign:
    source = curiosity_demo_source_build(wiki=wiki)
    topics = sorted(source.articles.filter(title__in=TOPICS).values_list("title", flat=True))
    campaign, _ = Campaign.objects.get_or_create(
        slug=DEMO_SLUG,
        defaults={
            "name": "Curiosity: a curious user and an assistant (demo)",
            "protocol": NAME,
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


def demo_ensure(*, wiki: KnowledgeSource, say: Callable[[str], object]) -> None:
    """The registry's demo: Curiosity on ten countries of the demo knowledge."""
    curiosity = curiosity_demo_ensure(wiki=wiki)
    topics = len(curiosity.protocol_config["topics"])
    say(f"Curiosity demo ready: {topics} topics in '{curiosity.knowledge_source.slug}', campaign '{curiosity.slug}'")
