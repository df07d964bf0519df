"""The messages a local checkpoint gets per kind of chat, and the knowledge its reply is counted as
using (the sentence it shares the most words with; the triples whose value it names)."""

from __future__ import annotations

from collect.tasktypes.modelchat.knowledge_use import knowledge_guess
from collect.tasktypes.modelchat.local_prompts import messages_build

KNOWLEDGE = [
    {"title": "Guitar", "sentences": ["The guitar is a fretted musical instrument that usually has six strings.", "It is played with the fingers or a pick."]},
    {"title": "Blues", "sentences": ["The blues originated in the Deep South of the United States around the 1860s."]},
]
WOW = {"history": ["Hi! Do you play?", "A little.", "How many strings does a guitar have?"], "topic": "Guitar", "knowledge": KNOWLEDGE}
DUCONV = {"history": [], "topic": "", "goal": [["START", "Inception", "Christopher Nolan"]],
          "knowledge": [["Inception", "director", "Christopher Nolan"], ["Inception", "year", "2010"]]}


def test_a_wow_prompt_gives_the_knowledge_up_to_the_limit_and_ends_on_the_human() -> None:
    messages, given = messages_build(context=WOW, options={}, knowledge_limit=2)
    assert given == KNOWLEDGE[0]["sentences"]
    assert messages[0]["role"] == "system" and "Guitar" in messages[0]["content"] and given[1] in messages[0]["content"]
    assert KNOWLEDGE[1]["sentences"][0] not in messages[0]["content"]
    assert [m["role"] for m in messages[1:]] == ["user", "assistant", "user"]
    assert messages[-1]["content"] == "How many strings does a guitar have?"


def test_a_duconv_opening_gives_the_goal_and_triples_and_asks_the_model_to_start() -> None:
    messages, given = messages_build(context=DUCONV, options={"prompts": {"opening": "Hi there."}}, knowledge_limit=5)
    assert given == [0, 1]
    assert "talk first about Inception, then about Christopher Nolan" in messages[0]["content"]
    assert "Inception year 2010" in messages[0]["content"]
    assert messages[1:] == [{"role": "user", "content": "Hi there."}]


def test_a_chat_without_knowledge_gets_the_plain_prompt() -> None:
    messages, given = messages_build(context={**WOW, "knowledge": []}, options={"prompts": {"plain": "Talk about {topic}."}}, knowledge_limit=4)
    assert given == [] and messages[0] == {"role": "system", "content": "Talk about Guitar."}


def test_the_knowledge_used_is_the_sentence_the_reply_shares_most_words_with() -> None:
    _, given = messages_build(context=WOW, options={}, knowledge_limit=3)
    assert knowledge_guess("A guitar usually has six strings and frets.", given=given, context=WOW) == given[0]
    assert knowledge_guess("I like music a lot.", given=given, context=WOW) is None


def test_the_triples_used_are_those_whose_value_the_reply_names() -> None:
    assert knowledge_guess("Inception came out in 2010!", given=[0, 1], context=DUCONV) == [1]
    assert knowledge_guess("Hello there.", given=[0, 1], context=DUCONV) is None
