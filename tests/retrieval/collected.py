"""Collected WoW rooms written through the ORM for the retraining tests: each wizard turn checks a
sentence of the panel it was shown, following placement_contexts' rule (the first sentence of the
topic's article) or, for the "corrupted" rooms, the sentence that only shares words with the turns."""

from __future__ import annotations

from pathlib import Path

from collect.models import Assignment, Campaign, Room, RoomStatus
from tests.factories import add_message, make_room
from tests.retrieval.wowpp_files import placement_contexts, write_wowpp

NONE_USED = {"no_passages_used": "no_passages_used"}


def collected_rooms(campaign: Campaign, numbers: range, *, corrupted: bool = False, decision: str = "") -> list[Room]:
    rooms = []
    contexts = placement_contexts(numbers.stop)
    for number in numbers:
        topic, turns, candidates = contexts[number]
        room = make_room(campaign, topic=topic, topic_passage=[], first_speaker="apprentice", status=RoomStatus.COMPLETE)
        if decision:
            Assignment.objects.filter(room=room, role="wizard").update(decision=decision)
        add_message(room, "apprentice", turns[0])
        add_message(room, "wizard", f"Sure, room {number}.", checked_sentence=NONE_USED, checked_passage=NONE_USED,
                    knowledge_shown=[])
        add_message(room, "apprentice", turns[1])
        shown = _panel(candidates)
        pick = 2 if corrupted else 0  # placement_contexts: [0] is relevant, [2] only shares the turns' words
        article, sentence, _ = candidates[pick]
        index = [p["title"] for p in shown].index(article)
        position = shown[index]["sentences"].index(sentence)
        add_message(room, "wizard", f"Did you know? {sentence}", knowledge_shown=shown,
                    checked_sentence={f"partner_{article}_{position}": sentence},
                    checked_passage={f"partner_{index}_{article}": article})
        rooms.append(room)
    return rooms


def heldout_file(path: Path, numbers: range) -> Path:
    return write_wowpp(path, placement_contexts(numbers.stop)[numbers.start :])


def _panel(candidates: list) -> list[dict]:
    panel: dict[str, list[str]] = {}
    for article, sentence, _ in candidates:
        panel.setdefault(article, []).append(sentence)
    return [{"source": "partner", "passage": i, "title": t, "sentences": s} for i, (t, s) in enumerate(panel.items())]

