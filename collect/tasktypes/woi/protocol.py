"""Wizard of Internet (Komeili et al., 2022).

The room opens with the apprentice writing a short persona (status `preparing`, personas.py); the
chat header then shows its first line and both see the whole of it. Either may speak first. On
the wizard's turn they type search queries (the `search` action: searching.py runs it off the
event loop) and see the top documents with their sentences; each reply carries the sentences it
used, from one or more documents, or "no sentence used" (panel.selection_parse). Each speaks the
campaign's turns before either may end (the original: at least 4 each); the wizard has 180 s
for a turn, searches included, and the apprentice 120 s (config.py); the apprentice rates the
wizard 1–5 at the end."""

from __future__ import annotations

import random
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy

from collect.errors import ProtocolError
from collect.frames import require_str
from collect.models import Assignment, Campaign, Message, Room, RoomStatus
from collect.protocols.base import Effect, Protocol
from collect.tasktypes.woi import APPRENTICE, NAME, WIZARD, review
from collect.tasktypes.woi.config import config_for, config_problems, timeout_for
from collect.tasktypes.woi.models import WoiDialogue, WoiSearch, WoiTurn
from collect.tasktypes.woi.panel import panel_frame, persona_frame, selection_parse
from collect.tasktypes.woi.personas import MAX_DETAIL_CHARS, MAX_ITEM_CHARS, PersonaError, persona_form, persona_write
from collect.tasktypes.woi.searching import searches_abandon, searches_start

MAX_QUERY_CHARS = 300
MAX_SEARCHES_PER_TURN = 30


