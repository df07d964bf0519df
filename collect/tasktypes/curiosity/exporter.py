"""Curiosity exporter: rooms -> `curiosity_dialogs.{train,val,test,test_zero}.json`, each
`{"dialogs": [...], "db_checksum": md5}`, and the fact database `wiki_sql.sqlite.db` beside them
(docs/schemas.md#curiosity), which the Curiosity reader opens from the same folder and checks against
`db_checksum`.

Imported dialogs keep the split file they came from and every field they had, and each file the
file-level keys its imported file had (collect.tasktypes.curiosity.files); collected ones (and
imported ones whose import asked for `--split hash`) are split by hashing, like the WoW exporter: hash(seed, topic) holds a topic out entirely
(`test_zero`, unseen topics), hash(seed, room) picks val / test / train among the others. All
exported campaigns must share one knowledge source: its fact db is the one the `fid`s refer to; and
no two exported dialogs may share a `dialog_id`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from django.db.models import BigIntegerField, Count, Exists, OuterRef, QuerySet
from django.db.models.functions import Coalesce

from collect.exporters import ExportError, ExportOptions, ExportResult, JsonListFiles, rooms_authenticity, stable_fraction
from collect.tasktypes.curiosity.files import file_frame
from collect.exporters.labels import DIALOG_ACTS, message_labels
from collect.models import Assignment, Campaign, Message, RoomStatus
from collect.tasktypes.curiosity import NAME
from collect.tasktypes.curiosity.models import CuriosityDialog
from retrieval.curiosity.factdb import FactDbError, factdb_missing, factdb_write

SPLITS = ("train", "val", "test", "test_zero")
FILES = {split: f"curiosity_dialogs.{split}.json" for split in SPLITS}
DB_FILE = "wiki_sql.sqlite.db"
ABSENT = "__absent__"  # in `extra`: standard keys an imported dialog or message did not have
REPORTED_IDS = 10  # shared dialog_ids named in the error; the rest are counted
FLAG_DEFAULTS = {"inferred_steps": False, "shuffle_facts": True, "is_annotated": False, "reported": False, "annotated": False}

_DIALOG_FIELDS = (
    "pk", "room_id", "room__topic", "room__created", "dialog_id", "aspects", "first_aspect", "second_aspect",
    "known_entities", "related_entities", "user_dialog_rating", "user_other_agent_rating", "assistant_dialog_rating",
    "assistant_other_agent_rating", "split", "created_time", "tag", "flags", "user_id_value", "assistant_id_value", "extra",
)
_MESSAGE_FIELDS = ("pk", "room_id", "seq", "role", "text", "liked", "facts", "dialog_acts", "external_id", "extra")


def export(out_dir: Path, options: ExportOptions) -> ExportResult:
    campaigns = _campaigns(options)
    sources = sorted({c.knowledge_source_id for c in campaigns})
    if len(sources) != 1:
        listed = "\n".join(f"  {c.slug} (knowledge source {c.knowledge_source})" for c in sorted(campaigns, key=lambda c: c.slug))
        raise ExportError(
            f"these Curiosity campaigns use {len(sources)} knowledge sources, and one export holds one source's facts; "
            f"name the campaigns of one source with --campaign SLUG:\n{listed}"
        )
    statuses = [RoomStatus.COMPLETE] + ([RoomStatus.INCOMPLETE] if options.include_incomplete else [])
    dialogs = CuriosityDialog.objects.filter(room__campaign__in=campaigns, room__status__in=statuses)
    _refuse_shared_dialog_ids(dialogs)
    out_dir.mkdir(parents=True, exist_ok=True)
    notes = []
    checksum = factdb_missing(source_id=sources[0])
    if checksum is not None:
        # Dialogs imported without their fact db: keep their db_checksum, write no db we do not have.
        notes.append(f"{DB_FILE} not written: the fact db (md5 {checksum}) was never imported, so fact texts are missing; "
                     "the dialogs keep its db_checksum (import it with `import_dataset curiosity FILE --facts DB`)")
    else:
        try:
            checksum = factdb_write(source_id=sources[0], path=out_dir / DB_FILE)
        except FactDbError as error:
            raise ExportError(str(error)) from error
    skipped = 0
    with dialog_files(out_dir, campaigns, checksum, notes) as files:
        for dialog, messages, ids in iter_dialogs(dialogs, chunk_size=options.chunk_size):
            if not messages:
                skipped += 1
                continue
            out = dialog_json(dialog, messages, ids)
            if options.authenticity:
                turns = rooms_authenticity([dialog["room_id"]])[dialog["room_id"]]
                for message, entry in zip(messages, out["messages"]):
                    entry["authenticity"] = turns.get(message["seq"])
            files.write(FILES[split_for(dialog, options)], out)
    return ExportResult(counts=dict(files.counts), skipped_empty=skipped, notes=notes)


def _campaigns(options: ExportOptions) -> list[Campaign]:
    campaigns = Campaign.objects.filter(protocol=NAME)
    if options.campaigns:
        found = {c.slug: c for c in Campaign.objects.filter(slug__in=options.campaigns)}
        missing = sorted(set(options.campaigns) - set(found))
        if missing:
            raise ExportError(f"no campaign with slug: {', '.join(missing)}")
        other = sorted(slug for slug, c in found.items() if c.protocol != NAME)
        if other:
            raise ExportError(f"not Curiosity campaigns: {', '.join(other)}")
        campaigns = campaigns.filter(slug__in=options.campaigns)
    campaigns = list(campaigns)
    if not campaigns:
        raise ExportError("there is no Curiosity campaign to export")
    return campaigns


def _refuse_shared_dialog_ids(dialogs: QuerySet[CuriosityDialog]) -> None:
    """Readers key dialogs by dialog_id, so two with one id (a release imported into two campaigns,
    collected ids meeting imported ones) would silently become one; refuse before writing a file."""
    exported = dialogs.filter(Exists(Message.objects.filter(room_id=OuterRef("room_id")))).annotate(
        exported_id=Coalesce("dialog_id", "pk", output_field=BigIntegerField())
    )
    counts = exported.values("exported_id").annotate(n=Count("pk")).filter(n__gt=1).order_by("exported_id")
    shared = list(counts.values_list("exported_id", flat=True))
    if not shared:
        return
    holders: dict[int, list[str]] = {}
    rows = exported.filter(exported_id__in=shared[:REPORTED_IDS]).order_by("exported_id", "room__campaign__slug", "pk")
    for dialog_id, slug, end_reason, split in rows.values_list("exported_id", "room__campaign__slug", "room__end_reason", "split"):
        holders.setdefault(dialog_id, []).append(f"campaign {slug!r} ({_origin(end_reason, split)})")
    lines = [f"  dialog_id {dialog_id}: {'; '.join(where)}" for dialog_id, where in holders.items()]
    if len(shared) > REPORTED_IDS:
        lines.append(f"  ... and {len(shared) - REPORTED_IDS} more")
    raise ExportError(
        f"{len(shared)} dialog_id(s) would each be carried by more than one exported dialog; a dialog_id must be "
        "unique within one export (export the campaigns separately with --campaign):\n" + "\n".join(lines)
    )


def _origin(end_reason: str, split: str) -> str:
    # The importer ends its rooms with "imported"; every other room was collected here.
    if end_reason != "imported":
        return "collected"
    return f"imported from {FILES[split]}" if split in FILES else "imported"


def iter_dialogs(dialogs: Any, *, chunk_size: int) -> Iterator[tuple[dict, list[dict], dict[str, str]]]:
    """(dialog, its messages in order, {role: worker pseudonym}) in dialog order (import order for
    imported files), `chunk_size` dialogs per query."""
    after = 0
    while True:
        page = list(dialogs.filter(pk__gt=after).order_by("pk").values(*_DIALOG_FIELDS)[:chunk_size])
        if not page:
            return
        after = page[-1]["pk"]
        room_ids = [d["room_id"] for d in page]
        messages: dict[Any, list[dict]] = {room_id: [] for room_id in room_ids}
        rows = Message.objects.filter(room_id__in=room_ids).order_by("room_id", "seq").values(*_MESSAGE_FIELDS)
        for message in rows.iterator(chunk_size=2000):
            messages[message["room_id"]].append(message)
        _with_crowd_labels(messages)
        workers: dict[Any, dict[str, str]] = {room_id: {} for room_id in room_ids}
        for room_id, role, pseudonym in Assignment.objects.filter(room_id__in=room_ids).values_list(
            "room_id", "role", "worker__pseudonym"
        ):
            workers[room_id][role] = pseudonym
        for dialog in page:
            yield dialog, messages[dialog["room_id"]], workers[dialog["room_id"]]


def split_for(dialog: dict, options: ExportOptions) -> str:
    if dialog["split"] in SPLITS:
        return dialog["split"]
    draw = stable_fraction(options.seed, "topic", dialog["room__topic"].strip().casefold())
    if draw < options.holdout_topics:
        return "test_zero"
    draw = stable_fraction(options.seed, "room", str(dialog["room_id"]))
    if draw < options.valid:
        return "val"
    if draw < options.valid + options.test:
        return "test"
    return "train"


def dialog_json(dialog: dict, messages: list[dict], workers: dict[str, str]) -> dict[str, Any]:
    flags = {**FLAG_DEFAULTS, **(dialog["flags"] or {})}
    created = dialog["created_time"] if dialog["created_time"] is not None else int(dialog["room__created"].timestamp())
    out: dict[str, Any] = {
        "messages": [message_json(m) for m in messages],
        "known_entities": list(dialog["known_entities"]),
        "focus_entity": dialog["room__topic"],
        "dialog_id": dialog["dialog_id"] if dialog["dialog_id"] is not None else dialog["pk"],
        "inferred_steps": flags["inferred_steps"],
        "created_time": created,
        "aspects": list(dialog["aspects"]),
        "first_aspect": dialog["first_aspect"],
        "second_aspect": dialog["second_aspect"],
        "shuffle_facts": flags["shuffle_facts"],
        "related_entities": list(dialog["related_entities"]),
        "tag": dialog["tag"],
        # Pseudonymous ids only: an imported dialog keeps its own, a collected one has the workers'.
        "user_id": dialog["user_id_value"] if dialog["user_id_value"] is not None else workers.get("user", ""),
        "assistant_id": (
            dialog["assistant_id_value"] if dialog["assistant_id_value"] is not None else workers.get("assistant", "")
        ),
        "is_annotated": flags["is_annotated"],
        # 1–5; null when that member left before rating.
        "user_dialog_rating": dialog["user_dialog_rating"],
        "user_other_agent_rating": dialog["user_other_agent_rating"],
        "assistant_dialog_rating": dialog["assistant_dialog_rating"],
        "assistant_other_agent_rating": dialog["assistant_other_agent_rating"],
        "reported": flags["reported"],
        "annotated": flags["annotated"],
    }
    return _with_extra(out, dialog["extra"])


def _with_crowd_labels(messages: dict[Any, list[dict]]) -> None:
    """Dialog acts labeled in Groundwork's annotation jobs (the annotators' majority, given by the
    provider annotate registers) replace the stored ones; messages nobody has labeled keep theirs
    (e.g. an imported release's)."""
    labels = message_labels(kind=DIALOG_ACTS, message_ids=[m["pk"] for page in messages.values() for m in page])
    for page in messages.values():
        for message in page:
            if message["pk"] in labels:
                message["dialog_acts"] = labels[message["pk"]]


def message_json(message: dict) -> dict[str, Any]:
    # The protocol stores liked = false and facts = [] on user messages; imported ones are as they came.
    out: dict[str, Any] = {
        "message": message["text"],
        "liked": bool(message["liked"]),
        "sender": message["role"],
        "facts": list(message["facts"] or []),
        "message_id": message["external_id"] or str(message["pk"]),
        "dialog_acts": list(message["dialog_acts"] or []),
    }
    return _with_extra(out, message["extra"])


def _with_extra(out: dict[str, Any], extra: dict[str, Any] | None) -> dict[str, Any]:
    """Imported keys we have no column for (or values we keep verbatim) go back in; keys the
    original did not have are left out."""
    if not extra:
        return out
    absent = set(extra.get(ABSENT, []))
    out.update({key: value for key, value in extra.items() if key != ABSENT})
    return {key: value for key, value in out.items() if key not in absent}


def dialog_files(out_dir: Path, campaigns: list[Campaign], checksum: str, notes: list[str]) -> JsonListFiles:
    """Curiosity's split files, written one dialog at a time and renamed into place only when every
    one is complete: `{"dialogs": [...], "db_checksum": "<md5 of the fact db>"}`, with the other
    file-level keys an imported file of that split had, where it had them."""
    heads, tails = {}, {}
    for split in SPLITS:
        heads[FILES[split]], tails[FILES[split]], more = file_frame(campaigns, split, checksum)
        notes.extend(more)
    return JsonListFiles(out_dir, list(heads), head=heads, tail=tails)
