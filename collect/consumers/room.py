"""The chat room socket. Thin: every change is one service call in its own transaction; frames go
out only after that transaction has committed."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.db import InterfaceError, OperationalError, close_old_connections

from collect import selectors
from collect.consumers.answers import AnswerMemory
from collect.consumers.base import GroundworkConsumer
from collect.consumers.cursor import SyncCursor
from collect.consumers.db import hot_path_sync_to_async, retried_once
from collect.errors import ProtocolError
from collect.frames import MAX_SEQ, require_int, require_str
from collect.groups import knowledge_event, role_group, room_group
from collect.lifecycle import presence
from collect.lifecycle.background import sweeper_ensure
from collect.lifecycle.heartbeats import Stamp
from collect.models import Assignment, Message
from collect import registry
from groundwork.service_errors import SERVICE_ERRORS, logged, one_line
from collect.services import knowledge, knowledge_fallback, panels, rooms
from django.conf import settings
from groundwork import metrics
from groundwork.channel_layer import group_send_except
from groundwork.logs import log_context_set
from retrieval import services as retrieval
from retrieval.rerank import arerank_panel
from retrieval.services import IndexNotBuilt

log = logging.getLogger(__name__)

def _off_loop(func: Any) -> Any:
    """Run slow work (retrieval) in the thread pool, not on the event loop and not on the single
    thread that serialises database_sync_to_async calls, so other rooms are not held up. A call
    that finds its connection dead (dropped by a failover) is made once more on a new one: the
    work may run twice (retrieval stores its result once; an action with a client_id is applied
    once), and a retrieval lost to a dropped connection would leave the wizard's panel stale."""

    def call(**kwargs: Any) -> Any:
        close_old_connections()
        try:
            try:
                return func(**kwargs)
            except (OperationalError, InterfaceError):
                close_old_connections()
                return func(**kwargs)
        finally:
            close_old_connections()

    return sync_to_async(call, thread_sensitive=False)


def optional_client_id(frame: dict[str, Any]) -> str | None:
    """An action's client_id: optional (pages from before it was sent still work, without the
    resend guarantee), but when present it must be 1–64 characters, as a message's."""
    if "client_id" not in frame:
        return None
    return require_str(frame, "client_id", max_chars=64)


# One thread hop per step of the message path: each helper does all the database work of its step.
@hot_path_sync_to_async
def _post(**kwargs: Any) -> tuple[rooms.Posted, dict[str, Any] | None, dict[str, dict[str, Any]], bool]:
    """Store the message; (posted, snapshot, per-role extras, whether its knowledge is still to be
    retrieved). With Celery, that retrieval is queued here, after the commit."""
    posted = rooms.message_post(**kwargs)
    snapshot = extras = None
    if posted.created:
        # Built from the room row message_post locked and its message count: no more queries.
        snapshot = selectors.room_snapshot(kwargs["room_id"], room=posted.message.room, message_count=posted.message.seq)
        extras = selectors.message_extras(posted.message, snapshot["protocol"])
    protocol_name = kwargs["assignment"].campaign.protocol
    # A resend of a message whose retrieval a dead process left undone retrieves it now.
    needs_knowledge = posted.created or knowledge.message_lacks_knowledge(posted.message, protocol_name)
    if needs_knowledge and knowledge.knowledge_in_celery():
        knowledge.knowledge_dispatch(message_id=posted.message.pk)
    return posted, snapshot, extras or {}, needs_knowledge


@hot_path_sync_to_async
def _catch_up(room_id: str, after: int, role: str) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any] | None]:
    """Everything a member needs after seq `after`: the messages, the room's state, their knowledge.
    The state is read first and the messages only up to its last seq, so the two agree: a state
    read after a newer message (a `complete` that the last message and the rating led to) would
    reach the page without that message, whose broadcast the page may no longer wait for. Anything
    newer comes by broadcast: this socket joined the room's group before its first catch-up."""
    snapshot = selectors.room_snapshot(room_id)
    events = selectors.messages_after(room_id=room_id, after=after, role=role, upto=snapshot["last_seq"])
    return events, snapshot, selectors.knowledge_for(room_id=room_id, role=role)


