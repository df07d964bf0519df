"""The chat messages a local checkpoint gets, built from Groundwork's model context
(collect/modelchat/turns.py, duconv.py), and the knowledge its reply used.

One system prompt per kind of chat: `wow` (the topic and the knowledge a human wizard would see),
`duconv` (the goal and the triples) and `plain` (no knowledge: the history alone); `opening` is the
user turn sent when the model speaks first (the DuConv variant). Each is a template with {named}
fields, replaceable per model in options["prompts"]. Small models rarely cite what they used, so the
knowledge a reply used is the given sentence (or triples) it shares the most words with."""

from __future__ import annotations

import re
from typing import Any

from collect.modelchat import prompts

DEFAULT_PROMPTS = {
    "wow": (
        "You are a friendly person chatting about {topic}. Facts you know:\n{knowledge}\n"
        "Answer the last message in {language}, in one or two short sentences, using one of the facts."
    ),
    "duconv": (
        "You are a friendly person chatting. Your goal: {goal}. Facts you know:\n{knowledge}\n"
        "Answer in {language}, in one or two short sentences, using the facts to move towards your goal."
    ),
    "plain": "You are a friendly person chatting about {topic}. Answer in {language}, in one or two short sentences.",
    "opening": "Hello!",
}
WORD = re.compile(r"\w+", re.UNICODE)
# Words a reply must share with a sentence (beyond these) for the sentence to count as used.
MIN_SHARED_WORDS = 3
COMMON = frozenset(
    "a an and are as at be but by for from has have he her his i in is it its of on or our she so that the their them "
    "there they this to was we were what when which who will with you your".split()
)


def messages_build(*, context: dict[str, Any], options: dict[str, Any], knowledge_limit: int) -> tuple[list[dict[str, str]], list[Any]]:
    """The chat messages for `context`, and the knowledge given in the prompt, in order (WoW
    sentences, or DuConv triple ids): prompts.messages_build with these templates, facts unnumbered."""
    return prompts.messages_build(
        context=context, options=options, knowledge_limit=knowledge_limit, defaults=DEFAULT_PROMPTS, numbered=False
    )


def _words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in COMMON}


def knowledge_used(text: str, *, given: list[Any], context: dict[str, Any]) -> Any:
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
