"""Reading sets from Groundwork's knowledge store, in the shape of the Topical-Chat release's.

The release gave each conversation a Washington Post article and three entities it is about (E1–E3);
each partner's reading set holds, per entity, a factual section FS1–FS3 (the entity's Wikipedia lead,
shortened or TextRank-summarized, and fun facts from Reddit's r/todayilearned), and, in
configurations A, B and D, the article cut into four sections AS1–AS4. Here:

| release | from the knowledge store |
|---|---|
| the article (`article_url`, `headline`, AS1–AS4) | the topic's article: its URL (`url_base` + title), its title, and its first `article_sentences` sentences cut into four consecutive sections of whole sentences |
| the entities E1–E3 | articles linked with the topic (`entities`): those its sentences name (in order of first mention), then those whose sentences name it (most popular first), each with at least `fun_facts` fun facts; or the ones the campaign names |
| `shortened_wiki_lead_section` | the entity's lead, its whole sentences up to `lead_chars` characters (at least one) |
| `summarized_wiki_lead_section` | the `summary_sentences` sentences of the entity's lead that TextRank ranks highest (Mihalcea and Tarau, 2004: PageRank over word overlap), in the lead's order, one a line as the release writes them |
| `fun_facts` | sentences of other articles that name the entity (the source's entity links: retrieval/entities.py), most popular article first, each reading on its own (40–300 characters, no "It…" or "This…" that points back to a sentence before it); then the entity's own sentences beyond its shortened lead |

Entity links need the source linked (`campaign_prepare`, which `simulate topical_chat` and
`topical_chat_prepare` run): without them a topic has only the entities its own sentences name,
linked on demand, and fewer fun facts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import quote

import networkx
import numpy as np
from django.db.models import F, Q

from collect.tasktypes.topical_chat.config import Topic, TopicalConfig
from collect.tasktypes.topical_chat.release import (
    AGENT_1,
    AGENT_2,
    ARTICLE_SECTIONS,
    PERSONAL_KNOWLEDGE,
    SHORTENED,
    SUMMARIZED,
    WITH_ARTICLE,
)
from retrieval.curiosity.context import points_back
from retrieval.entities import link_articles, name_mentioned
from retrieval.models import LEAD_SECTION, Article, Mention, Sentence
from retrieval.words import terms_for

FACT_CHARS = (40, 300)  # a fun fact's length, in characters: a sentence that reads as a fact
DAMPING = 0.85  # TextRank's PageRank damping (Mihalcea and Tarau, 2004)
CANDIDATES = 60  # entities looked at per topic, at most
FACT_ROWS = 400  # mentions of an entity read for its fun facts, at most


@dataclass(frozen=True)
class EntityKnowledge:
    title: str
    shortened: str
    summarized: str
    fun_facts: tuple[str, ...]


@dataclass(frozen=True)
class TopicKnowledge:
    """What the reading sets of a conversation on `title` are made of."""

    title: str
    url: str
    sections: tuple[str, ...]  # AS1.. in order: up to four
    entities: tuple[EntityKnowledge, ...]


def topic_article(*, source_id: int, title: str) -> Article | None:
    return Article.objects.filter(source_id=source_id, title=title).first()


def topic_knowledge(article: Article, topic: Topic, config: TopicalConfig, *, language: str = "en") -> TopicKnowledge:
    """The topic's article sections and its entities' knowledge (as many entities as qualify, up to
    `config.entities`; named ones are taken as they are, whatever their fun facts)."""
    if not article.entities_linked:
        link_articles(source_id=article.source_id, article_ids=[article.pk])
    texts = list(Sentence.objects.filter(article=article).order_by("position").values_list("text", flat=True))
    entities: list[EntityKnowledge] = []
    if topic.entities:
        named = {a.title: a for a in Article.objects.filter(source_id=article.source_id, title__in=topic.entities)}
        entities = [_entity(named[t], config, topic=article, language=language) for t in topic.entities if t in named]
    else:
        for candidate in _candidates(article):
            entity = _entity(candidate, config, topic=article, language=language)
            if len(entity.fun_facts) >= config.fun_facts:
                entities.append(entity)
                if len(entities) == config.entities:
                    break
    return TopicKnowledge(
        title=article.title,
        url=config.url_base + quote(article.title.replace(" ", "_"), safe="()_,!'*-.~:/"),
        sections=_sections(texts[: config.article_sentences]),
        entities=tuple(entities),
    )


def topic_problems(article: Article | None, topic: Topic, config: TopicalConfig, knowledge: TopicKnowledge | None) -> list[str]:
    """What keeps a topic from giving full reading sets, each a sentence naming the topic."""
    if article is None or knowledge is None:
        return [f"topic {topic.title!r} is not an article of the knowledge source"]
    problems = []
    if not knowledge.sections:
        problems.append(f"topic {topic.title!r} has no sentences for its article sections")
    if topic.entities:
        found = {e.title for e in knowledge.entities}
        missing = [t for t in topic.entities if t not in found]
        if missing:
            problems.append(f"topic {topic.title!r}: entity {missing[0]!r} is not an article of the knowledge source")
        problems += [f"topic {topic.title!r}: entity {e.title!r} has no fun facts" for e in knowledge.entities if not e.fun_facts]
    elif len(knowledge.entities) < config.entities:
        problems.append(
            f"topic {topic.title!r} has {len(knowledge.entities)} entities with at least {config.fun_facts} fun facts "
            f"({config.entities} needed): articles it names or that name it, in an entity-linked source"
        )
    return problems


def _candidates(article: Article) -> list[Article]:
    """The articles linked with the topic: those its sentences name, in order of first mention,
    then those whose sentences name it, the most popular (page views, else in-links) first."""
    named = (
        Mention.objects.filter(sentence__article=article, entity__isnull=False)
        .exclude(entity=article)
        .order_by("sentence__position", "pk")
        .values_list("entity_id", flat=True)
    )
    naming = (
        Mention.objects.filter(entity=article)
        .exclude(sentence__article=article)
        .order_by(F("sentence__article__pageviews").desc(nulls_last=True), "-sentence__article__inlinks", "sentence__article__title")
        .values_list("sentence__article_id", flat=True)
    )
    ids = list(dict.fromkeys([*named[:CANDIDATES], *naming[: 4 * CANDIDATES]]))[:CANDIDATES]
    found = Article.objects.in_bulk(ids)
    # A title without letters ("1", "1984") names a number or a year, not something to read about.
    return [found[i] for i in ids if i in found and any(ch.isalpha() for ch in found[i].title)]


def _entity(entity: Article, config: TopicalConfig, *, topic: Article, language: str) -> EntityKnowledge:
    sentences = list(Sentence.objects.filter(article=entity).order_by("position").values_list("section", "text"))
    lead = [text for section, text in sentences if section == LEAD_SECTION] or [text for _, text in sentences[:1]]
    shortened = shortened_lead(lead, max_chars=config.lead_chars)
    return EntityKnowledge(
        title=entity.title,
        shortened=" ".join(shortened),
        summarized="\n".join(textrank_summary(lead, count=config.summary_sentences, language=language)),
        fun_facts=tuple(_fun_facts(entity, topic=topic, shown=set(shortened), own=[t for _, t in sentences],
                                   want=2 * config.fun_facts, language=language)),
    )


def shortened_lead(lead: list[str], *, max_chars: int) -> list[str]:
    """The lead's first sentences while they fit in `max_chars` (joined by spaces); at least one."""
    kept: list[str] = []
    size = 0
    for sentence in lead:
        size += len(sentence) + (1 if kept else 0)
        if kept and size > max_chars:
            break
        kept.append(sentence)
    return kept


