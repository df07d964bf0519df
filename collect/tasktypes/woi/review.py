"""Wizard of Internet's checks at review, after the original collection's quality rules (ParlAI's
wizard_of_internet world disqualified a wizard who never searched or never selected a sentence of
the results): the share of the wizard's replies that selected a sentence, their word overlap with
what they selected, replies pasted from it, and flags for a wizard who never searched or never
selected anything."""

from __future__ import annotations

from collect.models import Message
from collect.review.checks import Checks, words
from collect.tasktypes.woi import WIZARD
from collect.tasktypes.woi.models import WoiSearch, WoiTurn

COPY_OVERLAP = 0.9  # this share of the selected sentences' words repeated is a paste


def wizard_checks(checks: Checks, *, messages: list[Message], role: str | None) -> None:
    if role not in (None, WIZARD):
        return
    replies = [m for m in messages if m.role == WIZARD]
    if not replies:
        return
    room_id = replies[0].room_id
    turns = {t.seq: t for t in WoiTurn.objects.filter(room_id=room_id, seq__in=[m.seq for m in replies]).select_related("search")}
    selecting, overlaps = 0, []
    for message in replies:
        turn = turns.get(message.seq)
        used = _selected_sentences(turn)
        if not used:
            continue
        selecting += 1
        source = set(words(" ".join(used)))
        share = len(source & set(words(message.text))) / max(len(source), 1)
        overlaps.append(share)
        if share >= COPY_OVERLAP and len(source) >= 5:
            checks.pasted += 1
    checks.checked_share = selecting / len(replies)
    checks.overlap = sum(overlaps) / len(overlaps) if overlaps else 0.0
    if not WoiSearch.objects.filter(room_id=room_id).exists():
        checks.flags.append("wizard never searched")
    elif not selecting:
        checks.flags.append("wizard never selected a search result")


def _selected_sentences(turn: WoiTurn | None) -> list[str]:
    if turn is None or turn.search is None or not turn.selected or turn.selected[0][0]:
        return []
    documents = turn.search.documents or []
    return [
        document["content"][i]
        for document, row in zip(documents, turn.selected[1:])
        for i, picked in enumerate(row) if picked and i < len(document["content"])
    ]
