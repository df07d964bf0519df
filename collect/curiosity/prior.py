"""What the user is asked about before chatting: entities related to the topic (those its facts
mention), sampled round-robin from popularity buckets so that common and obscure ones both appear,
and the aspects of a topic."""

from __future__ import annotations

import random

import numpy as np
from django.db.models import QuerySet

from retrieval.entities import link_articles, link_source, popularity
from retrieval.models import LEAD_SECTION, Article, Mention, Sentence

BODY = "Body"  # Curiosity's name of the lead section


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


def related_entities_sample(article: Article, *, count: int, buckets: int, rng: random.Random) -> list[str]:
    """`count` entities mentioned by the topic's facts: sorted from common to obscure, cut into
    `buckets` equal buckets, then drawn one per bucket in turn (at random within a bucket) until
    `count` are drawn. Returned in a random order, so that the screen does not reveal popularity."""
    titles = sorted(
        set(topic_mentions(article).values_list("title", flat=True))
    )
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
