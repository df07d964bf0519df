"""Persona topics are article titles of the campaign's knowledge source: the wizard is shown the
article named by the topic chosen, so a topic with no article of that exact title would show another
article (the nearest TF-IDF match) under the topic's name. These checks keep such topics out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from collect.models import Campaign
from retrieval.models import Article

TOPIC_MAX_CHARS = 300  # Room.topic


def topics_problems(topics: Any) -> list[str]:
    """What is wrong with the shape of a persona's `topics` (a non-empty list of distinct titles)."""
    if not isinstance(topics, list) or not topics:
        return ["topics must be a non-empty list of article titles, e.g. [\"Guitar\", \"Blues\"]"]
    problems = []
    for topic in topics:
        if not isinstance(topic, str) or not topic.strip():
            problems.append(f"topic {topic!r} is not an article title (a non-empty string)")
        elif len(topic) > TOPIC_MAX_CHARS:
            problems.append(f"topic {topic[:40]!r}… is longer than {TOPIC_MAX_CHARS} characters")
    if not problems and len(set(topics)) != len(topics):
        problems.append("a topic is listed twice")
    return problems


def topics_missing(*, source_id: int, topics: Iterable[str]) -> list[str]:
    """The topics, in their order, that are not the exact title of an article of the source."""
    wanted = [t for t in topics if isinstance(t, str)]
    present = set(Article.objects.filter(source_id=source_id, title__in=wanted).values_list("title", flat=True))
    return [t for t in wanted if t not in present]


def missing_message(missing: list[str], source_name: str) -> str:
    names = ", ".join(repr(t) for t in missing)
    noun = "topic has" if len(missing) == 1 else "topics have"
    return f"{noun.capitalize()} no article of that exact title in the knowledge source {source_name!r}: {names}"


def campaign_topics_missing(*, campaign: Campaign) -> list[str]:
    """Every persona topic of the campaign with no article, each once, in persona order."""
    topics: list[str] = []
    for persona_topics in campaign.personas.values_list("topics", flat=True):
        if isinstance(persona_topics, list):
            topics.extend(t for t in persona_topics if isinstance(t, str) and t not in topics)
    return topics_missing(source_id=campaign.knowledge_source_id, topics=topics)
