"""The DuConv variant of model chat (a campaign whose protocol_config has `duconv`): each room gets a
DuConv goal from the campaign's knowledge graph (collect/tasktypes/duconv/config.py); the model is DuConv's
agent and opens the chat, the evaluator is DuConv's user and sees nothing but the chat.

The model gets the goal and its knowledge triples as a DuConv agent sees them, and may say which
triples it used (`knowledge_used`: ids into `knowledge`, or the triples themselves); they are stored
on its message like a human agent's marks. Triples it was not given are left out of the marks."""

from __future__ import annotations

import logging
import random
from typing import Any

from collect.tasktypes.duconv import config as duconv_config
from collect.tasktypes.modelchat.config import ConfigError, config_for
from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.duconv.models import DuConvSession
from collect.tasktypes.duconv.protocol import USER_INSTRUCTION, knowledge_used_check
from collect.tasktypes.wow.protocol import WIZARD

log = logging.getLogger(__name__)

# What the evaluator sees as the topic: like DuConv's user, nothing of the goal.
USER_TOPIC = "Free chat"
OPENING = "Your partner opens the conversation: wait for their first message."


def duconv_session(room: Room) -> DuConvSession | None:
    """The goal of a DuConv model-chat room; None in the Wizard of Wikipedia variant."""
    if config_for(room.campaign).duconv is None:
        return None  # no query for the WoW variant's rooms
    try:
        return room.duconv
    except DuConvSession.DoesNotExist:
        return None


def duconv_room_create(*, campaign: Campaign, rng: random.Random | None = None) -> tuple[Room, bool]:
    """A room with a freshly drawn goal, chatting at once with the model (the agent) to speak
    first; and whether its topics count as seen. Raises ConfigError when no goal can be had."""
    config = config_for(campaign)
    assert config.duconv is not None
    rng = rng or random.Random()
    try:
        goal = duconv_config.goal_draw(
            config.duconv,
            source_id=campaign.knowledge_source_id,
            turn=Room.objects.filter(campaign=campaign).count(),
            rng=rng,
            label=campaign.slug,
        )
    except duconv_config.ConfigError as error:
        raise ConfigError(f"protocol_config.duconv: {error}") from error
    a, b = goal.goal[0][1], goal.goal[0][2]
    room = Room.objects.create(
        campaign=campaign,
        status=RoomStatus.CHATTING,
        first_speaker=WIZARD,
        turns_required=rng.randint(campaign.min_turns, max(campaign.min_turns, campaign.max_turns)),
    )  # no room.topic: the page would show it to the user
    DuConvSession.objects.create(room=room, goal=goal.goal, knowledge=goal.knowledge)
    return room, not ({a, b} & config.unseen_topics)


def user_state() -> dict[str, Any]:
    return {"topic": USER_TOPIC, "persona": None, "instruction": USER_INSTRUCTION}


def duconv_message_fields(*, session: DuConvSession, role: str, frame: dict[str, Any]) -> dict[str, Any]:
    """Nothing is retrieved for these turns: [] marks them as done for the knowledge repair. The
    model's marks (None when it named none) are checked like a human agent's."""
    fields: dict[str, Any] = {"retrieved_passages": []}
    if role == WIZARD and frame.get("knowledge_used") is not None:
        fields["knowledge_used"] = knowledge_used_check(frame["knowledge_used"], shown=len(session.knowledge))
    return fields


def duconv_context(*, session: DuConvSession, after_seq: int) -> dict[str, Any]:
    """The model's context: DuConv's own sample format ({goal, knowledge, history}) and the topic A."""
    history = list(
        Message.objects.filter(room_id=session.room_id, seq__lte=after_seq).order_by("seq").values_list("text", flat=True)
    )
    language = Campaign.objects.filter(rooms__pk=session.room_id).values_list("language", flat=True).first() or "en"
    return {"history": history, "topic": session.goal[0][1], "knowledge": session.knowledge, "goal": session.goal, "language": language}


def triples_named(claimed: Any, knowledge: list[list[str]], *, room_id: Any = None) -> list[int] | None:
    """The ids of the triples a model's `knowledge_used` names (ids in range, or triples given to
    it); anything else is left out, and logged. None when it named nothing."""
    if claimed is None:
        return None
    ids: set[int] = set()
    ignored = []
    for item in claimed:
        if isinstance(item, int) and not isinstance(item, bool) and 0 <= item < len(knowledge):
            ids.add(item)
        elif isinstance(item, list) and item in knowledge:
            ids.add(knowledge.index(item))
        else:
            ignored.append(item)
    if ignored:
        log.warning("room %s: the model named knowledge it was not given, left out: %r", room_id, ignored[:5])
    return sorted(ids)