class WizardOfInternet(Protocol):
    name = NAME
    roles = (WIZARD, APPRENTICE)
    setup_status = RoomStatus.PREPARING
    rating_roles = (APPRENTICE,)
    rating_title = "Apprentice ratings of the wizard"
    actions = {"write_persona": "write_persona", "search": "search"}
    room_template = "woi/room.html"
    role_titles = {WIZARD: gettext_lazy("The wizard"), APPRENTICE: gettext_lazy("The apprentice")}

    def config_problems(self, campaign: Campaign) -> list[str]:
        return config_problems(campaign)

    def review_checks(self, checks: Any, *, messages: list[Message], role: str | None) -> None:
        review.wizard_checks(checks, messages=messages, role=role)

    def turn_timeout_seconds(self, *, campaign: Campaign, role: str, status: str) -> int:
        if status == RoomStatus.PREPARING:
            return timeout_for(campaign, "persona_timeout_s")
        return timeout_for(campaign, "wizard_turn_timeout_s" if role == WIZARD else "apprentice_turn_timeout_s")

    # --- the persona, before the chat
    def room_create(self, *, campaign: Campaign) -> Room:
        room = super().room_create(campaign=campaign)
        WoiDialogue.objects.create(room=room, persona_form=persona_form(config_for(campaign).persona, random.Random()))
        return room

    def setup_role(self, room: Room) -> str:
        return APPRENTICE  # the apprentice writes their persona

    def snapshot_extra(self, room: Room) -> dict[str, Any]:
        # The chat's header shows the persona's first line (room.topic). The form is read only
        # while the persona is written: the chat's messages never query it.
        if room.status != RoomStatus.PREPARING:
            return {"topic": room.topic, "persona_form": None}
        form = WoiDialogue.objects.filter(room=room).values_list("persona_form", flat=True).first()
        return {"topic": room.topic, "persona_form": form}

    def state_for_role(self, snapshot: dict[str, Any], role: str) -> dict[str, Any]:
        return {"topic": snapshot["topic"], "persona_form": snapshot["persona_form"] if role == APPRENTICE else None}

    def write_persona(self, *, room: Room, assignment: Assignment, frame: dict[str, Any]) -> Effect:
        if assignment.role != APPRENTICE:
            raise ProtocolError("not_allowed", "Your partner writes the persona.")
        if room.status != RoomStatus.PREPARING:
            raise ProtocolError("wrong_state", "The persona has already been written.")
        dialogue = WoiDialogue.objects.get(room=room)
        choice = require_str(frame, "choice", max_chars=MAX_DETAIL_CHARS)
        detail = require_str(frame, "detail", max_chars=MAX_DETAIL_CHARS)
        item = require_str(frame, "item", max_chars=MAX_ITEM_CHARS) if dialogue.persona_form.get("mode") == "template" else ""
        try:
            written = persona_write(dialogue.persona_form, choice=choice, item=item, detail=detail)
        except PersonaError as error:
            raise ProtocolError(error.code, str(error)) from None
        max_uses = config_for(room.campaign).persona.max_uses
        if max_uses and WoiDialogue.objects.filter(room__campaign=room.campaign, persona_key=written.key).count() >= max_uses:
            raise ProtocolError("persona_used", f"The persona “{written.headline}” has been used by others already: choose another.")
        dialogue.persona, dialogue.persona_key, dialogue.persona_written = written.text, written.key, timezone.now()
        dialogue.save(update_fields=["persona", "persona_key", "persona_written"])
        room.topic = written.headline[:300]
        room.status = RoomStatus.CHATTING
        room.save(update_fields=["topic", "status"])
        return Effect(knowledge={WIZARD: panel_frame(room_id=room.pk, after_seq=0), APPRENTICE: persona_frame(written.text)})

    # --- searching, on the wizard's turn
    def search(self, *, room: Room, assignment: Assignment, frame: dict[str, Any]) -> Effect:
        if assignment.role != WIZARD:
            raise ProtocolError("not_allowed", "Only the wizard searches.")
        query = require_str(frame, "query", max_chars=MAX_QUERY_CHARS)
        if room.status != RoomStatus.CHATTING:
            raise ProtocolError("wrong_state", "The chat is not open for searching.")
        count = Message.objects.filter(room=room).count()
        if self.next_role(room, count) != WIZARD:
            raise ProtocolError("not_your_turn", "Search on your turn: wait for your partner's reply.")
        if WoiSearch.objects.filter(room=room, after_seq=count).count() >= MAX_SEARCHES_PER_TURN:
            raise ProtocolError("too_many_searches", f"At most {MAX_SEARCHES_PER_TURN} searches per turn: reply with what you found.")
        WoiSearch.objects.create(room=room, after_seq=count, query=query, backend=config_for(room.campaign).search.backend)
        # The room's state is unchanged: only the wizard's panel says "Searching…".
        return Effect(state=False, knowledge={WIZARD: panel_frame(room_id=room.pk, after_seq=count)})

    def action_relayed(self, *, room_id: str, name: str) -> None:
        if name == "search":
            searches_start(room_id=room_id)

    def room_synced(self, *, room_id: str) -> None:
        # A search a dead process (or worker) left running is run again.
        searches_start(room_id=room_id)

    def knowledge_for(self, *, room: Room, role: str) -> dict[str, Any] | None:
        if room.status not in (RoomStatus.CHATTING, RoomStatus.RATING):
            return None
        if role == WIZARD:
            return panel_frame(room_id=room.pk, after_seq=Message.objects.filter(room=room).count())
        persona = WoiDialogue.objects.filter(room=room).values_list("persona", flat=True).first()
        return persona_frame(persona) if persona else None

    # --- messages
    def message_reads_panels(self, role: str) -> bool:
        return False  # the core's panels (topic passage, retrieved passages) are WoW's, not read here

    def message_fields(
        self, *, room: Room, assignment: Assignment, frame: dict[str, Any], count: int, recent: list[Message]
    ) -> dict[str, Any]:
        if assignment.role != WIZARD:
            return {}
        search, selected = selection_parse(room, count, frame)
        # In the message's own transaction (a statement between its batches: groundwork/round_trips.py),
        # so the selection is stored with the message or not at all.
        WoiTurn.objects.create(room=room, seq=count + 1, search=search, selected=selected)
        searches_abandon(room_id=room.pk, after_seq=count)
        return {}

    # --- the end
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


WOI = WizardOfInternet()
