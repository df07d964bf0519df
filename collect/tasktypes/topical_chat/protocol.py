"""Topical-Chat (Gopalakrishnan et al., 2019): two equal partners, agent_1 and agent_2, chat about a
topic, each beside their own reading set (collect/tasktypes/topical_chat/reading_sets.py), in one of
the four knowledge configurations A–D drawn per room from the campaign's `configs`.

agent_1 speaks first. Every message carries the sender's `knowledge_source` (the reading-set keys
it draws on: "FS1"–"FS3", "AS1"–"AS4" where the article is shown, "Personal Knowledge"; one or
more) and `sentiment` (one of the release's eight), and, from the second message on, the sender's
`turn_rating` of the partner's message just before it (Poor … Excellent). Either may end once
both have spoken the turns drawn for the room; then each sends a `conversation_rating`, and the
one whose partner spoke last also rates that last message. Nothing is stored from a frame with a
field out of place: the whole message is refused with a code and a sentence saying which field."""

from __future__ import annotations

import random
from typing import Any

from django.db.models import Count, QuerySet
from django.utils.translation import gettext_lazy

from collect.errors import ProtocolError
from collect.models import Assignment, Campaign, Message, Room, RoomStatus
from collect.protocols.base import Protocol
from collect.tasktypes.topical_chat import NAME
from collect.tasktypes.topical_chat.config import ConfigError, config_for
from collect.tasktypes.topical_chat.models import TopicalConversation, TopicalTurn
from collect.tasktypes.topical_chat.reading_sets import (
    reading_sets_build,
    sources_of,
    topic_article,
    topic_knowledge,
    topic_problems,
)
from collect.tasktypes.topical_chat.release import AGENT_1, AGENT_2, RATINGS, SENTIMENTS, SHORTENED, knowledge_source_sorted
from retrieval.entities import link_source
from retrieval.models import Article

SHOWN_VALUE = 40  # characters of a refused value quoted back in an error


