"""How a Wizard of Wikipedia room queries the knowledge for each turn, from the campaign's
protocol_config:

- `"turn_query": "words"` (default): the turn's own words, as the original collection retrieved
  for each of the last two turns (Dinan et al., 2019, section 3), and first the articles whose
  titles it names ("Did he ever visit Florence?" → Florence); a turn without a content word of its
  own ("yes, I agree") is asked with the topic blended in at `topic_weight`
  (retrieval.services.passages_for_turn).
- `"turn_query": "topic"`: every turn blended with the chosen topic at `topic_weight`
  (retrieval.services.passages_for_query): panels stay near the topic, whatever is asked.
- `"turn_query": "turn"`: the turn alone, by TF-IDF only.

`topic_weight` defaults to 1. bench/panel_questions.py and bench/retrieval_recall.py measure them
(docs/retrieval.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TURN_QUERIES = ("words", "topic", "turn")
DEFAULT_TOPIC_WEIGHT = 1.0
MAX_TOPIC_WEIGHT = 100.0


class TurnQueryError(ValueError):
    """protocol_config holds an invalid per-turn query setting; says which and why."""


@dataclass(frozen=True)
class TurnQuery:
    kind: str = "words"
    topic_weight: float = DEFAULT_TOPIC_WEIGHT

    def weight_for(self, topic: str) -> float:
        """The topic's weight in a turn's query in a room on `topic` (0: the turn alone); for
        "words", in the query of a turn without content words of its own."""
        return self.topic_weight if self.kind in ("words", "topic") and topic.strip() else 0.0


def turn_query_of(config: Any) -> TurnQuery:
    if not isinstance(config, dict):
        raise TurnQueryError("protocol_config must be a JSON object")
    kind = config.get("turn_query", "words")
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
