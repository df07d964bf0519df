"""Celery task of local checkpoints, on the `local_models` queue, whose workers also take the model
turns of checkpoint models (local_queue.py)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from collect.tasktypes.modelchat.checkpoints import checkpoint_warm


@shared_task(ignore_result=True, queue="local_models")
def checkpoint_warm_task(options: dict[str, Any]) -> None:
    """Load a checkpoint in this worker before its first turn needs it."""
    checkpoint_warm(options=options)
