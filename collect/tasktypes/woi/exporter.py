"""Wizard of Internet export: `train.jsonl`, `valid.jsonl`, `test.jsonl` as ParlAI 1.7.2's
`wizard_of_internet` teachers read them (layout.py has the record format). Put the three files in
`<datapath>/wizard_of_interent/` beside a `.built` file holding "1.0" and the teachers read them
without downloading anything.

Which searches go in: those that found their documents (a search that failed, or was still
running when the wizard replied, was never on screen; the export's notes count them). Each line is
`json.dumps({dialog_id: dialogue})` with Python's default separators and non-ASCII escaped, so the
file reads the same under any locale. Imported dialogues keep their id, split, file order and
layout (an imported file exports back byte for byte); collected ones are named by their room id
and split by a hash of it (`--valid`, `--test` shares; stable across exports). Rooms still in
progress, and rooms review rejected or soft-rejected, are never exported; rooms that ended early
only with --include-incomplete, marked `"incomplete": true` and their `"end_reason"` (keys the
teachers do not read)."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from django.db.models import QuerySet

from collect.exporters import ExportError, ExportOptions, ExportResult, export_progress_tick, rooms_authenticity, stable_fraction
from collect.models import Campaign, Decision, Message, Room, RoomStatus
from collect.tasktypes.woi import NAME, WIZARD
from collect.tasktypes.woi.layout import (
    APPRENTICE_TO_WIZARD, FILES, HISTORY, PERSONA, SEARCH_TO_WIZARD, WIZARD_TO_APPRENTICE, WIZARD_TO_SEARCH, document_out, entry,
    laid_out,
)
from collect.tasktypes.woi.models import SearchStatus, WoiDialogue, WoiSearch, WoiTurn

SPLITS = {"train": "train.jsonl", "valid": "valid.jsonl", "test": "test.jsonl"}
INCOMPLETE_KEY = "incomplete"
END_REASON_KEY = "end_reason"


def export(out_dir: Path, options: ExportOptions) -> ExportResult:
    dialogues = dialogues_to_export(options)
    out_dir.mkdir(parents=True, exist_ok=True)
    temps = {name: out_dir / f".{name}.{os.getpid()}.tmp" for name in FILES}
    handles: dict[str, IO[str]] = {}
    counts = dict.fromkeys(FILES, 0)
    skipped = unshown = 0
    try:
        for name, temp in temps.items():
            handles[name] = temp.open("w", encoding="utf-8", newline="\n")
        for dialogue, room, history, left_out in records(dialogues, options):
            unshown += left_out
            if not history:
                skipped += 1
                continue
            name = SPLITS.get(dialogue.split) or split_for(room.pk, options)
            record: dict[str, Any] = {PERSONA: dialogue.persona, HISTORY: history}
            if room.status == RoomStatus.INCOMPLETE:
                record[INCOMPLETE_KEY], record[END_REASON_KEY] = True, room.end_reason
            layout = dialogue.extra or {}
            record = laid_out(record, layout.get("keys"), layout.get("extra"))
            handles[name].write(json.dumps({dialogue.dialog_id or str(room.pk): record}) + "\n")
            counts[name] += 1
            export_progress_tick()
    except BaseException:
        for handle in handles.values():
            handle.close()
        for temp in temps.values():
            temp.unlink(missing_ok=True)
        raise
    for name, handle in handles.items():
        handle.close()
        os.replace(temps[name], out_dir / name)
    notes = [f"{unshown} search(es) left out: they failed, or were still running when the wizard replied"] if unshown else []
    return ExportResult(counts=counts, skipped_empty=skipped, notes=notes)


def dialogues_to_export(options: ExportOptions) -> QuerySet[WoiDialogue]:
    statuses = [RoomStatus.COMPLETE] + ([RoomStatus.INCOMPLETE] if options.include_incomplete else [])
    dialogues = WoiDialogue.objects.filter(room__campaign__protocol=NAME, room__status__in=statuses)
    # Review (docs/campaigns.md): soft-rejected and rejected work is never part of the dataset.
    dialogues = dialogues.exclude(room__members__decision__in=[Decision.SOFT_REJECTED, Decision.REJECTED])
    if options.campaigns:
        found = dict(Campaign.objects.filter(slug__in=options.campaigns).values_list("slug", "protocol"))
        missing = sorted(set(options.campaigns) - set(found))
        if missing:
            raise ExportError(f"no campaign with slug: {', '.join(missing)}")
        other = sorted(slug for slug, protocol in found.items() if protocol != NAME)
        if other:
            raise ExportError(f"not Wizard of Internet campaigns: {', '.join(other)}")
        dialogues = dialogues.filter(room__campaign__slug__in=options.campaigns)
    return dialogues.select_related("room").order_by(
        "room__campaign__created", "room__campaign_id", "position", "room__created", "room_id"
    )


def split_for(room_id: Any, options: ExportOptions) -> str:
    share = stable_fraction(options.seed, "woi-dialogue", str(room_id))
    if share < options.test:
        return "test.jsonl"
    if share < options.test + options.valid:
        return "valid.jsonl"
    return "train.jsonl"


def records(dialogues: QuerySet[WoiDialogue], options: ExportOptions) -> Iterator[tuple[WoiDialogue, Room, list[dict[str, Any]], int]]:
    """(dialogue, room, its dialog_history, searches left out), `options.chunk_size` rooms per query."""
    total = dialogues.count()
    for start in range(0, total, options.chunk_size):
        chunk = list(dialogues[start : start + options.chunk_size])
        room_ids = [d.room_id for d in chunk]
        messages: dict[Any, list[tuple[int, str, str]]] = defaultdict(list)
        for room_id, seq, role, text in Message.objects.filter(room_id__in=room_ids).order_by("room_id", "seq").values_list("room_id", "seq", "role", "text"):
            messages[room_id].append((seq, role, text))
        searches: dict[Any, list[WoiSearch]] = defaultdict(list)
        for search in WoiSearch.objects.filter(room_id__in=room_ids).order_by("room_id", "after_seq", "created", "pk"):
            searches[search.room_id].append(search)
        turns = {(t.room_id, t.seq): t for t in WoiTurn.objects.filter(room_id__in=room_ids)}
        authenticity = rooms_authenticity(room_ids) if options.authenticity else {}
        for dialogue in chunk:
            room_searches = searches[dialogue.room_id]
            history = dialog_history(
                dialogue.room_id, messages[dialogue.room_id], room_searches, turns, authenticity.get(dialogue.room_id),
            )
            left_out = sum(1 for s in room_searches if s.status != SearchStatus.DONE)
            yield dialogue, dialogue.room, history, left_out


def dialog_history(
    room_id: Any, messages: list[tuple[int, str, str]], searches: list[WoiSearch], turns: dict[tuple[Any, int], WoiTurn],
    authenticity: dict[int, Any] | None = None,
) -> list[dict[str, Any]]:
    """The dialog_history of one room; with `authenticity` (seq -> the exported object, --authenticity)
    each message's entry carries its own, the search entries none."""
    by_turn: dict[int, list[WoiSearch]] = defaultdict(list)
    documents: dict[int, list[dict[str, Any]]] = {}
    for search in searches:
        documents[search.pk] = search.documents or []
        if search.status == SearchStatus.DONE:
            by_turn[search.after_seq].append(search)
    history = [item for search in by_turn.get(0, []) for item in search_entries(search)]
    for seq, role, text in messages:
        turn = turns.get((room_id, seq))
        layout = turn.layout if turn else None
        if role == WIZARD:
            if turn is None or turn.selected is None:
                raise ExportError(f"room {room_id} message {seq}: a wizard reply without its selection")
            shown = (layout or {}).get("contents")
            if shown is None:
                shown = documents.get(turn.search_id, []) if turn.search_id else []
            context = {"contents": [document_out(d) for d in shown], "selected_contents": turn.selected}
            history.append(entry(WIZARD_TO_APPRENTICE, text, context, layout))
        else:
            history.append(entry(APPRENTICE_TO_WIZARD, text, {}, layout))
        if authenticity is not None:
            history[-1]["authenticity"] = authenticity.get(seq)
        history += [item for search in by_turn.get(seq, []) for item in search_entries(search)]
    return history


def search_entries(search: WoiSearch) -> list[dict[str, Any]]:
    layout = search.layout or {}
    results = {"contents": [document_out(d) for d in search.documents or []]}
    return [
        entry(WIZARD_TO_SEARCH, search.query, {}, layout.get("query")),
        entry(SEARCH_TO_WIZARD, layout.get("results_text", ""), results, layout.get("results")),
    ]
