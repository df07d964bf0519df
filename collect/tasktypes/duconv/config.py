"""A DuConv campaign's settings, read from Campaign.protocol_config:

    {"goals": [{"goal": [["START", "A", "B"], ["A", "directed by", "B"]], "knowledge": [...]}, ...],
     "topics": ["Inception", "Titanic"], "knowledge_min": 11, "knowledge_max": 21}

With `goals`, each room takes the next goal of the list (in turn); a goal without `knowledge` gets
the triples of its two topics from the graph. Without `goals`, every room gets a goal generated
from the campaign's knowledge source (topic A drawn from `topics` when given). Turns: the agent may
end once both have spoken the campaign's `min_turns` and both topics were mentioned; the chat ends
by itself at `turn_limit` turns each (set it to the original's 8)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from collect.models import Campaign
from retrieval.graph import services as graph


class ConfigError(ValueError):
    """The campaign's protocol_config is not a valid DuConv config; says what is wrong."""


@dataclass(frozen=True)
class DuConvConfig:
    goals: tuple[dict[str, Any], ...] = ()
    topics: tuple[str, ...] = ()
    knowledge_min: int = graph.KNOWLEDGE_MIN
    knowledge_max: int = graph.KNOWLEDGE_MAX


def config_for(campaign: Campaign) -> DuConvConfig:
    return config_parse(campaign.protocol_config or {})


def config_parse(raw: Any) -> DuConvConfig:
    """DuConv settings from a JSON object: a DuConv campaign's protocol_config, or the `duconv`
    object of a model-chat campaign's."""
    if not isinstance(raw, dict):
        raise ConfigError("protocol_config must be an object")
    unknown = set(raw) - {"goals", "topics", "knowledge_min", "knowledge_max"}
    if unknown:
        raise ConfigError(f"unknown DuConv settings: {', '.join(sorted(unknown))}")
    goals = raw.get("goals", [])
    if not isinstance(goals, list):
        raise ConfigError("'goals' must be a list of {goal, knowledge} objects")
    for n, item in enumerate(goals, start=1):
        if not isinstance(item, dict) or "goal" not in item:
            raise ConfigError(f"goal {n}: expected an object with 'goal' (and optionally 'knowledge')")
        try:
            graph.goal_shape_check(item["goal"])
        except graph.GoalError as error:
            raise ConfigError(f"goal {n}: {error}") from error
        knowledge = item.get("knowledge")
        if knowledge is not None and not (
            isinstance(knowledge, list)
            and all(isinstance(t, list) and len(t) == 3 and all(isinstance(x, str) for x in t) for t in knowledge)
        ):
            raise ConfigError(f"goal {n}: 'knowledge' must be a list of [subject, property, value] triples")
    topics = raw.get("topics", [])
    if not isinstance(topics, list) or not all(isinstance(t, str) and t for t in topics):
        raise ConfigError("'topics' must be a list of entity names")
    numbers = {}
    for key in ("knowledge_min", "knowledge_max"):
        value = raw.get(key, getattr(DuConvConfig, key))
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 100:
            raise ConfigError(f"'{key}' must be a whole number from 1 to 100")
        numbers[key] = value
    if numbers["knowledge_min"] > numbers["knowledge_max"]:
        raise ConfigError("'knowledge_min' is larger than 'knowledge_max'")
    return DuConvConfig(goals=tuple(goals), topics=tuple(topics), **numbers)


def session_goal(campaign: Campaign, *, turn: int, rng: random.Random) -> graph.Goal:
    """The goal and knowledge of a campaign's next room (`turn`: how many rooms it has had)."""
    return goal_draw(config_for(campaign), source_id=campaign.knowledge_source_id, turn=turn, rng=rng, label=campaign.slug)


def goal_draw(config: DuConvConfig, *, source_id: Any, turn: int, rng: random.Random, label: str) -> graph.Goal:
    """The `turn`-th room's goal under these settings (ConfigError naming `label` when none can be had)."""
    try:
        if config.goals:
            item = config.goals[turn % len(config.goals)]
            goal = graph.goal_check(source_id=source_id, goal=item["goal"])
            knowledge = item.get("knowledge")
            if knowledge is None:
                knowledge = graph.goal_knowledge(source_id=source_id, goal=goal, knowledge_max=config.knowledge_max, rng=rng)
            return graph.Goal(goal=goal, knowledge=knowledge)
        return graph.goal_generate(
            source_id=source_id,
            rng=rng,
            topics=list(config.topics) or None,
            knowledge_min=config.knowledge_min,
            knowledge_max=config.knowledge_max,
        )
    except graph.GoalError as error:
        raise ConfigError(f"campaign {label!r}: {error}") from error


def campaign_problems(campaign: Campaign) -> list[str]:
    """What keeps this campaign from opening rooms ([] when it can)."""
    try:
        config = config_for(campaign)
    except ConfigError as error:
        return [str(error)]
    return config_problems(config, source_id=campaign.knowledge_source_id)


def config_problems(config: DuConvConfig, *, source_id: Any) -> list[str]:
    """What keeps these settings from giving goals on this knowledge source ([] when they can)."""
    problems = []
    for n, item in enumerate(config.goals, start=1):
        try:
            graph.goal_check(source_id=source_id, goal=item["goal"])
        except graph.GoalError as error:
            problems.append(f"goal {n}: {error}")
    if not config.goals:
        try:
            graph.goal_generate(source_id=source_id, topics=list(config.topics) or None,
                                knowledge_min=config.knowledge_min, knowledge_max=config.knowledge_max)
        except graph.GoalError as error:
            problems.append(str(error))
    return problems
