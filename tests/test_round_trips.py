"""groundwork.round_trips: ORM statements sent together (psycopg's pipeline on PostgreSQL) give what
the ORM gives one by one, in the caller's transaction, and a read after a row lock in the same
batch sees what the transaction it waited for committed."""

from __future__ import annotations

import os
import threading
import time

import pytest
from django.db import IntegrityError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from collect.models import Campaign, Message, Room
from groundwork.round_trips import Read, Update, run_together
from tests.factories import add_message, make_campaign, make_room

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
