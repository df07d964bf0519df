"""Wizard of Wikipedia (Dinan et al., 2019).

The first speaker picks the topic from their persona's linked topics; the wizard sees the topic
passage and the passages retrieved for the last two turns (each article once) and checks the
sentence used; each speaks a random 4 or 5 turns before either may end; the apprentice rates the
wizard 1–5."""

from __future__ import annotations

import random
from typing import Any

from django.utils.translation import gettext_lazy

from collect.errors import ProtocolError
from collect.frames import parse_checked, require_str
from collect.models import Assignment, Campaign, Message, Room, RoomStatus
from collect.protocols.base import Effect, Protocol
from collect.tasktypes.wow import review
from collect.tasktypes.wow.turn_query import TurnQuery, TurnQueryError, turn_query_of, turn_query_problems
from collect.recent import last_two_messages
from groundwork.round_trips import Param, Prepared, Update, run_together
from retrieval import services as retrieval

from collect.tasktypes.wow import APPRENTICE, WIZARD  # noqa: E402  (the roles, also this module's names)
NO_PASSAGES = {"no_passages_used": "no_passages_used"}


class WizardOfWikipedia(Protocol):
    name = "wow"
    roles = (WIZARD, APPRENTICE)
    setup_status = RoomStatus.CHOOSING_TOPIC
    rating_roles = (APPRENTICE,)
    rating_title = "Apprentice ratings of the wizard"
    reranks_knowledge = True
    retrieves_per_message = True
    actions = {"choose_topic": "choose_topic"}
    room_template = "wow/room.html"
    role_titles = {WIZARD: gettext_lazy("The wizard"), APPRENTICE: gettext_lazy("The apprentice")}

    def config_problems(self, campaign: Campaign) -> list[str]:
        return turn_query_problems(campaign.protocol_config)

    def review_checks(self, checks: Any, *, messages: list[Message], role: str | None) -> None:
        review.wizard_checks(checks, messages=messages, role=role)

    def room_create(self, *, campaign: Campaign) -> Room:
        room = super().room_create(campaign=campaign)
        personas = list(campaign.personas.all())
        if personas:
            room.persona = random.choice(personas)
            room.save(update_fields=["persona"])
        return room

    def snapshot_extra(self, room: Room) -> dict[str, Any]:
        # The persona matters only while the topic is chosen: not read (nor relayed with every
        # message) after that.
        choosing = room.status == RoomStatus.CHOOSING_TOPIC
        persona = {"text": room.persona.text, "topics": topic_options(room)} if choosing and room.persona_id else None
        return {"topic": room.topic, "persona": persona}

    def state_for_role(self, snapshot: dict[str, Any], role: str) -> dict[str, Any]:
        choosing = snapshot["status"] == RoomStatus.CHOOSING_TOPIC
        return {"topic": snapshot["topic"], "persona": snapshot["persona"] if choosing and role == snapshot["first_speaker"] else None}

    def choose_topic(self, *, room: Room, assignment: Assignment, frame: dict[str, Any]) -> Effect:
        topic = require_str(frame, "topic", max_chars=300)
        if room.status != RoomStatus.CHOOSING_TOPIC:
            raise ProtocolError("wrong_state", "The topic has already been chosen.")
        if assignment.role != room.first_speaker:
            raise ProtocolError("not_your_turn", "Your partner chooses the topic.")
        if topic not in topic_options(room):
            raise ProtocolError("bad_topic", "Choose one of the topics offered to you.")
        room.topic = topic
        room.topic_passage = retrieval.topic_passage(source_id=room.campaign.knowledge_source_id, title=topic)
        room.status = RoomStatus.CHATTING
        room.save(update_fields=["topic", "topic_passage", "status"])
        return Effect(knowledge={WIZARD: self.knowledge_for(room=room, role=WIZARD)})

    def message_reads_panels(self, role: str) -> bool:
        return role == WIZARD  # the sentence the wizard checked; the apprentice checks none

    def message_fields(
        self, *, room: Room, assignment: Assignment, frame: dict[str, Any], count: int, recent: list[Message]
    ) -> dict[str, Any]:
        if assignment.role != WIZARD:
            return {}
        if "checked" not in frame:
            raise ProtocolError("checked_required", "Check the knowledge sentence you used, or 'No sentence used'.")
        checked = parse_checked(frame["checked"])
        if checked and "knowledge_seq" in checked:
            # Until retrieval for the partner's last turn has arrived, the panel still shows the
            # previous turn's passages: the same indexes would name other sentences now. Only the
            # retrieval the checked sentence comes from counts: a panel for this turn whose other
            # part is still missing (the wizard's own last message's retrieval, lost with a
            # database connection) names the same sentences by the same indexes once it comes.
            source = recent[-1:] if checked["source"] == "partner" else recent[-2:-1]
            fresh = checked["knowledge_seq"] == count and all(m.retrieved_passages is not None for m in source)
            if not fresh:
                raise ProtocolError("stale_knowledge", "Your knowledge panel has just been updated: check the sentence again.")
        knowledge = knowledge_for_wizard(room, recent)
        sentence, passage = checked_keys(knowledge, checked)
        return {"knowledge_shown": knowledge, "checked_sentence": sentence, "checked_passage": passage}

    def message_event_extra(self, message: Message, role: str) -> dict[str, Any]:
        if role == WIZARD and message.checked_sentence is not None:
            return {"checked_sentence": next(iter(message.checked_sentence.values()))}
        return {}

    def after_message(self, *, message: Message) -> dict[str, dict[str, Any]]:
        """Retrieve for every utterance (7 articles, lead paragraphs: WoW's retrieved_passages), by
        default by its own words and the titles it names (wow_query.py); after the apprentice's
        turn the wizard gets a new panel."""
        if message.retrieved_passages is None:
            passages = turn_passages(message.room, message.text)
            message.retrieved_passages = [{p["title"]: p["sentences"]} for p in passages]
            run_together(_SAVE_RETRIEVED(message=message.pk, passages=message.retrieved_passages))
        if message.role != APPRENTICE:
            return {}
        panel = self.knowledge_for(room=message.room, role=WIZARD)
        if panel["after_seq"] != message.seq:
            # The wizard has answered since (retrieval ran late, e.g. behind a queue): a panel for
            # that turn is out of date, and neither sent nor reranked. The retrieval is kept.
            return {}
        return {WIZARD: panel}

    def knowledge_for(self, *, room: Room, role: str) -> dict[str, Any] | None:
        if role != WIZARD:
            return None
        recent = last_two_messages(room.pk)
        return {
            "type": "knowledge",
            "after_seq": recent[-1].seq if recent else 0,  # seqs run 1, 2, 3, ... with no gaps
            "passages": knowledge_for_wizard(room, recent),
        }

    def rating_parse(self, frame: dict[str, Any]) -> int:
        rating = frame.get("rating")
        if not isinstance(rating, int) or isinstance(rating, bool) or not 1 <= rating <= 5:
            raise ProtocolError("bad_rating", "The rating must be a whole number from 1 to 5.")
        return rating

    def rate(self, *, room: Room, role: str, rating: int) -> None:
        room.rating = rating
        room.save(update_fields=["rating"])

    def rated(self, room: Room) -> bool:
        return room.rating is not None


