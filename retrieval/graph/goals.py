"""DuConv goals: two topics the graph links, the triples that link them, and the background
knowledge (the triples of both topics) the agent talks from."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from retrieval.models import Triple

TABLE = Triple._meta.db_table

START = "START"
# The original sessions carry 11–21 background triples (docs/schemas.md#duconv: 9–21 in some).
KNOWLEDGE_MIN = 11
KNOWLEDGE_MAX = 21
# Candidate rows read per kind of link: common values ("female", "film") would otherwise make
# every entity a neighbour of every other and the lookup as slow as a scan.
LINK_ROWS = 60


class GoalError(ValueError):
    """A goal that cannot be used with this graph; says why."""


@dataclass(frozen=True)
class Goal:
    goal: list[list[str]]  # [["START", A, B], [A or B, relation, B or A or shared value], ...]
    knowledge: list[list[str]] = field(default_factory=list)

    @property
    def topic_a(self) -> str:
        return self.goal[0][1]

    @property
    def topic_b(self) -> str:
        return self.goal[0][2]


def goal_shape_check(goal: object) -> list[list[str]]:
    """The goal as a list of string triples starting with START, or GoalError."""
    if not isinstance(goal, list) or not goal:
        raise GoalError("a goal must be a non-empty list of triples")
    for triple in goal:
        if not isinstance(triple, list) or len(triple) != 3 or not all(isinstance(x, str) and x.strip() for x in triple):
            raise GoalError(f"every goal entry must be 3 non-empty strings, not {triple!r}"[:200])
    if goal[0][0] != START:
        raise GoalError(f'a goal starts with ["{START}", topic_a, topic_b], not {goal[0]!r}')
    if goal[0][1] == goal[0][2]:
        raise GoalError("the two topics of a goal must differ")
    return goal


def entity_triples(*, source_id: int, subject: str) -> list[list[str]]:
    return _rows(f"SELECT subject, property, value FROM {TABLE} WHERE source_id = %s AND subject = %s ORDER BY id",
                 [source_id, subject])


def _rows(sql: str, params: list[Any]) -> list[list[str]]:
    # Plain SQL on the goal path: the ORM's query building costs more than the indexed lookups.
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [list(row) for row in cursor.fetchall()]


def goal_check(*, source_id: int, goal: object) -> list[list[str]]:
    """A goal given by a campaign: well formed, and both topics have triples in the graph."""
    goal = goal_shape_check(goal)
    for topic in goal[0][1:]:
        if not Triple.objects.filter(source_id=source_id, subject=topic).exists():
            raise GoalError(f"the goal names {topic!r}, which has no triples in the knowledge graph")
    return goal


def goal_knowledge(
    *, source_id: int, goal: list[list[str]], knowledge_max: int = KNOWLEDGE_MAX, rng: random.Random | None = None
) -> list[list[str]]:
    """The background knowledge of a goal: the triples of both topics (those of the goal first
    kept), at most `knowledge_max`, in graph order."""
    rng = rng or random.Random()
    return _knowledge(source_id, goal, entity_triples(source_id=source_id, subject=goal[0][1]), knowledge_max, rng)


def _knowledge(
    source_id: int, goal: list[list[str]], a_triples: list[list[str]], knowledge_max: int, rng: random.Random
) -> list[list[str]]:
    triples = a_triples + entity_triples(source_id=source_id, subject=goal[0][2])
    links = {tuple(t) for t in goal[1:]}
    if len(triples) > knowledge_max:
        keep = [t for t in triples if tuple(t) in links]
        rest = [t for t in triples if tuple(t) not in links]
        chosen = {id(t) for t in keep + rng.sample(rest, max(0, knowledge_max - len(keep)))}
        triples = [t for t in triples if id(t) in chosen]
    return triples


def goal_generate(
    *,
    source_id: int,
    rng: random.Random | None = None,
    topics: list[str] | None = None,
    knowledge_min: int = KNOWLEDGE_MIN,
    knowledge_max: int = KNOWLEDGE_MAX,
    attempts: int = 40,
) -> Goal:
    """A random goal over the graph: topic A (from `topics` when given), a topic B linked to it (A's
    triple names B, B's names A, or both share a property and value), the linking triples, and
    between knowledge_min and knowledge_max background triples."""
    rng = rng or random.Random()
    for _ in range(attempts):
        a = rng.choice(topics) if topics else _random_subject(source_id, rng)
        if a is None:
            raise GoalError("the knowledge source has no triples: import a graph first (import_knowledge triples FILE --source SLUG)")
        a_triples = entity_triples(source_id=source_id, subject=a)
        links = _links(source_id, a, a_triples)
        if not links:
            continue
        b, relation = rng.choice(links)
        goal = [[START, a, b], *relation]
        knowledge = _knowledge(source_id, goal, a_triples, knowledge_max, rng)
        if len(knowledge) >= knowledge_min:
            return Goal(goal=goal, knowledge=knowledge)
    raise GoalError(
        f"found no two linked topics with at least {knowledge_min} triples between them in {attempts} tries"
    )


def _random_subject(source_id: int, rng: random.Random) -> str | None:
    # Two index seeks: an aggregate MIN/MAX with the source filter would scan the source's rows.
    bounds = _rows(
        f"SELECT (SELECT id FROM {TABLE} WHERE source_id = %s ORDER BY id LIMIT 1), "
        f"(SELECT id FROM {TABLE} WHERE source_id = %s ORDER BY id DESC LIMIT 1)",
        [source_id, source_id],
    )[0]
    if bounds[0] is None:
        return None
    pick = rng.randint(bounds[0], bounds[1])
    row = _rows(f"SELECT subject FROM {TABLE} WHERE source_id = %s AND id >= %s ORDER BY id LIMIT 1", [source_id, pick])
    return row[0][0] if row else None


def _links(source_id: int, a: str, a_triples: list[list[str]]) -> list[tuple[str, list[list[str]]]]:
    """(B, the goal's relation triples) for every topic B linked to A."""
    links: list[tuple[str, list[list[str]]]] = []
    values = sorted({v for _, _, v in a_triples if v != a and len(v) <= Triple.VALUE_KEY_CHARS})
    if values:
        marks = ", ".join(["%s"] * len(values))
        named = {row[0] for row in _rows(
            f"SELECT DISTINCT subject FROM {TABLE} WHERE source_id = %s AND subject IN ({marks}) LIMIT {LINK_ROWS}",
            [source_id, *values],
        )}
        links += [(v, [[a, p, v]]) for _, p, v in a_triples if v in named]
        # Others that name A, and others sharing one of A's (property, value) pairs, in one read.
        keys = sorted({*values, a[: Triple.VALUE_KEY_CHARS]})
    else:
        keys = [a[: Triple.VALUE_KEY_CHARS]]
    marks = ", ".join(["%s"] * len(keys))
    by_value = {(p, v) for _, p, v in a_triples}
    for s, p, v in _rows(
        f"SELECT subject, property, value FROM {TABLE} WHERE source_id = %s AND value_key IN ({marks}) "
        f"AND subject <> %s LIMIT {2 * LINK_ROWS}",
        [source_id, *keys, a],
    ):
        if v == a:
            links.append((s, [[s, p, a]]))
        elif (p, v) in by_value and s not in values:
            links.append((s, [[a, p, v], [s, p, v]]))
    return links
