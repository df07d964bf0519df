"""A Topical-Chat campaign's settings, read from Campaign.protocol_config:

    {"topics": ["Moon", {"title": "Jazz", "entities": ["Louis Armstrong", "Ella Fitzgerald", "New Orleans"]}],
     "configs": ["A", "B", "C", "D"], "entities": 3, "fun_facts": 5, "lead_chars": 700,
     "summary_sentences": 5, "article_sentences": 12, "url_base": "https://en.wikipedia.org/wiki/"}

Each room draws a topic (an article of the campaign's knowledge source: the conversation's
"article") and a configuration from `configs` (uniformly; list one twice to draw it twice as
often). A topic given as a plain title takes its entities from the knowledge
(collect/tasktypes/topical_chat/reading_sets.py); `{"title", "entities"}` names them. Only
`topics` is required; every other key has the default shown. Unknown keys are refused, so that a
misspelt one is not silently ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from collect.models import Campaign
from collect.tasktypes.topical_chat.release import CONFIGS, FACT_SECTIONS

# name → (default, lowest, highest)
KNOBS: dict[str, tuple[int, int, int]] = {
    "entities": (3, 1, len(FACT_SECTIONS)),  # factual sections FS1..FS3 per reading set
    "fun_facts": (5, 1, 10),  # per entity and agent (configuration A gives each agent its own)
    "lead_chars": (700, 100, 5000),  # the shortened lead: whole sentences up to this many characters
    "summary_sentences": (5, 1, 20),  # the summarized lead: its TextRank top sentences
    "article_sentences": (12, 1, 200),  # the article's first sentences, cut into AS1..AS4
}
URL_BASE = "https://en.wikipedia.org/wiki/"
KEYS = {"topics", "configs", "url_base", *KNOBS}


class ConfigError(ValueError):
    """The campaign's protocol_config is not a valid Topical-Chat config; says what is wrong."""


@dataclass(frozen=True)
class Topic:
    title: str
    entities: tuple[str, ...] = ()  # empty: found in the knowledge


@dataclass(frozen=True)
class TopicalConfig:
    topics: tuple[Topic, ...]
    configs: tuple[str, ...] = CONFIGS
    url_base: str = URL_BASE
    entities: int = 3
    fun_facts: int = 5
    lead_chars: int = 700
    summary_sentences: int = 5
    article_sentences: int = 12


def config_for(campaign: Campaign) -> TopicalConfig:
    return config_parse(campaign.protocol_config)


def config_parse(raw: Any) -> TopicalConfig:
    """The settings of a protocol_config object; ConfigError naming the key at fault."""
    if not isinstance(raw, dict):
        raise ConfigError("protocol_config must be a JSON object with at least 'topics'")
    unknown = sorted(set(raw) - KEYS)
    if unknown:
        raise ConfigError(f"protocol_config has unknown keys: {', '.join(unknown)} (known: {', '.join(sorted(KEYS))})")
    knobs = {}
    for name, (default, low, high) in KNOBS.items():
        value = raw.get(name, default)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ConfigError(f"protocol_config.{name} must be a whole number from {low} to {high}, not {value!r}")
        knobs[name] = value
    topics = raw.get("topics")
    if not isinstance(topics, list) or not topics:
        raise ConfigError('protocol_config.topics must be a non-empty list of titles or {"title", "entities"} objects')
    parsed = tuple(_topic(item, index, most=knobs["entities"]) for index, item in enumerate(topics))
    configs = raw.get("configs", list(CONFIGS))
    if not isinstance(configs, list) or not configs or not all(isinstance(c, str) for c in configs):
        raise ConfigError(f"protocol_config.configs must be a non-empty list of configurations ({', '.join(CONFIGS)})")
    wrong = [c for c in configs if c not in CONFIGS]
    if wrong:
        raise ConfigError(f"protocol_config.configs: {wrong[0]!r} is not a configuration; choose from {', '.join(CONFIGS)}")
    url_base = raw.get("url_base", URL_BASE)
    if not isinstance(url_base, str) or not url_base.strip():
        raise ConfigError("protocol_config.url_base must be the start of the articles' URLs, e.g. " + URL_BASE)
    return TopicalConfig(topics=parsed, configs=tuple(configs), url_base=url_base.strip(), **knobs)


def _topic(item: Any, index: int, *, most: int) -> Topic:
    where = f"protocol_config.topics[{index}]"
    if isinstance(item, str) and item.strip():
        return Topic(item.strip())
    if not (isinstance(item, dict) and isinstance(item.get("title"), str) and item["title"].strip()):
        raise ConfigError(f"{where} must be a title or an object with a 'title'")
    extra = sorted(set(item) - {"title", "entities"})
    if extra:
        raise ConfigError(f"{where} has unknown keys: {', '.join(extra)} (known: title, entities)")
    entities = item.get("entities", [])
    if not isinstance(entities, list) or not all(isinstance(e, str) and e.strip() for e in entities):
        raise ConfigError(f"{where}.entities must be a list of article titles")
    names = tuple(dict.fromkeys(e.strip() for e in entities))
    if len(names) != len(entities):
        raise ConfigError(f"{where}.entities names an entity twice")
    if len(names) > most:
        raise ConfigError(f"{where}.entities names {len(names)} entities; a reading set has at most {most} (protocol_config.entities)")
    title = item["title"].strip()
    if title in names:
        raise ConfigError(f"{where}.entities names the topic itself ({title!r})")
    return Topic(title, names)
