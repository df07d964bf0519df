"""Curiosity (Rodriguez et al., 2020): a curious user and an assistant talk about a topic.

Before chatting (status `preparing`) the user marks which of ~15 related entities they know. The
user sees the topic and two aspects and may once announce switching to the second; they may like
the assistant's messages. The assistant sees a topic summary and a bank of nine facts re-ranked on
every turn (collect/tasktypes/curiosity/facts.py) and marks the facts each message uses. Both rate the dialog
and their partner 1–5 at the end. The user speaks first."""

from __future__ import annotations

import random
from typing import Any

from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext_lazy

from collect.tasktypes.curiosity.config import ConfigError, config_for
from collect.tasktypes.curiosity.facts import bank_select, dropped_fids, topic_article, topic_facts
from collect.tasktypes.curiosity.prior import (
    entities_ready,
    related_entities_sample,
    related_entity_titles,
    source_prepare,
    topic_mentions,
    topic_sections,
)
from collect.errors import ProtocolError
from collect.frames import MAX_SEQ, require_int, require_str
from collect.models import Assignment, Campaign, Message, Room, RoomStatus
from collect.tasktypes.curiosity.models import CuriosityDialog
from collect.protocols.base import Effect, Protocol, histogram
from retrieval.models import Sentence

USER = "user"
ASSISTANT = "assistant"
RATING_FIELDS = {"dialog_rating": "dialog_rating", "partner_rating": "other_agent_rating"}


