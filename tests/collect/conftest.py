"""The people of the collection tests: alice and bob are paired in a room, charlie is an outsider."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.sessions.backends.db import SessionStore

from collect.models import Assignment, AssignmentStatus, Campaign, Persona, Room, RoomStatus, Worker
from collect.protocols import wow


@pytest.fixture
def campaign(knowledge) -> Campaign:
    campaign = Campaign.objects.create(
        slug="wow-test", name="WoW test", knowledge_source=knowledge, min_turns=2, max_turns=2, turn_limit=4
    )
    Persona.objects.create(campaign=campaign, text="I love playing the guitar.", topics=["Guitar", "Blues"])
    return campaign


def session_cookie(worker: Worker) -> bytes:
    session = SessionStore()
    session["worker_id"] = worker.pk
    session.create()
    return f"sessionid={session.session_key}".encode()


@dataclass
class Seat:
    worker: Worker
    assignment: Assignment
    cookie: bytes


@dataclass
class PairedRoom:
    room: Room
    wizard: Seat
    apprentice: Seat
    outsider: Worker


def make_room(campaign: Campaign, *, first_speaker: str = wow.WIZARD, topic: str = "") -> PairedRoom:
    """alice (wizard) and bob (apprentice) in a fresh room; charlie exists but is in no room."""
    from collect.services import rooms

    room = Room.objects.create(
        campaign=campaign,
        status=RoomStatus.CHOOSING_TOPIC,
        first_speaker=first_speaker,
        turns_required=campaign.min_turns,
        persona=campaign.personas.first(),
    )
    seats = {}
    for name, role in (("alice", wow.WIZARD), ("bob", wow.APPRENTICE)):
        worker, _ = Worker.objects.get_or_create(platform="inhouse", external_id=name)
        assignment = Assignment.objects.create(
            campaign=campaign, worker=worker, status=AssignmentStatus.PAIRED, room=room, role=role
        )
        seats[role] = Seat(worker, assignment, session_cookie(worker))
    if topic:
        frame = {"type": "choose_topic", "topic": topic}
        rooms.room_act(room_id=room.id, assignment=seats[first_speaker].assignment, name="choose_topic", frame=frame)
        room.refresh_from_db()
    charlie, _ = Worker.objects.get_or_create(platform="inhouse", external_id="charlie")
    return PairedRoom(room, seats[wow.WIZARD], seats[wow.APPRENTICE], charlie)


@pytest.fixture
def paired(campaign: Campaign) -> PairedRoom:
    return make_room(campaign)
