"""What collect/ (and model-chat campaigns) call: goal generation and checking, the agent's view of
a session's knowledge, topic mentions. Goals and knowledge travel as plain lists of triples."""

from __future__ import annotations

import unicodedata
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
    """Text as compared for a mention: NFKC (full-width "：" and "Ｎｏｌａｎ" are ":" and "Nolan"),
    case-folded, without whitespace or punctuation. Chinese has no spaces between words and names
    are written with any of several middle dots: DuConv's segmented "米歇尔 · 菲佛", a typed
    "米歇尔・菲佛" and "米歇尔菲佛" all match. collect/tasktypes/duconv/static/duconv/room.js squeezes text the same way."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if not _skipped(c))


def _skipped(char: str) -> bool:
    return char.isspace() or unicodedata.category(char)[0] == "P"


def text_mentions(text: str, entity: str) -> bool:
    needle = squeeze(entity)
    return bool(needle) and needle in squeeze(text)
