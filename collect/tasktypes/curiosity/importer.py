"""Import Curiosity dialog files (`curiosity_dialogs.<split>.json`, docs/schemas.md#curiosity) as
complete rooms of an (inactive) Curiosity campaign, so that they can be annotated and exported
again.

Import then export reproduces every field of every dialog and message: values our columns cannot
hold as they are (an unexpected type, a null where we keep a list) and keys we do not know go to
`extra` verbatim; standard keys a dialog lacked are remembered and left out again. Worker ids stay
the file's own pseudonymous ids. The fact db the dialogs' `fid`s refer to comes with an import
(`facts`; its md5 must be the file's `db_checksum`); later files with the same checksum find it in
the store. Without it the dialogs are imported anyway, every fact reference (`fid`, `used`, `source`)
kept as given, so they export identically and can be labeled; only the fact texts are missing
(`facts_missing`) until an import with `facts` brings the db into the source that waits for it.

The split is the given one, else the one the file name names (`curiosity_dialogs.val.json`); a
file whose name names none is refused unless `split="hash"` asks the export to split it by hash.
The file-level keys (`db_checksum`, `source_checksum`, `generated_time`, ...) are kept per split
and written back (collect.tasktypes.curiosity.files).
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone as dt_timezone
from pathlib import Path
from typing import Any

from django.db import transaction

from collect.tasktypes.curiosity.exporter import ABSENT, FLAG_DEFAULTS, SPLITS
from collect.tasktypes.curiosity.files import FileKeysConflict, file_keys_of, file_keys_remember
from collect.importers import split_chosen
from collect.models import Assignment, AssignmentStatus, Campaign, Message, Room, RoomStatus, Worker
from collect.tasktypes.curiosity import NAME
from collect.tasktypes.curiosity.models import CuriosityDialog
from groundwork.surrogates import lone_surrogate
from retrieval.curiosity.factdb import FactDbError, factdb_expect, factdb_import, factdb_missing, md5_file
from retrieval.models import FactDatabase

PLATFORM = "curiosity"
SPLIT_NAME = re.compile(r"curiosity_dialogs\.([a-z_]+)\.json$")
ROLES = ("user", "assistant")
RATINGS = ("user_dialog_rating", "user_other_agent_rating", "assistant_dialog_rating", "assistant_other_agent_rating")
LISTS = ("aspects", "known_entities", "related_entities")
OPTIONAL_STR = ("first_aspect", "second_aspect")
DIALOG_KEYS = {
    "messages", "known_entities", "focus_entity", "dialog_id", "inferred_steps", "created_time", "aspects",
    "first_aspect", "second_aspect", "shuffle_facts", "related_entities", "tag", "user_id", "assistant_id",
    *FLAG_DEFAULTS, *RATINGS,
}
MESSAGE_KEYS = {"message", "liked", "sender", "facts", "message_id", "dialog_acts"}
BATCH = 500
MISSING_NOTE = (
    "MISSING: the fact db of this file (wiki_sql.sqlite.db, md5 = db_checksum) is not in the store. Every fact "
    "reference (fid, used, source) is kept and the dialogs export identically and can be labeled, but fact texts "
    "are unknown until you import the db: import_dataset curiosity FILE --facts wiki_sql.sqlite.db"
)


class CuriosityImportError(ValueError):
    """The file cannot be imported; says where and why. Nothing was written."""


@dataclass
class CuriosityImportResult:
    campaign: str
    source: str
    split: str
    dialogs: int = 0
    messages: int = 0
    already_present: int = 0
    facts: dict[str, int] = field(default_factory=dict)
    facts_missing: bool = False  # the fact db is not in the store: fids are kept, their texts are unknown


def curiosity_import(
    *, path: Path, facts: Path | None = None, campaign: str = "", source: str = "", split: str | None = None
) -> CuriosityImportResult:
    data = _read(path)
    checksum = data["db_checksum"]
    dialogs = [_parse(index, raw) for index, raw in enumerate(data["dialogs"])]
    split = _split_of(path, split)
    with transaction.atomic():
        fact_source, fact_counts = _fact_source(checksum, facts, source, path)
        target = _campaign(campaign or f"curiosity-import-{checksum[:8]}", fact_source, dialogs)
        if split:
            try:
                file_keys_remember(campaign=target, split=split, keys=file_keys_of(data), file=path.name)
            except FileKeysConflict as error:
                raise CuriosityImportError(str(error)) from error
        present = set(CuriosityDialog.objects.filter(room__campaign=target).values_list("dialog_id", flat=True))
        result = CuriosityImportResult(target.slug, fact_source.slug, split, facts=fact_counts)
        result.facts_missing = factdb_missing(source_id=fact_source.pk) is not None
        new = [d for d in dialogs if d["dialog"]["dialog_id"] not in present]
        result.already_present = len(dialogs) - len(new)
        for start in range(0, len(new), BATCH):
            _store(target, new[start : start + BATCH], split, result)
    return result


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CuriosityImportError(f"{path}: not a readable JSON file ({error})") from error
    # Stored, such text makes every page and export that shows it fail (groundwork.surrogates).
    if (found := lone_surrogate(data)) is not None:
        raise CuriosityImportError(f"{path}: {found.where()}; nothing was imported")
    if not isinstance(data, dict) or not isinstance(data.get("dialogs"), list):
        raise CuriosityImportError(f'{path}: expected an object {{"dialogs": [...], "db_checksum": "..."}}')
    if not isinstance(data.get("db_checksum"), str) or not data["db_checksum"]:
        raise CuriosityImportError(f"{path}: missing 'db_checksum' (the md5 of the fact db)")
    return data


def _split_of(path: Path, given: str | None) -> str:
    return split_chosen(path=path, given=given, splits=SPLITS, name=SPLIT_NAME, fail=CuriosityImportError,
                        named=f"curiosity_dialogs.<{'|'.join(SPLITS)}>.json", items="dialogs")


def _fact_source(checksum: str, facts: Path | None, slug: str, path: Path) -> tuple[Any, dict[str, int]]:
    """The knowledge source of the file's fact db: imported now from `facts` (into the source that
    waits for it, if an earlier file came without it), found in the store, or waiting for it."""
    waiting = FactDatabase.objects.select_related("source").filter(md5=checksum).order_by("-path", "pk").first()
    slug = slug or (waiting.source.slug if waiting is not None else f"curiosity-{checksum[:8]}")
    try:
        if facts is None:
            return factdb_expect(md5=checksum, slug=slug, name="Curiosity fact db"), {}
        if not facts.is_file():
            raise CuriosityImportError(f"{facts}: no such file")
        if md5_file(facts) != checksum:
            raise CuriosityImportError(f"{facts} is not the fact db of {path}: its md5 differs from db_checksum {checksum}")
        imported = factdb_import(path=facts, slug=slug, name="Curiosity fact db")
    except FactDbError as error:
        raise CuriosityImportError(str(error)) from error
    return imported.source, {"articles": imported.articles, "facts": imported.facts, "mentions": imported.mentions}


def _campaign(slug: str, source: Any, dialogs: list[dict]) -> Campaign:
    topics = sorted({d["room"]["topic"] for d in dialogs})
    campaign, created = Campaign.objects.get_or_create(
        slug=slug,
        defaults={
            "name": "Curiosity (imported)",
            "protocol": NAME,
            "knowledge_source": source,
            "is_active": False,
            "protocol_config": {"topics": topics},
        },
    )
    if not created and (campaign.protocol != NAME or campaign.knowledge_source_id != source.pk):
        raise CuriosityImportError(f"campaign {slug!r} is not a Curiosity campaign on knowledge source {source.slug!r}")
    return campaign


def _parse(index: int, raw: Any) -> dict[str, Any]:
    where = f"dialogs[{index}]"
    if not isinstance(raw, dict):
        raise CuriosityImportError(f"{where}: expected an object")
    dialog_id = raw.get("dialog_id")
    if not isinstance(dialog_id, int) or isinstance(dialog_id, bool):
        raise CuriosityImportError(f"{where}: 'dialog_id' must be an integer")
    where = f"{where} (dialog_id {dialog_id})"
    topic = raw.get("focus_entity")
    if not isinstance(topic, str) or not topic.strip():
        raise CuriosityImportError(f"{where}: 'focus_entity' must be a non-empty string")
    if not isinstance(raw.get("messages"), list):
        raise CuriosityImportError(f"{where}: 'messages' must be a list")
    extra: dict[str, Any] = {key: value for key, value in raw.items() if key not in DIALOG_KEYS}
    absent = sorted(DIALOG_KEYS - set(raw))
    if absent:
        extra[ABSENT] = absent
    dialog: dict[str, Any] = {"dialog_id": dialog_id, "flags": {}}
    for key in LISTS:
        value = raw.get(key, [])
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            dialog[key] = value
        else:
            extra[key] = value
            dialog[key] = []
    for key in OPTIONAL_STR:
        value = raw.get(key)
        dialog[key] = value if isinstance(value, str) else None
        if value is not None and not isinstance(value, str):
            extra[key] = value
    for key in FLAG_DEFAULTS:
        if key in raw:
            dialog["flags"][key] = raw[key]
    for key in RATINGS:
        value = raw.get(key)
        ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**15
        dialog[key] = value if ok else None
        if value is not None and not ok:
            extra[key] = value
    created = raw.get("created_time")
    dialog["created_time"] = created if isinstance(created, int) and not isinstance(created, bool) else None
    if created is not None and dialog["created_time"] is None:
        extra["created_time"] = created
    tag = raw.get("tag", "")
    dialog["tag"] = tag if isinstance(tag, str) and len(tag) <= 100 else ""
    if "tag" in raw and dialog["tag"] != tag:
        extra["tag"] = tag
    ids = {role: raw.get(f"{role}_id") for role in ROLES}
    for role, value in ids.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, str))):
            raise CuriosityImportError(f"{where}: '{role}_id' must be a string or an integer")
    dialog["user_id_value"], dialog["assistant_id_value"] = ids["user"], ids["assistant"]
    dialog["extra"] = extra or None
    messages = [_message(f"{where}: messages[{i}]", m) for i, m in enumerate(raw["messages"])]
    first = messages[0]["role"] if messages else "user"
    return {"dialog": dialog, "messages": messages, "ids": ids, "room": {"topic": topic, "first_speaker": first}}


def _message(where: str, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise CuriosityImportError(f"{where}: expected an object")
    sender = raw.get("sender")
    if sender not in ROLES:
        raise CuriosityImportError(f"{where}: 'sender' must be 'user' or 'assistant', not {sender!r}")
    text = raw.get("message")
    if not isinstance(text, str):
        raise CuriosityImportError(f"{where}: 'message' must be a string")
    facts = raw.get("facts", [])
    if not isinstance(facts, list) or not all(
        isinstance(f, dict) and isinstance(f.get("fid"), int) and not isinstance(f.get("fid"), bool) for f in facts
    ):
        raise CuriosityImportError(f"{where}: 'facts' must be a list of objects with an integer 'fid'")
    extra: dict[str, Any] = {key: value for key, value in raw.items() if key not in MESSAGE_KEYS}
    absent = sorted(MESSAGE_KEYS - set(raw))
    if absent:
        extra[ABSENT] = absent
    liked = raw.get("liked", False)
    if not isinstance(liked, bool):
        extra["liked"] = liked
    acts = raw.get("dialog_acts", [])
    if not (isinstance(acts, list) and all(isinstance(a, str) for a in acts)):
        extra["dialog_acts"] = acts  # e.g. null for a message nobody annotated
        acts = None
    message_id = raw.get("message_id", "")
    if not isinstance(message_id, str) or len(message_id) > 64:
        extra["message_id"] = message_id
        message_id = ""
    return {
        "role": sender, "text": text, "liked": liked is True, "facts": facts, "dialog_acts": acts,
        "external_id": message_id, "extra": extra or None,
    }


def _store(campaign: Campaign, dialogs: list[dict], split: str, result: CuriosityImportResult) -> None:
    workers: dict[tuple[str, str], Worker] = {}

    def worker(external_id: str) -> Worker:
        if (PLATFORM, external_id) not in workers:
            workers[(PLATFORM, external_id)] = Worker.objects.get_or_create(platform=PLATFORM, external_id=external_id)[0]
        return workers[(PLATFORM, external_id)]

    rooms, dialog_rows, seats, messages = [], [], [], []
    for item in dialogs:
        d = item["dialog"]
        created = d["created_time"]
        room = Room(
            id=uuid.uuid4(), campaign=campaign, status=RoomStatus.COMPLETE, first_speaker=item["room"]["first_speaker"],
            turns_required=0, topic=item["room"]["topic"], end_reason="imported",
            ended=datetime.fromtimestamp(created, tz=dt_timezone.utc) if created is not None else None,
        )
        rooms.append(room)
        dialog_rows.append(CuriosityDialog(room=room, split=split, **d))
        people = {role: str(item["ids"][role]) if item["ids"][role] is not None else f"{d['dialog_id']}-{role}" for role in ROLES}
        if people["user"] == people["assistant"]:
            people["assistant"] += "/assistant"
        by_role = {}
        for role in ROLES:
            by_role[role] = Assignment(
                campaign=campaign, worker=worker(people[role]), status=AssignmentStatus.PAIRED, room=room, role=role
            )
            seats.append(by_role[role])
        for seq, m in enumerate(item["messages"], start=1):
            messages.append(
                Message(room=room, seq=seq, sender=by_role[m["role"]], client_id=f"import-{seq}", **m)
            )
    Room.objects.bulk_create(rooms)
    CuriosityDialog.objects.bulk_create(dialog_rows)
    Assignment.objects.bulk_create(seats)
    Message.objects.bulk_create(messages, batch_size=2000)
    result.dialogs += len(rooms)
    result.messages += len(messages)


def import_file(path: Path, options: dict[str, Any]) -> dict[str, Any]:
    """The `import_dataset curiosity FILE [--facts DB]` entry: without --facts, the fact db beside
    the file (`wiki_sql.sqlite.db`, where the Curiosity reader looks for it) or the one already in
    the store with the file's checksum."""
    facts = options.get("facts")
    if facts is None and (path.parent / "wiki_sql.sqlite.db").is_file():
        facts = path.parent / "wiki_sql.sqlite.db"
    result = curiosity_import(
        path=path, facts=Path(facts) if facts else None, campaign=options.get("campaign") or "", split=options.get("split")
    )
    return {
        "campaign": result.campaign,
        "source": result.source,
        "split": result.split or "(by hash at export, as asked)",
        "dialogs": result.dialogs,
        "messages": result.messages,
        "present": result.already_present,
        **{f"db {key}": value for key, value in result.facts.items()},
        **({"fact texts": MISSING_NOTE} if result.facts_missing else {}),
    }
