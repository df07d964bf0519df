"""The knowledge a model's reply used, by one rule whatever runs the model (an OpenAI-compatible
endpoint or a local checkpoint): the facts it cites, [n] after the facts numbered in its prompt
(prompts.py), else the facts it shares the most words with. Small models rarely cite, and an
endpoint's model may not follow the prompt's request to."""

from __future__ import annotations

import re
from typing import Any

from collect.tasktypes.modelchat.prompts import citations_take

CITED = "cited"
OVERLAP = "overlap"
WORD = re.compile(r"\w+", re.UNICODE)
# Words a reply must share with a sentence (beyond these) for the sentence to count as used.
MIN_SHARED_WORDS = 3
COMMON = frozenset(
    "a an and are as at be but by for from has have he her his i in is it its of on or our she so that the their them "
    "there they this to was we were what when which who will with you your".split()
)


def reply_knowledge(text: str, *, given: list[Any], context: dict[str, Any]) -> tuple[str, Any, str]:
    """(the reply without its citations, the knowledge it used or None, how that was decided:
    CITED, OVERLAP, or "" when it used none). `given`: the knowledge in the prompt, in order
    (WoW sentences, or DuConv triple ids)."""
    clean, cited = citations_take(text, numbered=given, duconv="goal" in context)
    if cited is not None:
        return clean, cited, CITED
    guessed = knowledge_guess(clean, given=given, context=context)
    return clean, guessed, OVERLAP if guessed is not None else ""


def _words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in COMMON}


def knowledge_guess(text: str, *, given: list[Any], context: dict[str, Any]) -> Any:
    """WoW: the given sentence sharing the most words with the reply (at least MIN_SHARED_WORDS),
    else None. DuConv: the ids of the given triples whose object appears in the reply, or None."""
    if "goal" in context:
        reply = text.lower()
        triples = context.get("knowledge") or []
        ids = [i for i in given if str(triples[i][2]).strip() and str(triples[i][2]).lower() in reply]
        return ids or None
    reply = _words(text)
    best, shared = None, MIN_SHARED_WORDS - 1
    for sentence in given:
        overlap = len(reply & _words(sentence))
        if overlap > shared:
            best, shared = sentence, overlap
    return best
