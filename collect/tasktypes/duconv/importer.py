"""Import DuConv session files (JSON Lines: `goal`, `knowledge`, `conversation`;
docs/schemas.md#duconv) as complete rooms of an inactive DuConv campaign (the agent speaks the even
turns), so that they can be scored and exported again. Their triples go into the campaign's
knowledge graph.

The split is the given one (`--split train|dev|test`), else the one the file name names (e.g.
`dev.txt`); a file whose name names none is refused unless `--split hash` asks every export to
split its sessions by hash. Sessions keep their file order. Values are stored exactly as read, so an export writes
every line back as it was. A bad line stops the import with its line number; nothing is stored.

A test-format samples file (the release's test_1/test_2, or the baseline's conversion of a session
file: `goal`, `knowledge`, `history` and, where given, `response`) imports too: each sample is a room
whose messages are its history then its response, marked with the sample's keys so that
`export_dataset duconv --samples` writes it back as read (and the session export leaves it out: a
sample is the start of a dialogue, not a whole one)."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from pathlib import Path
from typing import Any

from django.db import transaction

from collect.importers import split_chosen
from collect.models import Assignment, AssignmentStatus, Campaign, Message, Room, RoomStatus, Worker
from collect.tasktypes.duconv import NAME
from collect.tasktypes.duconv.models import DuConvSession
from collect.tasktypes.duconv.protocol import AGENT, USER
from groundwork.surrogates import lone_surrogate
from retrieval.graph.services import GoalError, goal_shape_check, triples_import

PLATFORM = "duconv"
KEYS = ("goal", "knowledge", "conversation")
SAMPLE_KEYS = ("goal", "knowledge", "history", "response")  # response optional
SPLIT_IN_NAME = re.compile(r"(?:^|[^a-z])(train|dev|test)(?:[^a-z]|$)")
SPLITS = ("train", "dev", "test")


class DuConvImportError(ValueError):
    """The file cannot be imported; says where and why. Nothing was written."""


def parse_line(number: int, raw: bytes) -> dict[str, Any]:
    where = f"line {number}"
    try:
        obj = json.loads(raw)
    except UnicodeDecodeError:
        raise DuConvImportError(f"{where}: not valid UTF-8") from None
    except json.JSONDecodeError as error:
        raise DuConvImportError(f"{where}: invalid JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(obj, dict):
        raise DuConvImportError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    # Before any other check, so the message names the line and field (groundwork.surrogates).
    if (found := lone_surrogate(obj)) is not None:
        raise DuConvImportError(f"{where}: {found.problem()}")
    sample = "conversation" not in obj and "history" in obj
    missing = [k for k in (SAMPLE_KEYS[:3] if sample else KEYS) if k not in obj]
    if missing:
        raise DuConvImportError(f"{where}: missing {', '.join(repr(k) for k in missing)}")
    try:
        goal_shape_check(obj["goal"])
    except GoalError as error:
        raise DuConvImportError(f"{where}: {error}") from None
    knowledge = obj["knowledge"]
    if not isinstance(knowledge, list) or not all(
        isinstance(t, list) and len(t) == 3 and all(isinstance(x, str) for x in t) for t in knowledge
    ):
        raise DuConvImportError(f"{where}: 'knowledge' must be a list of [subject, property, value] string triples")
    if sample:
        return _sample(where, obj, knowledge)
    conversation = obj["conversation"]
    if not isinstance(conversation, list) or not conversation or not all(isinstance(u, str) for u in conversation):
        raise DuConvImportError(f"{where}: 'conversation' must be a non-empty list of strings")
    extra = {k: v for k, v in obj.items() if k not in KEYS}
    return {"goal": obj["goal"], "knowledge": knowledge, "conversation": conversation, "extra": extra or None,
            "sample_keys": None}


def _sample(where: str, obj: dict[str, Any], knowledge: list[list[str]]) -> dict[str, Any]:
    """A test-format sample (the release's test files, the baseline's conversion): its history, then
    its response when it has one (the released test files withhold it), become the room's messages."""
    history = obj["history"]
    if not isinstance(history, list) or not all(isinstance(u, str) for u in history):
        raise DuConvImportError(f"{where}: 'history' must be a list of strings")
    if "response" in obj and not isinstance(obj["response"], str):
        raise DuConvImportError(f"{where}: 'response' must be a string")
    conversation = [*history, *([obj["response"]] if "response" in obj else [])]
    extra = {k: v for k, v in obj.items() if k not in SAMPLE_KEYS}
    return {"goal": obj["goal"], "knowledge": knowledge, "conversation": conversation, "extra": extra or None,
            "sample_keys": list(obj)}


