"""DuConv scoring items from collected rooms: one per whole DuConv dialogue (scoring.duconv_payload)."""

from __future__ import annotations

from collections.abc import Iterable

from annotate.kinds.duconv_eval.scoring import duconv_payload
from annotate.models import Job
from annotate.services.jobs import ItemSpec, rooms_items_add
from collect.models import Room


def items_from_campaigns(*, job: Job, campaigns: list[str], include_incomplete: bool) -> int:
    return rooms_items_add(job=job, campaigns=campaigns, include_incomplete=include_incomplete, specs_of=duconv_spec)


def duconv_spec(job: Job, room: Room) -> Iterable[ItemSpec]:
    payload = duconv_payload(room)
    if payload is not None:
        yield ItemSpec(key=str(room.id), payload=payload, room_id=room.id)