WOW = WizardOfWikipedia()
roles = WOW.roles


def turn_query_for(config: Any) -> TurnQuery:
    try:
        return turn_query_of(config)
    except TurnQueryError:
        # The admin refuses a bad setting; one stored by other means must not break a live chat.
        return TurnQuery()


def turn_passages(room: Room, text: str) -> list[retrieval.Passage]:
    """The 7 articles retrieved for one utterance of `room`, by the campaign's turn_query."""
    query = turn_query_for(room.campaign.protocol_config)
    where = {"source_id": room.campaign.knowledge_source_id, "source_slug": room.campaign.knowledge_source.slug, "k": 7}
    if query.kind == "words":
        return retrieval.passages_for_turn(**where, text=text, topic=room.topic, topic_weight=query.topic_weight)
    return retrieval.passages_for_query(**where, query=text, topic=room.topic, topic_weight=query.weight_for(room.topic))


def topic_options(room: Room) -> list[str]:
    return list(room.persona.topics) if room.persona_id else []


# Compiled once per connection (groundwork/round_trips.py): the knowledge workers run it for every message.
_SAVE_RETRIEVED = Prepared(lambda: Update(
    Message.objects.filter(pk=Param("message", Message._meta.pk)),
    {"retrieved_passages": Param("passages", Message._meta.get_field("retrieved_passages"))},
))


def knowledge_for_wizard(room: Room, messages: list[Message]) -> list[dict[str, Any]]:
    """What the wizard sees before their next turn: the topic passage, then the passages retrieved
    for the partner's last turn (dialog[i-1]) and for the wizard's own previous turn (dialog[i-2]),
    each article once, where it first comes. A passage keeps its index in its turn's
    retrieved_passages (the export's checked_passage key names it)."""
    passages: list[dict[str, Any]] = []
    if room.topic_passage:
        passages.append({"source": "chosen", "passage": 0, "title": room.topic, "sentences": room.topic_passage})
    shown = {room.topic} if room.topic_passage else set()
    sources = (("partner", messages[-1:]), ("self", messages[-2:-1]))
    for source, tail in sources:
        for message in tail:
            expected = APPRENTICE if source == "partner" else WIZARD
            if message.role != expected:
                continue
            for index, passage in enumerate(message.retrieved_passages or []):
                (title, sentences), = passage.items()
                if title in shown:
                    continue
                shown.add(title)
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
