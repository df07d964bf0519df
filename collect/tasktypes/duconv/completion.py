"""Goal completion computed from a session, on the competition's 0–2 scale:
0 = the topics were not both mentioned in the goal's order (A, then B);
1 = they were, but fewer than 2 distinct knowledge triples were used;
2 = they were, and at least 2 distinct triples were used.

Used triples are the ones the agent marked; a session without marks (an imported one) counts a
triple as used when an utterance contains its value."""

from __future__ import annotations

from collections.abc import Sequence

from retrieval.graph.services import text_mentions

MIN_TRIPLES = 2


def first_mention(utterances: Sequence[str], entity: str) -> int | None:
    return next((i for i, text in enumerate(utterances) if text_mentions(text, entity)), None)


def topics_in_order(goal: list[list[str]], utterances: Sequence[str]) -> bool:
    a = first_mention(utterances, goal[0][1])
    b = first_mention(utterances, goal[0][2])
    return a is not None and b is not None and a <= b


def triples_used(
    knowledge: list[list[str]], utterances: Sequence[str], marks: Sequence[Sequence[int] | None] | None = None
) -> set[int]:
    """Indexes of the knowledge triples the conversation used."""
    if marks is not None and any(m is not None for m in marks):
        return {i for m in marks if m for i in m if 0 <= i < len(knowledge)}
    return {i for i, (_, _, value) in enumerate(knowledge) if any(text_mentions(u, value) for u in utterances)}


def goal_completion(
    goal: list[list[str]],
    knowledge: list[list[str]],
    utterances: Sequence[str],
    marks: Sequence[Sequence[int] | None] | None = None,
) -> int:
    if not topics_in_order(goal, utterances):
        return 0
    return 2 if len(triples_used(knowledge, utterances, marks)) >= MIN_TRIPLES else 1
