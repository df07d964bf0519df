"""groundwork.round_trips.batched_transaction: one transaction whose BEGIN rides with its first batch
and whose COMMIT with its last (the chat message's), committed or rolled back as atomic() would be,
never left open on the connection, and atomic() itself on SQLite and inside an atomic block."""

from __future__ import annotations

import os

import pytest
from django.db import InterfaceError, OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext

from collect.errors import ProtocolError
from collect.models import Assignment, Message, Room, RoomStatus
from collect.services import rooms
from groundwork.round_trips import Param, Prepared, Read, Update, batched_transaction, insert, run_together
from tests.factories import make_campaign, make_room

on_postgres = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="needs PostgreSQL"
)
# Outside any atomic block: the batched transaction is the only one.
pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]

ROOM_ID = Param("room", Room._meta.pk)
STAMP = Prepared(lambda: Update(Room.objects.filter(pk=ROOM_ID), {"end_reason": Param("reason", Room._meta.get_field("end_reason"))}))
SEQS = Prepared(lambda: Read(Message.objects.filter(room_id=ROOM_ID).values_list("seq")))


def _seats(room: Room) -> dict[str, Assignment]:
    return {a.role: a for a in Assignment.objects.select_related("campaign").filter(room=room)}


def _idle() -> bool:
    """The connection holds no transaction, not even a failed one (as the database reports it)."""
    if connection.connection is None:
        return True
    if connection.vendor != "postgresql":
        return not connection.connection.in_transaction
    from psycopg.pq import TransactionStatus

    return connection.connection.info.transaction_status == TransactionStatus.IDLE


def _in_transaction() -> bool:
    """The database itself has a transaction open on this connection."""
    if connection.vendor != "postgresql":
        return connection.connection.in_transaction
    from psycopg.pq import TransactionStatus

    return connection.connection.info.transaction_status == TransactionStatus.INTRANS


