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
from collect.frames import require_int, require_str
from collect.models import Assignment
from collect.protocols import get_protocol
from collect.services import rooms
from django.conf import settings
from retrieval import services as retrieval
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
def _post(**kwargs: Any) -> tuple[rooms.Posted, dict[str, Any] | None, dict[str, dict[str, Any]]]:
    posted = rooms.message_post(**kwargs)
    if not posted.created:
        return posted, None, {}
    snapshot = selectors.room_snapshot(kwargs["room_id"])
    return posted, snapshot, selectors.message_extras(posted.message, snapshot["protocol"])


class RoomConsumer(GroundworkConsumer):
    member: Assignment | None = None
    partner_timer: asyncio.Task | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reranks: set[asyncio.Task] = set()  # kept referenced until done

    async def join(self) -> None:
        self.room_id = str(self.scope["url_route"]["kwargs"]["room_id"])
        self.member = await database_sync_to_async(rooms.member_get)(room_id=self.room_id, worker_id=self.worker_id)
        if self.member is None:
            await self.refuse_member()
            return
        self.role = self.member.role
        self.protocol = get_protocol(self.member.campaign.protocol)
        self.partner_role = self.protocol.partner_of(self.role)
        self.grace = float(self.member.campaign.disconnect_grace_seconds)
        await self.channel_layer.group_add(group_for(self.room_id), self.channel_name)
        await database_sync_to_async(rooms.member_connected)(assignment_id=self.member.pk)
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
        still = await database_sync_to_async(rooms.member_disconnected)(assignment_id=self.member.pk)
        if not still:
            await self.broadcast({"type": "room.presence", "role": self.role, "connected": False})

    # --- inbound frames
    async def handle(self, frame: dict[str, Any]) -> None:
        if self.member is None:
            raise ProtocolError("not_member", "You are not a member of this room.")
        handler = {
            "sync": self.on_sync,
            "message": self.on_message,
            "end": self.on_end,
            "rate": self.on_rate,
            "ping": self.on_ping,
        }.get(frame["type"], self.on_action)
        await handler(frame)

    async def on_sync(self, frame: dict[str, Any]) -> None:
        after = require_int(frame, "after", low=0)
        for event in await database_sync_to_async(selectors.messages_after)(room_id=self.room_id, after=after, role=self.role):
            await self.send_json(event)
        await self.send_state()
        knowledge = await database_sync_to_async(selectors.knowledge_for)(room_id=self.room_id, role=self.role)
        if knowledge is not None:
            await self.send_json(knowledge)

    async def on_action(self, frame: dict[str, Any]) -> None:
        """A protocol's own frame (e.g. WoW's choose_topic). Off the event loop: it may retrieve."""
        if self.protocol.action(frame["type"]) is None:
            raise ProtocolError("bad_frame", f"Unknown frame type {frame['type']!r}.")
        effect = await _off_loop(rooms.room_act)(room_id=self.room_id, assignment=self.member, name=frame["type"], frame=frame)
        if effect.state:
            await self.broadcast_state()
        await self.broadcast_knowledge(effect.knowledge)

    async def on_message(self, frame: dict[str, Any]) -> None:
        client_id = require_str(frame, "client_id", max_chars=64)
        text = require_str(frame, "text", max_chars=settings.MESSAGE_MAX_CHARS)
        posted, snapshot, extras = await _post(
            room_id=self.room_id, assignment=self.member, client_id=client_id, text=text, frame=frame
        )
        message = posted.message
        await self.send_json({"type": "ack", "client_id": client_id, "seq": message.seq})
        if not posted.created:
            return
        event = {"type": "room.message", "message": selectors.message_event(message), "extras": extras, "snapshot": snapshot}
        await self.broadcast(event)
        try:
            knowledge = await _off_loop(rooms.message_after)(message_id=message.pk)
        except IndexNotBuilt:
            log.error("room %s: no knowledge index for its source; no retrieved knowledge", self.room_id)
            return
        await self.broadcast_knowledge(knowledge)

    async def on_end(self, frame: dict[str, Any]) -> None:
        await database_sync_to_async(rooms.chat_end)(room_id=self.room_id, assignment=self.member)
        await self.broadcast_state()

    async def on_rate(self, frame: dict[str, Any]) -> None:
        await database_sync_to_async(rooms.rating_submit)(room_id=self.room_id, assignment=self.member, frame=frame)
        await self.broadcast_state()

    async def on_ping(self, frame: dict[str, Any]) -> None:
        await database_sync_to_async(rooms.member_seen)(assignment_id=self.member.pk)
        await self.send_json({"type": "pong"})
        if await database_sync_to_async(rooms.room_abandon_if_partner_gone)(
            room_id=self.room_id, role=self.partner_role, grace_seconds=self.grace
        ):
            await self.broadcast_state()

    # --- outbound
    async def broadcast(self, event: dict[str, Any]) -> None:
        await self.channel_layer.group_send(group_for(self.room_id), event)

    async def broadcast_state(self) -> None:
        snapshot = await database_sync_to_async(selectors.room_snapshot)(self.room_id)
        await self.broadcast({"type": "room.state", "snapshot": snapshot})

    async def broadcast_knowledge(self, knowledge: dict[str, dict[str, Any]]) -> None:
        for role, frame in knowledge.items():
            if frame is None:
                continue
            await self.broadcast({"type": "room.knowledge", "role": role, "knowledge": frame})
            if self.protocol.reranks_knowledge and frame.get("type") == "knowledge" and frame["passages"]:
                # The TF-IDF panel is out; the reranked one follows when (and if) it is ready.
                self.reranks.add(task := asyncio.create_task(self.rerank(role, frame)))
                task.add_done_callback(self.reranks.discard)

    async def rerank(self, role: str, frame: dict[str, Any]) -> None:
        context = await database_sync_to_async(selectors.dialogue_context)(room_id=self.room_id)
        # timeout: GROUNDWORK_RERANK_TIMEOUT_S; a bad ranker setting is a logged failure, not a crash.
        ranked = await retrieval.arerank_passages(
            context=context["turns"], topic=context["topic"], passages=frame["passages"]
        )
        if ranked is None:
            return  # failed or timed out (logged there): the TF-IDF order stays
        reranked = {"type": "knowledge.reranked", "after_seq": frame["after_seq"], "passages": ranked}
        await self.broadcast({"type": "room.knowledge", "role": role, "knowledge": reranked})

    async def send_state(self, snapshot: dict[str, Any] | None = None) -> None:
        if snapshot is None:
            snapshot = await database_sync_to_async(selectors.room_snapshot)(self.room_id)
        await self.send_json(selectors.state_for(snapshot, role=self.role, partner_connected=self.partner_online))

    # --- group events (handler names follow the event type)
    async def room_message(self, event: dict[str, Any]) -> None:
        await self.send_json({**event["message"], **event["extras"].get(self.role, {})})
        await self.send_state(event["snapshot"])

    async def room_state(self, event: dict[str, Any]) -> None:
        await self.send_state(event["snapshot"])

    async def room_knowledge(self, event: dict[str, Any]) -> None:
        if event["role"] == self.role:
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
        ended = await database_sync_to_async(rooms.room_abandon_if_partner_gone)(
            room_id=self.room_id, role=self.partner_role, grace_seconds=self.grace
        )
        if ended:
            await self.broadcast_state()
