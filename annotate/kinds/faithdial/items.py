"""FaithDial items from collected Wizard of Wikipedia rooms: one per wizard message grounded on a
checked knowledge sentence (a turn where the wizard checked "no sentence used" has no knowledge to
be faithful to, and FaithDial has no such turns), with the messages before it as its history.

Payload: {"topic", "history": [texts], "speaker": "Wizard", "knowledge": the checked sentence,
"response": the wizard's message, "dialog": the room id, "turn": its index among the room's items}.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from annotate.models import Job
from annotate.services.jobs import ItemSpec, room_messages, rooms_items_add
from collect.models import Message, Room

NO_PASSAGES_USED = "no_passages_used"
WIZARD = "Wizard"


def items_from_campaigns(*, job: Job, campaigns: list[str], include_incomplete: bool) -> int:
    return rooms_items_add(job=job, campaigns=campaigns, include_incomplete=include_incomplete, specs_of=room_specs)


def checked_knowledge(message: Message) -> str | None:
    """The sentence the wizard checked ({"chosen_Title_3": sentence} in WoW's shape), or None."""
    checked = message.checked_sentence
    if not isinstance(checked, dict) or not checked:
        return None
    sentence = next(iter(checked.values()))
    return sentence if isinstance(sentence, str) and sentence and sentence != NO_PASSAGES_USED else None


def room_specs(job: Job, room: Room) -> Iterable[ItemSpec]:
    messages = room_messages(room)
    turn = 0
    for index, message in enumerate(messages):
        knowledge = checked_knowledge(message) if message.role == "wizard" else None
        if knowledge is None or index == 0:
            continue
        payload: dict[str, Any] = {
            "topic": room.topic,
            "history": [m.text for m in messages[:index]],
            "speaker": WIZARD,
            "knowledge": knowledge,
            "response": message.text,
            "dialog": str(room.id),
            "turn": turn,
        }
        yield ItemSpec(key=f"{room.id}:{message.seq}", payload=payload, room_id=room.id, message_id=message.id)
        turn += 1
