"""groundwork.round_trips: ORM statements sent together (one query string on PostgreSQL) give what
the ORM gives one by one, in the caller's transaction, and a read after a row lock in the same
batch sees what the transaction it waited for committed."""

from __future__ import annotations

import os
import threading
import time

import pytest
from django.db import IntegrityError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from collect.models import Assignment, Campaign, Message, Room
from groundwork.round_trips import Param, Prepared, Read, Update, Written, insert, run_together
from tests.factories import add_message, make_campaign, make_room

pytestmark = pytest.mark.backends

on_postgres = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="needs PostgreSQL"
)


@pytest.mark.django_db
def test_results_are_the_orms():
    room = make_room(make_campaign())
    for role in ("wizard", "apprentice", "wizard"):
        add_message(room, role, f"a {role}'s turn")
    messages = Message.objects.filter(room=room).order_by("-seq").values_list("seq", "role", "retrieved_passages")[:2]
    rooms = Room.objects.filter(pk=room.pk)
    with transaction.atomic():
        changed, recent, campaign, none = run_together(
            Update(rooms, {"end_reason": "batched"}),
            Read(messages),
            Read(Campaign.objects.filter(rooms=room.pk).values_list("slug", "turn_limit")),
            Read(Room.objects.filter(pk=room.pk, status="no such status").values_list("id")),
        )
    assert changed == 1
    assert recent == list(messages) and [row[0] for row in recent] == [3, 2]
    assert campaign == [(room.campaign.slug, room.campaign.turn_limit)]
    assert none == []
    assert Room.objects.get(pk=room.pk).end_reason == "batched"


@pytest.mark.django_db
def test_each_statement_is_logged_as_a_query():
    room = make_room(make_campaign())
    rooms = Room.objects.filter(pk=room.pk)
    with CaptureQueriesContext(connection) as queries:
        run_together(Update(rooms, {"end_reason": "x"}), Read(rooms.values_list("status")))
    statements = [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().upper().startswith(("UPDATE", "SELECT"))]
    assert len(statements) == 2
    assert statements[0].lstrip().upper().startswith("UPDATE") and "end_reason" in statements[0]


@pytest.mark.django_db
def test_a_failing_statement_raises_djangos_error_and_rolls_back():
    taken, other = make_campaign(slug="taken"), make_campaign(slug="other")
    room = make_room(campaign=other)
    with pytest.raises(IntegrityError), transaction.atomic():
        run_together(
            Update(Room.objects.filter(pk=room.pk), {"end_reason": "kept?"}),
            Update(Campaign.objects.filter(pk=other.pk), {"slug": taken.slug}),
        )
    assert Room.objects.get(pk=room.pk).end_reason == ""
    assert Campaign.objects.filter(slug="other").exists()


@on_postgres
@pytest.mark.django_db(transaction=True)
def test_a_read_after_the_lock_sees_what_the_lock_holder_committed():
    """The reason the message path may batch its lock and its reads: each statement of the batch
    takes its own snapshot, after the update has waited for the row lock."""
    room = make_room(make_campaign())
    locked, committed_at = threading.Event(), []

    def holder() -> None:
        try:
            with transaction.atomic():
                Room.objects.select_for_update().get(pk=room.pk)
                locked.set()
                time.sleep(0.5)
                add_message(room, "wizard", "committed while the lock was held")
                committed_at.append(time.monotonic())
        finally:
            connections.close_all()

    thread = threading.Thread(target=holder)
    thread.start()
    assert locked.wait(5)
    with transaction.atomic():
        _, seqs = run_together(
            Update(Room.objects.filter(pk=room.pk), {"end_reason": "after the lock"}),
            Read(Message.objects.filter(room=room).values_list("seq")),
        )
        returned_at = time.monotonic()
    thread.join()
    assert returned_at > committed_at[0]  # it did wait for the lock
    assert seqs == [(1,)]


ROOM_ID = Param("room", Room._meta.pk)
LOCK = Prepared(lambda: Update(Room.objects.filter(pk=ROOM_ID), {"end_reason": Param("reason", Room._meta.get_field("end_reason"))}))
RECENT = Prepared(lambda: Read(Message.objects.filter(room_id=ROOM_ID).order_by("-seq").values_list("seq", "role", "retrieved_passages")[:2]))


@pytest.mark.django_db
def test_a_prepared_statement_gives_what_the_orm_gives_for_each_binding():
    rooms = [make_room(make_campaign(slug=f"c{i}")) for i in range(2)]
    add_message(rooms[0], "wizard", "one", retrieved_passages=[{"A": ["a."]}])
    add_message(rooms[0], "apprentice", "two")
    add_message(rooms[1], "wizard", "three", retrieved_passages=[{"B": ["b."]}])
    for room, reason in zip(rooms, ("first", "second")):
        with transaction.atomic():
            changed, recent = run_together(LOCK(room=str(room.pk), reason=reason), RECENT(room=room.pk))
        assert changed == 1
        assert recent == list(Message.objects.filter(room=room).order_by("-seq").values_list("seq", "role", "retrieved_passages")[:2])
        assert Room.objects.get(pk=room.pk).end_reason == reason
    assert recent == [(1, "wizard", [{"B": ["b."]}])]  # the JSON column converted as the ORM converts it


