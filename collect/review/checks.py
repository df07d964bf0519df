"""Automatic checks on a finished dialogue, shown at review. WoW's "good wizard" heuristic (the
wizard used the knowledge: checked sentences, and word overlap with them), too-short messages,
knowledge pasted verbatim, and a configurable word list (protocol_config["review_words"])."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from collect.models import Message, Room

WORD = re.compile(r"[a-z0-9']+")
SHORT_WORDS = 3  # fewer words than this is a too-short message
COPY_OVERLAP = 0.9  # this share of a checked sentence's words repeated in order-free form is a paste
GOOD_WIZARD_CHECKED = 0.5  # WoW: the wizard checked a sentence on at least half of their turns...
GOOD_WIZARD_OVERLAP = 0.2  # ...and their replies share words with what they checked


@dataclass
class Checks:
    flags: list[str] = field(default_factory=list)
    checked_share: float | None = None
    overlap: float | None = None
    short_messages: int = 0
    pasted: int = 0
    words_found: list[str] = field(default_factory=list)


def _words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def _checked_text(message: Message) -> str:
    sentence = message.checked_sentence or {}
    values = [v for k, v in sentence.items() if k != "no_passages_used"] if isinstance(sentence, dict) else []
    return str(values[0]) if values else ""


def room_checks(room: Room, *, role: str | None = None) -> Checks:
    """Checks of one room's messages (all of them, or one role's)."""
    messages = list(room.messages.order_by("seq"))
    config: dict[str, Any] = room.campaign.protocol_config if isinstance(room.campaign.protocol_config, dict) else {}
    listed = {w.lower() for w in config.get("review_words", []) if isinstance(w, str)}
    checks = Checks()
    wizard_turns, checked, overlaps = 0, 0, []
    for message in messages:
        words = _words(message.text)
        mine = role is None or message.role == role
        if mine and len(words) < SHORT_WORDS:
            checks.short_messages += 1
        if mine:
            checks.words_found += sorted(listed & set(words))
        if message.role != "wizard" or message.checked_sentence is None:
            continue
        wizard_turns += 1
        source = _checked_text(message)
        if not source:
            continue
        checked += 1
        source_words = set(_words(source))
        share = len(source_words & set(words)) / max(len(source_words), 1)
        overlaps.append(share)
        if share >= COPY_OVERLAP and len(source_words) >= 5:
            checks.pasted += 1
    if wizard_turns and role in (None, "wizard"):
        checks.checked_share = checked / wizard_turns
        checks.overlap = sum(overlaps) / len(overlaps) if overlaps else 0.0
        if checks.checked_share < GOOD_WIZARD_CHECKED or checks.overlap < GOOD_WIZARD_OVERLAP:
            checks.flags.append("wizard did not use the knowledge")
    if checks.short_messages:
        checks.flags.append(f"{checks.short_messages} too-short message(s)")
    if checks.pasted:
        checks.flags.append(f"{checks.pasted} message(s) pasted from the knowledge")
    if checks.words_found:
        checks.flags.append("listed words: " + ", ".join(sorted(set(checks.words_found))))
    return checks
