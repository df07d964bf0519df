"""The opt-in insertion timeline (docs/authenticity.md#insertion-timeline): kept only where the
role's policy says so and the pages announced it, every edit checked, replayed against the text
sent, exported with the record; a bad one makes the record invalid with the edit named, and the
message is stored all the same."""

from __future__ import annotations

import json
import uuid

import pytest
from django.test import Client

from collect.authenticity.record import RECORD_VERSION, record_build
from collect.authenticity.timeline import MAX_EDITS, replay
from collect.exporters import turn_authenticity
from collect.models import Campaign, Message
from collect.services import rooms
from tests.collect.conftest import PairedRoom, campaign, make_room  # noqa: F401  (fixtures)
from tests.collect.test_views import login

TEXT = "Blues came from the south."
# Typed with a typo mended ("Bluse" → "Blues"), the rest one key run, then autocorrect's fix.
EDITS = [
    [400, "key", 0, 0, "Blus", [180, 150, 160]],
    [1200, "delete", 3, 1, "", []],
    [1500, "key", 3, 0, "es came from the sout", [120] * 20],
    [5000, "insert", 20, 4, "south.", []],
]


def record(**changes: object) -> dict:
    value = {"v": RECORD_VERSION, "compose_ms": 6000, "typing_ms": 4000, "typed_chars": len(TEXT), "timeline": EDITS}
    value.update(changes)
    return value


def test_the_edits_replay_to_the_text_sent() -> None:
    assert replay(EDITS) == TEXT
    stored = record_build(value=record(), text=TEXT, timeline=True)
    assert stored["client_status"] == "ok", stored["reason"]
    client = stored["client"]
    assert client["timeline"] == EDITS and client["timeline_cut"] == 0 and client["timeline_replays"] is True
    # One that does not give the text (a cut one, or one begun on a lost draft) says so.
    assert record_build(value=record(), text="Something else.", timeline=True)["client"]["timeline_replays"] is False
    cut = record_build(value=record(timeline=EDITS[:2], timeline_cut=2), text=TEXT, timeline=True)["client"]
    assert cut["timeline_cut"] == 2 and cut["timeline_replays"] is False


def test_a_timeline_the_policy_does_not_keep_is_dropped_not_stored() -> None:
    stored = record_build(value=record(), text=TEXT, timeline=False)
    assert stored["client_status"] == "ok"
    assert not {"timeline", "timeline_cut", "timeline_replays"} & set(stored["client"])
    assert "south." not in json.dumps(stored)


@pytest.mark.parametrize(
    ("timeline", "reason"),
    [
        ("typed", "timeline must be a list of edits"),
        ([[0, "key", 0, 0, "a"]], "timeline[0] must be [t_ms, kind, at, removed, text, gaps]"),
        ([[0, "key", 0, 0, "a", []], [-1, "key", 1, 0, "b", []]], "timeline[1] t_ms must be an integer"),
        ([[500, "key", 0, 0, "a", []], [100, "key", 1, 0, "b", []]], "timeline[1] t_ms goes back in time (100 after 500)"),
        ([[0, "robot", 0, 0, "a", []]], "timeline[0] kind must be one of key, ime"),
        ([[0, "key", 0, 0, "abc", [10]]], "timeline[0] gaps must hold 2 intervals"),
        ([[0, "paste", 0, 0, "abc", [10, 10]]], "timeline[0] gaps must hold 0 intervals"),
        ([[0, "key", True, 0, "a", []]], "timeline[0] at must be an integer"),
        ([[0, "key", 0, 0, 7, []]], "timeline[0] text must be a string"),
        ([[0, "key", 0, 0, "a", []]] * (MAX_EDITS + 1), f"timeline has {MAX_EDITS + 1} edits, more than {MAX_EDITS}"),
    ],
)
def test_a_bad_timeline_makes_the_record_invalid_naming_the_edit(timeline: object, reason: str) -> None:
    stored = record_build(value=record(timeline=timeline), text=TEXT, timeline=True)
    assert stored["client"] is None and stored["client_status"] == "invalid"
    assert stored["reason"].startswith(reason), stored["reason"]
    assert stored["server"]["chars"] == len(TEXT)


def test_the_export_carries_the_timeline_and_null_without_one() -> None:
    kept = turn_authenticity(record_build(value=record(), text=TEXT, timeline=True))
    assert kept["version"] == 2 and kept["timeline"] == EDITS and kept["timeline_replays"] is True and kept["timeline_cut"] == 0
    counts_only = turn_authenticity(record_build(value=record(), text=TEXT))
    assert counts_only["timeline"] is counts_only["timeline_cut"] is counts_only["timeline_replays"] is None


def _post(paired: PairedRoom, role: str, text: str) -> Message:
    frame = {"type": "message", "text": text, "authenticity": record(timeline=[[0, "paste", 0, 0, text, []]])}
    if role == "wizard":
        frame["checked"] = {"no_passages_used": True}
    posted = rooms.message_post(room_id=paired.room.pk, assignment=paired.seats[role].assignment, client_id=uuid.uuid4().hex,
                                text=text, frame=frame, page=True, address="192.0.2.1")
    return posted.message


@pytest.mark.django_db
def test_only_the_roles_the_policy_names_keep_their_timelines(campaign: Campaign) -> None:  # noqa: F811
    Campaign.objects.filter(pk=campaign.pk).update(authenticity_policy={"apprentice": {"timeline": "on"}})
    campaign.refresh_from_db()
    paired = make_room(campaign, topic="Guitar")
    wizard = _post(paired, "wizard", "Guitars have six strings, mostly.")
    apprentice = _post(paired, "apprentice", "Did you ever play one yourself?")
    assert "timeline" not in wizard.authenticity["client"]
    assert apprentice.authenticity["client"]["timeline"] == [[0, "paste", 0, 0, "Did you ever play one yourself?", []]]
    assert apprentice.authenticity["client"]["timeline_replays"] is True


@pytest.mark.django_db
def test_the_pages_announce_a_timeline_to_the_roles_it_records(client: Client, campaign: Campaign) -> None:  # noqa: F811
    Campaign.objects.filter(pk=campaign.pk).update(authenticity_policy={"apprentice": {"timeline": "on"}})
    campaign.refresh_from_db()
    paired = make_room(campaign, topic="Guitar")
    notice = 'data-testid="timeline-notice"'
    login(client, paired.apprentice.worker)
    assert notice in client.get(f"/room/{paired.room.pk}/").content.decode()
    login(client, paired.wizard.worker)
    assert notice not in client.get(f"/room/{paired.room.pk}/").content.decode()
    # Before pairing the role is not known: the waiting page says it where any role is recorded.
    waiting = Client()
    waiting.get(f"/join/{campaign.slug}/?worker=dana")
    assert notice in waiting.get(waiting.get(f"/join/{campaign.slug}/?worker=dana").url).content.decode()
    Campaign.objects.filter(pk=campaign.pk).update(authenticity_policy={})
    assert notice not in waiting.get(waiting.get(f"/join/{campaign.slug}/?worker=dana").url).content.decode()
