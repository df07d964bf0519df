"""What every collection protocol provides. The room mechanics — pairing, turns, persistence,
acks, resync, presence, ending, rating — are shared; a protocol adds its setup step, what each
role sees, what a message carries, its extra actions and its rating form."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

from collect.models import Campaign, Message, Room, RoomStatus


@dataclass
class Effect:
    """What an action changed, so the consumer knows what to broadcast once it has committed."""

    state: bool = True
    knowledge: dict[str, dict[str, Any]] = field(default_factory=dict)  # role → knowledge frame
    repeated: bool = False  # a resend of an action applied before: nothing changed


class Protocol:
    name = ""
    roles: tuple[str, str] = ("", "")
    setup_status: str = RoomStatus.CHATTING
    rating_roles: tuple[str, ...] = ()
    # Whether `knowledge` frames ({"passages": [...]}) get a second, reranked `knowledge.reranked`.
    reranks_knowledge = False
    # Whether after_message stores retrieval on the message (Message.retrieved_passages): such work
    # must survive a crash between the commit and the retrieval (collect/services/knowledge.py).
    retrieves_per_message = False
    # Whether the partner seat may be a model that replies after each message (model_chat).
    partner_may_be_model = False
    # frame type → method name; called as method(room=<locked>, assignment=, frame=) -> Effect
    # inside one transaction
    actions: dict[str, str] = {}

    def room_create(self, *, campaign: Campaign) -> Room:
        return Room.objects.create(
            campaign=campaign,
            status=self.setup_status,
            first_speaker=random.choice(self.roles),
            turns_required=random.randint(campaign.min_turns, max(campaign.min_turns, campaign.max_turns)),
        )

    def partner_of(self, role: str) -> str:
        return self.roles[1] if role == self.roles[0] else self.roles[0]

    def setup_role(self, room: Room) -> str:
        """Whose move it is before the chat opens (WoW: the first speaker chooses the topic)."""
        return room.first_speaker

    def next_role(self, room: Room, message_count: int) -> str:
        return room.first_speaker if message_count % 2 == 0 else self.partner_of(room.first_speaker)

    def out_of_turn(self, *, role: str, count: int) -> str:
        """What a member who speaks out of turn is told (`count`: messages so far)."""
        return "Wait for your partner's reply."

    def snapshot_extra(self, room: Room) -> dict[str, Any]:
        """Protocol facts about the room, for every member (filtered per role by state_for_role)."""
        return {}

    def state_for_role(self, snapshot: dict[str, Any], role: str) -> dict[str, Any]:
        return {}

    def message_reads_panels(self, role: str) -> bool:
        """Whether message_fields, for a message of `role`, reads the panels' text: the room's
        topic_passage and the recent messages' retrieved_passages. When it does not, the message
        path leaves them unread (deferred on the objects it passes)."""
        return True

    def message_fields(
        self, *, room: Room, assignment: Any, frame: dict[str, Any], count: int, recent: list[Message]
    ) -> dict[str, Any]:
        """Validate the protocol's part of a message frame; the extra Message fields to store."""
        return {}

    def message_event_extra(self, message: Message, role: str) -> dict[str, Any]:
        """Protocol fields of a relayed message that the member in `role` may see."""
        return {}

    def after_message(self, *, message: Message) -> dict[str, dict[str, Any]]:
        """Slow work after a message has committed (retrieval); knowledge frames per role."""
        return {}

    def knowledge_for(self, *, room: Room, role: str) -> dict[str, Any] | None:
        return None

    def end_check(self, *, room: Room, assignment: Any) -> None:
        """Protocol rules for ending a chat beyond the turn minimum (raise ProtocolError)."""

    def rating_parse(self, frame: dict[str, Any]) -> Any:
        """Validate one member's end-of-chat form (raises ProtocolError "bad_rating")."""
        return None

    def rate(self, *, room: Room, role: str, rating: Any) -> None:
        """Store one member's parsed end-of-chat form."""

    def rated(self, room: Room) -> bool:
        return True

    def action(self, name: str) -> Callable[..., Effect] | None:
        method = self.actions.get(name)
        return getattr(self, method) if method else None
