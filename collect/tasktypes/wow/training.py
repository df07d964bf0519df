"""The ranker's training examples from Wizard of Wikipedia dialogues (registered with
retrieval.training.examples by this app): dialogues that finished (COMPLETE) and that review did
not reject or soft-reject (the WoW export's rule); for each wizard turn with a checked sentence,
that sentence (relevant) against the other sentences of the panel the wizard saw
(Message.knowledge_shown), ranked against the turns before it, as many as the live rerank reads
(collect.selectors.CONTEXT_TURNS)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from collect.exporters import ExportOptions
from collect.models import Message
from collect.selectors import CONTEXT_TURNS
from collect.tasktypes.wow import WIZARD
from collect.tasktypes.wow.exporter import rooms_to_export
from retrieval.rankers import Candidate
from retrieval.rankers.wowpp import WowppContext
from retrieval.training.heldout import held_out_by_hash

NO_PASSAGES_USED = "no_passages_used"


def wow_examples(*, max_dialogues: int | None = None, held_only: bool = False) -> Iterable[WowppContext]:
    rooms = rooms_to_export(ExportOptions()).order_by("created", "pk").values_list("id", "topic")
    if max_dialogues is not None:
        rooms = rooms[:max_dialogues]
    fields = ("seq", "role", "text", "knowledge_shown", "checked_sentence", "checked_passage")
    for room_id, topic in rooms.iterator(chunk_size=200):
        if held_only and not held_out_by_hash(f"wow:{room_id}", per_dialogue=True):
            continue
        turns: list[str] = []
        messages = Message.objects.filter(room_id=room_id).order_by("seq").values_list(*fields)
        for seq, role, text, shown, sentence, passage in messages:
            context = _wizard_turn(f"wow:{room_id}:{seq}", topic, turns[-CONTEXT_TURNS:], shown, sentence, passage)
            if role == WIZARD and context is not None:
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
