"""Wizard of Wikipedia (Dinan et al., 2019).

The first speaker picks the topic from their persona's linked topics; the wizard sees the topic
passage and the passages retrieved for the last two turns and checks the sentence used; each speaks
a random 4 or 5 turns before either may end; the apprentice rates the wizard 1–5."""

from __future__ import annotations

import random
from typing import Any

from collect.errors import ProtocolError
from collect.models import Campaign, Message, Room

WIZARD = "wizard"
APPRENTICE = "apprentice"
roles = (WIZARD, APPRENTICE)
rating_role = APPRENTICE
NO_PASSAGES = {"no_passages_used": "no_passages_used"}


def room_create(*, campaign: Campaign) -> Room:
    personas = list(campaign.personas.all())
    return Room.objects.create(
        campaign=campaign,
        first_speaker=random.choice(roles),
        turns_required=random.randint(campaign.min_turns, max(campaign.min_turns, campaign.max_turns)),
        persona=random.choice(personas) if personas else None,
    )


def topic_options(room: Room) -> list[str]:
    return list(room.persona.topics) if room.persona else []


def next_role(room: Room, message_count: int) -> str:
    other = APPRENTICE if room.first_speaker == WIZARD else WIZARD
    return room.first_speaker if message_count % 2 == 0 else other


def knowledge_for_wizard(room: Room, messages: list[Message]) -> list[dict[str, Any]]:
    """What the wizard sees before their next turn: the topic passage, then the passages retrieved
    for the partner's last turn (dialog[i-1]) and for the wizard's own previous turn (dialog[i-2])."""
    passages: list[dict[str, Any]] = []
    if room.topic_passage:
        passages.append({"source": "chosen", "passage": 0, "title": room.topic, "sentences": room.topic_passage})
    sources = (("partner", messages[-1:]), ("self", messages[-2:-1]))
    for source, tail in sources:
        for message in tail:
            expected = APPRENTICE if source == "partner" else WIZARD
            if message.role != expected:
                continue
            for index, passage in enumerate(message.retrieved_passages or []):
                (title, sentences), = passage.items()
                passages.append({"source": source, "passage": index, "title": title, "sentences": sentences})
    return passages


def checked_keys(knowledge: list[dict[str, Any]], checked: dict[str, Any] | None) -> tuple[dict[str, str], dict[str, str]]:
    """(checked_sentence, checked_passage) in the WoW dataset's key format, for a checked sentence
    that must be among the knowledge shown."""
    if checked is None:
        return dict(NO_PASSAGES), dict(NO_PASSAGES)
    for passage in knowledge:
        if passage["source"] == checked["source"] and passage["passage"] == checked["passage"]:
            break
    else:
        raise ProtocolError("bad_checked", "The checked sentence is not in the knowledge you were shown.")
    sentences = passage["sentences"]
    if checked["sentence"] >= len(sentences):
        raise ProtocolError("bad_checked", "The checked sentence is not in the knowledge you were shown.")
    title = passage["title"]
    underscored = title.replace(" ", "_")
    passage_source = "chosen_topic" if checked["source"] == "chosen" else checked["source"]
    sentence_key = f"{checked['source']}_{underscored}_{checked['sentence']}"
    passage_key = f"{passage_source}_{checked['passage']}_{underscored}"
    return {sentence_key: sentences[checked["sentence"]]}, {passage_key: title}
