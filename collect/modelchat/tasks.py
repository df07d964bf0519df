"""Celery tasks of model chat; settings.CELERY_TASK_ROUTES sends them to the `models` queue."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from collect.groups import room_group
from collect.modelchat.turns import model_turn_after, model_turn_take
from groundwork.layer_publish import group_send
from groundwork.logs import log_context


@shared_task(ignore_result=True)  # sent from the chat processes: see collect.tasks
def model_turn(room_id: str, after_seq: int) -> bool:
    """Take the model's turn and broadcast it to the room. True when a reply was posted."""
    with log_context(room=room_id):  # the model call's lines name the room
        event: dict[str, Any] | None = model_turn_take(room_id=room_id, after_seq=after_seq)
        if event is None:
            return False
        group_send(room_group(room_id), event)
        model_turn_after(room_id=room_id, seq=event["message"]["seq"])
        return True
