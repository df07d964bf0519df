"""Automatic checks on a finished dialogue, shown at review: too-short messages and a configurable
word list (protocol_config["review_words"]) for every task type, then the task type's own
(Protocol.review_checks: e.g. whether the wizard used the knowledge)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from collect import registry
from collect.models import Assignment, Room

WORD = re.compile(r"[a-z0-9']+")
SHORT_WORDS = 3  # fewer words than this is a too-short message


@dataclass
class Checks:
    flags: list[str] = field(default_factory=list)
    checked_share: float | None = None  # share of knowledge turns with a checked sentence (task types that check)
    overlap: float | None = None  # mean word overlap of those turns with what was checked
    short_messages: int = 0
    pasted: int = 0  # messages that repeat the knowledge they checked nearly word for word
    words_found: list[str] = field(default_factory=list)


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def room_checks(room: Room, *, role: str | None = None) -> Checks:
    """Checks of the messages people wrote in one room (all of them, or one role's). A model's
    messages are never judged: what a model pasted is not its evaluator's doing."""
    messages = list(room.messages.filter(sender__in=Assignment.objects.humans()).order_by("seq"))
    config: dict[str, Any] = room.campaign.protocol_config if isinstance(room.campaign.protocol_config, dict) else {}
    listed = {w.lower() for w in config.get("review_words", []) if isinstance(w, str)}
    checks = Checks()
    for message in messages:
        if role is not None and message.role != role:
            continue
        found = words(message.text)
        if len(found) < SHORT_WORDS:
            checks.short_messages += 1
        checks.words_found += sorted(listed & set(found))
    registry.protocol(room.campaign.protocol).review_checks(checks, messages=messages, role=role)
    if checks.short_messages:
        checks.flags.append(f"{checks.short_messages} too-short message(s)")
    if checks.pasted:
        checks.flags.append(f"{checks.pasted} message(s) pasted from the knowledge")
    if checks.words_found:
        checks.flags.append("listed words: " + ", ".join(sorted(set(checks.words_found))))
    return checks