class RoomConsumer(GroundworkConsumer):
    member: Assignment | None = None
    stamp: Stamp | None = None  # the member counted in this process's heartbeats
    joined = False  # marked connected in the database

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # What this socket's page has: a member who lacks messages (a broadcast died with another
        # process) is caught up.
        self.cursor = SyncCursor()
        self.answers = AnswerMemory()  # the acks of frames applied here, for their copies
        self.reranks: set[asyncio.Task] = set()  # kept referenced until done

    async def join(self) -> None:
        self.room_id = str(self.scope["url_route"]["kwargs"]["room_id"])
        self.member = await database_sync_to_async(rooms.member_get)(room_id=self.room_id, worker_id=self.worker_id)
        if self.member is None:
            await self.refuse_member()
            return
        log_context_set(room=self.room_id, assignment=self.member.pk)  # on every line this socket logs
        self.role = self.member.role
        self.protocol = registry.protocol(self.member.campaign.protocol)
        self.partner_role = self.protocol.partner_of(self.role)
        self.grace = float(self.member.campaign.disconnect_grace_seconds)
        await self.channel_layer.group_add(room_group(self.room_id), self.channel_name)
        await self.channel_layer.group_add(role_group(self.room_id, self.role), self.channel_name)
        # Presence is heartbeat timestamps in the database; the sweep (any process) ends the room
        # when a member stays away past the grace period or stalls past the turn timeout.
        await database_sync_to_async(presence.member_connected)(assignment_id=self.member.pk, socket=self.channel_name)
        self.joined = True  # from here on, disconnect() has presence to undo
        self.stamp = Stamp(self.member.pk)
        self.stamp.hold()
        sweeper_ensure()
        self.partner_online = await database_sync_to_async(presence.partner_present)(room_id=self.room_id, role=self.role)
        snapshot = await database_sync_to_async(selectors.room_snapshot)(self.room_id)
        await self.send_state(snapshot)
        # With the room's last seq: the partner's socket catches up from it (room_presence).
        await self.broadcast({"type": "room.presence", "role": self.role, "connected": True, "last_seq": snapshot["last_seq"]})

    def released(self) -> None:
        if self.stamp is not None:
            self.stamp.release()

    async def disconnect(self, code: int) -> None:
        if self.member is None or not self.joined:
            return
        self.joined = False
        # Presence first: it is what the sweep and the partner's page go by, and it is in the
        # database, which may be reachable while Redis is not (a Redis restart must not leave
        # `connected` true). Each step that cannot reach its service is skipped with one log line:
        # Redis forgets group members whose process is gone, and the sweep ages a missed stamp.
        # Retried once on a dead connection: a connection dropped under this write would otherwise
        # leave the member `connected` in a finished room.
        still = await logged(log, "presence", database_sync_to_async(retried_once(presence.member_disconnected))(
            assignment_id=self.member.pk, socket=self.channel_name
        ))
        await logged(log, "group_discard", self.channel_layer.group_discard(room_group(self.room_id), self.channel_name))
        await logged(log, "group_discard", self.channel_layer.group_discard(role_group(self.room_id, self.role), self.channel_name))
        if still is False:
            await logged(log, "presence broadcast", self.broadcast({"type": "room.presence", "role": self.role, "connected": False}))

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
        after = require_int(frame, "after", low=0, high=MAX_SEQ)
        # Retrieval a dead process left undone for this room's messages is done (or queued) now.
        await self.broadcast_knowledge(await _off_loop(knowledge.room_knowledge_repair)(room_id=self.room_id))
        await self.catch_up(after)
        self.protocol.room_synced(room_id=self.room_id)
        self.cursor.synced = True
        # The partner may lack what this member has (a broadcast lost with a dead process).
        await self.broadcast({"type": "room.catchup", "last_seq": self.cursor.top(), "from": self.channel_name})

    async def catch_up(self, after: int) -> None:
        """Send what the client lacks after seq `after`, then the state and its knowledge. Messages
        this socket was already sent (a broadcast that overtook the sync) are not sent twice."""
        after = self.cursor.synced_to(after)
        events, snapshot, frame = await _catch_up(self.room_id, after, self.role)
        self.cursor.cap(snapshot["last_seq"])
        for event in events:
            if event["seq"] not in self.cursor.sent:
                await self.send_json(event)
                self.cursor.mark_sent(event["seq"])
        await self.send_state(snapshot)
        if frame is not None:
            await self.send_json(frame)
        if frame is not None and self.protocol.reranks_knowledge and "after_seq" in frame:
            # A reload must not fall back to the TF-IDF order the wizard was no longer reading.
            reranked = await database_sync_to_async(selectors.knowledge_reranked_for)(
                room_id=self.room_id, role=self.role, after_seq=frame["after_seq"]
            )
            if reranked is not None:
                await self.send_json(reranked)

    async def on_action(self, frame: dict[str, Any]) -> None:
        """A protocol's own frame (e.g. a topic choice). Off the event loop: it may retrieve."""
        if self.protocol.action(frame["type"]) is None:
            raise ProtocolError("bad_frame", f"Unknown frame type {frame['type']!r}.")
        client_id = optional_client_id(frame)
        if await self.answered_before(client_id):
            return
        effect = await _off_loop(rooms.room_act)(
            room_id=self.room_id, assignment=self.member, name=frame["type"], frame=frame, client_id=client_id
        )
        ack = await self.acknowledge(frame, client_id)
        if effect.repeated:
            metrics.RESENDS.labels("database").inc()
            await self.repeat_broadcasts()
        else:
            if effect.state:
                await self.broadcast_state()
            await self.broadcast_knowledge(effect.knowledge)
        # Also after a resend: what the first copy started may have died with a process.
        self.protocol.action_relayed(room_id=self.room_id, name=frame["type"])
        self.answers.remember(client_id, ack)

    async def answered_before(self, client_id: str | None) -> bool:
        """Whether this is a copy of a frame this socket has already applied, answered and broadcast:
        the page resent it before the answer reached it (a slow server). It is only answered again:
        no database work and no broadcast, which would add to the load that made the answer late.
        Nothing the first copy did can have been lost with a process, since this one is alive; a
        copy on another socket (a reconnect) takes the full path, which repairs what was lost."""
        ack = self.answers.answer_for(client_id)
        if ack is None:
            return False
        metrics.RESENDS.labels("socket").inc()
        metrics.ACK_SECONDS.observe(metrics.since(self.received_at))
        await self.send_json(ack)
        return True

    async def acknowledge(self, frame: dict[str, Any], client_id: str | None) -> dict[str, Any] | None:
        """An action is acknowledged once it has committed (or was found applied before): the page
        resends it until then. Old pages send no client_id and get no ack. Returns the ack sent."""
        if client_id is None:
            return None
        ack = {"type": "ack", "client_id": client_id, "action": frame["type"]}
        await self.send_json(ack)
        return ack

    async def repeat_broadcasts(self) -> None:
        """A resent action had been applied: what its first attempt broadcast may have died with a
        process or Redis. Every member gets the room's state and their current knowledge again."""
        await self.broadcast_state()
        for role in self.protocol.roles:
            frame = await database_sync_to_async(selectors.knowledge_for)(room_id=self.room_id, role=role)
            if frame is not None:
                await self.send_knowledge(role, frame)

    async def on_message(self, frame: dict[str, Any]) -> None:
        received = self.received_at
        client_id = require_str(frame, "client_id", max_chars=64)
        text = require_str(frame, "text", max_chars=settings.MESSAGE_MAX_CHARS)
        if await self.answered_before(client_id):
            return
        try:
            posted, snapshot, extras, needs_knowledge = await _post(
                room_id=self.room_id, assignment=self.member, client_id=client_id, text=text, frame=frame,
                page=True, address=self.ip,
            )
        except ProtocolError as error:
            if error.code == "stale_knowledge":
                await self.knowledge_refresh()
            raise
        message = posted.message
        ack = {"type": "ack", "client_id": client_id, "seq": message.seq}
        if posted.created:
            event = {"type": "room.message", "message": selectors.message_event(message), "extras": extras, "snapshot": snapshot}
            # The message itself, with the sender's client_id, is its acknowledgement: this socket
            # sends it at once, whatever the page's sync cursor said, and the room's other sockets
            # get it through the channel layer.
            await self.send_own(event)
            metrics.ACK_SECONDS.observe(metrics.since(received))
            metrics.MESSAGES.labels(self.member.campaign.protocol).inc()
            # The other sockets time their delivery from the same moment.
            event["received_at"] = received
            await group_send_except(self.channel_layer, room_group(self.room_id), event, skip=self.channel_name)
            self.protocol.message_relayed(room_id=self.room_id, seq=message.seq)
        else:
            # A resend: the first attempt may have died between its commit and its broadcast.
            await self.send_json(ack)
            metrics.ACK_SECONDS.observe(metrics.since(received))
            metrics.RESENDS.labels("database").inc()
            await self.broadcast({"type": "room.catchup", "last_seq": message.seq, "from": self.channel_name})
        if needs_knowledge:
            await self.message_knowledge(message)
        self.answers.remember(client_id, ack)

    async def message_knowledge(self, message: Message) -> None:
        """The knowledge a stored message is owed: queued for a worker (and done here if none starts
        it in time), or, without Celery, retrieved now and published."""
        if knowledge.knowledge_in_celery():
            # Retrieved here if no worker starts it in time (a worker outage): knowledge_fallback.py.
            knowledge_fallback.fallback_schedule(message_id=message.pk, publish=self.broadcast_knowledge)
            return
        try:
            after = await _off_loop(rooms.message_after)(message_id=message.pk)
        except IndexNotBuilt:
            log.error("room %s: no knowledge index for its source; no retrieved knowledge", self.room_id)
            return
        await self.broadcast_knowledge(after.knowledge)
        if any(after.knowledge.values()):
            metrics.panel_published(protocol=after.protocol, stored_at=after.stored_at)

    async def knowledge_refresh(self) -> None:
        """The page checked a sentence of a panel the server no longer holds current: the panel for
        its turn never reached it (its retrieval was lost with a database connection or a process,
        or its broadcast with Redis). The retrieval is done now, or the current panel sent again,
        so the page can check again at once rather than wait for the sweep or a reload."""
        repaired = await _off_loop(knowledge.room_knowledge_repair)(room_id=self.room_id)
        await self.broadcast_knowledge(repaired)
        if self.role not in repaired:
            frame = await database_sync_to_async(selectors.knowledge_for)(room_id=self.room_id, role=self.role)
            if frame is not None:
                await self.send_json(frame)

    async def on_end(self, frame: dict[str, Any]) -> None:
        client_id = optional_client_id(frame)
        applied = await database_sync_to_async(rooms.chat_end)(room_id=self.room_id, assignment=self.member, client_id=client_id)
        await self.acknowledge(frame, client_id)
        await (self.broadcast_state() if applied else self.repeat_broadcasts())

    async def on_rate(self, frame: dict[str, Any]) -> None:
        client_id = optional_client_id(frame)
        applied = await database_sync_to_async(rooms.rating_submit)(
            room_id=self.room_id, assignment=self.member, frame=frame, client_id=client_id
        )
        await self.acknowledge(frame, client_id)
        await (self.broadcast_state() if applied else self.repeat_broadcasts())

    async def on_ping(self, frame: dict[str, Any]) -> None:
        # A client's own liveness check; presence comes from the open socket (lifecycle.heartbeats).
        await self.send_json({"type": "pong"})

    # --- outbound
    async def broadcast(self, event: dict[str, Any]) -> None:
        await self.channel_layer.group_send(room_group(self.room_id), event)

    async def send_knowledge(self, role: str, frame: dict[str, Any]) -> None:
        """To that role's sockets only."""
        await self.channel_layer.group_send(role_group(self.room_id, role), knowledge_event(role, frame))

    async def broadcast_state(self) -> None:
        snapshot = await database_sync_to_async(selectors.room_snapshot)(self.room_id)
        await self.broadcast({"type": "room.state", "snapshot": snapshot})

    async def broadcast_knowledge(self, frames: dict[str, dict[str, Any]]) -> None:
        for role, frame in frames.items():
            if frame is None:
                continue
            await self.send_knowledge(role, frame)
            if self.protocol.reranks_knowledge and frame.get("type") == "knowledge" and frame["passages"]:
                # The TF-IDF panel is out; the reranked one follows when (and if) it is ready.
                if retrieval.rerank_on_worker():
                    # The worker publishes it to the room: no thread or poll of this process waits.
                    # A broker publish and no database: not _off_loop, whose connection checks
                    # would cost the pool thread's next message a health-check round trip.
                    await sync_to_async(knowledge.rerank_dispatch, thread_sensitive=False)(
                        room_id=self.room_id, role=role, frame=frame
                    )
                    continue
                self.reranks.add(task := asyncio.create_task(self.rerank(role, frame)))
                task.add_done_callback(self.reranks.discard)

    async def rerank(self, role: str, frame: dict[str, Any]) -> None:
        """In this process (the embedded mode), on the rerank thread. A task of its own: a lost
        service is one log line here (the TF-IDF panel stays), not an unretrieved task exception."""
        try:
            await self._rerank(role, frame)
        except SERVICE_ERRORS as error:
            log.warning("room %s: rerank skipped, service lost: %s", self.room_id, one_line(error))

    async def _rerank(self, role: str, frame: dict[str, Any]) -> None:
        context = await database_sync_to_async(selectors.dialogue_context)(
            room_id=self.room_id, after_seq=frame["after_seq"]
        )
        if context is None:
            return  # the chat has moved past this panel
        # timeout: GROUNDWORK_RERANK_TIMEOUT_S; a bad ranker setting is a logged failure, not a crash.
        reranked = await arerank_panel(
            context=context["turns"], topic=context["topic"], passages=frame["passages"], after_seq=frame["after_seq"],
            language=context["language"],
        )
        if reranked is None:
            return  # failed or timed out (logged there): the TF-IDF order stays
        if not await database_sync_to_async(panels.knowledge_reranked_save)(room_id=self.room_id, role=role, frame=reranked):
            return  # the chat has moved on: this panel is out of date
        await self.send_knowledge(role, reranked)

    async def send_state(self, snapshot: dict[str, Any] | None = None) -> None:
        # A broadcast snapshot is read before it is sent, and a message stored on another process
        # in between may already have reached this socket (with its state): sent after it, the
        # older snapshot would take the page back a turn (not its turn again, for good). Such a
        # snapshot is read again; the current one is never older than what this socket has sent.
        if snapshot is None or snapshot["last_seq"] < self.cursor.top():
            snapshot = await database_sync_to_async(selectors.room_snapshot)(self.room_id)
        await self.send_json(selectors.state_for(snapshot, role=self.role, partner_connected=self.partner_online))

    async def send_own(self, event: dict[str, Any]) -> None:
        """The sender's own new message, its acknowledgement: sent whatever this socket's cursor
        (`base`) says, since a page's `sync` may name a seq beyond the room's last one."""
        seq = event["message"]["seq"]
        if seq in self.cursor.sent:
            await self.send_json({"type": "ack", "client_id": event["message"]["client_id"], "seq": seq})
            return
        state = selectors.state_for(event["snapshot"], role=self.role, partner_connected=self.partner_online)
        await self.send_json({**event["message"], **event["extras"].get(self.role, {}), "state": state})
        self.cursor.mark_sent(seq)

    # --- group events (handler names follow the event type)
    async def room_message(self, event: dict[str, Any]) -> None:
        seq = event["message"]["seq"]
        if self.cursor.has(seq):
            return  # already sent (by a catch-up)
        if self.cursor.synced and self.cursor.lacks(seq - 1):
            await self.catch_up(self.cursor.base)  # fills the gap, this message included
            return
        # The room's state after this message rides in the same frame: one frame per socket.
        state = selectors.state_for(event["snapshot"], role=self.role, partner_connected=self.partner_online)
        await self.send_json({**event["message"], **event["extras"].get(self.role, {}), "state": state})
        self.cursor.mark_sent(seq)
        if "received_at" in event:  # not the sender's own copy
            metrics.DELIVERY_SECONDS.observe(metrics.since(event["received_at"]))

    async def room_catchup(self, event: dict[str, Any]) -> None:
        """Another member synced after a reconnect (or resent a message): what it broadcast before
        may have been lost with a process or with Redis, a message or a change of state (its rating
        ending the room). The messages this socket lacks are sent, or else the current state."""
        if not self.cursor.synced or event.get("from") == self.channel_name:
            return  # its own: this socket has just been brought up to date
        if self.cursor.lacks(event["last_seq"]):
            await self.catch_up(self.cursor.base)
        else:
            await self.send_state()

    async def room_state(self, event: dict[str, Any]) -> None:
        await self.send_state(event["snapshot"])

    async def room_knowledge(self, event: dict[str, Any]) -> None:
        if event["role"] == self.role:
            await self.send(text_data=event["text"])
            for text in event.get("more", ()):
                await self.send(text_data=text)

    async def room_typing(self, event: dict[str, Any]) -> None:
        """A partner that is a program (a model) is writing its reply to `after_seq`."""
        if event["role"] != self.role:
            await self.send_json({"type": "typing", "after_seq": event["after_seq"]})

    async def room_progress(self, event: dict[str, Any]) -> None:
        """A partner that is a program (a model) reports on a reply it is still making (its place
        in a queue, its text so far): a frame never stored, sent to the other role's pages as it
        is. A page that misses one gets the next, or the stored message."""
        if event["role"] != self.role:
            await self.send_json(event["frame"])

    async def room_presence(self, event: dict[str, Any]) -> None:
        if event["role"] == self.role:
            return
        self.partner_online = event["connected"]
        await self.send_json({"type": "partner", "connected": self.partner_online, "grace_seconds": int(self.grace)})
        if event["connected"] and "last_seq" in event:
            # The partner is back, and what it did before its socket closed (a message, a rating
            # that ended the room) may have been stored without its broadcast: the database or
            # the process lost between the two. Its sync would tell this socket (room.catchup),
            # but a page that finds the room ended on connecting may leave before its sync is
            # answered.
            await self.room_catchup({"last_seq": event["last_seq"], "from": None})
