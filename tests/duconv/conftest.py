"""DuConv fixtures: the demo film graph, a campaign on it, and the shared dev sample (skipped when
../shared is absent)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.management import call_command

from collect.models import Assignment, AssignmentStatus, Campaign, Room, Worker
from collect.protocols import duconv
from tests.collect.conftest import session_cookie
from retrieval.models import KnowledgeSource

DEMO_TSV = Path(__file__).resolve().parents[2] / "retrieval" / "graph" / "demo_films.tsv"
SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "data" / "duconv" / "dev_sample.jsonl"


@pytest.fixture
def sample_path() -> Path:
    if not SAMPLE.is_file():
        pytest.skip(f"{SAMPLE} is absent (shared development data)")
    return SAMPLE


@pytest.fixture
def films(db) -> KnowledgeSource:
    call_command("import_knowledge", "triples", str(DEMO_TSV), source="films", verbosity=0)
    return KnowledgeSource.objects.get(slug="films")


def make_campaign(source: KnowledgeSource, **config) -> Campaign:
    return Campaign.objects.create(
        slug=f"duconv-{Campaign.objects.count() + 1}",
        name="DuConv test",
        protocol="duconv",
        knowledge_source=source,
        min_turns=2,
        max_turns=4,
        turn_limit=4,
        protocol_config=config,
    )


@pytest.fixture
def campaign(films: KnowledgeSource) -> Campaign:
    return make_campaign(films)


GOAL = [["START", "Inception", "Christopher Nolan"], ["Inception", "directed by", "Christopher Nolan"]]


@dataclass
class Seat:
    worker: Worker
    assignment: Assignment
    cookie: bytes


@dataclass
class DuConvRoom:
    room: Room
    agent: Seat
    user: Seat
    outsider: Worker


def make_room(campaign: Campaign) -> DuConvRoom:
    """bob is the agent, alice the user; charlie is in no room."""
    room = duconv.DUCONV.room_create(campaign=campaign)
    seats = {}
    for name, role in (("bob", duconv.AGENT), ("alice", duconv.USER)):
        worker, _ = Worker.objects.get_or_create(platform="inhouse", external_id=name)
        assignment = Assignment.objects.create(campaign=campaign, worker=worker, status=AssignmentStatus.PAIRED, room=room, role=role)
        seats[role] = Seat(worker, assignment, session_cookie(worker))
    charlie, _ = Worker.objects.get_or_create(platform="inhouse", external_id="charlie")
    return DuConvRoom(room, seats[duconv.AGENT], seats[duconv.USER], charlie)


@pytest.fixture
def paired(films: KnowledgeSource) -> DuConvRoom:
    return make_room(make_campaign(films, goals=[{"goal": GOAL}]))