class Curiosity(Protocol):
    name = "curiosity"
    roles = (USER, ASSISTANT)
    setup_status = RoomStatus.PREPARING
    rating_roles = (USER, ASSISTANT)
    room_template = "curiosity/room.html"
    role_titles = {USER: gettext_lazy("The user"), ASSISTANT: gettext_lazy("The assistant")}

    def config_problems(self, campaign: Campaign) -> list[str]:
        # Checked against the knowledge source it names; without one the form says so already.
        return campaign_problems(campaign) if campaign.knowledge_source_id else []
    actions = {"mark_known": "mark_known", "switch_aspect": "switch_aspect", "like": "like"}

    # --- the room and what each role sees
    def room_create(self, *, campaign: Campaign) -> Room:
        config = config_for(campaign)
        rng = random.Random()
        article, aspects = _pick_topic(campaign, config, rng)
        entities_ready(article)
        room = Room.objects.create(
            campaign=campaign,
            status=self.setup_status,
            first_speaker=USER,
            turns_required=rng.randint(campaign.min_turns, max(campaign.min_turns, campaign.max_turns)),
            topic=article.title,
        )
        dialog = CuriosityDialog.objects.create(
            room=room,
            seed=rng.randrange(2**31),
            summary=article.lead,
            aspects=rng.sample(aspects, config.aspects_per_dialog),
            related_entities=related_entities_sample(
                article, count=config.related_entities, buckets=config.popularity_buckets, rng=rng
            ),
            tag=config.tag,
        )
        CuriosityDialog.objects.filter(pk=dialog.pk).update(dialog_id=dialog.pk)
        return room

    def setup_role(self, room: Room) -> str:
        return USER  # the user marks the entities they know

    def snapshot_extra(self, room: Room) -> dict[str, Any]:
        dialog = dialog_of(room)
        return {
            "topic": room.topic,
            "summary": dialog.summary,
            "aspects": dialog.aspects,
            "current_aspect": current_aspect(dialog),
            "switched": dialog.second_aspect is not None,
            "related_entities": dialog.related_entities,
            "known_entities": dialog.known_entities,
        }

    def state_for_role(self, snapshot: dict[str, Any], role: str) -> dict[str, Any]:
        if role == ASSISTANT:
            # Aspects and known entities stay hidden: they would reveal the fact categories.
            return {"topic": snapshot["topic"], "summary": snapshot["summary"]}
        preparing = snapshot["status"] == RoomStatus.PREPARING
        return {
            "topic": snapshot["topic"],
            "aspects": snapshot["aspects"],
            "current_aspect": snapshot["current_aspect"],
            "can_switch": snapshot["status"] == RoomStatus.CHATTING and not snapshot["switched"],
            "related_entities": snapshot["related_entities"] if preparing else [],
            "known_entities": snapshot["known_entities"],
        }

    # --- actions (each runs in one transaction with the room locked)
    def mark_known(self, *, room: Room, assignment: Assignment, frame: dict[str, Any]) -> Effect:
        _require_user(assignment, "Only the user marks the entities they know.")
        if room.status != RoomStatus.PREPARING:
            raise ProtocolError("wrong_state", "The entities have already been marked.")
        dialog = dialog_of(room)
        marked = frame.get("entities")
        if not isinstance(marked, list) or not all(isinstance(e, str) for e in marked):
            raise ProtocolError("bad_frame", "'entities' must be a list of entity names (it may be empty).")
        unknown = [e for e in marked if e not in dialog.related_entities]
        if unknown:
            raise ProtocolError("bad_entities", f"Mark only entities from the list you were shown (not {unknown[0]!r}).")
        dialog.known_entities = [e for e in dialog.related_entities if e in set(marked)]
        dialog.marked_at = timezone.now()
        dialog.first_aspect = dialog.aspects[0] if dialog.aspects else None
        dialog.save(update_fields=["known_entities", "marked_at", "first_aspect"])
        room.status = RoomStatus.CHATTING
        room.save(update_fields=["status"])
        return Effect(knowledge={ASSISTANT: facts_frame(room, bank_ensure(room, dialog, count=0))})

    def switch_aspect(self, *, room: Room, assignment: Assignment, frame: dict[str, Any]) -> Effect:
        _require_user(assignment, "Only the user switches aspects.")
        aspect = require_str(frame, "aspect", max_chars=300)
        if room.status != RoomStatus.CHATTING:
            raise ProtocolError("wrong_state", "The chat is not open.")
        dialog = dialog_of(room)
        if dialog.second_aspect is not None:
            raise ProtocolError("already_switched", f"You have already switched to {dialog.second_aspect!r}.")
        others = [a for a in dialog.aspects if a != dialog.first_aspect]
        if aspect not in others:
            raise ProtocolError("bad_aspect", f"{aspect!r} is not your other aspect; you can switch to {others[0]!r}.")
        count = Message.objects.filter(room_id=room.pk).count()
        dialog.second_aspect = aspect
        dialog.switched_at = timezone.now()
        dialog.switched_after_seq = count
        dialog.save(update_fields=["second_aspect", "switched_at", "switched_after_seq"])
        return Effect(knowledge={ASSISTANT: facts_frame(room, bank_ensure(room, dialog, count=count))})

    def like(self, *, room: Room, assignment: Assignment, frame: dict[str, Any]) -> Effect:
        _require_user(assignment, "Only the user can like messages.")
        seq = require_int(frame, "seq", low=1, high=MAX_SEQ)
        liked = frame.get("liked", True)
        if not isinstance(liked, bool):
            raise ProtocolError("bad_frame", "'liked' must be true or false.")
        if room.status not in (RoomStatus.CHATTING, RoomStatus.RATING):
            raise ProtocolError("wrong_state", "Messages can be liked only during the chat.")
        message = Message.objects.filter(room_id=room.pk, seq=seq).first()
        if message is None:
            raise ProtocolError("bad_like", f"There is no message {seq} in this chat.")
        if message.role != ASSISTANT:
            raise ProtocolError("bad_like", "Only the assistant's messages can be liked.")
        message.liked = liked
        message.liked_at = timezone.now() if liked else None
        message.save(update_fields=["liked", "liked_at"])
        event = {"type": "liked", "seq": seq, "liked": liked}
        return Effect(state=False, knowledge={USER: event, ASSISTANT: event})

    # --- messages
    def message_fields(
        self, *, room: Room, assignment: Assignment, frame: dict[str, Any], count: int, recent: list[Message]
    ) -> dict[str, Any]:
        if assignment.role != ASSISTANT:
            return {"facts": []}
        used = frame.get("used_facts", [])
        if not isinstance(used, list) or not all(isinstance(f, int) and not isinstance(f, bool) for f in used):
            raise ProtocolError("bad_frame", "'used_facts' must be a list of fact ids.")
        bank = bank_ensure(room, dialog_of(room), count=count)
        shown = {fact["fid"] for fact in bank["facts"]}
        if not set(used) <= shown:
            raise ProtocolError("bad_fact", "You can only use facts from the fact bank shown for this turn.")
        return {"facts": [{"fid": f["fid"], "used": f["fid"] in used, "source": f["source"]} for f in bank["facts"]]}

    def message_event_extra(self, message: Message, role: str) -> dict[str, Any]:
        if message.role != ASSISTANT:
            return {}
        extra: dict[str, Any] = {"liked": message.liked}
        if role == ASSISTANT:
            extra["used_facts"] = [f["fid"] for f in message.facts or [] if f.get("used")]
        return extra

    def after_message(self, *, message: Message) -> dict[str, dict[str, Any]]:
        if message.role != USER:
            return {}
        frame = _bank_now(message.room_id)
        return {ASSISTANT: frame} if frame else {}

    def knowledge_for(self, *, room: Room, role: str) -> dict[str, Any] | None:
        if role != ASSISTANT or room.status != RoomStatus.CHATTING:
            return None
        return _bank_now(room.pk)

    # --- end of chat: both rate the dialog and their partner
    def rating_histograms(self, *, campaign: Campaign, rooms: Any) -> list[tuple[str, list[tuple[str, int]]]]:
        """Each role's two ratings, as Curiosity collects them on its dialog (not Room.rating)."""
        dialogs = CuriosityDialog.objects.filter(room__in=rooms)
        charts = []
        for role, partner in ((USER, ASSISTANT), (ASSISTANT, USER)):
            for column, what in (("dialog_rating", "the dialog"), ("other_agent_rating", f"the {partner}")):
                field = f"{role}_{column}"
                counts = dialogs.exclude(**{field: None}).values_list(field).annotate(n=Count("pk"))
                charts.append((f"{role.capitalize()} ratings of {what}", histogram(counts)))
        return charts

    def rating_parse(self, frame: dict[str, Any]) -> dict[str, int]:
        ratings = {}
        for key in RATING_FIELDS:
            value = frame.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5:
                raise ProtocolError("bad_rating", f"'{key}' must be a whole number from 1 to 5.")
            ratings[key] = value
        return ratings

    def rate(self, *, room: Room, role: str, rating: dict[str, int]) -> None:
        dialog = dialog_of(room)
        fields = [f"{role}_{column}" for column in RATING_FIELDS.values()]
        for key, name in zip(RATING_FIELDS, fields):
            setattr(dialog, name, rating[key])
        dialog.save(update_fields=fields)

    def rated(self, room: Room) -> bool:
        dialog = dialog_of(room)
        return all(
            getattr(dialog, f"{role}_{column}") is not None for role in self.rating_roles for column in RATING_FIELDS.values()
        )