def textrank_summary(sentences: list[str], *, count: int, language: str = "en") -> list[str]:
    """The `count` sentences TextRank ranks highest, in their own order. Similarity of two
    sentences: the words they share over log |S1| + log |S2| (Mihalcea and Tarau, 2004, section
    4); scores: PageRank of the weighted graph (networkx). Ties keep the earlier sentence."""
    if len(sentences) <= count:
        return list(sentences)
    terms = terms_for(language)
    words = [set(terms(s)) for s in sentences]
    sizes = [max(1, len(terms(s))) for s in sentences]
    graph = networkx.Graph()
    graph.add_nodes_from(range(len(sentences)))
    for i in range(len(sentences)):
        for j in range(i + 1, len(sentences)):
            shared = len(words[i] & words[j])
            norm = math.log(sizes[i]) + math.log(sizes[j])
            if shared and norm > 0:
                graph.add_edge(i, j, weight=shared / norm)
    scores = networkx.pagerank(graph, alpha=DAMPING, weight="weight")
    best = sorted(range(len(sentences)), key=lambda i: (-round(scores[i], 12), i))[:count]
    return [sentences[i] for i in sorted(best)]


def _fun_facts(entity: Article, *, topic: Article, shown: set[str], own: list[str], want: int, language: str) -> list[str]:
    low, high = FACT_CHARS
    english = language.lower().startswith("en")
    rows = (
        Mention.objects.filter(entity=entity)
        .exclude(Q(sentence__article=entity) | Q(sentence__article=topic))
        .order_by(F("sentence__article__pageviews").desc(nulls_last=True), "-sentence__article__inlinks",
                  "sentence__article__title", "sentence__position")
        .values_list("sentence__text", flat=True)[:FACT_ROWS]
    )
    facts: list[str] = []
    for text in [*rows, *own]:
        text = " ".join(text.split())
        if text in shown or text in facts or not low <= len(text) <= high:
            continue
        if text not in own and ((english and points_back(text)) or not name_mentioned(text, entity.title)):
            continue
        facts.append(text)
        if len(facts) == want:
            break
    return facts


