"""What a chat message reads of its room under the room's lock (rooms._room_for_message): the room
and its campaign as the ORM reads them, its last two messages, and its activity stamped; on
PostgreSQL the lock and both rows are one statement."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from collect.models import Assignment, Campaign, Message, Room
from collect.services import rooms
from tests.factories import add_message, make_campaign, make_room

pytestmark = pytest.mark.backends


def _reads_panels(sql):
    """Whether a statement reads the panels' text (the message's INSERT names every column)."""
    return not sql.startswith("INSERT") and ("topic_passage" in sql or "retrieved_passages" in sql)


def _fields(obj, names):
    return {name: getattr(obj, name) for name in names}


@pytest.mark.django_db
def test_the_room_and_campaign_are_the_orms_and_the_activity_is_stamped():
    campaign = make_campaign(turn_limit=7, protocol_config={"knowledge": {"passages": 3}})
    room = make_room(campaign, end_reason="", topic="Jazz")
    Room.objects.filter(pk=room.pk).update(activity_at=timezone.now() - timedelta(hours=1))
    for role, text in (("wizard", "one"), ("apprentice", "two"), ("wizard", "three")):
        add_message(room, role, text, retrieved_passages=[{"Jazz": ["It swings."]}] if role == "wizard" else None)
    before = timezone.now()
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        read, recent = rooms._room_for_message(room.pk)
    stored = Room.objects.get(pk=room.pk)
    assert stored.activity_at >= before
    room_names = [name for name in rooms._ROOM_FIELDS if name != "activity_at"]
    assert _fields(read, room_names) == _fields(stored, room_names)
    assert read.activity_at == stored.activity_at
    assert _fields(read.campaign, rooms._CAMPAIGN_FIELDS) == _fields(Campaign.objects.get(pk=campaign.pk), rooms._CAMPAIGN_FIELDS)
    assert read.campaign.protocol_config == {"knowledge": {"passages": 3}}
    assert [(m.seq, m.role, m.retrieved_passages) for m in recent] == [(2, "apprentice", None), (3, "wizard", [{"Jazz": ["It swings."]}])]
    statements = [q["sql"].split()[0] for q in queries.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    if connection.vendor == "postgresql":
        assert statements == ["UPDATE", "SELECT"]  # lock + room + campaign in one, then the last two messages
    else:
        assert statements == ["UPDATE", "SELECT", "SELECT", "SELECT"]


@pytest.mark.django_db
def test_a_missing_room_is_refused():
    with pytest.raises(Room.DoesNotExist), transaction.atomic():
        rooms._room_for_message(123456789)


@pytest.mark.django_db
def test_without_the_panels_their_text_is_left_unread_and_the_rest_is_the_same():
    campaign = make_campaign()
    room = make_room(campaign, topic="Jazz", topic_passage=["Jazz swings.", "It began in New Orleans."])
    add_message(room, "wizard", "one", retrieved_passages=[{"Jazz": ["It swings."]}])
    add_message(room, "apprentice", "two", retrieved_passages=[{"Blues": ["It is sad."]}])
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        lean, lean_recent = rooms._room_for_message(room.pk, panels=False)
    with transaction.atomic():
        full, full_recent = rooms._room_for_message(room.pk)
    assert "topic_passage" in lean.get_deferred_fields() and "topic_passage" not in full.get_deferred_fields()
    assert all("retrieved_passages" in m.get_deferred_fields() for m in lean_recent)
    assert [(m.pk, m.seq, m.role) for m in lean_recent] == [(m.pk, m.seq, m.role) for m in full_recent]
    kept = [name for name in rooms._ROOM_FIELDS if name not in ("topic_passage", "activity_at")]
    assert _fields(lean, kept) == _fields(full, kept)
    assert not any(_reads_panels(q["sql"]) for q in queries.captured_queries)
    # Read after all when something asks (one query), not silently empty.
    assert lean.topic_passage == ["Jazz swings.", "It began in New Orleans."]


@pytest.mark.django_db
def test_a_wow_apprentice_message_reads_no_panel_text_and_a_wizard_message_does():
    campaign = make_campaign()
    room = make_room(campaign, first_speaker="apprentice", topic="Jazz", topic_passage=["Jazz swings."])
    seats = {a.role: a for a in Assignment.objects.select_related("campaign").filter(room=room)}
    with CaptureQueriesContext(connection) as apprentice_queries:
        rooms.message_post(room_id=room.pk, assignment=seats["apprentice"], client_id="a1", text="hi", frame={"type": "message"})
    Message.objects.filter(room=room).update(retrieved_passages=[{"Jazz": ["It swings."]}])
    frame = {"type": "message", "checked": {"source": "chosen", "passage": 0, "sentence": 0}}
    with CaptureQueriesContext(connection) as wizard_queries:
        posted = rooms.message_post(room_id=room.pk, assignment=seats["wizard"], client_id="w1", text="it swings", frame=frame)
    assert not any(_reads_panels(q["sql"]) for q in apprentice_queries.captured_queries)
    assert any(_reads_panels(q["sql"]) for q in wizard_queries.captured_queries)
    assert len(apprentice_queries.captured_queries) == len(wizard_queries.captured_queries)  # nothing loaded late
    assert posted.message.checked_sentence == {"chosen_Jazz_0": "Jazz swings."}
