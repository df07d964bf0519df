"""DuConv export: `train.txt`, `dev.txt`, `test.txt`, JSON Lines, one session a line
(docs/schemas.md#duconv): exactly {"goal", "knowledge", "conversation"} in that key order, the text
as stored (non-ASCII written as is, like the original files). Imported sessions keep their split and
file order, so an imported file exports back identically; collected ones are split by a hash of
their room id (stable across exports). With `samples`, every agent turn j (even index) becomes a
test-format sample {"goal", "knowledge", "history": conversation[:j], "response": conversation[j]},
and a sample imported from a samples file is written back as it was read (the session files leave
it out, with a note).
With `segment`, collected sessions are word-segmented (jieba) as the original release is: the
utterances and every goal and knowledge string but "START" ("出生日期" → "出生 日期")."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from collect.exporters import ExportError, ExportOptions, ExportResult, export_progress_tick, rooms_authenticity, stable_fraction
from collect.models import Campaign, Message, RoomStatus
from collect.tasktypes.duconv import NAME
from collect.tasktypes.duconv.models import DuConvSession
from retrieval.graph.services import START

Record = tuple[list[list[str]], list[list[str]], list[str]]  # goal, knowledge, conversation

SPLITS = ("train", "dev", "test")


def export(out_dir: Path, options: ExportOptions) -> ExportResult:
    campaigns = _campaigns(options)
    files = {name: f"{name}.txt" for name in SPLITS}
    out_dir.mkdir(parents=True, exist_ok=True)
    temps = {name: out_dir / f".{file}.{os.getpid()}.tmp" for name, file in files.items()}
    handles: dict[str, IO[str]] = {}
    counts = {file: 0 for file in files.values()}
    skipped = samples_left_out = 0
    samples = getattr(options, "samples", False)
    if options.authenticity and samples:
        raise ExportError("--authenticity goes with whole sessions, not with --samples")
    try:
        for name, temp in temps.items():
            handles[name] = temp.open("w", encoding="utf-8", newline="\n")
        for session, (goal, knowledge, conversation) in sessions(campaigns, options):
            if session.sample_keys is not None and not samples:
                samples_left_out += 1
                continue
            if not conversation and session.sample_keys is None:
                skipped += 1
                continue
            split = session.split if session.split in SPLITS else _hash_split(session, options)
            for record in _records(session, goal, knowledge, conversation, samples=samples):
                if options.authenticity:
                    # The conversation is a list of strings: the objects are a list beside it, one per utterance.
                    turns = rooms_authenticity([session.room_id])[session.room_id]
                    record["authenticity"] = [turns.get(seq) for seq in range(1, len(conversation) + 1)]
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
    notes = [f"{samples_left_out} imported test-format sample(s) left out: they export with --samples"] if samples_left_out else []
    return ExportResult(counts=counts, skipped_empty=skipped, notes=notes)


def _campaigns(options: ExportOptions) -> list[Campaign]:
    query = Campaign.objects.filter(protocol=NAME)
    if options.campaigns:
        found = {c.slug: c for c in query.filter(slug__in=options.campaigns)}
        missing = [slug for slug in options.campaigns if slug not in found]
        if missing:
            raise ExportError(f"no DuConv campaign called {missing[0]!r}")
        return [found[slug] for slug in options.campaigns]
    return list(query.order_by("created", "id"))


def sessions(campaigns: list[Campaign], options: ExportOptions) -> Iterator[tuple[DuConvSession, Record]]:
    """(session, (goal, knowledge, its utterances in order); segmented when asked) for the exported rooms."""
    statuses = [RoomStatus.COMPLETE] + ([RoomStatus.INCOMPLETE] if options.include_incomplete else [])
    segment_text = None
    if getattr(options, "segment", False):
        from collect.tasktypes.duconv.segment import segment as segment_text
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
            record = (session.goal, session.knowledge, texts[session.room_id])
            if segment_text is not None and session.room.end_reason != "imported":
                record = _segmented(record, segment_text)
            yield session, record


def _hash_split(session: DuConvSession, options: ExportOptions) -> str:
    share = stable_fraction(options.seed, "duconv-session", str(session.room_id))
    if share < options.test:
        return "test"
    if share < options.test + options.valid:
        return "dev"
    return "train"


def _segmented(record: Record, segment_text: Callable[[str], str]) -> Record:
    goal, knowledge, conversation = record
    words = lambda triple: [x if x == START else segment_text(x) for x in triple]  # noqa: E731
    return [words(t) for t in goal], [words(t) for t in knowledge], [segment_text(t) for t in conversation]


def _records(
    session: DuConvSession, goal: list[list[str]], knowledge: list[list[str]], conversation: list[str], *, samples: bool
) -> Iterator[dict[str, Any]]:
    if not samples:
        yield {"goal": goal, "knowledge": knowledge, "conversation": conversation, **(session.extra or {})}
        return
    if session.sample_keys is not None:  # imported from a samples file: the one sample, as read
        keys = session.sample_keys
        values = {"goal": goal, "knowledge": knowledge, "history": conversation, **(session.extra or {})}
        if "response" in keys:
            values["history"], values["response"] = conversation[:-1], conversation[-1]
        yield {key: values[key] for key in keys}
        return
    for j in range(0, len(conversation), 2):
        yield {"goal": goal, "knowledge": knowledge, "history": conversation[:j], "response": conversation[j]}