def _sections(texts: list[str]) -> tuple[str, ...]:
    """Whole sentences cut into up to four consecutive sections of near-equal sentence counts."""
    if not texts:
        return ()
    parts = np.array_split(np.arange(len(texts)), min(len(ARTICLE_SECTIONS), len(texts)))
    return tuple(" ".join(texts[i] for i in part) for part in parts)


def reading_sets_build(knowledge: TopicKnowledge, *, config: str, fun_facts: int) -> tuple[dict[str, list[dict]], list[list[str]]]:
    """Both partners' reading sets and the article of a conversation in knowledge configuration
    `config` (A–D; release.py says what each gives whom), as TopicalConversation stores them."""
    sets: dict[str, list[dict]] = {AGENT_1: [], AGENT_2: []}
    for n, entity in enumerate(knowledge.entities, start=1):
        facts = list(entity.fun_facts)
        if config == "A":  # different fun facts: the first half of up to twice as many, and the rest
            pool = facts[: 2 * fun_facts]
            half = min(fun_facts, (len(pool) + 1) // 2)
            own = {AGENT_1: pool[:half], AGENT_2: pool[half:]}
        else:
            own = {AGENT_1: facts[:fun_facts], AGENT_2: facts[:fun_facts]}
        for agent in sets:
            summarized = config == "B" and agent == AGENT_2
            sets[agent].append({
                "key": f"FS{n}",
                "entity": entity.title,
                "wiki_field": SUMMARIZED if summarized else SHORTENED,
                "wiki": entity.summarized if summarized else entity.shortened,
                "fun_facts": own[agent],
            })
    article = [["url", knowledge.url]]
    if config in WITH_ARTICLE:
        article += [["headline", knowledge.title]] + [[key, text] for key, text in zip(ARTICLE_SECTIONS, knowledge.sections)]
    return sets, article


def sources_of(entries: list[dict], article: list[list[str]]) -> list[str]:
    """The knowledge_source values open to an agent with these reading-set entries: its factual
    sections, the article's sections where it is shown, and "Personal Knowledge"."""
    return [*(e["key"] for e in entries), *(key for key, _ in article if key in ARTICLE_SECTIONS), PERSONAL_KNOWLEDGE]
