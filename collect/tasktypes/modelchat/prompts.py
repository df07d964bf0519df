"""The chat messages an OpenAI-compatible model gets, built from Groundwork's model context
(collect/tasktypes/modelchat/turns.py, duconv.py), and the knowledge its reply says it used.

One system prompt per kind of chat: `wow` (the topic and the knowledge a human wizard would see,
numbered; the model ends its reply with the number of the one sentence it used), `duconv` (the goal
and the numbered triples; the model ends with the numbers of the triples it used) and `plain` (no
knowledge: the history alone, no system prompt by default). `opening` is the user turn sent when the
model speaks first (the DuConv variant). Each is a template with {named} fields, replaceable per
model in options["prompts"]; every template may use {language}, the campaign's language by its
English name (context["language"], a code: "Simplified Chinese" for zh-hans), which the default
prompts tell the model to answer in."""

from __future__ import annotations

import re
import string
from typing import Any

from django.utils.translation import get_language_info

DEFAULT_PROMPTS = {
    "wow": (
        "You are chatting with a person about {topic}. Answer their last message in {language}, in one or "
        "two short, friendly sentences, using one fact from the knowledge below.\n"
        "Knowledge:\n{knowledge}\n"
        "End your reply with the number of the fact you used in brackets, e.g. [2], or [0] if you used none."
    ),
    "duconv": (
        "You lead a conversation with a person. Your goal: {goal}. Move the conversation towards it step "
        "by step, one or two short sentences at a time in {language}, using the facts below.\n"
        "Facts:\n{knowledge}\n"
        "End your reply with the numbers of the facts you used in brackets, e.g. [1][3]."
    ),
    "plain": "",
    "opening": "Please start the conversation in {language}.",
}
PROMPT_FIELDS = {
    "wow": {"topic", "knowledge", "language"}, "duconv": {"goal", "knowledge", "topic", "language"},
    "plain": {"topic", "language"}, "opening": {"language"},
}
CITATION = re.compile(r"\s*\[(\d{1,3})\]")


def template_problems(name: str, template: Any) -> list[str]:
    """What is wrong with a prompt template: an unknown prompt, a field it cannot have, bad braces."""
    if name not in PROMPT_FIELDS:
        return [f"unknown prompt; the prompts are {', '.join(PROMPT_FIELDS)}"]
    if not isinstance(template, str):
        return ["a template must be a string"]
    allowed = PROMPT_FIELDS[name]
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(template) if field is not None]
    except ValueError as error:
        return [f"{error} (write {{{{ and }}}} for literal braces)"]
    wrong = sorted({f for f in fields if f not in allowed})
    if wrong:
        may = ", ".join("{" + f + "}" for f in sorted(allowed)) or "none"
        return [f"unknown field(s) {', '.join('{' + f + '}' for f in wrong)}; it may use {may}"]
    return []


def _render(options: dict[str, Any], defaults: dict[str, str], name: str, **fields: str) -> str:
    template = options.get("prompts", {}).get(name, defaults[name])
    return template.format(**{k: v for k, v in fields.items() if k in PROMPT_FIELDS[name]})


def language_name(code: str) -> str:
    """A language code's English name ("zh-hans": "Simplified Chinese"), or the code if Django has none."""
    try:
        return get_language_info(code)["name"]
    except KeyError:
        return code


def _goal_text(goal: list[list[str]]) -> str:
    """DuConv's goal, START a b + relations, in words."""
    first, *relations = goal
    text = f"talk first about {first[1]}, then about {first[2]}"
    details = "; ".join(", ".join(map(str, triple)) for triple in relations)
    return f"{text} ({details})" if details else text


def messages_build(
    *, context: dict[str, Any], options: dict[str, Any], knowledge_limit: int,
    defaults: dict[str, str] = DEFAULT_PROMPTS, numbered: bool = True,
) -> tuple[list[dict[str, str]], list[Any]]:
    """The chat messages for `context`, and what the numbers [1], [2] … in the prompt stand for
    (knowledge sentences, or triple ids in a DuConv context). `defaults` and `numbered=False`: a
    local checkpoint's templates, its facts listed without numbers (local_prompts.py)."""
    given: list[Any] = []
    language = language_name(context.get("language") or "en")
    if "goal" in context:
        triples = (context.get("knowledge") or [])[:knowledge_limit]
        given = list(range(len(triples)))
        lines = "\n".join(
            f"[{i + 1}] {' | '.join(map(str, t))}" if numbered else f"- {' '.join(map(str, t))}" for i, t in enumerate(triples)
        )
        system = _render(options, defaults, "duconv", goal=_goal_text(context["goal"]), knowledge=lines, topic=context.get("topic") or "",
                         language=language)
    elif context.get("knowledge") and knowledge_limit:
        lines = []
        for passage in context["knowledge"]:
            for sentence in passage["sentences"]:
                if len(given) < knowledge_limit:
                    given.append(sentence)
                    lines.append(f"[{len(given)}] {passage['title']}: {sentence}" if numbered else f"- {sentence}")
        system = _render(options, defaults, "wow", topic=context.get("topic") or "", knowledge="\n".join(lines), language=language)
    else:
        system = _render(options, defaults, "plain", topic=context.get("topic") or "", language=language)
    messages = [{"role": "system", "content": system}] if system.strip() else []
    history = context.get("history") or []
    # The last utterance is always the evaluator's: roles alternate back from it.
    for index, text in enumerate(history):
        messages.append({"role": "user" if (len(history) - 1 - index) % 2 == 0 else "assistant", "content": text})
    if not history:
        messages.append({"role": "user", "content": _render(options, defaults, "opening", language=language)})
    return messages, given


def citations_take(text: str, *, numbered: list[Any], duconv: bool) -> tuple[str, Any]:
    """The reply without its [n] citations, and the knowledge they name: one sentence (the first
    citation, WoW), or triple ids (DuConv); None when it cites nothing it was given."""
    cited = [int(n) for n in CITATION.findall(text)]
    clean = CITATION.sub("", text).strip()
    if duconv:
        ids = list(dict.fromkeys(numbered[n - 1] if n <= len(numbered) else n - 1 for n in cited if n >= 1))
        return clean, ids or None
    if cited and 1 <= cited[0] <= len(numbered):
        return clean, numbered[cited[0] - 1]
    return clean, None