def _statements(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"].split()[0].upper() for q in queries.captured_queries]


def _message(room: Room, seat: Assignment, seq: int, client_id: str) -> Message:
    return Message(room=room, seq=seq, sender=seat, role=seat.role, client_id=client_id, text=f"turn {seq}")


def test_a_message_is_stored_and_committed_in_one_transaction_with_no_round_trip_of_its_own():
    room = make_room(make_campaign(), first_speaker="apprentice")
    seats = _seats(room)
    with CaptureQueriesContext(connection) as queries:
        posted = rooms.message_post(room_id=room.pk, assignment=seats["apprentice"], client_id="a1", text="hi", frame={"type": "message"})
    assert posted.created and posted.message.seq == 1
    assert _idle()
    assert list(Message.objects.filter(room=room).values_list("seq", "text")) == [(1, "hi")]
    if connection.vendor == "postgresql":
        # BEGIN goes with the lock and the reads, COMMIT with the insert: nothing else.
        assert _statements(queries) == ["BEGIN", "UPDATE", "SELECT", "INSERT", "COMMIT"]


def test_a_refused_message_rolls_back_the_lock_and_its_stamp_and_leaves_the_room_unlocked():
    room = make_room(make_campaign(), first_speaker="apprentice")
    seats = _seats(room)
    before = Room.objects.get(pk=room.pk).activity_at
    with pytest.raises(ProtocolError) as refused:
        rooms.message_post(room_id=room.pk, assignment=seats["wizard"], client_id="w1", text="too soon", frame={"type": "message"})
    assert refused.value.code == "not_your_turn"
    assert _idle()
    assert Room.objects.get(pk=room.pk).activity_at == before  # the lock's stamp was rolled back
    posted = rooms.message_post(room_id=room.pk, assignment=seats["apprentice"], client_id="a1", text="hi", frame={"type": "message"})
    assert posted.created and posted.message.seq == 1


def test_a_resend_fails_in_the_commit_batch_and_is_answered_with_the_stored_message():
    room = make_room(make_campaign(), first_speaker="apprentice")
    seats = _seats(room)
    first = rooms.message_post(room_id=room.pk, assignment=seats["apprentice"], client_id="a1", text="hi", frame={"type": "message"})
    # With the wizard first the apprentice speaks second, so the resend passes the turn check and
    # is refused by the unique client_id: in the batch that carries the COMMIT.
    Room.objects.filter(pk=room.pk).update(first_speaker="wizard")
    with CaptureQueriesContext(connection) as queries:
        again = rooms.message_post(room_id=room.pk, assignment=seats["apprentice"], client_id="a1", text="hi", frame={"type": "message"})
    assert not again.created and again.message.pk == first.message.pk
    assert _idle()
    if connection.vendor == "postgresql":
        assert "ROLLBACK" in _statements(queries)
    assert Message.objects.filter(room=room).count() == 1


def test_the_message_that_reaches_the_turn_limit_ends_the_chat_in_the_same_transaction():
    room = make_room(make_campaign(turn_limit=1), first_speaker="apprentice", topic_passage=["Jazz swings."])
    seats = _seats(room)
    rooms.message_post(room_id=room.pk, assignment=seats["apprentice"], client_id="a1", text="hi", frame={"type": "message"})
    frame = {"type": "message", "checked": {"source": "chosen", "passage": 0, "sentence": 0}}
    with CaptureQueriesContext(connection) as queries:
        rooms.message_post(room_id=room.pk, assignment=seats["wizard"], client_id="w1", text="it swings", frame=frame)
    assert _idle()
    stored = Room.objects.get(pk=room.pk)
    assert (stored.status, stored.end_reason) == (RoomStatus.RATING, "turn limit reached")
    if connection.vendor == "postgresql":
        assert _statements(queries) == ["BEGIN", "UPDATE", "SELECT", "INSERT", "UPDATE", "COMMIT"]


def test_an_orm_statement_before_the_first_batch_is_inside_the_transaction():
    room = make_room(make_campaign())
    with pytest.raises(RuntimeError), batched_transaction():
        Room.objects.filter(pk=room.pk).update(end_reason="rolled back")
        run_together(STAMP(room=room.pk, reason="rolled back too"))
        raise RuntimeError("abandoned")
    assert _idle()
    assert Room.objects.get(pk=room.pk).end_reason == ""


def test_a_block_left_without_a_commit_batch_commits_on_the_way_out():
    room = make_room(make_campaign())
    with batched_transaction():
        run_together(STAMP(room=room.pk, reason="kept"))
    assert _idle()
    assert Room.objects.get(pk=room.pk).end_reason == "kept"


@on_postgres
def test_a_statement_after_the_commit_batch_is_refused():
    room = make_room(make_campaign())
    seat = _seats(room)["wizard"]
    with pytest.raises(transaction.TransactionManagementError), batched_transaction():
        insert(_message(room, seat, 1, "w1"), commit=True)
        Room.objects.filter(pk=room.pk).update(end_reason="after the commit")
    assert _idle()
    assert Message.objects.filter(room=room).count() == 1  # what was committed stays
    assert Room.objects.get(pk=room.pk).end_reason == ""


def test_inside_an_atomic_block_it_is_a_savepoint_of_that_block():
    room = make_room(make_campaign())
    with transaction.atomic():
        with pytest.raises(RuntimeError), batched_transaction():
            run_together(STAMP(room=room.pk, reason="undone"))
            raise RuntimeError("abandoned")
        with batched_transaction():
            run_together(STAMP(room=room.pk, reason="kept"), commit=True)
        assert _in_transaction()  # `commit` did not commit the outer block
    assert Room.objects.get(pk=room.pk).end_reason == "kept"


@on_postgres
def test_a_connection_lost_mid_transaction_is_closed_and_the_next_call_gets_a_new_one():
    room = make_room(make_campaign())
    seat = _seats(room)["wizard"]
    with pytest.raises(OperationalError), batched_transaction():
        run_together(STAMP(room=room.pk, reason="lost"), SEQS(room=room.pk))
        with connection.connection.cursor() as own:
            own.execute("SELECT pg_backend_pid()")
            [pid] = own.fetchone()
        from django.db import connections

        other = connections.create_connection("default")
        try:
            other.cursor().execute("SELECT pg_terminate_backend(%s)", [pid])
        finally:
            other.close()
        insert(_message(room, seat, 1, "w1"), commit=True)
    connection.close_if_unusable_or_obsolete()
    assert Room.objects.get(pk=room.pk).end_reason == ""  # nothing of it committed
    assert not Message.objects.filter(room=room).exists()
    assert _idle()


@on_postgres
def test_a_connection_closed_mid_transaction_is_not_replaced_by_a_new_one_that_runs_the_rest():
    room = make_room(make_campaign())
    seat = _seats(room)["wizard"]
    with pytest.raises(InterfaceError), batched_transaction():
        run_together(STAMP(room=room.pk, reason="lost"))
        connection.close()
        insert(_message(room, seat, 1, "w1"), commit=True)
    assert Room.objects.get(pk=room.pk).end_reason == ""
    assert not Message.objects.filter(room=room).exists()
    assert _idle()
