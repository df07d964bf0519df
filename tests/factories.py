"""Plain helpers that create campaigns, rooms and messages through the ORM, for any test.

Every helper takes keyword overrides and fills the rest with valid, unique values.
"""

from __future__ import annotations

from itertools import count
from typing import Any

from django.db.models import Max

from collect.models import Assignment, AssignmentStatus, Campaign, Message, Persona, Room, RoomStatus, Worker
from retrieval.models import KnowledgeSource

_ids = count(1)

TOPIC = "Science fiction"
TOPIC_PASSAGE = [
    "Science fiction is a genre of speculative fiction.",
    "It deals with imaginative and futuristic concepts.",
    "Examples include advanced science and technology, space exploration and time travel.",
]


def make_source(**fields: Any) -> KnowledgeSource:
    n = next(_ids)
    fields.setdefault("slug", f"source-{n}")
    fields.setdefault("name", f"Source {n}")
    return KnowledgeSource.objects.create(**fields)


def make_campaign(**fields: Any) -> Campaign:
    n = next(_ids)
    fields.setdefault("slug", f"campaign-{n}")
    fields.setdefault("name", f"Campaign {n}")
    if "knowledge_source" not in fields:
        fields["knowledge_source"] = make_source()
    return Campaign.objects.create(**fields)


def make_worker(**fields: Any) -> Worker:
    fields.setdefault("external_id", f"worker-{next(_ids)}")
    return Worker.objects.create(**fields)


def make_persona(campaign: Campaign, **fields: Any) -> Persona:
    fields.setdefault("text", "I like to read science fiction novels.")
    fields.setdefault("topics", [TOPIC, "Time travel"])
    return Persona.objects.create(campaign=campaign, **fields)


def make_room(
    campaign: Campaign,
    *,
    wizard: Worker | None = None,
    apprentice: Worker | None = None,
    first_speaker: str = "wizard",
    topic: str = TOPIC,
    topic_passage: list[str] | None = None,
    status: str = RoomStatus.CHATTING,
    **fields: Any,
) -> Room:
    """A room with its two seats taken (paired assignments for `wizard` and `apprentice`, new
    workers when not given). Other Room fields (persona, rating, end_reason...) pass through."""
    fields.setdefault("turns_required", campaign.min_turns)
    room = Room.objects.create(
        campaign=campaign,
        first_speaker=first_speaker,
        topic=topic,
        topic_passage=list(TOPIC_PASSAGE if topic_passage is None else topic_passage),
        status=status,
        **fields,
    )
    for role, worker in (("wizard", wizard), ("apprentice", apprentice)):
        seat(room, role, worker or make_worker())
    return room


def seat(room: Room, role: str, worker: Worker) -> Assignment:
    """`worker` paired into `room` as `role`: the assignment a pairing makes."""
    return Assignment.objects.create(campaign=room.campaign, worker=worker, room=room, role=role, status=AssignmentStatus.PAIRED)


def add_message(
    room: Room,
    role: str,
    text: str,
    *,
    retrieved_passages: list[dict[str, list[str]]] | None = None,
    checked_sentence: dict[str, str] | None = None,
    checked_passage: dict[str, str] | None = None,
    knowledge_shown: Any = None,
    client_id: str | None = None,
) -> Message:
    """The next message in `room` (seq = last + 1), sent by the member seated as `role`."""
    last = room.messages.aggregate(last=Max("seq"))["last"] or 0
    return Message.objects.create(
        room=room,
        seq=last + 1,
        sender=Assignment.objects.get(room=room, role=role),
        role=role,
        client_id=client_id or f"client-{next(_ids)}",
        text=text,
        retrieved_passages=retrieved_passages,
        knowledge_shown=knowledge_shown,
        checked_sentence=checked_sentence,
        checked_passage=checked_passage,
    )
