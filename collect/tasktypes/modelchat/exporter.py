"""`export_dataset modelchat`: model-chat conversations as JSON Lines, one conversation per line,
ParlAI-style (a `dialog` of turns with speaker ids and text) with the evaluation data beside it:

    {"conversation_id", "campaign", "model", "arm", "topic", "seen", "persona", "ratings": {...},
     "worker", "status", "created",
     "dialog": [{"id": "human"|<model name>, "speaker": "human"|"model", "text",
                 "problems"?: [...], "latency_ms"?: int, "error"?: str, "checked_sentence"?: str}]}

`problems`, `latency_ms` and `error` are on model turns of the model arm; `problems` only once
labelled. A campaign showing several models' replies per turn (protocol_config.prism) adds
"prism": {"models": [...]} to its conversations, and to each model turn the model that made it as
its "id", and "candidates": every model's reply to the message before, in the order shown
([{"model", "text", "error", "rating", "picked", "latency_ms", "first_token_ms"}]; a failed one
has the apology as its text, was not shown and is never picked), and "choice": the index of the
one the evaluator picked, or null when there was nothing to choose (one reply, or none). A DuConv conversation (the DuConv variant) adds "goal", "knowledge" (its triples, as given
to the model) and "goal_completion" (0–2), and its model turns "knowledge_used" (ids into
"knowledge") when the model named any; its "topic" is the goal's topic A. The file is written to a
temporary name and renamed into place when complete."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from collect.exporters import ExportError, ExportOptions, ExportResult, export_progress_tick
from collect.exporters.labels import companions_write
from collect.tasktypes.modelchat.selectors import Conversation, modelchat_conversations
from collect.models import Campaign, RoomStatus
from collect.tasktypes.modelchat import NAME

FILE = "modelchat_conversations.jsonl"


def conversation_record(conversation: Conversation) -> dict[str, Any]:
    dialog = []
    for turn in conversation.turns:
        model = (turn.model or conversation.model) if conversation.prism else conversation.model
        item: dict[str, Any] = {
            "id": "human" if turn.speaker == "human" else model,
            "speaker": turn.speaker,
            "text": turn.text,
        }
        if turn.problems is not None:
            item["problems"] = list(turn.problems)
        if turn.latency_ms is not None:
            item["latency_ms"] = turn.latency_ms
            item["error"] = turn.error
        if turn.checked_sentence is not None:
            item["checked_sentence"] = turn.checked_sentence
        if turn.knowledge_used is not None and turn.speaker == "model":
            item["knowledge_used"] = list(turn.knowledge_used)
        if conversation.prism and turn.candidates is not None:
            item.update(_candidates(turn))
        dialog.append(item)
    extra: dict[str, Any] = {"prism": {"models": list(conversation.prism)}} if conversation.prism else {}
    if conversation.goal is not None:
        extra = {"goal": conversation.goal, "knowledge": conversation.knowledge, "goal_completion": conversation.goal_completion}
    return {
        "conversation_id": conversation.room_id,
        "campaign": conversation.campaign,
        "model": conversation.model,
        "arm": conversation.arm,
        "topic": conversation.topic,
        "seen": conversation.seen,
        "persona": conversation.persona,
        "ratings": conversation.answers,
        "worker": conversation.worker,
        "status": conversation.status,
        "created": conversation.created.isoformat(),
        **extra,
        "dialog": dialog,
    }


def _candidates(turn: Any) -> dict[str, Any]:
    shown = [c for c in turn.candidates if not c.error]
    picked = next((c.position for c in turn.candidates if c.picked), None)
    return {
        "candidates": [
            {"model": c.model, "text": c.text, "error": c.error, "rating": c.rating, "picked": c.picked,
             "latency_ms": c.latency_ms, "first_token_ms": c.first_token_ms}
            for c in turn.candidates
        ],
        "choice": picked if len(shown) >= 2 else None,
    }


def export(out_dir: Path, options: ExportOptions) -> ExportResult:
    known = set(Campaign.objects.filter(protocol=NAME, slug__in=options.campaigns).values_list("slug", flat=True))
    missing = sorted(set(options.campaigns) - known)
    if missing:
        raise ExportError(f"no model-chat campaign named {', '.join(missing)}")
    statuses = () if options.include_incomplete else (RoomStatus.COMPLETE,)
    conversations = modelchat_conversations(campaigns=options.campaigns, statuses=statuses)
    out_dir.mkdir(parents=True, exist_ok=True)
    temp = out_dir / f".{FILE}.{os.getpid()}.tmp"
    written = skipped = 0
    try:
        with temp.open("w", encoding="utf-8") as handle:
            for conversation in conversations:
                if not conversation.turns:
                    skipped += 1
                    continue
                handle.write(json.dumps(conversation_record(conversation), ensure_ascii=False) + "\n")
                written += 1
                export_progress_tick()
        temp.replace(out_dir / FILE)
    finally:
        temp.unlink(missing_ok=True)
    # Files other apps write beside it: annotate's pairwise (ACUTE-Eval) judgments of these campaigns.
    slugs = sorted(known) if options.campaigns else list(Campaign.objects.filter(protocol=NAME).values_list("slug", flat=True))
    companions = companions_write(dataset="modelchat", out_dir=out_dir, campaigns=slugs)
    return ExportResult(counts={FILE: written, **companions}, skipped_empty=skipped)
