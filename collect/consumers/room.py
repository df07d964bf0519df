"""The chat room socket. Thin: every change is one service call in its own transaction; frames go
out only after that transaction has committed."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.db import close_old_connections

from collect import selectors
from collect.consumers.base import GroundworkConsumer
from collect.errors import ProtocolError
from collect.frames import parse_checked, require_int, require_str
from collect.models import Assignment
from collect.protocols import wow
from collect.services import rooms
from django.conf import settings
from retrieval.services import IndexNotBuilt

log = logging.getLogger(__name__)


def group_for(room_id: Any) -> str:
    return f"room.{room_id}"


def _off_loop(func: Any) -> Any:
    """Run slow work (retrieval) in the thread pool, not on the event loop and not on the single
    thread that serialises database_sync_to_async calls, so other rooms are not held up."""

    def call(**kwargs: Any) -> Any:
        close_old_connections()
        try:
            return func(**kwargs)
        finally:
            close_old_connections()

    return sync_to_async(call, thread_sensitive=False)


# One thread hop per step of the message path: each helper does all the database work of its step.
@database_sync_to_async
def _post(**kwargs: Any) -> tuple[rooms.Posted, dict[str, Any] | None]:
    posted = rooms.message_post(**kwargs)
    return posted, selectors.room_snapshot(kwargs["room_id"]) if posted.created else None


def _retrieve(*, message_id: int, room_id: str) -> dict[str, Any] | None:
    """Retrieve for the new message; after the apprentice's turn, the wizard's new knowledge."""
    message = rooms.message_retrieve(message_id=message_id)
    return selectors.wizard_knowledge(room_id=room_id) if message.role == wow.APPRENTICE else None


class RoomConsumer(GroundworkConsumer):
    member: Assignment | None = None
    partner_timer: asyncio.Task | None = None

    async def join(self) -> None:
        self.room_id = str(self.scope["url_route"]["kwargs"]["room_id"])
        self.member = await database_sync_to_async(rooms.member_get)(room_id=self.room_id, worker_id=self.worker_id)
        if self.member is None:
            await self.refuse_member()
            return
        self.role = self.member.role
        self.grace = float(self.member.campaign.disconnect_grace_seconds)
        await self.channel_layer.group_add(group_for(self.room_id), self.channel_name)
        await database_sync_to_async(rooms.member_presence)(assignment_id=self.member.pk, connected=True)
        self.partner_online = await database_sync_to_async(selectors.partner_connected)(room_id=self.room_id, role=self.role)
        await self.send_state()
        await self.broadcast({"type": "room.presence", "role": self.role, "connected": True})
        if not self.partner_online:
            self.watch_partner()

    async def disconnect(self, code: int) -> None:
        if self.partner_timer:
            self.partner_timer.cancel()
        if self.member is None:
            return
        await self.channel_layer.group_discard(group_for(self.room_id), self.channel_name)
        await database_sync_to_async(rooms.member_presence)(assignment_id=self.member.pk, connected=False)
        await self.broadcast({"type": "room.presence", "role": self.role, "connected": False})

    # --- inbound frames
    async def handle(self, frame: dict[str, Any]) -> None:
        if self.member is None:
            raise ProtocolError("not_member", "You are not a member of this room.")
        handler = {
            "sync": self.on_sync,
            "choose_topic": self.on_choose_topic,
            "message": self.on_message,
            "end": self.on_end,
            "rate": self.on_rate,
            "ping": self.on_ping,
        }.get(frame["type"])
        if handler is None:
            raise ProtocolError("bad_frame", f"Unknown frame type {frame['type']!r}.")
        await handler(frame)

    async def on_sync(self, frame: dict[str, Any]) -> None:
        after = require_int(frame, "after", low=0)
        for event in await database_sync_to_async(selectors.messages_after)(room_id=self.room_id, after=after):
            await self.send_json(self.for_me(event))
        await self.send_state()
        if self.role == wow.WIZARD:
            await self.send_json(await database_sync_to_async(selectors.wizard_knowledge)(room_id=self.room_id))

    async def on_choose_topic(self, frame: dict[str, Any]) -> None:
        topic = require_str(frame, "topic", max_chars=300)
        await _off_loop(rooms.topic_choose)(room_id=self.room_id, assignment=self.member, topic=topic)
        await self.broadcast_state()
        await self.broadcast_knowledge()

    async def on_message(self, frame: dict[str, Any]) -> None:
        client_id = require_str(frame, "client_id", max_chars=64)
        text = require_str(frame, "text", max_chars=settings.MESSAGE_MAX_CHARS)
        checked: Any = "missing"
        if self.role == wow.WIZARD and "checked" in frame:
            checked = parse_checked(frame["checked"])
        posted, snapshot = await _post(room_id=self.room_id, assignment=self.member, client_id=client_id, text=text, checked=checked)
        message = posted.message
        await self.send_json({"type": "ack", "client_id": client_id, "seq": message.seq})
        if not posted.created:
            return
        await self.broadcast({"type": "room.message", "message": selectors.message_event(message), "snapshot": snapshot})
        try:
            knowledge = await _off_loop(_retrieve)(message_id=message.pk, room_id=self.room_id)
        except IndexNotBuilt:
            log.error("room %s: no knowledge index for its source; the wizard gets no retrieved passages", self.room_id)
            return
        if knowledge is not None:
            await self.broadcast({"type": "room.knowledge", "knowledge": knowledge})

    async def on_end(self, frame: dict[str, Any]) -> None:
        await database_sync_to_async(rooms.chat_end)(room_id=self.room_id, assignment=self.member)
        await self.broadcast_state()

    async def on_rate(self, frame: dict[str, Any]) -> None:
        rating = frame.get("rating")
        if not isinstance(rating, int) or isinstance(rating, bool) or not 1 <= rating <= 5:
            raise ProtocolError("bad_rating", "The rating must be a whole number from 1 to 5.")
        await database_sync_to_async(rooms.rating_submit)(room_id=self.room_id, assignment=self.member, rating=rating)
        await self.broadcast_state()

    async def on_ping(self, frame: dict[str, Any]) -> None:
        await database_sync_to_async(rooms.member_presence)(assignment_id=self.member.pk, connected=True)
        await self.send_json({"type": "pong"})
        partner = next(role for role in wow.roles if role != self.role)
        if await database_sync_to_async(rooms.room_abandon_if_partner_gone)(
            room_id=self.room_id, role=partner, grace_seconds=self.grace
        ):
            await self.broadcast_state()

    # --- outbound
    async def broadcast(self, event: dict[str, Any]) -> None:
        await self.channel_layer.group_send(group_for(self.room_id), event)

    async def broadcast_state(self) -> None:
        snapshot = await database_sync_to_async(selectors.room_snapshot)(self.room_id)
        await self.broadcast({"type": "room.state", "snapshot": snapshot})

    async def broadcast_knowledge(self) -> None:
        knowledge = await database_sync_to_async(selectors.wizard_knowledge)(room_id=self.room_id)
        await self.broadcast({"type": "room.knowledge", "knowledge": knowledge})

    async def send_state(self, snapshot: dict[str, Any] | None = None) -> None:
        if snapshot is None:
            snapshot = await database_sync_to_async(selectors.room_snapshot)(self.room_id)
        await self.send_json(selectors.state_for(snapshot, role=self.role, partner_connected=self.partner_online))

    def for_me(self, event: dict[str, Any]) -> dict[str, Any]:
        if self.role != wow.WIZARD and "checked_sentence" in event:
            event = {k: v for k, v in event.items() if k != "checked_sentence"}
        return event

    # --- group events (handler names follow the event type)
    async def room_message(self, event: dict[str, Any]) -> None:
        await self.send_json(self.for_me(event["message"]))
        await self.send_state(event["snapshot"])

    async def room_state(self, event: dict[str, Any]) -> None:
        await self.send_state(event["snapshot"])

    async def room_knowledge(self, event: dict[str, Any]) -> None:
        if self.role == wow.WIZARD:
            await self.send_json(event["knowledge"])

    async def room_presence(self, event: dict[str, Any]) -> None:
        if event["role"] == self.role:
            return
        self.partner_online = event["connected"]
        await self.send_json({"type": "partner", "connected": self.partner_online, "grace_seconds": int(self.grace)})
        if self.partner_online:
            if self.partner_timer:
                self.partner_timer.cancel()
                self.partner_timer = None
        else:
            self.watch_partner()

    def watch_partner(self) -> None:
        if self.partner_timer:
            self.partner_timer.cancel()
        self.partner_timer = asyncio.create_task(self.end_if_partner_stays_away())

    async def end_if_partner_stays_away(self) -> None:
        await asyncio.sleep(self.grace)
        partner = next(role for role in wow.roles if role != self.role)
        ended = await database_sync_to_async(rooms.room_abandon_if_partner_gone)(
            room_id=self.room_id, role=partner, grace_seconds=self.grace
        )
        if ended:
            await self.broadcast_state()