@pytest.mark.django_db
def test_a_prepared_statement_is_compiled_once_per_connection():
    room = make_room(make_campaign())
    builds = []
    counted = Prepared(lambda: builds.append(1) or Read(Room.objects.filter(pk=ROOM_ID).values_list("status")))
    for _ in range(3):
        assert run_together(counted(room=room.pk)) == [[(room.status,)]]
    assert len(builds) == 1
    with CaptureQueriesContext(connection) as queries:
        run_together(counted(room=room.pk), LOCK(room=room.pk, reason="logged"))
    assert [q["sql"].split()[0] for q in queries.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))] == ["SELECT", "UPDATE"]


@pytest.mark.django_db
def test_insert_stores_what_save_stores():
    room = make_room(make_campaign())
    seat = Assignment.objects.filter(room=room).first()
    message = Message(room=room, seq=1, sender=seat, role=seat.role, client_id="c1", text="hello",
                      checked_sentence={"A": "a."}, retrieved_passages=None)
    insert(message)
    assert message.pk is not None and not message._state.adding
    stored = Message.objects.get(pk=message.pk)
    assert (stored.text, stored.checked_sentence, stored.retrieved_passages, stored.liked) == ("hello", {"A": "a."}, None, False)
    assert stored.created == message.created and stored.created is not None  # auto_now_add, set when bound
    with pytest.raises(IntegrityError), transaction.atomic():
        insert(Message(room=room, seq=2, sender=seat, role=seat.role, client_id="c1", text="the same client_id"))
    assert Message.objects.filter(room=room).count() == 1


@on_postgres
@pytest.mark.django_db
def test_on_postgresql_a_prepared_statement_is_parsed_once_by_the_server_and_its_values_are_quoted():
    room = make_room(make_campaign())
    tricky = "it's a \\ back'slash; -- not a comment %s $1 ünïcode); SELECT 1; --"
    for _ in range(3):
        with transaction.atomic():
            run_together(LOCK(room=room.pk, reason=tricky))
    before = _prepared_statements()
    run_together(Read(Room.objects.filter(pk=room.pk, end_reason="ad hoc").values_list("id")))
    assert _prepared_statements() == before  # the ad hoc read is sent whole, not prepared
    assert Room.objects.get(pk=room.pk).end_reason == tricky
    [prepared] = [text for text in before if text.startswith(f"PREPARE {LOCK.name} ")]  # once
    assert prepared.startswith(f"PREPARE {LOCK.name} AS UPDATE") and "= $1" in prepared and "$2" in prepared


def _prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements ORDER BY name")
        return [row[0] for row in cursor.fetchall()]


@on_postgres
@pytest.mark.django_db
def test_with_prepared_statements_off_nothing_is_prepared_and_the_results_are_the_same():
    """DATABASE_PREPARED_STATEMENTS=0 (behind a pooler that cannot keep them) sets psycopg's
    prepare_threshold to None: the statements are then sent whole, every time."""
    room = make_room(make_campaign())
    add_message(room, "wizard", "one", retrieved_passages=[{"A": ["a."]}])
    lock, recent_read = Prepared(LOCK.build), Prepared(RECENT.build)  # new to the connection
    connection.ensure_connection()
    raw = connection.connection
    raw.prepare_threshold = None
    try:
        with transaction.atomic():
            changed, recent = run_together(lock(room=room.pk, reason="unprepared"), recent_read(room=room.pk))
    finally:
        raw.prepare_threshold = 2**31 - 1
    assert (changed, recent) == (1, [(1, "wizard", [{"A": ["a."]}])])
    assert Room.objects.get(pk=room.pk).end_reason == "unprepared"
    assert not [text for text in _prepared_statements() if f" {lock.name} " in text or f" {recent_read.name} " in text]
    run_together(lock(room=room.pk, reason="prepared"))  # the check above can fail: with the threshold back, it is prepared
    assert [text for text in _prepared_statements() if f" {lock.name} " in text]


@on_postgres
@pytest.mark.django_db
def test_written_sql_is_converted_as_its_like_queryset():
    room = make_room(make_campaign())
    add_message(room, "wizard", "one", retrieved_passages=[{"A": ["a."]}])
    like = Message.objects.values_list("seq", "retrieved_passages", "created")

    def sql(connection):
        qn = connection.ops.quote_name
        table = qn(Message._meta.db_table)
        return (f"UPDATE {table} SET {qn('text')} = %s WHERE {qn('room_id')} = %s "
                f"RETURNING {qn('seq')}, {qn('retrieved_passages')}, {qn('created')}"), [Param("text", Message._meta.get_field("text")), ROOM_ID]

    written = Prepared(lambda: Written(sql, like))
    [rows] = run_together(written(room=room.pk, text="rewritten"))
    assert rows == list(like.filter(room=room))  # the JSON decoded, the time zone-aware datetime as the ORM gives it
    assert rows[0][1] == [{"A": ["a."]}]
    assert Message.objects.get(room=room).text == "rewritten"
