"""Relevance items from collected rooms: one per wizard turn that answers an apprentice turn, with
the knowledge the wizard was shown for it (candidates.py); optionally only the contexts where the
live ranker is least certain (active.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from annotate.kinds.relevance.active import specs_least_certain
from annotate.kinds.relevance.candidates import ITEM_NAMESPACE, NO_PASSAGES_USED, relevance_payload
from annotate.models import Job
from annotate.services import AnnotationError
from annotate.services.jobs import ItemSpec, room_messages, rooms_items_add
from collect.models import Room
from retrieval.rankers.load import live_ranker, ranker_version

# The roles whose first turn makes the context start with the human (WOW++'s start_speaker).
HUMAN_ROLES = ("apprentice", "user")


def items_from_campaigns(*, job: Job, campaigns: list[str], include_incomplete: bool, least_certain: int | None = None) -> int:
    """Items for the campaigns' wizard turns the job lacks; with `least_certain` = n, only the n
    contexts where the live ranker is least certain (active.py)."""
    if least_certain is not None and least_certain < 1:
        raise AnnotationError("bad_selection", "least-certain selection takes a relevance job and a number of at least 1")

    def select(specs: Iterable[ItemSpec]) -> tuple[Iterable[ItemSpec], dict[str, Any]]:
        ranker = live_ranker()
        existing = set(job.items.values_list("key", flat=True))
        chosen = specs_least_certain((s for s in specs if s.key not in existing), limit=least_certain, ranker=ranker)
        return iter(chosen), {"selection": f"least certain by {ranker_version(ranker)}"}

    return rooms_items_add(
        job=job, campaigns=campaigns, include_incomplete=include_incomplete, specs_of=relevance_specs,
        select=select if least_certain is not None else None,
    )


def relevance_specs(job: Job, room: Room) -> Iterable[ItemSpec]:
    messages = room_messages(room)
    if not messages:
        return
    start_speaker = "Human" if messages[0].role in HUMAN_ROLES else "Assistant"
    for i, message in enumerate(messages):
        # The context must end on the user's turn that this wizard message answers.
        if message.role != "wizard" or i == 0 or messages[i - 1].role != "apprentice":
            continue
        passage = message.checked_passage or {}
        article = next(iter(passage.values()), None)
        payload = relevance_payload(
            topic=room.topic,
            turns=[m.text for m in messages[:i]],
            start_speaker=start_speaker,
            shown=message.knowledge_shown or [],
            gold_sentence=message.checked_sentence,
            gold_article=None if article == NO_PASSAGES_USED else article,
            options=job.candidates,
        )
        key = str(uuid.uuid5(ITEM_NAMESPACE, f"{room.id}:{message.seq}"))
        yield ItemSpec(key=key, payload={"id": key, **payload}, room_id=room.id, message_id=message.id)
