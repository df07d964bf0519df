"""What a chat message reads of its room under the room's lock (rooms._room_for_message): the room
and its campaign as the ORM reads them, its last two messages, and its activity stamped; on
PostgreSQL the lock and both rows are one statement."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from collect.models import Campaign, Room
from collect.services import rooms
from tests.factories import add_message, make_campaign, make_room


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
