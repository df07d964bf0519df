"""Topical-Chat export: the release's five splits, each as `conversations/<split>.json` (conversation
id → {article_url, config, content, conversation_rating}) and `reading_sets/post-build/<split>.json`
(conversation id → {config, agent_1, agent_2, article}), written as the release writes them
(files.py). Every file of both folders is written, `{}` when a split is empty.

Imported conversations keep their split and their place in their file, so an imported file exports
back byte for byte; their reading sets go back to the build they came from (`pre-build/` is written
only when some did). Collected ones are split as the release's "frequent"/"rare" splits are: the
conversations of held-out topics (`holdout_topics`, drawn by a hash of the topic's title) go half
to valid_rare and half to test_rare, and never to train; the others by a hash of the room id to
valid_freq (`valid`), test_freq (`test`) and train. Conversation ids are `t_<room uuid>`, the
release's form."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from django.db.models import QuerySet

from collect.exporters import ExportError, ExportOptions, ExportResult, export_progress_tick, rooms_authenticity, stable_fraction
from collect.models import Campaign, Message, RoomStatus
from collect.tasktypes.topical_chat import NAME
from collect.tasktypes.topical_chat.files import (
    ObjectFiles,
    conversation_record,
    conversations_path,
    reading_set_record,
    reading_sets_path,
)
from collect.tasktypes.topical_chat.models import TopicalConversation, TopicalTurn
from collect.tasktypes.topical_chat.release import POST_BUILD, PRE_BUILD, SPLITS


def export(out_dir: Path, options: ExportOptions) -> ExportResult:
    campaigns = _campaigns(options)
    query = _conversations(campaigns, options)
    builds = [POST_BUILD, *([PRE_BUILD] if query.filter(reading_set_build=PRE_BUILD).exists() else [])]
    conversation_files = {split: conversations_path(out_dir, split) for split in SPLITS}
    set_files = {(split, build): reading_sets_path(out_dir, split, build) for split in SPLITS for build in builds}
    skipped = without_sets = 0
    seen: set[str] = set()
    with ObjectFiles([*conversation_files.values(), *set_files.values()]) as files:
        for conversation, messages, turns in _with_messages(query, options):
            if not messages:
                skipped += 1
                continue
            if conversation.conversation_id in seen:
                raise ExportError(f"conversation {conversation.conversation_id!r} is in two of the exported campaigns "
                                  "(a file imported twice?): export them one at a time with --campaign")
            seen.add(conversation.conversation_id)
            split = conversation.split if conversation.split in SPLITS else split_for(conversation, options)
            record = conversation_record(conversation, messages, turns)
            if options.authenticity:
                turns_authenticity = rooms_authenticity([conversation.room_id])[conversation.room_id]
                for seq, entry in enumerate(record["content"], start=1):
                    entry["authenticity"] = turns_authenticity.get(seq)
            files.write(conversation_files[split], conversation.conversation_id, record)
            if conversation.reading_set_build:
                files.write(set_files[(split, conversation.reading_set_build)], conversation.conversation_id, reading_set_record(conversation))
            else:
                without_sets += 1
            export_progress_tick()  # one per conversation
    base = out_dir.as_posix().rstrip("/") + "/"
    counts = {path.as_posix().removeprefix(base): n for path, n in files.counts.items()}
    notes = [f"{without_sets} imported conversation(s) had no reading set: they are in conversations/ only"] if without_sets else []
    return ExportResult(counts=counts, skipped_empty=skipped, notes=notes)


def _campaigns(options: ExportOptions) -> list[Campaign]:
    query = Campaign.objects.filter(protocol=NAME)
    if options.campaigns:
        found = {c.slug: c for c in query.filter(slug__in=options.campaigns)}
        missing = [slug for slug in options.campaigns if slug not in found]
        if missing:
            raise ExportError(f"no Topical-Chat campaign called {missing[0]!r}")
        return [found[slug] for slug in options.campaigns]
    return list(query.order_by("created", "id"))


def _conversations(campaigns: list[Campaign], options: ExportOptions) -> QuerySet[TopicalConversation]:
    statuses = [RoomStatus.COMPLETE] + ([RoomStatus.INCOMPLETE] if options.include_incomplete else [])
    return (
        TopicalConversation.objects.filter(room__campaign__in=campaigns, room__status__in=statuses)
        .select_related("room")
        .order_by("room__campaign__created", "room__campaign_id", "position", "room__created", "room_id")
    )


def _with_messages(
    query: QuerySet[TopicalConversation], options: ExportOptions
) -> Iterator[tuple[TopicalConversation, list[tuple[str, str]], dict[int, TopicalTurn]]]:
    """Each conversation with its messages' (text, agent) in order and its turns by seq, a chunk of
    rooms per query."""
    for start in range(0, query.count(), options.chunk_size):
        chunk = list(query[start : start + options.chunk_size])
        rooms = [c.room_id for c in chunk]
        messages: dict[object, list[tuple[str, str]]] = defaultdict(list)
        for room_id, text, role in Message.objects.filter(room_id__in=rooms).order_by("room_id", "seq").values_list("room_id", "text", "role"):
            messages[room_id].append((text, role))
        turns: dict[object, dict[int, TopicalTurn]] = defaultdict(dict)
        for turn in TopicalTurn.objects.filter(room_id__in=rooms):
            turns[turn.room_id][turn.seq] = turn
        for conversation in chunk:
            yield conversation, messages[conversation.room_id], turns[conversation.room_id]


def split_for(conversation: TopicalConversation, options: ExportOptions) -> str:
    """A collected conversation's split: rare for the held-out topics, else by a hash of its room."""
    draw = stable_fraction(options.seed, "topic", conversation.room.topic.strip().casefold())
    if draw < options.holdout_topics:
        return "valid_rare" if draw < options.holdout_topics / 2 else "test_rare"
    draw = stable_fraction(options.seed, "room", str(conversation.room_id))
    if draw < options.valid:
        return "valid_freq"
    if draw < options.valid + options.test:
        return "test_freq"
    return "train"
