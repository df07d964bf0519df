"""The paper's headline analysis (Rodriguez et al., 2020, "responses using a user's prior knowledge
increase engagement"): the like rate of assistant messages by the source of the facts they used —
rooted (`known`), aspect (`section`), general (`random`) — and of messages that used none. A
message that used facts of several sources counts once in each."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from collect.models import Campaign, Message

GROUPS = (("known", "Rooted (mentions an entity the user knows)"), ("section", "Aspect (from an assigned aspect)"),
          ("random", "General"), ("none", "No fact used"))


@dataclass(frozen=True)
class Rate:
    key: str
    label: str
    messages: int
    liked: int

    @property
    def rate(self) -> float | None:
        return self.liked / self.messages if self.messages else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """95% Wilson score interval."""
        if not self.messages:
            return None
        n, p, z = self.messages, self.liked / self.messages, 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def percent(self, value: float | None) -> float:
        return round(100 * value, 1) if value is not None else 0.0

    @property
    def rate_percent(self) -> float:
        return self.percent(self.rate)

    @property
    def low_percent(self) -> float:
        return self.percent(self.interval[0]) if self.interval else 0.0

    @property
    def high_percent(self) -> float:
        return self.percent(self.interval[1]) if self.interval else 0.0


@dataclass(frozen=True)
class Analysis:
    rates: list[Rate]
    assistant_messages: int
    liked: int
    dialogues: int


def like_rates_by_source(*, campaigns: Iterable[Campaign]) -> Analysis:
    messages = Message.objects.filter(room__campaign__in=list(campaigns), role="assistant")
    counts = {key: [0, 0] for key, _ in GROUPS}
    total = liked_total = 0
    for liked, facts in messages.values_list("liked", "facts").iterator(chunk_size=2000):
        used = {f.get("source") for f in facts or [] if f.get("used")} & {"known", "section", "random"}
        total += 1
        liked_total += bool(liked)
        for key in used or {"none"}:
            counts[key][0] += 1
            counts[key][1] += bool(liked)
    return Analysis(
        rates=[Rate(key, label, *counts[key]) for key, label in GROUPS],
        assistant_messages=total,
        liked=liked_total,
        dialogues=messages.values("room_id").distinct().count(),
    )
