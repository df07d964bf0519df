"""Wizard of Wikipedia exporter: rooms -> the five JSON files ParlAI's `wizard_of_wikipedia`
teachers read (docs/schemas.md#wizard-of-wikipedia), and `data.json` with all of their dialogues,
as the release has.

Splits are decided by hashing, never by counting, so that a dialogue keeps its file as data grows:
hash(seed, topic) holds a topic out entirely (`*_topic_split`, unseen topics); among the other
topics hash(seed, room id) picks train / `valid_random_split` / `test_random_split`. Wizard turns
of the valid and test files carry `candidate_responses` (collect.tasktypes.wow.candidates).
"""

from __future__ import annotations

from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any, Iterable, Iterator
from uuid import UUID

from django.db.models import QuerySet

from collect.exporters import ExportError, ExportOptions, ExportResult, JsonListFiles, rooms_authenticity, stable_fraction
from collect.tasktypes.wow.candidates import CandidatePools
from collect.models import Campaign, Decision, Message, Room, RoomStatus
from collect.tasktypes.wow import NAME

TRAIN = "train.json"
VALID_RANDOM = "valid_random_split.json"
VALID_TOPIC = "valid_topic_split.json"
TEST_RANDOM = "test_random_split.json"
TEST_TOPIC = "test_topic_split.json"
FILES = (TRAIN, VALID_RANDOM, VALID_TOPIC, TEST_RANDOM, TEST_TOPIC)
CANDIDATE_FILES = (VALID_RANDOM, VALID_TOPIC, TEST_RANDOM, TEST_TOPIC)  # wizard turns carry candidate_responses
# Every dialogue of the five files, without candidates, as the release's data.json: ParlAI's
# WizardDialogKnowledgeTeacher reads it (word frequencies for its rare-word F1) and fails without it.
ALL_DIALOGUES = "data.json"

NO_PASSAGES_USED = "no_passages_used"
# Only on dialogues that ended early (exported with --include-incomplete): true, and why it ended.
INCOMPLETE_KEY = "incomplete"
END_REASON_KEY = "end_reason"
ROLES = ("wizard", "apprentice")

Dialogue = dict[str, Any]

_ROOM_FIELDS = ("id", "topic", "topic_passage", "rating", "first_speaker", "persona__text", "status", "end_reason")
# knowledge_shown is left out on purpose: it is the largest column and the format does not use it.
_MESSAGE_FIELDS = ("room_id", "seq", "role", "text", "retrieved_passages", "checked_sentence", "checked_passage")


def export(out_dir: Path, options: ExportOptions) -> ExportResult:
    rooms = rooms_to_export(options)
    pools = CandidatePools(
        rooms=rooms, files=CANDIDATE_FILES, file_of=lambda topic, pk: split_for(topic, pk, options), seed=options.seed
    )
    skipped = 0
    with JsonListFiles(out_dir, (*FILES, ALL_DIALOGUES)) as files:
        fields = (*_MESSAGE_FIELDS, "authenticity") if options.authenticity else _MESSAGE_FIELDS
        for room, messages in iter_rooms_with_messages(rooms, chunk_size=options.chunk_size, fields=fields):
            if not messages:
                skipped += 1
                continue
            file = split_for(room["topic"], room["id"], options)
            out = dialogue(room, messages)
            if options.authenticity:
                turns = rooms_authenticity([room["id"]])[room["id"]]
                for message, entry in zip(messages, out["dialog"]):
                    entry["authenticity"] = turns.get(message["seq"])
            files.write(ALL_DIALOGUES, out, counted=False)
            if file in CANDIDATE_FILES:
                for message, entry in zip(messages, out["dialog"]):
                    if message["role"] == "wizard":
                        entry["candidate_responses"] = pools.draw(file, room["id"], message["seq"], message["text"])
            files.write(file, out)
    counts = {name: files.counts[name] for name in FILES}  # data.json repeats them: not counted twice
    return ExportResult(counts=counts, skipped_empty=skipped, notes=pools.notes())