class TopicalChat(Protocol):
    name = NAME
    roles = (AGENT_1, AGENT_2)
    setup_status = RoomStatus.CHATTING
    rating_roles = (AGENT_1, AGENT_2)
    room_template = "topical_chat/room.html"
    role_titles = {AGENT_1: gettext_lazy("Partner 1"), AGENT_2: gettext_lazy("Partner 2")}

    def config_problems(self, campaign: Campaign) -> list[str]:
        # Checked against the knowledge source it names; without one the form says so already.
        return campaign_problems(campaign) if campaign.knowledge_source_id else []

    def room_create(self, *, campaign: Campaign) -> Room:
        config = config_for(campaign)
        rng = random.Random()
        topics = list(config.topics)
        rng.shuffle(topics)
        language = campaign.knowledge_source.language
        for topic in topics:
            article = topic_article(source_id=campaign.knowledge_source_id, title=topic.title)
            knowledge = topic_knowledge(article, topic, config, language=language) if article else None
            if knowledge is not None and not topic_problems(article, topic, config, knowledge):
                break
        else:
            raise ConfigError(f"campaign {campaign.slug!r}: no topic in protocol_config.topics gives full reading sets "
                              f"({'; '.join(campaign_problems(campaign))})")
        letter = rng.choice(config.configs)
        room = Room.objects.create(
            campaign=campaign,
            status=self.setup_status,
            first_speaker=AGENT_1,
            turns_required=rng.randint(campaign.min_turns, max(campaign.min_turns, campaign.max_turns)),
            topic=knowledge.title,
        )
        sets, article_fields = reading_sets_build(knowledge, config=letter, fun_facts=config.fun_facts)
        TopicalConversation.objects.create(
            room=room, conversation_id=f"t_{room.pk}", config=letter, article_url=knowledge.url,
            reading_sets=sets, article=article_fields,
        )
        return room

    def out_of_turn(self, *, role: str, count: int) -> str:
        if count == 0 and role == AGENT_2:
            return "Your partner opens the conversation: wait for their first message."
        return super().out_of_turn(role=role, count=count)

    # --- what each role sees
    def snapshot_extra(self, room: Room) -> dict[str, Any]:
        extra: dict[str, Any] = {"topic": room.topic}
        if room.status == RoomStatus.RATING:
            extra["owed"] = _owed_rating(room)
        return extra

    def state_for_role(self, snapshot: dict[str, Any], role: str) -> dict[str, Any]:
        owed = snapshot.get("owed")
        return {"topic": snapshot["topic"], "turn_to_rate": owed["seq"] if owed and owed["by"] == role else None}

    def knowledge_for(self, *, room: Room, role: str) -> dict[str, Any] | None:
        if role not in self.roles:
            return None
        return reading_set_frame(conversation_of(room), role)

    # --- messages
    def message_reads_panels(self, role: str) -> bool:
        return False

    def message_fields(
        self, *, room: Room, assignment: Assignment, frame: dict[str, Any], count: int, recent: list[Message]
    ) -> dict[str, Any]:
        conversation = conversation_of(room)
        allowed = sources_of(conversation.reading_sets.get(assignment.role, []), conversation.article)
        sources = knowledge_source_check(frame.get("knowledge_source"), allowed=allowed)
        sentiment = sentiment_check(frame.get("sentiment"))
        rating = frame.get("turn_rating")
        if count == 0:
            if rating is not None:
                raise ProtocolError("bad_turn_rating", "There is no message of your partner to rate yet: send your first message without 'turn_rating'.")
        else:
            rating = rating_check(rating, field="turn_rating", code="turn_rating_required" if rating is None else "bad_turn_rating",
                                  missing="Rate your partner's last message ('turn_rating') before you reply.")
            # Turns alternate: message `count` is the partner's, the one this message answers.
            TopicalTurn.objects.filter(room_id=room.pk, seq=count).update(turn_rating=rating)
        TopicalTurn.objects.create(room_id=room.pk, seq=count + 1, knowledge_source=sources, sentiment=sentiment)
        return {}

    def message_event_extra(self, message: Message, role: str) -> dict[str, Any]:
        """The sender sees what they marked on their message; the partner, the rating they gave it."""
        turn = _turn_of(message)
        if turn is None:
            return {}
        if role == message.role:
            return {"knowledge_source": turn.knowledge_source, "sentiment": turn.sentiment}
        return {"turn_rating": turn.turn_rating} if turn.turn_rating else {}

    # --- end of chat: both rate the conversation; the last message's receiver rates it too
    def rating_parse(self, frame: dict[str, Any]) -> dict[str, str | None]:
        conversation = rating_check(frame.get("conversation_rating"), field="conversation_rating", code="bad_rating",
                                    missing="Rate the conversation ('conversation_rating').")
        turn = frame.get("turn_rating")
        return {"conversation_rating": conversation, "turn_rating": None if turn is None else rating_check(turn, field="turn_rating", code="bad_rating")}

    def rate(self, *, room: Room, role: str, rating: dict[str, str | None]) -> None:
        owed = _owed_rating(room)
        owes = owed is not None and owed["by"] == role
        if owes and rating["turn_rating"] is None:
            raise ProtocolError("turn_rating_required", "Rate your partner's last message too ('turn_rating').")
        if not owes and rating["turn_rating"] is not None:
            raise ProtocolError("bad_turn_rating", "You have no message of your partner left to rate: send 'conversation_rating' alone.")
        if owes:
            TopicalTurn.objects.filter(room_id=room.pk, seq=owed["seq"]).update(turn_rating=rating["turn_rating"])
        TopicalConversation.objects.filter(room_id=room.pk).update(**{f"rating_{role}": rating["conversation_rating"]})

    def rated(self, room: Room) -> bool:
        conversation = conversation_of(room)
        return all(conversation.rating_of(agent) for agent in self.rating_roles)

    def rating_histograms(self, *, campaign: Campaign, rooms: QuerySet[Room]) -> list[tuple[str, list[tuple[str, int]]]]:
        """Each agent's conversation ratings, and the turn ratings of the ended rooms' messages."""
        conversations = TopicalConversation.objects.filter(room__in=rooms)
        charts = []
        for agent, label in ((AGENT_1, "Agent 1"), (AGENT_2, "Agent 2")):
            counts = dict(conversations.values_list(f"rating_{agent}").annotate(n=Count("pk")))
            charts.append((f"{label} ratings of the conversation", [(r, counts.get(r, 0)) for r in RATINGS]))
        turns = dict(TopicalTurn.objects.filter(room__in=rooms).values_list("turn_rating").annotate(n=Count("pk")))
        charts.append(("Turn ratings by the partner", [(r, turns.get(r, 0)) for r in RATINGS]))
        return charts


TOPICAL_CHAT = TopicalChat()


def conversation_of(room: Room) -> TopicalConversation:
    # Every change happens with the room row locked (rooms.room_act, _message_create, rating_submit).
    return TopicalConversation.objects.get(room_id=room.pk)


def _turn_of(message: Message) -> TopicalTurn | None:
    """The message's TopicalTurn, read once per message object (the socket asks for each role)."""
    if not hasattr(message, "_topical_turn"):
        message._topical_turn = TopicalTurn.objects.filter(room_id=message.room_id, seq=message.seq).first()  # type: ignore[attr-defined]
    return message._topical_turn  # type: ignore[attr-defined]


