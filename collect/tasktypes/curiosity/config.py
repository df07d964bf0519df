"""A Curiosity campaign's settings, read from Campaign.protocol_config. Every knob has the paper's
value as its default (Rodriguez et al., 2020), except `drop_after_shown`, which is ours.

    {"topics": ["Namibia", {"title": "Tahiti", "aspects": ["History", "Culture", "Economy"]}],
     "aspects_per_dialog": 2, "related_entities": 15, "popularity_buckets": 10,
     "facts_per_category": 3, "context_turns": 3, "drop_after_shown": 3, "tag": "round_1"}

A topic given as a plain title takes its aspects from the sections of its article (the lead, "", is
never an aspect). Turns come from the campaign's own min_turns / max_turns / turn_limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from collect.models import Campaign

KNOBS = {
    "aspects_per_dialog": 2,
    "related_entities": 15,
    "popularity_buckets": 10,
    "facts_per_category": 3,
    "context_turns": 3,
    "drop_after_shown": 3,
}


class ConfigError(ValueError):
    """The campaign's protocol_config is not a valid Curiosity config; says what is wrong."""


@dataclass(frozen=True)
class Topic:
    title: str
    aspects: tuple[str, ...] = ()  # empty: the sections of the article


@dataclass(frozen=True)
class CuriosityConfig:
    topics: tuple[Topic, ...]
    tag: str
    aspects_per_dialog: int = 2
    related_entities: int = 15
    popularity_buckets: int = 10
    facts_per_category: int = 3
    context_turns: int = 3
    drop_after_shown: int = 3


def config_for(campaign: Campaign) -> CuriosityConfig:
    raw = campaign.protocol_config or {}
    if not isinstance(raw, dict):
        raise ConfigError("protocol_config must be a JSON object")
    knobs = {}
    for name, default in KNOBS.items():
        value = raw.get(name, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"protocol_config.{name} must be a whole number of at least 1, not {value!r}")
        knobs[name] = value
    topics = raw.get("topics")
    if not isinstance(topics, list) or not topics:
        raise ConfigError('protocol_config.topics must be a non-empty list of titles or {"title", "aspects"} objects')
    parsed = tuple(_topic(item, index) for index, item in enumerate(topics))
    tag = raw.get("tag", campaign.slug)
    if not isinstance(tag, str):
        raise ConfigError("protocol_config.tag must be a string")
    return CuriosityConfig(topics=parsed, tag=tag, **knobs)


def _topic(item: Any, index: int) -> Topic:
    if isinstance(item, str) and item.strip():
        return Topic(item.strip())
    if isinstance(item, dict) and isinstance(item.get("title"), str) and item["title"].strip():
        aspects = item.get("aspects", [])
        if not isinstance(aspects, list) or not all(isinstance(a, str) and a.strip() for a in aspects):
            raise ConfigError(f"protocol_config.topics[{index}].aspects must be a list of section titles")
        return Topic(item["title"].strip(), tuple(dict.fromkeys(a.strip() for a in aspects)))
    raise ConfigError(f"protocol_config.topics[{index}] must be a title or an object with a 'title'")