def split_of(path: Path, given: str | None = None) -> str:
    return split_chosen(path=path, given=given, splits=SPLITS, name=SPLIT_IN_NAME, fail=DuConvImportError,
                        named="train, dev or test", items="sessions")


def duconv_import(*, path: Path, campaign: str = "", split: str | None = None) -> dict[str, Any]:
    split = split_of(path, split)
    data = path.read_bytes()
    sessions = [parse_line(n, raw) for n, raw in enumerate(data.splitlines(), start=1) if raw.strip()]
    if not sessions:
        raise DuConvImportError(f"{path}: no sessions")
    digest = hashlib.sha256(data).hexdigest()[:10]
    slug = campaign or f"duconv-import-{digest}"
    with transaction.atomic():
        if Campaign.objects.filter(slug=slug).exists():
            raise DuConvImportError(f"campaign {slug!r} already exists: this file was imported before")
        triples = (t for s in sessions for t in [*s["goal"][1:], *s["knowledge"]])
        graph = triples_import(slug=slug, name=f"DuConv graph of {path.name}", language="zh", records=(tuple(t) for t in triples))
        target = Campaign.objects.create(
            slug=slug, name=f"DuConv import {path.name}", protocol=NAME, is_active=False,
            knowledge_source_id=_source_id(slug), min_turns=1, max_turns=8, turn_limit=50,
        )
        workers = {role: Worker.objects.get_or_create(platform=PLATFORM, external_id=role)[0] for role in (AGENT, USER)}
        rooms, rows, seats, messages = [], [], [], []
        for position, s in enumerate(sessions):
            room = Room(id=uuid.uuid4(), campaign=target, status=RoomStatus.COMPLETE, first_speaker=AGENT,
                        turns_required=0, topic=s["goal"][0][1][:300], end_reason="imported")
            rooms.append(room)
            rows.append(DuConvSession(room=room, goal=s["goal"], knowledge=s["knowledge"], split=split,
                                      position=position, extra=s["extra"], sample_keys=s["sample_keys"]))
            seat = {role: Assignment(campaign=target, worker=workers[role], status=AssignmentStatus.PAIRED, room=room, role=role)
                    for role in (AGENT, USER)}
            seats += seat.values()
            for seq, text in enumerate(s["conversation"], start=1):
                role = AGENT if seq % 2 else USER
                messages.append(Message(room=room, seq=seq, sender=seat[role], role=role, client_id=f"import-{seq}", text=text))
        Room.objects.bulk_create(rooms)
        DuConvSession.objects.bulk_create(rows)
        Assignment.objects.bulk_create(seats)
        Message.objects.bulk_create(messages, batch_size=2000)
    return {"campaign": slug, "split": split or "(by hash at export, as asked)", "sessions": len(rooms),
            "messages": len(messages), "triples": graph.created}


def _source_id(slug: str) -> int:
    from retrieval.models import KnowledgeSource

    return KnowledgeSource.objects.get(slug=slug).pk


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    """The `import_dataset duconv FILE [--job SLUG]` entry (--job names the campaign)."""
    if not path.is_file():
        raise DuConvImportError(f"{path}: no such file")
    return duconv_import(path=path, campaign=options.get("job") or "", split=options.get("split"))
