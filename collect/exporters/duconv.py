"""DuConv export: `train.txt`, `dev.txt`, `test.txt`, JSON Lines, one session a line
(SCHEMAS.md section 4): exactly {"goal", "knowledge", "conversation"} in that key order, the text
as stored (non-ASCII written as is, like the original files). Imported sessions keep their split and
file order, so an imported file exports back identically; collected ones are split by a hash of
their room id (stable across exports). With `samples`, every agent turn j (even index) becomes a
test-format sample {"goal", "knowledge", "history": conversation[:j], "response": conversation[j]}.
With `segment`, collected utterances are word-segmented (jieba) as the original's are."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from collect.exporters import ExportError, ExportOptions, ExportResult, export_progress_tick, stable_fraction
from collect.models import Campaign, DuConvSession, Message, Protocol, RoomStatus

SPLITS = ("train", "dev", "test")


def export(out_dir: Path, options: ExportOptions) -> ExportResult:
    campaigns = _campaigns(options)
    files = {name: f"{name}.txt" for name in SPLITS}
    out_dir.mkdir(parents=True, exist_ok=True)
    temps = {name: out_dir / f".{file}.{os.getpid()}.tmp" for name, file in files.items()}
    handles: dict[str, IO[str]] = {}
    counts = {file: 0 for file in files.values()}
    skipped = 0
    try:
        for name, temp in temps.items():
            handles[name] = temp.open("w", encoding="utf-8", newline="\n")
        for session, conversation in sessions(campaigns, options):
            if not conversation:
                skipped += 1
                continue
            split = session.split if session.split in SPLITS else _hash_split(session, options)
            for record in _records(session, conversation, samples=getattr(options, "samples", False)):
                handles[split].write(json.dumps(record, ensure_ascii=False) + "\n")
                counts[files[split]] += 1
            export_progress_tick()  # one per session
    except BaseException:
        for handle in handles.values():
            handle.close()
        for temp in temps.values():
            temp.unlink(missing_ok=True)
        raise
    for name, handle in handles.items():
        handle.close()
        os.replace(temps[name], out_dir / files[name])
    return ExportResult(counts=counts, skipped_empty=skipped)


def _campaigns(options: ExportOptions) -> list[Campaign]:
    query = Campaign.objects.filter(protocol=Protocol.DUCONV)
    if options.campaigns:
        found = {c.slug: c for c in query.filter(slug__in=options.campaigns)}
        missing = [slug for slug in options.campaigns if slug not in found]
        if missing:
            raise ExportError(f"no DuConv campaign called {missing[0]!r}")
        return [found[slug] for slug in options.campaigns]
    return list(query.order_by("created", "id"))


def sessions(campaigns: list[Campaign], options: ExportOptions) -> Iterator[tuple[DuConvSession, list[str]]]:
    """(session, its utterances in order; segmented when asked) for the exported rooms."""
    statuses = [RoomStatus.COMPLETE] + ([RoomStatus.INCOMPLETE] if options.include_incomplete else [])
    segment_text = None
    if getattr(options, "segment", False):
        from collect.duconv.segment import segment as segment_text
    query = (
        DuConvSession.objects.filter(room__campaign__in=campaigns, room__status__in=statuses)
        .select_related("room")
        .order_by("room__campaign__created", "room__campaign_id", "position", "room__created", "room_id")
    )
    for start in range(0, query.count(), options.chunk_size):
        chunk = list(query[start : start + options.chunk_size])
        texts: dict[Any, list[str]] = {s.room_id: [] for s in chunk}
        for room_id, text in Message.objects.filter(room_id__in=texts).order_by("room_id", "seq").values_list("room_id", "text"):
            texts[room_id].append(text)
        for session in chunk:
            conversation = texts[session.room_id]
            if segment_text is not None and session.room.end_reason != "imported":
                conversation = [segment_text(t) for t in conversation]
            yield session, conversation


def _hash_split(session: DuConvSession, options: ExportOptions) -> str:
    share = stable_fraction(options.seed, "duconv-session", str(session.room_id))
    if share < options.test:
        return "test"
    if share < options.test + options.valid:
        return "dev"
    return "train"


def _records(session: DuConvSession, conversation: list[str], *, samples: bool) -> Iterator[dict[str, Any]]:
    if not samples:
        yield {"goal": session.goal, "knowledge": session.knowledge, "conversation": conversation, **(session.extra or {})}
        return
    for j in range(0, len(conversation), 2):
        yield {"goal": session.goal, "knowledge": session.knowledge, "history": conversation[:j], "response": conversation[j]}
