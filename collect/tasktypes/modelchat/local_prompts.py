"""The chat messages a local checkpoint gets, built from Groundwork's model context
(collect/tasktypes/modelchat/turns.py, duconv.py).

One system prompt per kind of chat: `wow` (the topic and the knowledge a human wizard would see),
`duconv` (the goal and the triples) and `plain` (no knowledge: the history alone); `opening` is the
user turn sent when the model speaks first (the DuConv variant). Each is a template with {named}
fields, replaceable per model in options["prompts"]. The facts are not numbered (small models rarely
cite them): the knowledge a reply used is decided as for every model (knowledge_use.py)."""

from __future__ import annotations

from typing import Any

from collect.tasktypes.modelchat import prompts

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


def messages_build(*, context: dict[str, Any], options: dict[str, Any], knowledge_limit: int) -> tuple[list[dict[str, str]], list[Any]]:
    """The chat messages for `context`, and the knowledge given in the prompt, in order (WoW
    sentences, or DuConv triple ids): prompts.messages_build with these templates, facts unnumbered."""
    return prompts.messages_build(
        context=context, options=options, knowledge_limit=knowledge_limit, defaults=DEFAULT_PROMPTS, numbered=False
    )
