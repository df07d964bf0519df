"""Celery tasks of model chat, on the `models` queue (a local checkpoint's: local_tasks.py)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from collect.groups import room_group
from collect.tasktypes.modelchat import local_tasks  # noqa: F401 - registers the `local_models` task with the workers
from collect.tasktypes.modelchat.progress import publisher_from_worker
from collect.tasktypes.modelchat.turns import model_turn_after, model_turn_take
from groundwork.layer_publish import group_send
from groundwork.logs import log_context


@shared_task(ignore_result=True, queue="models")  # sent from the chat processes: see collect.tasks
def model_turn(room_id: str, after_seq: int) -> bool:
    """Take the model's turn and broadcast it to the room (its message, or the state offering
    several replies to pick from). True when a reply was posted."""
    with log_context(room=room_id):  # the model call's lines name the room
        event: dict[str, Any] | None = model_turn_take(room_id=room_id, after_seq=after_seq, publish=publisher_from_worker(room_id))
        if event is None:
            return False
        group_send(room_group(room_id), event)
        if event["type"] != "room.message":
            return False  # the replies to pick from (prism.py): the evaluator's state shows them
        model_turn_after(room_id=room_id, seq=event["message"]["seq"])
        return True
