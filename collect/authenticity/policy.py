"""A campaign's authenticity policy per role (Campaign.authenticity_policy), and the check of a
message against the knowledge it was shown.

The policy is {role: {"paste": "allowed" | "knowledge" | "off", "copy": "allowed" | "refuse",
"timeline": "off" | "on"}}, with "*" for every role not named: "paste" says what the page lets into
the message box (anything; only text from its knowledge panel, as Curiosity's assistant; nothing),
"timeline": "on" keeps each turn's insertion timeline for research (what was inserted and deleted
where, and when: collect/authenticity/timeline.py), which the worker's pages announce before and
during the chat; off by default, when only counts and times are kept. "copy": "refuse" refuses
a message that holds a whole knowledge sentence, as the Wizard of Wikipedia task did (Dinan et al.,
2019: "do not copy the checked sentence as your whole response"). The page says so before sending;
the server refuses such a message with the code `knowledge_copied` and the same explanation, and
the worker gets the text back to rewrite: never dropped silently.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from django.core.exceptions import ValidationError

PASTE_CHOICES = ("allowed", "knowledge", "off")
COPY_CHOICES = ("allowed", "refuse")
TIMELINE_CHOICES = ("off", "on")
DEFAULT = {"paste": "allowed", "copy": "allowed", "timeline": "off"}
_CHOICES = {"paste": PASTE_CHOICES, "copy": COPY_CHOICES, "timeline": TIMELINE_CHOICES}
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
        raise ValidationError("The policy must be an object: {role: {\"paste\": …, \"copy\": …, \"timeline\": …}}.")
    for role, rules in value.items():
        if not isinstance(rules, dict) or set(rules) - set(_CHOICES):
            raise ValidationError(f"{role}: give an object with any of \"paste\", \"copy\" and \"timeline\".")
        for key, choices in _CHOICES.items():
            if rules.get(key, DEFAULT[key]) not in choices:
                raise ValidationError(f"{role}: {key} must be one of {', '.join(choices)}.")


def role_policy(policy: Any, role: str) -> dict[str, str]:
    """The rules for `role` ({"paste", "copy", "timeline"}), defaults filled in; a malformed stored
    policy (edited around the admin) means the defaults, never a refused message."""
    if not isinstance(policy, dict):
        return dict(DEFAULT)
    rules = policy.get(role, policy.get("*", {}))
    rules = rules if isinstance(rules, dict) else {}
    return {key: rules.get(key) if rules.get(key) in choices else DEFAULT[key] for key, choices in _CHOICES.items()}


def timeline_roles(policy: Any, roles: Iterable[str]) -> list[str]:
    """Those of `roles` whose turns' insertion timelines the policy keeps (for the notice the
    worker's pages show before the chat, when the role is not yet known)."""
    return [role for role in roles if role_policy(policy, role)["timeline"] == "on"]


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
