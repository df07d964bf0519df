"""Import Wizard of Internet files (`{train,valid,test}.jsonl`, layout.py) as complete rooms of an
inactive campaign, so that they can be reviewed, annotated and exported again: each dialogue a
room, its messages the Apprentice => Wizard and Wizard => Apprentice entries, its searches the
Wizard => SearchAgent / SearchAgent => Wizard pairs, each reply's documents and selection a
WoiTurn. Values are stored as read, so the export writes the file back byte for byte (when it was
written as the exporter writes, one `json.dumps` per line; otherwise value for value).

The split is the given one (`--split train|valid|test`), else the one the file name names; a line
that is not a dialogue of this format stops the import with its line, entry and field, and
nothing is stored."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from collect.importers import split_chosen
from collect.models import Assignment, AssignmentStatus, Campaign, Message, Room, RoomStatus, Worker
from collect.tasktypes.woi import APPRENTICE, NAME, WIZARD
from collect.tasktypes.woi.layout import (
    ACTIONS, APPRENTICE_TO_WIZARD, HISTORY, PERSONA, SEARCH_TO_WIZARD, WIZARD_TO_APPRENTICE, WIZARD_TO_SEARCH, layout_of,
)
from collect.tasktypes.woi.models import SearchStatus, WoiDialogue, WoiSearch, WoiTurn
from groundwork.surrogates import lone_surrogate
from retrieval.models import KnowledgeSource

PLATFORM = "woi"
SPLITS = ("train", "valid", "test")
SPLIT_IN_NAME = re.compile(r"(?:^|[^a-z])(train|valid|test)(?:[^a-z]|$)")


class WoiImportError(ValueError):
    """The file cannot be imported; says where and why. Nothing was written."""


@dataclass
class Parsed:
    dialog_id: str
    persona: str
    layout: dict[str, Any] | None
    messages: list[tuple[str, str, dict[str, Any] | None, Any]] = field(default_factory=list)  # role, text, layout, reply
    searches: list[dict[str, Any]] = field(default_factory=list)


def parse_line(number: int, raw: bytes) -> Parsed:
    where = f"line {number}"
    try:
        obj = json.loads(raw)
    except UnicodeDecodeError:
        raise WoiImportError(f"{where}: not valid UTF-8") from None
    except json.JSONDecodeError as error:
        raise WoiImportError(f"{where}: invalid JSON ({error.msg} at column {error.colno})") from None
    if (found := lone_surrogate(obj)) is not None:
        raise WoiImportError(f"{where}: {found.problem()}")
    if (nul := _nul_path(obj)) is not None:
        raise WoiImportError(f"{where}: {nul} holds a NUL character, which cannot be stored")
    if not isinstance(obj, dict) or len(obj) != 1:
        raise WoiImportError(f"{where}: expected a JSON object with one key, the dialogue's id")
    (dialog_id, dialogue), = obj.items()
    if not isinstance(dialogue, dict):
        raise WoiImportError(f"{where}: the dialogue {dialog_id!r} is not a JSON object")
    for key, kind in ((PERSONA, str), (HISTORY, list)):
        if not isinstance(dialogue.get(key), kind):
            raise WoiImportError(f"{where}: {key!r} must be a {'string' if kind is str else 'list'}")
    keys = list(dialogue)
    layout = {}
    if keys[:2] != [PERSONA, HISTORY]:
        layout["keys"] = keys
    if extra := [[k, v] for k, v in dialogue.items() if k not in (PERSONA, HISTORY)]:
        layout["extra"] = extra
    parsed = Parsed(dialog_id=dialog_id, persona=dialogue[PERSONA], layout=layout or None)
    history = dialogue[HISTORY]
    for index, item in enumerate(history):
        _entry(parsed, f"{where}, {HISTORY}[{index}]", item, history[index + 1] if index + 1 < len(history) else None, history[index - 1] if index else None)
    return parsed


def _entry(parsed: Parsed, where: str, item: Any, following: Any, before: Any) -> None:
    if not isinstance(item, dict):
        raise WoiImportError(f"{where}: not a JSON object")
    action, text, context = item.get("action"), item.get("text"), item.get("context")
    if action not in ACTIONS:
        raise WoiImportError(f"{where}.action: must be one of {', '.join(repr(a) for a in ACTIONS)}, not {action!r}")
    if not isinstance(text, str):
        raise WoiImportError(f"{where}.text: must be a string")
    if not isinstance(context, dict):
        raise WoiImportError(f"{where}.context: must be a JSON object")
    if action == APPRENTICE_TO_WIZARD:
        parsed.messages.append((APPRENTICE, text, layout_of(item, ()), None))
    elif action == WIZARD_TO_APPRENTICE:
        contents = _documents(f"{where}.context.contents", context.get("contents"))
        selected = _selection(f"{where}.context.selected_contents", context.get("selected_contents"), contents)
        parsed.messages.append((WIZARD, text, layout_of(item, ("contents", "selected_contents")), (contents, selected)))
    elif action == WIZARD_TO_SEARCH:
        if not isinstance(following, dict) or following.get("action") != SEARCH_TO_WIZARD:
            raise WoiImportError(f"{where}: a search query must be followed by its results ({SEARCH_TO_WIZARD!r})")
        parsed.searches.append({"after": len(parsed.messages), "query": text, "query_layout": layout_of(item, ())})
    else:
        if not isinstance(before, dict) or before.get("action") != WIZARD_TO_SEARCH:
            raise WoiImportError(f"{where}: search results must follow a query ({WIZARD_TO_SEARCH!r})")
        search = parsed.searches[-1]
        search["documents"] = _documents(f"{where}.context.contents", context.get("contents"))
        search["results_layout"] = layout_of(item, ("contents",))
        search["results_text"] = text


def _documents(where: str, value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise WoiImportError(f"{where}: must be a list of documents")
    for index, document in enumerate(value):
        if not isinstance(document, dict):
            raise WoiImportError(f"{where}[{index}]: a document must be a JSON object")
        content = document.get("content")
        if not isinstance(content, list) or not all(isinstance(s, str) for s in content):
            raise WoiImportError(f"{where}[{index}].content: must be a list of sentences (strings)")
        for key in ("url", "title"):
            if not isinstance(document.get(key), str):
                raise WoiImportError(f"{where}[{index}].{key}: must be a string")
    return value


def _selection(where: str, value: Any, contents: list[dict[str, Any]]) -> list[list[bool]]:
    shape = "[[no sentence used]] then one list of booleans per document, one per sentence"
    if not isinstance(value, list) or not all(isinstance(row, list) and all(isinstance(b, bool) for b in row) for row in value):
        raise WoiImportError(f"{where}: must be lists of booleans ({shape})")
    if not value or len(value[0]) != 1:
        raise WoiImportError(f"{where}[0]: must be [true] or [false] (no sentence used)")
    if len(value) != len(contents) + 1:
        raise WoiImportError(f"{where}: {len(value) - 1} rows for {len(contents)} documents ({shape})")
    for index, (row, document) in enumerate(zip(value[1:], contents), start=1):
        if len(row) != len(document["content"]):
            raise WoiImportError(f"{where}[{index}]: {len(row)} booleans for {len(document['content'])} sentences")
    return value


def _nul_path(value: Any, path: str = "the line") -> str | None:
    pending = [(path, value)]
    while pending:
        here, item = pending.pop()
        if isinstance(item, str) and "\x00" in item:
            return here
        if isinstance(item, dict):
            pending += [(f"{here}.{k}", v) for k, v in item.items()] + [(f"{here} key", k) for k in item]
        elif isinstance(item, list):
            pending += [(f"{here}[{i}]", v) for i, v in enumerate(item)]
    return None


def split_of(path: Path, given: str | None = None) -> str:
    return split_chosen(path=path, given=given, splits=SPLITS, name=SPLIT_IN_NAME, fail=WoiImportError,
                        named="train, valid or test", items="dialogues")


def woi_import(*, path: Path, campaign: str = "", split: str | None = None) -> dict[str, Any]:
    split = split_of(path, split)
    data = path.read_bytes()
    dialogues = [parse_line(n, raw) for n, raw in enumerate(data.splitlines(), start=1) if raw.strip()]
    if not dialogues:
        raise WoiImportError(f"{path}: no dialogues")
    slug = campaign or f"woi-import-{hashlib.sha256(data).hexdigest()[:10]}"
    with transaction.atomic():
        if Campaign.objects.filter(slug=slug).exists():
            raise WoiImportError(f"campaign {slug!r} already exists: this file was imported before")
        source, _ = KnowledgeSource.objects.get_or_create(
            slug=slug, defaults={"name": f"Wizard of Internet import {path.name} (its documents are in the dialogues)"}
        )
        target = Campaign.objects.create(
            slug=slug, name=f"Wizard of Internet import {path.name}", protocol=NAME, is_active=False,
            knowledge_source=source, min_turns=1, max_turns=4, turn_limit=100,
        )
        workers = {role: Worker.objects.get_or_create(platform=PLATFORM, external_id=role)[0] for role in (WIZARD, APPRENTICE)}
        counts = {"searches": 0, "messages": 0}
        for position, parsed in enumerate(dialogues):
            _store(target, workers, parsed, position, split, counts)
    return {"campaign": slug, "split": split or "(by hash at export, as asked)", "dialogues": len(dialogues), **counts}


def _store(campaign: Campaign, workers: dict[str, Worker], parsed: Parsed, position: int, split: str, counts: dict[str, int]) -> None:
    first = parsed.messages[0][0] if parsed.messages else APPRENTICE
    headline = parsed.persona.split("\n", 1)[0]
    room = Room.objects.create(id=uuid.uuid4(), campaign=campaign, status=RoomStatus.COMPLETE, first_speaker=first,
                               turns_required=0, topic=headline[:300], end_reason="imported")
    WoiDialogue.objects.create(room=room, persona=parsed.persona, dialog_id=parsed.dialog_id, split=split,
                               position=position, extra=parsed.layout)
    seats = {role: Assignment.objects.create(campaign=campaign, worker=workers[role], status=AssignmentStatus.PAIRED, room=room, role=role)
             for role in (WIZARD, APPRENTICE)}
    # Searches keep their order within a turn by their `created` (the export sorts by it).
    start = timezone.now()
    stored = []
    for order, search in enumerate(parsed.searches):
        layout = {"query": search["query_layout"], "results": search["results_layout"]}
        if search["results_text"]:
            layout["results_text"] = search["results_text"]
        stored.append(WoiSearch(room=room, after_seq=search["after"], query=search["query"], status=SearchStatus.DONE,
                                documents=search["documents"], backend="imported", created=start + timedelta(microseconds=order),
                                finished_at=start, layout={k: v for k, v in layout.items() if v is not None} or None))
    WoiSearch.objects.bulk_create(stored)
    latest_done: dict[int, WoiSearch] = {}
    for search in stored:
        latest_done[search.after_seq] = search
    messages, turns = [], []
    for seq, (role, text, layout, reply) in enumerate(parsed.messages, start=1):
        messages.append(Message(room=room, seq=seq, sender=seats[role], role=role, client_id=f"import-{seq}", text=text))
        if reply is None:
            if layout:
                turns.append(WoiTurn(room=room, seq=seq, layout=layout))
            continue
        contents, selected = reply
        # The documents on screen were the turn's last search's (the released files repeat them).
        shown = latest_done.get(seq - 1)
        if shown is not None and shown.documents == contents:
            turns.append(WoiTurn(room=room, seq=seq, search=shown, selected=selected, layout=layout))
        else:
            kept = {**(layout or {}), "contents": contents} if contents else layout
            turns.append(WoiTurn(room=room, seq=seq, selected=selected, layout=kept))
    Message.objects.bulk_create(messages, batch_size=2000)
    WoiTurn.objects.bulk_create(turns, batch_size=2000)
    counts["searches"] += len(stored)
    counts["messages"] += len(messages)


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    """The `import_dataset woi FILE [--campaign SLUG] [--split train|valid|test|hash]` entry."""
    if not path.is_file():
        raise WoiImportError(f"{path}: no such file")
    return woi_import(path=path, campaign=options.get("campaign") or options.get("job") or "", split=options.get("split"))
