"""Selectors: ranker training examples (WowppContext, the learned ranker's format) from the work
Groundwork has collected.

- WoW dialogues that finished (COMPLETE) and that review did not reject or soft-reject (the WoW
  export's rule): for each wizard turn with a checked sentence, that sentence (relevant) against the
  other sentences of the panel the wizard saw (Message.knowledge_shown), ranked against the turns
  before it, as many as the live rerank reads (collect.selectors.CONTEXT_TURNS).
- Relevance jobs: each task item that reached its overlap, with the share of annotators who picked
  each candidate (the job's WOW++ export).
Contexts that are in the held-out evaluation set (same last two turns) are left out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from retrieval.rankers import Candidate
from retrieval.rankers.wowpp import WowppContext, wowpp_context

NO_PASSAGES_USED = "no_passages_used"


@dataclass(frozen=True)
class CollectedExamples:
    contexts: list[WowppContext]
    dialogues: int  # WoW rooms that gave at least one example
    wizard_turns: int  # examples from checked sentences
    relevance_items: int  # examples from relevance votes
    held_out_skipped: int  # contexts left out because the held-out set has them

    def counts(self) -> dict[str, int]:
        return {
            "contexts": len(self.contexts), "dialogues": self.dialogues, "wizard_turns": self.wizard_turns,
            "relevance_items": self.relevance_items, "held_out_skipped": self.held_out_skipped,
        }


def training_examples_collected(
    *, held_out: Sequence[WowppContext] = (), max_dialogues: int | None = None, relevance: bool = True
) -> CollectedExamples:
    """Every example collected so far, oldest dialogue first; `max_dialogues` keeps the first n
    dialogues (a learning curve)."""
    excluded = {context_fingerprint(c.turns) for c in held_out}
    skipped = 0
    wow: list[WowppContext] = []
    rooms: set[str] = set()
    for context in wow_examples(max_dialogues=max_dialogues):
        if context_fingerprint(context.turns) in excluded:
            skipped += 1
            continue
        wow.append(context)
        rooms.add(context.id.split(":")[1])
    votes: list[WowppContext] = []
    for context in relevance_examples() if relevance else ():
        if context_fingerprint(context.turns) in excluded:
            skipped += 1
            continue
        votes.append(context)
    return CollectedExamples(wow + votes, len(rooms), len(wow), len(votes), skipped)


def context_fingerprint(turns: Sequence[str]) -> tuple[str, ...]:
    return tuple(" ".join(turn.split()).casefold() for turn in turns[-2:])


def wow_examples(*, max_dialogues: int | None = None) -> Iterable[WowppContext]:
    from collect.exporters import ExportOptions
    from collect.exporters.wow import rooms_to_export
    from collect.models import Message
    from collect.selectors import CONTEXT_TURNS

    rooms = rooms_to_export(ExportOptions()).order_by("created", "pk").values_list("id", "topic")
    if max_dialogues is not None:
        rooms = rooms[:max_dialogues]
    fields = ("seq", "role", "text", "knowledge_shown", "checked_sentence", "checked_passage")
    for room_id, topic in rooms.iterator(chunk_size=200):
        turns: list[str] = []
        messages = Message.objects.filter(room_id=room_id).order_by("seq").values_list(*fields)
        for seq, role, text, shown, sentence, passage in messages:
            context = _wizard_turn(f"wow:{room_id}:{seq}", topic, turns[-CONTEXT_TURNS:], shown, sentence, passage)
            if role == "wizard" and context is not None:
                yield context
            turns.append(text)


def _wizard_turn(
    key: str, topic: str, turns: list[str], shown: object, sentence: object, passage: object
) -> WowppContext | None:
    if not isinstance(shown, list) or not isinstance(sentence, dict) or not isinstance(passage, dict) or not turns:
        return None
    checked_text = next(iter(sentence.values()), None)
    checked_title = next(iter(passage.values()), None)
    if NO_PASSAGES_USED in sentence or not isinstance(checked_text, str):
        return None
    confidence: dict[Candidate, float] = {}
    for shown_passage in shown:
        title = str(shown_passage.get("title", ""))
        for text in shown_passage.get("sentences", []):
            candidate = Candidate(title, str(text))
            picked = title == checked_title and text == checked_text
            confidence[candidate] = max(confidence.get(candidate, 0.0), 1.0 if picked else 0.0)
    if len(confidence) < 2 or 1.0 not in confidence.values():
        return None  # nothing to rank against, or the checked sentence is not in the stored panel
    return WowppContext(
        id=key, topic=topic, turns=list(turns), candidates=list(confidence),
        confidences=np.fromiter(confidence.values(), dtype=np.float64, count=len(confidence)),
    )


def relevance_examples() -> Iterable[WowppContext]:
    from annotate.exporters.wowpp import wowpp_records
    from annotate.models import Job, JobKind

    for job in Job.objects.filter(kind=JobKind.RELEVANCE).order_by("created", "pk"):
        for key, record in wowpp_records(job):
            context = wowpp_context(f"relevance:{job.slug}:{key}", record)
            if len(context.candidates) >= 2 and context.turns:
                yield context
