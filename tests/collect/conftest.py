"""The people of the collection tests: alice and bob are paired in a room, charlie is an outsider."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.sessions.backends.db import SessionStore

from collect.models import Assignment, Campaign, Persona, Room, RoomStatus, Worker
from collect.tasktypes.curiosity.models import CuriosityDialog
from collect import registry
from collect.tasktypes.curiosity import protocol as curiosity
from collect.tasktypes.duconv import protocol as duconv
from collect.tasktypes.topical_chat.release import AGENT_1, AGENT_2
from collect.tasktypes.wow import protocol as wow
from tests.factories import seat


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


# Who takes which role: alice the wizard (Wizard of Wikipedia's and of Internet's), the Curiosity
# user, the DuConv user or Topical-Chat's agent_1; bob the other.
SEATED = {
    wow.WIZARD: "alice", wow.APPRENTICE: "bob", curiosity.USER: "alice", curiosity.ASSISTANT: "bob", duconv.AGENT: "bob",
    AGENT_1: "alice", AGENT_2: "bob",
}


@dataclass
class PairedRoom:
    """A room with its two members seated; each member's Seat is also an attribute named by role
    (`paired.wizard`, `paired.user`, `paired.agent`...)."""

    room: Room
    seats: dict[str, Seat]  # by role
    outsider: Worker

    def __getattr__(self, role: str) -> Seat:
        try:
            return self.__dict__["seats"][role]
        except KeyError:
            raise AttributeError(role) from None

    @property
    def dialog(self) -> CuriosityDialog:
        """A Curiosity room's dialogue."""
        return CuriosityDialog.objects.get(room=self.room)


# The names the tests of each protocol give the type.
CuriosityRoom = DuConvRoom = PairedRoom


def make_room(campaign: Campaign, *, first_speaker: str = "", topic: str = "") -> PairedRoom:
    """alice and bob (SEATED) in a fresh room of the campaign's protocol, each with a session
    cookie; charlie exists but is in no room. A Wizard of Wikipedia room waits for its topic, which
    `first_speaker` (the wizard unless given) chooses when `topic` is given; any other room is set up
    by its protocol (`room_create`: Curiosity's topic and aspects, DuConv's goal, Topical-Chat's
    reading sets...), with `first_speaker` where given."""
    from collect.services import rooms

    protocol = registry.protocol(campaign.protocol)
    if protocol is wow.WOW:
        first_speaker = first_speaker or wow.WIZARD
        room = Room.objects.create(
            campaign=campaign,
            status=RoomStatus.CHOOSING_TOPIC,
            first_speaker=first_speaker,
            turns_required=campaign.min_turns,
            persona=campaign.personas.first(),
        )
    else:
        room = protocol.room_create(campaign=campaign)
        if first_speaker:
            room.first_speaker = first_speaker
            room.save(update_fields=["first_speaker"])
    seats = {}
    for role in protocol.roles:
        worker, _ = Worker.objects.get_or_create(platform="inhouse", external_id=SEATED[role])
        seats[role] = Seat(worker, seat(room, role, worker), session_cookie(worker))
    if topic:
        frame = {"type": "choose_topic", "topic": topic}
        rooms.room_act(room_id=room.id, assignment=seats[first_speaker].assignment, name="choose_topic", frame=frame)
        room.refresh_from_db()
    charlie, _ = Worker.objects.get_or_create(platform="inhouse", external_id="charlie")
    return PairedRoom(room, seats, charlie)


@pytest.fixture
def paired(campaign: Campaign) -> PairedRoom:
    return make_room(campaign)