def rooms_to_export(options: ExportOptions) -> QuerySet[Room]:
    # Rooms still in progress are never exported: their dialogue may still change.
    statuses = [RoomStatus.COMPLETE] + ([RoomStatus.INCOMPLETE] if options.include_incomplete else [])
    rooms = Room.objects.filter(status__in=statuses, campaign__protocol=NAME)
    # Review (docs/campaigns.md): soft-rejected and rejected work is never part of the dataset.
    rooms = rooms.exclude(members__decision__in=[Decision.SOFT_REJECTED, Decision.REJECTED])
    if options.campaigns:
        found = dict(Campaign.objects.filter(slug__in=options.campaigns).values_list("slug", "protocol"))
        missing = sorted(set(options.campaigns) - set(found))
        if missing:
            raise ExportError(f"no campaign with slug: {', '.join(missing)}")
        other = sorted(slug for slug, protocol in found.items() if protocol != NAME)
        if other:
            raise ExportError(f"not Wizard of Wikipedia campaigns: {', '.join(other)}")
        rooms = rooms.filter(campaign__slug__in=options.campaigns)
    return rooms


def iter_rooms_with_messages(
    rooms: QuerySet[Room], *, chunk_size: int, fields: tuple[str, ...] = _MESSAGE_FIELDS
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each room (as a dict of _ROOM_FIELDS) with its messages in order, reading `chunk_size` rooms
    per query (keyset pages on the primary key) and their messages in one streamed query, so that
    at most one page of rooms and one dialogue's messages are in memory at a time."""
    ordered = rooms.order_by("pk")
    after: UUID | None = None
    while True:
        page_query = ordered if after is None else ordered.filter(pk__gt=after)
        page = list(page_query.values(*_ROOM_FIELDS)[:chunk_size])
        if not page:
            return
        after = page[-1]["id"]
        by_id = {room["id"]: room for room in page}
        messages = (
            Message.objects.filter(room_id__in=list(by_id))
            .order_by("room_id", "seq")
            .values(*fields)
            .iterator(chunk_size=200)
        )
        for room_id, group in groupby(messages, key=itemgetter("room_id")):
            yield by_id.pop(room_id), list(group)
        for room in by_id.values():  # rooms without messages
            yield room, []


def split_for(topic: str, room_id: UUID | str, options: ExportOptions) -> str:
    # Case and spacing must not move a topic across the seen/unseen line.
    draw = stable_fraction(options.seed, "topic", topic.strip().casefold())
    if draw < options.holdout_topics:
        return VALID_TOPIC if draw < options.holdout_topics / 2 else TEST_TOPIC
    draw = stable_fraction(options.seed, "room", str(room_id))
    if draw < options.valid:
        return VALID_RANDOM
    if draw < options.valid + options.test:
        return TEST_RANDOM
    return TRAIN


def dialogue(room: dict[str, Any], messages: list[dict[str, Any]]) -> Dialogue:
    first = room["first_speaker"] if room["first_speaker"] in ROLES else messages[0]["role"]
    order = {first: 0, next(role for role in ROLES if role != first): 1}
    out = {
        "chosen_topic": room["topic"],
        "persona": (room["persona__text"] or "").strip().lower(),
        "wizard_eval": room["rating"] if room["rating"] is not None else -1,
        "chosen_topic_passage": [str(sentence) for sentence in room["topic_passage"] or []],
        "dialog": [turn(message, order, room["id"]) for message in messages],
    }
    if room.get("status") == RoomStatus.INCOMPLETE:
        # Keys WoW's loaders do not read; complete dialogues keep exactly the original schema.
        out[INCOMPLETE_KEY] = True
        out[END_REASON_KEY] = room.get("end_reason") or ""
    return out


def turn(message: dict[str, Any], order: dict[str, int], room_id: UUID) -> dict[str, Any]:
    role = message["role"]
    if role not in order:
        raise ExportError(f"room {room_id} message {message['seq']}: role {role!r} is not wizard/apprentice")
    passages = one_key_passages(message["retrieved_passages"])
    out: dict[str, Any] = {
        "speaker": f"{order[role]}_{role.capitalize()}",
        "text": message["text"],
        "retrieved_topics": [title for passage in passages for title in passage],
        "retrieved_passages": passages,
    }
    if role == "wizard":
        out["checked_sentence"] = one_key(message["checked_sentence"])
        out["checked_passage"] = one_key(message["checked_passage"])
    return out


def one_key_passages(stored: Iterable[dict[str, list[str]]] | None) -> list[dict[str, list[str]]]:
    # Loaders take list(p.items())[0] of each passage: a dict with several titles would lose all
    # but the first, so such a dict is split into one passage per title.
    return [{title: list(sentences)} for passage in stored or [] for title, sentences in passage.items()]


def one_key(stored: dict[str, str] | None) -> dict[str, str]:
    if not stored:
        return {NO_PASSAGES_USED: NO_PASSAGES_USED}
    key = next(iter(stored))
    return {key: stored[key]}
