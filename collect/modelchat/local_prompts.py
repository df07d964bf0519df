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

DEFAULT_PROMPTS = {
    "wow": (
        "You are a friendly person chatting about {topic}. Facts you know:\n{knowledge}\n"
        "Answer the last message in one or two short sentences, using one of the facts."
    ),
    "duconv": (
        "You are a friendly person chatting. Your goal: {goal}. Facts you know:\n{knowledge}\n"
        "Answer in one or two short sentences, using the facts to move towards your goal."
    ),
    "plain": "You are a friendly person chatting about {topic}. Answer in one or two short sentences.",
    "opening": "Hello!",
}
PROMPT_FIELDS = {"wow": {"topic", "knowledge"}, "duconv": {"goal", "knowledge", "topic"}, "plain": {"topic"}, "opening": set()}
WORD = re.compile(r"\w+", re.UNICODE)
# Words a reply must share with a sentence (beyond these) for the sentence to count as used.
MIN_SHARED_WORDS = 3
COMMON = frozenset(
    "a an and are as at be but by for from has have he her his i in is it its of on or our she so that the their them "
    "there they this to was we were what when which who will with you your".split()
)


def _render(options: dict[str, Any], name: str, **fields: str) -> str:
    template = options.get("prompts", {}).get(name, DEFAULT_PROMPTS[name])
    return template.format(**{k: v for k, v in fields.items() if k in PROMPT_FIELDS[name]})


def _goal_text(goal: list[list[str]]) -> str:
    first, *relations = goal
    text = f"talk first about {first[1]}, then about {first[2]}"
    details = "; ".join(", ".join(map(str, triple)) for triple in relations)
    return f"{text} ({details})" if details else text


def messages_build(*, context: dict[str, Any], options: dict[str, Any], knowledge_limit: int) -> tuple[list[dict[str, str]], list[Any]]:
    """The chat messages for `context`, and the knowledge given in the prompt, in order (WoW
    sentences, or DuConv triple ids)."""
    given: list[Any] = []
    if "goal" in context:
        triples = (context.get("knowledge") or [])[:knowledge_limit]
        given = list(range(len(triples)))
        lines = "\n".join(f"- {' '.join(map(str, t))}" for t in triples)
        system = _render(options, "duconv", goal=_goal_text(context["goal"]), knowledge=lines, topic=context.get("topic") or "")
    elif context.get("knowledge") and knowledge_limit:
        lines = []
        for passage in context["knowledge"]:
            for sentence in passage["sentences"]:
                if len(given) < knowledge_limit:
                    given.append(sentence)
                    lines.append(f"- {sentence}")
        system = _render(options, "wow", topic=context.get("topic") or "", knowledge="\n".join(lines))
    else:
        system = _render(options, "plain", topic=context.get("topic") or "")
    messages = [{"role": "system", "content": system}] if system.strip() else []
    history = context.get("history") or []
    # The last utterance is always the evaluator's: roles alternate back from it.
    for index, text in enumerate(history):
        messages.append({"role": "user" if (len(history) - 1 - index) % 2 == 0 else "assistant", "content": text})
    if not history:
        messages.append({"role": "user", "content": _render(options, "opening")})
    return messages, given


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
