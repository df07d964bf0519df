"""WoW's "good wizard" heuristic at review: the wizard used the knowledge (checked a sentence on at
least half of their turns, and their replies share words with what they checked), and no reply
repeats a checked sentence nearly word for word (pasted from the knowledge)."""

from __future__ import annotations

from collect.models import Message
from collect.review.checks import Checks, words
from collect.tasktypes.wow import WIZARD

COPY_OVERLAP = 0.9  # this share of a checked sentence's words repeated in order-free form is a paste
GOOD_WIZARD_CHECKED = 0.5  # the wizard checked a sentence on at least half of their turns...
GOOD_WIZARD_OVERLAP = 0.2  # ...and their replies share words with what they checked


def _checked_text(message: Message) -> str:
    sentence = message.checked_sentence or {}
    values = [v for k, v in sentence.items() if k != "no_passages_used"] if isinstance(sentence, dict) else []
    return str(values[0]) if values else ""


def wizard_checks(checks: Checks, *, messages: list[Message], role: str | None) -> None:
    """Adds checked_share, overlap and pasted (with their flags) for the wizard's messages."""
    if role not in (None, WIZARD):
        return
    wizard_turns, checked, overlaps = 0, 0, []
    for message in messages:
        if message.role != WIZARD or message.checked_sentence is None:
            continue
        wizard_turns += 1
        source = _checked_text(message)
        if not source:
            continue
        checked += 1
        source_words = set(words(source))
        share = len(source_words & set(words(message.text))) / max(len(source_words), 1)
        overlaps.append(share)
        if share >= COPY_OVERLAP and len(source_words) >= 5:
            checks.pasted += 1
    if wizard_turns:
        checks.checked_share = checked / wizard_turns
        checks.overlap = sum(overlaps) / len(overlaps) if overlaps else 0.0
        if checks.checked_share < GOOD_WIZARD_CHECKED or checks.overlap < GOOD_WIZARD_OVERLAP:
            checks.flags.append("wizard did not use the knowledge")
