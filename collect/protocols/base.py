"""What every collection protocol provides. The room mechanics — pairing, turns, persistence,
acks, resync, presence, ending, rating — are shared; a protocol adds its setup step, what each
role sees, what a message carries, its extra actions and its rating form."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

from django.db.models import Count, QuerySet

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
    # The dashboard's title for Room.rating, naming who rated whom; empty: the protocol stores no
    # rating there (it overrides rating_histograms, or has no rating).
    rating_title = ""
    # Whether `knowledge` frames ({"passages": [...]}) get a second, reranked `knowledge.reranked`.
    reranks_knowledge = False
    # Whether after_message stores retrieval on the message (Message.retrieved_passages): such work
    # must survive a crash between the commit and the retrieval (collect/services/knowledge.py).
    retrieves_per_message = False
    # The worker's chat page (a template of the task type's package).
    room_template = ""
    # What the onboarding page calls each role.
    role_titles: dict[str, str] = {}
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

    def rating_histograms(self, *, campaign: Campaign, rooms: QuerySet[Room]) -> list[tuple[str, list[tuple[str, int]]]]:
        """The dashboard's rating charts for these ended rooms: [(title, [(value "1".."5", rooms)])],
        one per rating the protocol collects, each titled by its roles."""
        if not self.rating_title:
            return []
        return [(self.rating_title, histogram(rooms.exclude(rating=None).values_list("rating").annotate(n=Count("id"))))]

    def room_template_for(self, role: str) -> str:
        """The chat page of a member in `role`."""
        return self.room_template

    def message_relayed(self, *, room_id: str, seq: int) -> None:
        """On the event loop, once message `seq` is stored, acknowledged and broadcast: work that
        answers it (a model partner's reply) starts here, as a task of its own."""

    def action_relayed(self, *, room_id: str, name: str) -> None:
        """On the event loop, once the protocol's action `name` (one of `actions`) has committed and
        its answer and broadcasts are out, and again when a resend of an applied one arrives: work
        that follows from it (a search the wizard typed; the reply a person picked, posted by a
        model partner's seat) starts here, as a task of its own, never on the event loop and never
        inside the action's transaction, which holds the room's lock. It must be idempotent: a
        resend starts it again."""

    def room_synced(self, *, room_id: str) -> None:
        """On the event loop, after a member's `sync`: work owed to the room that a dead process
        may have left undone (a model reply that never came) is started again here."""

    def turn_timeout_seconds(self, *, campaign: Campaign, role: str, status: str) -> int:
        """Seconds the member in `role` has for their move in a room of `status` (`chatting`: the
        reply; the setup status: the setup step) before the sweep ends the room as stalled
        (collect.lifecycle.sweep), counted from the room's last step. Default: the campaign's
        turn_timeout_seconds for every role and step; a protocol may give each role its own."""
        return campaign.turn_timeout_seconds

    def config_problems(self, campaign: Campaign) -> list[str]:
        """What is wrong with an unsaved campaign's protocol_config (and knowledge source), each
        problem a sentence; [] when the campaign can open rooms. The admin form shows them."""
        return []

    def review_checks(self, checks: Any, *, messages: list[Message], role: str | None) -> None:
        """Add this task type's automatic review checks of people's `messages` (one role's, or all
        when `role` is None) to `checks` (collect.review.checks.Checks)."""

    def action(self, name: str) -> Callable[..., Effect] | None:
        method = self.actions.get(name)
        return getattr(self, method) if method else None


def histogram(counts: Any, values: range = range(1, 6)) -> list[tuple[str, int]]:
    """[(value, n)] for every value of a 1–5 scale, from (value, n) rows (a grouped count)."""
    found = dict(counts)
    return [(str(v), found.get(v, 0)) for v in values]