CURIOSITY = Curiosity()
roles = CURIOSITY.roles


def _require_user(assignment: Assignment, message: str) -> None:
    if assignment.role != USER:
        raise ProtocolError("not_allowed", message)


def _pick_topic(campaign: Campaign, config: Any, rng: random.Random) -> tuple[Any, list[str]]:
    """A random topic of the campaign that the knowledge source has, with enough aspects."""
    topics = list(config.topics)
    rng.shuffle(topics)
    for topic in topics:
        article = topic_article(source_id=campaign.knowledge_source_id, title=topic.title)
        if article is None:
            continue
        aspects = list(topic.aspects) or topic_sections(article)
        if len(aspects) >= config.aspects_per_dialog:
            return article, aspects
    raise ConfigError(
        f"campaign {campaign.slug!r}: no topic in protocol_config.topics is an article of its knowledge source "
        f"with at least {config.aspects_per_dialog} aspects"
    )


def campaign_prepare(campaign: Campaign) -> list[str]:
    """Before a campaign goes live: entity-link its whole knowledge source (so that entity
    popularity can fall back on in-links) and return what keeps it from opening rooms."""
    source_prepare(campaign.knowledge_source_id)
    return campaign_problems(campaign)


def campaign_problems(campaign: Campaign) -> list[str]:
    """What keeps this campaign from opening rooms, or would open them hollow (a topic without
    entities to mark or short of the nine-fact bank), each naming its topic; [] when none: for an
    admin form's clean() or a check before going live. Pairing itself raises ConfigError only when
    no topic has an article with enough aspects."""
    try:
        config = config_for(campaign)
    except ConfigError as error:
        return [str(error)]
    problems, blocked = [], 0
    for topic in config.topics:
        article = topic_article(source_id=campaign.knowledge_source_id, title=topic.title)
        if article is None:
            problems.append(f"topic {topic.title!r} is not an article of the knowledge source")
            blocked += 1
        elif len(aspects := list(topic.aspects) or topic_sections(article)) < config.aspects_per_dialog:
            problems.append(f"topic {topic.title!r} has fewer than {config.aspects_per_dialog} aspects (sections)")
            blocked += 1
        else:
            problems += [f"topic {topic.title!r} {problem}" for problem in _hollow_parts(article, aspects, config)]
    if blocked == len(config.topics):
        problems.append("no topic can open a room")
    return problems


