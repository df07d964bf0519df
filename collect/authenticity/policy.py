"""A campaign's authenticity policy per role (Campaign.authenticity_policy), and the check of a
message against the knowledge it was shown.

The policy is {role: {"paste": "allowed" | "knowledge" | "off", "copy": "allowed" | "refuse"}},
with "*" for every role not named: "paste" says what the page lets into the message box (anything;
only text from its knowledge panel, as Curiosity's assistant; nothing), "copy": "refuse" refuses
a message that holds a whole knowledge sentence, as the Wizard of Wikipedia task did (Dinan et al.,
2019: "do not copy the checked sentence as your whole response"). The page says so before sending;
the server refuses such a message with the code `knowledge_copied` and the same explanation, and
the worker gets the text back to rewrite: never dropped silently.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from django.core.exceptions import ValidationError

PASTE_CHOICES = ("allowed", "knowledge", "off")
COPY_CHOICES = ("allowed", "refuse")
DEFAULT = {"paste": "allowed", "copy": "allowed"}
# A knowledge "sentence" shorter than this many words is a name or a phrase, which a reply may
# well repeat (a title, "the Beatles"): only longer ones count as copied.
MIN_SENTENCE_WORDS = 6
COPY_EXPLANATION = (
    "Your message repeats a whole sentence of the knowledge. Please say it in your own words "
    "(you may keep names and facts)."
)
_WORD = re.compile(r"\w+", re.UNICODE)
_SPLIT = re.compile(r"(?<=[.!?。！？])\s*")


def policy_validate(value: Any) -> None:
    """Django validator of Campaign.authenticity_policy (the admin shows the message)."""
    if not isinstance(value, dict):
        raise ValidationError("The policy must be an object: {role: {\"paste\": …, \"copy\": …}}.")
    for role, rules in value.items():
        if not isinstance(rules, dict) or set(rules) - {"paste", "copy"}:
            raise ValidationError(f"{role}: give an object with \"paste\" and/or \"copy\".")
        if rules.get("paste", "allowed") not in PASTE_CHOICES:
            raise ValidationError(f"{role}: paste must be one of {', '.join(PASTE_CHOICES)}.")
        if rules.get("copy", "allowed") not in COPY_CHOICES:
            raise ValidationError(f"{role}: copy must be one of {', '.join(COPY_CHOICES)}.")


def role_policy(policy: Any, role: str) -> dict[str, str]:
    """The rules for `role` ({"paste", "copy"}), defaults filled in; a malformed stored policy
    (edited around the admin) means the defaults, never a refused message."""
    if not isinstance(policy, dict):
        return dict(DEFAULT)
    rules = policy.get(role, policy.get("*", {}))
    rules = rules if isinstance(rules, dict) else {}
    return {
        "paste": rules.get("paste") if rules.get("paste") in PASTE_CHOICES else DEFAULT["paste"],
        "copy": rules.get("copy") if rules.get("copy") in COPY_CHOICES else DEFAULT["copy"],
    }


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def knowledge_sentences(*values: Any) -> Iterator[str]:
    """Every sentence in the strings nested in `values` (the stored knowledge: lists, {title:
    [sentences]}, {key: sentence}), split at sentence ends."""
    pending = list(values)
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            yield from (s for s in _SPLIT.split(value) if s)
        elif isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)


def copied_sentence(text: str, sentences: Any) -> str | None:
    """The first knowledge sentence of at least MIN_SENTENCE_WORDS words that `text` contains
    whole (compared word by word, ignoring case and punctuation), or None."""
    said = " " + " ".join(words(text)) + " "
    if said.count(" ") <= MIN_SENTENCE_WORDS:
        return None
    for sentence in sentences:
        if len(sentence) * 0.8 > len(text):
            continue  # longer than the message, whatever its punctuation: skipped unsplit (the hot path)
        found = words(sentence)
        if len(found) >= MIN_SENTENCE_WORDS and " " + " ".join(found) + " " in said:
            return sentence
    return None
