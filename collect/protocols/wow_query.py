"""How a Wizard of Wikipedia room queries the knowledge for each turn, from the campaign's
protocol_config:

- `"turn_query": "topic"` (default): the turn's TF-IDF score blended with the chosen topic's and
  its lead paragraph's (retrieval.services.passages_for_query), so that "Could people ever live
  there?" in a room about Mars finds Mars's articles, not Genoa's. `topic_weight` defaults to 1.
- `"turn_query": "turn"`: the turn alone, the original paper's per-turn query.

bench/retrieval_recall.py measures both (docs/retrieval.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TURN_QUERIES = ("topic", "turn")
DEFAULT_TOPIC_WEIGHT = 1.0
MAX_TOPIC_WEIGHT = 100.0


class TurnQueryError(ValueError):
    """protocol_config holds an invalid per-turn query setting; says which and why."""


@dataclass(frozen=True)
class TurnQuery:
    kind: str = "topic"
    topic_weight: float = DEFAULT_TOPIC_WEIGHT

    def weight_for(self, topic: str) -> float:
        """The topic's weight in the query for a room on `topic` (0: the turn alone)."""
        return self.topic_weight if self.kind == "topic" and topic.strip() else 0.0


def turn_query_of(config: Any) -> TurnQuery:
    if not isinstance(config, dict):
        raise TurnQueryError("protocol_config must be a JSON object")
    kind = config.get("turn_query", "topic")
    if kind not in TURN_QUERIES:
        raise TurnQueryError(f"protocol_config.turn_query must be one of {', '.join(TURN_QUERIES)}, not {kind!r}")
    weight = config.get("topic_weight", DEFAULT_TOPIC_WEIGHT)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight <= MAX_TOPIC_WEIGHT:
        raise TurnQueryError(f"protocol_config.topic_weight must be a number above 0 and at most {MAX_TOPIC_WEIGHT:g}, not {weight!r}")
    return TurnQuery(kind=kind, topic_weight=float(weight))


def turn_query_problems(config: Any) -> list[str]:
    try:
        turn_query_of(config)
    except TurnQueryError as error:
        return [str(error)]
    return []
