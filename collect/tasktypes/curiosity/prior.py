"""What the user is asked about before chatting: entities related to the topic (the named entities
its facts mention), sampled round-robin from popularity buckets so that common and obscure ones both
appear, and the aspects of a topic."""

from __future__ import annotations

import random
import re

import numpy as np
from django.db.models import QuerySet

from retrieval.entities import common_noun, link_articles, link_source, name_mentioned, popularity
from retrieval.models import LEAD_SECTION, Article, Mention, Sentence

BODY = "Body"  # Curiosity's name of the lead section
# "History of Brazil", "Economy of China": the topic's own overview articles, not entities beside it.
OVERVIEWS = ("History", "Economy", "Geography", "Culture", "Politics", "Demographics", "Architecture", "Cinema",
             "Music", "Cuisine", "Religion", "Literature", "Art", "Languages", "Climate", "Sport", "Education",
             "Government", "Outline", "Timeline")


def topic_sections(article: Article) -> list[str]:
    """The article's sections in order, without the lead: the aspects a topic can have."""
    sections = Sentence.objects.filter(article=article).order_by("position").values_list("section", flat=True)
    return [s for s in dict.fromkeys(sections) if s not in (LEAD_SECTION, BODY)]


def entities_ready(article: Article) -> None:
    """Make sure the topic's mentions exist (fast: one article). In-link popularity needs the whole
    source linked, which is campaign_prepare's job, not the pairing path's."""
    if not article.entities_linked:
        link_articles(source_id=article.source_id, article_ids=[article.pk])


def source_prepare(source_id: int) -> int:
    """Link every article of the source not linked yet and count in-links; returns new mentions."""
    if Article.objects.filter(source_id=source_id, entities_linked=False).exists():
        return link_source(source_id=source_id)
    return 0


def topic_mentions(article: Article) -> QuerySet[Mention]:
    """The mentions, in the topic's own facts, of other articles: its related entities."""
    return Mention.objects.filter(sentence__article=article).exclude(title=article.title)


def related_entity_titles(article: Article) -> list[str]:
    """The entities the topic's facts mention that a person could know, sorted: mentions imported
    with a fact db (the dataset's own entity links) as they are; mentions our linker found
    (retrieval/entities.py) only where they are names with an article of their own in the source:
    not the topic's own overview ("History of Brazil"), not a common noun ("Bay", "Empire",
    "Flower": the entity's own lead or the topic's facts write it in lower case), not a title
    without letters ("1"), and named on its own somewhere, not only inside a longer name ("Book"
    of "Book of Han", "Ezra" of "Ezra Pound")."""
    mentions = topic_mentions(article)
    kept = set(mentions.filter(external_id__isnull=False).values_list("title", flat=True).distinct())
    rows = mentions.filter(external_id__isnull=True).exclude(title__in=kept)
    rows = list(rows.values_list("title", "entity_id", "entity__lead", "sentence__text"))
    if not rows:
        return sorted(kept)
    # The topic's facts write a common noun in lower case somewhere too ("a South American war").
    facts = " ".join(Sentence.objects.filter(article=article).values_list("text", flat=True))
    refused: set[str] = set()
    overview = re.compile(rf"^(?:{'|'.join(OVERVIEWS)}) (?:of|in) (?:the )?{re.escape(article.title)}(?: \(.*\))?$")
    for title, entity_id, lead, text in rows:
        if title in kept or title in refused:
            continue
        name = re.sub(r" \([^)]*\)$", "", title)  # "Civil law (legal system)": the name is "Civil law"
        if entity_id is None or overview.match(title) or common_noun(name, f"{lead or ''} {facts}"):
            refused.add(title)
        elif name_mentioned(text, title):
            kept.add(title)
    return sorted(kept)


def related_entities_sample(article: Article, *, count: int, buckets: int, rng: random.Random) -> list[str]:
    """`count` of the topic's related entities (related_entity_titles): sorted from common to
    obscure, cut into `buckets` equal buckets, then drawn one per bucket in turn (at random within a
    bucket) until `count` are drawn. Returned in a random order, so that the screen does not reveal
    popularity."""
    titles = related_entity_titles(article)
    if not titles:
        return []
    views = popularity(source_id=article.source_id, titles=titles)
    ranked = sorted(titles, key=lambda t: (-views[t], t))
    pools = [list(chunk) for chunk in np.array_split(np.array(ranked, dtype=object), min(buckets, len(ranked)))]
    for pool in pools:
        rng.shuffle(pool)
    sample: list[str] = []
    while len(sample) < count and any(pools):
        for pool in pools:
            if pool and len(sample) < count:
                sample.append(str(pool.pop()))
    rng.shuffle(sample)
    return sample
