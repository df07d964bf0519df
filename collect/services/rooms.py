"""Everything that changes a room. Each action is one transaction; the caller broadcasts only after
it has committed (persist before broadcast). Protocol-specific rules come from the room's protocol."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, transaction
from django.db.models import Field, Model
from django.utils import timezone

from collect.authenticity.policy import COPY_EXPLANATION, copied_sentence, knowledge_sentences, role_policy
from collect.authenticity.record import record_build
from collect.errors import ProtocolError
from collect.lifecycle.outcomes import room_outcomes_set
from collect.models import ActionReceipt, Assignment, Campaign, Message, Room, RoomStatus
from collect import registry
from collect.protocols.base import Effect
from collect.recent import FIELDS, LEAN_FIELDS, RECENT, RECENT_LEAN, ROOM_ID, recent_messages
from groundwork.round_trips import Param, Prepared, Read, Update, Written, batched_transaction, insert, run_together
from retrieval.models import KnowledgeSource

@dataclass(frozen=True)
class Posted:
    message: Message
    created: bool  # False when the client_id was seen before: a resend


def member_get(*, room_id: str, worker_id: int | None) -> Assignment | None:
    if worker_id is None:
        return None
    return Assignment.objects.select_related("room", "campaign").filter(room_id=room_id, worker_id=worker_id).first()


def _locked_room(room_id: Any) -> Room:
    # Row lock on PostgreSQL, of the room's row only (not of the campaign row every room shares);
    # on SQLite the IMMEDIATE write transaction itself serialises. The persona (read only while the
    # topic is chosen) and the saved reranked panels are left to load when used. A chat message
    # takes the same lock in its own batch (_room_for_message).
    return Room.objects.select_for_update(of=("self",)).select_related("campaign").defer("knowledge_reranked").get(pk=room_id)


def room_act(*, room_id: Any, assignment: Assignment, name: str, frame: dict[str, Any], client_id: str | None = None) -> Effect:
    """A protocol's own action (WoW's topic choice, Curiosity's likes...), in one transaction. With
    a client_id, once: a resend of an applied action changes nothing (Effect.repeated)."""
    with transaction.atomic():
        room = _locked_room(room_id)
        action = registry.protocol(room.campaign.protocol).action(name)
        if action is None:
            raise ProtocolError("bad_frame", f"Unknown frame type {name!r}.")
        if _receipt_found(room, assignment, client_id):
            return Effect(state=False, repeated=True)
        effect = action(room=room, assignment=assignment, frame=frame)
        _active(room)
        _receipt_save(room, assignment, client_id, name)
        return effect


def _receipt_found(room: Room, assignment: Assignment, client_id: str | None) -> bool:
    """Whether this member's action `client_id` was applied before. Read under the room's lock, so
    two copies of one action in flight (a resend racing the first) cannot both be applied."""
    return client_id is not None and ActionReceipt.objects.filter(room=room, sender=assignment, client_id=client_id).exists()


def _receipt_save(room: Room, assignment: Assignment, client_id: str | None, kind: str) -> None:
    if client_id is not None:
        ActionReceipt.objects.create(room=room, sender=assignment, client_id=client_id, kind=kind)


def _active(room: Room) -> None:
    # The turn timeout (collect.lifecycle.sweep) counts from the room's last step.
    Room.objects.filter(pk=room.pk).update(activity_at=timezone.now())


def message_post(
    *, room_id: Any, assignment: Assignment, client_id: str, text: str, frame: dict[str, Any], page: bool = False,
    address: str | None = None,
) -> Posted:
    """Store one utterance; the protocol validates its own part of the frame. A message a person's
    page sent (`page`, from the room socket, and the client's `address`) is stored with its
    authenticity record (collect/authenticity/record.py), and refused with `knowledge_copied` where
    the campaign's policy refuses a whole knowledge sentence in it. A resend of a stored
    message (same sender and client_id) is answered with the stored one. That is looked up only
    when storing fails, not before every message: the insert then hits the unique constraint, or
    the room has moved on since (not this sender's turn, the chat over, the panel changed). One
    transaction, whose BEGIN and COMMIT go with its two batches of statements (round_trips.py)."""
    try:
        with batched_transaction():
            return Posted(_message_create(room_id, assignment, client_id, text, frame, page, address), created=True)
    except (IntegrityError, ProtocolError):
        existing = Message.objects.filter(room_id=room_id, sender=assignment, client_id=client_id).first()
        if existing is None:
            raise
        return Posted(existing, created=False)


def _message_create(
    room_id: Any, assignment: Assignment, client_id: str, text: str, frame: dict[str, Any], page: bool, address: str | None
) -> Message:
    room, recent = _room_for_message(room_id, panels=_reads_panels(assignment))
    protocol = registry.protocol(room.campaign.protocol)
    if room.status != RoomStatus.CHATTING:
        raise ProtocolError("wrong_state", "The chat is not open for messages.")
    # Messages are numbered 1, 2, ... under the room's lock: the last one's seq is the count.
    count = recent[-1].seq if recent else 0
    if protocol.next_role(room, count) != assignment.role:
        raise ProtocolError("not_your_turn", protocol.out_of_turn(role=assignment.role, count=count))
    fields = protocol.message_fields(room=room, assignment=assignment, frame=frame, count=count, recent=recent)
    if page:
        rules = role_policy(room.campaign.authenticity_policy, assignment.role)
        _copy_refuse(rules, text, fields)
        fields["authenticity"] = record_build(
            value=frame.get("authenticity"), text=text, address=address, timeline=rules["timeline"] == "on"
        )
    message = Message(room=room, seq=count + 1, sender=assignment, role=assignment.role, client_id=client_id, text=text, **fields)
    # Turns alternate, so after the second speaker's message both have spoken (count + 1) / 2 turns.
    last = message.role != room.first_speaker and (count + 1) // 2 >= room.campaign.turn_limit
    insert(message, commit=not last)
    if last:
        _end(room, status=RoomStatus.RATING, reason="turn limit reached")
    return message


def _copy_refuse(rules: dict[str, str], text: str, fields: dict[str, Any]) -> None:
    """The campaign's "copy": "refuse" rule: a message holding a whole sentence of the knowledge
    stored with it (what its sender was shown and checked) is refused, and the page gives the text
    back with the explanation. The page checks its own panel first; this is the same rule for a page
    that did not (an old one, a script)."""
    if rules["copy"] != "refuse":
        return
    shown = [fields.get(name) for name in ("knowledge_shown", "checked_sentence") if fields.get(name)]
    if shown and copied_sentence(text, knowledge_sentences(*shown)) is not None:
        raise ProtocolError("knowledge_copied", COPY_EXPLANATION)


def _reads_panels(assignment: Assignment) -> bool:
    """Whether the sender's message checks a sentence of the panels (their text must be read). The
    seat's campaign is the room's; a seat loaded without it reads them, rather than query for it."""
    if not Assignment.campaign.is_cached(assignment):
        return True
    return registry.protocol(assignment.campaign.protocol).message_reads_panels(assignment.role)


# What a message needs of its room: not the saved reranked panels (never read here), and the text
# of the panels (the topic passage, the recent messages' retrievals) only where the sender's role
# checks a sentence of them (Protocol.message_reads_panels): half of a WoW dialogue's messages would
# otherwise fetch and decode several kilobytes of JSON for nothing.
_CAMPAIGN_FIELDS = tuple(f.attname for f in Campaign._meta.concrete_fields)
_ACTIVITY_AT = Room._meta.get_field("activity_at")
_LOCK = Prepared(lambda: Update(Room.objects.filter(pk=ROOM_ID), {"activity_at": Param("now", _ACTIVITY_AT)}))
_CAMPAIGN = Prepared(lambda: Read(Campaign.objects.filter(rooms=ROOM_ID).values_list(*_CAMPAIGN_FIELDS)))


def _locked_room_sql(columns: tuple[Field, ...]) -> Callable[[Any], tuple[str, list[Any]]]:
    """_LOCK, the room's `columns` and its campaign as one PostgreSQL statement: each statement of
    a batch costs the chat process its own preparing, binding and result handling in psycopg."""

    def sql(connection: Any) -> tuple[str, list[Any]]:
        qn = connection.ops.quote_name
        room, campaign = qn(Room._meta.db_table), qn(Campaign._meta.db_table)
        names = [f"{room}.{qn(f.column)}" for f in columns] + [f"{campaign}.{qn(f.column)}" for f in Campaign._meta.concrete_fields]
        text = (f"UPDATE {room} SET {qn(_ACTIVITY_AT.column)} = %s FROM {campaign} "
                f"WHERE {room}.{qn(Room._meta.pk.column)} = %s AND {campaign}.{qn(Campaign._meta.pk.column)} = "
                f"{room}.{qn(Room._meta.get_field('campaign').column)} RETURNING {', '.join(names)}")
        return text, [Param("now", _ACTIVITY_AT), ROOM_ID]

    return sql


class _RoomRead:
    """The statements that read a room for a message, with or without the panels' text."""

    def __init__(self, *, panels: bool) -> None:
        left_out = {"knowledge_reranked"} if panels else {"knowledge_reranked", "topic_passage"}
        columns = tuple(f for f in Room._meta.concrete_fields if f.name not in left_out)
        self.fields = tuple(f.attname for f in columns)
        self.room = Prepared(lambda: Read(Room.objects.filter(pk=ROOM_ID).values_list(*self.fields)))
        self.locked_room = Prepared(lambda: Written(_locked_room_sql(columns), Room.objects.values_list(
            *self.fields, *(f"campaign__{name}" for name in _CAMPAIGN_FIELDS)
        )))
        self.recent, self.recent_fields = (RECENT, FIELDS) if panels else (RECENT_LEAN, LEAN_FIELDS)


_READS = {True: _RoomRead(panels=True), False: _RoomRead(panels=False)}
_ROOM_FIELDS = _READS[True].fields


def _room_for_message(room_id: Any, *, panels: bool = True) -> tuple[Room, list[Message]]:
    """Lock the room and stamp its activity, then read it, its campaign and its last two messages
    (oldest first): one round trip to PostgreSQL (groundwork.round_trips) instead of one per
    step. The update takes the row lock, so the read after it sees the messages of any
    transaction it waited for. Without `panels`, the room's topic_passage and the messages'
    retrieved_passages are not read (deferred: loaded if something reads them after all)."""
    read = _READS[panels]
    now = timezone.now()
    if connections[DEFAULT_DB_ALIAS].vendor == "postgresql":
        rows, recent_rows = run_together(read.locked_room(room=room_id, now=now), read.recent(room=room_id))
    else:  # SQLite: no round trips to save, and no RETURNING of another table's columns
        _, room_rows, campaign_rows, recent_rows = run_together(
            _LOCK(room=room_id, now=now), read.room(room=room_id), _CAMPAIGN(room=room_id), read.recent(room=room_id)
        )
        rows = [room_row + campaign_row for room_row, campaign_row in zip(room_rows, campaign_rows)]
    if not rows:
        raise Room.DoesNotExist(f"No room {room_id}.")
    split = len(read.fields)
    room = Room.from_db(DEFAULT_DB_ALIAS, read.fields, rows[0][:split])
    room.campaign = Campaign.from_db(DEFAULT_DB_ALIAS, _CAMPAIGN_FIELDS, rows[0][split:])
    return room, recent_messages(recent_rows, read.recent_fields)


@dataclass(frozen=True)
class After:
    room_id: Any
    protocol: str
    knowledge: dict[str, dict[str, Any]]  # role → knowledge frame
    stored_at: datetime | None = None  # the message's `created`: its panel's latency counts from here


# What the protocols' retrieval reads, not the rows' other columns (the panels shown, the campaign's
# settings); a protocol that reads another column gets it loaded when it does.
def _in_column_order(model: type[Model], names: set[str]) -> tuple[str, ...]:
    return tuple(f.attname for f in model._meta.concrete_fields if f.attname in names)  # as Model.from_db takes them


_AFTER_FIELDS = (
    (Message, "", _in_column_order(Message, {"id", "room_id", "seq", "role", "text", "created", "retrieved_passages"})),
    (Room, "room__", _in_column_order(Room, {"id", "campaign_id", "status", "topic", "topic_passage"})),
    (Campaign, "room__campaign__", _in_column_order(Campaign, {"id", "protocol", "protocol_config", "knowledge_source_id"})),
    (KnowledgeSource, "room__campaign__knowledge_source__", _in_column_order(KnowledgeSource, {"id", "slug"})),
)
_AFTER = Prepared(lambda: Read(Message.objects.filter(pk=Param("message", Message._meta.pk)).values_list(
    *(prefix + name for _, prefix, names in _AFTER_FIELDS for name in names)
)))


def _after_objects(row: tuple[Any, ...]) -> Message:
    """The message of an _AFTER row, with its room, campaign and knowledge source attached."""
    objects, start = [], 0
    for model, _, names in _AFTER_FIELDS:
        objects.append(model.from_db(DEFAULT_DB_ALIAS, names, row[start : start + len(names)]))
        start += len(names)
    message, room, campaign, source = objects
    campaign.knowledge_source = source
    room.campaign = campaign
    message.room = room
    return message


def message_after(*, message_id: int) -> After:
    """The protocol's slow per-message work (retrieval), after the commit; knowledge per role."""
    [rows] = run_together(_AFTER(message=message_id))
    if not rows:
        raise Message.DoesNotExist(f"No message {message_id}.")
    message = _after_objects(rows[0])
    protocol = message.room.campaign.protocol
    return After(message.room_id, protocol, registry.protocol(protocol).after_message(message=message), stored_at=message.created)


def _turns(room: Room) -> dict[str, int]:
    turns = {role: 0 for role in registry.protocol(room.campaign.protocol).roles}
    for role in room.messages.values_list("role", flat=True):
        turns[role] += 1
    return turns


def _end(room: Room, *, status: str, reason: str) -> None:
    room.status = status
    room.end_reason = reason
    room.ended = room.activity_at = timezone.now()
    room.save(update_fields=["status", "end_reason", "ended", "activity_at"])


def chat_end(*, room_id: Any, assignment: Assignment, client_id: str | None = None) -> bool:
    """End the chat (→ rating); False when `client_id` was applied before (a resend: nothing changes)."""
    with transaction.atomic():
        room = _locked_room(room_id)
        if _receipt_found(room, assignment, client_id):
            return False
        if room.status != RoomStatus.CHATTING:
            raise ProtocolError("wrong_state", "The chat is not open.")
        if min(_turns(room).values()) < room.turns_required:
            raise ProtocolError(
                "too_early_to_end", f"Each of you must send {room.turns_required} messages before the chat can end."
            )
        registry.protocol(room.campaign.protocol).end_check(room=room, assignment=assignment)
        _end(room, status=RoomStatus.RATING, reason=f"ended by the {assignment.role}")
        _receipt_save(room, assignment, client_id, "end")
    return True


def rating_submit(*, room_id: Any, assignment: Assignment, frame: dict[str, Any], client_id: str | None = None) -> bool:
    """Store one member's end-of-chat form; False when `client_id` was applied before (a resend)."""
    with transaction.atomic():
        room = _locked_room(room_id)
        if _receipt_found(room, assignment, client_id):
            return False
        protocol = registry.protocol(room.campaign.protocol)
        if assignment.role not in protocol.rating_roles:
            raise ProtocolError("not_allowed", f"The {assignment.role} has no rating form in this chat.")
        rating = protocol.rating_parse(frame)
        if room.status != RoomStatus.RATING:
            raise ProtocolError("wrong_state", "The chat is not waiting for a rating.")
        protocol.rate(room=room, role=assignment.role, rating=rating)
        if protocol.rated(room):
            room.status = RoomStatus.COMPLETE
            room.save(update_fields=["status"])
            room_outcomes_set(room=room, outcomes={})  # everyone: completed
        _receipt_save(room, assignment, client_id, "rate")
    return True