def _hollow_parts(article: Any, aspects: list[str], config: Any) -> list[str]:
    """What a room on this topic would open without (it opens, but hollow): entities for the user to
    mark (related_entity_titles), or facts for the full bank (facts_per_category rooted, of the aspects, and general; each
    fact in one place). Counted in the database: a campaign may have thousands of topics."""
    entities_ready(article)
    per = config.facts_per_category
    sentences = Sentence.objects.filter(article=article)
    facts = sentences.count()
    of_aspects = sentences.filter(section__in=aspects).count()
    entities = related_entity_titles(article)
    rooted = topic_mentions(article).filter(title__in=entities).values("sentence").distinct().count()
    parts = []
    if not entities:
        parts.append("has no entities for the user to mark (its facts name no other article)")
    if rooted < per or of_aspects < per or facts < 3 * per:
        parts.append(
            f"cannot fill the fact bank of {3 * per}: {facts} facts, {rooted} mentioning an entity "
            f"(rooted; {per} needed), {of_aspects} in its aspects' sections ({per} needed)"
        )
    return parts


def dialog_of(room: Room) -> CuriosityDialog:
    # Every change to a dialog happens with its room row locked (rooms.room_act, _message_create,
    # rating_submit, _bank_now), which serialises them; the dialog row needs no lock of its own.
    return CuriosityDialog.objects.get(room_id=room.pk)


def current_aspect(dialog: CuriosityDialog) -> str | None:
    return dialog.second_aspect or dialog.first_aspect


def bank_ensure(room: Room, dialog: CuriosityDialog, *, count: int) -> dict[str, Any]:
    """The assistant's fact bank for the turn after `count` messages (stored, so that every server
    process shows and checks the same one); computed when the stored one is for another turn or
    from before the aspect switch. Call with the room locked."""
    switched = dialog.second_aspect is not None
    bank = dialog.bank
    if bank and bank.get("after_seq") == count and bank.get("switched") == switched:
        return bank
    config = config_for(room.campaign)
    article = topic_article(source_id=room.campaign.knowledge_source_id, title=room.topic)
    facts = topic_facts(article, language=room.campaign.knowledge_source.language) if article else None
    since = dialog.switched_after_seq if switched else 0
    recent = Message.objects.filter(room_id=room.pk, seq__gt=since, seq__lte=count).order_by("-seq")
    context = " ".join(reversed(list(recent.values_list("text", flat=True)[: config.context_turns])))
    current = current_aspect(dialog)
    shown = Message.objects.filter(room_id=room.pk, role=ASSISTANT, seq__lte=count).values_list("facts", flat=True)
    selected = []
    if facts is not None:
        selected = bank_select(
            facts,
            # Right after the start or a switch there is no context yet: the aspect's name is it.
            context=context or (current or ""),
            known=dialog.known_entities,
            aspects=[current, *[a for a in dialog.aspects if a != current]] if current else list(dialog.aspects),
            dropped=dropped_fids(shown, after=config.drop_after_shown),
            per_category=config.facts_per_category,
            seed=dialog.seed,
            shuffle_seed=dialog.seed + 7919 * count + int(switched),
        )
    bank = {"after_seq": count, "switched": switched, "facts": selected}
    dialog.bank = bank
    dialog.save(update_fields=["bank"])
    return bank


def facts_frame(room: Room, bank: dict[str, Any]) -> dict[str, Any]:
    """The assistant's `facts` frame: each fact's id, text, article, section ("" = the lead) and
    context (what it is shown after, "" when it reads on its own); the categories stay hidden."""
    return {
        "type": "facts",
        "after_seq": bank["after_seq"],
        "facts": [
            {"fid": f["fid"], "text": f["text"], "article": f.get("article", room.topic), "section": f.get("section", ""),
             "context": f.get("context", "")}
            for f in bank["facts"]
        ],
    }


def _bank_now(room_id: Any) -> dict[str, Any] | None:
    with transaction.atomic():
        room = Room.objects.select_for_update(of=("self",)).select_related("campaign__knowledge_source").get(pk=room_id)
        if room.status != RoomStatus.CHATTING:
            return None
        dialog = dialog_of(room)
        return facts_frame(room, bank_ensure(room, dialog, count=Message.objects.filter(room_id=room_id).count()))