def _owed_rating(room: Room) -> dict[str, Any] | None:
    """{"seq", "by"}: the room's last message, while unrated, and the partner who owes its rating."""
    last = Message.objects.filter(room_id=room.pk).order_by("-seq").values_list("seq", "role").first()
    if last is None:
        return None
    seq, role = last
    if TopicalTurn.objects.filter(room_id=room.pk, seq=seq, turn_rating="").exists():
        return {"seq": seq, "by": AGENT_2 if role == AGENT_1 else AGENT_1}
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_VALUE else text[: SHOWN_VALUE - 1] + "…"


def knowledge_source_check(value: Any, *, allowed: list[str]) -> list[str]:
    """A message's knowledge_source: one or more of `allowed`, each once; sorted as the release."""
    if value is None or value == []:
        raise ProtocolError("knowledge_source_required",
                            "Mark what your message draws on ('knowledge_source'): entries of your reading set, or Personal Knowledge.")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProtocolError("bad_knowledge_source", "'knowledge_source' must be a list of reading-set keys, e.g. [\"FS1\", \"Personal Knowledge\"].")
    wrong = [v for v in value if v not in allowed]
    if wrong:
        raise ProtocolError("bad_knowledge_source",
                            f"'knowledge_source': {_shown(wrong[0])} is not in your reading set; choose from {', '.join(allowed)}.")
    if len(set(value)) != len(value):
        raise ProtocolError("bad_knowledge_source", "'knowledge_source' names an entry twice.")
    return knowledge_source_sorted(value)


def sentiment_check(value: Any) -> str:
    if value is None:
        raise ProtocolError("sentiment_required", "Choose the sentiment of your message ('sentiment').")
    if value not in SENTIMENTS:
        raise ProtocolError("bad_sentiment", f"'sentiment' must be one of: {', '.join(SENTIMENTS)}; not {_shown(value)}.")
    return value


def rating_check(value: Any, *, field: str, code: str, missing: str = "") -> str:
    if value is None and missing:
        raise ProtocolError(code, missing)
    if not isinstance(value, str) or value not in RATINGS:
        raise ProtocolError(code, f"'{field}' must be one of: {', '.join(RATINGS)}; not {_shown(value)}.")
    return value


def reading_set_frame(conversation: TopicalConversation, role: str) -> dict[str, Any]:
    """The `reading_set` frame of one agent: their factual sections, the article where they are
    shown it, and the knowledge_source values open to them. The configuration stays hidden."""
    entries = conversation.reading_sets.get(role, [])
    fields = dict(conversation.article)
    sections = [{"key": key, "text": text} for key, text in conversation.article if key.startswith("AS")]
    return {
        "type": "reading_set",
        "facts": [
            {"key": e["key"], "entity": e["entity"], "wiki": e["wiki"],
             "wiki_kind": "shortened" if e["wiki_field"] == SHORTENED else "summarized", "fun_facts": e["fun_facts"]}
            for e in entries
        ],
        "article": {"headline": fields.get("headline", ""), "sections": sections} if sections else None,
        "sources": sources_of(entries, conversation.article),
    }


def campaign_prepare(campaign: Campaign) -> list[str]:
    """Before a campaign goes live: entity-link its whole knowledge source (the entities that name
    a topic, and the fun facts, come from the links) and return what keeps it from opening rooms."""
    if Article.objects.filter(source_id=campaign.knowledge_source_id, entities_linked=False).exists():
        link_source(source_id=campaign.knowledge_source_id)
    return campaign_problems(campaign)


def campaign_problems(campaign: Campaign) -> list[str]:
    """What keeps this campaign's topics from full reading sets, each naming its topic; [] when
    none: for the admin form's clean() and the check before going live."""
    try:
        config = config_for(campaign)
    except ConfigError as error:
        return [str(error)]
    problems, blocked = [], 0
    language = campaign.knowledge_source.language
    for topic in config.topics:
        article = topic_article(source_id=campaign.knowledge_source_id, title=topic.title)
        knowledge = topic_knowledge(article, topic, config, language=language) if article else None
        found = topic_problems(article, topic, config, knowledge)
        problems += found
        blocked += bool(found)
    if blocked == len(config.topics):
        problems.append("no topic can open a room")
    if problems and Article.objects.filter(source_id=campaign.knowledge_source_id, entities_linked=False).exists():
        slug = campaign.knowledge_source.slug
        problems.append(f"the knowledge source {slug!r} is not entity-linked yet, so its topics have only the entities "
                        f"they name: `manage.py topical_chat_prepare --source {slug}` links it")
    return problems
