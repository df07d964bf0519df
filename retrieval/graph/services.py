"""What collect/ (and model-chat campaigns) call: goal generation and checking, the agent's view of
a session's knowledge, topic mentions. Goals and knowledge travel as plain lists of triples."""

from __future__ import annotations

import re
from typing import Any

from retrieval.graph.goals import (
    KNOWLEDGE_MAX,
    KNOWLEDGE_MIN,
    START,
    Goal,
    GoalError,
    entity_triples,
    goal_check,
    goal_generate,
    goal_knowledge,
    goal_shape_check,
)
from retrieval.graph.store import TriplesResult, triples_import

__all__ = [
    "KNOWLEDGE_MAX", "KNOWLEDGE_MIN", "START", "Goal", "GoalError", "TriplesResult", "entity_triples", "goal_check",
    "goal_generate", "goal_knowledge", "goal_shape_check", "knowledge_view", "squeeze", "text_mentions",
    "triples_import",
]

_SPACES = re.compile(r"\s+")


def knowledge_view(*, goal: list[list[str]], knowledge: list[list[str]]) -> dict[str, Any]:
    """What the agent sees: the goal path START → A → B, its relation triples, and the knowledge
    grouped by entity (A first, then B, then any other subject), each triple with its index in
    `knowledge` — the id a message marks it by."""
    a, b = goal[0][1], goal[0][2]
    order: list[str] = [a, b]
    groups: dict[str, list[dict[str, Any]]] = {a: [], b: []}
    for index, (subject, prop, value) in enumerate(knowledge):
        if subject not in groups:
            groups[subject] = []
            order.append(subject)
        groups[subject].append({"id": index, "property": prop, "value": value})
    return {
        "path": [START, a, b],
        "relations": [list(t) for t in goal[1:]],
        "entities": [{"entity": e, "triples": groups[e]} for e in order if groups[e] or e in (a, b)],
    }


def squeeze(text: str) -> str:
    """Text without whitespace: DuConv's segmented "米歇尔 · 菲佛" and a typed "米歇尔·菲佛" match."""
    return _SPACES.sub("", text).casefold()


def text_mentions(text: str, entity: str) -> bool:
    needle = squeeze(entity)
    return bool(needle) and needle in squeeze(text)
