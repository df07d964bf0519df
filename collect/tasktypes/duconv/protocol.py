"""DuConv (Wu et al., 2019): an agent leads a chat from any start to topic A and then to topic B,
talking from knowledge-graph triples only it sees; the user sees only the chat.

The agent speaks first; it sees the goal path (START → A → B), the relation triples and the
background triples grouped by entity, and marks the triples each message uses (zero or more, by
index into the session's knowledge). The agent may end once both have spoken the campaign's
`min_turns` and both topics were mentioned; the chat ends by itself at `turn_limit` turns each. The
user then rates the agent 1–5."""

from __future__ import annotations

import random
from typing import Any

from django.utils.translation import gettext_lazy

from collect.tasktypes.duconv.completion import first_mention
from collect.tasktypes.duconv.config import campaign_problems, session_goal
from collect.errors import ProtocolError
from collect.models import Assignment, Campaign, Message, Room, RoomStatus
from collect.tasktypes.duconv.models import DuConvSession
from collect.protocols.base import Protocol
from retrieval.graph.services import knowledge_view

AGENT = "agent"
USER = "user"
USER_INSTRUCTION = "Chat naturally with your partner: answer, ask, share your opinions. There is no right answer."


class DuConv(Protocol):
    name = "duconv"
    roles = (AGENT, USER)
    setup_status = RoomStatus.CHATTING
    rating_roles = (USER,)
    room_template = "duconv/room.html"
    role_titles = {AGENT: gettext_lazy("The agent"), USER: gettext_lazy("The user")}

    def config_problems(self, campaign: Campaign) -> list[str]:
        # Checked against the knowledge source it names; without one the form says so already.
        return campaign_problems(campaign) if campaign.knowledge_source_id else []
    rating_title = "User ratings of the agent"

    def room_create(self, *, campaign: Campaign) -> Room:
        rng = random.Random()
        goal = session_goal(campaign, turn=Room.objects.filter(campaign=campaign).count(), rng=rng)
        room = Room.objects.create(
            campaign=campaign,
            status=self.setup_status,
            first_speaker=AGENT,
            turns_required=campaign.min_turns,
        )
        DuConvSession.objects.create(room=room, goal=goal.goal, knowledge=goal.knowledge)
        return room

    def out_of_turn(self, *, role: str, count: int) -> str:
        if count == 0 and role == USER:
            return "The agent opens the conversation: wait for their first message."
        return super().out_of_turn(role=role, count=count)

    # --- what each role sees
    def snapshot_extra(self, room: Room) -> dict[str, Any]:
        session = session_of(room)
        texts = list(Message.objects.filter(room_id=room.pk).order_by("seq").values_list("text", flat=True))
        a, b = session.goal[0][1], session.goal[0][2]
        return {
            "goal_path": ["START", a, b],
            "mentioned": {"a": first_mention(texts, a) is not None, "b": first_mention(texts, b) is not None},
        }

    def state_for_role(self, snapshot: dict[str, Any], role: str) -> dict[str, Any]:
        if role == USER:
            return {"topic": "Free chat", "instruction": USER_INSTRUCTION, "can_end": False}
        chatting = snapshot["status"] == RoomStatus.CHATTING
        enough = min(snapshot["turns"].values()) >= snapshot["turns_required"]
        mentioned = snapshot["mentioned"]
        return {
            "topic": " → ".join(snapshot["goal_path"][1:]),
            "goal_path": snapshot["goal_path"],
            "mentioned": mentioned,
            "can_end": chatting and enough and mentioned["a"] and mentioned["b"],
        }

    def knowledge_for(self, *, room: Room, role: str) -> dict[str, Any] | None:
        if role != AGENT:
            return None
        session = session_of(room)
        return {"type": "goal", **knowledge_view(goal=session.goal, knowledge=session.knowledge)}

    # --- messages
    def message_fields(
        self, *, room: Room, assignment: Assignment, frame: dict[str, Any], count: int, recent: list[Message]
    ) -> dict[str, Any]:
        used = frame.get("knowledge_used")
        if assignment.role != AGENT:
            if used:
                raise ProtocolError("not_allowed", "Only the agent marks knowledge triples; send your message without them.")
            return {}
        return {"knowledge_used": knowledge_used_check([] if used is None else used, shown=len(session_of(room).knowledge))}

    def message_event_extra(self, message: Message, role: str) -> dict[str, Any]:
        if role == AGENT and message.role == AGENT:
            return {"knowledge_used": message.knowledge_used or []}
        return {}

    def end_check(self, *, room: Room, assignment: Assignment) -> None:
        if assignment.role != AGENT:
            raise ProtocolError("not_allowed", "The agent ends the chat once the goal is reached.")
        texts = list(room.messages.order_by("seq").values_list("text", flat=True))
        session = session_of(room)
        missing = [t for t in session.goal[0][1:] if first_mention(texts, t) is None]
        if missing:
            raise ProtocolError("too_early_to_end", f"Lead the chat to {missing[0]} before ending it.")

    # --- end of chat: the user rates the agent
    def rating_parse(self, frame: dict[str, Any]) -> int:
        rating = frame.get("rating")
        if not isinstance(rating, int) or isinstance(rating, bool) or not 1 <= rating <= 5:
            raise ProtocolError("bad_rating", "'rating' must be a whole number from 1 to 5.")
        return rating

    def rate(self, *, room: Room, role: str, rating: int) -> None:
        DuConvSession.objects.filter(room_id=room.pk).update(user_rating=rating)
        room.rating = rating
        room.save(update_fields=["rating"])

    def rated(self, room: Room) -> bool:
        return DuConvSession.objects.filter(room_id=room.pk, user_rating__isnull=False).exists()


DUCONV = DuConv()


def session_of(room: Room) -> DuConvSession:
    return DuConvSession.objects.get(room_id=room.pk)


def knowledge_used_check(used: Any, *, shown: int) -> list[int]:
    """An agent message's marks: distinct ids of triples among the `shown` ones, sorted."""
    if not isinstance(used, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in used):
        raise ProtocolError("bad_frame", "'knowledge_used' must be a list of triple ids (it may be empty).")
    wrong = [i for i in used if not 0 <= i < shown]
    if wrong:
        raise ProtocolError("bad_triple", f"Triple {wrong[0]} was not shown to you: mark only triples from your knowledge panel.")
    return sorted(set(used))
