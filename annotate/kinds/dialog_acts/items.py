"""Dialog-act items from collected rooms: one per dialogue, its messages labeled by index (each
linked to its collect Message, so that the Curiosity export carries the acts: labels.dialog_acts_for)."""

from __future__ import annotations

from collections.abc import Iterable

from annotate.models import Job
from annotate.services.jobs import ItemSpec, room_messages, rooms_items_add
from collect.models import Room

# The screen speaks Curiosity's roles; Wizard of Wikipedia's apprentice asks and its wizard knows.
SENDERS = {"apprentice": "user", "wizard": "assistant", "user": "user", "assistant": "assistant"}


def items_from_campaigns(*, job: Job, campaigns: list[str], include_incomplete: bool) -> int:
    return rooms_items_add(job=job, campaigns=campaigns, include_incomplete=include_incomplete, specs_of=dialog_specs)


def dialog_specs(job: Job, room: Room) -> Iterable[ItemSpec]:
    messages = room_messages(room)
    if not messages:
        return
    payload = {
        "topic": room.topic,
        # Curiosity rooms carry their two aspects (its CuriosityDialog); WoW rooms have none.
        "aspects": list(getattr(getattr(room, "curiosity", None), "aspects", None) or []),
        "messages": [{"sender": SENDERS.get(m.role, m.role), "text": m.text} for m in messages],
    }
    links = [(index, m.id) for index, m in enumerate(messages)]
    yield ItemSpec(key=str(room.id), payload=payload, room_id=room.id, message_links=links)
